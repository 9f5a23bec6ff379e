"""Rack-O's ``threshold`` bot: the target-band rule of thumb, move by move and over whole rounds.

Rule ids: RK-1 (deck size by players), RK-4 (a turn: take the Discard, or draw then place or
discard), RK-5 (Rack-O ends the round), RK-8 (nothing left to draw).
"""

from __future__ import annotations

from typing import Any

import pytest

from lan_demon.bots import make_strategy, strategy_names
from lan_demon.bots.racko_threshold import (ThresholdRackO, band, in_order_count, slot_in_order,
                                            target)
from lan_demon.bots.simulator import play_round
from lan_demon.games.base import Match
from lan_demon.games.racko import DiscardHeld, Draw, Place, RackO, RackOState, TakeDiscard
from sealed_turns import sealed_turn

pytestmark = pytest.mark.timeout(30)

RACKO = RackO()
#: One slot (slot 25 holds the 40) out of order; every other card in its band and in order.
ONE_OFF = [2, 6, 9, 13, 40, 20, 24, 27, 31, 35]


def state(rack: list[int], top: int, held: int | None = None,
          draw: bool = True) -> RackOState:
    """Seat 0 to move with ``rack`` against a rack of the lowest cards left (N = 40)."""
    rest = [c for c in range(1, 41) if c not in rack and c not in (top, held)]
    return RackOState(racks=[list(rack), rest[:10]], draw=rest[10:] if draw else [],
                      discard=[top], dealer=1, turn=0, held=held)


def choose(st: RackOState) -> Any:
    """The bot's move from the seat's view and legal moves alone (the raw state sealed)."""
    turn = sealed_turn(RACKO, st, 0)
    move = ThresholdRackO().choose(turn)
    assert move in turn.legal
    return move


def test_threshold_is_registered_by_name():
    assert "threshold" in strategy_names("racko")
    assert isinstance(make_strategy("racko", "threshold"), ThresholdRackO)


def test_rk1_each_card_aims_at_its_share_of_the_rack_and_its_band_is_the_nearest_slots():
    """RK-1: with N cards, v aims at v * 10 / N slots up; its band is the slots within one."""
    for size in (40, 50, 60):
        assert band(1, size) == [0] and band(size, size) == [9]
        for v in range(1, size + 1):
            slots = band(v, size)
            nearest = min(range(10), key=lambda i: abs(i - target(v, size)))
            assert nearest in slots and 1 <= len(slots) <= 3
            assert slots == list(range(slots[0], slots[-1] + 1))  # neighbouring slots
            assert all(abs(i - target(v, size)) <= 1 for i in slots)
        assert target(size // 2, size) == pytest.approx(4.5 - 5 / size)
    assert band(17, 40) == [3, 4] and band(21, 40) == [4, 5]


def test_a_slot_is_in_order_when_its_card_is_in_band_and_between_its_neighbours():
    assert [slot_in_order(ONE_OFF, i, 40) for i in range(10)] == \
        [True, True, True, True, False, False, True, True, True, True]
    assert in_order_count(ONE_OFF, 40) == 8
    ordered = [2, 6, 9, 13, 17, 20, 24, 27, 31, 35]
    assert in_order_count(ordered, 40) == 10
    # ascending, but the 3 in slot 50 is far from its band: that slot is not in order
    assert not slot_in_order([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 9, 40)


def test_rk4_rk5_takes_the_discard_that_fits_a_band_slot_not_in_order():
    """The 17 fits slot 25 (its band: slots 20 and 25), which is out of order: take it —
    that completes the rack (RK-5)."""
    assert choose(state(ONE_OFF, 17)) == TakeDiscard(25)


def test_rk4_draws_when_the_discard_fits_no_band_slot_that_is_out_of_order():
    """The 37's band (slots 45, 50) is in order already: draw."""
    assert choose(state(ONE_OFF, 37)) == Draw()


def test_rk4_the_discard_is_not_taken_for_a_nearer_card_alone():
    """The 21 fits slot 25 better than the 40 there, but puts no slot in order: draw."""
    assert choose(state(ONE_OFF, 21)) == Draw()


def test_rk4_a_drawn_card_goes_where_it_fits_its_band_best():
    assert choose(state(ONE_OFF, 37, held=17)) == Place(25)
    # 21 puts no slot in order, but lies nearer its target in slot 25 than the 40 does
    assert choose(state(ONE_OFF, 37, held=21)) == Place(25)


def test_rk4_a_drawn_card_that_fits_nowhere_better_is_discarded():
    """The 1's band is slot 5 alone, in order with the 2: discard it."""
    assert choose(state(ONE_OFF, 37, held=1)) == DiscardHeld()
    # the 36 would go into slot 45 or 50, both in order: never break a slot in order
    assert choose(state(ONE_OFF, 17, held=36)) == DiscardHeld()


def test_rk8_with_nothing_to_draw_it_takes_the_discard_anyway():
    """RK-8: one Discard card and no Draw pile: the Discard must be taken, wherever."""
    st = state(ONE_OFF, 37, draw=False)
    assert Draw() not in RACKO.legal_moves(st, 0)
    assert isinstance(choose(st), TakeDiscard)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_rk5_rounds_of_threshold_bots_alone_end_in_rack_o(players):
    """Its rule never stalls: rounds with threshold at every seat end in Rack-O (RK-5)."""
    for k in range(20):
        st = Match(RACKO, ["t"] * players, f"threshold:{players}:{k}").deal()
        bots = [make_strategy("racko", "threshold") for _ in range(players)]
        stats = play_round(RACKO, st, bots, "threshold", k)
        assert st.over and st.racko is not None and stats.moves < 1_000


def test_threshold_is_deterministic_from_the_seed():
    runs = []
    for _ in range(2):
        st = Match(RACKO, ["a", "b"], "again").deal()
        play_round(RACKO, st, [ThresholdRackO(), make_strategy("racko", "planner")], "again", 0)
        runs.append(RACKO.state_to_data(st))
    assert runs[0] == runs[1]
