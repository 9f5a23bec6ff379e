"""Gin Solitaire: every rule GS-1 … GS-9 of docs/rules.md, the exact meld solver and the bot."""

from __future__ import annotations

import itertools
import json
import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lan_demon.bots.base import RandomStrategy, Turn
from lan_demon.bots.gin import GreedyGin
from lan_demon.games import get_game
from lan_demon.games.base import BadConfig, BadMove, IllegalMove, Match, RoundResult, round_rng
from lan_demon.games.cards import JOKER, Card, full_pack, parse_card
from lan_demon.games.gin_moves import BigGin, Discard, Draw, Knock
from lan_demon.games.gin_solitaire import GinSolitaire
from lan_demon.games.melds import (best_arrangement, best_melds, card_value, deadwood_after_discard,
                                   is_big_gin, min_deadwood)

pytestmark = pytest.mark.timeout(60)

GAME = GinSolitaire()
PACK = full_pack()
DETAIL_KEYS = {"result", "deadwood", "count", "player", "joker"}


def cards(text: str) -> list[Card]:
    return [parse_card(c) for c in text.split()]


def make_state(hand: str, draw_above_joker: str = "", draw_below_joker: str = "",
               phase: str = "discard", players: int = 1):
    """A state with ``hand``, the Draw pile ``below + Joker + above`` (top = last code of
    ``draw_above_joker``) and every other card among the face-down discards (53 in all)."""
    h = cards(hand)
    above, below = cards(draw_above_joker), cards(draw_below_joker)
    draw = below + [JOKER] + above
    used = set(h) | set(above) | set(below)
    assert len(used) == len(h) + len(above) + len(below)
    rest = [c for c in PACK if c not in used]
    seat = {"hand": [c.to_data() for c in h], "draw": [c.to_data() for c in draw],
            "discarded": [c.to_data() for c in rest], "phase": phase, "joker_drawn": False,
            "result": None}
    return GAME.state_from_data({"players": players, "seats": [dict(seat) for _ in range(players)]})


def play_random(state, rng: random.Random, check=None):
    """Random legal moves until the round ends; ``check(state)`` after each move."""
    steps = 0
    while not GAME.round_over(state):
        seat = rng.choice(GAME.to_move(state))
        GAME.apply(state, seat, rng.choice(GAME.legal_moves(state, seat)))
        steps += 1
        if check:
            check(state)
        assert steps < 500
    return steps


def conserved(state) -> None:
    expected = Counter(PACK + [JOKER])
    for seat in state.seats:
        assert Counter(seat.cards()) == expected
    assert len(GAME.cards_in_play(state)) == 53 * len(state.seats)


# --- GS-1: players, sides, values -------------------------------------------------------------

def test_gs1_card_values():
    """GS-1: A = 1, 2–10 as numbered, J Q K = 10 — as deadwood of lone cards."""
    values = [card_value(c) for c in "AS 2H 5D 9C TS JH QD KC".split()]
    assert values == [1, 2, 5, 9, 10, 10, 10, 10]
    for code, value in (("AS", 1), ("7H", 7), ("10D", 10), ("JC", 10), ("QS", 10), ("KH", 10)):
        assert min_deadwood([code]) == value
    assert min_deadwood("AS 5H KD".split()) == 16


def test_gs1_one_player_against_the_joker():
    """GS-1: one player and the Joker are the two sides; the game is found by id."""
    assert get_game("gin-solitaire").id == "gin-solitaire"
    assert GAME.sides(["ann"]) == ["ann", "Joker"]
    m = Match(GAME, ["ann"], seed=1)
    assert m.sides == ["ann", "Joker"] and m.rounds_wanted is None
    with pytest.raises(BadConfig, match="GS-1"):
        Match(GAME, [], seed=1)
    with pytest.raises(BadConfig, match="GS-1"):
        Match(GAME, [f"p{i}" for i in range(9)], seed=1)


# --- GS-2: the deal --------------------------------------------------------------------------

def test_gs2_deal_11_and_a_draw_pile_of_42_with_the_joker():
    """GS-2: 11 cards to the player, the other 41 plus the Joker shuffled into the Draw pile."""
    joker_places = set()
    for seed in range(20):
        state = GAME.deal(GAME.first_setup(1, {}), round_rng(seed, 0))
        seat = state.seats[0]
        assert len(seat.hand) == 11 and JOKER not in seat.hand
        assert len(seat.draw) == 42 and seat.draw.count(JOKER) == 1
        assert seat.discarded == [] and seat.phase == "first-discard"
        assert Counter(seat.hand + seat.draw) == Counter(PACK + [JOKER])
        joker_places.add(seat.draw.index(JOKER))
    assert len(joker_places) > 5  # the Joker is shuffled in, not put in a fixed place


def test_gs2_same_seed_same_deal():
    """GS-2: the deal comes from the seed alone."""
    a = GAME.deal(GAME.first_setup(1, {}), round_rng("x", 3))
    b = GAME.deal(GAME.first_setup(1, {}), round_rng("x", 3))
    c = GAME.deal(GAME.first_setup(1, {}), round_rng("x", 4))
    assert GAME.state_to_data(a) == GAME.state_to_data(b)
    assert GAME.state_to_data(a) != GAME.state_to_data(c)


# --- GS-3: the first discard; the discard pile is never seen -----------------------------------

def test_gs3_first_discard_before_drawing():
    """GS-3: the first move is a discard; drawing, knocking or Big Gin first are refused."""
    state = GAME.deal(GAME.first_setup(1, {}), round_rng(5, 0))
    legal = GAME.legal_moves(state, 0)
    assert all(isinstance(m, Discard) for m in legal) and len(legal) == 11
    before = GAME.state_to_data(state)
    card = state.seats[0].hand[0]
    for move in (Draw(), Knock(card), BigGin()):
        with pytest.raises(IllegalMove) as err:
            GAME.apply(state, 0, move)
        assert err.value.rule == "GS-3"
        assert GAME.state_to_data(state) == before
    events = GAME.apply(state, 0, Discard(card))
    assert events[0]["e"] == "discard" and events[0]["first"] is True
    assert events[0]["private"] == {"card": card.to_data()}
    seat = state.seats[0]
    assert len(seat.hand) == 10 and seat.discarded == [card] and seat.phase == "draw"
    assert GAME.legal_moves(state, 0) == [Draw()]


def test_gs3_discard_pile_and_draw_pile_never_in_any_view():
    """GS-3: a discarded card never shows again (and the Draw pile's cards are never shown)."""
    rng = random.Random(3)
    for seed in range(5):
        state = GAME.deal(GAME.first_setup(2, {}), round_rng(seed, 0))

        def check(st_):
            every_card = {f'"{c.to_data()}"' for c in PACK + [JOKER]}
            spectator = json.dumps(GAME.view(st_, None))
            assert not any(code in spectator for code in every_card)
            for seat_no, seat in enumerate(st_.seats):
                text = json.dumps(GAME.view(st_, seat_no))
                for c in seat.discarded + seat.draw:
                    assert f'"{c.to_data()}"' not in text
                shown = sum(code in text for code in every_card)
                assert shown == len(seat.hand)   # the hand and nothing else
            v = GAME.view(st_, 0)
            assert v["discards"] == len(st_.seats[0].discarded)
            assert v["draw"] == len(st_.seats[0].draw)
            assert "hand" not in GAME.view(st_, None)

        check(state)
        play_random(state, rng, check)


# --- GS-4: a turn ------------------------------------------------------------------------------

def test_gs4_draw_then_discard_or_end():
    """GS-4: draw the top card, then discard; no second draw, no discard before drawing."""
    state = make_state("AS 3D 5H 7C 9S JD KH 2C 4S 6D", "QC 8H", "", phase="draw")
    before = GAME.state_to_data(state)
    with pytest.raises(IllegalMove) as err:
        GAME.apply(state, 0, Discard(parse_card("AS")))
    assert err.value.rule == "GS-4" and GAME.state_to_data(state) == before
    with pytest.raises(IllegalMove) as err:
        GAME.apply(state, 0, Knock(parse_card("AS")))
    assert err.value.rule == "GS-4" and GAME.state_to_data(state) == before
    events = GAME.apply(state, 0, Draw())
    assert events == [{"e": "draw", "seat": 0, "joker": False, "private": {"card": "8H"}}]
    assert parse_card("8H") in state.seats[0].hand and state.seats[0].phase == "discard"
    before = GAME.state_to_data(state)
    with pytest.raises(IllegalMove) as err:
        GAME.apply(state, 0, Draw())
    assert err.value.rule == "GS-4" and GAME.state_to_data(state) == before
    with pytest.raises(IllegalMove) as err:
        GAME.apply(state, 0, Discard(parse_card("QC")))  # not in hand
    assert err.value.rule == "GS-4" and GAME.state_to_data(state) == before
    GAME.apply(state, 0, Discard(parse_card("KH")))
    assert state.seats[0].phase == "draw" and len(state.seats[0].hand) == 10
    assert parse_card("KH") in state.seats[0].discarded


# --- GS-5: melds and the exact solver ----------------------------------------------------------

@pytest.mark.parametrize("hand,deadwood", [
    ("5S 6S 7S", 0),                 # run
    ("AS 2S 3S", 0),                 # aces low
    ("QS KS AS", 21),                # no Q-K-A
    ("KS AS 2S", 13),                # no wrap-around
    ("QS KS AH", 21),                # a king is the end of its suit
    ("JS QS KS AH 2H", 3),
    ("5S 6H 7S", 18),                # one suit only
    ("5S 6S 8S", 19),                # consecutive only
    ("AS 2S 3S 4S 5S 6S 7S 8S 9S TS", 0),  # any length
    ("JS JH JD", 0),                 # set of 3
    ("JS JH JD JC", 0),              # set of 4
    ("JS JH", 20),                   # two of a rank is no meld
    ("7S 8S 9S 7H 7D", 14),          # a card in one meld only: not 0
    ("7S 8S 9S 7H 7D 7C", 0),        # run 7S8S9S and set 7H7D7C, disjoint
    ("4S 5S 6S 7S 7H 7D", 0),        # a run of 4 gives up its end to a set: 4-6S + 7S7H7D
    ("4S 5S 6S 7S 8S 6H 6D", 12),    # 6S in the run (6H 6D left) or the set (4S 5S 7S 8S)
])
def test_gs5_melds(hand, deadwood):
    """GS-5: runs of 3+ in one suit, aces low only; sets of 3 or 4; a card in one meld."""
    assert min_deadwood(hand.split()) == deadwood


def test_gs5_ten_cards_meld_the_most_is_not_least():
    """GS-5: melding the most cards (A-4♠ run + 2-4♥ run, 7 cards) leaves 3C 4D 6C = 13, but two
    sets (3s and 4s, 6 cards) leave AS 2S 2H 6C = 11: the solver finds 11."""
    hand = cards("AS 2S 3S 4S 2H 3H 4H 3C 4D 6C")
    assert min_deadwood(hand) == 11
    melds, dead = best_melds(hand)
    assert sorted(dead) == sorted(cards("AS 2S 2H 6C"))
    assert sorted(map(sorted, melds)) == sorted([sorted(cards("3S 3H 3C")),
                                                 sorted(cards("4S 4H 4D"))])
    assert sum(card_value(c) for c in dead) == 11


def test_gs5_eleven_cards_least_over_every_discard():
    """GS-5, 11 cards: the least over every discard. "Meld the most, drop the highest leftover"
    gives 13 here (runs, leftover 3C 4D 6C 6S, drop a 6); the solver finds 11 (sets)."""
    hand = cards("AS 2S 3S 4S 2H 3H 4H 3C 4D 6C 6S")
    assert min_deadwood(hand) == 11
    a = best_arrangement(hand)
    assert a.points == 11 and a.discard in cards("6C 6S")
    assert a.discard not in a.deadwood and all(a.discard not in m for m in a.melds)
    assert sum(card_value(c) for c in a.deadwood) == 11
    assert len(a.deadwood) + sum(map(len, a.melds)) == 10
    assert min_deadwood(hand) == min(min_deadwood([c for c in hand if c != d]) for d in hand)
    # the best discard may be a melded card: dropping 5S from a 5-card run keeps 3+ melds
    hand = cards("AS 2S 3S 4S 5S 9H 9D 9C KH KD KC")
    assert min_deadwood(hand) == 0
    assert deadwood_after_discard(hand)[parse_card("9H")] == 18   # 9D 9C are left
    assert deadwood_after_discard(hand)[parse_card("5S")] == 0


def test_gs5_solver_accepts_codes_and_cards_and_rejects_bad_hands():
    """GS-5: codes or Cards; at most 11 cards; no duplicates; no Joker."""
    assert min_deadwood(["10D", "JD", "QD"]) == min_deadwood(cards("TD JD QD")) == 0
    assert min_deadwood([]) == 0
    with pytest.raises(ValueError):
        min_deadwood(PACK[:12])
    with pytest.raises(ValueError):
        min_deadwood(["AS", "AS"])
    with pytest.raises(ValueError):
        min_deadwood(["AS", "JK"])


def _all_melds(hand: list[Card]) -> list[frozenset[Card]]:
    """Every meld inside ``hand`` (every run of 3+, every 3- or 4-set), straight from GS-5."""
    have = set(hand)
    out = []
    for suit in "SHDC":
        for lo in range(1, 12):
            for hi in range(lo + 2, 14):
                run = [Card(r, suit) for r in range(lo, hi + 1)]
                if all(c in have for c in run):
                    out.append(frozenset(run))
    for rank in range(1, 14):
        same = [c for c in hand if c.rank == rank]
        for k in (3, 4):
            out.extend(frozenset(s) for s in itertools.combinations(same, k))
    return out


def brute_deadwood(hand: list[Card]) -> int:
    """Least deadwood by trying every subset of pairwise disjoint melds."""
    melds = _all_melds(hand)
    total = sum(card_value(c) for c in hand)
    best = 0

    def walk(i: int, used: frozenset, value: int) -> None:
        nonlocal best
        best = max(best, value)
        for j in range(i, len(melds)):
            if not melds[j] & used:
                walk(j + 1, used | melds[j], value + sum(card_value(c) for c in melds[j]))

    walk(0, frozenset(), 0)
    return total - best


# dense hands (few ranks) make many overlapping melds; sparse hands test the plain cases
hands = st.one_of(
    st.integers(1, 10).flatmap(lambda n: st.lists(st.sampled_from(PACK), min_size=n,
                                                  max_size=n, unique=True)),
    st.integers(1, 9).flatmap(lambda lo: st.lists(
        st.sampled_from([c for c in PACK if lo <= c.rank < lo + 5]),
        min_size=6, max_size=10, unique=True)),
)


@settings(max_examples=150, deadline=None)
@given(hands)
def test_gs5_solver_matches_brute_force(hand):
    """GS-5: the solver equals a brute force over all subsets of melds (≤ 10 cards)."""
    assert min_deadwood(hand) == brute_deadwood(hand)
    a = best_arrangement(hand)
    assert a.points == min_deadwood(hand) and a.discard is None
    assert sorted(a.deadwood + [c for m in a.melds for c in m]) == sorted(hand)
    for m in a.melds:
        assert frozenset(m) in set(_all_melds(hand))


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 8).flatmap(lambda lo: st.lists(
    st.sampled_from([c for c in PACK if lo <= c.rank < lo + 6]),
    min_size=11, max_size=11, unique=True)))
def test_gs5_eleven_card_solver_matches_brute_force(hand):
    """GS-5: with 11 cards, the least over every discard."""
    assert min_deadwood(hand) == min(brute_deadwood([c for c in hand if c != d]) for d in hand)
    assert is_big_gin(hand) == (brute_deadwood(hand) == 0)


# --- GS-6: knock, Gin, Big Gin ---------------------------------------------------------------

def test_gs6_knock_needs_deadwood_10_or_less():
    """GS-6: knock only with deadwood ≤ 10 after the discard; the error says the deadwood."""
    # 2S3S4S and 7H7D7C meld; 9C 9H 5D 4C KD = 37 are left; without KD: 27
    state = make_state("2S 3S 4S 7H 7D 7C 9C 9H 5D 4C KD", "QC QH 8S", "2D")
    legal = GAME.legal_moves(state, 0)
    assert not any(isinstance(m, Knock) for m in legal)
    before = GAME.state_to_data(state)
    with pytest.raises(IllegalMove) as err:
        GAME.apply(state, 0, Knock(parse_card("KD")))
    assert err.value.rule == "GS-6" and "27" in err.value.reason
    assert GAME.state_to_data(state) == before
    # deadwood 10 exactly may knock; 11 may not
    state = make_state("2S 3S 4S 7H 7D 7C 9C 9H 9S 4C 6D", "QC QH 8S")
    knocks = {m.card.code for m in GAME.legal_moves(state, 0) if isinstance(m, Knock)}
    assert knocks == {"4C", "6D"}   # keep 6D: 6 ≤ 10; keep 4C: 4 ≤ 10
    state = make_state("2S 3S 4S 7H 7D 7C 9C 9H 9S AC TD", "QC QH 8S")
    knocks = {m.card.code for m in GAME.legal_moves(state, 0) if isinstance(m, Knock)}
    assert knocks == {"AC", "TD"}   # deadwood 10 (TD kept) is allowed
    state = make_state("2S 3S 4S 7H 7D 7C AC 2H 3D 5C KD", "QC QH 8S")
    assert min_deadwood(state.seats[0].hand) == 11   # AC 2H 3D 5C once KD goes
    assert not any(isinstance(m, Knock) for m in GAME.legal_moves(state, 0))
    with pytest.raises(IllegalMove, match="GS-6") as err:
        GAME.apply(state, 0, Knock(parse_card("KD")))
    assert "deadwood is 11" in err.value.reason


def test_gs6_knock_only_after_a_draw_with_ten_left():
    """GS-6 with GS-4: a knock is the end of a turn, after the draw (never in the draw phase)."""
    state = make_state("2S 3S 4S 7H 7D 7C 9C 9H 9S AC", "QC", phase="draw")
    assert GAME.legal_moves(state, 0) == [Draw()]
    with pytest.raises(IllegalMove, match="GS-4"):
        GAME.apply(state, 0, Knock(parse_card("AC")))


def test_gs6_gin_and_big_gin():
    """GS-6: 10 melded after the discard is Gin; 11 melded after a draw is Big Gin."""
    state = make_state("2S 3S 4S 5S 7H 7D 7C 9C 9H 9S KD", "QC QH")
    legal = GAME.legal_moves(state, 0)
    assert Knock(parse_card("KD")) in legal and BigGin() not in legal
    before = GAME.state_to_data(state)
    with pytest.raises(IllegalMove) as err:
        GAME.apply(state, 0, BigGin())
    assert err.value.rule == "GS-6" and GAME.state_to_data(state) == before
    GAME.apply(state, 0, Knock(parse_card("KD")))
    assert state.seats[0].result["result"] == "gin"

    state = make_state("2S 3S 4S 5S 7H 7D 7C 9C 9H 9S 9D", "QC QH")
    assert is_big_gin(state.seats[0].hand)
    assert BigGin() in GAME.legal_moves(state, 0)
    events = GAME.apply(state, 0, BigGin())
    seat = state.seats[0]
    assert len(seat.hand) == 11 and seat.result["result"] == "big-gin"   # no discard
    assert [e["e"] for e in events] == ["big-gin", "seat-over", "round-over"]


# --- GS-7: scoring ---------------------------------------------------------------------------

def finish(state):
    result = GAME.round_result(state)
    for i, d in enumerate(result.detail[:len(state.seats)]):
        assert set(d) == DETAIL_KEYS
        assert result.scores[i] == d["player"]
        assert result.scores[i + len(state.seats)] == d["joker"]
    assert all(d == {} for d in result.detail[len(state.seats):])
    return result


def test_gs7_knock_scores_count_minus_deadwood():
    """GS-7: knock with C ≥ deadwood: the player scores C − deadwood."""
    # after knocking KD: deadwood AC = 1; 7 cards above the Joker
    state = make_state("2S 3S 4S 7H 7D 7C 9C 9H 9S AC KD", "2D 3D 4D 5D 6D 8D TD", "JD")
    GAME.apply(state, 0, Knock(parse_card("KD")))
    r = finish(state)
    assert r.scores == [6, 0]
    assert r.detail[0] == {"result": "knock", "deadwood": 1, "count": 7, "player": 6, "joker": 0}


def test_gs7_set_by_the_joker_rule_book_example():
    """GS-7: deadwood 9, C = 2 → the Joker scores 25 + 7 = 32."""
    state = make_state("2S 3S 4S 7H 7D 7C TC TH TS 9D KD", "2D 3D", "JD QD")
    GAME.apply(state, 0, Knock(parse_card("KD")))
    r = finish(state)
    assert r.detail[0] == {"result": "knock", "deadwood": 9, "count": 2, "player": 0,
                           "joker": 32}
    assert r.scores == [0, 32]
    # C = deadwood is no set: 0 points to the player
    state = make_state("2S 3S 4S 7H 7D 7C TC TH TS 2C KD", "2D 3D", "JD QD")
    GAME.apply(state, 0, Knock(parse_card("KD")))
    assert finish(state).scores == [0, 0]


def test_gs7_gin_scores_25_plus_count():
    """GS-7: Gin: 25 + C."""
    state = make_state("2S 3S 4S 5S 7H 7D 7C 9C 9H 9S KD", "2D 3D 4D")
    GAME.apply(state, 0, Knock(parse_card("KD")))
    r = finish(state)
    assert r.detail[0] == {"result": "gin", "deadwood": 0, "count": 3, "player": 28, "joker": 0}
    assert r.scores == [28, 0]


def test_gs7_big_gin_scores_31_plus_count():
    """GS-7: Big Gin: 31 + C (C = 0 when the Joker is on top)."""
    state = make_state("2S 3S 4S 5S 7H 7D 7C 9C 9H 9S 9D", "", "QC QH")
    GAME.apply(state, 0, BigGin())
    r = finish(state)
    assert r.detail[0] == {"result": "big-gin", "deadwood": 0, "count": 0, "player": 31,
                           "joker": 0}


def test_gs7_drawing_the_joker_ends_the_round_for_the_joker():
    """GS-7: drawing the Joker ends the round at once; the Joker scores the 10 cards' deadwood."""
    state = make_state("2S 3S 4S 7H 7D 7C 9C 9H 5D KC", "", "QC QH", phase="draw")
    events = GAME.apply(state, 0, Draw())
    assert GAME.round_over(state) and GAME.to_move(state) == []
    assert GAME.legal_moves(state, 0) == []
    assert events[0] == {"e": "draw", "seat": 0, "joker": True, "private": {"card": "JK"}}
    r = finish(state)
    assert r.detail[0] == {"result": "joker", "deadwood": 33, "count": 0, "player": 0,
                           "joker": 33}
    assert r.scores == [0, 33]
    conserved(state)
    before = GAME.state_to_data(state)
    with pytest.raises(IllegalMove) as err:
        GAME.apply(state, 0, Discard(parse_card("KC")))
    assert err.value.rule == "GS-4" and GAME.state_to_data(state) == before


# --- GS-8: the match ---------------------------------------------------------------------------

def play_match(players: list[str], seed, strategy=None) -> Match:
    strategy = strategy or GreedyGin()
    m = Match(GAME, players, seed)
    rng = random.Random(str(seed))
    while not m.over:
        state = m.deal()
        while not GAME.round_over(state):
            for seat in GAME.to_move(state):
                GAME.apply(state, seat, strategy.choose(Turn(GAME, state, seat, rng)))
        m.record(GAME.round_result(state))
        assert len(m.rounds) < 200
    return m


def test_gs8_match_to_100():
    """GS-8: rounds go on until a side reaches 100; that side wins."""
    outcomes = set()
    for seed in range(12):
        m = play_match(["ann"], seed)
        totals = m.totals
        assert max(totals) >= 100
        before = [sum(r.scores[i] for r in m.rounds[:-1]) for i in range(2)]
        assert max(before) < 100                      # not one round too many
        assert m.winners() == [0 if totals[0] >= 100 else 1]
        outcomes.add(m.winners()[0])
        assert m.result_data()["winner"] == [m.sides[m.winners()[0]]]
    assert outcomes == {0, 1}


def test_gs8_first_to_100_wins_with_record():
    """GS-8: the player wins if they reach 100 before the Joker does."""
    m = Match(GAME, ["ann"], seed=0)
    for scores in ([0, 60], [50, 0], [0, 39]):
        m.record(RoundResult(scores, [{}, {}]))
        assert not m.over
    m.record(RoundResult([0, 1], [{}, {}]))
    assert m.over and m.winners() == [1]
    m = Match(GAME, ["ann"], seed=0)
    for scores in ([0, 99], [60, 0], [40, 0]):
        m.record(RoundResult(scores, [{}, {}]))
    assert m.over and m.winners() == [0]


def test_gs8_no_moves_after_a_match_ends_for_a_seat():
    """GS-8: a seat whose match is over sits out (duplicate mode); its moves are refused."""
    m = Match(GAME, ["ann", "bob"], seed=0)
    m.record(RoundResult([100, 0, 0, 0], [{}, {}, {}, {}]))
    assert not m.over and m.setup["sat_out"] == [0]
    state = m.deal()
    assert GAME.to_move(state) == [1]
    before = GAME.state_to_data(state)
    with pytest.raises(IllegalMove) as err:
        GAME.apply(state, 0, Discard(state.seats[0].hand[0]))
    assert err.value.rule == "GS-8" and GAME.state_to_data(state) == before
    play_random(state, random.Random(1))
    r = GAME.round_result(state)
    assert r.detail[0] == {"result": "sat-out", "deadwood": 0, "count": 0, "player": 0,
                           "joker": 0}
    assert r.scores[0] == r.scores[2] == 0
    m.record(r)
    while not m.over:
        m.record(RoundResult([0, 0, 0, 100], [{}, {}, {}, {}]))
    assert m.winners() == [0]   # ann beat her Joker; bob's Joker beat bob


# --- GS-9: duplicate ---------------------------------------------------------------------------

def test_gs9_duplicate_identical_deals_played_independently():
    """GS-9: every seat gets the same deal and plays it alone against its own Joker."""
    names = ["ann", "bob", "cy"]
    assert GAME.sides(names) == names + ["Joker (ann)", "Joker (bob)", "Joker (cy)"]
    state = GAME.deal(GAME.first_setup(3, {}), round_rng(9, 0))
    data = GAME.state_to_data(state)["seats"]
    assert data[0] == data[1] == data[2]
    assert sorted(GAME.to_move(state)) == [0, 1, 2]
    # a move by one seat leaves the others' deals alone
    GAME.apply(state, 1, Discard(state.seats[1].hand[0]))
    after = GAME.state_to_data(state)["seats"]
    assert after[0] == after[2] == data[0] and after[1] != data[1]
    # a seat's view never shows another seat's progress while it still plays
    assert "seats" not in GAME.view(state, 0)
    conserved(state)
    # the same play on the same deal → the same result (seats 0 and 2 play alike; seat 1
    # started differently)
    greedy = GreedyGin()
    while not GAME.round_over(state):
        for seat in GAME.to_move(state):
            GAME.apply(state, seat, greedy.choose(Turn(GAME, state, seat, random.Random(0))))
        if not GAME.round_over(state) and state.seats[1].done:
            assert "seats" in GAME.view(state, 1) and "seats" not in GAME.view(state, 0)
    r = GAME.round_result(state)
    assert len(r.scores) == 6 and r.detail[0] == r.detail[2]
    assert r.scores == [d["player"] for d in r.detail[:3]] + [d["joker"] for d in r.detail[:3]]
    assert r.detail[3:] == [{}, {}, {}]


def test_gs9_duplicate_is_the_default_and_independent_deals_each_seat_its_own():
    """GS-9: ``deals`` defaults to duplicate (every seat a copy of one deal); independent deals
    every seat a full pack of its own — a seat sitting out too, so seat 2's cards do not depend
    on seat 1 sitting out — and stays independent for the whole match."""
    assert GAME.default_options() == {"deals": "duplicate"}
    assert Match(GAME, ["a", "b"], 1).setup == {"players": 2, "sat_out": [], "deals": "duplicate"}
    match = Match(GAME, ["a", "b", "c"], 1, {"deals": "independent"})
    assert match.setup["deals"] == "independent"
    state = match.deal()
    seats = GAME.state_to_data(state)["seats"]
    assert len({tuple(s["hand"]) for s in seats}) == 3
    assert len({tuple(s["draw"]) for s in seats}) == 3
    for s in state.seats:
        assert Counter(s.hand + s.draw) == Counter(PACK + [JOKER]) and len(s.hand) == 11
    resting = GAME.deal({"players": 3, "sat_out": [1], "deals": "independent"},
                        round_rng(1, 0))
    assert GAME.state_to_data(resting)["seats"][2] == seats[2]
    assert resting.seats[1].result["result"] == "sat-out"
    match.record(RoundResult([100, 0, 0, 0, 0, 0], [{}] * 6))
    assert match.setup == {"players": 3, "sat_out": [0], "deals": "independent"}
    # a set-up from before the option (an old journal) deals as duplicate did
    old = GAME.deal({"players": 2, "sat_out": []}, round_rng(1, 0))
    assert GAME.state_to_data(old) == GAME.state_to_data(Match(GAME, ["a", "b"], 1).deal())


@pytest.mark.parametrize("bad", ["shared", "", 1])
def test_gs9_an_unknown_deals_value_is_refused_in_one_line(bad):
    with pytest.raises(BadConfig, match="GS-9: deals are 'duplicate' or 'independent'"):
        Match(GAME, ["a", "b"], 1, {"deals": bad})
    with pytest.raises(BadConfig, match="GS-9: deals are"):
        GAME.deal({"players": 2, "sat_out": [], "deals": bad}, round_rng(1, 0))


def test_gs9_duplicate_match_winners():
    """GS-9: the players who beat their Joker win; if none, the Jokers that won."""
    m = play_match(["ann", "bob"], "dup-1", RandomStrategy())
    assert m.over and m.winners() == [2, 3]   # random play never beats the Joker
    m = Match(GAME, ["ann", "bob"], seed=0)
    m.record(RoundResult([100, 0, 0, 0], [{}] * 4))
    m.record(RoundResult([0, 0, 0, 100], [{}] * 4))
    assert m.over and m.winners() == [0]


# --- moves as text and data; illegal moves leave the state alone ---------------------------------

def test_parse_move_and_move_data():
    """The text and wire forms of every move (GS-3, GS-4, GS-6)."""
    assert GAME.parse_move("discard QS") == Discard(parse_card("QS"))
    assert GAME.parse_move("  Discard 10d ") == Discard(parse_card("TD"))
    assert GAME.parse_move("draw") == Draw()
    assert GAME.parse_move("knock 7H") == Knock(parse_card("7H"))
    assert GAME.parse_move("big-gin") == GAME.parse_move("big gin") == BigGin()
    for move in (Discard(parse_card("QS")), Draw(), Knock(parse_card("AC")), BigGin()):
        assert GAME.move_from_data(move.to_data()) == move
        assert GAME.parse_move(str(move)) == move
        json.dumps(move.to_data())
    for bad in ("", "discard", "discard XX", "discard QS 7H", "draw 3", "fly", "knock JK"):
        with pytest.raises(BadMove):
            GAME.parse_move(bad)
    for bad in ({}, {"t": "fly"}, {"t": "discard"}, {"t": "discard", "card": "ZZ"},
                {"t": "draw", "card": "QS"}, {"t": "knock", "card": 5}, 7):
        with pytest.raises(BadMove):
            GAME.move_from_data(bad)


@pytest.mark.parametrize("phase,move,rule", [
    ("first-discard", Draw(), "GS-3"),
    ("first-discard", Discard(parse_card("KS")), "GS-3"),      # not in hand
    ("first-discard", BigGin(), "GS-3"),
    ("draw", Discard(parse_card("2S")), "GS-4"),
    ("draw", BigGin(), "GS-4"),
    ("discard", Draw(), "GS-4"),
    ("discard", Discard(parse_card("KS")), "GS-4"),
    ("discard", Knock(parse_card("KS")), "GS-4"),
    ("discard", Knock(parse_card("2S")), "GS-6"),
    ("discard", BigGin(), "GS-6"),
])
def test_illegal_moves_name_the_rule_and_change_nothing(phase, move, rule):
    """Illegal moves raise IllegalMove with the rule id and leave the state exactly as it was."""
    hand = "2S 3S 4S 7H 7D 7C 9C 9H 5D 6C" + (" QD" if phase != "draw" else "")
    state = make_state(hand, "JH QH", "2D", phase=phase)
    before = GAME.state_to_data(state)
    with pytest.raises(IllegalMove) as err:
        GAME.apply(state, 0, move)
    assert err.value.rule == rule
    assert err.value.to_data()["rule"] == rule
    assert GAME.state_to_data(state) == before


def test_state_data_round_trip_and_view():
    """States convert to plain data and back; the view carries sizes, not hidden cards."""
    state = GAME.deal(GAME.first_setup(2, {}), round_rng(4, 0))
    GAME.apply(state, 0, Discard(state.seats[0].hand[3]))
    data = GAME.state_to_data(state)
    json.dumps(data)
    assert GAME.state_to_data(GAME.state_from_data(data)) == data
    assert GAME.state_to_data(GAME.copy_state(state)) == data
    v = GAME.view(state, 0)
    json.dumps(v)
    assert v["hand"] == sorted(v["hand"], key=parse_card) and len(v["hand"]) == 10
    assert v["phase"] == "draw" and v["draw"] == 42 and v["discards"] == 1
    assert v["deadwood"] == min_deadwood(v["hand"]) and v["round_over"] is False
    spectator = GAME.view(state, None)
    assert [s["phase"] for s in spectator["seats"]] == ["draw", "first-discard"]


# --- whole rounds: a property test --------------------------------------------------------------

@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**9), players=st.integers(1, 3), play_seed=st.integers(0, 10**6))
def test_random_play_ends_conserves_cards_and_replays(seed, players, play_seed):
    """GS-2/GS-7/GS-9: random legal play always ends (the Joker is in the pile); 53 cards per
    seat after every move; the same seeds replay the same round."""
    def run():
        state = GAME.deal(GAME.first_setup(players, {}), round_rng(seed, 0))
        conserved(state)
        log = []
        rng = random.Random(play_seed)
        while not GAME.round_over(state):
            seat = rng.choice(GAME.to_move(state))
            move = rng.choice(GAME.legal_moves(state, seat))
            log.append((seat, move.to_data(), GAME.apply(state, seat, move)))
            conserved(state)
        return log, GAME.round_result(state)

    log1, result1 = run()
    log2, result2 = run()
    assert log1 == log2 and result1 == result2
    n = players
    assert len(result1.scores) == 2 * n
    for i in range(n):
        d = result1.detail[i]
        assert set(d) == DETAIL_KEYS and d["result"] in ("knock", "gin", "big-gin", "joker")
        assert result1.scores[i] == d["player"] and result1.scores[n + i] == d["joker"]
        assert d["player"] == 0 or d["joker"] == 0


# --- the greedy bot --------------------------------------------------------------------------

def test_greedy_bot_knocks_big_gins_and_discards_well():
    """The greedy bot takes Big Gin, knocks when allowed, and drops the card that costs most."""
    bot = GreedyGin()
    rng = random.Random(0)
    state = make_state("2S 3S 4S 5S 7H 7D 7C 9C 9H 9S 9D", "QC QH")
    assert bot.choose(Turn(GAME, state, 0, rng)) == BigGin()
    state = make_state("2S 3S 4S 7H 7D 7C 9C 9H 9S AC KD", "QC QH")
    assert bot.choose(Turn(GAME, state, 0, rng)) == Knock(parse_card("KD"))
    state = make_state("2S 3S 4S 7H 7D 8C 9C JH 9S AC KD", "QC QH")
    move = bot.choose(Turn(GAME, state, 0, rng))
    assert isinstance(move, Discard) and move.card.code in ("KD", "JH")
    state = make_state("2S 3S 4S 7H 7D 8C 9C JH 9S AC KD", "QC QH", phase="first-discard")
    move = bot.choose(Turn(GAME, state, 0, rng))
    assert isinstance(move, Discard) and move.card.code in ("KD", "JH")
    state = make_state("2S 3S 4S 7H 7D 8C 9C JH 9S AC", "QC QH", phase="draw")
    assert bot.choose(Turn(GAME, state, 0, rng)) == Draw()


def test_greedy_bot_beats_random():
    """The greedy bot's matches go better than random play's."""
    greedy = sum(m.totals[0] - m.totals[1] for m in (play_match(["g"], s) for s in range(4)))
    rand = sum(m.totals[0] - m.totals[1]
               for m in (play_match(["r"], s, RandomStrategy()) for s in range(4)))
    assert greedy > rand
