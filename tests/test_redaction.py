"""Redacted tables for the network's local engines: ``redact``, ``replay``, ``rivals``,
``copy_state`` of every game.

The contract, for every viewer v (each seat, and None for a spectator): a mirror that starts as
``redact(S0, v)`` and replays every committed move — with the full events when v made it, with
``public_events`` otherwise — equals ``redact(S, v)`` after each move; and ``redact`` never
leaves a card v may not see (RD-3, RD-9, RK-2, RK-3, GS-2, GS-3, GS-9).
"""

from __future__ import annotations

import random
import re
from collections import Counter
from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lan_demon.bots import Turn, make_strategy
from lan_demon.games import TABLE, BadMove, get_game
from lan_demon.games.base import public_events
from lan_demon.games.cards import HIDDEN, Card, parse_card
from lan_demon.games.demon_moves import Play, Timeout, TurnPack, VoteStuck
from lan_demon.games.demon_table import DemonSeat, DemonState
from lan_demon.games.gin_moves import Discard as GinDiscard
from lan_demon.games.gin_moves import Draw as GinDraw
from lan_demon.games.gin_moves import Knock
from lan_demon.games.gin_solitaire import GinSolitaire
from lan_demon.games.racing_demon import RacingDemon
from lan_demon.games.racko import HIDDEN_CARD, DiscardHeld, Draw, Place, RackO, TakeDiscard

pytestmark = pytest.mark.timeout(120)

PROPERTY = settings(max_examples=20, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])

RD = RacingDemon()
RG = RacingDemon(german=True)
RK = RackO()
GS = GinSolitaire()

_CODE = re.compile(r"^(JK|[A2-9TJQK][SHDC])(@\d+)?$")


def real_codes(data: Any) -> Counter:
    """Every real card code anywhere in plain data (placeholders ``??`` are not counted)."""
    found: Counter = Counter()
    if isinstance(data, str):
        if _CODE.match(data):
            found[data] += 1
    elif isinstance(data, dict):
        for value in data.values():
            found += real_codes(value)
    elif isinstance(data, list):
        for value in data:
            found += real_codes(value)
    return found


# --- what each viewer may see ------------------------------------------------------------------


def demon_leaks(game: RacingDemon, state: DemonState, viewer: int | None,
                data: dict[str, Any]) -> None:
    """RD-3: Pile tops, columns, stacks and claimed Kings are public; Packs and the Pile cards
    under the top are not; RD-9: a waste top only to its owner."""
    seen: Counter = Counter()
    for st_ in state.stacks.values():
        seen.update(c.to_data() for c in st_.cards)
    for king in state.kings_cards:
        seen.update(c.to_data() for c in king)
    for i, (s, d) in enumerate(zip(state.seats, data["seats"])):
        blank = f"??@{i}"
        for col in s.columns:
            seen.update(c.to_data() for c in col)
        seen.update(c.to_data() for c in s.pile[-1:])
        if i == viewer:
            seen.update(c.to_data() for c in s.waste[-1:])
        # positions and owners stay: placeholders keep every length
        assert len(d["pile"]) == len(s.pile) and len(d["pack"]) == len(s.pack)
        assert len(d["waste"]) == len(s.waste)
        assert d["pile"][:-1] == [blank] * (len(s.pile) - 1)
        assert d["pack"] == [blank] * len(s.pack)
        assert d["waste"][:-1] == [blank] * (len(s.waste) - 1)
        if s.waste and i != viewer:
            assert d["waste"][-1] == blank
    assert real_codes(data) == seen


def racko_leaks(game: RackO, state: Any, viewer: int | None, data: dict[str, Any]) -> None:
    """RK-2: a rack is seen by its owner alone; RK-3: the Draw pile is face down; only the
    Discard top is face up; the drawn card is its drawer's."""
    for i, (rack, shown) in enumerate(zip(state.racks, data["racks"])):
        assert shown == (rack if i == viewer else [HIDDEN_CARD] * len(rack))
    assert data["draw"] == [HIDDEN_CARD] * len(state.draw)
    assert data["discard"] == [HIDDEN_CARD] * (len(state.discard) - 1) + state.discard[-1:]
    if state.held is None:
        assert data["held"] is None
    else:
        assert data["held"] == (state.held if viewer == state.turn else HIDDEN_CARD)


def gin_leaks(game: GinSolitaire, state: Any, viewer: int | None, data: dict[str, Any]) -> None:
    """GS-2: the Draw pile is face down; GS-3: discards are never shown; GS-9: no other seat's
    hand, and other seats' results only once the whole round is over."""
    over = game.round_over(state)
    seen: Counter = Counter()
    for i, (s, d) in enumerate(zip(state.seats, data["seats"])):
        if i == viewer:
            seen.update(c.to_data() for c in s.hand)
        assert len(d["hand"]) == len(s.hand) and len(d["draw"]) == len(s.draw)
        assert len(d["discarded"]) == len(s.discarded)
        assert d["phase"] == s.phase and d["joker_drawn"] == s.joker_drawn
        if i != viewer and not over and (s.result or {}).get("result") != "sat-out":
            assert d["result"] is None
        else:
            assert d["result"] == s.result
    assert real_codes(data) == seen


LEAKS = {"racing-demon": demon_leaks, "racing-demon-german": demon_leaks, "racko": racko_leaks,
         "gin-solitaire": gin_leaks}


def public_move(move: Any) -> Any:
    """A move as seats other than its mover need it: a Gin discard is face down (GS-3), so
    replay must not need its card (the arbiter may send it as ``??``)."""
    if isinstance(move, (GinDiscard, Knock)):
        return type(move)(HIDDEN)
    return move


# --- the contract, played out ------------------------------------------------------------------


def play_out(game, state, seats: int, rng: random.Random, steps: int = 300,
             timeouts: float = 0.0, middle: float = 0.0) -> int:
    """Random legal play on ``state`` — half of it by the greedy bot looking at the mover's
    own mirror, so knocks, Kings and long racks happen too; after every committed move each
    viewer's mirror, kept by ``replay``, must equal the redaction of the table. Returns the
    moves committed."""
    leaks = LEAKS[game.id]
    greedy = make_strategy(game.id, "greedy")
    viewers = [*range(seats), None]
    mirrors = {}
    for v in viewers:
        before = game.state_to_data(state)
        redacted = game.redact(state, v)
        assert game.state_to_data(state) == before  # redact never changes its input
        data = game.state_to_data(redacted)
        leaks(game, state, v, data)
        # as the arbiter sends it: plain data, read back on the client
        mirrors[v] = game.state_from_data(data)
    moves = 0
    for _ in range(steps):
        if game.round_over(state):
            break
        if timeouts and rng.random() < timeouts:
            seat, move = TABLE, Timeout()
        else:
            seat = rng.choice(game.to_move(state))
            legal = game.legal_moves(state, seat)
            if not legal:
                continue
            # the mover's own mirror offers the same moves, and takes the one chosen
            mine = mirrors[seat]
            assert sorted(map(str, game.legal_moves(mine, seat))) == sorted(map(str, legal))
            move = None
            if rng.random() < 0.5:
                move = greedy.choose(Turn(game, mine, seat, rng))
                assert move is None or str(move) in set(map(str, legal))
            if move is None:
                move = rng.choice(legal)
            if (middle and isinstance(move, Play) and move.target.startswith("s")
                    and rng.random() < middle):
                move = Play(move.source, "middle", move.count)  # the table picks the stack
            game.apply(game.copy_state(mine), seat, move)
        events = game.apply(state, seat, move)
        moves += 1
        public = public_events(events)
        for v, mirror in mirrors.items():
            if seat == v:
                game.replay(mirror, seat, move, events)
            else:
                game.replay(mirror, seat, public_move(move), public)
            want = game.state_to_data(game.redact(state, v))
            assert game.state_to_data(mirror) == want, (v, seat, str(move), events)
            leaks(game, state, v, want)
    return moves


@pytest.mark.parametrize("game", [RD, RG], ids=["racing-demon", "racing-demon-german"])
@PROPERTY
@given(seed=st.integers(0, 2**32), data=st.data())
def test_rd_mirrors_follow_the_table_and_see_no_hidden_card_rd3_rd9_rd13(game, seed, data):
    seats = data.draw(st.integers(2, 5), label="seats")
    # small Piles too, so refills empty a Pile and rounds end by OUT (RD-8, RD-12)
    sizes = data.draw(st.lists(st.integers(1, game.base_pile), min_size=seats, max_size=seats),
                      label="pile sizes")
    state = game.deal({"pile_sizes": sizes, "handicap": True}, random.Random(seed))
    play_out(game, state, seats, random.Random(seed), timeouts=0.03, middle=0.3)


@PROPERTY
@given(seed=st.integers(0, 2**32), seats=st.integers(2, 4))
def test_racko_mirrors_follow_the_table_and_see_no_hidden_card_rk2_rk3_rk8(seed, seats):
    state = RK.deal({"players": seats, "bonus": False}, random.Random(seed))
    if seed % 2:  # a short Draw pile, so RK-8 turns the Discard pile over often
        del state.draw[:-3]
    play_out(RK, state, seats, random.Random(seed))


@PROPERTY
@given(seed=st.integers(0, 2**32), seats=st.integers(1, 3), data=st.data())
def test_gin_mirrors_follow_the_table_and_see_no_hidden_card_gs2_gs3_gs9(seed, seats, data):
    sat_out = data.draw(st.lists(st.integers(0, seats - 1), max_size=seats - 1, unique=True),
                        label="sat out")
    state = GS.deal({"players": seats, "sat_out": sat_out}, random.Random(seed))
    rng = random.Random(seed)
    play_out(GS, state, seats, rng)


def test_racko_a_round_played_to_rack_o_is_followed_by_every_mirror_rk5():
    """A Rack-O the mirrors cannot see in a hidden rack comes to them through the events."""
    state = RK.state_from_data({
        "racks": [[1, 2, 3, 4, 5, 6, 7, 8, 9, 40], [20, 19, 18, 17, 16, 15, 14, 13, 12, 11]],
        "draw": [21, 22, 23, 24, 25], "discard": [30, 10], "dealer": 1, "turn": 0,
        "held": None, "over": False, "racko": None, "turns": 0, "options": {"bonus": False}})
    mirrors = {v: RK.redact(state, v) for v in (0, 1, None)}
    events = RK.apply(state, 0, TakeDiscard(50))
    assert state.over and events[-1] == {"e": "racko", "seat": 0}
    for v, mirror in mirrors.items():
        RK.replay(mirror, 0, TakeDiscard(50), events if v == 0 else public_events(events))
        assert RK.state_to_data(mirror) == RK.state_to_data(RK.redact(state, v))
        assert mirror.over and mirror.racko == 0


def test_rd_a_play_to_the_middle_follows_the_stack_the_table_chose_rg3():
    """Stacks that want the same card are first-come in the table's own order (the order their
    tops arrived), which a mirror read back from plain data cannot know: replay follows the
    stack the play event names."""
    state = rd_table(RG, [
        {"pile": "QS@0 QH@0", "columns": "2H@0|3C@0|KD@0|KC@0"},
        {"pile": "QS@1 QH@1", "columns": "2S@1|KH@1|KD@1|KC@1"},
    ], stacks=["AD@0", "AC@1"])
    RG.apply(state, 0, Play("c1", "s2"))
    RG.apply(state, 1, Play("c1", "s1"))
    assert state.wants[3] == [2, 1]  # stack 2 wanted a 3 first
    mirrors = {v: RG.state_from_data(RG.state_to_data(RG.redact(state, v))) for v in (0, 1, None)}
    assert mirrors[None].wants[3] == [1, 2]
    move = Play("c2", "middle")
    events = RG.apply(state, 0, move)
    assert events[0]["to"] == "s2"
    for v, mirror in mirrors.items():
        RG.replay(mirror, 0, move, events if v == 0 else public_events(events))
        assert RG.state_to_data(mirror) == RG.state_to_data(RG.redact(state, v))


# --- hidden cards are never a source -------------------------------------------------------------


def test_rd_a_hidden_waste_or_pile_top_is_never_a_source_rd10():
    state = RD.deal({"pile_sizes": [13, 13], "handicap": True}, random.Random(4))
    RD.apply(state, 1, TurnPack())
    mirror = RD.redact(state, 0)
    assert mirror.seats[1].waste[-1].hidden  # not public until played (RD-9)
    assert not any(getattr(m, "source", "") == "waste" for m in RD.legal_moves(mirror, 1))
    before = RD.state_to_data(mirror)
    for move in (Play("waste", "middle"), Play("waste", "c1"), Play("waste", "s3")):
        with pytest.raises(BadMove, match="not known yet"):
            RD.apply(mirror, 1, move)
    assert RD.state_to_data(mirror) == before
    # the mirror's own Pile top, were it ever unknown, is skipped and refused alike
    mirror.seats[0].pile[-1] = Card(0, "?", 0)
    assert not any(getattr(m, "source", "") == "pile" for m in RD.legal_moves(mirror, 0))
    with pytest.raises(BadMove, match="not known yet"):
        RD.apply(mirror, 0, Play("pile", "c2"))


def test_rd_view_of_a_redacted_table_shows_placeholders():
    state = RD.deal({"pile_sizes": [13, 13, 13], "handicap": True}, random.Random(9))
    RD.apply(state, 2, TurnPack())
    for viewer in (0, 2, None):
        view = RD.view(RD.redact(state, viewer), viewer)
        assert len(view["players"]) == 3
    view = RD.view(RD.redact(state, 2), 2)
    assert view["players"][2]["waste_top"] == state.seats[2].waste[-1].to_data()
    # a spectator's copy shows a waste top nobody may see as a placeholder
    assert RD.view(RD.redact(state, 0), 2)["players"][2]["waste_top"] == "??@2"


def test_racko_a_hidden_discard_top_is_never_taken_and_a_hidden_held_card_still_plays_rk4():
    state = RK.deal({"players": 2, "bonus": False}, random.Random(5))
    me = state.turn
    mirror = RK.redact(state, me)
    # the client plays its draw at once, before the table tells it the card
    ahead = RK.copy_state(mirror)
    RK.apply(ahead, me, Draw())
    assert ahead.held == HIDDEN_CARD
    assert {str(m) for m in RK.legal_moves(ahead, me)} >= {"place 25", "discard"}
    placed = RK.copy_state(ahead)
    RK.apply(placed, me, Place(25))
    assert placed.racks[me][4] == HIDDEN_CARD and not placed.over
    RK.apply(ahead, me, DiscardHeld())
    assert ahead.discard[-1] == HIDDEN_CARD and ahead.turn != me
    # an unknown Discard top is never offered nor taken
    blind = RK.copy_state(mirror)
    blind.discard[-1] = HIDDEN_CARD
    assert not any(isinstance(m, TakeDiscard) for m in RK.legal_moves(blind, me))
    before = RK.state_to_data(blind)
    with pytest.raises(BadMove, match="not known yet"):
        RK.apply(blind, me, TakeDiscard(5))
    assert RK.state_to_data(blind) == before


def test_racko_a_hidden_card_never_calls_rack_o_rk5():
    """A mirror cannot tell whether a hidden card completes a rack; the table's events do."""
    state = RK.state_from_data({
        "racks": [[50, 2, 3, 4, 5, 6, 7, 8, 9, 10], [20, 19, 18, 17, 16, 15, 14, 13, 12, 11]],
        "draw": [21, 22, 1], "discard": [30], "dealer": 1, "turn": 0, "held": None,
        "over": False, "racko": None, "turns": 0, "options": {"bonus": False}})
    ahead = RK.redact(state, 0)
    RK.apply(ahead, 0, Draw())
    RK.apply(ahead, 0, Place(5))
    assert not ahead.over and ahead.turn == 1
    mirror = RK.redact(state, 0)
    for move in (Draw(), Place(5)):
        events = RK.apply(state, 0, move)
        RK.replay(mirror, 0, move, events)
    assert state.over and mirror.over and mirror.racko == 0
    assert RK.state_to_data(mirror) == RK.state_to_data(RK.redact(state, 0))


def test_gin_a_hand_holding_an_unknown_draw_offers_no_move_gs4():
    state = GS.deal({"players": 2, "sat_out": []}, random.Random(3))
    first = GS.legal_moves(state, 0)[0]
    events = GS.apply(state, 0, first)
    mirror = GS.redact(state, 0)
    ahead = GS.copy_state(mirror)
    GS.apply(ahead, 0, GinDraw())  # played before the table says which card came
    assert sum(c.hidden for c in ahead.seats[0].hand) == 1
    assert GS.legal_moves(ahead, 0) == []
    assert GS.view(ahead, 0)["deadwood"] is None
    before = GS.state_to_data(ahead)
    known = next(c for c in ahead.seats[0].hand if not c.hidden)
    for move in (GinDiscard(known), Knock(known), GinDiscard(HIDDEN)):
        with pytest.raises(BadMove, match="not known yet"):
            GS.apply(ahead, 0, move)
    assert GS.state_to_data(ahead) == before
    assert events[0]["e"] == "discard"


def test_gin_a_knock_on_a_mirror_leaves_the_count_open_until_the_table_tells_gs7():
    hand = "AS 2S 3S 4H 5H 6H 7D 8D 9D KC QC"
    state = GS.state_from_data({"players": 1, "seats": [{
        "hand": hand.split(), "draw": ["5C", "JK", "6C", "7C"], "discarded": [],
        "phase": "discard", "joker_drawn": False, "result": None}]})
    mirror = GS.redact(state, 0)
    ahead = GS.copy_state(mirror)
    GS.apply(ahead, 0, Knock(parse_card("KC")))
    assert ahead.seats[0].result["result"] == "knock" and ahead.seats[0].result["count"] is None
    events = GS.apply(state, 0, Knock(parse_card("KC")))
    GS.replay(mirror, 0, Knock(parse_card("KC")), events)
    assert mirror.seats[0].result == state.seats[0].result
    assert GS.state_to_data(mirror) == GS.state_to_data(GS.redact(state, 0))


# --- RD-11: who could contest a place ----------------------------------------------------------


def rd_table(game: RacingDemon, seats: list[dict[str, str]], stacks: list[str]) -> DemonState:
    """A hand-made table; every list is written bottom to top, cards as ``code@owner``."""
    def cards(text: str) -> list[str]:
        return text.split()

    data = game.state_to_data(DemonState(german=game.german, seats=[
        DemonSeat(pile=[], columns=[[], [], [], []], pack=[]) for _ in seats]))
    for d, spec in zip(data["seats"], seats):
        d["pile"] = cards(spec.get("pile", ""))
        d["columns"] = [cards(col) for col in spec["columns"].split("|")]
        d["waste"] = cards(spec.get("waste", ""))
        d["pack"] = cards(spec.get("pack", ""))
    data["stacks"] = [{"id": i + 1, "cards": cards(s)} for i, s in enumerate(stacks)]
    data["next_stack"] = len(stacks) + 1
    return game.state_from_data(data)


def rivals_table(game: RacingDemon) -> DemonState:
    return rd_table(game, [
        {"pile": "9C@0", "columns": "2H@0|AD@0|9D@0|TS@0"},
        {"pile": "2H@1", "columns": "KS@1|KH@1|KD@1|KC@1"},  # Pile top: a rival
        {"pile": "QS@2", "columns": "KS@2|KH@2|KD@2|KC@2", "waste": "2H@2"},  # waste top
        {"pile": "QS@3", "columns": "KS@3|KH@3|2S@3|KC@3"},  # a 2 of another suit
        {"pile": "2H@4 QS@4", "columns": "2H@4 3C@4|KH@4|KD@4|KC@4",  # 2H under the tops
         "pack": "2H@4", "waste": "2H@4 3C@4"},
    ], stacks=["AH@3", "AS@1"])


def test_rd11_rivals_are_the_other_seats_with_a_visible_top_the_stack_takes():
    state = rivals_table(RD)
    assert RD.rivals(state, 0, Play("c1", "s1")) == [1, 2]
    assert RD.rivals(state, 0, Play("c1", "middle")) == [1, 2]  # resolves to s1, as apply does
    assert RD.rivals(state, 1, Play("pile", "s1")) == [0, 2]
    assert RD.rivals(state, 3, Play("c3", "s2")) == []  # nobody else holds a 2♠ on top
    assert RD.rivals(state, 0, Play("c2", "middle")) == []  # an ace founds a new stack
    assert RD.rivals(state, 0, Play("c1", "c4")) == []  # laddering is one's own
    for move in (TurnPack(), VoteStuck(), Timeout()):
        assert RD.rivals(state, 0, move) == []
    assert RD.rivals(state, 0, Play("c1", "s9")) == []  # no such stack
    # a seat that is out contests nothing (RD-12)
    state.seats[2].out = True
    assert RD.rivals(state, 0, Play("c1", "s1")) == [1]


def test_rd11_rivals_in_the_german_variant_build_in_rank_whatever_the_suit_rg3():
    state = rivals_table(RG)
    assert RG.rivals(state, 0, Play("c1", "s1")) == [1, 2, 3]
    assert RG.rivals(state, 3, Play("c3", "middle")) == [0, 1, 2]


def test_rd11_rivals_resolve_the_middle_like_apply_does():
    state = rivals_table(RD)
    target = RD.legal_moves(state, 0)
    assert "c1 s1" in {str(m) for m in target}
    trial = RD.copy_state(state)
    events = RD.apply(trial, 0, Play("c1", "middle"))
    assert events[0]["to"] == "s1"


# --- fast copies -------------------------------------------------------------------------------


@pytest.mark.parametrize("game_id", ["racing-demon", "racing-demon-german", "racko",
                                     "gin-solitaire"])
def test_copy_state_is_independent_of_its_original(game_id):
    game = get_game(game_id)
    players = 3 if game_id != "gin-solitaire" else 2
    setup = game.first_setup(players, game.default_options())
    state = game.deal(setup, random.Random(11))
    rng = random.Random(11)
    for _ in range(40):
        seat = rng.choice(game.to_move(state))
        legal = game.legal_moves(state, seat)
        if legal:
            game.apply(state, seat, rng.choice(legal))
    before = game.state_to_data(state)
    offered = [[str(m) for m in game.legal_moves(state, i)] for i in range(players)]
    copy = game.copy_state(state)
    assert game.state_to_data(copy) == before
    assert [[str(m) for m in game.legal_moves(copy, i)] for i in range(players)] == offered
    for _ in range(60):  # play the copy on, then tamper with every list it holds
        if game.round_over(copy):
            break
        seat = rng.choice(game.to_move(copy))
        legal = game.legal_moves(copy, seat)
        if legal:
            game.apply(copy, seat, rng.choice(legal))
    _tamper(copy)
    assert game.state_to_data(state) == before
    assert [[str(m) for m in game.legal_moves(state, i)] for i in range(players)] == offered


def _tamper(state: Any) -> None:
    for name in ("racks", "draw", "discard"):  # Rack-O
        if hasattr(state, name):
            value = getattr(state, name)
            for item in value:
                if isinstance(item, list):
                    item.clear()
            value.clear()
    for seat in getattr(state, "seats", []):
        for name in ("pile", "pack", "waste", "hand", "draw", "discarded"):
            if hasattr(seat, name):
                getattr(seat, name).clear()
        for col in getattr(seat, "columns", []):
            col.clear()
        if getattr(seat, "result", None):
            seat.result.clear()
    for stack in getattr(state, "stacks", {}).values():
        stack.cards.clear()
    for king in getattr(state, "kings_cards", []):
        king.clear()
    for sids in getattr(state, "wants", {}).values():
        sids.clear()
    if hasattr(state, "claimed"):
        state.claimed.clear()
    if hasattr(state, "options"):
        state.options.clear()


def test_rd_a_turn_that_makes_the_table_stuck_is_followed_by_its_movers_mirror_rd13():
    """The turn that completes RD-13's stuck rotation sends the mover's new waste straight back
    under the Pack: its private waste top names a card no longer face up, and the mover's
    mirror must follow the rotation rather than fail on the empty waste."""
    state = RD.deal({"pile_sizes": [13], "handicap": True}, random.Random(0))
    mirrors = {v: RD.redact(state, v) for v in (0, None)}
    for _ in range(60):
        events = RD.apply(state, 0, TurnPack())
        for v, mirror in mirrors.items():
            RD.replay(mirror, 0, TurnPack(), events if v == 0 else public_events(events))
            assert RD.state_to_data(mirror) == RD.state_to_data(RD.redact(state, v))
        if any(e["e"] == "rotate" for e in events):
            assert events[0]["e"] == "turn" and events[0]["private"]["waste_top"]
            assert state.seats[0].waste == []
            return
    raise AssertionError("no rotation in 60 turns")


@pytest.mark.parametrize("game_id", ["racing-demon", "racing-demon-german", "racko",
                                     "gin-solitaire"])
def test_redacted_data_for_many_seats_is_each_seats_own_redaction(game_id):
    """``Game.redacted_data`` (a deal sent to every seat at once) equals redacting the table
    for each seat in turn, with the seats' waste tops, hands and racks in play."""
    game = get_game(game_id)
    seats = 1 if game_id == "gin-solitaire" else 3
    from lan_demon.games import Match
    state = Match(game, [str(i) for i in range(seats)], 5).deal()
    rng = random.Random(5)
    viewers = [*range(seats), None, 7]
    for _ in range(40):
        got = game.redacted_data(state, viewers)
        want = [game.state_to_data(game.redact(state, v)) for v in viewers]
        assert [msgpack.packb(d) for d in got] == [msgpack.packb(d) for d in want]
        if game.round_over(state):
            break
        seat = rng.choice(game.to_move(state))
        legal = game.legal_moves(state, seat)
        if legal:
            game.apply(state, seat, rng.choice(legal))


@pytest.mark.parametrize("game", [RD, RG], ids=["racing-demon", "racing-demon-german"])
def test_rd_check_refuses_what_apply_refuses_and_changes_nothing(game):
    """``check`` (what a client runs before it sends a move) raises exactly what ``apply``
    would — the same error and rule — for legal moves and for every kind of wrong one, on the
    table and on a seat's redacted mirror, and leaves the state as it was."""
    rng = random.Random(3)
    places = ["pile", "waste", "c1", "c2", "c3", "c4", "middle", "s1", "s2", "s9"]
    for seed in range(4):
        state = game.deal({"pile_sizes": [5, 13, 13], "handicap": True}, random.Random(seed))
        for _ in range(150):
            if game.round_over(state):
                break
            for table in (state, game.redact(state, 0)):
                before = game.state_to_data(table)
                candidates = game.legal_moves(table, 0) + [
                    Play(rng.choice(places), rng.choice(places), rng.choice([1, 1, 2, 3]))
                    for _ in range(6)] + [TurnPack(), VoteStuck(), Timeout()]
                for seat in (0, 1, 5, TABLE):
                    for move in candidates:
                        try:
                            game.apply(game.copy_state(table), seat, move)
                            want = None
                        except Exception as err:  # noqa: BLE001 - compare whatever it is
                            want = (type(err), str(err))
                        try:
                            game.check(table, seat, move)
                            got = None
                        except Exception as err:  # noqa: BLE001
                            got = (type(err), str(err))
                        assert got == want, (seat, str(move))
                assert game.state_to_data(table) == before
            seat = rng.choice(game.to_move(state))
            legal = game.legal_moves(state, seat)
            if legal:
                game.apply(state, seat, rng.choice(legal))
