"""The Joker-sighted oracle: a bound for the Gin Solitaire solver, never a seat (GS-2, GS-7, GS-8).

It plays as the solver does but is told C, the cards above the Joker, from the hidden state
(GS-2: no seat can see it), so it is built only by the measurement (lan_demon.bots.gin_bound)
and refused everywhere a table chooses a strategy.
"""

from __future__ import annotations

import pytest

from lan_demon.bots import make_strategy, strategy_names
from lan_demon.bots.gin_bound import main as bound_main
from lan_demon.bots.gin_bound import measure, play_match, table
from lan_demon.bots.gin_oracle import JokerSightedOracle
from lan_demon.bots.gin_value import Belief, carry_on, knock_worth, run_to_the_joker
from lan_demon.cli import main
from lan_demon.games.base import BadConfig
from lan_demon.games.cards import parse_card
from lan_demon.games.gin_moves import Discard, Knock
from lan_demon.games.gin_scoring import count_above_joker
from lan_demon.games.melds import card_bit
from hand_tables import GIN, gin_state
from sealed_turns import sealed_turn

pytestmark = pytest.mark.timeout(60)


def oracle_for(state) -> JokerSightedOracle:
    """The oracle on a made-up state, having seen the seat's hand and discards."""
    bot = JokerSightedOracle(state)
    bot._seen.cards = set(state.seats[0].hand) | set(state.seats[0].discarded)
    return bot


def test_gs7_the_oracle_knows_c_and_never_knocks_into_a_set():
    """C = 2 above the Joker, deadwood 9: a knock is surely set (GS-7) and the oracle, which
    knows C, plays on; C = 0 (the Joker next) with deadwood 1: a knock is set by 26, the
    Joker scores only 1 — it plays on; Gin it always takes."""
    hand = "AS 2S 3S 7H 7D 7C 9H TH JH 9C QD"
    short = gin_state(hand, "4D 5D")
    assert count_above_joker(short.seats[0].draw) == 2
    bot = oracle_for(short)
    assert bot.belief({"draw": 0}) == Belief.known(2)
    assert isinstance(bot.choose(sealed_turn(GIN, short, 0)), Discard)
    next_joker = gin_state("AS 2S 3S 7H 7D 7C 9H TH JH AC KC", "")
    assert isinstance(oracle_for(next_joker).choose(sealed_turn(GIN, next_joker, 0)), Discard)
    gin = gin_state("AS 2S 3S 7H 7D 7C 9H TH JH QH 5C", "4D")
    assert oracle_for(gin).choose(sealed_turn(GIN, gin, 0)) == Knock(parse_card("5C"))


def test_gs7_over_seeded_matches_the_oracle_is_never_set():
    """Knowing C, a knock that would be set (C < deadwood) is worth −(25 + d − C), less than
    the −d of waiting for the Joker: the oracle never knocks into one."""
    rounds = 0
    for k in range(4):
        for result in play_match("oracle", f"never-set:{k}").rounds:
            detail = result.detail[0]
            rounds += 1
            if detail["result"] == "knock":
                assert detail["count"] >= detail["deadwood"], detail
    assert rounds >= 8


def test_gs7_a_known_belief_is_exact_and_moves_down_a_card_a_draw():
    assert Belief.known(0).joker_next == 1.0  # the Joker is next
    assert Belief.known(3).joker_next == 0.0 and Belief.known(3).after_draw() == Belief.known(2)
    assert Belief.unseen(5).joker_next == pytest.approx(0.2)
    assert Belief.unseen(5).after_draw() == Belief.unseen(4)
    assert knock_worth(4, Belief.known(3)) == -(25 + 1)  # set: 25 + (4 − 3)
    assert knock_worth(0, Belief.known(7)) == 25 + 7  # Gin
    assert carry_on(0b111, 5, [(1 << 20, parse_card("8H"))], Belief.known(0)) == -5


def test_the_oracle_cannot_be_chosen_by_a_table():
    """It is in no registry: make_strategy (what --strategy, --bots and bot use) refuses it
    with the one line any unknown strategy gets, and its games are none."""
    assert JokerSightedOracle.games == ()
    for game in ("gin-solitaire", "racko", "racing-demon"):
        assert JokerSightedOracle.name not in strategy_names(game)
        assert "oracle" not in strategy_names(game)
    with pytest.raises(BadConfig, match="unknown strategy 'oracle-sees-joker'"):
        make_strategy("gin-solitaire", JokerSightedOracle.name)


@pytest.mark.parametrize("name", ["oracle-sees-joker", "oracle"])
def test_play_and_simulate_refuse_the_oracle_in_one_line(name, capsys):
    for argv in (["play", "--game", "gin-solitaire", "--strategy", name],
                 ["simulate", "--game", "gin-solitaire", "--strategy", name]):
        assert main(argv) == 2
        err = capsys.readouterr().err.strip().splitlines()
        own = ", or a bot of your own: mybot.py[:Class]" if argv[0] == "simulate" else ""
        assert err == [f"lan-demon: unknown strategy {name!r} for gin-solitaire; choose one "
                       f"of: greedy, random, solver{own}"]  # (simulate takes an author's file)


def test_gs8_the_bound_replays_from_its_seed():
    a, b = play_match("oracle", "gs8:7:0"), play_match("oracle", "gs8:7:0")
    assert a.result_data() == b.result_data() and a.over
    assert measure("solver", 2, 7).__dict__ == measure("solver", 2, 7).__dict__
    # every strategy meets the same first deal (a deal depends on the seed and round alone)
    first = {row: play_match(row, "gs8:7:1").setups[0] for row in ("oracle", "greedy")}
    assert first["oracle"] == first["greedy"]


def test_gs8_the_bound_prints_the_table(capsys):
    assert bound_main(["--matches", "2", "--seed", "3", "--only", "greedy"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert out[0].startswith("| strategy | matches to 100 won (GS-8) | 95 % CI")
    assert len(out) == 3 and out[2].startswith("| `greedy` | ")
    t = measure("greedy", 2, 3)
    assert t.matches == 2 and t.rounds >= 2 and t.player + t.joker > 0
    assert table({"greedy": t}).splitlines()[2] == out[2]


@pytest.mark.parametrize("argv", [["--matches", "0"], ["--matches", "many"],
                                  ["--only", "demon"]])
def test_the_bound_refuses_bad_flags_in_one_line(argv, capsys):
    with pytest.raises(SystemExit) as exit_:
        bound_main(argv)
    assert exit_.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("gin_bound: ")



def test_gs7_told_c_the_oracle_weighs_the_whole_run_to_the_joker():
    """Deadwood 1 (A♣); of the two unseen cards 4♠ makes Gin (the run grows, A♣ goes), K♦
    changes nothing. One safe draw left (C = 1): Gin 25 or hold −1, (25 − 1) / 2 = 12. Two
    (C = 2): after the first draw Gin is worth 25 + 1 now, deadwood 1 is worth the 12 above,
    so (26 + 12) / 2 = 19 — more than knocking now (C − d = 1) or one draw's look."""
    hand = [parse_card(c) for c in "AS 2S 3S 7H 7D 7C 9H TH JH AC".split()]
    rest = sum(card_bit(c) for c in hand)
    unseen = [(card_bit(parse_card(c)), parse_card(c)) for c in ("4S", "KD")]
    assert run_to_the_joker(rest, 1, unseen, 0) == -1  # the Joker is next
    assert run_to_the_joker(rest, 1, unseen, 1) == pytest.approx(12)
    assert run_to_the_joker(rest, 1, unseen, 2) == pytest.approx(19)
    assert carry_on(rest, 1, unseen, Belief.known(2)) == pytest.approx((26 + 0) / 2)
