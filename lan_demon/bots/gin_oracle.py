"""A bound, not a player: the Gin Solitaire solver told where the Joker lies.

:class:`JokerSightedOracle` is :class:`~lan_demon.bots.gin.SolverGin` — the same candidate
moves, the same expected points of a knock (:mod:`lan_demon.bots.gin_value`) — that *knows* C,
the count of cards above the Joker, which no seat can see (GS-2: the Draw pile is face down).
Knowing C it never knocks into a set, and it weighs playing on over the whole run of safe draws
to the Joker (:func:`~lan_demon.bots.gin_value.run_to_the_joker`): told C, the solver's
one-draw look would knock too soon (measured: it then does worse than the solver itself, so it
would bound nothing). Measured beside the solver (:mod:`lan_demon.bots.gin_bound`), it shows
how much the Joker's hiding place costs a player.

It reads the hidden state, so it is built only with that state in hand, one round at a time —
``JokerSightedOracle(state)`` — and it is in no registry: ``--bots``, ``--strategy`` and
``bot --strategy`` cannot seat it (its ``games`` is empty, and ``make_strategy`` does not know
its name).
"""

from __future__ import annotations

from typing import Any

from lan_demon.bots.gin import SolverGin
from lan_demon.bots.gin_value import Belief, Unseen, run_to_the_joker
from lan_demon.games.gin_scoring import count_above_joker
from lan_demon.games.gin_solitaire import GinState


class JokerSightedOracle(SolverGin):
    """The solver given the true round ``state`` of ``seat``: its belief about C is the true C
    (read from the hidden Draw pile), and playing on is weighed to the Joker; everything else
    comes from the seat's view as always.
    A measuring stick for the simulator only — never seat it at a table."""

    name = "oracle-sees-joker"
    games: tuple[str, ...] = ()  # seatable in no game: not a strategy a table may choose

    def __init__(self, state: GinState, seat: int = 0) -> None:
        super().__init__()
        self._true = state
        self._seat = seat

    def belief(self, view: dict[str, Any]) -> Belief:
        """C itself, from the true Draw pile (the hidden state this oracle was given)."""
        return Belief.known(count_above_joker(self._true.seats[self._seat].draw))

    @staticmethod
    def play_on(rest: int, deadwood: int, unseen: Unseen, belief: Belief) -> float:
        """Told C, the whole run of safe draws to the Joker is weighed
        (:func:`~lan_demon.bots.gin_value.run_to_the_joker`), not one draw."""
        return run_to_the_joker(rest, deadwood, unseen, belief.lo)

    play_on_deep = None  # the run to the Joker already looks to its end


__all__ = ["JokerSightedOracle"]
