"""A Racing Demon client over a real engine state, with no network: the screen's tests draw
what a seat (or a spectator) would be sent of a table played forward by seeded moves."""

from __future__ import annotations

import random
from typing import Any

import pyte

from lan_demon.games.demon_moves import Play, TurnPack
from lan_demon.games.racing_demon import RacingDemon
from lan_demon.net.score_sheet import ScoreSheet
from lan_demon.tui.demon import DemonScreen
from lan_demon.tui.style import text_of
from lan_demon.tui.table import Controller

NAMES = ["Tess", "Ada", "Bea", "Cy", "Dot", "Eli", "Flo", "Gus", "Hal", "Ivy", "Jo", "Kit",
         "Lu", "Mo", "Ned", "Oz", "Pam", "Quin", "Rex", "Sal"]  # (play's bots: plain names)


class TableClient:
    """Just enough of :class:`lan_demon.net.client.Client` for the screen, over a real engine
    state played forward by seeded greedy moves (stacks first, else a turn of the Pack)."""

    def __init__(self, players: int, seat: int | None = 0, german: bool = False,
                 seed: int = 1, steps: int = 30):
        self.game = RacingDemon(german)
        setup = self.game.first_setup(players, self.game.default_options())
        self.truth = self.game.deal(setup, random.Random(seed))
        rng = random.Random(seed)
        for _ in range(steps):
            for s in range(players):
                self.greedy(s, rng)
        self.seat = seat
        self.table: dict[str, Any] = {"phase": "playing", "round": 0, "seats": [
            {"name": NAMES[i % 20] if i < 20 else f"P{i}", "bot": i > 0, "status": "here",
             "ready": False} for i in range(players)]}
        self.config: dict[str, Any] = {}
        self.name = "Sam"
        self.pending: dict[int, Any] = {}
        self.rtt, self.seq, self.sent = 0.0012, 0, []
        self.scores = ScoreSheet()  # (no round has ended at these tables)
        self.sync()

    def greedy(self, s: int, rng: random.Random) -> None:
        if self.truth.over:
            return
        moves = self.game.legal_moves(self.truth, s)
        stack = [m for m in moves if isinstance(m, Play) and not m.target.startswith("c")]
        pick = rng.choice(stack) if stack else TurnPack() if TurnPack() in moves else None
        if pick is not None and len(self.truth.seats[s].pile) > 3:  # nobody goes out
            self.game.apply(self.truth, s, pick)

    def pump(self) -> None:
        """Nothing arrives: :meth:`sync` has put the table's news in the copy already."""

    def take_notices(self) -> list[Any]:
        return []

    def kept(self, seat: int) -> float | None:
        return None  # nobody away at these tables (§24)

    def sync(self) -> None:
        """The client's copy: the redacted table, as the arbiter would send it."""
        self.mirror = self.game.redact(self.truth, self.seat)

    @property
    def predicted(self) -> Any:
        return self.mirror

    def view(self) -> dict[str, Any]:
        return self.game.view(self.mirror, self.seat)

    def legal_moves(self) -> list[Any]:
        return [] if self.seat is None else self.game.legal_moves(self.mirror, self.seat)

    def play(self, move: Any) -> int:
        self.game.check(self.mirror, self.seat, move)
        self.sent.append(move)
        return len(self.sent)

    def arbiter_now(self) -> float:
        return 0.0


def demon_controller(client: TableClient) -> Controller:
    """The Racing Demon screen's controller over ``client``, its clock standing at 100 s."""
    return Controller(client, DemonScreen(), clock=lambda: 100.0)  # type: ignore[arg-type]


def lines_of(ctl: Controller, width: int, height: int) -> list[str]:
    """The screen as a terminal of width × height shows it (pyte), one string per row."""
    frags = ctl.render(width, height)
    text = text_of(frags)
    rows = text.split("\n")
    assert len(rows) <= height, f"{len(rows)} rows on a screen of {height}"
    assert max(len(r) for r in rows) <= width, "a row wider than the screen: " + max(rows, key=len)
    screen = pyte.Screen(width, height)
    stream = pyte.Stream(screen)
    stream.feed(text.replace("\n", "\r\n"))
    return [row.rstrip() for row in screen.display]
