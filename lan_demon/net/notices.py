"""What a client tells its player: a :class:`Notice` of one of the :class:`NoticeKind` kinds.

The kinds are a ``StrEnum`` so that a kind still equals its old string (``notice.kind ==
"round"``), hashes as it, and goes into JSON and f-strings as the plain word: every screen
and bot that compared strings keeps working, and a kind nobody emits cannot be asked for.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class NoticeKind(StrEnum):
    """Every kind of notice a client emits, and when."""

    #: our move lost a race for its place (RD-11): another card got there first
    BEATEN = "beaten"
    #: the arbiter (or the local engine) refused something we sent; the text says why
    REFUSED = "refused"
    #: a round was dealt: Go
    ROUND = "round"
    #: a round ended: its result and the running totals
    ROUND_END = "round_end"
    #: the match is over: the final result
    MATCH_END = "match_end"
    #: a seat came, went away, came back or left (its name as it was then)
    PRESENCE = "presence"
    #: the lobby's seats changed
    LOBBY = "lobby"
    #: the countdown to the next round began
    COUNTDOWN = "countdown"
    #: the copy was synchronised from a snapshot (after a gap, a drift, or on joining)
    RESYNC = "resync"
    #: the arbiter went quiet: a new connection is on its way
    RECONNECTING = "reconnecting"
    #: the host went quiet after the match: the final scoreboard stays
    CLOSED = "closed"
    #: the host or the captain stopped every clock of the table (§24)
    PAUSE = "pause"
    #: ... and started them again
    RESUME = "resume"
    #: a seat was given up for good, or handed to a bot (§24)
    REMOVED = "removed"
    #: our seat is no more (removed, or refused back): nothing to come back to
    GONE = "gone"
    #: the host's journal cannot be written, and the table stands still (§25)
    STALL = "stall"
    #: ... and it goes on
    STALL_OVER = "stall_over"
    #: our own check of a round's deal failed (§22)
    DISHONEST = "dishonest"
    #: a seat's check of a deal failed: the text says whose and why
    DISPUTE = "dispute"
    #: plain facts about a deal: whose randomness it was dealt without, a round NOT checked
    DEAL_NOTE = "deal_note"
    #: a committed move, told only to a client that asks for every move (``tell_moves``)
    MOVE = "move"


@dataclass
class Notice:
    """Something the player should hear about: its ``kind``, the words to say (``text``,
    empty when the screen words it from ``data``) and the message's fields (``data``).

    A kind given as its string is taken as the member it names; one that names none raises
    ``ValueError``, so no notice of a kind the screens do not know can be made."""

    kind: NoticeKind
    text: str = ""
    data: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.kind = NoticeKind(self.kind)
