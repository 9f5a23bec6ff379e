"""Baseline Racing Demon bots (both variants), deciding from the seat's legal moves alone.

The greedy order is the one a beginner is taught: a card to a stack first (the Pile top before
a column top, a column top before the waste), then whatever empties the Pile, then laddering
from the waste, and only then turn the Pack. Moving part of a column onto another column
changes nothing that matters, so neither bot does it: it would only let two bots shuffle a
card back and forth for ever, each shuffle counting as a play under RD-13.
"""

from __future__ import annotations

from typing import Any

from lan_demon.bots.base import Strategy, Turn
from lan_demon.games.racing_demon import COLUMN_NAMES, Play, TurnPack

_DEMON_GAMES = ("racing-demon", "racing-demon-german")


def pointless(move: Any, turn: Turn) -> bool:
    """A column-to-column run that leaves its source column standing (no Pile card moves)."""
    if not isinstance(move, Play) or move.target not in COLUMN_NAMES:
        return False
    if move.source not in COLUMN_NAMES:
        return False
    column = turn.view["players"][turn.seat]["columns"][COLUMN_NAMES.index(move.source)]
    return move.count < len(column)


def rank_move(move: Any, column_sizes: list[int]) -> int:
    """Lower is better; 99 means "never"."""
    if isinstance(move, Play):
        to_stack = move.target not in COLUMN_NAMES
        if to_stack:
            return {"pile": 0, "waste": 2}.get(move.source, 1)
        if move.source == "pile":
            return 3
        if move.source in COLUMN_NAMES:
            whole = move.count == column_sizes[COLUMN_NAMES.index(move.source)]
            return 4 if whole else 99
        return 5  # waste onto a column
    if isinstance(move, TurnPack):
        return 6
    return 99  # stuck votes: turning the Pack through says the same, and RD-13 counts it


class GreedyDemon(Strategy):
    """Stack first, then what empties the Pile, then ladder, then turn the Pack."""

    name = "greedy"
    games = _DEMON_GAMES

    def choose(self, turn: Turn) -> Any | None:
        legal = turn.legal
        if not legal:
            return None
        sizes = [len(c) for c in turn.view["players"][turn.seat]["columns"]] if any(
            isinstance(m, Play) and m.source in COLUMN_NAMES and m.target in COLUMN_NAMES
            for m in legal) else [0] * len(COLUMN_NAMES)
        best = min(legal, key=lambda m: rank_move(m, sizes))
        return None if rank_move(best, sizes) == 99 else best


class RandomDemon(Strategy):
    """Any legal move at random, but never a pointless column-to-column shuffle (see above)."""

    name = "random"
    games = _DEMON_GAMES

    def choose(self, turn: Turn) -> Any | None:
        legal = [m for m in turn.legal if not pointless(m, turn)]
        return turn.rng.choice(legal) if legal else None
