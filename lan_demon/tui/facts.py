"""The facts about a table that every screen reads — the lobby, the scores, each game's table.

:class:`TableFacts` works them out from the client's state (the phase, the seats, who is the
captain, whose seat this is, …); :class:`lan_demon.tui.table.Controller` is one, adding the
notices, the keys and the frame around them. The drawing modules take a TableFacts, so none of
them needs the Controller's module (which uses them).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

from lan_demon.net.client import Client

MIN_WIDTH, MIN_HEIGHT = 60, 20


#: A level's mark in a bot's name (levels.bot_name), before " (bot)" and the arbiter's " (2)".
_LEVEL_MARK = re.compile(r"^(?P<name>.*\S) L(?P<level>10|[1-9])"
                         r"(?P<rest>(?: \(bot\))?(?: \(\d+\))?)$")


def split_level(name: str) -> tuple[str, int | None]:
    """A seat's name without its level mark, and the level (None when it carries none)."""
    found = _LEVEL_MARK.match(name)
    if found is None:
        return name, None
    return found["name"] + found["rest"], int(found["level"])


def shown(seat: dict[str, Any]) -> str:
    """A seat's name (a ``seats`` entry, or anything with its ``name`` and ``bot``) as the
    table shows it: a bot's without its level mark."""
    name = seat["name"]
    return split_level(name)[0] if seat.get("bot") else name


_SEAT_INDEX = re.compile(r"\bseat (\d+)\b")


def named_seats(text: str, seats: Sequence[dict[str, Any]]) -> str:
    """A rule's words name seats as the engines know them, by index ("the round is over: seat 2
    went out", "it is seat 1's turn"): a player knows names, and counts seats from 1."""
    def name(found: re.Match[str]) -> str:
        index = int(found[1])
        return shown(seats[index]) if 0 <= index < len(seats) else found[0]
    return _SEAT_INDEX.sub(name, text)


def rotation_words(count: int, minute: bool) -> str:
    """An RD-13 rotation as the table announces it, in what it does (a newcomer read "each Pack
    moves one card" as Packs swapped between players): why it came — every player stuck (votes,
    or each turned through their Pack), or the table's own minute without a card played, which
    a player who still had a card to play must not read as "everyone is stuck" — and which in
    a row of three it is."""
    why = "No card played for a minute" if minute else "Everyone is stuck"
    return f"{why}: everyone's turned cards go back under their Pack, and its top card to " \
        "the bottom — RD-13" + (f" (rotation {count} of 3)" if count > 1 else "")


def starting(left: float) -> str:
    """The countdown to Go in words: whole seconds rounded up ("in 3…", never "in 0…", which a
    newcomer saw stand for two seconds while the deal was on its way), then the deal coming."""
    if left <= 0:
        return "now: the cards are being dealt…"
    return f"in {max(1, math.ceil(left - 0.05))}…"  # (2.0001 s is "2": clocks are not exact)


def fit_name(name: str, width: int) -> str:
    """A name in ``width`` characters: whole if it fits, else a bot's without " (bot)", else
    cut with an ellipsis — never cut inside the mark ("Rosalind (b")."""
    if len(name) > width:
        name = name.removesuffix(" (bot)")
    return name if len(name) <= width else name[: width - 1] + "…"


class TableFacts:
    """Facts the screens use; the attributes below are the Controller's."""

    client: Client
    local: Any  # the LocalTable of `lan-demon play`, or None
    speeds: Sequence[str]  # the bots' levels the lobby offers (their labels), lowest first
    size: tuple[int, int]  # the terminal at the last render or key
    alarms: list[str]  # deal checks that failed (§22), said on every screen
    reconnecting: bool  # the arbiter has gone quiet; the client is trying again
    screen: Any  # the game's own screen (its ``keys``)
    confirm: str | None  # a question waiting for its key: "leave" or "start"
    banner_text: str  # "Cy is OUT!" at a round's end
    next_at: float | None  # when the next round starts, from the round_end notice

    @property
    def phase(self) -> str:
        return self.client.table.get("phase", "lobby")

    @property
    def seats(self) -> list[dict[str, Any]]:
        return self.client.table.get("seats", [])

    @property
    def gone(self) -> str | None:
        """Why the table this screen was at is no more (a reconnect refused), or None."""
        return self.client.table.get("gone")

    @property
    def spectator(self) -> bool:
        """This screen watches: no seat, no play keys."""
        return self.client.seat is None or getattr(self.client, "role", "player") == "spectator"

    @property
    def captain_seat(self) -> int | None:
        """Who starts the match: the table's captain (contract 1), else seat 0 as on tables
        that do not name one."""
        table = self.client.table
        if "captain" in table:
            return table["captain"]
        return 0 if self.seats else None

    @property
    def captain(self) -> bool:
        """This screen is the captain's: its Enter starts the match."""
        return not self.spectator and self.client.seat == self.captain_seat

    @property
    def self_starting(self) -> bool:
        """``host --players N``: the match starts by itself once N seats are ready."""
        return bool(self.client.config.get("players"))

    def name(self, seat: int, as_was: dict[str, Any] | None = None) -> str:
        """A seat's name as the table shows it: a bot's without its level mark ("Ada L10"
        cut to a column's width read "Ada L1"; the lobby shows the level by itself).
        ``as_was``: the seat as a notice saw it (a presence notice carries its ``name``: a
        lobby leave's next update drops the seat, and its number then named another)."""
        if as_was is not None and as_was.get("name"):
            return shown(as_was)
        seats = self.seats
        if not 0 <= seat < len(seats):
            return f"seat {seat}"
        return shown(seats[seat])

    def not_ready(self) -> list[str]:
        """The present people, other than this seat, who have not said ready."""
        return [s["name"] for i, s in enumerate(self.seats)
                if i != self.client.seat and not s.get("ready")
                and s.get("status", "here") == "here"]

    def ping_text(self) -> str:
        """The last round trip to the host; a dash while it does not answer (the last figure
        stood on a newcomer's screen through a stopped host, as if all were well)."""
        rtt = self.client.rtt
        return "ping —" if rtt is None or self.reconnecting else f"ping {rtt * 1000:.1f} ms"

    def too_small(self, width: int | None = None, height: int | None = None) -> bool:
        w, h = (width, height) if width is not None else self.size
        return w < MIN_WIDTH or h < MIN_HEIGHT


def key_hints(facts: TableFacts) -> list[str]:
    """The keys the status line offers now, before "? help" and "q leave": none while the
    host does not answer (nothing would reach it)."""
    phase = facts.phase
    if facts.confirm == "leave":  # the question is at the top; its keys are here too
        return ["y leaves", "any other key stays"]
    if facts.confirm == "start":
        return ["Enter or y starts anyway", "Esc waits"]
    if facts.spectator:
        return ["watching"]
    if facts.reconnecting or facts.gone:
        return []
    if phase == "playing":
        return [f"{k} {what}" for k, what in facts.screen.keys]
    if phase == "lobby":
        hints = ["Enter start" if facts.captain and not facts.self_starting else "Enter ready"]
        if facts.local is not None and facts.speeds:  # (no bots, no level to change)
            hints.append("v/V bots' level")
        return hints
    return ["Enter ready"] if phase == "between" else []
