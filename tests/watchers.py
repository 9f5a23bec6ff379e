"""Strangers watching a table without ever saying hello (PROTOCOL.md §20): a SUB on its PUB
and a DEALER asking snapshots, everything they receive kept with their SUB's handshake events,
pumped against a deadline; the room code of the coded tables they watch."""

from __future__ import annotations

import itertools
import time

import zmq
from zmq.utils.monitor import recv_monitor_message

from lan_demon.net.client import Client
from lan_demon.net.codec import decode_all, encode, make
from lan_demon.net.security import KeyPair, make_curve_client, new_keypair
from net_harness import pump_until

CODE = "KQZRMWTB"
ASK_EVERY = 0.05  # seconds between a watcher's snapshot requests
REFUSED, LET_IN = zmq.EVENT_HANDSHAKE_FAILED_AUTH, zmq.EVENT_HANDSHAKE_SUCCEEDED


class Watcher:
    """A stranger who never says hello: a SUB subscribed to everything on the table's PUB port
    and a DEALER asking ``snapshot`` on its ROUTER, both with ``keys`` (its own pair) as CURVE
    clients of ``server_key`` when the table is encrypted. Everything it receives is kept, and
    its SUB's handshake events (a monitor, attached before it connects)."""

    def __init__(self, context: zmq.Context, server, keys: KeyPair | None = None):
        self.sub = context.socket(zmq.SUB)
        self.dealer = context.socket(zmq.DEALER)
        for sock in (self.sub, self.dealer):
            sock.setsockopt(zmq.LINGER, 0)
            if server.keys is not None:
                make_curve_client(sock, server.keys.public, keys or new_keypair())
        self.sub.setsockopt(zmq.SUBSCRIBE, b"")
        self.monitor = self.sub.get_monitor_socket(REFUSED | LET_IN)
        self.sub.connect(f"tcp://127.0.0.1:{server.pub_port}")
        self.dealer.connect(server.address)
        self.published: list[dict] = []
        self.replies: list[dict] = []
        self.events: list[int] = []
        self.ids = itertools.count(1)
        self.next_ask = float("-inf")

    def sockets(self) -> tuple[zmq.Socket, ...]:
        """What to poll for this watcher (as a client's ``sockets()``)."""
        return self.sub, self.dealer, self.monitor

    def pump(self) -> None:
        """Take everything waiting; ask a snapshot every :data:`ASK_EVERY` seconds."""
        for sock, kept, channel in ((self.sub, self.published, "pub"),
                                    (self.dealer, self.replies, "private")):
            while sock.poll(0):
                kept.extend(decode_all(sock.recv(), channel))
        while self.monitor.poll(0):
            self.events.append(recv_monitor_message(self.monitor)["event"])
        if time.monotonic() >= self.next_ask:
            self.next_ask = time.monotonic() + ASK_EVERY
            self.dealer.send(encode(make("snapshot", id=next(self.ids))))

    def close(self) -> None:
        self.sub.disable_monitor()
        self.monitor.close(linger=0)
        self.sub.close(linger=0)
        self.dealer.close(linger=0)


def pump_watchers(condition, watchers: list[Watcher], clients=(), timeout: float = 10.0) -> None:
    """Pump ``watchers`` (and ``clients``) until ``condition()`` holds, polling their sockets."""
    pump_until(condition, [*watchers, *clients], timeout)


def let_in_once_ann_gave_the_code(host, context, server, eve: Watcher) -> None:
    """Ann gives the room code from 127.0.0.1: a new SUB from there (``eve``'s refused one is
    not retried by libzmq) is let in and hears the table, while ``eve`` still hears nothing."""
    ann = Client(server.address, name="ann", context=context, code=CODE)
    host.clients.append(ann)
    ann.connect()
    again = Watcher(context, server)
    try:
        pump_watchers(lambda: again.published, [again, eve])
        assert again.events == [LET_IN] and eve.published == []
    finally:
        again.close()
