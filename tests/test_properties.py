"""Property tests over every game: random seeds, random legal play (OpenSpiel's playout check).

For each reachable state: no card lost or duplicated, no rule broken (RD-5, RD-7, RD-8, RG-3,
RG-4, RK-2, GS-2 …), the state survives plain data, and an illegal move changes nothing. A seed
replays to the same match, and every simulated round ends (RD-13 included).
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lan_demon.games import GAME_IDS, IllegalMove, Match, get_game
from lan_demon.games.cards import full_pack
from lan_demon.bots.simulator import simulate

pytestmark = pytest.mark.timeout(120)

PROPERTY = settings(max_examples=25, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])

PLAYERS = {"racing-demon": (1, 6), "racing-demon-german": (2, 6), "racko": (2, 4),
           "gin-solitaire": (1, 3)}


def expected_cards(game_id: str, players: int) -> Counter:
    if game_id.startswith("racing-demon"):
        return Counter(c for p in range(players) for c in full_pack(p))  # RD-2: 52 each
    if game_id == "racko":
        return Counter(range(1, {2: 40, 3: 50, 4: 60}[players] + 1))  # RK-1
    from lan_demon.games.cards import JOKER
    return Counter((full_pack() + [JOKER]) * players)  # GS-1: 52 and the Joker, per seat


def demon_invariants(game, state) -> None:
    """RD-5/RG-3 stacks, RD-7/RG-4 columns, RD-8 a full Line of 4, RD-14 stacked counts."""
    stacked = Counter()
    for stack in state.stacks.values():
        assert stack.cards[0].rank == 1 and len(stack.cards) < 13  # RD-5, RD-6
        for low, high in zip(stack.cards, stack.cards[1:]):
            assert high.rank == low.rank + 1  # RD-5 / RG-3
            assert game.german or high.suit == low.suit  # RD-5: in the suit of the ace
        stacked.update(c.owner for c in stack.cards)
    for king in state.kings_cards:
        assert [c.rank for c in king] == list(range(1, 14))  # RD-6
        stacked.update(c.owner for c in king)
    for i, s in enumerate(state.seats):
        assert s.stacked == stacked[i]  # RD-14
        assert len(s.columns) == 4
        if not s.out:
            assert all(s.columns), "RD-8: a column is never left empty"
        for col in s.columns:
            if game.german:
                assert len(col) <= 1  # RG-4: no laddering
            for low, high in zip(col, col[1:]):
                assert high.rank == low.rank - 1 and high.red != low.red  # RD-7
    assert state.over or state.rotations < 3  # RD-13
    assert state.over == any(s.out for s in state.seats) or state.ended == "stuck"  # RD-12


def racko_invariants(game, state) -> None:
    assert all(len(r) == 10 for r in state.racks)  # RK-2


def gin_invariants(game, state) -> None:
    """GS-2 hand sizes by phase, GS-3 the Joker never in hand or discards, GS-6 ends."""
    from lan_demon.games.cards import JOKER
    from lan_demon.games.melds import is_big_gin, min_deadwood
    sizes = {"first-discard": {11}, "draw": {10}, "discard": {11}, "over": {10, 11}}
    for seat in state.seats:
        assert len(seat.hand) in sizes[seat.phase], (seat.phase, len(seat.hand))
        assert JOKER not in seat.hand and JOKER not in seat.discarded
        assert (JOKER in seat.draw) != seat.joker_drawn
        result = seat.result or {}
        if result.get("result") in ("knock", "gin"):
            assert len(seat.hand) == 10 and result["deadwood"] <= 10  # GS-6
            assert result["deadwood"] == min_deadwood(seat.hand)
            assert result["count"] == len(seat.draw) - 1 - seat.draw.index(JOKER)  # GS-7: C
        if result.get("result") == "big-gin":
            assert len(seat.hand) == 11 and is_big_gin(seat.hand)


INVARIANTS = {"racing-demon": demon_invariants, "racing-demon-german": demon_invariants,
              "racko": racko_invariants, "gin-solitaire": gin_invariants}


@pytest.mark.parametrize("game_id", GAME_IDS)
@PROPERTY
@given(seed=st.integers(0, 2**32), data=st.data())
def test_random_legal_play_keeps_every_card_and_every_rule(game_id, seed, data):
    game = get_game(game_id)
    low, high = PLAYERS[game_id]
    players = data.draw(st.integers(low, high), label="players")
    match = Match(game, [f"p{i}" for i in range(players)], seed)
    state = match.deal()
    rng = random.Random(seed)
    want = expected_cards(game_id, players)
    for _ in range(400):
        assert Counter(game.cards_in_play(state)) == want
        INVARIANTS[game_id](game, state)
        if game.round_over(state):
            break
        movers = game.to_move(state)
        seat = rng.choice(movers)
        legal = game.legal_moves(state, seat)
        if not legal:
            continue
        for move in legal:  # the arbiter writes a move out once unless the game hides moves
            assert game.hides_moves or game.public_move(move) == move.to_data()
        snapshot = game.state_to_data(state)
        assert game.state_to_data(game.state_from_data(snapshot)) == snapshot
        _try_illegal(game, state, seat, legal, players)
        assert game.state_to_data(state) == snapshot
        game.apply(state, seat, rng.choice(legal))
    if game.round_over(state):
        result = game.round_result(state)
        assert len(result.scores) == len(match.sides)


def _try_illegal(game, state, seat, legal, players) -> None:
    """This seat's moves made by the next seat are refused (not its turn, not its cards) unless
    they happen to be legal for it too; the caller checks that nothing changed."""
    other = (seat + 1) % players
    if other == seat:
        return
    theirs = {str(m) for m in game.legal_moves(state, other)}
    for move in legal[:4]:
        if str(move) in theirs:
            continue
        trial = game.copy_state(state)
        try:
            game.apply(trial, other, move)
        except IllegalMove:
            continue
        # Accepted: only "middle" may be legal beyond the concrete list (RD-5: any stack that
        # takes the card), and then the same card must have a concrete stack move.
        assert getattr(move, "target", None) == "middle", move
        assert any(m.startswith(move.source + " s") for m in theirs), (move, theirs)


@pytest.mark.parametrize("game_id", GAME_IDS)
@PROPERTY
@given(seed=st.integers(0, 2**32))
def test_a_seed_replays_to_the_same_match(game_id, seed):
    players = PLAYERS[game_id][0] + 1 if game_id != "gin-solitaire" else 1
    rounds = 5 if game_id == "racing-demon-german" else 2
    one = simulate(game_id, players, seed, rounds=rounds).match.result_data()
    two = simulate(game_id, players, seed, rounds=rounds).match.result_data()
    assert one == two


@pytest.mark.parametrize("game_id", ["racing-demon", "racing-demon-german"])
@PROPERTY
@given(seed=st.integers(0, 2**32), players=st.integers(2, 8),
       strategy=st.sampled_from(["greedy", "random"]))
def test_every_simulated_racing_demon_round_ends(game_id, seed, players, strategy):
    """RD-13 is implemented, not assumed away: stuck tables rotate and then end."""
    sim = simulate(game_id, players, seed, rounds=5, strategy=strategy, speed="flat-out")
    assert len(sim.match.rounds) == 5
    for rnd in sim.match.rounds:
        outs = [d["out"] for d in rnd.detail]
        assert sum(outs) <= 1 or all(d["pile_size"] == 0 for d, o in zip(rnd.detail, outs) if o)
