"""The watchers' PUB: every update the seats' PUB sends, relayed to the spectators on a ZeroMQ
context of their own, so that a crowd of them costs the seats nothing they feel.

A publish is a write to every subscriber's TCP connection, ~6 µs each in libzmq's I/O thread.
With 2,000 spectators on the seats' PUB every publish would keep the table's only I/O thread
busy ~13 ms: a seated player's replies would wait behind it (ping p99 42-66 ms) and so would its
own updates — a beat reaching it 28 ms late at the median and up to 1.3 s late
(benchmarks/watchers.py, docs/benchmarks.md "Many watchers"). So the seats' PUB serves the seats
alone (its fan-out is a few connections and one in-process pipe) and a relay thread —
``zmq.proxy`` in C, without the GIL — copies every frame from it, over ``inproc``, to this PUB,
whose subscribers' writes are made by this context's own I/O thread. A spectator's ``welcome``
names this PUB (§11); the frames are the seats' PUB's, byte for byte, in the same order, a relay
hop (~0.1 ms) later.

The same gate as the seats' PUB (PROTOCOL.md §20): with CURVE it is a CURVE server, and at a
coded table its ZAP handler (this context's own) answers its domain from the arbiter's
``passed``. What it cannot stop: anyone who learns the seats' PUB port (a player's welcome
names it) may subscribe there without a hello at an uncoded table, and then costs the seats as
a watcher did before.
"""

from __future__ import annotations

import itertools
import threading

import zmq

from lan_demon.net.freed_memory import Trimmer
from lan_demon.net.security import KeyPair, SharedZap, WatchGate, make_curve_server

#: libzmq I/O threads of the watchers' context: one keeps the fan-out off the seats'; more
#: would only spread it over cores the table shares.
IO_THREADS = 1
#: Messages queued for one watcher that does not read before the PUB drops its updates (it
#: resyncs with a snapshot, §7): each costs a 64-byte slot (the frame itself is shared), so a
#: watcher that stalls holds at most ~64 KB, 2,000 of them ~130 MB — at the seats' PUB's 10,000,
#: 2,000 slow watchers took the host to 650 MB. 1,000 frames are 2 minutes of a table of
#: people (~8 a second) and a second or more of a flat-out one.
SNDHWM = 1000
_relays = itertools.count(1)


def bind_avoiding(sock: zmq.Socket, host: str, avoid: tuple[int | None, ...]) -> int:
    """Bind ``sock`` to a free port of ``host`` that is none of ``avoid``: a crashed arbiter's
    PUB port (its clients' SUBs reconnect there by themselves), or another PUB of the table."""
    port = sock.bind_to_random_port(f"tcp://{host}")
    for _ in range(8):
        if port not in avoid:
            break
        sock.unbind(f"tcp://{host}:{port}")
        port = sock.bind_to_random_port(f"tcp://{host}")
    return port


class WatchersPub:
    """A PUB for spectators on a context of its own, fed from ``seats_pub`` by a relay."""

    def __init__(self, seats_pub: zmq.Socket, host: str, keys: KeyPair | None = None,
                 domain: str | None = None, gate: WatchGate | None = None,
                 avoid: tuple[int | None, ...] = ()):
        """``seats_pub``: the table's PUB (bound here to an inproc endpoint as well, which the
        relay reads); ``keys``: CURVE; ``domain`` and ``gate``: a coded table's ZAP domain and
        who may pass it; ``avoid``: ports not to take (the seats' PUB's, a crashed arbiter's)."""
        self.context = zmq.Context(io_threads=IO_THREADS)
        self.auth = SharedZap.take(self.context) if keys is not None or domain else None
        if self.auth is not None and domain is not None:
            self.auth.gates[domain] = gate
        self.domain = domain
        self.pub = self.context.socket(zmq.PUB)
        self.pub.setsockopt(zmq.LINGER, 0)
        self.pub.setsockopt(zmq.SNDHWM, SNDHWM)
        if keys is not None:
            make_curve_server(self.pub, keys)
        if domain is not None:
            self.pub.setsockopt(zmq.ZAP_DOMAIN, domain.encode("ascii"))
        self._thread: threading.Thread | None = None
        self._inlet = self._control = self._steer = None
        try:
            self.port = bind_avoiding(self.pub, host, avoid)
            inproc = f"inproc://lan-demon-watchers-{next(_relays)}"
            seats_pub.bind(inproc)
            main = seats_pub.context
            self._inlet = main.socket(zmq.SUB)  # read by the relay thread alone
            self._inlet.setsockopt(zmq.LINGER, 0)
            self._inlet.setsockopt(zmq.RCVHWM, SNDHWM)
            self._inlet.setsockopt(zmq.SUBSCRIBE, b"")
            self._inlet.connect(inproc)
            self._steer = main.socket(zmq.PAIR)  # ours: says TERMINATE to the relay
            self._control = main.socket(zmq.PAIR)  # the relay's end
            for sock in (self._steer, self._control):
                sock.setsockopt(zmq.LINGER, 0)
            self._steer.bind(f"{inproc}-control")
            self._control.connect(f"{inproc}-control")
        except zmq.ZMQError:
            self.close()
            raise
        self._thread = threading.Thread(target=self._relay, name="watchers-relay", daemon=True)
        self._thread.start()
        # What the watchers' connections (here and on the ROUTER) freed when they left goes
        # back to the system (net/freed_memory.py).
        self.trimmer = Trimmer().start()

    def _relay(self) -> None:
        try:
            zmq.proxy_steerable(self._inlet, self.pub, None, self._control)
        except zmq.ZMQError:
            pass  # a context ended under it: the server is closing

    def close(self, linger: int = 0) -> None:
        """Stop the relay, close the sockets, end the context (idempotent); what is still
        queued to spectators goes out for at most ``linger`` ms (a match's last updates)."""
        if getattr(self, "trimmer", None) is not None:
            self.trimmer.stop()
        if self._thread is not None:
            self._steer.send(b"TERMINATE")
            self._thread.join(timeout=10)
            self._thread = None
        for sock in (self._inlet, self._control, self._steer, self.pub):
            if sock is not None and not sock.closed:
                sock.close(linger=linger if sock is self.pub else 0)
        if self.auth is not None:  # after the sockets, as ZAP wants
            self.auth.gates.pop(self.domain, None)
            SharedZap.give_back(self.context)
            self.auth = None
        if not self.context.closed:
            self.context.term()
