"""RD-7, the Line of 4 as ladders: a column builds down in rank, alternating red and black; a
Pile or waste top may go onto a column, and a run of a column's top cards onto another column.
RG-4: the German variant has no laddering — every card of the Line goes to the stacks.

What the engine (:class:`~lan_demon.games.racing_demon.RacingDemon`) offers and refuses for a
play onto a column, as functions of one seat's cards: the stacks are not involved.
"""

from __future__ import annotations

from lan_demon.games.base import IllegalMove
from lan_demon.games.cards import Card
from lan_demon.games.demon_moves import COLUMN_NAMES, COLUMNS, Move, Play
from lan_demon.games.demon_table import DemonSeat


def ladder_moves(me: DemonSeat, sources: list[tuple[str, Card]]) -> list[Move]:
    """RD-7's legal moves: a Pile or waste top onto a column, or a run of one column onto
    another. ``sources`` are the seat's top cards by place, the columns' first."""
    moves: list[Move] = []
    for j, target in enumerate(me.columns):
        top = target[-1]
        for name, card in sources[COLUMNS:]:
            if card.rank == top.rank - 1 and card.red != top.red:
                moves.append(Play(name, COLUMN_NAMES[j]))
        for i, col in enumerate(me.columns):
            if i == j:
                continue
            n = top.rank - col[-1].rank
            if 1 <= n <= len(col) and col[-n].red != top.red:
                moves.append(Play(COLUMN_NAMES[i], COLUMN_NAMES[j], n))
    return moves


def check_ladder(me: DemonSeat, move: Play, cards: list[Card], german: bool) -> None:
    """Refuse ``move`` (``cards`` onto a column) with the rule it breaks, if it breaks one."""
    if german:
        raise IllegalMove("RG-4", "no laddering in the German variant: cards go to the "
                          "stacks only", move)
    if move.target == move.source:
        raise IllegalMove("RD-7", "a run moves to another column, not onto itself", move)
    top = me.columns[COLUMN_NAMES.index(move.target)][-1]
    base = cards[0]
    if base.rank != top.rank - 1 or base.red == top.red:
        raise IllegalMove("RD-7", f"{base.symbol} does not go on {top.symbol}: columns "
                          "build down in rank, alternating red and black", move)
