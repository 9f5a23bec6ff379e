"""Racing Demon's scores (RD-14, RG-6, RD-16) and the handicaps between deals (RD-15, RG-2)."""

from __future__ import annotations

from typing import Any

from lan_demon.games.base import Match, RoundResult
from lan_demon.games.demon_table import DemonState

MAX_PILE = 48  # RD-15: a Pile never goes above 48, so a Line of 4 can always be dealt


def handicap_setup(match: Match, german: bool) -> dict[str, Any]:
    """RD-15: move each Pile size by the last round's and the running standings."""
    setup = match.setup
    if not setup["handicap"]:
        return setup
    n = len(match.players)
    sign = -1 if german else 1  # German scores are penalties: lower is better
    game = [sign * s for s in match.rounds[-1].scores]
    steps = [0] * n
    _adjust(steps, game)
    if len(match.rounds) > 1:
        _adjust(steps, [sign * t for t in match.totals])
    sizes = [min(MAX_PILE, max(0, p + d)) for p, d in zip(setup["pile_sizes"], steps)]
    return {"pile_sizes": sizes, "handicap": True}


def seat_score(stacked: int, kings: int, out: bool, pile_left: int, german: bool) -> int:
    """One seat's round score from its counts: RD-14 (+1 a card stacked, +5 a King claimed,
    +10 out, -1 a card left in the Pile) or RG-6 (a penalty: the cards left in the Pile)."""
    if german:
        return pile_left
    return stacked + 5 * kings + 10 * out - pile_left


def running_score(player: dict[str, Any], german: bool) -> int:
    """What the round would score now for a player of a view (``table_view``'s ``players``
    entry, public counts only): the score a seat's screen shows as it plays."""
    return seat_score(player["stacked"], player["kings"], player["out"], player["pile"], german)


def score_round(state: DemonState, german: bool) -> RoundResult:
    """RD-14 (classic) or RG-6 (German penalties); RD-16 falls out of the same sums."""
    scores, detail = [], []
    for s in state.seats:
        left = len(s.pile)
        scores.append(seat_score(s.stacked, s.kings, s.out, left, german))
        if german:
            detail.append({"pile_size": s.pile_size, "pile_left": left, "out": s.out})
        else:
            detail.append({"pile_size": s.pile_size, "stacked": s.stacked, "kings": s.kings,
                           "out": s.out, "pile_left": left})
    return RoundResult(scores, detail)


def _adjust(steps: list[int], scores: list[int]) -> None:
    """RD-15: +1 to the best of ``scores``, −1 to the worst; ties share the step."""
    best, worst = max(scores), min(scores)
    for i, s in enumerate(scores):
        steps[i] += (s == best) - (s == worst)
