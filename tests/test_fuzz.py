"""A live arbiter under attack during a match of flat-out bots (PROTOCOL.md §2, §10).

An ArbiterServer on 127.0.0.1 with a journal; flat-out greedy bots play a Racing Demon match
through it (``run_pool``, in this thread); an attacker's DEALER sends what hypothesis makes:
random bytes, random msgpack structures (``st.recursive`` over every msgpack type), mutations
of valid client messages (fields dropped, replaced, added; bytes flipped, cut, appended), and
multi-part messages. The attacker and the bots take turns: after each example the attacker
sends a marker ping and the bots play until its pong is back and at least one more update is
out, so the examples land while the match is on and play goes on between them (should the
match end first, the rest hit the finished table). Then a flood of heartbeats, far over the
rate limit; then the bots finish the match. Checked:

* every frame got exactly the replies it should, in order: a frame that does not decode an
  ``error`` with the codec's code (and ``re`` when its id can be read), a valid request its
  usual answer, ``hb``/``echo`` nothing — or it was dropped by the rate limit, which the
  arbiter counts, and the attacker was told so with ``rate_limited`` errors;
* nothing failed inside (no ``internal`` error, nothing logged);
* the bots were never rate-limited, the match ended normally, and its result is the one the
  journal replays to; the arbiter still answers afterwards.

The CI run is short (60 examples, a flood of 40,000 frames, a match of 2 rounds). The long
mode throws far more at a longer match, with fresh random seeds each run::

    LAN_DEMON_FUZZ_LONG=1 .venv/bin/python -m pytest tests/test_fuzz.py -q

(3,000 examples, a flood of 200,000 frames, 3 bots, 6 rounds; a few minutes.)
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import Any

import msgpack
import pytest
import zmq
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from table_settings import settings as table_settings
from lan_demon.bots.runner import make_bot, run_pool
from lan_demon.net.codec import (FROM_CLIENT, MAX_MESSAGE, ProtocolError, decode, decode_all,
                                 encode, make, request_id)
from lan_demon.net.replay import replay
from lan_demon.net.server import ArbiterServer

LONG = os.environ.get("LAN_DEMON_FUZZ_LONG") == "1"
EXAMPLES = 3000 if LONG else 60
FLOOD = 200_000 if LONG else 40_000
PLAYERS, ROUNDS = (3, 6) if LONG else (2, 2)
MARKER_C = -1.25  # the c of the attacker's marker pings (it marks the end of one example)
ANSWER = {"hello": {"welcome", "error"}, "ping": {"pong"}, "ready": {"error"},
          "start": {"error"}, "move": {"error"}, "snapshot": {"snap"}, "leave": {"ok"}}

pytestmark = pytest.mark.timeout(1800 if LONG else 90)


# --- what the attacker sends --------------------------------------------------------------------

_LEAVES = (st.none() | st.booleans() | st.integers(-2**63, 2**64 - 1)
           | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=12)
           | st.binary(max_size=12))
_KEYS = st.sampled_from(["v", "t", "id", "c", "a", "move", "ts", "round", "name", "role",
                         "token", "bot", "seat"]) | st.text(max_size=4)
_STRUCTURES = st.recursive(
    _LEAVES,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_KEYS, inner, max_size=4),
    max_leaves=20)
_TYPES = sorted(FROM_CLIENT) + ["welcome", "update", "nonsense"]
_VALID = [
    make("hello", id=1, name="Mallory", role="spectator"),
    make("hello", id=2, name="Mallory", role="player", token="00" * 8, bot=True),
    make("ping", id=3, c=1.5),
    make("echo", a=100.0),
    make("ready", id=4),
    make("start", id=5),
    make("move", id=6, round=0, move={"t": "play", "from": "c1", "to": "s1"}, ts=1.0),
    make("move", id=7, round=0, move={"t": "turn"}, ts=1.0),
    make("snapshot", id=8),
    make("hb"),
    make("leave", id=9),
]


@st.composite
def _mutated(draw: Any) -> bytes:
    """A valid client message with some of its fields dropped, replaced or added."""
    msg = dict(draw(st.sampled_from(_VALID)))
    for _ in range(draw(st.integers(1, 3))):
        action = draw(st.sampled_from(["drop", "replace", "add", "type", "id"]))
        if action == "drop" and msg:
            del msg[draw(st.sampled_from(sorted(msg)))]
        elif action == "replace" and msg:
            msg[draw(st.sampled_from(sorted(msg)))] = draw(_STRUCTURES)
        elif action == "add":
            msg[draw(_KEYS)] = draw(_STRUCTURES)
        elif action == "type":
            msg["t"] = draw(st.sampled_from(_TYPES))
        else:
            msg["id"] = draw(st.integers(-2**63, 2**64 - 1))
    return msgpack.packb(msg, use_bin_type=True)


@st.composite
def _damaged(draw: Any) -> bytes:
    """A valid frame with a byte flipped, cut short, or with bytes after it."""
    frame = bytearray(encode(draw(st.sampled_from(_VALID))))
    how = draw(st.sampled_from(["flip", "cut", "append"]))
    if how == "flip":
        i = draw(st.integers(0, len(frame) - 1))
        frame[i] ^= draw(st.integers(1, 255))
    elif how == "cut":
        frame = frame[:draw(st.integers(0, len(frame) - 1))]
    else:
        frame += draw(st.binary(min_size=1, max_size=8))
    return bytes(frame)


def _packed(value: Any) -> bytes:
    return msgpack.packb(value, use_bin_type=True)


_FRAMES = (st.binary(max_size=200) | _STRUCTURES.map(_packed)
           | st.dictionaries(st.integers(-5, 5) | _KEYS, _STRUCTURES, max_size=3).map(_packed)
           | _mutated() | _damaged())
_SENDS = st.lists(st.lists(_FRAMES, min_size=1, max_size=1) | st.lists(_FRAMES, min_size=2,
                                                                       max_size=3),
                  min_size=1, max_size=8)


def expected(parts: list[bytes]) -> tuple[str, str | None, int | None]:
    """What the arbiter must answer to one message: ("error", code, re), ("answer", type, re),
    or ("none", None, None) for a valid hb/echo."""
    if len(parts) != 1:
        return "error", "malformed", None
    frame = parts[0]
    try:
        msg = decode(frame, "client")
    except ProtocolError as err:
        return "error", err.code, request_id(frame)
    if msg["t"] in ("hb", "echo"):
        return "none", None, None
    return "answer", msg["t"], msg["id"]


# --- the attacker ------------------------------------------------------------------------------


@dataclass
class Attacker:
    """A DEALER with its own routing id, sending frames and keeping every reply."""

    sock: zmq.Socket
    replies: list[dict] = field(default_factory=list)
    sent: int = 0
    markers: int = 0

    def send(self, parts: list[bytes]) -> None:
        self.sock.send_multipart(parts)
        self.sent += 1

    def drain(self) -> None:
        while True:
            try:
                frame = self.sock.recv(zmq.NOBLOCK)
            except zmq.Again:
                return
            self.replies += decode_all(frame, "private")

    def marker(self) -> int:
        self.markers += 1
        rid = 2_000_000_000 + self.markers
        self.send([encode(make("ping", id=rid, c=MARKER_C))])
        return rid

    def got(self, **fields: Any) -> dict | None:
        """The first reply with these field values, once it has come."""
        self.drain()
        return next((r for r in self.replies
                     if all(r.get(k, "-") == v for k, v in fields.items())), None)

    def answered(self, rid: int) -> bool:
        self.drain()
        return any(r["t"] == "pong" and r["re"] == rid and r["c"] == MARKER_C
                   for r in self.replies[-3:])


def wait_for(condition: Any, bots: list, attacker: Attacker, timeout: float = 30.0) -> None:
    """Let the bots play until ``condition()`` holds (after the match: wait on the
    attacker's socket for it)."""
    deadline = time.monotonic() + timeout
    if not all(b.done for b in bots):
        run_pool(bots, until=condition, timeout=timeout)
    while not condition():
        assert time.monotonic() < deadline, "the arbiter stopped answering"
        attacker.sock.poll(50)


def sync(attacker: Attacker, bots: list, give_up: float = 60.0) -> list[int]:
    """Marker pings until one is answered (a marker may be dropped by the rate limit too);
    by then every earlier frame has been answered. Returns the markers' ids."""
    markers: list[int] = []
    deadline = time.monotonic() + give_up
    while not markers or not attacker.answered(markers[-1]):
        assert time.monotonic() < deadline, "the arbiter stopped answering"
        markers.append(attacker.marker())
        retry = time.monotonic() + 0.2
        wait_for(lambda: attacker.answered(markers[-1]) or time.monotonic() > retry,
                 bots, attacker)
    return markers


def check_replies(got: list[dict], sent: list[list[bytes]]) -> None:
    """The replies to one example, in order, against what each message must get."""
    want = [e for e in map(expected, sent) if e[0] != "none"]
    assert len(got) == len(want), (got, want)
    for reply, (kind, what, rid) in zip(got, want):
        assert reply.get("code") != "internal", reply
        if kind == "error":
            assert reply["t"] == "error" and reply["code"] == what, (reply, what)
        else:
            assert reply["t"] in ANSWER[what], (reply, what)
        assert reply.get("re") == rid, (reply, rid)


# --- the test ----------------------------------------------------------------------------------


def test_a_live_arbiter_survives_fuzzing_and_flooding_during_a_match(context, tmp_path, capfd):
    journal = tmp_path / "match.journal"
    server = ArbiterServer(table_settings("racing-demon", players=PLAYERS, rounds=ROUNDS, seed=11,
                                  countdown=0, pause=0), port=0, journal=str(journal),
                           context=context).start()
    bots: list = []
    sock = context.socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    sock.setsockopt(zmq.ROUTING_ID, b"attacker")
    sock.setsockopt(zmq.SNDTIMEO, 10_000)
    try:
        bots = [make_bot(server.address, "greedy", f"bot{i}", seed=i, speed="flat-out",
                         context=context) for i in range(PLAYERS)]
        sock.connect(server.address)
        attacker = Attacker(sock)
        arbiter = server.arbiter
        run_pool(bots, until=lambda: arbiter.phase == "playing", timeout=30)
        during_match = []

        @settings(max_examples=EXAMPLES, deadline=None, derandomize=not LONG, database=None,
                  suppress_health_check=list(HealthCheck))
        @given(sends=_SENDS)
        def attack(sends: list[list[bytes]]) -> None:
            during_match.append(arbiter.phase != "over")
            first, seq = len(attacker.replies), arbiter.records.seq
            for parts in sends:
                assert all(len(p) <= MAX_MESSAGE for p in parts)
                attacker.send(parts)
            rid = attacker.marker()
            # the bots play on meanwhile: at least one more update, unless the match is over
            wait_for(lambda: attacker.answered(rid) and (arbiter.records.seq > seq
                                                         or arbiter.phase == "over"),
                     bots, attacker)
            check_replies(attacker.replies[first:-1], sends)

        attack()
        limiter = arbiter.limiter
        assert limiter.dropped == 0, "the fuzzing alone was rate-limited"
        assert during_match[0] and sum(during_match) >= 1

        # a flood of heartbeats, far over the rate limit: dropped, the attacker told so
        first = len(attacker.replies)
        hb = encode(make("hb"))
        for _ in range(FLOOD):
            attacker.send([hb])
        markers = sync(attacker, bots)
        flood_replies = attacker.replies[first:]
        limited = [r for r in flood_replies if r.get("code") == "rate_limited"]
        pongs = [r for r in flood_replies if r["t"] == "pong" and r["re"] in markers]
        assert len(limited) + len(pongs) == len(flood_replies)  # nothing else came back
        assert all(r.get("re") in (None, *markers) for r in limited)
        dropped = limiter.buckets[b"attacker"].dropped
        assert dropped > 0 and len(limited) == limiter.warned >= 1
        assert 1 <= len(pongs) <= len(markers) and len({p["re"] for p in pongs}) == len(pongs)

        # the rest of the table was never limited, and the match ends normally
        assert limiter.dropped == dropped
        assert all(b.dropped == 0 for peer, b in limiter.buckets.items() if peer != b"attacker")
        run_pool(bots, timeout=120)
        assert arbiter.phase == "over" and all(b.done for b in bots)
        assert replay(journal).match.result_data() == arbiter.result
        assert server._thread is not None and server._thread.is_alive()
        sync(attacker, bots)  # still answering
        assert "internal error" not in capfd.readouterr().err
    finally:
        sock.close(linger=0)
        for bot in bots:
            bot.client.close()
        server.stop()


def test_an_oversized_frame_drops_only_that_connection_and_the_table_goes_on(context):
    """§2: a frame over MAX_MESSAGE is refused too_big; one over the socket's limit (MAXMSGSIZE,
    MAX_MESSAGE + 1024) is never read: ZeroMQ drops that connection, unanswered. The DEALER
    reconnects as a new peer, which holds no seat until it says hello with its token."""
    server = ArbiterServer(table_settings("racko", players=2, countdown=0, pause=0), port=0,
                           context=context).start()
    bob = context.socket(zmq.DEALER)
    eve = Attacker(context.socket(zmq.DEALER))
    try:
        for sock in (bob, eve.sock):
            sock.setsockopt(zmq.LINGER, 0)
            sock.connect(server.address)
        eve.send([encode(make("hello", id=1, name="Eve", role="player"))])
        wait_for(lambda: eve.got(re=1), [], eve)
        token = eve.got(re=1)["token"]
        eve.send([encode(make("ping", id=2, c=1.0, pad="x" * MAX_MESSAGE))])  # 64 KiB + a bit
        wait_for(lambda: eve.got(code="too_big"), [], eve)
        assert "re" not in eve.got(code="too_big")  # too big to read its id
        before = len(eve.replies)
        eve.send([b"\x80" * (MAX_MESSAGE + 4096)])  # over the socket's limit
        sync(eve, [])  # answered again, on a new connection
        assert {r["t"] for r in eve.replies[before:]} == {"pong"}  # the big one: no answer
        eve.send([encode(make("ready", id=3))])
        wait_for(lambda: eve.got(re=3), [], eve)
        assert eve.got(re=3)["code"] == "not_joined"  # the old connection held the seat
        eve.send([encode(make("hello", id=4, name="Eve", role="player", token=token))])
        wait_for(lambda: eve.got(re=4), [], eve)
        assert eve.got(re=4)["t"] == "welcome" and eve.got(re=4)["seat"] == 0
        bob.send(encode(make("ping", id=1, c=1.0)))  # the rest of the table: served as ever
        assert bob.poll(10_000) and decode(bob.recv(), "private")["t"] == "pong"
    finally:
        bob.close(linger=0)
        eve.sock.close(linger=0)
        server.stop()


def test_a_bug_in_the_serve_loop_is_logged_and_the_arbiter_goes_on_serving(context, capfd):
    """Arbiter.handle catches its own failures; the socket loop catches what escapes around it
    (a step that raises, a reply that cannot be encoded) the same way: one line, and on."""
    server = ArbiterServer(table_settings("racko", players=2, countdown=0, pause=0), port=0,
                           context=context)
    arbiter = server.arbiter
    handle, tick = arbiter.handle_into, arbiter.tick
    failures = {"tick": 1}

    def broken_handle(peer: bytes, frame: bytes, now: float, *rest: Any) -> Any:
        if frame == b"boom":
            raise RuntimeError("a bug in a step, on purpose")
        return handle(peer, frame, now, *rest)

    def broken_tick(now: float) -> Any:
        if failures["tick"]:
            failures["tick"] -= 1
            raise RuntimeError("a bug in a tick, on purpose")
        return tick(now)

    arbiter.handle_into, arbiter.tick = broken_handle, broken_tick  # what the loop calls
    server.start()
    eve = Attacker(context.socket(zmq.DEALER))
    try:
        eve.sock.setsockopt(zmq.LINGER, 0)
        eve.sock.connect(server.address)
        eve.send([b"boom"])
        sync(eve, [])
        assert [r["t"] for r in eve.replies] == ["pong"]  # the broken step answered nothing
        err = capfd.readouterr().err
        assert "a bug in a step" in err and "a bug in a tick" in err
        assert server._thread is not None and server._thread.is_alive()
    finally:
        eve.sock.close(linger=0)
        server.stop()
