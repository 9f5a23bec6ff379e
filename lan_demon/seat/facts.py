"""The facts of the table as one seat knows them, decided once for every screen.

The phase, the seats and their shown names, the captain, the ping, the countdown, the
reconnecting / gone state: read from the client's copy of the table, plus the little the seat
learns from notices (:class:`~lan_demon.seat.seat.Seat` keeps them up to date).
"""

from __future__ import annotations

from typing import Any

from lan_demon.net.client import Client
from lan_demon.seat.words import shown


class SeatFacts:
    """The facts of the table as one seat knows them: its client's state, and what the seat
    learned from the notices that the table copy does not keep."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.reconnecting = False  # the host went quiet; no reconnecting once the match is over
        self.reconnect_since = 0.0  # when the arbiter went quiet (the seat's clock)
        self.next_at: float | None = None  # from the round_end notice, when the table lacks it

    @property
    def phase(self) -> str:
        return self.client.table.get("phase", "lobby")

    @property
    def seats(self) -> list[dict[str, Any]]:
        return self.client.table.get("seats", [])

    @property
    def gone(self) -> str | None:
        """Why the table this seat was at is no more (a reconnect refused), or None."""
        return self.client.table.get("gone")

    @property
    def spectator(self) -> bool:
        """This seat watches: no cards, no moves."""
        return self.client.seat is None or getattr(self.client, "role", "player") == "spectator"

    @property
    def captain_seat(self) -> int | None:
        """Who starts the match: the table's captain, else seat 0 as on tables
        that do not name one."""
        table = self.client.table
        if "captain" in table:
            return table["captain"]
        return 0 if self.seats else None

    @property
    def captain(self) -> bool:
        """This seat is the captain's: it starts the match."""
        return not self.spectator and self.client.seat == self.captain_seat

    @property
    def self_starting(self) -> bool:
        """``host --players N``: the match starts by itself once N seats are ready."""
        return bool(self.client.config.get("players"))

    def name(self, seat: int, as_was: dict[str, Any] | None = None) -> str:
        """A seat's name as every screen shows it: whole, as seated (at most 12 cells, unique
        at the table; a bot's with its level mark, "Ada L10": PROTOCOL.md §4.5).
        ``as_was``: the seat as a notice saw it (a presence notice carries its ``name``: a
        lobby leave's next update drops the seat, and its number then named another)."""
        if as_was is not None and as_was.get("name"):
            return shown(as_was)
        seats = self.seats
        if not 0 <= seat < len(seats):
            return f"seat {seat}"
        return shown(seats[seat])

    def names(self) -> list[str]:
        """Every seat's shown name, in seat order."""
        return [self.name(i) for i in range(len(self.seats))]

    def not_ready(self) -> list[str]:
        """The present people, other than this seat, who have not said ready."""
        return [s["name"] for i, s in enumerate(self.seats)
                if i != self.client.seat and not s.get("ready")
                and s.get("status", "here") == "here"]

    def ping_text(self) -> str:
        """The last round trip to the host; a dash while it does not answer (the last figure,
        standing through a stopped host, would say all is well)."""
        rtt = self.client.rtt
        return "ping —" if rtt is None or self.reconnecting else f"ping {rtt * 1000:.1f} ms"

    def countdown(self) -> float | None:
        """Seconds to Go (countdown) or to the next round (between), or None."""
        phase, table = self.phase, self.client.table
        if phase == "countdown":
            return max(0.0, (table.get("go") or 0) - self.client.arbiter_now())
        next_at = table.get("next_at", self.next_at)
        if phase == "between" and next_at is not None:
            return max(0.0, next_at - self.client.arbiter_now())
        return None
