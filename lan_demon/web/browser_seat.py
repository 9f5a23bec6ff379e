"""One browser's seat on the host: its :class:`~lan_demon.net.client.Client` (the same a terminal
uses, connected to the arbiter over 127.0.0.1), the seat layer's ``Seat`` around it, and the
task that pumps it and sends the page a new face whenever the face changed.

The client is pumped when one of its sockets becomes readable (their ZeroMQ file descriptors,
watched by the asyncio loop) or when it has work due (a heartbeat, a silence to notice), so a
seat costs nothing while its table is quiet. While the page is gone (a reload, a phone asleep,
Wi-Fi lost) the client is *not* pumped: it sends no heartbeat, so the arbiter marks the seat
away as it would a terminal's, and the seat is kept for :data:`KEEP` seconds (the arbiter's
``TOKEN_LIFE``). The page that comes back with the seat's token is attached again; the client,
having heard nothing meanwhile, reconnects by its session token and fetches a snapshot — the
seat's cards and score as they are.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field
from typing import Any

import zmq
from aiohttp import web

from lan_demon.net.client import Client
from lan_demon.net.guard import log_internal
from lan_demon.net.seats import TOKEN_LIFE
from lan_demon.web import seat_link

KEEP = TOKEN_LIFE  # seconds a seat whose page went is kept for it (the arbiter's seat time)
POLLIN, EVENTS = int(zmq.POLLIN), int(zmq.EVENTS)
FRESH = 2.0  # seconds between faces made for time alone (the ping), nothing else changing


def face_frame(face: dict[str, Any]) -> str:
    return json.dumps({"t": "face", "face": face}, ensure_ascii=False, separators=(",", ":"))


@dataclass(eq=False)
class BrowserSeat:
    """A seat held for one browser page (or a spectator's, or the TV's), by its token."""

    token: str
    client: Client
    seat: Any
    role: str  # "player" | "spectator"
    ws: web.WebSocketResponse | None = None
    sent: str | None = None  # the last face frame sent to the page now attached
    gone_since: float | None = None  # when the page went (time.monotonic), None while here
    closed: bool = False
    left: bool = False  # left during the match: the arbiter keeps the seat, the page may return
    faces: int = 0  # face frames sent (for tests and benchmarks)
    _fds: list[int] = field(default_factory=list)
    _nudged: bool = False  # an intent was done since the last face: make one
    _made: float = float("-inf")  # when the last face was made (time.monotonic)
    _wake: asyncio.Event = field(default_factory=asyncio.Event)
    task: asyncio.Task | None = None

    # --- the page --------------------------------------------------------------------------

    def attach(self, ws: web.WebSocketResponse) -> web.WebSocketResponse | None:
        """This page is the seat's now; returns the page it replaces (another tab), if any.
        A seat that left during the match takes its place again by its token."""
        if self.left:
            self.left = False
            self.client.come_back()
        old, self.ws, self.sent, self.gone_since = self.ws, ws, None, None
        self._watch()
        self._wake.set()
        return old if old is not ws else None

    def detach(self, ws: web.WebSocketResponse) -> None:
        """The page ``ws`` went (not left: the seat is kept for :data:`KEEP` seconds)."""
        if self.ws is ws:
            self.ws, self.gone_since = None, time.monotonic()
            self._unwatch()
            self._wake.set()

    def wake(self) -> None:
        """Something was sent for the seat (an intent): pump and send the new face now."""
        self._nudged = True
        self._wake.set()

    # --- the pump --------------------------------------------------------------------------

    async def run(self) -> None:
        """Pump while a page is here, send it each new face; end the seat once its page has
        been gone for :data:`KEEP` seconds, or when it is closed."""
        try:
            while not self.closed:
                self._wake.clear()
                if self.ws is not None:
                    try:
                        await self._pump_and_show()
                    except Exception as err:  # a bug of ours: one line, the seat goes on
                        log_internal(f"a browser seat's pump ({self.client.name})", err)
                timeout = self._next_due()
                if timeout is None:
                    self.close()
                    break
                if timeout > 0 and not self._wake.is_set():
                    try:
                        await asyncio.wait_for(self._wake.wait(), timeout)
                    except asyncio.TimeoutError:
                        pass
        finally:
            self._unwatch()

    def _next_due(self) -> float | None:
        """Seconds until this seat has work without news; None: its time is up."""
        now = time.monotonic()
        if self.ws is None:
            left = (self.gone_since or now) + KEEP - now
            return None if left <= 0 else left
        return max(0.0, self.client.due() - self.client.clock())

    async def _pump_and_show(self) -> None:
        # The descriptors are let go while pumping: a reconnect inside closes the client's
        # sockets, and a number freed there may be another seat's by the time we look again.
        self._unwatch()
        changed = self.sent is None or self._nudged
        self._nudged = False
        try:
            for _ in range(64):  # drain what keeps arriving, but let the loop breathe
                seat_link.pump(self.seat)
                changed = changed or seat_link.changed(self.seat)
                if not self._readable():
                    break
        finally:
            if not self.closed and self.ws is not None:
                self._watch()
        ws = self.ws
        now = time.monotonic()
        # A face is made when the seat says something changed (or an intent was done);
        # what moves with time alone (the ping, a countdown the page ticks by itself) at most
        # once every FRESH seconds: an idle table's beats cost a pump, not a face.
        if ws is None or ws.closed or not (changed or now - self._made >= FRESH):
            return
        self._made = now
        frame = face_frame(seat_link.face_of(self.seat))
        if frame != self.sent:
            self.sent = frame
            self.faces += 1
            try:
                await ws.send_str(frame)
            except (ConnectionError, RuntimeError):  # the page went as we spoke
                self.detach(ws)

    def _readable(self) -> bool:
        """Whether a socket of the client has a frame waiting: a ZeroMQ descriptor signals a
        change of state, not readiness, so after each pump it is asked again."""
        return any(not s.closed and s.getsockopt(EVENTS) & POLLIN
                   for s in self.client.sockets())

    def _watch(self) -> None:
        """Wake on the client's sockets."""
        self._unwatch()
        loop = asyncio.get_running_loop()
        for sock in self.client.sockets():
            fd = sock.getsockopt(zmq.FD)
            loop.add_reader(fd, self._wake.set)
            self._fds.append(fd)

    def _unwatch(self) -> None:
        if self._fds:
            loop = asyncio.get_running_loop()
            for fd in self._fds:
                loop.remove_reader(fd)
        self._fds = []

    # --- the end ---------------------------------------------------------------------------

    def left_match(self) -> None:
        """The page left during the match: the arbiter is told (the others see "has left")
        and keeps the seat its 5 minutes; the client waits here with its token."""
        if not self.closed:
            self.client.leave()
            self.left = True

    def leave(self) -> None:
        """The page gave the seat up: the arbiter is told, the client ends."""
        if not self.closed:
            self.client.leave()
        self.close()

    def close(self) -> None:
        """End the client (the arbiter keeps or frees the seat as for any silent client)."""
        if self.closed:
            return
        self.closed = True
        self._unwatch()
        self.client.close()
        self._wake.set()
