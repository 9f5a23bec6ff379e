"""The coach each game's screen is handed. The TUI imports no bot (tests/test_layers),
so `play` and `join` hand it in through `coach_for`; a screen built without one has no coach."""

from __future__ import annotations

import pytest

from lan_demon.bots.racko import PlannerRackO
from lan_demon.coach import coach_for
from lan_demon.coach.demon import DemonCoach
from lan_demon.tui.app import screen_for

pytestmark = pytest.mark.timeout(10)


@pytest.mark.parametrize("game", ["racing-demon", "racing-demon-german"])
def test_racing_demon_screens_get_the_round_review(game):
    assert coach_for(game) is DemonCoach
    assert screen_for(game, coach_for(game)).game.make_coach is DemonCoach
    assert screen_for(game).game.make_coach is None  # built without one: no review


def test_racko_screens_get_the_planners_advice():
    advise = coach_for("racko")
    assert advise.__func__ is PlannerRackO.advise
    assert screen_for("racko", advise).coach is advise
    assert screen_for("racko").coach is None


def test_gin_screens_get_a_solver_coach_of_their_own():
    from lan_demon.coach.gin import GinCoach
    first, second = coach_for("gin-solitaire"), coach_for("gin-solitaire")
    assert isinstance(first, GinCoach) and first is not second  # a memory per screen
    assert screen_for("gin-solitaire", first).coach is first
    assert screen_for("gin-solitaire").coach is None
