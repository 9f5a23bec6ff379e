"""Every terminal screen of every game, built in this process for the small-screen size
test: a :class:`SceneClient` is just enough of :class:`lan_demon.net.client.Client` over a
real engine state — dealt from a seed and played forward by seeded legal moves — and
:func:`scenes` walks the phases a person sees (lobby, the captain's question, countdown,
playing with a race line, the leave question, help, the banner, the scores, the match end)
for 1, 2, 4, 8 and 20 seats where the game allows them. No sockets, no sleeps: a scene is a
:class:`~lan_demon.tui.table.Controller` on a fixed clock, ready to ``render``."""

from __future__ import annotations

import functools
import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Callable

from lan_demon.bots.levels import Choice
from lan_demon.coach import coach_for
from lan_demon.games import get_game
from lan_demon.net.score_sheet import ScoreSheet
from lan_demon.net.table_copy import Notice
from lan_demon.seat.seat import SEAT_KEPT_MINUTES
from lan_demon.seat.words import presence_words, race_text, rotation_words, shown, split_rule
from lan_demon.tui.app import screen_for
from lan_demon.tui.table import Controller
from tui_fake import EveningFake, Levels

GAMES = ["racing-demon", "racing-demon-german", "racko", "gin-solitaire"]
COUNTS = [1, 2, 4, 8, 20]
SIZES = [(60, 20), (80, 24)]
NOW = 1000.0
#: a key as the help writes it -> the keys a person presses for it
PRESS = {"1-4": ["1"], "1-9,0": ["1"], "letter": ["a"], "K": ["K", "a"], "space": ["space"],
         "esc": ["escape"], "t": ["t", "1"], "d": ["d"]}

#: Names as a big table has them: up to 12 terminal cells (the arbiter's limit),
#: two alike told apart, wide emoji, a bot with its level, a long bot name.
#: Names as the arbiter seats them (PROTOCOL.md §4.5): at most 12 cells, a second Ann as
#: "Ann ²", a bot seated with a level named with it ("Ada L2"), play's bots plain.
NAMES = ["Tess", "Rosalind Fox", "🃏Bob🎉👨👩", "Ann", "Ann ²", "Ada L2",
         "Quincy Adams", "Bartholomew", "Cy", "Dot Marsh", "Eli L10", "Flo",
         "Gus Grant", "Hal", "Ivy Lee", "Jo", "Kit Carson", "Lu Wei", "Mo Farah",
         "Ned Stark"]
BOTS = {5, 10, 13}  # the seats of NAMES that are bots


class SceneClient(EveningFake):
    """A client's copy of a table at a moment: the redacted engine state and the table's
    news, as the arbiter would have sent them."""

    def __init__(self, game_id: str, players: int, seat: int | None = 0, seed: int = 7,
                 steps: int = 12, phase: str = "playing"):
        self.game = get_game(game_id)
        self.game_id = game_id
        options = self.game.default_options()
        self.setup = self.game.first_setup(players, options)
        self.truth = self.game.copy_state(played(game_id, players, seed, steps))
        self.seat = seat
        self.name = NAMES[seat or 0] if seat is not None else "Sam"
        self.role = "player" if seat is not None else "spectator"
        self.table: dict[str, Any] = {"phase": phase, "round": 0, "captain": 0, "seats": [
            {"name": NAMES[i], "bot": i in BOTS, "status": "here",
             "ready": i in BOTS} for i in range(players)]}
        self.config: dict[str, Any] = {"game": game_id, "rounds": None, "players": None,
                                       "options": options, "pause": 60.0}
        self.pending: dict[int, Any] = {}
        self.notices: list[Any] = []
        self.rtt, self.seq, self.sent = 0.0012, 0, []
        self.mirror = self.game.redact(self.truth, seat)
        self.kept_until: dict[int, float] = {}
        self.paused_since: float | None = None
        self.scores = ScoreSheet()

    # --- what the screen asks of a client -----------------------------------------------------

    @property
    def predicted(self) -> Any:
        return self.mirror

    def pump(self) -> None:
        """Nothing arrives: the scene is one moment."""

    def take_notices(self) -> list[Any]:
        out, self.notices = self.notices, []
        return out

    def view(self) -> dict[str, Any] | None:
        if self.table["phase"] != "playing":
            return None
        return self.game.view(self.mirror, self.seat)

    def legal_moves(self) -> list[Any]:
        return [] if self.seat is None else self.game.legal_moves(self.mirror, self.seat)

    def play(self, move: Any) -> int:
        self.sent.append(move)
        return len(self.sent)

    def arbiter_now(self) -> float:
        return NOW

    def ready(self) -> None:
        self.sent.append("ready")

    def start(self) -> None:
        self.sent.append("start")

    def leave(self) -> None:
        self.sent.append("leave")

    # the evening (§24): how long each away seat is still kept (``kept_until``), standing
    # while paused (``paused_since``)
    def clock(self) -> float:
        return NOW

    # --- the table's news ------------------------------------------------------------------

    def ended(self, phase: str, rounds: int = 3) -> None:
        """The round (``between``) or the match (``over``) over, with ``rounds`` results."""
        try:
            result = self.game.round_result(self.truth).to_data()
        except ValueError:  # (Gin Solitaire scores a finished round only: play it out)
            end, rng = self.game.copy_state(self.truth), random.Random(1)
            while not self.game.round_over(end):
                s = self.game.to_move(end)[0]
                self.game.apply(end, s, rng.choice(self.game.legal_moves(end, s)))
            result = self.game.round_result(end).to_data()
        count = len(result["scores"])
        results = []
        for r in range(rounds):  # the same round, its scores moved about, as a match might
            results.append({**result, "scores": [s + (r * 7 + i * 3) % 11 - 5
                                                 for i, s in enumerate(result["scores"])]})
        self.scores.restart(results)
        self.table.update(phase=phase, setup=self.setup,
                          next_at=None if phase == "over" else NOW + 30, round=rounds - 1)
        if phase == "over":
            low = self.game_id == "racing-demon-german"  # (penalties: lowest wins, RG-7)
            totals = self.scores.totals()
            best = (min if low else max)(range(count), key=lambda i: totals[i])
            self.table["result"] = {"winner": [NAMES[best]] if best < len(NAMES) else []}


@functools.lru_cache(maxsize=None)
def played(game_id: str, players: int, seed: int, steps: int) -> Any:
    """A round dealt from ``seed`` and played ``steps`` times round the table by seeded
    legal moves, never one that ends it (made once; each client takes a copy)."""
    game = get_game(game_id)
    truth = game.deal(game.first_setup(players, game.default_options()), random.Random(seed))
    rng = random.Random(seed)
    for _ in range(steps):
        for s in game.to_move(truth):
            moves = game.legal_moves(truth, s)
            rng.shuffle(moves)
            for move in moves:
                trial = game.copy_state(truth)
                game.apply(trial, s, move)
                if not game.round_over(trial):
                    truth = trial
                    break
    return truth


@dataclass
class Scene:
    """One screen to render: what it shows, and the controller that draws it."""

    what: str
    ctl: Controller


class Local(Levels):
    """``lan-demon play``'s in-process table as its lobby sees it: the bots' level (``v``),
    in the words of the real :class:`~lan_demon.bots.levels.Choice`, a browser's address."""

    page_url = "http://127.0.0.1:8716/t/3f9c2a7e"

    def __init__(self, game_id: str, bots: tuple[str, ...]):
        super().__init__(3, bots)
        self.game_id = game_id

    def describe(self) -> str:
        return Choice(self.level).describe(self.game_id)


class Witness:
    """A deal check that found the round's deal the one promised (the ✓ line)."""

    rounds: dict[int, Any] = {}

    def outcome(self, round_no: int) -> str:
        return "ok"


def controller(client: SceneClient, coach: Any = None, **kw: Any) -> Controller:
    return Controller(client, screen_for(client.game_id, coach),  # type: ignore[arg-type]
                      host=True, clock=lambda: NOW, bell=False, **kw)


def counts(game_id: str) -> list[int]:
    game = get_game(game_id)
    return [n for n in COUNTS if game.min_players <= n <= game.max_players]


def scenes(game_id: str, players: int) -> Iterator[Scene]:
    """Every screen of ``game_id`` with ``players`` seats, as seat 0 (the captain) sees it,
    and the playing table as a spectator sees it."""
    make: Callable[..., SceneClient] = lambda phase="playing", seat=0: SceneClient(  # noqa
        game_id, players, seat=seat, phase=phase)

    client = make("lobby")
    for seat in client.table["seats"][1:]:
        seat["ready"] = False  # the captain's line names who is not ready
    ctl = controller(client)
    yield Scene("lobby", ctl)
    ctl = controller(client)
    ctl.key("enter")  # the captain asked "start anyway?" when someone is not ready
    yield Scene("lobby, the captain's question", ctl)
    client = make("lobby")
    if players > 1:  # play seats bots beside the person: the level's line is shown
        client.table["seats"][-1].update(name="Zed", bot=True)
    yield Scene("lobby of lan-demon play", controller(
        client, local=Local(game_id, ("Zed",)), speeds=[f"level {n}" for n in range(1, 11)]))

    client = make("countdown")
    client.table["go"] = NOW + 3
    yield Scene("countdown", controller(client))

    client = make()
    ctl = controller(client)
    yield Scene("playing", ctl)
    ctl = controller(client)
    ctl.flash("Rosalind Fox's 7♥ reached the 6♥ stack first — your 7♦ stayed in column 2; "
              "the 8♠ stack still wants your 8♠", "RD-11", seconds=30)
    yield Scene("playing, a long sentence", ctl)
    names = [shown(seat) for seat in client.table["seats"]]
    said = [presence_words(names[-1], "away", SEAT_KEPT_MINUTES)]  # the seat's own words
    if game_id.startswith("racing-demon") and players > 1:
        said += [race_text(names, {"by": players - 1, "top": "6H", "ms": 12}),
                 rotation_words(3, minute=True)]
    for words in said:
        ctl = controller(client)
        ctl.flash(*split_rule(words), seconds=30)
        yield Scene(f"playing, said: {words}", ctl)
    for key, _ in controller(client).screen.keys:  # each of the game's keys, pressed once
        press = PRESS.get(key.split()[0], key.split()[0][0])
        ctl = controller(client)
        for k in press:
            ctl.key(k)
        ctl.flash_until = NOW + 1  # what it said is still on the status line
        yield Scene(f"playing, after {' '.join(press)}", ctl)
    ctl = controller(client)
    ctl.key("q")  # "leave? the seat is kept a while"
    yield Scene("playing, the leave question", ctl)
    ctl = controller(client)
    ctl.key("?")
    yield Scene("help", ctl)
    ctl = controller(client)
    ctl.alarms.append("The host's deal for round 1 does not match what it promised: "
                      "the Pile of Rosalind Fox was dealt 7♥ where 7♦ was promised")
    ctl.deal_notes.append((0, "round 1 was dealt without the randomness of 🃏Bob🎉👨👩 "
                              "(their part arrived late)"))
    yield Scene("playing, a deal alarm and a note", ctl)

    if players >= 3:  # the wide-emoji name's own screen (its title kept its ping's unit)
        yield Scene("playing, as 🃏Bob🎉👨👩", controller(make(seat=2)))
    if game_id in ("racko", "gin-solitaire"):  # the advice, under the prompt
        client = make()
        client.seat = client.game.to_move(client.truth)[0]
        client.mirror = client.game.redact(client.truth, client.seat)
        for presses in (1, 2):  # the advice, then the numbers behind it
            ctl = controller(client, coach=coach_for(game_id))
            for _ in range(presses):
                ctl.key("h")
            ctl.flash_text = ""
            yield Scene(f"playing, the advice (h ×{presses})", ctl)

    ctl = controller(client)
    ctl.reconnecting, ctl.reconnect_since = True, NOW - 60
    yield Scene("playing, the host silent for a minute", ctl)
    gone = make()
    gone.table["gone"] = "no seat here has that token"
    yield Scene("the table gone", controller(gone))

    watcher = make(seat=None)
    yield Scene("playing, watching", controller(watcher))

    if players > 1:  # the evening (§24): paused by the host, the seats away counted out loud
        for seat in (0, None):
            client = make(seat=seat)
            client.table["paused"] = {"by": -1, "name": "the host"}
            client.paused_since = NOW - 83
            client.kept_until = {i: NOW - 83 + 300 - 61 * i for i in range(1, min(players, 4))}
            yield Scene(f"playing, paused, as {'the captain' if seat == 0 else 'a watcher'}",
                        controller(client))
        client.paused_since, client.table["paused"] = None, None
        ctl = controller(make())
        ctl.client.kept_until = {1: NOW + 217}
        ctl.key("R")  # the captain: "Remove Rosalind Fox, away 1:23? …"
        yield Scene("playing, the remove question", ctl)

    for phase in ("between", "over"):
        client = make()
        ctl = controller(client)
        client.witness = Witness()  # type: ignore[attr-defined]
        client.ended(phase)
        client.notices.append(Notice("round_end", data={
            "result": client.scores.results[-1], "next_at": client.table["next_at"]}))
        ctl.pump()
        yield Scene(f"{phase}, the banner", ctl)
        ctl = controller(client)
        yield Scene(f"{phase}, the scores", ctl)
    if players >= 8:  # a tie of long names, said whole
        client.table["result"] = {"winner": [NAMES[1], NAMES[6], NAMES[7]]}
        yield Scene("over, a three-way tie", controller(client))
    client.table.update(phase="countdown", go=NOW + 3)
    yield Scene("countdown to the next round", controller(client))
