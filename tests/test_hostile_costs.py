"""What a hostile peer can cost the table: frames that are cheap to send must be cheap to
refuse, one peer that never reads must not grow the arbiter's memory, and the room code must
hold against many addresses without turning the right code away (PROTOCOL.md §2, §10, §20).
Pure arbiter and throttle with a fake clock, except the socket checks of the bounded queues
(127.0.0.1)."""

from __future__ import annotations

import msgpack
import pytest
import zmq

from table_settings import settings
from arbiter_harness import Table
from arbiter_harness import unmeasured_race_table
from lan_demon.commands.options import check_code
from lan_demon.net.outbox import Outbox
from lan_demon.net.seated import Sender
from lan_demon.net.codec import (MAX_MESSAGE, UNPACK_LIMITS, ProtocolError, decode, encode,
                                 make)
from lan_demon.net.guard import (BYTES_PER_TOKEN, MALFORMED_COST, SNAPSHOT_BURST, SNAPSHOT_COST,
                                 SNAPSHOT_RATE, frame_cost)
from lan_demon.net.security import (CODE_ALPHABET, CodeThrottle, codes_match, format_code,
                                    new_code, normalize_code)
from lan_demon.net.server import PUB_SNDHWM, ROUTER_RCVHWM, ROUTER_SNDHWM, ArbiterServer

pytestmark = pytest.mark.timeout(60)


def _list_frame(n: int) -> bytes:
    """An ``hb`` carrying an ``n``-element list of small ints (one byte each): the attack."""
    return b"\x83\xa1v\x01\xa1t\xa2hb\xa1x" + b"\xdd" + n.to_bytes(4, "big") + b"\x00" * n


# --- cheap to refuse --------------------------------------------------------------------------

def test_a_client_frame_is_capped_at_a_few_kilobytes() -> None:
    hello = encode(make("hello", id=1, name="€" * 24, role="player", token="t" * 22,
                        bot=True, code="KQZR-MWTB"))
    assert len(hello) < 200 and 2 * 1024 <= MAX_MESSAGE <= 4 * 1024
    assert decode(hello)["name"] == "€" * 24  # the largest legitimate message is read
    with pytest.raises(ProtocolError) as err:
        decode(_list_frame(60_000))  # a 60 KB frame: refused on its length alone
    assert err.value.code == "too_big"


def test_msgpack_refuses_a_long_list_from_its_header_before_building_it() -> None:
    """Under the byte cap, a list header asking for 60,000 elements is refused by msgpack on
    reading the header (the body is not even there to build); so is a real 1,500-element list
    that fits in 2 KiB, and a map, string, bin or ext longer than a client message needs."""
    header_only = _list_frame(60_000)[:40]
    with pytest.raises(ValueError, match="60000 exceeds max_array_len"):
        msgpack.unpackb(header_only, raw=False, **UNPACK_LIMITS)
    fits = _list_frame(1_500)
    assert len(fits) <= MAX_MESSAGE
    with pytest.raises(ValueError, match="exceeds max_array_len"):
        msgpack.unpackb(fits, raw=False, **UNPACK_LIMITS)
    with pytest.raises(ProtocolError) as err:
        decode(fits)
    assert err.value.code == "malformed" and "max_array_len" in err.value.reason
    for big in ({f"k{i}": 0 for i in range(40)}, "x" * 300, b"x" * 300,
                msgpack.ExtType(1, b"x" * 300)):
        frame = msgpack.packb({"v": 1, "t": "hb", "x": big}, use_bin_type=True)
        assert len(frame) <= MAX_MESSAGE
        with pytest.raises(ProtocolError) as err:
            decode(frame)
        assert err.value.code == "malformed" and "exceeds" not in err.value.reason


def test_the_rate_limit_weighs_a_frame_by_its_bytes() -> None:
    """One token per started 128 bytes: a 2 KiB frame drains the
    bucket fifteen or sixteen times as fast as a small one."""
    small = encode(make("hb"))
    big = encode({**make("hb"), "pad": "x" * 200, **{f"p{i}": "y" * 200 for i in range(8)}})
    assert 1792 < len(big) <= MAX_MESSAGE and BYTES_PER_TOKEN == 128
    assert frame_cost(len(small)) == 1 and frame_cost(len(big)) == 15
    t = unmeasured_race_table(rate_limit=1.0, rate_burst=48.0)
    for frame, admitted in ((small, 48), (big, 3)):
        t.arbiter.limiter.buckets.clear()
        before = t.arbiter.limiter.dropped
        for _ in range(80):
            t.deliver(b"X", frame)
        assert t.arbiter.limiter.dropped - before == 80 - admitted


def test_a_frame_the_codec_refuses_costs_the_rate_limit_sixteen_times_a_move() -> None:
    """Junk (not msgpack, a bad field) is answered with an error, which is dearer than
    dropping it: each refused frame costs MALFORMED_COST tokens, so a junk flood is answered
    at a sixteenth of the rate an honest client's messages are."""
    t = unmeasured_race_table(rate_limit=1.0, rate_burst=64.0)
    before = t.arbiter.limiter.dropped
    replies = [r for _ in range(64) for r in t.deliver(b"X", b"\xc1junk")]
    assert len([r for r in replies if r["code"] == "malformed"]) == 64 // MALFORMED_COST
    assert t.arbiter.limiter.dropped - before == 64 - 64 // MALFORMED_COST


def test_snapshots_are_limited_per_connection_and_cost_more_than_a_move() -> None:
    """The (n+1)-th snapshot in a burst is refused rate_limited (once a second), the rest are
    dropped unanswered; a second later SNAPSHOT_RATE more are answered. Each costs
    SNAPSHOT_COST tokens of the connection's rate limit."""
    t = unmeasured_race_table()
    start = t.now
    kinds = [r["t"] if r["t"] != "error" else (r["code"], r["re"])
             for i in range(30) for r in t.send(b"A", "snapshot", id=100 + i)]
    burst = int(SNAPSHOT_BURST)
    assert kinds == ["snap"] * burst + [("rate_limited", 100 + burst)]
    t.now = start + 1.0
    kinds = [r["t"] if r["t"] != "error" else r["code"]
             for i in range(30) for r in t.send(b"A", "snapshot", id=200 + i)]
    assert kinds == ["snap"] * int(SNAPSHOT_RATE) + ["rate_limited"]
    (pong,) = t.send(b"B", "ping", c=1.0)  # another seat is not affected
    assert pong["t"] == "pong"
    # the weight: a bucket of 100 tokens pays for 100 pings, or for 100 // 16 snapshots
    t = unmeasured_race_table(rate_limit=0.001, rate_burst=100.0)
    t.arbiter.limiter.buckets.clear()
    answered = [r for i in range(20) for r in t.send(b"A", "snapshot", id=300 + i)]
    kinds = [r["t"] if r["t"] != "error" else r["code"] for r in answered]
    assert kinds == ["snap"] * (100 // SNAPSHOT_COST + 1) + ["rate_limited"]
    assert t.send(b"A", "ping", c=1.0) == []  # the bucket is spent (below zero)


# --- bounded memory ---------------------------------------------------------------------------

def test_the_router_and_the_pub_bound_their_queues(context) -> None:
    server = ArbiterServer(settings("racko", players=2), port=0, context=context)
    try:
        assert server.router.getsockopt(zmq.SNDHWM) == ROUTER_SNDHWM
        assert server.router.getsockopt(zmq.RCVHWM) == ROUTER_RCVHWM
        assert server.pub.getsockopt(zmq.SNDHWM) == PUB_SNDHWM
        assert 0 < ROUTER_SNDHWM <= 1000 and 0 < PUB_SNDHWM <= 10_000
        assert server.router.getsockopt(zmq.MAXMSGSIZE) == MAX_MESSAGE + 1024
    finally:
        server.stop()


def test_replies_to_a_peer_that_never_reads_are_dropped_not_queued(context) -> None:
    """64 MB of replies to a peer that reads nothing: the ROUTER's send neither blocks nor
    raises (the loop goes on serving Bob), and what the peer finds when it reads at last is
    bounded by the high-water marks and the kernel's buffers, not everything that was sent."""
    server = ArbiterServer(settings("racko", players=2), port=0, context=context)
    eve, bob = context.socket(zmq.DEALER), context.socket(zmq.DEALER)
    try:
        eve.setsockopt(zmq.ROUTING_ID, b"eve")
        eve.setsockopt(zmq.RCVHWM, 1)
        for sock in (eve, bob):
            sock.setsockopt(zmq.LINGER, 0)
            sock.connect(server.address)
        eve.send(encode(make("ping", id=1, c=1.0)))
        poller = zmq.Poller()
        poller.register(server.router, zmq.POLLIN)
        assert poller.poll(10_000)
        out = Outbox()
        server._drain(out)  # eve's connection is known to the ROUTER now
        server._send(out)
        assert eve.poll(10_000) and decode(eve.recv(), "private")["t"] == "pong"
        sent = 4000
        junk = make("snap", re=1, seq=0, table={"pad": "x" * 16_000})
        for _ in range(sent):  # one reply a wake-up (a wake-up's replies share a frame)
            out = Outbox()
            out.private.append((b"eve", junk))
            server._send(out)  # returns: a full pipe drops, it does not block
        bob.send(encode(make("ping", id=1, c=1.0)))
        assert poller.poll(10_000)
        out = Outbox()
        server._drain(out)
        server._send(out)
        assert bob.poll(10_000) and decode(bob.recv(), "private")["t"] == "pong"
        got = 0
        while eve.poll(1000):  # a deadline: whatever was queued arrives long before it
            eve.recv()
            got += 1
        assert 0 < got < sent
    finally:
        eve.close(linger=0)
        bob.close(linger=0)
        server.stop()


# --- a room code that holds -------------------------------------------------------------------

def test_the_code_is_eight_letters_shown_in_two_groups_and_typed_any_way() -> None:
    code = new_code()
    assert len(code) == 8 and set(code) <= set(CODE_ALPHABET)
    assert format_code("KQZRMWTB") == "KQZR-MWTB"
    for typed in ("KQZR-MWTB", "kqzr-mwtb", "kqzr mwtb", " KQZRMWTB ", "Kqzr - Mwtb"):
        assert normalize_code(typed) == "KQZRMWTB"
        assert codes_match(typed, "KQZRMWTB")
        assert check_code(typed, "--code") == "KQZRMWTB"  # join --code / host --code
    assert not codes_match("KQZR-MWTA", "KQZRMWTB")


def _attack(throttle: CodeThrottle, addresses: list[str], start: float, seconds: float,
            step: float = 0.05) -> list[float]:
    """Every address tries a wrong code whenever the throttle would look at it; returns the
    times of the tries that were looked at."""
    looked = []
    now = start
    while now < start + seconds:
        for address in addresses:
            if throttle.wait(address, now) == 0.0:
                throttle.failed(address, now)
                looked.append(now)
        now += step
    return looked


def test_two_hundred_addresses_are_held_to_the_table_wide_rate() -> None:
    """Fake clock. Each of 200 addresses guesses whenever allowed: beyond the table's burst and
    each address's small allowance, the whole table gets table_rate wrong codes a second; over
    a 4-hour evening that bound leaves under a 1-in-10,000 chance (CodeThrottle's docstring)."""
    throttle = CodeThrottle()
    addresses = [f"10.0.{i // 250}.{i % 250}" for i in range(200)]
    looked = _attack(throttle, addresses, 0.0, 120.0)
    assert len(looked) <= throttle.table_burst + 120 * throttle.table_rate + \
        200 * throttle.reserve
    late = [t for t in looked if t >= 60.0]  # the allowances are spent by then
    assert len(late) <= 60 * throttle.table_rate + 2  # + what the bucket held at 60 s
    evening = 4 * 3600
    tries = throttle.table_rate * evening + throttle.table_burst + \
        200 * throttle.reserve * -(-evening // throttle.forget)
    assert tries / len(CODE_ALPHABET) ** 8 < 1e-4


def test_the_right_code_from_a_slowed_address_gets_in_after_a_short_wait() -> None:
    """While 200 other addresses keep the table-wide brake saturated, an address that has made
    eight mistakes itself is told to wait at most a few seconds, and then its right code is
    looked at and let in: the guessers cannot take its own allowance."""
    code = "KQZRMWTB"
    SHORT_WAIT = 5.0  # seconds: "a few"
    t = Table("racko", code=code, players=None)
    throttle = t.arbiter.seating.throttle
    guessers = [Sender(None, f"10.1.{i // 250}.{i % 250}") for i in range(200)]
    me = Sender(None, "192.168.1.7")
    ids = iter(range(1, 10**6))

    def hello(peer: bytes, sender: Sender, given: str) -> dict:
        rid = next(ids)
        frame = encode(make("hello", id=rid, name="x", role="player", code=given))
        out = t.arbiter.handle(peer, frame, t.now, sender)
        return [decode(encode(m), "private") for p, m in out.private
                if p == peer and m.get("re") == rid][0]

    def guessing(seconds: float) -> None:
        end = t.now + seconds
        while t.now < end:
            for i, g in enumerate(guessers):
                hello(b"g%d" % i, g, "AAAAAAAA")
            t.now += 0.1

    guessing(30.0)  # the guessers have spent their allowances; the table's bucket is empty
    assert throttle.wait("10.9.9.9", t.now) == 0.0  # a fresh address still gets a look
    for _ in range(8):  # my own typos, each as soon as I may
        while (reply := hello(b"me", me, "KQZR-MWTA"))["code"] == "slow_down":
            assert reply["wait"] <= SHORT_WAIT
            guessing(reply["wait"])
    reply = hello(b"me", me, "kqzr-mwtb")
    if reply["t"] == "error":
        assert reply["code"] == "slow_down" and reply["wait"] <= throttle.cap
        guessing(reply["wait"])
        reply = hello(b"me", me, "kqzr mwtb")
    assert reply["t"] == "welcome"


def test_a_host_cannot_pick_a_room_code_shorter_than_a_made_one(capsys) -> None:
    """`host --code CAT` would undo the long code: refused in one line, before anything binds."""
    from lan_demon.cli import main
    assert main(["host", "--port", "0", "--code", "cat"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "at least 8 letters" in err and "CAT" not in err
