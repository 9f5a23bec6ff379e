"""What every room of the arbiter reads: the table's settings, its phase, the match and its
state, the seats, the pause and the clocks of the match.

The arbiter (:mod:`lan_demon.net.arbiter`) is made of rooms, each an object holding its own
state (seats, race, table clock, record, commitments, evening, the match's flow, snapshots).
These facts are what they share: each room is handed this one object, and what it needs of
another room by that room's type, so that who reads and who changes what is written in each
room's constructor.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from lan_demon.games import Game, Match
from lan_demon.net.seated import Seat
from lan_demon.net.settings import Settings

HOST = -1  # ``by`` of what the host did from its own terminal (PROTOCOL.md §24)
#: The phases of a match in progress: a pause stops their clocks, a seat may be handed over
RUNNING = ("countdown", "playing", "between")


@dataclass(frozen=True)
class Pause:
    """Who paused the table (a seat, or :data:`HOST`), their name in words, and when."""

    by: int
    name: str
    since: float

    def words(self) -> str:
        return "the host" if self.by == HOST else self.name


@dataclass
class TableFacts:
    """The table as every room sees it. ``now``: the time of the step in hand."""

    settings: Settings
    game: Game
    now: float
    #: the room code a seat or a spectator's place needs (None: none), and the table's CURVE
    #: public key (z85) when it is encrypted
    code: str | None = None
    server_key: str | None = None
    phase: str = "lobby"  # lobby | countdown | playing | between | over
    match: Match | None = None
    state: Any = None
    result: dict[str, Any] | None = None
    seats: list[Seat] = field(default_factory=list)
    paused: Pause | None = None  # every clock stands still (§24)
    # The match's clocks (a pause moves each on by its length: Evening.shift).
    go_at: float = 0.0
    between_since: float = 0.0
    last_play: float = 0.0  # RD-13's minute without a play counts from here
    turn_since: float = 0.0  # an absent seat's turn timeout counts from here
    # A table resumed when already over stays to tell returning seats the result: until
    # ``encore_until``, and the time each seat came back since, by index (Arbiter.finished).
    encore_until: float | None = None
    encore_back: dict[int, float] = field(default_factory=dict)

    def name_of(self, by: int) -> str:
        """``by`` in words: "the host", or the seat's name."""
        return "the host" if by == HOST else self.seats[by].name

    def standing(self, now: float) -> float:
        """The time on the table's clocks: ``now``, or while paused the moment it stopped
        (a resume moves every clock on by the pause, so a seat that went away during it starts
        its five minutes at the resume)."""
        return self.paused.since if self.paused is not None else now

    def shift(self, still: float) -> None:
        """Every clock of the table moved on by ``still`` seconds (a pause's length, or the
        time a stalled table stood)."""
        self.go_at += still
        self.last_play += still
        self.turn_since += still
        self.between_since += still
        if self.encore_until is not None:
            self.encore_until += still
        for seat in self.seats:
            if seat.away_since is not None:
                seat.away_since += still
