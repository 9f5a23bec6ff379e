"""How Racing Demon's stacks build, as the questions a seat's screen asks (RD-5, RG-3, RD-11).

The engine (:class:`~lan_demon.games.racing_demon.RacingDemon`) keys its stacks by the card each
takes next; a screen needs the same answers outside a move: whether a top takes a card, which
stacks are one place for play (the same next card), why a source's card has no place and which
rules say so, and who won a stack a seat saw and lost. They live here, pure functions of the
state, so that no screen decides a rule for itself and the words stay the seat's.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from lan_demon.games.cards import Card
from lan_demon.games.demon_moves import Play
from lan_demon.games.demon_table import DemonState


def card_key(card: Card, german: bool) -> Any:
    """The key a card is wanted by: rank and suit (RD-5), or rank alone (RG-3)."""
    return card.rank if german else (card.rank, card.suit)


def next_key(top: Card, german: bool) -> Any:
    """The key of the card a stack showing ``top`` takes next."""
    return top.rank + 1 if german else (top.rank + 1, top.suit)


def takes(top: Card, card: Card, german: bool) -> bool:
    """A stack showing ``top`` takes ``card`` next (RD-5 in suit; RG-3 any suit)."""
    return card_key(card, german) == next_key(top, german)


def same_next(tops: Iterable[tuple[int, Card]], german: bool) -> list[tuple[Card, list[int]]]:
    """Stacks (id, top) that take the same next card, folded in order of first appearance:
    (the first such top, their ids) — for play they are one place."""
    folded: dict[Any, tuple[Card, list[int]]] = {}
    for sid, top in tops:
        folded.setdefault(next_key(top, german), (top, []))[1].append(sid)
    return list(folded.values())


@dataclass(frozen=True)
class NoPlace:
    """Why a source's card goes nowhere now: ``why`` one of ``empty_waste`` (turn the Pack),
    ``empty`` (nothing there), ``unknown`` (a redacted card not revealed yet), ``no_place``
    (no stack and no column), ``king`` (a classic King: no stack, and no column takes a King),
    ``no_stack`` (German: stacks only); ``rule`` the rule id(s) that say so; ``needs`` the
    card a stack would have to show for it (None when there is no card)."""

    why: str
    rule: str | None
    needs: Card | None


def no_place(game: Any, state: DemonState, seat: int, source: str) -> NoPlace | None:
    """Why ``seat``'s card at ``source`` (``pile``, ``waste``, ``c1``–``c4``) has no legal
    place on ``state``, or None when it has one. A race it may have lost (RD-11) is the
    caller's to ask first: only the caller knows what the seat saw (:func:`race_lost`)."""
    german = game.german
    me = state.seats[seat]
    cards = me.cards_at(source)
    if not cards:
        if source == "waste":
            return NoPlace("empty_waste", "RG-5" if german else "RD-9", None)
        return NoPlace("empty", "RD-10", None)
    card = cards[-1]
    if card.hidden:
        return NoPlace("unknown", None, None)
    if any(isinstance(m, Play) and m.source == source for m in game.legal_moves(state, seat)):
        return None
    needs = Card(card.rank - 1, card.suit)
    if german:
        return NoPlace("no_stack", "RG-3, RG-4", needs)
    return NoPlace("king" if card.rank == 13 else "no_place", "RD-5, RD-7", needs)


def won_by(state: DemonState, sid: int, top: Card) -> int | None:
    """RD-11: whose card went onto stack ``sid`` after ``top`` — or, the stack gone, who
    claimed it with its King (RD-6); None when nothing covers ``top`` there."""
    stack = state.stacks.get(sid)
    if stack is not None:
        cards = stack.cards
        for i, card in enumerate(cards[:-1]):
            if card == top:
                return cards[i + 1].owner
        return None
    return state.claimed.get(sid)


def race_lost(game: Any, state: DemonState, seat: int, card: Card,
              seen: Iterable[tuple[int, str]]) -> tuple[int, Card, int | None] | None:
    """RD-11: the first stack ``seat`` saw (``seen``: stack id, top's wire code) whose top
    took ``card`` and that another seat's card has covered since — (stack id, that top, the
    winner or None when unknown); None when the card lost no race (the stack unchanged, or
    the seat's own card on it)."""
    german = game.german
    for sid, code in seen:
        top = Card.from_data(code) if code else None
        if top is None or top.hidden or not takes(top, card, german):
            continue
        stack = state.stacks.get(sid)
        if stack is not None and stack.cards[-1] == top:
            continue  # unchanged: not a race (and the card would fit it now)
        winner = won_by(state, sid, top)
        if winner == seat:
            continue
        return sid, top, winner
    return None
