"""RD-11 races judged by arrival. A move's claimed time is believed only down
to its arrival less the lag cap (PROTOCOL.md §8) — its arrival, not the moment its turn to be
handled came. A liar's friend that sends a burst of snapshots from 300 connections just before
an honest player plays must not make the honest move look late.

The attack is played through the server's own drain (:meth:`ArbiterServer._drain`) on a
simulated wire: frames reach the host at set times and are handed over in that order (ZeroMQ's
fair queue gives each ready connection's frame in turn, so one frame from each of 300
connections that became ready first is read before the move), and the arbiter's clock moves
only as it works — reading a frame, handling one, building a snapshot. Deterministic, no
sockets read; the figures of the real thing are benchmarks/race_burst.py's.
"""

from __future__ import annotations

import heapq
import itertools
from typing import Any

import pytest
import zmq

from arbiter_harness import PLAY, Table, race_table
from lan_demon.net.codec import encode, make
from lan_demon.net.guard import STRANGER_BURST
from lan_demon.net.outbox import Outbox
from lan_demon.net.seated import Sender
from lan_demon.net.server import DRAIN, QUIET, RESTAMP, RESTAMP_AFTER, ArbiterServer

pytestmark = pytest.mark.timeout(60)

ANN, BOB = b"A", b"B"  # seat 0 (honest), seat 1 (the liar) of race_table
BURST = 300


class Wire:
    """The ROUTER as the drain sees it, and the arbiter's clock.

    ``arrive`` puts a frame on the wire at a time; ``receive`` hands over the next one that has
    arrived (by arrival), or raises ``zmq.Again``, as the socket does. The clock moves by
    :attr:`RECEIVE` per frame read, :attr:`HANDLE` per frame handled and :attr:`SNAPSHOT` more
    per snapshot built — 33-113 ms for 300 snapshots, as measured on a real host."""

    RECEIVE, HANDLE, SNAPSHOT = 10e-6, 40e-6, 300e-6

    def __init__(self, now: float):
        self.now = now
        self.queue: list[tuple[float, int, bytes, bytes, Sender]] = []
        self.order = itertools.count()

    def clock(self) -> float:
        return self.now

    def arrive(self, at: float, peer: bytes, msg: dict[str, Any], sender: Sender) -> None:
        heapq.heappush(self.queue, (at, next(self.order), peer, encode(msg), sender))

    def ready(self) -> bool:
        return bool(self.queue) and self.queue[0][0] <= self.now

    def next_at(self) -> float:
        return self.queue[0][0] if self.queue else float("inf")

    def receive(self) -> tuple[bytes, list[bytes], Sender]:
        if not self.ready():
            raise zmq.Again()
        _, _, peer, frame, sender = heapq.heappop(self.queue)
        self.now += self.RECEIVE
        return peer, [frame], sender


def on_the_wire(t: Table, context: zmq.Context) -> tuple[ArbiterServer, Wire, list[tuple]]:
    """The server around ``t``'s arbiter, reading from a :class:`Wire` instead of its ROUTER
    (its sockets are bound on 127.0.0.1 and never read), every frame read as the socket layer
    reads one with its sender's address. Also the ``(peer, now)`` of every frame handled."""
    server = ArbiterServer(t.arbiter.settings, arbiter=t.arbiter, context=context)
    wire = Wire(t.now)
    server.clock, server.identify = wire.clock, True
    server._receive_identified = wire.receive
    server._waiting = wire.ready
    arbiter, handled = t.arbiter, []
    handle = arbiter.handle_into

    def costly(peer: bytes, frame: bytes, now: float, out: Outbox, sender: Sender) -> None:
        had = len(out.private)
        handle(peer, frame, now, out, sender)
        handled.append((peer, now))
        built = sum(1 for _, m in out.private[had:] if m["t"] == "snap")
        wire.now += wire.HANDLE + built * wire.SNAPSHOT

    arbiter.handle_into = costly
    return server, wire, handled


def serve(server: ArbiterServer, wire: Wire) -> None:
    """The server's loop over the wire until nothing is left to read or held: a wake-up as
    soon as a frame is there (after a quiet wait of ``QUIET`` or more it answers one frame
    before reading on), or when the fairness window closes; then time passes (``tick``)."""
    arbiter = server.arbiter
    while wire.queue or arbiter.race.held_until is not None:
        most = DRAIN
        if not wire.ready():
            until = min(wire.next_at(), arbiter.race.held_until or float("inf"))
            if until - wire.now >= QUIET:
                most = 1
            wire.now = max(wire.now, until)
        if wire.ready():
            server._drain(Outbox(), most)
        arbiter.tick(wire.now)


@pytest.mark.parametrize("address", ["10.0.0.9", None])
def test_rd11_a_liar_helped_by_300_snapshots_wins_no_race_it_sent_12_ms_late(context, address):
    """RD-11: Ann (honest, 1 ms away) plays her 2♥ onto the A♥ at P. Just before her move
    arrives, the liar's friend's 300 connections (one address; ``None``: a plain loopback
    table, where every stranger's is the same) each ask a snapshot; Bob, whose echoes made him
    look 125 ms away, sends the same play 12-30 ms after Ann claiming he played a second
    before her. Whatever the burst's lead, Ann gets the stack every time, and the burst trips
    no flood brake (whose rests would hold back the frames behind it)."""
    lost = []
    for late_ms, lead_ms in itertools.product(range(12, 31), (0.05, 0.5, 2.0, 5.0)):
        t = race_table(rtts=(0.002, 0.250), fairness_ms=30)
        server, wire, _ = on_the_wire(t, context)
        try:
            played = t.now + 1.0
            ann = Sender(None, None if address is None else "10.0.0.2")
            bob = Sender(None, None if address is None else "10.0.0.3")
            friend = Sender(None, address)
            for k in range(BURST):
                wire.arrive(played + (1.0 - lead_ms + k * 1e-4 / BURST) / 1000,
                            b"x%03d" % k, make("snapshot", id=1), friend)
            wire.arrive(played + 0.001, ANN, make("move", id=7, round=0, move=PLAY, ts=played),
                        ann)
            wire.arrive(played + (late_ms + 0.1) / 1000, BOB,
                        make("move", id=7, round=0, move=PLAY, ts=played - 1.0), bob)
            serve(server, wire)
            assert server.arbiter.limiter.dropped + server.arbiter.views.answered.dropped == 0
        finally:
            server.close()
        top = t.arbiter.state.stacks[1].cards[-1]
        assert top.code == "2H"
        if top.owner != 0:
            lost.append((late_ms, lead_ms))
    assert lost == [], f"the liar won the races (ms late, burst lead ms) {lost}"


def test_rd11_a_frame_is_handled_at_the_time_it_was_read(context):
    """RD-11 where it is decided: each frame is handled at the time it was read, and once a
    wake-up has spent ``RESTAMP_AFTER`` handling, what waits is read (and stamped) before it
    is handled. Bob's move, behind eight snapshots that take the arbiter 2.7 ms to build, is
    stamped within ``RESTAMP_AFTER`` and one snapshot of its arrival — not 2.7 ms late — and
    is held at that time."""
    t = race_table(rtts=(0.002, 0.002), fairness_ms=30)
    t.send(b"S", "hello", name="Sam", role="spectator")
    server, wire, handled = on_the_wire(t, context)
    try:
        at = t.now + 1.0
        for k in range(8):
            wire.arrive(at, b"S", make("snapshot", id=10 + k), Sender())
        wire.arrive(at, BOB, make("move", id=7, round=0, move=PLAY, ts=at), Sender())
        wire.now = at
        server._drain(Outbox())
    finally:
        server.close()
    # Read ahead, the frames are handled a peer at a time in turn (net/inbox.py):
    # Bob's move right after the snapshot that was handling when the read-ahead began.
    assert [p for p, _ in handled] == [b"S"] * 4 + [BOB] + [b"S"] * 4
    assert wire.now - at == pytest.approx(9 * (Wire.RECEIVE + Wire.HANDLE) + 8 * Wire.SNAPSHOT)
    stamped = handled[4][1]
    assert stamped - at <= RESTAMP_AFTER + Wire.HANDLE + Wire.SNAPSHOT + 9 * Wire.RECEIVE
    assert wire.now - at > 2 * RESTAMP_AFTER
    assert t.arbiter.race.held[0].arrival == stamped


@pytest.mark.parametrize("every_us", [11, 13, 17, 19, 23, 29, 31, 37, 41, 47])
def test_every_frame_that_comes_during_a_slow_wake_up_is_handled_once_in_order(context,
                                                                                every_us):
    """The read-ahead's bookkeeping: 301 pings arrive one every ``every_us`` µs — slower than
    the arbiter reads (10 µs), faster than it reads and handles (50 µs) — so a wake-up keeps
    reading what came meanwhile, a few frames at a time, at every place in its chunks. Every frame is handled
    once, in the order it arrived, stamped no earlier than its arrival and at most
    ``RESTAMP_AFTER`` (and the reading of what came meanwhile) and a chunk's handling after
    it."""
    t = race_table(rtts=(0.002, 0.002), fairness_ms=30)
    server, wire, handled = on_the_wire(t, context)
    arrived = {}
    try:
        at = t.now + 1.0
        for k in range(301):
            peer = b"p%03d" % k
            arrived[peer] = at + k * every_us * 1e-6
            wire.arrive(arrived[peer], peer, make("ping", id=1, c=0.0), Sender())
        serve(server, wire)
    finally:
        server.close()
    assert [p for p, _ in handled] == sorted(arrived)
    late = [now - arrived[p] for p, now in handled]
    assert min(late) >= Wire.RECEIVE * 0.99
    meanwhile = RESTAMP_AFTER * Wire.RECEIVE / (every_us * 1e-6)
    assert max(late) <= RESTAMP_AFTER + meanwhile + RESTAMP * (Wire.RECEIVE + Wire.HANDLE) + \
        Wire.HANDLE


def test_rd11_strangers_share_a_few_snapshots_per_address():
    """RD-11's guard on the snapshot side (PROTOCOL.md §2): connections that hold no seat and
    watch nothing share, per IP address, 4 snapshots at once and 2 a second; then one
    ``rate_limited``, and the rest are dropped unanswered — not counted as a flood (the loop's
    rest would hold back everyone's frames). Another address has its own; a seat keeps its own
    per-connection limit; a stranger that says hello is a stranger no more."""
    t = Table("racing-demon", players=None)
    t.seat(ANN, "Ann")
    friend, other = Sender(None, "10.0.0.9"), Sender(None, "10.0.0.7")
    answers = [t.send(b"x%d" % k, "snapshot", sender=friend) for k in range(8)]
    assert [[m["t"] for m in a] for a in answers] == \
        [["snap"]] * int(STRANGER_BURST) + [["error"]] + [[]] * 3
    assert answers[4][0]["code"] == "rate_limited" and "before saying hello" in \
        answers[4][0]["reason"]
    assert t.send(b"y", "snapshot", sender=other)[0]["t"] == "snap"
    assert [t.send(ANN, "snapshot", sender=friend)[0]["t"] for _ in range(8)] == ["snap"] * 8
    assert t.send(b"x9", "snapshot", sender=friend) == []
    assert t.send(b"x9", "hello", sender=friend, name="Sam", role="spectator")[0]["t"] == \
        "welcome"
    assert t.send(b"x9", "snapshot", sender=friend)[0]["t"] == "snap"
    assert t.send(b"x1", "snapshot", at=t.now + 0.5, sender=friend)[0]["t"] == "snap"
    assert t.arbiter.limiter.dropped + t.arbiter.views.answered.dropped == 0
