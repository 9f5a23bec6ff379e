"""A greedy Gin Solitaire bot: keep what melds, knock as soon as the rules allow.

It sees only its seat's view (its hand) and the legal moves, and asks the exact meld solver of
:mod:`lan_demon.games.gin_solitaire` which card to let go.
"""

from __future__ import annotations

from typing import Any

from lan_demon.bots.base import Strategy, Turn
from lan_demon.games.cards import Card
from lan_demon.games.gin_solitaire import (BigGin, Discard, Draw, Knock, card_value,
                                           deadwood_after_discard)


def _neighbours(card: Card, hand: list[Card]) -> int:
    """How many cards of the hand could one day meld with ``card`` (same rank, or same suit
    within two ranks): a tie-break that keeps the better-connected card."""
    return sum(1 for c in hand if c != card and
               (c.rank == card.rank or (c.suit == card.suit and abs(c.rank - card.rank) <= 2)))


class GreedyGin(Strategy):
    """First discard and every discard: the card whose removal leaves the least deadwood.
    After a draw: Big Gin if possible, else knock if allowed (with the discard that leaves the
    least deadwood), else discard."""

    name = "greedy"
    games = ("gin-solitaire",)

    def choose(self, turn: Turn) -> Any | None:
        legal = turn.legal
        if not legal:
            return None
        for move in legal:
            if isinstance(move, BigGin):
                return move
        if any(isinstance(m, Draw) for m in legal):
            return next(m for m in legal if isinstance(m, Draw))
        hand = [Card.from_data(c) for c in turn.view["hand"]]
        after = deadwood_after_discard(hand)

        def key(card: Card) -> tuple[int, int, int, int]:
            return (after[card], _neighbours(card, hand), -card_value(card), -card.rank)

        knocks = [m for m in legal if isinstance(m, Knock)]
        if knocks:
            return min(knocks, key=lambda m: key(m.card))
        discards = [m for m in legal if isinstance(m, Discard)]
        if discards:
            return min(discards, key=lambda m: key(m.card))
        return legal[0]
