"""RD-11's race judgement on its own (lan_demon.games.demon_races): pure, timestamps as data."""

from __future__ import annotations

import pytest

from lan_demon.games import get_game
from lan_demon.games import IllegalMove
from lan_demon.games.demon_moves import Play
from lan_demon.games.demon_races import Beaten, RaceBook, Taken, holder, placed, stack_id
from hand_tables import RD, c, seat, table

pytestmark = pytest.mark.timeout(60)


def two_after_one_ace() -> tuple:
    """Stack 1 is the ace of spades; both seats have the two of spades on their Piles."""
    state = table(seat(pile="2S", owner=0), seat(pile="2S", owner=1),
                  stacks=[[c("AS", 0)]])
    return state, Play("pile", "s1"), Play("pile", "middle")


def test_a_card_that_would_have_fitted_the_top_it_lost_was_beaten_by_whom_and_by_how_much():
    state, to_s1, _ = two_after_one_ace()
    book = RaceBook(RD)
    events = RD.apply(state, 0, to_s1)
    book.remember(0, 10.000, events, state)
    assert book.last_on[1].seat == 0 and book.last_on[1].top == c("AS", 0)
    verdict = book.beaten(state, 1, to_s1, "s1", 10.0123)
    assert verdict == Beaten(by=0, stack=1, top=c("AS", 0), ms=12)
    assert holder(state, "s1") == 0


def test_a_middle_card_that_lost_its_place_is_beaten_on_any_stack_it_fitted():
    state, to_s1, to_middle = two_after_one_ace()
    book = RaceBook(RD)
    book.remember(0, 5.0, RD.apply(state, 0, to_s1), state)
    assert book.beaten(state, 1, to_middle, None, 5.002) == Beaten(0, 1, c("AS", 0), 2)


def test_not_beaten_by_itself_nor_when_it_never_fitted_and_never_a_negative_ms():
    state, to_s1, _ = two_after_one_ace()
    book = RaceBook(RD)
    book.remember(0, 7.0, RD.apply(state, 0, to_s1), state)
    assert book.beaten(state, 0, to_s1, "s1", 7.1) is None  # its own card
    assert book.beaten(state, 1, Play("c1", "s1"), "s1", 7.1) is None  # 9S never fitted AS
    assert book.beaten(state, 1, to_s1, "s1", 6.0).ms == 0  # a later winner: 0, not -1000
    book.clear()
    assert book.beaten(state, 1, to_s1, "s1", 7.1) is None  # a new round: nothing remembered


def test_a_game_without_lost_to_has_no_races():
    assert RaceBook(get_game("racko")).beaten(None, 0, None, "s1", 1.0) is None


def test_placed_names_the_stack_a_middle_play_went_to_but_an_ace_stays_middle():
    state, _, to_middle = two_after_one_ace()
    events = RD.apply(state, 0, to_middle)
    assert placed(to_middle, events) == Play("pile", "s1")
    ace = table(seat(pile="AH"))
    assert placed(Play("pile", "middle"), RD.apply(ace, 0, Play("pile", "middle"))) == \
        Play("pile", "middle")
    assert placed(Play("pile", "s1"), events) == Play("pile", "s1")


def test_stack_ids_and_holders_of_anything_but_a_stack():
    assert stack_id("s7") == 7 and stack_id("middle") is None and stack_id("c1") is None
    assert stack_id("") is None and stack_id("sx") is None
    state, _, _ = two_after_one_ace()
    assert holder(state, "middle") is None and holder(state, "c2") is None


def test_rd11_verdict_sorts_every_refusal_into_beaten_taken_or_illegal():
    """RD-11: the one question the arbiter and the simulator ask of a refused card."""
    state, to_s1, _ = two_after_one_ace()
    book = RaceBook(RD)
    book.remember(0, 3.0, RD.apply(state, 0, to_s1), state)
    with pytest.raises(IllegalMove) as late:
        RD.apply(state, 1, to_s1)
    assert book.verdict(state, 1, to_s1, "s1", 3.004, late.value.rule) == \
        Beaten(0, 1, c("AS", 0), 4)
    book.clear()  # the same refusal with no play remembered: the engine's RD-11, taken by 0
    assert book.verdict(state, 1, to_s1, "s1", 3.004, "RD-11") == Taken(0, "s1")
    assert book.verdict(state, 1, Play("c1", "s1"), "s1", 3.0, "RD-6") is None  # illegal
    for rule in ("RD-11", "RD-5", "RD-6"):  # lost() is verdict() as a yes or no
        for move in (to_s1, Play("c1", "s1")):
            assert book.lost(state, 1, move, "s1", 3.0, rule) == \
                (book.verdict(state, 1, move, "s1", 3.0, rule) is not None)

