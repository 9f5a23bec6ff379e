"""What a plain ``host``'s own window says while it serves: who sat down and who can start the
match, who went away, came back or left, and each round's scores.

Why: a window that says where it is hosting and then nothing until the final table leaves the
person running it unable to tell whether their friends got in, or who is to press Enter. The log
reads the arbiter's state as the loop hands it over, at most a few times a second
(:data:`lan_demon.net.server.WATCH_EVERY`), never from a move's path, and says what changed
since the last look, in a line each.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TextIO

from lan_demon.seat.evening import away_words
from lan_demon.net.seats import TOKEN_LIFE, kept
from lan_demon.net.table_clock import nobody_here


@dataclass(frozen=True)
class Look:
    """The few facts of a table the log speaks of, as one look found them."""

    seats: dict[str, tuple[bool, str]] = field(default_factory=dict)  # name -> (bot, status)
    phase: str = "lobby"
    captain: str | None = None
    rounds: int = 0
    waiting: bool = False  # a turn game whose people have all gone: nobody's turn is played
    paused: str | None = None  # who paused the table, in words (§24)
    removed: frozenset[str] = frozenset()  # seats the host or the captain gave up
    removed_by_host: frozenset[str] = frozenset()  # those the host gave up
    away: dict[str, float] = field(default_factory=dict)  # name -> seconds still kept
    handed: frozenset[Any] = frozenset()  # seats handed to a bot (net/handover.HandedOver)
    stall: Any = None  # the journal cannot be written: the table stands (net/stall.Stall)


def look(arb: Any) -> Look:
    seats = {s.name: (s.bot, s.status) for s in arb.seats}
    captain = arb.captain()
    name = arb.seats[captain].name if captain is not None and captain < len(arb.seats) \
        else None
    rounds = len(arb.match.rounds) if arb.match is not None else 0
    waiting = arb.phase == "playing" and not arb.game.races and nobody_here(arb.seats)
    paused = arb.paused.words() if arb.paused is not None else None
    removed = frozenset(s.name for s in arb.seats if s.removed)
    by_host = frozenset(s.name for s in arb.seats if s.removed and s.removed_by == "the host")
    now = getattr(arb, "now", 0.0)
    standing = arb.paused.since if arb.paused is not None else now  # (the clocks stand)
    away = {s.name: left for s in arb.seats if (left := kept(s, standing)) is not None}
    handed = frozenset(getattr(arb, "handed", {}).values())
    return Look(seats, arb.phase, name, rounds, waiting, paused, removed, by_host, away, handed,
                getattr(arb, "stall", None))


def minutes_away(kept: float) -> int:
    """Whole minutes a seat kept for ``kept`` more seconds has been away."""
    return int((TOKEN_LIFE - kept) // 60)


def news(before: Look, now: Look, arb: Any) -> list[str]:
    """What changed from ``before`` to ``now``, in words for the person hosting."""
    lines = [*_stall_news(before, now, arb), *_seat_news(before, now, arb)]
    if now.phase == "lobby" and now.captain != before.captain and now.captain is not None \
            and not arb.settings.players and not now.seats[now.captain][0]:
        lines.append(f"{now.captain} is the captain: Enter on their screen starts the match")
    if before.phase == "lobby" and now.phase != "lobby":
        lines.append("the match has started: " + ", ".join(
            _who(name, bot) for name, (bot, _) in now.seats.items()))
    for number in range(before.rounds + 1, now.rounds + 1):
        lines.append(_round_line(arb, number))
    # (what the host typed itself its own window answered already: commands/host_desk.py)
    if now.paused and not before.paused and now.paused != "the host":
        lines.append(f"{now.paused} paused the table: every clock stands still, moves wait "
                     "(type resume here to go on)")
    elif before.paused and not now.paused and arb.resumed_by != "the host":
        lines.append(f"{arb.resumed_by} resumed the table: it runs again")
    for was in sorted(now.handed - before.handed, key=lambda h: h.new_name):
        if was.by_name != "the host":  # (the host's own window answered it already)
            lines.append(was.words())
    for name in sorted(now.removed - before.removed - now.removed_by_host):
        lines.append(f"{name} is removed from the table for good (its cards stay and score)")
    for name, kept in now.away.items():  # the away time, out loud, once a minute
        was = before.away.get(name)
        if minutes_away(kept) > (0 if was is None else minutes_away(was)) and \
                name not in now.removed:
            lines.append(away_words(name, kept))
    if now.waiting and not before.waiting:
        lines.append("every player is away: the table waits for one to come back (no turn is "
                     "played for them meanwhile)")
    return lines


def _stall_news(before: Look, now: Look, arb: Any) -> list[str]:
    """The journal's disk refused a record, or took them all again (§25): said at once, with
    what to do — the only lines here that ask something of the host."""
    if now.stall is not None and before.stall is None:
        path = getattr(arb.journal, "path", "the journal")
        return [f"the journal cannot be written ({now.stall.error}): {path}. The table stands "
                "still and every screen says why; nobody is shown a move the journal lacks. "
                "Free some space on that disk (or make it writable): the table goes on by "
                "itself within a second of it"]
    if before.stall is not None and now.stall is None:
        stood = max(0.0, getattr(arb, "now", 0.0) - before.stall.since)
        return [f"the journal is written again: the table goes on (it stood {int(stood)} s; "
                "every clock moved on by that)"]
    return []


def _seat_news(before: Look, now: Look, arb: Any) -> list[str]:
    lines = []
    handed = now.handed - before.handed  # (a seat renamed as a bot took it: said in news)
    for name, (bot, status) in now.seats.items():
        was = before.seats.get(name)
        who = _who(name, bot)
        if was is None and any(h.new_name == name for h in handed):
            continue
        if was is None:  # (by its seat: two may sit down between two looks)
            lines.append(f"{who} took seat {list(now.seats).index(name) + 1}"
                         f"{_of(arb)}")
        elif was[1] != status and name not in now.removed:  # (a removal is said below)
            lines.append({"away": f"{who} is away (the seat is kept)", "here": f"{who} is back",
                          "left": f"{who} left the match"}.get(status, f"{who}: {status}"))
    for name in before.seats.keys() - now.seats.keys():
        if any(h.name == name for h in handed):
            continue
        lines.append(f"{_who(name, before.seats[name][0])} left ({len(now.seats)} at the "
                     f"table{_of(arb)})")
    return lines


def _who(name: str, bot: bool) -> str:
    """"Ann", "Robo L2 (bot)": the seat's name as every screen shows it, and as the lobby
    marks a bot's seat."""
    return f"{name} (bot)" if bot else name


def _of(arb: Any) -> str:
    """" of 4" with ``--players 4`` (the match starts when they are seated), else nothing."""
    return f" of {arb.settings.players}" if arb.settings.players else ""


def _round_line(arb: Any, number: int) -> str:
    """"round 2 over: Ann +12, Bob −3 · totals Ann 20, Bob 1" for round ``number`` (1-based)."""
    match = arb.match
    scores = match.rounds[number - 1].scores
    after = [sum(r.scores[i] for r in match.rounds[:number]) for i in range(len(scores))]
    this = ", ".join(f"{n} {s:+d}" for n, s in zip(match.sides, scores))
    totals = ", ".join(f"{n} {t}" for n, t in zip(match.sides, after))  # (Match.record's sum)
    return f"round {number} over: {this} · totals {totals}"


#: Lines the log prints before the page's address is said again at a round's end (the address
#: and its QR code printed at the start have scrolled away for a latecomer by then).
REMIND_AFTER = 12


class HostLog:
    """Called by the server's loop with its arbiter; prints what changed to ``out``.

    ``remind``: lines said again at the end of a round once :data:`REMIND_AFTER` lines have
    gone by since they were last shown (the page's address for browsers, set by
    :func:`lan_demon.commands.serve.serve_table`)."""

    def __init__(self, out: TextIO, since: Any = None):
        """``since``: an arbiter whose table is news no more (a resumed match's seats)."""
        self.out = out
        self.seen = look(since) if since is not None else Look()
        self.remind: list[str] = []
        self.since_reminder = 0

    def __call__(self, arb: Any) -> None:
        now = look(arb)
        for line in news(self.seen, now, arb):
            self.out.write(f"lan-demon: {line}\n")  # one write: the desk's thread prints too
            self.out.flush()
            self.since_reminder += 1
        if self.remind and now.rounds > self.seen.rounds and \
                self.since_reminder >= REMIND_AFTER and now.phase != "over":
            for line in self.remind:
                print(line, file=self.out, flush=True)
            self.since_reminder = 0
        self.seen = now
