"""What a client sends to its arbiter, handed to ZeroMQ without ever blocking.

A frame goes at once, unless the arbiter told us to slow down (``rate_limited``: everything is
held :data:`RATE_BACKOFF` seconds rather than keep a flood going) or a test injects latency
(``delay``); then it waits here, and frames always leave in the order they were sent.
"""

from __future__ import annotations

import collections
from typing import Any, Callable

import zmq

from lan_demon.net.codec import encode

RATE_BACKOFF = 1.0  # told rate_limited: hold all we send this long
NOBLOCK = int(zmq.NOBLOCK)  # pyzmq's flag as a plain int: its enum costs a call each use
_send = zmq.backend.Socket.send  # without pyzmq's Python layer (see net/server.py)


class SendQueue:
    """The frames on their way to the arbiter through ``socket`` (the client's DEALER, None
    while it has none): ``dropped`` counts those ZeroMQ's full queue would not take."""

    def __init__(self, clock: Callable[[], float], delay: float = 0.0):
        self.clock = clock
        self.delay = delay  # injected latency on everything sent (tests)
        self.socket: zmq.Socket | None = None
        self.hold_until = float("-inf")  # told rate_limited: nothing is sent before this
        self.waiting: collections.deque[tuple[float, bytes]] = collections.deque()
        self.dropped = 0

    def send(self, msg: dict[str, Any]) -> bool:
        """Queue a message; False when it could not be handed over (see :meth:`put`)."""
        frame = encode(msg)
        now = self.clock()
        if self.delay > 0 or now < self.hold_until:
            at = max(now + self.delay, self.hold_until)
            if self.waiting:
                at = max(at, self.waiting[-1][0])  # in the order they were sent
            self.waiting.append((at, frame))
            self.flush()
            return True
        return self.put(frame)

    def put(self, frame: bytes) -> bool:
        """Hand a frame to ZeroMQ without ever blocking. When the arbiter is gone (killed,
        restarting) the queue to it fills up and the frame is dropped: a heartbeat or ping
        does not matter, a move is reported by the client's ``play``, and the snapshot that
        follows the reconnect heals the rest."""
        if self.socket is None:
            return False
        try:
            _send(self.socket, frame, NOBLOCK)
        except zmq.Again:
            self.dropped += 1
            return False
        return True

    def flush(self, force: bool = False) -> None:
        """Send what is due (``force``: everything waiting, due or not)."""
        now = self.clock()
        while self.waiting and (force or self.waiting[0][0] <= now):
            _, frame = self.waiting.popleft()
            self.put(frame)

    def hold(self) -> None:
        """The arbiter said ``rate_limited``: send nothing for :data:`RATE_BACKOFF` seconds."""
        self.hold_until = self.clock() + RATE_BACKOFF

    def next_at(self) -> float | None:
        """When the first waiting frame is due (None: nothing waits)."""
        return self.waiting[0][0] if self.waiting else None
