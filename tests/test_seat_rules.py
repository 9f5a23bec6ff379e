"""One table, not two: a seat is told the rule of the game it plays."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from lan_demon.games import IllegalMove, get_game
from lan_demon.games.gin_moves import Draw as GinDraw
from lan_demon.games.racko import Draw as RackODraw
from lan_demon.games.demon_moves import TurnPack
from lan_demon.net.client import Client

pytestmark = pytest.mark.timeout(10)


@pytest.mark.parametrize("game_id, move, rule", [
    ("racing-demon", TurnPack(), "RD-4"), ("racing-demon-german", TurnPack(), "RD-4"),
    ("racko", RackODraw(), "RK-4"), ("gin-solitaire", GinDraw(), "GS-4")])
def test_gs4_a_move_between_rounds_cites_the_rule_of_the_game_played(game_id, move, rule):
    """A Gin Solitaire player's draw before Go was refused citing RK-4, a Rack-O rule."""
    seat = SimpleNamespace(seat=0, table={"phase": "lobby"}, predicted=None,
                           game=get_game(game_id))
    with pytest.raises(IllegalMove) as refused:
        Client.play(seat, move)  # type: ignore[arg-type]
    assert refused.value.rule == rule and "no round is in progress" in refused.value.reason
