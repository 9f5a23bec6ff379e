"""Hostile and broken input at the arbiter (PROTOCOL.md §2, §3, §8, §10), on the pure
:class:`~lan_demon.net.arbiter.Arbiter` with a fake clock: every bad frame gets exactly one
error with its code and changes nothing at the table; floods are rate-limited per connection;
a replayed move is refused; a forged seat or timestamp buys nothing; a bug inside is logged and
answered ``internal`` while the table goes on."""

from __future__ import annotations

import math
from typing import Any

import msgpack
import pytest

from arbiter_harness import PLAY, Table
from arbiter_harness import unmeasured_race_table
from hand_tables import RD, c
from lan_demon.net.arbiter import Arbiter
from lan_demon.net.settings import LAG_CAP_MS
from lan_demon.net.race import TOLERANCE
from lan_demon.net.codec import (ERROR_CODES, FROM_CLIENT, MAX_DEPTH, MAX_MESSAGE, VERSION,
                                 decode, encode, make)

pytestmark = pytest.mark.timeout(30)


def fingerprint(arbiter: Arbiter) -> tuple:
    """Everything at the table a message could change (not the 'last heard' times)."""
    state = RD.state_to_data(arbiter.state) if arbiter.state is not None else None
    return (arbiter.records.seq, arbiter.phase, arbiter.public_hash(), state,
            [(s.index, s.name, s.status, s.ready, s.peer, s.token) for s in arbiter.seats],
            sorted(arbiter.seating.spectators), [(h.seat, h.rid) for h in arbiter.race.held],
            {seat: [h.rid for h in hs] for seat, hs in arbiter.race.queued.items()})


def refused_once(t: Table, peer: bytes, frame: bytes, code: str,
                 re: int | None = None) -> dict:
    """Deliver ``frame``: exactly one reply, an error with ``code``, and no change at all."""
    before = fingerprint(t.arbiter)
    replies = t.deliver(peer, frame)
    assert len(replies) == 1, replies
    (err,) = replies
    assert err["t"] == "error" and err["code"] == code, err
    assert err.get("re") == re, err
    assert err["code"] in ERROR_CODES and err["reason"]
    assert fingerprint(t.arbiter) == before
    return err


def pack(obj: Any) -> bytes:
    return msgpack.packb(obj, use_bin_type=True)


# --- frames that are not messages --------------------------------------------------------------

NOT_MSGPACK = {
    "empty": b"",
    "never-used-byte": b"\xc1",
    "truncated-map": b"\x82\xa1v",
    "trailing-bytes": b"\x81\xa1v\x01\x00",
    "bad-utf8": b"\x81\xa1v\xa2\xff\xfe",
    "int-key": b"\x81\x01\x01",
    "too-deep-for-msgpack": b"\x91" * 2000 + b"\xc0",
    "random": bytes(range(256)) * 3,
}


@pytest.mark.parametrize("frame", NOT_MSGPACK.values(), ids=NOT_MSGPACK.keys())
def test_bytes_that_are_not_a_msgpack_map_get_one_malformed_error(frame: bytes) -> None:
    t = unmeasured_race_table()
    refused_once(t, b"A", frame, "malformed")


@pytest.mark.parametrize("value", [[1, 2], 7, "hello", None, 2.5, True, b"\x00bin"])
def test_msgpack_that_is_not_a_map_is_malformed(value: Any) -> None:
    refused_once(unmeasured_race_table(), b"A", pack(value), "malformed")


def test_nesting_deeper_than_the_limit_is_malformed_and_never_crashes() -> None:
    """Deep maps in a move (a repr of them would exhaust Python's stack) are refused; deep
    lists where a single value belongs are refused by kind, never walked."""
    t = unmeasured_race_table()
    for depth in (MAX_DEPTH, 200, 600):  # a move 600 deep is 1,800 bytes, under MAX_MESSAGE
        deep = b"\x82\xa1v" + b"\x91" * depth + b"\x01" + b"\xa1t\xa2hb"
        refused_once(t, b"A", deep, "version")  # the version is an int, not a list
        move = (b"\x86\xa1v" + bytes([VERSION]) + b"\xa1t\xa4move\xa2id\x05\xa5round\x00"
                b"\xa2ts\x00\xa4move" + b"\x81\xa1a" * depth + b"\x01")
        err = refused_once(t, b"A", move, "malformed", re=5)
        assert str(MAX_DEPTH) in err["reason"]
    # Shallow nesting is read: a field the move does not have is then refused as a move
    # (bad_move, PROTOCOL.md §14), not as a frame; the move itself plays
    extra = make("move", id=6, round=0, move={"t": "turn", "x": [[[1]]]}, ts=t.now)
    refused_once(t, b"A", encode(extra), "bad_move", re=6)
    ok = make("move", id=7, round=0, move={"t": "turn"}, ts=t.now)
    assert t.committed(t.deliver(b"A", encode(ok)), 7)


def test_wrong_and_missing_versions_and_unknown_types() -> None:
    t = unmeasured_race_table()
    refused_once(t, b"A", pack({"v": 1, "t": "ping", "id": 3, "c": 1.0}), "version", re=3)
    refused_once(t, b"A", pack({"t": "hb"}), "version")
    refused_once(t, b"A", pack({"v": [1] * 50, "t": "hb"}), "version")
    refused_once(t, b"A", pack({"v": VERSION, "t": "teleport", "id": 4}), "unknown_type", re=4)
    for kind in ("welcome", "update", "__class__", "_on_move", "", "x" * 250):
        err = refused_once(t, b"A", pack({"v": VERSION, "t": kind}), "unknown_type")
        assert len(err["reason"]) <= 200  # what was sent is quoted, clipped
    refused_once(t, b"A", pack({"v": VERSION, "t": b"hb"}), "malformed")  # bin, not str
    refused_once(t, b"A", pack({"v": VERSION, b"t": "hb"}), "malformed")  # a bin key


# --- wrong types in every field of every client message -----------------------------------------

VALID = {
    "hello": {"id": 1, "name": "Zed", "role": "spectator", "token": "abc", "bot": True,
              "code": "ABCD"},
    "ping": {"id": 1, "c": 1.5},
    "echo": {"a": 1.5},
    "ready": {"id": 1},
    "start": {"id": 1},
    "move": {"id": 1, "round": 0, "move": {"t": "turn"}, "ts": 1.5},
    "snapshot": {"id": 1},
    "hb": {},
    "leave": {"id": 1},
    "commit": {"id": 1, "round": 0, "hash": "ab" * 32, "ok": "01" * 32, "fail": "02" * 32},
    "reveal": {"id": 1, "round": 0, "nonce": "cd" * 16},
    "dispute": {"id": 1, "round": 0, "reason": "your cards differ"},
    "check": {"id": 1, "round": 0, "word": "ef" * 16, "reason": "your cards differ",
              "lost": False},
    "pause": {"id": 1},
    "resume": {"id": 1},
    "remove": {"id": 1, "seat": 1, "bot": 3},
}
WRONG = {  # a value of every other kind, for each kind a field can have
    "int": ["7", 7.0, b"\x07", [7], {"n": 7}, True, math.nan],
    "float": ["1.5", b"1.5", [1.5], {"a": 1.5}, False, math.nan, math.inf, -math.inf],
    "str": [7, 2**64 - 1, -2**63, 1.5, b"bytes", ["s"], {"s": "s"}, True],
    "bool": [1, 0, "true", b"\x01", [True], 1.0],
    "map": ["turn", b"\x80", [["t", "turn"]], 1, True, 1.5],
}
CASES = [(kind, name, value) for kind, schema in FROM_CLIENT.items()
         for name, (field_kind, _) in schema.items() for value in WRONG[field_kind]]


def test_every_field_of_every_client_message_is_covered() -> None:
    assert set(VALID) == set(FROM_CLIENT)
    for kind, fields in VALID.items():
        assert set(fields) == set(FROM_CLIENT[kind]), kind
        decode(encode(make(kind, **fields)))


@pytest.mark.parametrize("kind,name,value", CASES,
                         ids=[f"{k}.{n}={v!r}"[:40] for k, n, v in CASES])
def test_a_mistyped_field_gets_one_malformed_error_and_changes_nothing(kind: str, name: str,
                                                                      value: Any) -> None:
    t = unmeasured_race_table()
    msg = make(kind, **VALID[kind])
    msg[name] = value
    rid = msg["id"] if name != "id" and "id" in msg else None
    err = refused_once(t, b"A", pack(msg), "malformed", re=rid)
    assert repr(name) in err["reason"]


@pytest.mark.parametrize("kind,name", [(k, n) for k, s in FROM_CLIENT.items()
                                       for n, (_, required) in s.items() if required])
def test_a_missing_required_field_is_malformed(kind: str, name: str) -> None:
    msg = make(kind, **VALID[kind])
    del msg[name]
    rid = msg.get("id")
    refused_once(unmeasured_race_table(), b"A", pack(msg), "malformed", re=rid)


@pytest.mark.parametrize("rid", [0, -1, -5, -2**63])
def test_a_request_id_must_be_positive(rid: int) -> None:
    """re 0 and -1 mean something else (§3), so such ids are refused and not echoed."""
    t = unmeasured_race_table()
    for kind in ("ping", "move", "snapshot"):
        msg = make(kind, **{**VALID[kind], "id": rid})
        refused_once(t, b"A", pack(msg), "malformed")


def test_huge_numbers_in_the_right_type_are_answered_in_kind() -> None:
    t = unmeasured_race_table()
    (pong,) = t.send(b"A", "ping", id=2**64 - 1, c=1e308)
    assert pong["t"] == "pong" and pong["re"] == 2**64 - 1 and pong["c"] == 1e308
    before = fingerprint(t.arbiter)
    (err,) = t.send(b"A", "move", round=2**64 - 1, move={"t": "turn"}, ts=1.0)
    assert err["code"] == "wrong_round" and fingerprint(t.arbiter) == before


def test_unknown_fields_are_ignored_as_the_protocol_says() -> None:
    """§2: a receiver ignores fields it does not know — extra fields are not an error."""
    t = unmeasured_race_table()
    msg = make("ping", id=9, c=1.0)
    msg.update({"zz": [1, {"a": b"\x00"}], "seat": 1, "token": 5})
    (pong,) = t.deliver(b"A", encode(msg))
    assert pong["t"] == "pong" and pong["re"] == 9


def test_an_id_on_a_message_that_has_none_is_ignored_whatever_its_type() -> None:
    """Found by tests/test_fuzz.py: an ``hb`` carrying ``"id": []`` once failed inside."""
    t = unmeasured_race_table()
    for junk in ([], {}, "x", b"x", -1, 0, None, 1.5):
        before = fingerprint(t.arbiter)
        assert t.deliver(b"A", pack({"v": VERSION, "t": "hb", "id": junk})) == []
        assert t.deliver(b"S", pack({"v": VERSION, "t": "echo", "a": 1.0, "id": junk})) == []
        assert fingerprint(t.arbiter) == before


def test_a_non_ascii_token_is_a_bad_token_not_a_crash() -> None:
    t = unmeasured_race_table()
    for token in ("é" * 16, "\x00", "🂡" * 8):
        msg = make("hello", id=3, name="Eve", role="player", token=token)
        refused_once(t, b"E", encode(msg), "bad_token", re=3)


def test_the_role_must_be_player_or_spectator() -> None:
    hello = encode(make("hello", id=3, name="Eve", role="god"))
    refused_once(unmeasured_race_table(), b"E", hello, "malformed", re=3)


# --- multi-frame, empty and oversized ------------------------------------------------------------


@pytest.mark.parametrize("parts", [[], [b"", b""], [encode(make("hb")), encode(make("hb"))],
                                   [b"x"] * 50], ids=["none", "two-empty", "two-valid", "fifty"])
def test_a_multi_part_message_gets_one_malformed_error_without_re(parts: list[bytes]) -> None:
    t = unmeasured_race_table()
    before = fingerprint(t.arbiter)
    (err,) = t.deliver_parts(b"A", parts)
    assert err["code"] == "malformed" and "re" not in err and "one frame" in err["reason"]
    assert fingerprint(t.arbiter) == before


def test_a_single_frame_through_the_multipart_door_is_an_ordinary_message() -> None:
    t = unmeasured_race_table()
    (pong,) = t.deliver_parts(b"A", [encode(make("ping", id=4, c=1.0))])
    assert pong["t"] == "pong"
    (err,) = t.deliver_parts(b"A", [b""])
    assert err["code"] == "malformed"


def test_a_frame_over_the_limit_is_too_big_without_re() -> None:
    """Frames the ROUTER delivers (up to MAX_MESSAGE + 1024) but over 64 KiB are refused
    unread; larger ones never reach the arbiter (the socket drops the connection, §2)."""
    t = unmeasured_race_table()
    big = encode(make("ping", id=5, c=1.0, pad="x" * MAX_MESSAGE))
    assert MAX_MESSAGE < len(big) <= MAX_MESSAGE + 1024
    refused_once(t, b"A", big, "too_big")


# --- a bug inside --------------------------------------------------------------------------------


def test_a_bug_in_a_handler_is_logged_answered_internal_and_the_table_goes_on(capsys) -> None:
    t = unmeasured_race_table()

    def broken(*args: Any) -> None:
        raise KeyError("oops")

    t.arbiter.handlers["snapshot"] = broken
    (err,) = t.send(b"A", "snapshot", id=12)
    assert err["code"] == "internal" and err["re"] == 12
    log = capsys.readouterr().err.splitlines()
    assert len(log) == 1 and "internal error" in log[0] and "KeyError" in log[0]
    assert "test_hostile.py" in log[0]  # where it failed, to find the bug
    assert t.committed(t.send(b"A", "move", round=0, move={"t": "turn"}, ts=t.now))  # serving


def test_a_bug_in_decoding_is_caught_at_the_boundary_too(capsys, monkeypatch) -> None:
    import lan_demon.net.arbiter as arbiter_module

    def broken_decode(frame: bytes, channel: str = "client") -> dict:
        raise RecursionError("deep")

    t = unmeasured_race_table()
    monkeypatch.setattr(arbiter_module, "decode", broken_decode)
    (err,) = t.deliver(b"A", encode(make("ping", id=8, c=1.0)))
    assert err["code"] == "internal" and err["re"] == 8
    assert "RecursionError" in capsys.readouterr().err


# --- floods --------------------------------------------------------------------------------------


def test_a_flood_is_dropped_with_one_rate_limited_error_a_second_and_others_unaffected() -> None:
    t = unmeasured_race_table(rate_limit=10.0, rate_burst=20.0)
    start = t.now
    hb = encode(make("hb"))
    replies = [r for _ in range(20) for r in t.deliver(b"X", hb)]
    assert replies == []  # the burst: hb gets no answer
    before = fingerprint(t.arbiter)
    flood = [t.deliver(b"X", encode(make("ping", id=100 + i, c=1.0))) for i in range(500)]
    errors = [r for rs in flood for r in rs]
    assert len(errors) == 1 and errors[0]["code"] == "rate_limited" and errors[0]["re"] == 100
    assert t.arbiter.limiter.buckets[b"X"].dropped == 500
    assert fingerprint(t.arbiter) == before
    # Ann, at the same table in the same instant, is served as usual
    (pong,) = t.send(b"A", "ping", c=1.0)
    assert pong["t"] == "pong"
    # a second later: one more warning, and refilled tokens serve again
    t.now = start + 1.0
    answers = [r for i in range(30) for r in t.deliver(b"X", encode(make("ping", id=900 + i,
                                                                          c=1.0)))]
    kinds = [a["t"] if a["t"] != "error" else a["code"] for a in answers]
    assert kinds == ["pong"] * 10 + ["rate_limited"]


def test_flat_out_pace_is_never_limited_by_the_defaults() -> None:
    """A flat-out bot sends ~1,000-2,000 messages a second (benchmarks/net_latency.py,
    docs/benchmarks.md); three seconds at 3,000 a second pass untouched."""
    t = unmeasured_race_table()
    hb = encode(make("hb"))
    for i in range(9000):
        t.deliver(b"A", hb, at=100.0 + i / 3000)
    assert t.arbiter.limiter.dropped == 0


def test_rate_limited_multipart_messages_count_too() -> None:
    t = unmeasured_race_table(rate_limit=1.0, rate_burst=2.0)
    replies = [r for _ in range(10) for r in t.deliver_parts(b"X", [b"a", b"b"])]
    assert [r["code"] for r in replies] == ["malformed", "malformed", "rate_limited"]


def test_idle_buckets_are_forgotten_when_many_connections_come_and_go() -> None:
    from lan_demon.net.guard import RateLimiter
    t = unmeasured_race_table()
    for i in range(RateLimiter.PRUNE_AT + 10):
        t.deliver(b"p%d" % i, encode(make("hb")), at=100.0 + i / 1000)
    assert len(t.arbiter.limiter.buckets) < RateLimiter.PRUNE_AT


# --- replays, forged seats, timestamps ------------------------------------------------------------


def test_a_replayed_move_frame_is_refused_as_duplicate_and_not_applied_again() -> None:
    t = unmeasured_race_table(fairness_ms=0)
    turn = encode(make("move", id=40, round=0, move={"t": "turn"}, ts=t.now))
    assert t.committed(t.deliver(b"A", turn), 40)
    waste = RD.state_to_data(t.arbiter.state)["seats"][0]["waste"]
    for _ in range(3):
        refused_once(t, b"A", turn, "duplicate", re=40)
    assert RD.state_to_data(t.arbiter.state)["seats"][0]["waste"] == waste


def test_a_refused_move_s_id_is_spent_too_and_other_connections_have_their_own_ids() -> None:
    t = unmeasured_race_table(fairness_ms=0)
    (err,) = t.send(b"A", "move", id=7, round=0, move={"t": "jump"}, ts=t.now)
    assert err["code"] == "bad_move"
    refused_once(t, b"A", encode(make("move", id=7, round=0, move={"t": "turn"}, ts=t.now)),
                 "duplicate", re=7)
    ok = t.send(b"B", "move", id=7, round=0, move={"t": "turn"}, ts=t.now)
    assert t.committed(ok, 7)  # Bob's connection counts its own ids


def test_a_reconnected_seat_counts_its_request_ids_afresh() -> None:
    t = unmeasured_race_table(fairness_ms=0)
    t.send(b"A", "move", id=2, round=0, move={"t": "turn"}, ts=t.now)
    token = t.arbiter.seats[0].token
    t.send(b"A2", "hello", id=1, name="Ann", role="player", token=token)
    assert t.committed(t.send(b"A2", "move", id=2, round=0, move={"t": "turn"}, ts=t.now), 2)


def test_rd2_a_seat_named_anywhere_in_a_move_moves_only_the_sender_s_cards() -> None:
    """RD-2 / RD-10: a connection plays for its own seat; a "seat" field is never obeyed: in
    the message it is ignored (§2: unknown fields are ignored), in the move map it is refused
    (bad_move: a move map holds its move's fields only, §14)."""
    t = unmeasured_race_table(fairness_ms=0)
    bob = RD.state_to_data(t.arbiter.state)["seats"][1]
    inside = make("move", id=76, round=0, move={**PLAY, "seat": 1}, ts=t.now)
    refused_once(t, b"A", encode(inside), "bad_move", re=76)
    forged = make("move", id=77, round=0, move=PLAY, ts=t.now)
    forged["seat"] = 1
    t.deliver(b"A", encode(forged))
    assert t.arbiter.state.stacks[1].cards[-1] == c("2H", 0)  # Ann's own 2♥
    assert RD.state_to_data(t.arbiter.state)["seats"][1] == bob


def test_a_connection_without_a_seat_cannot_move_for_one() -> None:
    t = unmeasured_race_table()
    refused_once(t, b"Z", encode(make("move", id=1, round=0, move=PLAY, ts=t.now, seat=0)),
                 "not_joined", re=1)


def test_rd11_a_timestamp_from_the_future_counts_as_the_arrival() -> None:
    """A move that claims to be played later than it arrived is placed at its arrival: a
    future timestamp never helps, and never hurts an honest clock's slight skew."""
    t = unmeasured_race_table(fairness_ms=100)
    t.send(b"B", "move", at=10.0, round=0, move=PLAY, ts=1e12)
    assert t.arbiter.race.held[0].ts == 10.0


def test_rd11_a_timestamp_from_the_far_past_cannot_jump_the_queue() -> None:
    """Bob really played first; Ann claims a time long before the round began. She is placed
    no earlier than her arrival less her (capped) one-way delay and the tolerance: Bob wins."""
    t = unmeasured_race_table(fairness_ms=100)
    t.send(b"B", "move", at=10.150, round=0, move=PLAY, ts=10.150)
    t.send(b"A", "move", at=10.160, round=0, move=PLAY, ts=-1e12)
    assert t.arbiter.race.held[-1].ts == pytest.approx(10.160 - TOLERANCE)
    t.tick(10.3)
    assert t.arbiter.state.stacks[1].cards[-1] == c("2H", 1)  # Bob's
    (beaten,) = [m for m in t.inbox[b"A"] if m["t"] == "error"]
    assert beaten["code"] == "beaten" and beaten["by"] == 1


def test_rd11_made_up_echoes_cannot_buy_a_longer_delay() -> None:
    """The delay that lets a timestamp be earlier than its arrival is measured from probes the
    arbiter sent: echoes of probes never sent, or sent twice, are ignored."""
    t = unmeasured_race_table(fairness_ms=100)
    ann = t.arbiter.seats[0]
    ann.rtts = []
    for i in range(8):
        t.send(b"A", "echo", at=200.0 + i, a=191.0 + i)  # "your probe took 9 s"
    assert ann.rtts == []
    t.tick(208.0)  # a beat: a real probe to Ann
    (probe,) = [m for m in t.inbox[b"A"] if m["t"] == "probe" and m["a"] == 208.0]
    t.send(b"A", "echo", at=208.004, a=probe["a"])
    t.send(b"A", "echo", at=209.0, a=probe["a"])  # the same probe again
    assert ann.rtts == [pytest.approx(0.004)]


def test_rd11_even_a_slow_echo_buys_at_most_the_capped_delay() -> None:
    """A connection may hold its echoes back to look far away; the delay a timestamp is
    allowed is capped at the host's lag cap (LAG_CAP_MS, tolerance included) all the same."""
    t = unmeasured_race_table(fairness_ms=250)
    t.arbiter.seats[0].rtts = [8.0]  # measured 8 s round trips (echoes held back)
    t.send(b"B", "move", at=50.0, round=0, move=PLAY, ts=50.0)
    t.send(b"A", "move", at=50.2, round=0, move=PLAY, ts=40.0)  # "played 10 s ago"
    assert t.arbiter.race.held[-1].ts == pytest.approx(50.2 - LAG_CAP_MS / 1000)
    t.tick(50.3)
    assert t.arbiter.state.stacks[1].cards[-1] == c("2H", 1)  # Bob played first, Bob wins
