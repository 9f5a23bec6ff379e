"""One peer's flood costs the other seats nothing they feel (PROTOCOL.md §2).

The widest frame a client could make the arbiter read — 1,998 bytes holding 1,857 empty lists
in a field nobody reads — took ~100 µs to build and ~800 µs to walk for the depth check, at
1,250 a second under the brake. Now only the fields the arbiter reads are walked, a walk gives
up past 64 maps and lists, and a frame costs one token per started 128 bytes (16 for 2 KiB).
A slow wake-up handles what it read ahead a peer at a time in turn and sends what it has said
every ``FLUSH_AFTER``, so a ping read among a burst is answered without waiting for the burst. Pure codec and arbiter, and the server's drain
on a fake wire with a fake clock: no timing is measured (benchmarks/hostile.py does)."""

from __future__ import annotations

import gc

import msgpack
import pytest
import zmq

from arbiter_harness import Table, race_table
from lan_demon.net import codec
from lan_demon.net.codec import (MAX_CONTAINERS, MAX_DEPTH, MAX_MESSAGE, VERSION, decode,
                                 encode, make, shape_refusal)
from lan_demon.net.guard import BYTES_PER_TOKEN, NoCollection, frame_cost
from lan_demon.net.inbox import Inbox
from lan_demon.net.outbox import Outbox
from lan_demon.net.seated import NOBODY
from lan_demon.net.server import DRAIN, FLUSH_AFTER, RESTAMP_AFTER, ArbiterServer

pytestmark = pytest.mark.timeout(30)

WIDEST = msgpack.packb({"v": VERSION, "t": "hb", "x": [[[]] * 28] * 64})


def test_the_widest_frame_fits_and_its_unread_field_is_never_walked(monkeypatch) -> None:
    """1,857 empty lists in 1,998 bytes, in a field a ``hb`` does not have: read as the
    ``hb`` it is, and the lists are never walked (a field the arbiter does not know is
    ignored, whatever it holds); a move's map, which the arbiter reads, is walked."""
    walked = []

    def spy(value, *args, **kwargs):
        walked.append(value)
        return shape_refusal(value, *args, **kwargs)

    monkeypatch.setattr(codec, "shape_refusal", spy)
    assert len(WIDEST) <= MAX_MESSAGE
    assert decode(WIDEST)["t"] == "hb"
    ping = {**make("ping", id=3, c=1.5), "x": [[0] * 64] * 30}  # 1,920 ints beside a ping
    assert len(encode(ping)) <= MAX_MESSAGE and decode(encode(ping))["id"] == 3
    assert walked == []
    move = make("move", id=4, round=0, move={"t": "play", "from": {"col": 1}}, ts=1.0)
    decode(encode(move))
    assert walked == [{"t": "play", "from": {"col": 1}}]


def test_no_collection_starts_while_a_wide_frame_is_read_and_handled() -> None:
    """Building 1,857 lists would start a collection or two (every 700 new containers), which
    finds them alive and moves them to an older generation: the full collections that came of
    it every 0.2 s took 8-57 ms of the arbiter's loop. None starts while the arbiter reads and
    handles a frame over SMALL bytes, whose lists are freed before it is done with it; the
    collector is left as it was found, on or off."""
    started = []

    def count(phase: str, info: dict) -> None:
        started.append(phase == "start")

    t = race_table(rtts=None)
    gc.callbacks.append(count)
    try:
        gc.collect()  # (the young generation empty: what follows alone can start one)
        started.clear()
        assert t.deliver(b"X", WIDEST) == []  # a hb: nothing to answer, nothing left alive
        assert gc.isenabled() and not any(started)
        gc.collect()
        started.clear()
        decode(WIDEST)  # the same frame read without it: a collection starts
        assert any(started)
        gc.disable()
        with NoCollection():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
        gc.callbacks.remove(count)


def test_a_walk_gives_up_past_the_most_maps_and_lists_or_the_deepest() -> None:
    assert shape_refusal({"t": "turn"}, inside=1) is None
    assert shape_refusal([[]] * (MAX_CONTAINERS - 2), inside=1) is None  # 64 with the message
    assert "at most 64 maps and lists" in shape_refusal([[]] * (MAX_CONTAINERS - 1), inside=1)
    deep: list = []
    for _ in range(MAX_DEPTH - 2):
        deep = [deep]
    assert shape_refusal(deep, inside=1) is None  # 16 deep with the message
    assert f"nest at most {MAX_DEPTH} deep" in shape_refusal([deep], inside=1)
    assert shape_refusal(7) is None and shape_refusal("x" * 9) is None


def test_a_move_holding_more_than_64_maps_and_lists_is_malformed_with_its_id() -> None:
    """The move's own map and 62 lists in it make 64 with the message: read, and refused as
    a move (bad_move, its fields are single values); one list more is malformed, answered
    with the move's id, and nothing at the table changes."""
    t = race_table(rtts=None)
    seq = t.arbiter.records.seq
    read = make("move", id=5, round=0, move={"t": "turn", "x": [[]] * 61}, ts=t.now)
    (err,) = t.deliver(b"A", encode(read))
    assert (err["code"], err["re"]) == ("bad_move", 5)
    wide = make("move", id=6, round=0, move={"t": "turn", "x": [[]] * 62}, ts=t.now)
    (err,) = t.deliver(b"A", encode(wide))
    assert (err["code"], err["re"]) == ("malformed", 6)
    assert "64 maps and lists" in err["reason"] and t.arbiter.records.seq == seq


def test_a_refused_frame_is_answered_with_its_id_read_once() -> None:
    """The id of a message refused after it was unpacked comes with the refusal: the frame is
    not unpacked a second time to find it (a wide frame would cost twice)."""
    frame = msgpack.packb({"v": VERSION + 1, "t": "ping", "id": 9, "x": [[0] * 64] * 30})
    with pytest.raises(codec.ProtocolError) as err:
        decode(frame)
    assert (err.value.code, err.value.re) == ("version", 9)


def test_the_widest_frame_costs_sixteen_tokens_of_the_brake() -> None:
    """A token per started 128 bytes: a 2 KiB frame costs what 16 moves do, so a bucket of
    64 tokens reads four of them and drops the rest unread."""
    assert BYTES_PER_TOKEN == 128 and frame_cost(len(WIDEST)) == 16 and frame_cost(70) == 1
    t = Table(rate_limit=1.0, rate_burst=64.0)
    for _ in range(10):
        t.deliver(b"X", WIDEST)
    assert t.arbiter.limiter.dropped == 6


def test_the_inbox_hands_out_a_peer_at_a_time_each_in_its_own_order() -> None:
    """Eve's backlog of five, then Sam's and Bob's frames: one of each in turn, each peer's in
    the order read; frames of peers that each have one come out as read (the liar's burst of
    300 snapshots from 300 connections keeps its order, RD-11)."""
    inbox = Inbox()
    for read in ([(b"E", [b"%d" % k], NOBODY, k) for k in range(5)]
                 + [(b"S", [b"s"], NOBODY, 5.0), (b"B", [b"b"], NOBODY, 6.0)]):
        inbox.append(read)
    got = [(peer, at) for peer, _, _, at in inbox.take(4)]
    inbox.append((b"S", [b"s2"], NOBODY, 7.0))  # read meanwhile: Sam's turn comes again
    got += [(peer, at) for peer, _, _, at in inbox.take(100)]
    assert got == [(b"E", 0), (b"S", 5.0), (b"B", 6.0), (b"E", 1), (b"E", 2), (b"S", 7.0),
                   (b"E", 3), (b"E", 4)]
    assert len(inbox) == 0 and not inbox.queues
    for k in range(300):
        inbox.append((b"x%03d" % k, [b""], NOBODY, float(k)))
    assert [at for _, _, _, at in inbox.take(1000)] == [float(k) for k in range(300)]


class Wire:
    """The ROUTER as the drain sees it (frames handed over in order) and a clock that moves
    only as the arbiter works: 10 µs a read, 500 µs a frame handled (a dear one)."""

    READ, HANDLE = 10e-6, 500e-6

    def __init__(self, frames: list[tuple[bytes, bytes]]):
        self.now, self.frames = 1000.0, list(frames)

    def receive(self):
        if not self.frames:
            raise zmq.Again()
        self.now += self.READ
        peer, frame = self.frames.pop(0)
        return peer, [frame], NOBODY


def drained(context, flush: bool, most: int = DRAIN, eve: int = 20
            ) -> tuple[list[list[tuple[bytes, str]]], Outbox, ArbiterServer, Wire]:
    """A ping from Sam among ``eve`` dear frames from Eve, drained in one wake-up of at most
    ``most`` frames handled: what each send carried (peer, message type), what was left in the
    wake-up's outbox, the server (closed) and its wire."""
    t = race_table(rtts=None)
    t.send(b"S", "hello", name="Sam", role="spectator")
    frames = [(b"E", encode(make("ping", id=k + 1, c=0.0))) for k in range(eve)]
    frames.insert(3, (b"S", encode(make("ping", id=77, c=0.0))))
    server = ArbiterServer(t.arbiter.settings, arbiter=t.arbiter, context=context)
    wire, sent = Wire(frames), []
    server.clock, server._receive_parts, server._waiting = \
        (lambda: wire.now), wire.receive, (lambda: bool(wire.frames))
    handle = t.arbiter.handle_into

    def dear(peer, frame, now, out, sender=NOBODY):
        handle(peer, frame, now, out, sender)
        wire.now += wire.HANDLE

    t.arbiter.handle_into = dear
    server._send = lambda box: sent.append([(p, m["t"]) for p, m in box.private])
    server._receive_identified = wire.receive
    out = Outbox()
    try:
        server._inbox.append(wire.receive() + (wire.now,))
        server._read_ahead(out, most, flush)
    finally:
        server.close()
    return sent, out, server, wire


def test_a_slow_wake_up_sends_what_it_has_every_flush_after(context) -> None:
    """21 frames that take 0.5 ms each, Sam's ping read fourth behind Eve's: it is handled
    second (a peer at a time, in turn), and its pong leaves with the first flush, FLUSH_AFTER
    into the wake-up, not 10 ms later with the last; every reply is sent once, each peer's in
    order."""
    assert FLUSH_AFTER >= RESTAMP_AFTER
    sent, out, _, _ = drained(context, flush=True)
    assert len(sent) >= 3 and (b"S", "pong") in sent[0]
    assert len(sent[0]) <= FLUSH_AFTER / Wire.HANDLE + 1
    everything = [r for box in sent for r in box] + [(p, m["t"]) for p, m in out.private]
    assert everything == [(b"E", "pong"), (b"S", "pong")] + [(b"E", "pong")] * 19


def test_a_drain_asked_for_no_flush_keeps_one_outbox(context) -> None:
    """Tests and the final grace of ``finish`` drive the drain themselves: nothing is sent
    from inside it, and the outbox holds every reply."""
    sent, out, _, _ = drained(context, flush=False)
    assert sent == [] and len(out.private) == 21


def test_what_a_wake_up_read_but_did_not_handle_is_the_next_ones_first(context) -> None:
    """A wake-up handles at most DRAIN frames, reading as long as fewer than DRAIN wait; the
    rest it read stay, stamped, and the next wake-up handles them before reading anything new
    (the loop wakes for them). A flooded wake-up (a rest follows it) reads no more frames than
    it may handle: what a flood sends waits in its own queue."""
    sent, out, server, wire = drained(context, flush=False, eve=DRAIN + 10)
    assert len(out.private) == DRAIN and (b"S", "pong") == (out.private[1][0], "pong")
    assert len(server._inbox) == 11 and not wire.frames  # all read, stamped as they came
    stamps = [read[3] for queue in server._inbox.queues.values() for read in queue]
    handled: list = []
    server.arbiter.handle_into = lambda peer, frame, now, out, sender: handled.append(now)
    server._drain(Outbox())
    assert handled == sorted(stamps) and len(server._inbox) == 0
    sent, out, server, wire = drained(context, flush=False, most=16)
    assert len(out.private) == 16 and len(server._inbox) == 0 and len(wire.frames) == 5


def test_a_flooded_wake_up_behind_a_backlog_still_reads_a_ping(context) -> None:
    """Eleven of Eve's frames left over, then a flooded wake-up (4 frames, a rest after it):
    it reads a few new frames all the same, and Sam's ping among them is handled in turn,
    not after the backlog."""
    _, _, server, wire = drained(context, flush=False, eve=DRAIN + 10)
    assert len(server._inbox) == 11
    wire.frames = [(b"S", encode(make("ping", id=78, c=0.0)))] + \
        [(b"E", encode(make("ping", id=2000 + k, c=0.0))) for k in range(8)]
    out = Outbox()
    server._drain(out, 4)
    assert (b"S", 78) in [(p, m["re"]) for p, m in out.private]
