"""Pure rule engines: no sockets, no screen, no clock, no randomness but a seeded generator.

``get_game(id)`` returns the engine of a game id from ``../shared/RULES.md``.
"""

from __future__ import annotations

from lan_demon.games.base import (TABLE, BadConfig, BadMove, Game, GameError, IllegalMove,
                                  Match, RoundResult, round_rng)

GAME_IDS = ("racing-demon", "racing-demon-german", "racko", "gin-solitaire")


def get_game(game_id: str) -> Game:
    """The engine for ``game_id``; a :class:`BadConfig` naming the known ids otherwise."""
    if game_id in ("racing-demon", "racing-demon-german"):
        from lan_demon.games.racing_demon import RacingDemon
        return RacingDemon(german=game_id == "racing-demon-german")
    if game_id == "racko":
        from lan_demon.games.racko import RackO
        return RackO()
    if game_id == "gin-solitaire":
        from lan_demon.games.gin_solitaire import GinSolitaire
        return GinSolitaire()
    raise BadConfig(f"unknown game {game_id!r}; the games are: {', '.join(GAME_IDS)}")


__all__ = ["GAME_IDS", "TABLE", "BadConfig", "BadMove", "Game", "GameError", "IllegalMove",
           "Match", "RoundResult", "get_game", "round_rng"]
