"""Gin Solitaire's scores (GS-7) and the total that ends a seat's match (GS-8).

Each ending is a detail dict of the player's side: ``result`` (one of :data:`RESULTS`),
``deadwood``, ``count`` (C, the cards above the Joker in the Draw pile), and the points for the
``player`` and for the ``joker``; anyone can re-add them from the rule book.
"""

from __future__ import annotations

from typing import Any

from lan_demon.games.cards import JOKER, Card

#: GS-8: the total that ends a seat's match.
TARGET = 100
#: GS-7 bonuses.
GIN_BONUS = 25
BIG_GIN_BONUS = 31
SET_BONUS = 25

#: ``detail["result"]`` values of a player side (GS-7), plus ``sat-out`` (GS-8/GS-9, see
#: :meth:`~lan_demon.games.gin_solitaire.GinSolitaire.next_setup`).
RESULTS = ("knock", "gin", "big-gin", "joker", "sat-out")


def _detail(result: str, deadwood: int, count: int, player: int, joker: int) -> dict[str, Any]:
    return {"result": result, "deadwood": deadwood, "count": count, "player": player,
            "joker": joker}


def score_knock(deadwood: int, count: int) -> dict[str, Any]:
    """GS-7 for a knock (deadwood 0: Gin): the detail dict of the player's side."""
    if deadwood == 0:
        return _detail("gin", 0, count, GIN_BONUS + count, 0)
    if count >= deadwood:
        return _detail("knock", deadwood, count, count - deadwood, 0)
    return _detail("knock", deadwood, count, 0, SET_BONUS + deadwood - count)


def score_big_gin(count: int) -> dict[str, Any]:
    """GS-7: Big Gin scores 31 + C."""
    return _detail("big-gin", 0, count, BIG_GIN_BONUS + count, 0)


def score_joker(deadwood: int) -> dict[str, Any]:
    """GS-7: the Joker drawn scores the deadwood of the player's 10 cards for the Joker."""
    return _detail("joker", deadwood, 0, 0, deadwood)


SAT_OUT = _detail("sat-out", 0, 0, 0, 0)


def count_above_joker(draw: list[Card]) -> int:
    """GS-7: C, the cards above the Joker in the Draw pile (top = last)."""
    return len(draw) - 1 - draw.index(JOKER)


def score_ending(draw: list[Card], score: Any, *args: int) -> dict[str, Any]:
    """The detail of a knock or Big Gin; on a redacted Draw pile (the Joker's place unknown)
    C and the points are left open (``None``) until the table's own result arrives."""
    if JOKER in draw:
        return score(*args, count_above_joker(draw))
    detail = score(*args, 0)
    detail.update(count=None, player=None, joker=None)
    return detail
