"""The headless simulator: races on a simulated clock (RD-4, RD-11, RD-13), determinism."""

from __future__ import annotations

import pytest

from lan_demon.games import get_game
from lan_demon.bots.simulator import SimulationError, simulate
from lan_demon.bots.speed import PROFILES, SpeedProfile

pytestmark = pytest.mark.timeout(60)


def test_rd11_simulated_bots_race_for_stacks_and_the_late_card_goes_back():
    sim = simulate("racing-demon", 6, seed=3, rounds=3, strategy="greedy")
    beaten = sum(s.beaten for s in sim.stats)
    assert beaten > 0  # cards met on the same place and the later one was refused
    # A greedy bot only ever plays what was legal when it looked: every refusal is a race.
    assert all(s.refused == s.beaten for s in sim.stats)


def test_rd4_rd13_rounds_take_simulated_table_time_and_end():
    sim = simulate("racing-demon", 4, seed=8, rounds=5, speed="club")
    assert all(0 < s.seconds for s in sim.stats)
    expert = simulate("racing-demon", 4, seed=8, rounds=5, speed="expert")
    assert sum(s.seconds for s in expert.stats) < sum(s.seconds for s in sim.stats)


def test_speed_profiles_are_seeded():
    import random
    club = PROFILES["club"]
    draws = [club.react(random.Random(5)) for _ in range(3)]
    assert draws[0] == draws[1] == draws[2] and draws[0] > 0
    assert SpeedProfile("flat-out", 0.001, 0.0).react(random.Random(1)) == 0.001


def test_mixed_strategies_and_their_count():
    sim = simulate("racko", 3, seed=1, strategy=["greedy", "random", "greedy"])
    assert sim.match.players == ["greedy-1", "random-2", "greedy-3"]
    with pytest.raises(SimulationError, match="2 strategies for 3 players"):
        simulate("racko", 3, seed=1, strategy=["greedy", "greedy"])


def test_rk1_gs1_every_game_simulates_a_whole_match():
    for game_id, players in (("racko", 4), ("gin-solitaire", 1), ("gin-solitaire", 3)):
        sim = simulate(game_id, players, seed=2)
        assert get_game(game_id).match_over(sim.match)
