"""Bots: strategies that play through the same engine interface as people.

``make_strategy(game_id, name)`` builds one by name; ``STRATEGIES`` lists the names per game.
"""

from __future__ import annotations

from lan_demon.bots.base import RandomStrategy, Strategy, Turn
from lan_demon.bots.sdk import (Beaten, Bot, MatchEnd, Played, Refused, Result, RoundEnd,
                                RoundStart, run, run_many)
from lan_demon.games.base import BadConfig


def _registry() -> dict[str, dict[str, type[Strategy]]]:
    from lan_demon.bots.gin import GreedyGin, SolverGin
    from lan_demon.bots.racing_demon import GreedyDemon, RandomDemon, StrongDemon
    from lan_demon.bots.racko import GreedyRackO, PlannerRackO
    table: dict[str, dict[str, type[Strategy]]] = {}
    for cls in (RandomStrategy, RandomDemon, GreedyDemon, StrongDemon, GreedyRackO,
                PlannerRackO, GreedyGin, SolverGin):
        for game in cls.games:
            table.setdefault(game, {})[cls.name] = cls
    return table


#: The strongest strategy of each game: what `lan-demon play` seats unless told otherwise.
STRONGEST = {"racing-demon": "demon", "racing-demon-german": "demon", "racko": "planner",
             "gin-solitaire": "solver"}


def strongest(game_id: str) -> str:
    return STRONGEST.get(game_id, "greedy")


def strategy_names(game_id: str) -> list[str]:
    return sorted(_registry().get(game_id, {}))


def make_strategy(game_id: str, name: str) -> Strategy:
    """A fresh strategy; :class:`BadConfig` naming the choices when ``name`` is unknown."""
    known = _registry().get(game_id, {})
    if name not in known:
        raise BadConfig(f"unknown strategy {name!r} for {game_id}; "
                        f"choose one of: {', '.join(sorted(known))}")
    return known[name]()


__all__ = ["Beaten", "Bot", "MatchEnd", "Played", "RandomStrategy", "Refused", "Result",
           "RoundEnd", "RoundStart", "STRONGEST", "Strategy", "Turn", "make_strategy", "run",
           "run_many", "strategy_names", "strongest"]
