"""Many watchers cost the seats nothing they feel, and their memory goes back.

Spectators are told a PUB of their own, a relay of the seats' PUB on a ZeroMQ context (an I/O
thread) of its own (net/watchers_pub.py); the reference client's spectator beats every
``WATCH_BEAT`` seconds, not every second; the host gives freed C memory back every few seconds
(net/freed_memory.py). The costs themselves are measured by benchmarks/watchers.py, not here:
no timing thresholds. Every socket here is on 127.0.0.1, and every one a test opens it closes.
"""

from __future__ import annotations

import threading
import time

import pytest
import zmq

from lan_demon.net import clock_sync
from lan_demon.net.arbiter import Arbiter
from lan_demon.net.client import BEAT, WATCH_BEAT, Client
from lan_demon.net.codec import encode, make
from lan_demon.net.freed_memory import Trimmer
from lan_demon.net.seats import TOKEN_LIFE
from lan_demon.net.server import ArbiterServer
from table_settings import settings
from watchers import CODE, REFUSED, Watcher, let_in_once_ann_gave_the_code, pump_watchers

pytestmark = pytest.mark.timeout(60)


def test_a_spectator_is_told_the_watchers_pub_and_a_player_the_seats():
    """§11: a spectator's welcome names the spectators' PUB; a seat's, the table's own."""
    arb = Arbiter(settings("racko", players=2), now=0.0)
    arb.seating.pub, arb.seating.watch_pub = "tcp://127.0.0.1:5001", "tcp://127.0.0.1:5002"
    seat = arb.handle(b"ann", encode(make("hello", id=1, name="Ann", role="player")), 0.0)
    watch = arb.handle(b"sam", encode(make("hello", id=1, name="Sam", role="spectator")), 0.0)
    assert [m["pub"] for _, m in seat.private if m["t"] == "welcome"] == [arb.seating.pub]
    assert [m["pub"] for _, m in watch.private if m["t"] == "welcome"] == [arb.seating.watch_pub]
    arb.seating.watch_pub = ""  # an arbiter with no spectators' PUB (tests driving the core) says its own
    again = arb.handle(b"tom", encode(make("hello", id=1, name="Tom", role="spectator")), 0.0)
    assert [m["pub"] for _, m in again.private if m["t"] == "welcome"] == [arb.seating.pub]


def _receive_all(subs: list[zmq.Socket], pub: zmq.Socket, timeout: float = 10.0) -> list[bytes]:
    """Publish numbered markers on ``pub`` until every SUB has one (a SUB's subscription
    reaches a PUB some time after it connects), then one last frame; what each SUB received
    from its first marker on, up to and including that last frame."""
    deadline, n = time.monotonic() + timeout, 0
    got: list[list[bytes]] = [[] for _ in subs]
    while not all(got):
        assert time.monotonic() < deadline, "a subscriber heard nothing"
        n += 1
        pub.send(b"marker %d" % n)
        for sub, kept in zip(subs, got):
            while sub.poll(20):
                kept.append(sub.recv())
    pub.send(b"last")
    for sub, kept in zip(subs, got):
        while kept[-1] != b"last":
            assert sub.poll(int(1000 * max(0.0, deadline - time.monotonic()))), "lost"
            kept.append(sub.recv())
    return got


def test_the_watchers_pub_relays_what_the_seats_pub_sends_in_order(context):
    """The spectators' PUB sends the seats' PUB's frames, byte for byte and in order (a
    server that is not serving: this thread sends on its PUB)."""
    server = ArbiterServer(settings("racko", players=2), port=0, context=context)
    seats, watchers = context.socket(zmq.SUB), context.socket(zmq.SUB)
    try:
        for sub, port in ((seats, server.pub_port), (watchers, server.watchers_pub.port)):
            sub.setsockopt(zmq.LINGER, 0)
            sub.setsockopt(zmq.SUBSCRIBE, b"")
            sub.connect(f"tcp://127.0.0.1:{port}")
        assert server.arbiter.seating.watch_pub == f"tcp://127.0.0.1:{server.watchers_pub.port}"
        assert server.watchers_pub.port != server.pub_port
        got = _receive_all([seats, watchers], server.pub)
        tail = min(len(got[0]), len(got[1]))  # (one may have joined a marker earlier)
        assert got[0][-tail:] == got[1][-tail:] and got[1][-1] == b"last"
        for kept in got:
            numbers = [int(f.split()[1]) for f in kept[:-1]]
            assert numbers == list(range(numbers[0], numbers[0] + len(numbers)))
    finally:
        seats.close(linger=0)
        watchers.close(linger=0)
        server.close()


def test_a_spectator_client_watches_through_the_watchers_pub(host, context):
    """A reference spectator connects, subscribes where its welcome says and follows the
    table: the seats' lobby update reaches it through the relay."""
    server = host("racko", players=2)
    sam = Client(server.address, name="Sam", role="spectator", context=context)
    host.clients.append(sam)
    sam.connect()
    assert sam.sub.getsockopt(zmq.LAST_ENDPOINT).decode().endswith(
        f":{server.watchers_pub.port}")
    ann = Client(server.address, name="Ann", context=context)
    host.clients.append(ann)
    ann.connect()
    deadline = time.monotonic() + 10
    while not any(s.get("name") == "Ann" for s in sam.table.get("seats", [])):
        assert time.monotonic() < deadline, "the spectator never saw Ann sit down"
        sam.poll(0.02)
        ann.poll(0)


def test_closing_the_server_ends_the_relay_and_its_context(host):
    server = host("racko", players=2)
    relay = server.watchers_pub._thread
    server.close()
    assert not relay.is_alive() and server.watchers_pub.context.closed
    assert server.watchers_pub.pub.closed


def test_a_coded_table_lets_watch_on_the_watchers_pub_only_those_who_gave_the_code(
        host, context, monkeypatch):
    """§20 holds on the spectators' PUB too: before anyone gave the code a SUB there is
    refused; once Ann gave it from 127.0.0.1, a SUB from 127.0.0.1 is let in."""
    server = host("racko", players=2, code=CODE)
    monkeypatch.setattr(server, "pub_port", server.watchers_pub.port)  # (Watcher's port)
    eve = Watcher(context, server)
    try:
        pump_watchers(lambda: REFUSED in eve.events, [eve])
        let_in_once_ann_gave_the_code(host, context, server, eve)
    finally:
        eve.close()


@pytest.mark.parametrize("role, every", [("player", BEAT), ("spectator", WATCH_BEAT)])
def test_a_spectator_beats_every_watch_beat_and_a_player_every_second(monkeypatch, role,
                                                                       every):
    """§11: a spectator's heartbeat (and clock ping) every ``WATCH_BEAT`` s — the arbiter
    forgets it after ``TOKEN_LIFE`` of silence, ten beats later — and a player's every
    second (§9: away after 3 s)."""
    assert TOKEN_LIFE >= 10 * WATCH_BEAT
    now = [100.0]
    client = Client("tcp://127.0.0.1:1", name="Sam", role=role, clock=lambda: now[0])
    sent: list[str] = []
    monkeypatch.setattr(client, "send", lambda msg: sent.append(msg["t"]) or True)
    client.connected, client.sync.samples = True, [(0.001, 0.0)] * clock_sync.SYNC_PINGS
    client.next_beat = now[0]
    for _ in range(121):  # two minutes, a look every second
        client.heard = now[0]  # (beats come: no silence)
        client._housekeeping()
        client.sync.pings.clear()  # (each ping answered)
        now[0] += 1.0
    assert sent.count("hb") == 120 / every + 1
    assert sent.count("ping") == sent.count("hb")


def test_the_trimmer_gives_memory_back_until_stopped():
    """The host's trimmer calls its trim every ``every`` seconds on a thread of its own, and
    stops when told (its thread gone)."""
    called = threading.Event()
    trimmer = Trimmer(every=0.01, trim=called.set).start()
    try:
        assert called.wait(10)
    finally:
        trimmer.stop()
    assert trimmer._thread is None and trimmer.trims >= 1
    count = trimmer.trims
    assert trimmer.trims == count  # nothing after stop


def test_a_spectator_that_leaves_or_falls_silent_is_forgotten():
    """The arbiter's memory of a spectator: gone at its ``leave``, and after ``TOKEN_LIFE``
    without a word (its heartbeat every ``WATCH_BEAT`` keeps it)."""
    arb = Arbiter(settings("racko", players=2), now=0.0)
    for peer in (b"sam", b"tom"):
        arb.handle(peer, encode(make("hello", id=1, name="x", role="spectator")), 0.0)
    assert set(arb.seating.spectators) == {b"sam", b"tom"}
    arb.handle(b"sam", encode(make("leave", id=2)), 1.0)
    assert set(arb.seating.spectators) == {b"tom"}
    t = 0.0
    while t < 2 * TOKEN_LIFE:
        t += WATCH_BEAT
        arb.handle(b"tom", encode(make("hb")), t)
        arb.tick(t)
    assert set(arb.seating.spectators) == {b"tom"}
    arb.tick(t + TOKEN_LIFE + 1)
    assert arb.seating.spectators == {}


@pytest.mark.parametrize("soft, hard, raised", [(1024, 4096, 4096), (1024, 1 << 20, 16384),
                                                (32768, 1 << 20, None)])
def test_a_host_asks_for_files_enough_for_a_crowd(monkeypatch, soft, hard, raised):
    """Two connections a watcher: ``lan-demon host`` raises its soft open-file limit to
    ``OPEN_FILES`` or its hard limit, never lowers it (at 1,024, ~500 watchers made libzmq
    retry the refused accept in a loop)."""
    import resource

    from lan_demon.commands.serve import OPEN_FILES, more_open_files
    asked = []
    monkeypatch.setattr(resource, "getrlimit", lambda which: (soft, hard))
    monkeypatch.setattr(resource, "setrlimit", lambda which, limits: asked.append(limits))
    assert more_open_files() == (raised or soft) and OPEN_FILES == 16384
    assert asked == ([] if raised is None else [(raised, hard)])
