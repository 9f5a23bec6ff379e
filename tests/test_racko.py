"""Rack-O engine and greedy bot against the rule book (RK-1 … RK-9 of ``docs/rules.md``)."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lan_demon.bots.base import RandomStrategy, Turn
from lan_demon.bots.racko import GreedyRackO, band
from lan_demon.games.base import BadConfig, BadMove, IllegalMove, Match, RoundResult, round_rng
from lan_demon.games.racko import (SLOTS, DiscardHeld, Draw, Place, RackO, RackOState,
                                   TakeDiscard, ascending_prefix, longest_run, run_bonus)

pytestmark = pytest.mark.timeout(60)

G = RackO()
ASCENDING = list(range(1, 11))


# --- helpers -----------------------------------------------------------------------------------


class ScriptedRng(random.Random):
    """A generator whose shuffles put the deck into given orders (top card last), in turn."""

    def __init__(self, *orders: list[int]):
        super().__init__(0)
        self.orders = [list(order) for order in orders]

    def shuffle(self, x: Any) -> None:  # type: ignore[override]
        order = self.orders.pop(0)
        assert sorted(order) == sorted(x)
        x[:] = order


class RecordingRng(random.Random):
    """A real seeded generator that remembers the deck after each shuffle."""

    def __init__(self, seed: Any):
        super().__init__(seed)
        self.seen: list[list[int]] = []

    def shuffle(self, x: Any) -> None:  # type: ignore[override]
        super().shuffle(x)
        self.seen.append(list(x))


def make_state(racks: list[list[int]], draw: list[int], discard: list[int], *, turn: int = 0,
               held: int | None = None, bonus: bool = False) -> RackOState:
    return RackOState(racks=[list(r) for r in racks], draw=list(draw), discard=list(discard),
                      dealer=(turn - 1) % len(racks), turn=turn, held=held,
                      options={"bonus": bonus})


def two_player_state(**kw: Any) -> RackOState:
    """A 40-card table: seat 0 nearly in order (slot 25 wrong), seat 1 scrambled."""
    racks = [[1, 4, 8, 12, 39, 20, 24, 28, 32, 36], [40, 2, 30, 6, 10, 14, 18, 22, 26, 34]]
    used = {c for r in racks for c in r}
    rest = [c for c in range(1, 41) if c not in used]  # 20 cards
    return make_state(racks, draw=rest[:-1], discard=rest[-1:], **kw)


def to_top(state: RackOState, pile: str, card: int) -> None:
    """Swap ``card`` (wherever it lies in the piles) with the top card of ``pile``."""
    target = getattr(state, pile)
    for source in (state.draw, state.discard):
        if card in source:
            i = source.index(card)
            source[i], target[-1] = target[-1], card
            return
    raise AssertionError(f"{card} is not in a pile")


def snapshot(state: RackOState) -> str:
    return json.dumps(G.state_to_data(state), sort_keys=True)


def assert_conserved(state: RackOState) -> None:
    n = len(state.racks)
    assert sorted(G.cards_in_play(state)) == list(range(1, {2: 40, 3: 50, 4: 60}[n] + 1))
    assert all(len(rack) == 10 for rack in state.racks)


def assert_refused(state: RackOState, seat: int, move: Any, rule: str) -> IllegalMove:
    before = snapshot(state)
    with pytest.raises(IllegalMove) as err:
        G.apply(state, seat, move)
    assert err.value.rule == rule
    assert snapshot(state) == before
    return err.value


def play_round(state: RackOState, strategies: list[Any], seed: int, cap: int = 3000,
               check: bool = True) -> int:
    """Play to Rack-O with the given strategies; return the number of moves made."""
    rng = random.Random(seed)
    for moves in range(cap):
        if G.round_over(state):
            return moves
        seat = G.to_move(state)[0]
        G.apply(state, seat, strategies[seat].choose(Turn(G, state, seat, rng)))
        if check:
            assert_conserved(state)
    raise AssertionError(f"no Rack-O after {cap} moves")


# --- RK-1 --------------------------------------------------------------------------------------


@pytest.mark.parametrize("players,top", [(2, 40), (3, 50), (4, 60)])
def test_rk1_deck_size_by_players(players: int, top: int) -> None:
    state = G.deal({"players": players, "bonus": False}, round_rng(7, 0))
    assert sorted(G.cards_in_play(state)) == list(range(1, top + 1))
    assert G.view(state, 0)["deck_size"] == top


@pytest.mark.parametrize("players", [0, 1, 5, 8])
def test_rk1_two_to_four_players(players: int) -> None:
    with pytest.raises(BadConfig, match="RK-1"):
        Match(G, [f"p{i}" for i in range(players)], seed=1)
    with pytest.raises(BadConfig, match="RK-1"):
        G.deal({"players": players, "bonus": False}, random.Random(1))


# --- RK-2 --------------------------------------------------------------------------------------


def test_rk2_highest_draw_deals_scripted() -> None:
    """RK-2: seats draw from the top (seat 0 first); seat 2 draws the 50 and deals."""
    cut = [c for c in range(1, 51) if c not in (50, 3, 2)] + [50, 3, 2]
    state = G.deal({"players": 3, "bonus": False}, ScriptedRng(cut, list(range(1, 51))))
    assert state.dealer == 2


@pytest.mark.parametrize("seed", range(20))
def test_rk2_highest_draw_deals_seeded(seed: int) -> None:
    """RK-2 with the real generator: the dealer is whoever drew the highest card."""
    rng = RecordingRng(seed)
    state = G.deal({"players": 4, "bonus": False}, rng)
    cut = rng.seen[0][::-1][:4]  # top card first, seat 0 first
    assert state.dealer == cut.index(max(cut))
    assert len(rng.seen) == 2  # the cards went back and the deck was shuffled again


def test_rk2_deal_one_at_a_time_left_of_dealer_from_slot_50_down() -> None:
    """RK-2: one card per player per pass, starting left of the dealer, slot 50 first."""
    cut = list(range(1, 51))
    cut[-2], cut[-1] = 50, 49  # seat 0 draws 49, seat 1 draws 50 and deals
    state = G.deal({"players": 3, "bonus": False}, ScriptedRng(cut, list(range(1, 51))))
    assert state.dealer == 1
    # The deck's top is 50: seat 2 gets 50 in slot 50, seat 0 gets 49, seat 1 gets 48, …
    assert state.racks[2] == list(range(23, 51, 3))
    assert state.racks[0] == list(range(22, 50, 3))
    assert state.racks[1] == list(range(21, 49, 3))


# --- RK-3 --------------------------------------------------------------------------------------


def test_rk3_rest_is_draw_pile_top_card_starts_discard_scripted() -> None:
    cut = list(range(1, 51))
    cut[-2], cut[-1] = 50, 49
    state = G.deal({"players": 3, "bonus": False}, ScriptedRng(cut, list(range(1, 51))))
    assert state.discard == [20]
    assert state.draw == list(range(1, 20))
    assert state.held is None


@pytest.mark.parametrize("players", [2, 3, 4])
def test_rk3_pile_sizes(players: int) -> None:
    state = G.deal({"players": players, "bonus": False}, round_rng("piles", players))
    assert len(state.discard) == 1
    assert len(state.draw) == {2: 40, 3: 50, 4: 60}[players] - 10 * players - 1
    view = G.view(state, 0)
    assert (view["draw_size"], view["discard_size"]) == (len(state.draw), 1)
    assert view["discard_top"] == state.discard[-1]


# --- RK-4 --------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_rk4_left_of_dealer_starts_and_turns_go_round(players: int) -> None:
    state = G.deal({"players": players, "bonus": False}, round_rng(3, players))
    first = (state.dealer + 1) % players
    assert G.to_move(state) == [first]
    for k in range(2 * players):
        assert G.to_move(state) == [(first + k) % players]
        seat = state.turn
        G.apply(state, seat, Draw())
        assert G.to_move(state) == [seat]  # still their turn while holding the drawn card
        G.apply(state, seat, DiscardHeld())
        if state.over:  # a dealt rack already in order: RK-5 ends it
            break
    assert state.turns == k + 1


def test_rk4_take_discard_into_any_slot() -> None:
    """RK-4: the top Discard goes into the named slot; the replaced card goes face up."""
    state = two_player_state()
    top, rack_before = state.discard[-1], list(state.racks[0])
    events = G.apply(state, 0, TakeDiscard(45))
    assert state.racks[0][8] == top
    assert state.racks[0][:8] + state.racks[0][9:] == rack_before[:8] + rack_before[9:]
    assert state.discard[-1] == rack_before[8]
    assert events[0] == {"e": "take", "seat": 0, "slot": 45, "card": top, "out": rack_before[8]}
    assert (state.turn, state.turns, state.racks[1]) == (1, 1, two_player_state().racks[1])


def test_rk4_draw_then_place() -> None:
    state = two_player_state()
    card, rack_before, discards = state.draw[-1], list(state.racks[0]), len(state.discard)
    events = G.apply(state, 0, Draw())
    assert events == [{"e": "draw", "seat": 0, "private": {"card": card}}]
    assert state.held == card and state.turn == 0
    assert G.legal_moves(state, 0) == [Place(s) for s in SLOTS] + [DiscardHeld()]
    events = G.apply(state, 0, Place(5))
    assert state.racks[0] == [card] + rack_before[1:]
    assert state.discard[-1] == rack_before[0] and len(state.discard) == discards + 1
    assert events[0] == {"e": "place", "seat": 0, "slot": 5, "out": rack_before[0],
                         "private": {"card": card}}
    assert state.held is None and state.turn == 1


def test_rk4_draw_then_discard() -> None:
    state = two_player_state()
    card, rack_before = state.draw[-1], list(state.racks[0])
    G.apply(state, 0, Draw())
    events = G.apply(state, 0, DiscardHeld())
    assert events[0] == {"e": "discard", "seat": 0, "card": card}
    assert state.discard[-1] == card and state.racks[0] == rack_before
    assert state.held is None and state.turn == 1


def test_rk4_legal_moves_by_phase() -> None:
    state = two_player_state()
    assert G.legal_moves(state, 0) == [TakeDiscard(s) for s in SLOTS] + [Draw()]
    assert G.legal_moves(state, 1) == []
    G.apply(state, 0, Draw())
    assert len(G.legal_moves(state, 0)) == 11
    assert G.legal_moves(state, 1) == []


@pytest.mark.parametrize("seat", [1, 2, -1, 7])
def test_rk4_wrong_seat_refused(seat: int) -> None:
    two = two_player_state()
    state = make_state(two.racks + [list(range(41, 51))], draw=two.draw, discard=two.discard)
    for move in (Draw(), TakeDiscard(5)):
        err = assert_refused(state, seat, move, "RK-4")
        assert "seat 0" in err.reason


@pytest.mark.parametrize("holding,move", [
    (False, Place(25)), (False, DiscardHeld()), (True, Draw()), (True, TakeDiscard(25)),
])
def test_rk4_wrong_phase_refused(holding: bool, move: Any) -> None:
    state = two_player_state()
    if holding:
        G.apply(state, 0, Draw())
    assert_refused(state, 0, move, "RK-4")


@pytest.mark.parametrize("slot", [0, 1, 7, 55, -5, 100, True, 25.0])
def test_rk2_bad_slot_refused(slot: Any) -> None:
    """RK-2: a rack has slots 5, 10, … 50 and no others."""
    state = two_player_state()
    err = assert_refused(state, 0, TakeDiscard(slot), "RK-2")
    assert "5" in err.reason and "50" in err.reason
    G.apply(state, 0, Draw())
    assert_refused(state, 0, Place(slot), "RK-2")


def test_apply_refuses_what_is_not_a_move() -> None:
    state = two_player_state()
    before = snapshot(state)
    with pytest.raises(BadMove):
        G.apply(state, 0, "take 25")
    assert snapshot(state) == before


# --- RK-5 --------------------------------------------------------------------------------------


def test_rk5_engine_calls_racko_at_end_of_turn() -> None:
    """RK-5: taking 16 into slot 25 puts seat 0 in order; the round ends at once."""
    state = two_player_state()
    to_top(state, "discard", 16)
    events = G.apply(state, 0, TakeDiscard(25))
    assert events[-1] == {"e": "racko", "seat": 0}
    assert state.over and state.racko == 0 and G.round_over(state)
    assert G.to_move(state) == [] and G.legal_moves(state, 0) == G.legal_moves(state, 1) == []
    assert_conserved(state)


def test_rk5_racko_by_place() -> None:
    state = two_player_state()
    to_top(state, "draw", 16)
    G.apply(state, 0, Draw())
    assert not state.over  # the drawn card is not in the rack yet
    G.apply(state, 0, Place(25))
    assert state.over and state.racko == 0


def test_rk5_not_called_while_out_of_order() -> None:
    state = two_player_state()
    G.apply(state, 0, TakeDiscard(50))
    assert not state.over and state.racko is None and G.to_move(state) == [1]


def test_rk5_dealt_rack_in_order_is_called_at_owners_turn_end() -> None:
    """RK-5 decision: a rack already in order is called at the end of its owner's turn."""
    state = two_player_state(turn=1)
    state.racks[0][4] = 16  # in order, but it is seat 1's turn
    state.draw[state.draw.index(16)] = 39
    G.apply(state, 1, Draw())
    G.apply(state, 1, DiscardHeld())
    assert not state.over  # seat 1's rack is not in order; seat 0's is not checked on 1's turn
    G.apply(state, 0, Draw())
    G.apply(state, 0, DiscardHeld())
    assert state.over and state.racko == 0


def test_rk5_no_move_after_round_end() -> None:
    state = two_player_state()
    to_top(state, "discard", 16)
    G.apply(state, 0, TakeDiscard(25))
    assert state.over
    for seat, move in ((1, Draw()), (1, TakeDiscard(5)), (0, Draw()), (1, Place(5))):
        assert_refused(state, seat, move, "RK-5")


# --- RK-6 --------------------------------------------------------------------------------------


@pytest.mark.parametrize("rack,count", [
    (ASCENDING, 10),
    ([3, 7, 9, 4, 20, 21, 22, 23, 24, 25], 3),  # the order breaks at slot 20: the rest is lost
    ([1, 2, 3, 2, 5, 6, 7, 8, 9, 10], 3),
    ([40, 1, 2, 3, 4, 5, 6, 7, 8, 9], 1),  # slot 5 alone is always in order
    ([1, 2, 3, 4, 5, 6, 7, 8, 9, 0], 9),
])
def test_rk6_ascending_prefix_stops_where_order_breaks(rack: list[int], count: int) -> None:
    assert ascending_prefix(rack) == count


def test_rk6_round_scores_and_detail() -> None:
    """RK-6: Rack-O 75; the others 5 a card up to the first break; detail re-adds."""
    racks = [ASCENDING, [11, 15, 19, 12, 13, 14, 16, 17, 18, 20], [40, 21, 22, 23, 24, 25, 26, 27,
                                                                    28, 29]]
    state = make_state(racks, draw=list(range(30, 40)), discard=list(range(41, 51)))
    state.over, state.racko = True, 0
    result = G.round_result(state)
    assert result.scores == [75, 15, 5]
    assert result.detail == [{"rack": racks[0], "racko": True},
                             {"rack": racks[1], "racko": False},
                             {"rack": racks[2], "racko": False}]
    for score, part in zip(result.scores, result.detail):
        assert score == 25 * part["racko"] + 5 * ascending_prefix(part["rack"])


# --- RK-7 --------------------------------------------------------------------------------------


def _result(scores: list[int]) -> RoundResult:
    return RoundResult(scores, [{"rack": ASCENDING, "racko": False} for _ in scores])


def test_rk7_match_ends_when_someone_reaches_500() -> None:
    match = Match(G, ["Ann", "Bob"], seed=1)
    assert match.rounds_wanted is None
    match.record(_result([75, 40]))
    match.record(_result([400, 40]))
    assert match.totals == [475, 80] and not match.over
    match.record(_result([25, 75]))
    assert match.totals == [500, 155] and match.over and match.winners() == [0]


def test_rk7_highest_wins_when_several_reach_500() -> None:
    match = Match(G, ["Ann", "Bob", "Cy"], seed=1)
    match.record(_result([450, 470, 300]))
    match.record(_result([75, 40, 5]))
    assert match.totals == [525, 510, 305] and match.over and match.winners() == [0]


def test_rk7_equal_highest_share_the_win() -> None:
    match = Match(G, ["Ann", "Bob", "Cy"], seed=1)
    match.record(_result([450, 470, 300]))
    match.record(_result([75, 55, 5]))
    assert match.totals == [525, 525, 305] and match.over and match.winners() == [0, 1]


def test_rk7_round_cap_leaders_win() -> None:
    match = Match(G, ["Ann", "Bob"], seed=1, rounds_wanted=1)
    match.record(_result([20, 75]))
    assert match.over and not G.match_over(match) and match.winners() == [1]


# --- RK-8 --------------------------------------------------------------------------------------


def _empty_draw_state() -> RackOState:
    state = two_player_state()
    state.discard = state.draw[::-1] + state.discard  # the same 20 cards, all face up
    state.draw = []
    return state


def test_rk8_discard_turned_over_unshuffled() -> None:
    """RK-8: turning the pile over puts its bottom card on top; that card starts the Discard."""
    state = _empty_draw_state()
    old = list(state.discard)  # bottom first
    assert Draw() in G.legal_moves(state, 0)
    events = G.apply(state, 0, Draw())
    assert events[0] == {"e": "reshuffle", "discard_top": old[0], "draw_size": 19}
    assert state.discard == [old[0]]
    assert state.held == old[1]
    assert state.draw == old[:1:-1]  # old top card at the bottom, old third card on top
    assert state.draw[0] == old[-1] and state.draw[-1] == old[2]
    assert_conserved(state)


def test_rk8_waits_until_a_card_must_be_drawn() -> None:
    """RK-8: an empty Draw pile is not turned over while the player takes the Discard."""
    state = _empty_draw_state()
    top = state.discard[-1]
    G.apply(state, 0, TakeDiscard(50))
    assert state.draw == [] and state.racks[0][9] == top


def test_rk8_reshuffle_in_long_play() -> None:
    """RK-8 in real play: draw-and-discard only, the piles cycle and nothing is lost."""
    state = G.deal({"players": 2, "bonus": False}, round_rng(11, 0))
    reshuffles = 0
    for _ in range(60):
        if state.over:
            break
        seat = state.turn
        events = G.apply(state, seat, Draw())
        reshuffles += any(e["e"] == "reshuffle" for e in events)
        G.apply(state, seat, DiscardHeld())
        assert_conserved(state)
    assert state.over or reshuffles >= 2


# --- RK-9 --------------------------------------------------------------------------------------


@pytest.mark.parametrize("rack,run,bonus", [
    ([2, 4, 6, 8, 10, 12, 14, 16, 18, 20], 1, 0),
    ([1, 2, 4, 6, 8, 10, 12, 14, 16, 18], 2, 0),
    ([1, 3, 4, 5, 8, 10, 12, 14, 16, 18], 3, 50),
    ([1, 3, 5, 7, 9, 20, 21, 22, 23, 30], 4, 100),
    ([1, 2, 3, 7, 9, 20, 21, 22, 23, 24], 5, 200),
    ([1, 3, 10, 11, 12, 13, 14, 15, 30, 40], 6, 400),
    (ASCENDING, 10, 400),
])
def test_rk9_bonus_by_longest_run(rack: list[int], run: int, bonus: int) -> None:
    assert (longest_run(rack), run_bonus(rack)) == (run, bonus)


def test_rk9_bonus_only_for_racko_player_and_only_when_on() -> None:
    racks = [[1, 3, 5, 7, 9, 20, 21, 22, 23, 30], [10, 11, 12, 13, 14, 2, 4, 6, 8, 15]]
    used = {c for r in racks for c in r}
    rest = [c for c in range(1, 41) if c not in used]
    for bonus_on, scores in ((True, [175, 25]), (False, [75, 25])):
        state = make_state(racks, draw=rest[1:], discard=rest[:1], bonus=bonus_on)
        state.over, state.racko = True, 0
        result = G.round_result(state)
        assert result.scores == scores
        assert all(("bonus" in d) == bonus_on for d in result.detail)
        for score, part in zip(result.scores, result.detail):
            assert score == (25 * part["racko"] + 5 * ascending_prefix(part["rack"])
                             + part.get("bonus", 0))
    assert result.detail[1] == {"rack": racks[1], "racko": False}


def test_rk9_option_off_by_default_and_carried_through_the_match() -> None:
    assert G.default_options() == {"bonus": False}
    assert Match(G, ["a", "b"], seed=1).setup == {"players": 2, "bonus": False}
    match = Match(G, ["a", "b", "c"], seed=1, options={"bonus": True})
    assert match.setup == {"players": 3, "bonus": True}
    assert match.deal().options == {"bonus": True}
    match.record(_result([5, 5, 5]))
    assert match.setup == {"players": 3, "bonus": True}
    with pytest.raises(BadConfig, match="RK-9"):
        Match(G, ["a", "b"], seed=1, options={"bonus": "yes"})
    with pytest.raises(BadConfig):
        Match(G, ["a", "b"], seed=1, options={"jokers": True})


# --- views (RK-2: each rack is seen by its owner alone) ----------------------------------------

#: Keys whose ints are counts, seats or flags, not cards.
_NOT_CARDS = {"seat", "players", "deck_size", "dealer", "turn", "turns", "draw_size",
              "discard_size", "racko", "rack_size", "slot"}


def _card_leaves(data: Any, key: str = "") -> list[int]:
    """Every int in a view that is not a count or a seat number."""
    if isinstance(data, dict):
        return [c for k, v in data.items() for c in _card_leaves(v, k)]
    if isinstance(data, list):
        return [c for v in data for c in _card_leaves(v, key)]
    if isinstance(data, int) and not isinstance(data, bool) and key not in _NOT_CARDS:
        return [data]
    return []


@pytest.mark.parametrize("players", [2, 3, 4])
def test_rk2_view_hides_other_racks_and_draw_pile(players: int) -> None:
    state = G.deal({"players": players, "bonus": False}, round_rng(5, players))
    G.apply(state, state.turn, Draw())  # someone holds a card too
    for seat in [None, *range(players)]:
        view = G.view(state, seat)
        json.dumps(view)
        hidden = {c for s, rack in enumerate(state.racks) if s != seat for c in rack}
        hidden |= set(state.draw) | ({state.held} if seat != state.turn else set())
        assert not hidden & set(_card_leaves(view))
        assert set(_card_leaves(view)) <= set(G.cards_in_play(state))
        assert "racks" not in view and "draw" not in view
        assert [s["rack_size"] for s in view["seats"]] == [10] * players
        if seat is None:
            assert "rack" not in view and "held" not in view
        else:
            assert view["rack"] == state.racks[seat]
            assert ("held" in view) == (seat == state.turn)
        assert view["holding"] is True


def test_rk2_view_does_not_change_when_hidden_cards_move() -> None:
    """RK-2: swapping cards between seat 1's rack and the Draw pile leaves seat 0's view alike."""
    state = two_player_state()
    before = G.view(state, 0)
    state.racks[1][3], state.draw[5] = state.draw[5], state.racks[1][3]
    state.draw.reverse()
    assert G.view(state, 0) == before
    assert G.view(state, 1) != G.view(two_player_state(), 1)


def test_rk2_drawn_card_only_in_private_part_of_events() -> None:
    state = two_player_state()
    card = state.draw[-1]
    events = G.apply(state, 0, Draw()) + G.apply(state, 0, Place(10))
    public = [{k: v for k, v in e.items() if k != "private"} for e in events]
    assert card not in _card_leaves(public)
    assert all(e["private"] == {"card": card} for e in events if "private" in e)
    json.dumps(events)


# --- deals, data and the bot -------------------------------------------------------------------


def test_same_seed_same_deal() -> None:
    one = Match(G, ["a", "b", "c"], seed="s1").deal()
    two = Match(G, ["a", "b", "c"], seed="s1").deal()
    other = Match(G, ["a", "b", "c"], seed="s2").deal()
    assert G.state_to_data(one) == G.state_to_data(two) != G.state_to_data(other)


@pytest.mark.parametrize("text,move", [
    ("take 25", TakeDiscard(25)), ("  TAKE   5 ", TakeDiscard(5)), ("draw", Draw()),
    ("Draw\n", Draw()), ("place 50", Place(50)), ("discard", DiscardHeld()),
    ("take 7", TakeDiscard(7)),  # reads; apply refuses it (RK-2)
])
def test_parse_move(text: str, move: Any) -> None:
    assert G.parse_move(text) == move
    assert G.move_from_data(move.to_data()) == move
    assert G.parse_move(str(move)) == move


@pytest.mark.parametrize("text", ["", "take", "take x", "take 5 10", "draw 5", "place", "jump",
                                  "discard 25", "take 2.5"])
def test_parse_move_refuses_bad_text(text: str) -> None:
    with pytest.raises(BadMove) as err:
        G.parse_move(text)
    assert "take" in str(err.value)


@pytest.mark.parametrize("data", [None, "draw", [], {}, {"t": "fly"}, {"t": "take"},
                                  {"t": "take", "slot": "25"}, {"t": "place", "slot": True},
                                  {"t": "draw", "slot": 5}, {"t": 3}, {"move": "draw"}])
def test_move_from_data_refuses_malformed(data: Any) -> None:
    with pytest.raises(BadMove):
        G.move_from_data(data)


def test_state_round_trips_and_copies() -> None:
    state = two_player_state()
    G.apply(state, 0, Draw())
    data = G.state_to_data(state)
    assert json.loads(json.dumps(data)) == data
    assert G.state_from_data(data) == state
    copy = G.copy_state(state)
    G.apply(copy, 0, DiscardHeld())
    assert G.state_to_data(state) == data


def test_greedy_takes_discard_only_when_it_fills_its_band() -> None:
    state = two_player_state()  # seat 0: slot 25 (index 4, band 17..20) holds 39
    to_top(state, "discard", 17)
    assert band(17, 40) == 4
    assert GreedyRackO().choose(Turn(G, state, 0, random.Random(0))) == TakeDiscard(25)
    to_top(state, "discard", 3)  # band 0: slot 5 already holds 1, in band
    assert GreedyRackO().choose(Turn(G, state, 0, random.Random(0))) == Draw()


@pytest.mark.parametrize("card,wanted", [(17, Place(25)), (3, DiscardHeld())])
def test_greedy_places_drawn_card_only_into_its_band(card: int, wanted: Any) -> None:
    state = two_player_state()
    to_top(state, "draw", card)
    G.apply(state, 0, Draw())
    assert GreedyRackO().choose(Turn(G, state, 0, random.Random(0))) == wanted


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("seed", range(4))
def test_rk5_greedy_rounds_end_and_conserve_cards(players: int, seed: int) -> None:
    """RK-5/RK-6: seeded greedy bots reach Rack-O; every move keeps every card."""
    state = G.deal({"players": players, "bonus": True}, round_rng(seed, players))
    play_round(state, [GreedyRackO() for _ in range(players)], seed, cap=2000)
    result = G.round_result(state)
    assert result.scores[state.racko] >= 75
    for score, part in zip(result.scores, result.detail):
        assert score == 25 * part["racko"] + 5 * ascending_prefix(part["rack"]) + part["bonus"]


def test_greedy_beats_random_over_a_short_match() -> None:
    match = Match(G, ["greedy", "random"], seed=4)
    while not match.over:
        state = match.deal()
        play_round(state, [GreedyRackO(), RandomStrategy()], match.round_no, cap=20000,
                   check=False)
        match.record(G.round_result(state))
    assert match.winners() == [0]


# --- random play property ----------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), players=st.sampled_from([2, 3, 4]), data=st.data())
def test_random_legal_play_keeps_invariants(seed: int, players: int, data: Any) -> None:
    """RK-1..RK-8 under random legal play: cards conserved, ten a rack, refusals change nothing."""
    state = G.deal({"players": players, "bonus": data.draw(st.booleans())},
                   round_rng(seed, 0))
    for _ in range(150):
        assert_conserved(state)
        assert G.state_from_data(G.state_to_data(state)) == state
        if state.over:
            result = G.round_result(state)
            assert result.scores[state.racko] >= 75
            assert_refused(state, state.turn, Draw(), "RK-5")
            break
        seat = state.turn
        legal = G.legal_moves(state, seat)
        assert legal and all(G.legal_moves(state, s) == [] for s in range(players) if s != seat)
        assert_refused(state, (seat + data.draw(st.integers(1, players - 1))) % players,
                       legal[0], "RK-4")
        assert_refused(state, seat, Place(5) if state.held is None else Draw(), "RK-4")
        slot_move = TakeDiscard if state.held is None else Place
        assert_refused(state, seat, slot_move(data.draw(st.sampled_from([0, 3, 55]))), "RK-2")
        prefer_draw = data.draw(st.booleans()) and Draw() in legal
        move = Draw() if prefer_draw else data.draw(st.sampled_from(legal))
        G.apply(state, seat, move)
