"""What happens at a table, as a seat is told it: typed events, each with its words.

:meth:`lan_demon.seat.seat.Seat.pump` returns them in order. Every event carries ``words``
(what a player is told, in plain English; "" when it is said nowhere, e.g. another seat's
move) and ``rule`` (the rule id behind it, or None). :func:`from_notice` is the one translation
of a client's notice into the events of the table's course (a round, a move, a race lost, a
refusal, a round's and the match's end): the Seat adds its words to them, and the SDK's events
are made from them (``bots/sdk.py``). The terminal flashes their words, the page's ``line`` is
the latest of them. Plain data: this module imports no network library.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol


@dataclass(frozen=True)
class Event:
    """Something a seat is told. ``kind`` names it on the page and in tests."""

    kind: ClassVar[str] = "event"
    words: str = ""
    rule: str | None = None


@dataclass(frozen=True)
class Go(Event):
    """A round was dealt and started (``round`` counts from 0)."""

    kind: ClassVar[str] = "round"
    round: int = 0


@dataclass(frozen=True)
class Played(Event):
    """A move committed at the table, by anyone (``mine`` when it was this seat's); ``move``
    as on the wire (a map), ``seat`` -1 for the table's own RD-13 timeout."""

    kind: ClassVar[str] = "move"
    seat: int = -1
    move: Any = None
    mine: bool = False
    events: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class Beaten(Event):
    """RD-11: this seat's move lost a race; ``by`` the seat first there, ``ms`` by how much,
    ``top`` the stack's top it was aimed at."""

    kind: ClassVar[str] = "beaten"
    move: Any = None
    by: int | None = None
    ms: float | None = None
    top: str | None = None
    reason: str = ""


@dataclass(frozen=True)
class Refused(Event):
    """This seat's move was refused by the arbiter (``code`` as PROTOCOL.md §10) or, before
    anything was sent, by the local engine (``code`` "local")."""

    kind: ClassVar[str] = "refused"
    move: Any = None
    reason: str = ""
    code: str = ""


@dataclass(frozen=True)
class RoundEnd(Event):
    """A round ended: ``words`` is the banner ("Cy is OUT!"), ``result`` the arbiter's."""

    kind: ClassVar[str] = "round_end"
    round: int = 0
    scores: list[int] = field(default_factory=list)
    totals: list[int] = field(default_factory=list)
    result: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class MatchEnd(Event):
    """The match is over: ``totals`` by name, the ``winners``' names."""

    kind: ClassVar[str] = "match_end"
    totals: dict[str, int] = field(default_factory=dict)
    winners: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Presence(Event):
    """Another seat stepped away, left or came back (``status``: away, left, here)."""

    kind: ClassVar[str] = "presence"
    seat: int = -1
    name: str = ""
    status: str = ""


@dataclass(frozen=True)
class Evening(Event):
    """The host or the captain ran the evening (§24): ``what`` is pause, resume or removed;
    ``seat`` the seat removed (-1 otherwise), ``by`` who did it (-1: the host)."""

    kind: ClassVar[str] = "evening"
    what: str = ""
    seat: int = -1
    by: int = -1


@dataclass(frozen=True)
class Alarm(Event):
    """A deal check failed (§22): ours (``DEAL CHECK FAILED``) or another seat's dispute."""

    kind: ClassVar[str] = "alarm"


@dataclass(frozen=True)
class DealNote(Event):
    """A plain fact about a round's deal (§22): dealt without someone's randomness, NOT
    checked and why."""

    kind: ClassVar[str] = "deal_note"
    round: int = -1


@dataclass(frozen=True)
class Rotation(Event):
    """RD-13: the table rotated the Packs (``count`` in a row; ``minute``: no card for a
    minute, rather than everyone stuck)."""

    kind: ClassVar[str] = "rotation"
    count: int = 0
    minute: bool = False


@dataclass(frozen=True)
class KingClaimed(Event):
    """RD-6: ``seat`` played a King on its stack and claimed the stack (``card`` its code)."""

    kind: ClassVar[str] = "king"
    seat: int = -1
    card: str = ""


@dataclass(frozen=True)
class VoteCleared(Event):
    """RD-13: a card was played, so this seat's stuck vote no longer stands."""

    kind: ClassVar[str] = "vote_cleared"


@dataclass(frozen=True)
class StoodIn(Event):
    """RK-4: the arbiter played an absent seat's turn (drew and discarded ``card``)."""

    kind: ClassVar[str] = "stood_in"
    seat: int = -1
    card: Any = None


@dataclass(frozen=True)
class Reconnecting(Event):
    """The host went quiet; the client is trying again (the seat is kept)."""

    kind: ClassVar[str] = "reconnecting"


@dataclass(frozen=True)
class Reconnected(Event):
    """The host answers again."""

    kind: ClassVar[str] = "reconnected"


@dataclass(frozen=True)
class Gone(Event):
    """The host refused this seat back: the table it was at is no more."""

    kind: ClassVar[str] = "gone"


@dataclass(frozen=True)
class Closed(Event):
    """The host closed the table after the match (the last scores stay)."""

    kind: ClassVar[str] = "closed"


class NoticeLike(Protocol):
    """A client's notice (:class:`lan_demon.net.table_copy.Notice`): its kind, text, data."""

    kind: str
    text: str
    data: dict[str, Any]


def from_notice(notice: NoticeLike, seat: int | None) -> Event | None:
    """The event of the table's course a notice tells ``seat`` (None: it is none of those),
    without words yet. A field the notice lacks takes its plain default (a round 0, no move)."""
    kind, data = notice.kind, notice.data
    if kind == "round":
        return Go(round=data.get("round", 0))
    if kind == "move":
        return Played(seat=data.get("seat", -1), move=data.get("move"),
                      mine=data.get("seat") == seat, events=list(data.get("events", [])))
    if kind == "beaten":
        ms = data.get("ms")
        return Beaten(move=data.get("move"), by=data.get("by"),
                      ms=ms if isinstance(ms, (int, float)) else None, top=data.get("top"),
                      reason=data.get("reason", notice.text))
    if kind == "refused":
        return Refused(rule=data.get("rule"), move=data.get("move"),
                       reason=data.get("reason", notice.text), code=data.get("code", ""))
    if kind == "round_end":
        result = data.get("result") or {}
        return RoundEnd(round=data.get("round", 0), scores=list(result.get("scores", [])),
                        totals=list(data.get("totals", [])), result=result)
    if kind == "match_end":
        result = data.get("result") or {}
        return MatchEnd(totals=dict(result.get("totals", {})),
                        winners=list(result.get("winner", [])))
    return None
