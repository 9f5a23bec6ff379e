"""A stand-in for :class:`lan_demon.net.client.Client` that a test fills in by hand: the
controller's drawing and keys tested without sockets, on a fake clock (deterministic)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from lan_demon.games import get_game
from lan_demon.net.score_sheet import ScoreSheet
from lan_demon.net.table_copy import Notice, seconds_kept
from lan_demon.tui.app import table_for
from lan_demon.tui.table import Controller


@dataclass
class FakeClock:
    now: float = 1000.0

    def __call__(self) -> float:
        return self.now


@dataclass
class FakeOutput:
    """prompt_toolkit's output, as far as the bell goes."""

    rings: int = 0

    def bell(self) -> None:
        self.rings += 1

    def flush(self) -> None:
        pass


class EveningFake:
    """The evening (§24) as a fake client keeps it: ``kept_until`` (seat -> when on its
    ``clock`` the away seat is given up), ``paused_since``, a ``stall`` in its ``table``; what
    it is asked goes to ``sent``."""

    kept_until: dict[int, float]
    paused_since: float | None
    table: dict[str, Any]
    sent: list[Any]
    clock: Any

    def kept(self, seat: int) -> float | None:  # (worked out as the real table copy does)
        return seconds_kept(self.kept_until.get(seat), self.paused_since,
                            self.table.get("stall"), self.clock)

    def pause(self) -> None:
        self.sent.append("pause")

    def resume(self) -> None:
        self.sent.append("resume")

    def remove(self, seat: int, bot: int | None = None) -> None:
        self.sent.append(f"remove {seat}" + ("" if bot is None else f" bot {bot}"))


@dataclass
class FakeClient(EveningFake):
    game_id: str = "racing-demon"
    seat: int | None = 0
    name: str = "Tess"
    role: str = "player"
    table: dict[str, Any] = field(default_factory=dict)
    config: dict[str, Any] = field(default_factory=dict)
    clock: FakeClock = field(default_factory=FakeClock)
    notices: list[Notice] = field(default_factory=list)
    sent: list[str] = field(default_factory=list)
    pending: dict[int, Any] = field(default_factory=dict)
    seq: int = 0
    rtt: float | None = 0.0004
    mirror: Any = None
    predicted: Any = None
    scores: ScoreSheet = field(default_factory=ScoreSheet)

    def __post_init__(self) -> None:
        self.game = get_game(self.game_id)
        self.config = {"game": self.game_id, "rounds": None, "players": None,
                       "options": self.game.default_options(), "pause": 60.0, **self.config}
        self.table.setdefault("phase", "lobby")
        self.table.setdefault("seats", [])

    def arbiter_now(self) -> float:
        return self.clock()

    def pump(self) -> None:
        pass

    def take_notices(self) -> list[Notice]:
        out, self.notices = self.notices, []
        return out

    def view(self) -> dict[str, Any] | None:
        return None

    def legal_moves(self) -> list[Any]:
        return []

    def ready(self) -> None:
        self.sent.append("ready")

    def start(self) -> None:
        self.sent.append("start")

    # the evening (§24): what the test sets in ``kept_until`` and ``paused_since``, on its clock
    kept_until: dict[int, float] = field(default_factory=dict)
    paused_since: float | None = None


def seats(*names: str, ready: tuple[int, ...] = (), bots: tuple[int, ...] = (),
          away: tuple[int, ...] = ()) -> list[dict[str, Any]]:
    return [{"name": n, "bot": i in bots, "ready": i in ready,
             "status": "away" if i in away else "here"} for i, n in enumerate(names)]


def controller(client: FakeClient, **kw: Any) -> tuple[Controller, FakeOutput]:
    ctl = table_for(client, **kw)  # type: ignore[arg-type]
    ctl.clock = client.clock
    out = FakeOutput()
    ctl.output = out
    return ctl, out


def ended(game: str, names: list[str], rounds: list[list[int]], detail=None,
          phase: str = "between") -> tuple:
    """A fake client whose match has played ``rounds`` (each seat's scores, in ``names``'
    order) and stands ``phase`` after the last one, its round_end notice taken and 5 s gone by;
    the controller and the client."""
    client = FakeClient(game, table={"seats": seats(*names)})
    results = [{"scores": s, "detail": detail or [{"pile_left": 2, "out": False,
                                                   "stacked": 3, "kings": 0}
                                                  for _ in s]} for s in rounds]
    client.scores.restart(results)
    client.table.update(phase=phase, next_at=None,
                        setup={"pile_sizes": [13] * len(names)} if "demon" in game else None)
    ctl, out = controller(client)
    client.notices.append(Notice("round_end", data={"result": results[-1], "next_at": None}))
    ctl.pump()
    client.clock.now += 5
    return ctl, client


class Levels:
    """What ``play``'s LocalTable shows the lobby: a level (``speed`` is its label), the words
    for it, and which seats are its bots."""

    def __init__(self, level: int = 2, bots: tuple[str, ...] = ("Ada (bot)",)):
        self.level, self.bots = level, bots

    @property
    def speed(self) -> str:
        return f"level {self.level}"

    def set_speed(self, label: str) -> None:
        self.level = int(label.removeprefix("level "))

    def describe(self) -> str:
        return f"strategy{self.level}, {self.level} s a card"

    def level_of(self, name: str) -> int | None:
        return self.level if name in self.bots else None
