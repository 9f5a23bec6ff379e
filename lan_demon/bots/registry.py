"""The built-in strategies by game and name: what ``--bots`` and ``--strategy`` choose from.

Kept apart from the package's public face (``lan_demon.bots``) so that the runner, the simulator
and the arena can look a strategy up without importing the SDK that imports them.
"""

from __future__ import annotations

from lan_demon.bots.base import RandomStrategy, Strategy
from lan_demon.games.base import BadConfig


def _registry() -> dict[str, dict[str, type[Strategy]]]:
    from lan_demon.bots.gin import GreedyGin, SolverGin
    from lan_demon.bots.racing_demon import GreedyDemon, RandomDemon, StrongDemon
    from lan_demon.bots.racko import GreedyRackO, PlannerRackO
    from lan_demon.bots.racko_threshold import ThresholdRackO
    table: dict[str, dict[str, type[Strategy]]] = {}
    for cls in (RandomStrategy, RandomDemon, GreedyDemon, StrongDemon, GreedyRackO,
                PlannerRackO, ThresholdRackO, GreedyGin, SolverGin):
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
