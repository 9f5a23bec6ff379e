"""RD-11's race judgement, as one pure piece: who got to a stack first, and by how much.

Everybody plays at once in Racing Demon, so two cards may go for the same stack. Whoever orders
the moves (the arbiter after its fairness window, the simulator on its clock) hands them to the
engine one by one; the engine refuses the late card. This module says what that refusal *was*:
a card that lost a race to another seat's card (it would have fitted the stack's top before that
card took it) is *beaten* — whatever else the engine now sees wrong with it — and the player is
told who got there first, onto what and by how many milliseconds.

Pure: no clock (timestamps are data, in seconds), no sockets. :class:`RaceBook` keeps the last
committed play on each stack (O(1) per play) and asks the engine's ``lost_to`` whether a refused
card had fitted the top it lost; its ``verdict`` sorts a refusal into beaten, taken or illegal; :func:`holder` says whose card holds a place; :func:`placed`
turns a "to the middle" play into the play as it was placed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

from lan_demon.games.cards import Card


class LastPlay(NamedTuple):
    """The last card committed onto one stack: whose it was, its (believed) timestamp, and
    the stack's top before it (None: the card founded the stack). A named tuple, not a frozen
    dataclass: one is made for every card played, at the arbiter and in the simulator."""

    seat: int
    ts: float
    top: Card | None


@dataclass(frozen=True)
class Beaten:
    """A card another seat's card beat to its stack (RD-11): ``by`` that seat, on stack
    ``stack``, whose top was ``top`` before (None: the winner founded it), ``ms`` earlier."""

    by: int
    stack: int
    top: Card | None
    ms: int


@dataclass(frozen=True)
class Taken:
    """A card the engine refused under RD-11 with no remembered play to explain it: ``place``
    (``s7``, or the target it named) is held by seat ``by`` (None: nobody we can name)."""

    by: int | None
    place: str


class RaceBook:
    """The last committed play on each stack of the round in play (stack id -> play).

    ``game`` is the engine; its ``lost_to(state, seat, move, top)`` says whether a move's card
    would have gone on ``top``. A game without ``lost_to`` has no races: nothing is beaten."""

    def __init__(self, game: Any) -> None:
        self.lost_to = getattr(game, "lost_to", None)
        self.last_on: dict[int, LastPlay] = {}

    def clear(self) -> None:
        """A new round: stack ids start again."""
        self.last_on = {}

    def remember(self, seat: int, ts: float, events: list[dict[str, Any]], state: Any) -> None:
        """Keep the stack's last committed play, from the events of a move just applied to
        ``state`` by ``seat`` at ``ts`` (only a play onto a stack counts): O(1)."""
        if not events:
            return
        first = events[0]
        if first.get("e") != "play":
            return
        to = first.get("to", "")
        if to[:1] != "s":  # a column (c1-c4): no race is remembered there
            return
        sid = int(to[1:])  # the engine's own event: always s<stack id> for a stack
        stack = state.stacks.get(sid)
        if stack is not None:
            cards = stack.cards
        else:  # a King closed the stack: its cards are the last claimed
            cards = state.kings_cards[-1] if state.kings_cards else []
        top = cards[-2] if len(cards) >= 2 else None
        self.last_on[sid] = LastPlay(seat, ts, top)

    def beaten(self, state: Any, seat: int, move: Any, place: str | None,
               ts: float) -> Beaten | None:
        """Whether ``seat``'s refused ``move`` (timestamp ``ts``) lost its stack to another
        seat's card: the stack it named or, failing that, ``place`` (where it was going when it
        arrived); for a "to the middle" card that had lost its place before it arrived, any
        stack whose top before the last play it fitted. None: it was not beaten."""
        lost_to = self.lost_to
        if lost_to is None or not self.last_on:
            return None
        sid = stack_id(getattr(move, "target", ""))
        if sid is None:
            sid = stack_id(place or "")
        candidates = [sid] if sid is not None else list(self.last_on)
        for sid in candidates:
            last = self.last_on.get(sid)
            if last is not None and last.seat != seat and lost_to(state, seat, move, last.top):
                return Beaten(last.seat, sid, last.top, max(0, round((ts - last.ts) * 1000)))
        return None


    def verdict(self, state: Any, seat: int, move: Any, place: str | None, ts: float,
                rule: str) -> Beaten | Taken | None:
        """What a refused move was, by RD-11 — the one question the arbiter and the simulator
        both ask: :class:`Beaten` when another seat's card took its stack first (whatever the
        engine now sees wrong with it, ``rule``), :class:`Taken` when the engine refused it
        under RD-11 itself, None when it broke a rule of its own (an illegal move)."""
        lost = self.beaten(state, seat, move, place, ts)
        if lost is not None:
            return lost
        if rule != "RD-11":
            return None
        where = place or getattr(move, "target", "")
        return Taken(holder(state, where), where)


    def lost(self, state: Any, seat: int, move: Any, place: str | None, ts: float,
             rule: str) -> bool:
        """Whether a refused move lost a race — ``verdict(...) is not None`` — without working
        out by whom when the engine's own rule (RD-11) already says so (the simulator only
        counts them)."""
        return rule == "RD-11" or self.beaten(state, seat, move, place, ts) is not None


def holder(state: Any, place: str) -> int | None:
    """Whose card holds ``place`` (``s7``) now — the top card's owner, or for a finished stack
    the seat that claimed it; None for anything but a stack."""
    sid = stack_id(place)
    if sid is None:
        return None
    stack = state.stacks.get(sid)
    if stack is not None:
        return stack.cards[-1].owner
    return state.claimed.get(sid)


def placed(move: Any, events: list[dict[str, Any]]) -> Any:
    """A "to the middle" play as it was placed: the stack it went to (aces stay "middle",
    which founds the next stack id on every copy of the table alike). Any other move as is."""
    target = getattr(move, "target", None)
    if target == "middle" and events and events[0].get("to", "middle") != "middle":
        to = events[0]["to"]
        first = events[0].get("cards", ["?"])[0]
        if not first.startswith("A"):
            return type(move)(move.source, to, move.count)
    return move


def stack_id(place: str) -> int | None:
    """``s7`` -> 7; anything else (``middle``, a column, None) -> None."""
    if place and place.startswith("s") and place[1:].isdigit():
        return int(place[1:])
    return None
