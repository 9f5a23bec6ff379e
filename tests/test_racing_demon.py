"""Racing Demon rules, one test (at least) per rule id of docs/rules.md (RD-1 … RD-17,
RG-1 … RG-7)."""

from __future__ import annotations

import random

import pytest

from lan_demon.games import TABLE, BadConfig, BadMove, IllegalMove, Match, RoundResult, get_game
from lan_demon.games.demon_moves import CallOut, Play, Timeout, TurnPack, VoteStuck
from lan_demon.games.demon_table import DemonState
from lan_demon.games.racing_demon import NOWHERE, RacingDemon
from hand_tables import RD, RG, c, cs, seat, table

pytestmark = pytest.mark.timeout(60)


def refused(game: RacingDemon, state: DemonState, seat_no: int, move, rule: str) -> IllegalMove:
    """Apply a move that must be refused under ``rule``; check the state did not change."""
    before = game.state_to_data(state)
    with pytest.raises(IllegalMove) as err:
        game.apply(state, seat_no, move)
    assert err.value.rule == rule, str(err.value)
    assert rule in str(err.value)
    assert game.state_to_data(state) == before
    return err.value


def deal(game=RD, players=4, seed=1, sizes=None):
    setup = {"pile_sizes": sizes or [game.base_pile] * players, "handicap": True}
    return game.deal(setup, random.Random(seed))


# --- RD-1 … RD-4: players, packs, deal, Go --------------------------------------------------------


def test_rd1_any_number_of_players_from_one():
    assert RD.min_players == 1
    for n in (1, 2, 20, 50):
        RD.check_players(n)
        state = deal(players=n)
        assert RD.to_move(state) == list(range(n))  # everybody plays at once, no turns
    with pytest.raises(BadConfig, match="RD-1"):
        RD.check_players(0)


def test_rd2_every_player_has_a_whole_pack_of_their_own():
    state = deal(players=3)
    cards = RD.cards_in_play(state)
    assert len(cards) == 3 * 52
    for owner in range(3):
        own = [x for x in cards if x.owner == owner]
        assert len(set(own)) == 52


def test_rd3_deal_pile_then_line_of_four_then_pack():
    state = deal(players=2, sizes=[13, 15])
    for s, size in zip(state.seats, (13, 15)):
        assert len(s.pile) == size and s.pile_size == size
        assert [len(col) for col in s.columns] == [1, 1, 1, 1]
        assert len(s.pack) == 52 - size - 4 and s.waste == []
    # The Pile's cards under the top are hidden from everyone, the owner included.
    view = RD.view(state, 0)
    me = view["players"][0]
    assert me["pile_top"] == state.seats[0].pile[-1].to_data() and me["pile"] == 13
    text = repr(view)
    for hidden in state.seats[0].pile[:-1] + state.seats[0].pack:
        assert f"'{hidden.to_data()}'" not in text


def test_rd4_everybody_may_move_from_go():
    state = deal(players=5)
    assert RD.to_move(state) == [0, 1, 2, 3, 4]
    assert all(RD.legal_moves(state, i) for i in range(5))


# --- RD-5 / RD-6: stacks and Kings -----------------------------------------------------------------


def test_rd5_an_ace_founds_a_stack_that_builds_up_in_suit():
    state = table(seat(pile="5C AH", columns=("2H", "2S", "9D", "9C")))
    events = RD.apply(state, 0, Play("pile", "middle"))
    assert events[0]["to"] == "s1" and state.stacks[1].cards == [c("AH")]
    refused(RD, state, 0, Play("c2", "s1"), "RD-5")  # 2♠ on A♥: wrong suit
    RD.apply(state, 0, Play("c1", "s1"))
    assert state.stacks[1].cards == cs("AH 2H")


def test_rd5_anyone_may_play_on_anyone_s_stack():
    state = table(seat(pile="5C AH"), seat(pile="5C 9S", columns=("2H", "8S", "8D", "8C"),
                                           owner=1))
    RD.apply(state, 0, Play("pile", "middle"))
    RD.apply(state, 1, Play("c1", "middle"))  # "middle" finds the stack that takes 2♥
    assert state.stacks[1].cards == [c("AH"), c("2H", 1)]


def test_rd5_an_ace_cannot_go_on_a_stack_and_nothing_fits_nowhere():
    state = table(seat(pile="5C AH", columns=("3H", "2S", "9D", "9C")))
    refused(RD, state, 0, Play("c1", "middle"), "RD-5")
    RD.apply(state, 0, Play("pile", "middle"))
    state.seats[0].pile.append(c("AD"))
    refused(RD, state, 0, Play("pile", "s1"), "RD-5")
    refused(RD, state, 0, Play("c2", "s9"), "RD-5")


def test_rd6_the_king_claims_the_stack():
    stack = cs("AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH", owner=1)
    state = table(seat(pile="5C 4C", columns=("KH", "8S", "8D", "8C")),
                  seat(pile="5C", owner=1), stacks=[stack])
    events = RD.apply(state, 0, Play("c1", "s1"))
    assert {"e": "king", "seat": 0, "stack": 1} in events
    assert state.stacks == {} and state.seats[0].kings == 1
    # The claimed cards still count for their owners (RD-14).
    assert state.seats[1].stacked == 0 and state.seats[0].stacked == 1
    result = RD.round_result(state)
    assert result.detail[0]["kings"] == 1
    # A late card for a claimed stack is told who was first (RD-11).
    state.seats[1].columns[0] = [c("KH", 1)]
    refused(RD, state, 1, Play("c1", "s1"), "RD-11")


# --- RD-7 / RD-8: laddering and refilling ------------------------------------------------------------


def test_rd7_columns_build_down_alternating_colour():
    state = table(seat(pile="5C 6D", columns=("7S", "6S", "9D", "9C")))
    refused(RD, state, 0, Play("c2", "c1"), "RD-7")  # black on black
    RD.apply(state, 0, Play("pile", "c1"))  # red 6 on black 7
    assert state.seats[0].columns[0] == cs("7S 6D")
    refused(RD, state, 0, Play("c3", "c1"), "RD-7")  # 9 on 6: wrong rank


def test_rd7_a_correct_run_moves_between_columns():
    state = table(seat(pile="5C 4C 3C", columns=("8H 7S 6H", "9S", "9D", "TC"), waste="5S"))
    refused(RD, state, 0, Play("c1", "c4", 3), "RD-7")  # 8♥ needs a black 9, 10♣ is a 10
    RD.apply(state, 0, Play("c1", "c2", 3))  # 8♥7♠6♥ onto 9♠
    assert state.seats[0].columns[1] == cs("9S 8H 7S 6H")
    RD.apply(state, 0, Play("waste", "c2"))  # the waste top ladders too
    assert state.seats[0].columns[1][-1] == c("5S")
    refused(RD, state, 0, Play("c2", "c2"), "RD-7")


def test_rd7_legal_moves_list_every_ladder_and_only_those():
    state = table(seat(pile="5C 6D", columns=("8H 7S", "9S", "8C", "TC"), waste="7H"))
    ladders = {str(m) for m in RD.legal_moves(state, 0)
               if isinstance(m, Play) and m.target.startswith("c")}
    assert ladders == {"c1:2 c2", "waste c3", "pile c1"}


def test_rd8_an_emptied_column_is_refilled_from_the_pile():
    state = table(seat(pile="5C 4C JD", columns=("AH", "9S", "9D", "9C")))
    events = RD.apply(state, 0, Play("c1", "middle"))
    assert state.seats[0].columns[0] == cs("JD")
    assert len(state.seats[0].pile) == 2
    assert any(e["e"] == "refill" and e["card"] == "JD@0" for e in events)
    # A whole column moved onto another column is refilled too.
    state = table(seat(pile="5C 4C JD", columns=("8H", "9S", "9D", "9C")))
    RD.apply(state, 0, Play("c1", "c2", 1))
    assert state.seats[0].columns[0] == cs("JD")


# --- RD-9 / RD-10: the Pack and what may be touched ------------------------------------------------


def test_rd9_the_pack_turns_three_at_a_time_then_recycles_unshuffled():
    # Pack written bottom to top: 7C is the top card. Seat 1 keeps the table from being stuck.
    state = table(seat(pack="2D 3D 4D 5C 6C 7C"), seat(pack="2S 3S", owner=1))
    RD.apply(state, 0, TurnPack())
    me = state.seats[0]
    assert me.waste == cs("7C 6C 5C") and me.pack == cs("2D 3D 4D")  # 5♣ on top of the waste
    RD.apply(state, 0, TurnPack())
    assert me.waste[-1] == c("2D") and me.pack == []
    RD.apply(state, 0, TurnPack())  # Pack used up: the waste is turned over and turned again
    assert me.waste == cs("7C 6C 5C") and me.pack == cs("2D 3D 4D")


def test_rd9_fewer_than_three_turns_those_and_an_empty_stock_cannot_turn():
    state = table(seat(pack="2D 3D 4D 5C"), seat(pack="2S 3S", owner=1))
    RD.apply(state, 0, TurnPack())
    RD.apply(state, 0, TurnPack())
    assert state.seats[0].waste[-1] == c("2D") and len(state.seats[0].waste) == 4
    empty = table(seat(pack=""))
    refused(RD, empty, 0, TurnPack(), "RD-9")
    refused(RD, empty, 0, Play("waste", "middle"), "RD-9")


def test_rd10_only_top_cards_may_be_played():
    state = table(seat(pile="AH 5C", columns=("AS 9D", "9S", "9D", "9C"), waste="AD 4C"))
    refused(RD, state, 0, Play("c1", "c2", 3), "RD-10")  # column 1 holds two cards
    refused(RD, state, 0, Play("pile", "c1", 2), "RD-10")
    refused(RD, state, 0, Play("waste", "c1", 2), "RD-10")
    refused(RD, state, 0, Play("c1", "middle", 2), "RD-10")  # a run never goes to a stack
    moves = RD.legal_moves(state, 0)
    assert not any(isinstance(m, Play) and m.target == "middle" for m in moves)  # aces buried


def test_rd10_a_player_cannot_touch_another_player_s_cards():
    state = table(seat(pile="5C AH"), seat(pile="5C 9S", owner=1))
    # Seat 1 naming "pile" plays its own Pile: the A♥ of seat 0 cannot be reached at all.
    refused(RD, state, 1, Play("pile", "middle"), "RD-5")
    assert state.seats[0].pile[-1] == c("AH")


# --- RD-11 / RD-12: simultaneous plays and OUT --------------------------------------------------------


def test_rd11_the_second_card_to_the_same_place_goes_back():
    state = table(seat(pile="5C 9S", columns=("2H", "8S", "8D", "8C")),
                  seat(pile="5C 9S", columns=("2H", "8S", "8D", "8C"), owner=1),
                  stacks=[cs("AH")])
    RD.apply(state, 1, Play("c1", "s1"))  # seat 1's move arrived first
    err = refused(RD, state, 0, Play("c1", "s1"), "RD-11")
    assert "seat 1" in err.reason  # the beaten player is told who was first
    assert state.seats[0].columns[0] == cs("2H")  # and loses nothing


def test_rd12_out_when_the_pile_empties():
    state = table(seat(pile="8H", columns=("4D", "9S", "9D", "9C")),
                  seat(pile="5C 4H", columns=("AS", "9S", "9D", "9C"), owner=1))
    refused(RD, state, 0, CallOut(), "RD-12")  # one card left: not out yet
    events = RD.apply(state, 0, Play("pile", "c2"))  # 8♥ on 9♠ empties the Pile
    assert {"e": "out", "seat": 0} in events
    assert state.over and state.seats[0].out and RD.to_move(state) == []
    refused(RD, state, 1, Play("c1", "middle"), "RD-12")  # nothing after OUT
    refused(RD, state, 1, TurnPack(), "RD-12")
    refused(RD, state, 0, CallOut(), "RD-12")  # a second OUT
    refused(RD, state, 1, CallOut(), "RD-12")
    assert RD.legal_moves(state, 1) == []


# --- RD-13: everyone stuck ---------------------------------------------------------------------------


def test_rd13_votes_from_everyone_rotate_every_pack():
    state = table(seat(pack="2D 3D 4D 5C", waste="6C 7C"),
                  seat(pack="2S 3S", owner=1))
    RD.apply(state, 0, VoteStuck())
    refused(RD, state, 0, VoteStuck(), "RD-13")
    events = RD.apply(state, 1, VoteStuck())
    assert events[-1] == {"e": "rotate", "why": "stuck", "n": 1}
    # waste under the Pack face down, then the Pack's top card to its bottom
    assert state.seats[0].pack == cs("5C 7C 6C 2D 3D 4D")
    assert state.seats[0].waste == []
    assert state.seats[1].pack == cs("3S 2S", owner=1)
    assert not state.seats[0].voted


def test_rd13_turning_through_the_whole_pack_counts_as_stuck():
    state = table(seat(pack="2D 3D 4D 5C"), seat(pack="", owner=1))  # seat 1 has no Pack
    RD.apply(state, 0, TurnPack())
    assert state.rotations == 0
    events = RD.apply(state, 0, TurnPack())  # all four cards turned: seat 0 went through
    assert events[-1]["e"] == "rotate"


def test_rd13_a_play_resets_the_count_and_three_rotations_end_the_round():
    state = table(seat(pile="5C 4C", columns=("9H", "8D", "9D", "9C"), pack="2D"),
                  seat(pile="5C", pack="", owner=1))
    RD.apply(state, TABLE, Timeout())  # 60 seconds without a play
    RD.apply(state, TABLE, Timeout())
    assert state.rotations == 2
    RD.apply(state, 0, Play("c2", "c4"))  # 8♦ on 9♣: a play — the count starts again
    assert state.rotations == 0
    for _ in range(2):
        RD.apply(state, TABLE, Timeout())
    assert not state.over
    events = RD.apply(state, TABLE, Timeout())
    assert state.over and state.ended == "stuck" and events[-1] == {"e": "stuck_end"}
    assert not any(s.out for s in state.seats)  # nobody out
    refused(RD, state, 0, TurnPack(), "RD-13")


def test_rd13_only_the_table_calls_the_timeout():
    state = table(seat())
    refused(RD, state, 0, Timeout(), "RD-13")


# --- RD-14 … RD-17: scoring, handicaps, a Pile of 0, the match ---------------------------------------


def test_rd14_round_score_adds_stacked_kings_out_and_pile_left():
    state = table(seat(pile="5C 4C 3C"), seat(pile="", owner=1))
    state.seats[0].stacked, state.seats[0].kings = 7, 1
    state.seats[1].stacked, state.seats[1].out = 4, True
    result = RD.round_result(state)
    assert result.scores == [7 + 5 - 3, 4 + 10]
    assert result.detail[0] == {"pile_size": 13, "stacked": 7, "kings": 1, "out": False,
                                "pile_left": 3}


def _match(game, scores_by_round, players=4):
    match = Match(game, [f"p{i}" for i in range(players)], seed=0, rounds_wanted=10)
    for scores in scores_by_round:
        match.record(RoundResult(scores, [{}] * players))
    return match


def test_rd15_handicaps_follow_game_and_overall_standings():
    match = _match(RD, [[20, 5, -3, 5]])
    assert match.setup["pile_sizes"] == [14, 13, 12, 13]  # after game 1: top +1, lowest −1
    match.record(RoundResult([0, 30, 1, -2], [{}] * 4))
    # totals 20 35 -2 3: game top p1 (+1), leader p1 (+1), game lowest p3 (−1), last p2 (−1)
    assert match.setup["pile_sizes"] == [14, 15, 11, 12]


def test_rd15_ties_share_and_piles_stay_between_0_and_48():
    match = _match(RD, [[5, 5, 0, 0]])
    assert match.setup["pile_sizes"] == [14, 14, 12, 12]
    low = _match(RD, [[0, 9]] + [[0, 9]] * 30, players=2)
    assert low.setup["pile_sizes"] == [0, 48]
    off = Match(RD, ["a", "b"], 0, {"handicap": False})
    off.record(RoundResult([9, 0], [{}, {}]))
    assert off.setup["pile_sizes"] == [13, 13]


def test_rd16_a_pile_of_zero_is_out_at_go():
    """RD-16: a Pile of 0 says Go then Out — out at once with +10, everyone else loses their
    whole Pile; several such players are all out."""
    state = deal(players=3, sizes=[0, 13, 0])
    assert state.over and state.seats[0].out and state.seats[2].out and not state.seats[1].out
    result = RD.round_result(state)
    assert result.scores == [10, -13, 10]  # everyone else loses their whole Pile


def test_rd17_a_match_runs_the_rounds_the_host_set_and_highest_total_wins():
    match = _match(RD, [[1, 2, 3, 4], [4, 3, 2, 2]])
    assert match.totals == [5, 5, 5, 6] and match.winners() == [3]
    assert not RD.match_over(match)
    short = Match(RD, ["a", "b"], 0, rounds_wanted=1)
    short.record(RoundResult([3, 3], [{}, {}]))
    assert short.over and short.winners() == [0, 1]  # a tie shares the win


# --- the German variant ---------------------------------------------------------------------------


def test_rg1_two_to_eight_players():
    for n in (2, 4, 8):
        RG.check_players(n)
    for n in (1, 9):
        with pytest.raises(BadConfig, match="RG-1"):
            RG.check_players(n)


def test_rg2_the_pile_is_eleven():
    match = Match(RG, ["a", "b", "c"], seed=3)
    state = match.deal()
    assert [len(s.pile) for s in state.seats] == [11, 11, 11]


def test_rg3_stacks_build_up_in_rank_whatever_the_suit():
    state = table(seat(pile="5C 6C 2S", columns=("3D", "3H", "9D", "9C")), german=True,
                  stacks=[cs("AH")])
    RG.apply(state, 0, Play("pile", "s1"))  # 2♠ on A♥
    RG.apply(state, 0, Play("c1", "middle"))
    assert [x.code for x in state.stacks[1].cards] == ["AH", "2S", "3D"]
    refused(RG, state, 0, Play("c3", "s1"), "RG-3")


def test_one_place_resolves_to_the_middle_for_apply_destination_and_the_mirror():
    """RG-3: two stacks take a 2; apply and destination both pick the first, a mirror replaying
    the table's play puts the card where the table's event says, and nothing fits: refused."""
    state = table(seat(pile="5C 2C", columns=("AD", "3H", "9D", "9C")), seat(owner=1),
                  german=True, stacks=[cs("AH"), cs("AS", 1)])
    middle = Play("pile", "middle")
    assert RG.to_middle(state, c("2C"), middle) == 1
    assert RG.destination(state, 0, middle) == "s1"
    assert RG.to_middle(state, c("AD"), Play("c1", "middle")) is None  # an ace: a new stack
    assert RG.destination(state, 0, Play("c1", "middle")) is None
    assert RG.to_middle(state, c("9D"), Play("c3", "middle")) == NOWHERE
    assert RG.destination(state, 0, Play("c3", "middle")) is None
    refused(RG, state, 0, Play("c3", "middle"), "RG-3")
    mirror = RG.redact(state, 0)
    events = RG.apply(state, 0, middle)
    assert events[0]["to"] == "s1"
    events[0]["to"] = "s2"  # as if the table's copy listed the stacks the other way round
    RG.replay(mirror, 0, middle, events)
    assert [x.code for x in mirror.stacks[2].cards] == ["AS", "2C"]
    assert [x.code for x in mirror.stacks[1].cards] == ["AH"]
    again = RG.redact(table(seat(pile="5C 2C"), seat(owner=1), german=True,
                            stacks=[cs("AH 2H"), cs("AS", 1)]), 0)
    with pytest.raises(IllegalMove) as err:  # the table's stack is on the copy but takes no 2
        RG.replay(again, 0, middle, [{"e": "play", "seat": 0, "from": "pile", "cards": ["2C"],
                                      "to": "s1"}])
    assert err.value.rule == "RD-11"


def test_rg4_no_laddering_line_cards_go_to_stacks_and_refill_from_the_pile():
    state = table(seat(pile="5C 4C 7D", columns=("AH", "8S", "9D", "9C")), german=True)
    refused(RG, state, 0, Play("pile", "c2"), "RG-4")  # 7♦ on 8♠ would ladder in the classic game
    assert not any(m.target.startswith("c") for m in RG.legal_moves(state, 0)
                   if isinstance(m, Play))
    RG.apply(state, 0, Play("c1", "middle"))
    assert state.seats[0].columns[0] == cs("7D")


def test_rg5_the_pack_turns_one_card_at_a_time():
    """RG-5: the German Pack turns one card at a time."""
    state = table(seat(pack="2D 3D 4D"), german=True)
    RG.apply(state, 0, TurnPack())
    assert state.seats[0].waste == cs("4D") and len(state.seats[0].pack) == 2


def test_rg6_penalties_are_the_cards_left_and_no_bonuses():
    state = table(seat(pile="", columns=("4D", "9S", "9D", "9C")),
                  seat(pile="5C 4H 3C", owner=1), german=True)
    state.seats[0].out = True
    state.seats[0].stacked = 9
    result = RG.round_result(state)
    assert result.scores == [0, 3]
    assert result.detail[1] == {"pile_size": 13, "pile_left": 3, "out": False}


def test_rg7_five_to_ten_deals_and_the_lowest_total_wins():
    with pytest.raises(BadConfig, match="RG-7"):
        Match(RG, ["a", "b"], 0, rounds_wanted=4)
    with pytest.raises(BadConfig, match="RG-7"):
        Match(RG, ["a", "b"], 0, rounds_wanted=11)
    match = Match(RG, ["a", "b", "c"], 0)
    assert match.rounds_wanted == 5
    for scores in ([0, 4, 2], [3, 0, 1], [0, 2, 2], [1, 0, 0], [0, 5, 1]):
        match.record(RoundResult(scores, [{}] * 3))
    assert match.over and match.totals == [4, 11, 6] and match.winners() == [0]
    assert match.setups[1]["pile_sizes"] == [11, 11, 11]  # RG-2: no handicap unless asked
    # RD-15 under RG, when the host turns it on: the best (lowest) penalty is the "top scorer"
    # and gets the bigger Pile.
    handicapped = Match(RG, ["a", "b", "c"], 0, {"handicap": True})
    handicapped.record(RoundResult([0, 4, 2], [{}] * 3))
    assert handicapped.setup["pile_sizes"] == [12, 10, 11]


# --- plain data and parsing -------------------------------------------------------------------------


def test_moves_parse_from_text_and_data_and_bad_ones_are_refused_clearly():
    assert RD.parse_move("c1:3 c4") == Play("c1", "c4", 3)
    assert RD.parse_move(" PILE middle ") == Play("pile", "middle")
    assert RD.parse_move("turn") == TurnPack()
    for move in (Play("waste", "s12"), TurnPack(), VoteStuck(), CallOut(), Play("c2", "c3", 2)):
        assert RD.move_from_data(move.to_data()) == move
        assert RD.parse_move(str(move)) == move
    for bad in ("", "fly away", "pile", "c9 middle", "pile nowhere", "c1:x c2", "c1:0 c2"):
        with pytest.raises(BadMove):
            RD.parse_move(bad)
    for bad in (None, [], {"t": 3}, {"t": "jump"}, {"t": "play", "from": "pile"},
                {"t": "play", "from": "pile", "to": "s1", "n": True}):
        with pytest.raises(BadMove):
            RD.move_from_data(bad)


def test_state_round_trips_through_plain_data():
    game = get_game("racing-demon")
    state = deal(players=3, seed=9)
    rng = random.Random(1)
    for _ in range(200):
        if state.over:
            break
        seat_no = rng.randrange(3)
        legal = game.legal_moves(state, seat_no)
        if legal:
            game.apply(state, seat_no, rng.choice(legal))
    data = game.state_to_data(state)
    assert game.state_to_data(game.state_from_data(data)) == data
