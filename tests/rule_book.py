"""Racing Demon's scores and next Piles written again from the rule book (docs/rules.md,
RD-14, RD-15), independently of the engine, so that a JSON document of a match can be re-added by a
test rather than trusted."""

from __future__ import annotations


def readd_demon(detail: dict[str, int]) -> int:
    """RD-14: +1 a stacked card, +5 a King, +10 for OUT, −1 a card left in the Pile."""
    return detail["stacked"] + 5 * detail["kings"] + 10 * detail["out"] - detail["pile_left"]


def next_piles(piles: list[int], game: list[int], totals: list[int], first: bool) -> list[int]:
    """RD-15 written again from the rule book, independently of the engine."""
    steps = [0] * len(piles)
    rankings = [game] if first else [game, totals]
    for scores in rankings:
        for i, s in enumerate(scores):
            steps[i] += (s == max(scores)) - (s == min(scores))
    return [min(48, max(0, p + d)) for p, d in zip(piles, steps)]
