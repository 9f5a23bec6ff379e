"""The arbiter's decisions, driven directly with a fake clock (no sockets): joining, the RD-11
fairness window, refusals with rule ids, presence, stand-in turns, and the journal."""

from __future__ import annotations

import pytest

from arbiter_harness import PLAY, Table, dealt_table, race_table
from hand_tables import RD, c
from lan_demon.net.seats import AWAY_AFTER
from lan_demon.net.codec import VERSION, encode, make

pytestmark = pytest.mark.timeout(30)


def test_rd11_the_window_gives_the_stack_to_who_played_first_in_real_time():
    """Ann played at 10.145 but her message takes 8 ms (inside the 10 ms lag cap); Bob played
    at 10.150, 1 ms away, and arrived first."""
    t = race_table(rtts=(0.016, 0.002), fairness_ms=100)
    assert t.send(b"B", "move", at=10.151, round=0, move=PLAY, ts=10.150) == []  # held
    assert t.arbiter.race.held and t.arbiter.state.stacks[1].cards[-1].code == "AH"
    t.send(b"A", "move", at=10.153, round=0, move=PLAY, ts=10.145)
    t.tick(10.251)  # the window closes
    assert t.arbiter.state.stacks[1].cards[-1] == c("2H", 0)  # Ann's card
    (beaten,) = [m for m in t.inbox[b"B"] if m["t"] == "error"]
    assert beaten["code"] == "beaten" and beaten["rule"] == "RD-11" and beaten["by"] == 0
    assert t.arbiter.state.seats[1].columns[0] == [c("2H", 1)]  # Bob's card went back


def test_rd11_with_the_window_at_zero_the_first_to_arrive_wins():
    t = race_table(fairness_ms=0)
    t.send(b"B", "move", at=10.150, round=0, move=PLAY, ts=10.150)  # committed at once
    assert t.arbiter.state.stacks[1].cards[-1] == c("2H", 1)
    (beaten,) = t.send(b"A", "move", at=10.200, round=0, move=PLAY, ts=10.100)
    assert beaten["code"] == "beaten" and beaten["by"] == 1


def test_rd11_a_timestamp_earlier_than_its_measured_delay_allows_is_not_believed():
    """Ann claims to have played a whole second before she could have: she is placed at her
    arrival less her one-way delay (2 ms) and the tolerance (5 ms), which is after Bob."""
    t = race_table(rtts=(0.004, 0.002), fairness_ms=100)
    t.send(b"B", "move", at=10.150, round=0, move=PLAY, ts=10.150)
    t.send(b"A", "move", at=10.160, round=0, move=PLAY, ts=9.000)
    assert t.arbiter.race.held[-1].ts == pytest.approx(10.160 - 0.002 - 0.005)
    t.tick(10.250 + 0.1)
    assert t.arbiter.state.stacks[1].cards[-1] == c("2H", 1)  # Bob keeps it


def test_rd11_uncontested_plays_commit_at_once_with_no_wait():
    t = race_table(fairness_ms=100)
    t.arbiter.state.seats[1].columns[0] = [c("KC", 1)]  # Bob no longer holds a 2♥
    replies = t.send(b"A", "move", at=10.0, round=0, move=PLAY, ts=10.0)
    assert t.committed(replies) and not t.arbiter.race.held
    assert t.updates("move")[-1]["seq"] == t.arbiter.records.seq  # its update is its answer


def test_a_seat_s_moves_keep_their_order_behind_a_held_move():
    t = race_table(fairness_ms=100)
    t.send(b"A", "move", at=10.0, round=0, move=PLAY, ts=10.0)  # held: Bob could contest
    t.send(b"A", "move", at=10.01, round=0, move={"t": "turn"}, ts=10.01)  # queued behind
    assert t.arbiter.state.seats[0].waste == []
    t.tick(10.2)
    moves = [u["move"]["t"] for u in t.updates("move")]
    assert moves == ["play", "turn"]


@pytest.mark.parametrize("move, rule", [
    ({"t": "play", "from": "c1", "to": "c2", "n": 3}, "RD-10"),  # not a top card
    ({"t": "play", "from": "waste", "to": "s1"}, "RD-9"),  # nothing turned yet
    ({"t": "play", "from": "c2", "to": "s1"}, "RD-5"),  # 9♠ on A♥
    ({"t": "out"}, "RD-12"),  # OUT with cards in the Pile
])
def test_refusals_name_their_rule_and_change_nothing(move, rule):
    t = race_table(fairness_ms=0)
    before = RD.state_to_data(t.arbiter.state)
    seq = t.arbiter.records.seq
    (err,) = t.send(b"A", "move", at=10.0, round=0, move=move, ts=10.0)
    assert err["t"] == "error" and err["code"] == "illegal" and err["rule"] == rule
    assert rule in err["rule"] and err["reason"]
    assert RD.state_to_data(t.arbiter.state) == before and t.arbiter.records.seq == seq


def test_rd2_a_seat_is_bound_to_its_connection_and_a_forged_seat_is_ignored():
    """RD-2 / RD-10: a player reaches only their own cards — a move names places, never
    another seat, and a seat field smuggled into the message changes nothing."""
    t = race_table(fairness_ms=0)
    forged = make("move", id=77, round=0, move=dict(PLAY), ts=10.0)
    forged["seat"] = 1
    t.deliver(b"A", encode(forged))
    assert t.arbiter.state.stacks[1].cards[-1] == c("2H", 0)  # Ann's own 2♥, not Bob's
    assert t.arbiter.state.seats[1].columns[0] == [c("2H", 1)]


def test_rd12_moves_after_out_and_a_second_out_are_refused_with_the_rule():
    t = race_table(fairness_ms=0)
    t.arbiter.state.seats[0].pile = [c("8H", 0)]  # Ann's last Pile card fits on 9♠
    t.send(b"A", "move", at=10.0, round=0, move={"t": "play", "from": "pile", "to": "c2"},
           ts=10.0)
    assert t.updates("round_end")
    t.arbiter.facts.settings = t.arbiter.settings.replace(pause=60)  # stay between rounds
    for peer, move in ((b"B", PLAY), (b"A", {"t": "out"}), (b"B", {"t": "out"})):
        (err,) = t.send(peer, "move", round=0, move=move, ts=10.0)
        assert err["code"] == "illegal" and err["rule"] == "RD-12", err


def test_bad_messages_get_an_error_and_the_arbiter_keeps_serving():
    t = race_table(fairness_ms=0)
    for frame, code in ((b"\xc1garbage", "malformed"), (encode({"v": 9, "t": "hb"}), "version"),
                        (encode({"v": VERSION, "t": "fly"}), "unknown_type"),
                        (encode({"v": VERSION, "t": "move", "id": 1}), "malformed")):
        (err,) = t.deliver(b"A", frame)
        assert err["code"] == code
    (err,) = t.send(b"A", "move", round=0, move={"t": "jump"}, ts=1.0)
    assert err["code"] == "bad_move"
    (err,) = t.send(b"A", "move", round=5, move=PLAY, ts=1.0)
    assert err["code"] == "wrong_round"
    (err,) = t.send(b"Z", "move", round=0, move=PLAY, ts=1.0)
    assert err["code"] == "not_joined"
    assert t.committed(t.send(b"A", "move", at=10.0, round=0, move=PLAY, ts=10.0))  # serving


def test_spectators_watch_but_cannot_move_and_see_no_hidden_card():
    t = race_table(fairness_ms=0)
    (welcome,) = t.send(b"S", "hello", name="Sue", role="spectator")
    assert "seat" not in welcome
    (err,) = t.send(b"S", "move", round=0, move=PLAY, ts=1.0)
    assert err["code"] == "spectator"
    (snap,) = t.send(b"S", "snapshot")
    hidden = {card.to_data() for s in t.arbiter.state.seats for card in s.pack + s.pile[:-1]}
    assert hidden and not hidden & set(str(snap).replace("'", " ").split())


def test_presence_away_and_back_with_the_token():
    t = race_table(fairness_ms=0)
    token = t.arbiter.seats[0].token
    t.send(b"B", "hb", at=100.0 + AWAY_AFTER)
    t.tick(100.0 + AWAY_AFTER + 0.5)
    assert t.arbiter.seats[0].status == "away" and t.arbiter.seats[1].status == "here"
    (err,) = t.send(b"X", "hello", name="Eve", role="player", token="0" * 16)
    assert err["code"] == "bad_token"
    (welcome, *_) = t.send(b"A2", "hello", name="Ann", role="player", token=token)
    assert welcome["seat"] == 0 and t.arbiter.seats[0].status == "here"
    assert t.updates("presence")[-1] == {**t.updates("presence")[-1], "seat": 0,
                                         "status": "here"}


def test_rd13_the_arbiter_calls_the_minute_without_a_play():
    t = race_table(fairness_ms=0)
    t.tick(t.arbiter.facts.last_play + 61)
    timeouts = [u for u in t.updates("move") if u["seat"] == -1]
    assert timeouts and timeouts[0]["move"] == {"t": "timeout"}
    assert t.arbiter.state.rotations == 1


def test_rk4_an_absent_player_s_rack_o_turn_is_played_for_them():
    t = dealt_table("racko", players=2, turn_timeout=5)
    mover = t.arbiter.state.turn
    peer = (b"A", b"B")[mover]
    other = (b"A", b"B")[1 - mover]
    t.arbiter.seats[mover].heard = 0  # silent
    t.send(other, "hb", at=101.0)
    t.tick(101.0)
    assert t.arbiter.seats[mover].status == "away"
    t.send(other, "hb", at=106.5)
    t.tick(106.5)
    kinds = [u["move"]["t"] for u in t.updates("move")]
    assert kinds == ["draw", "discard"] and t.arbiter.state.turn == 1 - mover
    assert t.arbiter.seats[mover].peer == peer  # the seat is kept for its return
    # its connection is still open: it gets the private half of each hidden move (the drawn
    # card), so its mirror stays whole — but no ok, since it asked nothing (PROTOCOL.md §9)
    hidden = [u["seq"] for u in t.updates("move") if u["p"]]
    assert hidden and [m["seq"] for m in t.move_halves(peer)] == hidden
    assert not [m for m in t.inbox[peer] if m["t"] == "ok" and m.get("re") == -1]


def test_rd11_a_card_to_the_middle_that_loses_its_stack_is_told_it_was_beaten():
    t = race_table(rtts=(0.016, 0.002), fairness_ms=100)
    middle = {"t": "play", "from": "c1", "to": "middle"}
    t.send(b"B", "move", at=10.151, round=0, move=middle, ts=10.150)
    t.send(b"A", "move", at=10.153, round=0, move=middle, ts=10.145)
    t.tick(10.3)
    (beaten,) = [m for m in t.inbox[b"B"] if m["t"] == "error"]
    assert beaten["code"] == "beaten" and beaten["rule"] == "RD-11" and beaten["by"] == 0
    assert "Ann" in beaten["reason"]


def test_moves_in_flight_when_the_round_ends_are_answered():
    t = race_table(fairness_ms=100)
    t.send(b"B", "move", at=10.0, round=0, move=PLAY, ts=10.0)  # held: Ann holds a 2♥ too
    t.arbiter.state.seats[0].pile = [c("8H", 0)]
    t.send(b"A", "move", at=10.01, round=0, move={"t": "play", "from": "pile", "to": "c2"},
           ts=10.01)  # Ann goes out while Bob's card waits
    (err,) = [m for m in t.inbox[b"B"] if m["t"] == "error"]
    assert err["rule"] == "RD-12"


def test_gs4_an_absent_gin_player_s_turns_are_played_so_the_round_can_end():
    """Ann goes silent; Bob is still here: Ann's turns are played for her until her own round
    is over (GS-9: the round ends when every seat's has), so Bob is not kept waiting."""
    t = Table("gin-solitaire", players=2, turn_timeout=5)
    t.seat(b"A", "Ann")
    t.seat(b"B", "Bob")
    t.send(b"A", "ready")
    t.send(b"B", "ready")
    t.arbiter.seats[0].heard = 0  # Ann gone
    now = 101.0
    while not t.arbiter.state.seats[0].done and now < 1000:
        t.send(b"B", "hb", at=now)
        t.tick(now)
        now += 6
    assert t.arbiter.state.seats[0].done and not t.arbiter.state.seats[1].done
    assert t.arbiter.seats[0].status == "away" and t.arbiter.seats[1].status == "here"


def test_gs4_with_both_players_gone_their_turns_wait():
    """Nobody here: no turn is played for anybody (table_clock.nobody_here)."""
    t = Table("gin-solitaire", players=2, turn_timeout=5)
    t.seat(b"A", "Ann")
    t.seat(b"B", "Bob")
    t.send(b"A", "ready")
    t.send(b"B", "ready")
    t.arbiter.seats[0].heard = t.arbiter.seats[1].heard = 0  # both gone
    for now in range(101, 1000, 6):
        t.tick(float(now))
    assert t.arbiter.phase == "playing" and not t.updates("move")


def test_the_journal_holds_every_committed_move(tmp_path):
    from lan_demon.net.journal import JournalWriter
    from lan_demon.net.replay import replay
    path = tmp_path / "j.bin"
    writer = JournalWriter(path)
    t = Table("racko", players=2)
    t.arbiter.records.journal = writer
    t.seat(b"A", "Ann")
    t.seat(b"B", "Bob")
    t.send(b"A", "ready")
    t.send(b"B", "ready")
    peers = (b"A", b"B")
    for _ in range(6):
        turn = t.arbiter.state.turn
        t.send(peers[turn], "move", round=0, move={"t": "draw"}, ts=0.0)
        t.send(peers[turn], "move", round=0, move={"t": "discard"}, ts=0.0)
    writer.close()
    rep = replay(path)
    assert rep.moves == [12] and rep.unfinished is not None
    assert rep.unfinished.discard == t.arbiter.state.discard


def test_rk4_a_seat_that_leaves_mid_round_is_played_for_too():
    t = dealt_table("racko", players=2, turn_timeout=5)
    mover = t.arbiter.state.turn
    t.send((b"A", b"B")[mover], "leave", at=100.5)
    t.send((b"A", b"B")[1 - mover], "hb", at=106.0)
    t.tick(106.0)
    assert [u["move"]["t"] for u in t.updates("move")] == ["draw", "discard"]
    assert t.arbiter.state.turn == 1 - mover
    assert not [m for m in t.inbox.get((b"A", b"B")[mover], []) if m["t"] == "ok"
                and m.get("re") == -1]  # stand-in moves are answered to nobody


def test_spectators_cannot_ready_or_start_either():
    t = Table(players=2)
    t.send(b"S", "hello", name="Sue", role="spectator")
    for kind in ("ready", "start"):
        (err,) = t.send(b"S", kind)
        assert err["code"] == "spectator"


DEAL_REQUESTS = {"commit": {"round": 0, "hash": "a" * 64, "ok": "c" * 64, "fail": "d" * 64},
                 "reveal": {"round": 0, "nonce": "b" * 32},
                 "dispute": {"round": 0, "reason": "x"},
                 "check": {"round": 0, "word": "e" * 32}}


@pytest.mark.parametrize("kind", ["ready", "start", "move", *DEAL_REQUESTS])
def test_what_needs_a_seat_is_spectator_from_a_spectator_and_not_joined_from_a_stranger(kind):
    """PROTOCOL.md §10, §11: every request only a seat may make is refused ``spectator`` from
    a spectator and ``not_joined`` from a connection that never said hello."""
    t = Table(players=2)
    t.send(b"S", "hello", name="Sue", role="spectator")
    fields = {"move": {"round": 0, "move": {"t": "turn"}, "ts": t.now}}.get(kind) or \
        DEAL_REQUESTS.get(kind, {})
    for peer, code in ((b"S", "spectator"), (b"X", "not_joined")):
        (err,) = t.send(peer, kind, id=next(t.ids), **fields)
        assert err["code"] == code and err["re"] == t.last_id, err
    (ok,) = t.send(b"X", "leave")  # a leave needs no seat: done, nothing changes
    assert ok == {"v": VERSION, "t": "ok", "re": t.last_id}


def test_rd13_a_player_who_left_says_stuck_through_the_arbiter_so_the_others_need_not_wait():
    """RD-13 counts "every player still in the round": Ann has gone, so when Bob votes stuck
    the table rotates at once instead of after the 60-second timeout."""
    t = race_table(fairness_ms=0)
    t.send(b"A", "leave", at=101.0)
    t.send(b"B", "hb", at=101.5)
    t.tick(101.5)
    votes = [u for u in t.updates("move") if u["move"] == {"t": "stuck"}]
    assert [(u["seat"], u["rid"]) for u in votes] == [(0, -1)]  # said for Ann, answered to none
    assert t.arbiter.state.rotations == 0
    t.send(b"B", "move", at=102.0, round=0, move={"t": "stuck"}, ts=102.0)
    assert t.arbiter.state.rotations == 1  # no 60-second wait
    t.tick(102.5)  # the rotation cleared the votes: Ann's is said again
    assert [u["seat"] for u in t.updates("move") if u["move"] == {"t": "stuck"}] == [0, 1, 0]


def test_rd13_an_away_player_is_voted_for_only_after_the_turn_timeout():
    t = race_table(fairness_ms=0, turn_timeout=20)
    t.send(b"B", "hb", at=100.0 + AWAY_AFTER)
    t.tick(100.0 + AWAY_AFTER + 0.5)
    assert t.arbiter.seats[0].status == "away"
    assert not [u for u in t.updates("move") if u["move"] == {"t": "stuck"}]
    t.send(b"B", "hb", at=100.0 + AWAY_AFTER + 21)
    t.tick(100.0 + AWAY_AFTER + 21)
    assert [u["seat"] for u in t.updates("move") if u["move"] == {"t": "stuck"}] == [0]
