"""No screen re-implements a rule: the questions a Racing Demon screen asks — the
running score of a seat, which stack takes a card, which stacks are the same place, why a source
has no place (with the rule id), who won a contested stack — are answered by the engine
(``lan_demon.games.demon_stacks``, ``demon_scoring.running_score``), and no module of the seat
layer or a screen defines its own."""

from __future__ import annotations

import ast
import random
from pathlib import Path

import pytest

from lan_demon.games.demon_moves import Play
from lan_demon.games.demon_scoring import running_score
from lan_demon.games.demon_stacks import NoPlace, no_place, race_lost, same_next, takes, won_by
from lan_demon.games.demon_table import table_view
from hand_tables import RD, RG, c, cs, seat, table

pytestmark = pytest.mark.timeout(20)

PACKAGE = Path(__file__).resolve().parent.parent / "lan_demon"


def test_rd5_rg3_a_stack_takes_the_next_rank_in_suit_or_in_any_suit_in_german():
    assert takes(c("5H"), c("6H"), german=False) and not takes(c("5H"), c("6D"), german=False)
    assert takes(c("5H"), c("6D"), german=True) and not takes(c("5H"), c("7H"), german=True)


def test_rd5_rg3_stacks_with_the_same_next_card_are_one_place():
    tops = [(1, c("5H")), (2, c("5D")), (3, c("5H")), (4, c("7S"))]
    assert [(t.code, ids) for t, ids in same_next(tops, german=False)] == \
        [("5H", [1, 3]), ("5D", [2]), ("7S", [4])]
    assert [(t.code, ids) for t, ids in same_next(tops, german=True)] == \
        [("5H", [1, 2, 3]), ("7S", [4])]


@pytest.mark.parametrize("game", [RD, RG], ids=["RD-14", "RG-6"])
def test_rd14_rg6_the_running_score_of_a_view_is_the_rounds_score_now(game):
    """What a seat's screen shows as its score so far is what the round would score now."""
    state = game.deal({"pile_sizes": [game.base_pile] * 3, "handicap": False}, random.Random(4))
    rng = random.Random(7)
    for _ in range(400):
        if state.over:
            break
        who = rng.randrange(3)
        moves = game.legal_moves(state, who)
        if moves:
            game.apply(state, who, rng.choice(moves))
        view = table_view(state, None, game.id)
        scores = game.round_result(state).scores
        assert [running_score(p, game.german) for p in view["players"]] == scores


def test_rd9_rd10_rg5_an_empty_source_has_no_place_and_says_which_rule():
    state = table(seat(columns=("9S", "9H", "9D", "9C")))
    assert no_place(RD, state, 0, "waste") == NoPlace("empty_waste", "RD-9", None)
    assert no_place(RG, table(seat(), german=True), 0, "waste").rule == "RG-5"
    state.seats[0].columns[1] = []
    assert no_place(RD, state, 0, "c2") == NoPlace("empty", "RD-10", None)


def test_rd5_rd7_rg3_rg4_a_card_that_fits_nothing_cites_the_rules_of_the_game_played():
    classic = table(seat(pile="5H", columns=("9S", "9H", "9D", "9C")))
    assert no_place(RD, classic, 0, "pile") == NoPlace("no_place", "RD-5, RD-7", c("4H", -1))
    king = table(seat(pile="KH", columns=("9S", "9H", "9D", "9C")))
    assert no_place(RD, king, 0, "pile") == NoPlace("king", "RD-5, RD-7", c("QH", -1))
    german = table(seat(pile="5H", columns=("9S", "9H", "9D", "9C")), german=True)
    assert no_place(RG, german, 0, "pile") == NoPlace("no_stack", "RG-3, RG-4", c("4H", -1))


def test_rd5_a_card_with_a_place_has_no_reason_not_to_go():
    state = table(seat(pile="5H"), stacks=[cs("AH 2H 3H 4H", 1)])
    assert no_place(RD, state, 0, "pile") is None


def test_rd11_who_won_a_contested_stack_and_a_race_lost_on_a_stack_seen_before():
    """Seat 0 saw the 4♥ stack; seat 1's 5♥ covered it since, so seat 0's 5♥ lost a race."""
    state = table(seat(pile="5H"), seat(pile="9C", owner=1),
                  stacks=[[c("AH", 1), c("2H", 1), c("3H", 1), c("4H", 2), c("5H", 1)]])
    assert won_by(state, 1, c("4H", 2)) == 1
    assert won_by(state, 1, c("5H", 1)) is None  # nothing on it yet
    assert race_lost(RD, state, 0, c("5H"), [(1, "4H@2")]) == (1, c("4H", 2), 1)
    assert race_lost(RD, state, 1, c("5H"), [(1, "4H@2")]) is None  # its own card took it
    assert race_lost(RD, state, 0, c("5H"), [(1, "5H@1")]) is None  # unchanged: no race


def test_rd6_rd11_a_stack_claimed_by_its_king_was_won_by_the_claimer():
    state = table(seat(pile="KH"), seat(owner=1),
                  stacks=[[c("AH", 1)] + cs("2H 3H 4H 5H 6H 7H 8H 9H TH JH QH", 1)])
    RD.apply(state, 0, Play("pile", "s1"))
    assert won_by(state, 1, c("QH", 1)) == 0


#: rules a screen once computed for itself: each now asks the engine
RE_IMPLEMENTED = {"score_so_far", "takes", "_same_tops", "_winner"}


def test_no_seat_or_screen_module_defines_a_rule_of_its_own():
    found = []
    for folder in ("seat", "tui", "web"):
        for path in (PACKAGE / folder).glob("*.py"):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            found += [f"{folder}/{path.name}: {node.name}" for node in ast.walk(tree)
                      if isinstance(node, ast.FunctionDef) and node.name in RE_IMPLEMENTED]
    assert not found, found
