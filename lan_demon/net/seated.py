"""A seat at the table, and what the socket layer knows of a frame's sender.

Plain data, read by every room of the arbiter (:mod:`lan_demon.net.table_facts`) and by crash
recovery; who takes, keeps and frees a seat is :mod:`lan_demon.net.seats`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Sender:
    """What the socket layer knows of a frame's sender beyond its routing id: its CURVE public
    key (z85; None on a plain table) and its IP address (the room-code brake's key)."""

    key: str | None = None
    address: str | None = None


NOBODY = Sender()


@dataclass
class Seat:
    index: int
    name: str
    token: str
    bot: bool
    peer: bytes | None
    key: str | None = None  # the CURVE key that took the seat: only it may speak for the seat
    status: str = "here"  # here | away | left
    ready: bool = False
    heard: float = 0.0
    away_since: float | None = None
    # Said ``leave`` during the match: away at once for RD-13 votes and stand-in turns (a
    # silent seat is given the turn timeout first: it may be a network hiccup).
    stepped_out: bool = False
    rtts: list[float] = field(default_factory=list)
    # (round, nonce hash, ok word's hash, fail word's hash): its commitment (§22)
    commit: tuple[int, str, str, str] | None = None
    commits_made: int = 0  # different commitments taken for the next round (a Bound, §2)
    told: str | None = None  # the status last published, when a newer one waits (Bounds)
    # The key its private halves are sealed with in the updates (§23), told in its welcome:
    # this arbiter process's alone, never journaled (a resumed table's seats have none until
    # their holders come back by token, and their rejoin's welcome gives a new one).
    seal: bytes | None = None
    removed: bool = False  # by the host or the captain (net/evening.py): never taken back
    removed_by: str = ""  # who removed it, in words ("the host", "Ann")

    def one_way(self) -> float:
        """The measured one-way delay: half the best recent round trip (NTP style)."""
        return min(self.rtts) / 2 if self.rtts else 0.0

    def public(self) -> dict[str, Any]:
        mark = {"removed": True} if self.removed else {}
        return {"name": self.name, "bot": self.bot, "status": self.status, "ready": self.ready,
                **mark}


@dataclass(frozen=True)
class HandedOver:
    """A person's old token, refused from now on, and why in words."""

    name: str  # the person's name, as it was
    by_name: str  # who handed it over ("the host", "Ann")
    new_name: str  # the bot's ("Bob L3")
    level: int

    def words(self) -> str:
        """"Ann handed Bob's seat to a bot, level 3: Bob L3" (the host's log)."""
        by = self.by_name[:1].upper() + self.by_name[1:]
        return f"{by} handed {self.name}'s seat to a bot, level {self.level}: {self.new_name}"
