"""The arbiter's socket loop: a ROUTER for requests and private messages, a PUB for updates.

All decisions are :class:`~lan_demon.net.arbiter.Arbiter`'s; this module only moves frames
between it and ZeroMQ, and wakes it when its next deadline comes. With a key pair the two sockets
are CURVE servers (:mod:`lan_demon.net.security`), and each frame's sender key and address go to
the arbiter with it, which binds seats to keys and brakes wrong room codes by address. At a table
with a room code the PUB lets in only those who gave it (the arbiter's ``passed`` gate, asked by
the ZAP handler at each subscriber's handshake, PROTOCOL.md §20).
"""

from __future__ import annotations

import threading
import time
from typing import Any, Callable

import msgpack
import zmq

from lan_demon.games import GameError
from lan_demon.net.arbiter import Arbiter
from lan_demon.net.asks import Asks
from lan_demon.net.guard import log_internal
from lan_demon.net.inbox import Inbox
from lan_demon.net.codec import MAX_MESSAGE
from lan_demon.net.packing import frame
from lan_demon.net.journal import JournalWriter
from lan_demon.net.outbox import Outbox
from lan_demon.net.seated import NOBODY, Sender
from lan_demon.net.settings import Settings
from lan_demon.net.security import (KeyPair, SharedZap, make_curve_server, peer_address,
                                    peer_key)
from lan_demon.net.watchers_pub import WatchersPub, bind_avoiding

LOOPBACK = "127.0.0.1"
# Frames read and handled per wake-up before time is looked at again: more than a burst from
# a few hundred connections (300 at once), so a move behind one is read, stamped, in it
# (_drain).
DRAIN = 1024
# A wake-up that has handled for RESTAMP_AFTER s reads (stamps) what waits before handling it,
# then looks again every RESTAMP frames once RESTAMP_AFTER has passed since its last look; a
# busy table's wake-up (20 moves, ~0.3 ms) never pays for it (_drain, _read_ahead). Such a slow
# wake-up sends what it has said every FLUSH_AFTER s: a ping read in a burst is answered then.
RESTAMP, RESTAMP_AFTER, FLUSH_AFTER = 4, 0.001, 0.002
# Send queues, in messages (ZeroMQ high-water marks; PROTOCOL.md §2). ROUTER: what waits for one
# peer that does not read — replies are 20-100 B, a `private` round message up to ~8 kB and a
# snapshot 8-22 kB at 20 seats, and snapshots are answered at most 4 a second; 256 of the
# largest is about 5 MB, and 256 is more than a second of a flat-out bot's replies (two per
# move), so an honest client that stalls briefly loses nothing. Past it the ROUTER drops what
# is sent to that peer (it never blocks nor raises: ROUTER_MANDATORY is off) and the peer heals
# the gap with a snapshot. PUB: updates are ~150-200 B and a frame is shared by every
# subscriber's queue (libzmq counts references), so 10,000 is several seconds of a flat-out
# table for a subscriber that stalls, and about 2 MB in all however many never read; past it
# the PUB drops for that subscriber, which resyncs. ROUTER receive: 256 frames of at most
# MAX_MESSAGE per connection wait in libzmq; beyond that it stops reading that TCP connection
# (the sender waits; nothing is lost).
ROUTER_SNDHWM, PUB_SNDHWM, ROUTER_RCVHWM = 256, 10_000, 256
# A flood is cheap to drop but not free (a wake-up, a receive, a bucket lookup a frame). After a
# wake-up that dropped frames the loop reads at most FLOOD_DRAIN frames a wake-up and rests
# NAP_FACTOR times as long as that took (MIN_NAP to MAX_NAP): dropping costs at most ~1 / (1 +
# NAP_FACTOR) of a core (~14%); the flooder's frames wait in its own queue (ROUTER_RCVHWM, then
# TCP backpressure), fair queueing still reads every honest peer's frames in each small batch,
# and the table waits at most MAX_NAP more. A wake-up that drops nothing ends the flood mode.
# benchmarks/hostile.py measures it (docs/benchmarks.md).
FLOOD_DRAIN, NAP_FACTOR, MIN_NAP, MAX_NAP = 16, 6.0, 0.002, 0.004
# A wake-up after a wait of QUIET seconds or more reads one frame, and sends what it says, before
# it reads on. A drain ends with a receive that finds the socket empty, and pyzmq raises that as
# an exception it builds at some cost (~26k instructions, 18 us at an idle table: p50 measured
# in docs/benchmarks.md); at a quiet table — people, or a bot between moves — that came before
# the publish of the one move the wake-up was for. A busy table's wake-ups follow one another
# within about a millisecond (20 flat-out seats), so they still read every frame ready and
# publish once.
QUIET = 0.002
# How often the loop hands its arbiter to ``watch`` (the host window's log): a person reading
# a line needs no more, and the loop pays one comparison a wake-up for it.
WATCH_EVERY = 0.25
# pyzmq's flags as plain ints: its enum types cost a call each time they are combined or passed
EVENTS, POLLIN = int(zmq.EVENTS), int(zmq.POLLIN)
NOBLOCK, SNDMORE = int(zmq.NOBLOCK), int(zmq.SNDMORE)
# The hot path calls the backend's send, recv and get (``zmq.backend.Socket``, which pyzmq's
# Socket extends): its Python layer (routing ids, groups, ``recv_multipart``'s loop with an enum
# per part) costs about as much again as the call itself — half the socket time of a move
# (docs/benchmarks.md, the floor). Everything else goes through the ordinary Socket.
_send, _recv, _get = zmq.backend.Socket.send, zmq.backend.Socket.recv, zmq.backend.Socket.get


class ServerError(GameError):
    """The arbiter cannot serve as asked (e.g. the port is taken)."""


class ArbiterServer:
    """Binds the two sockets and runs the arbiter until the match ends or it is stopped."""

    def __init__(self, settings: Settings, host: str = LOOPBACK, port: int = 0,
                 journal: str | None = None, clock: Callable[[], float] = time.monotonic,
                 context: zmq.Context | None = None, arbiter: Arbiter | None = None,
                 journal_keep: int | None = None, avoid_pub: int | None = None,
                 keys: KeyPair | None = None,
                 on_seats: Callable[[int, int], None] | None = None,
                 watch: Callable[[Arbiter], None] | None = None, code: str | None = None):
        """``arbiter``: one restored from a journal (:mod:`lan_demon.net.recovery`) instead of a
        new one; ``journal_keep`` cuts the journal to that many bytes before appending (a torn
        last record); ``avoid_pub``: a PUB port not to take (the crashed arbiter's, see
        :func:`lan_demon.net.recovery.resume`). ``keys``: serve CURVE only (``--secure``).
        ``code``: the room code a seat needs (a restored ``arbiter`` keeps its own).
        ``on_seats(taken, free)`` is called from the loop when the seat counts change (the LAN
        announcement's ``update_later``: it must return at once). ``watch(arbiter)`` is called
        from the loop every :data:`WATCH_EVERY` seconds and once as it ends (the host window's
        log, :mod:`lan_demon.commands.host_log`): it must only read the table, and quickly."""
        self.context = context or zmq.Context.instance()
        self.clock = clock
        self.keys = keys
        self.on_seats = on_seats
        self.watch = watch
        self._next_watch = float("-inf")
        self._seats: tuple[int, int] | None = None
        self.asks = Asks()  # the host's typed commands, run between two wake-ups
        # Set by stop(): a plain flag, which a signal handler may set at any moment (an Event
        # takes a lock, which the interrupted thread may hold). The loop reads it every poll.
        self._stopping = False
        self._serving: int | None = None  # the thread running serve(), while it runs
        self._thread: threading.Thread | None = None
        self._closed = False
        self.journal: JournalWriter | None = None
        # A coded table shows its play only to those who gave the code (PROTOCOL.md §20): its
        # PUB has a ZAP domain of its own, gated by who passed it — by key with CURVE, by IP
        # address without (ZAP's NULL mechanism asks only for a socket with a domain).
        coded = (arbiter.code if arbiter is not None else code) is not None
        self.watch_domain = SharedZap.domain() if coded else None
        # One ZAP handler per context; it must run before a CURVE or gated socket binds.
        self.auth = SharedZap.take(self.context) if keys is not None or coded else None
        self.router, self.pub = self._sockets(keys)
        try:
            self.port = self._bind(self.router, host, port)
            self.pub_port = self._bind(self.pub, host, 0, (avoid_pub,))
            self.host = host
            self.arbiter = arbiter or Arbiter(settings, None, now=clock(), code=code)
            self._seat_arbiter(host, keys, avoid_pub)
            if journal:
                self.journal = JournalWriter(journal, keep=journal_keep)
                self.arbiter.attach_journal(self.journal, {"port": self.port,
                                                           "pub_port": self.pub_port})
        except GameError:
            self._close_sockets()
            raise
        self.sent_bytes = 0
        self.published = 0  # messages published (several may share a frame)
        self._packer = msgpack.Packer(use_bin_type=True)  # this loop's own, reused
        self._inbox = Inbox()  # frames read ahead and not yet handled (_read_ahead)

    def _sockets(self, keys: KeyPair | None) -> tuple[zmq.Socket, zmq.Socket]:
        """The ROUTER and the PUB, made and tuned (CURVE, the PUB's ZAP domain, the limits)."""
        router, pub = self.context.socket(zmq.ROUTER), self.context.socket(zmq.PUB)
        for sock in (router, pub):
            sock.setsockopt(zmq.LINGER, 0)
            if keys is not None:
                make_curve_server(sock, keys)
        if self.watch_domain is not None:
            pub.setsockopt(zmq.ZAP_DOMAIN, self.watch_domain.encode("ascii"))
        # A frame over this is never read: ZeroMQ drops that connection (PROTOCOL.md §2); the
        # sender's DEALER reconnects as a new peer, and the table goes on.
        router.setsockopt(zmq.MAXMSGSIZE, MAX_MESSAGE + 1024)
        router.setsockopt(zmq.SNDHWM, ROUTER_SNDHWM)
        router.setsockopt(zmq.RCVHWM, ROUTER_RCVHWM)
        pub.setsockopt(zmq.SNDHWM, PUB_SNDHWM)
        return router, pub

    def _seat_arbiter(self, host: str, keys: KeyPair | None, avoid_pub: int | None) -> None:
        """Tell the arbiter where it is served (its welcome names both PUBs), start the
        spectators' PUB, and gate a coded table's PUBs by who passed its code."""
        seating = self.arbiter.seating
        seating.pub = f"tcp://{host}:{self.pub_port}"
        # The spectators' PUB (§11): a relay of this one on a context of its own, so that a
        # crowd of watchers costs the seats nothing they feel (net/watchers_pub.py).
        self.watchers_pub = WatchersPub(self.pub, host, keys, self.watch_domain, seating.passed,
                                        (self.pub_port, avoid_pub))
        seating.watch_pub = f"tcp://{host}:{self.watchers_pub.port}"
        # Journaled in the host record: a resume checks its secrets file against it.
        self.arbiter.facts.server_key = keys.public.decode() if keys is not None else None
        # Read each frame's key and address only when the arbiter uses them: a plain table
        # keeps the cheaper copying receive.
        self.identify = keys is not None or self.arbiter.code is not None
        if self.watch_domain is not None:
            self.auth.gates[self.watch_domain] = seating.passed

    @staticmethod
    def _bind(sock: zmq.Socket, host: str, port: int, avoid: tuple[int | None, ...] = ()) -> int:
        try:
            if port == 0:
                return bind_avoiding(sock, host, avoid)
            sock.bind(f"tcp://{host}:{port}")
            return port
        except zmq.ZMQError as err:
            raise ServerError(f"cannot listen on {host}:{port}: {err.strerror}") from None

    @property
    def address(self) -> str:
        return f"tcp://{self.host}:{self.port}"

    def serve(self, exit_when_over: bool = True) -> dict[str, Any] | None:
        """Run until stopped, or until the match ends; returns the match result if it ended."""
        poller = zmq.Poller()
        poller.register(self.router, zmq.POLLIN)
        self._serving = threading.get_ident()
        try:
            return self._loop(poller, exit_when_over)
        finally:
            self._serving = None

    def _loop(self, poller: zmq.Poller, exit_when_over: bool) -> dict[str, Any] | None:
        """Each wake-up reads every frame ready and sends what all of them said at once: one
        PUB frame for every update of the wake-up, one frame per peer for its replies
        (PROTOCOL.md §2); then time passes (``tick``), whose rare messages go the same way. A
        busy table handles many moves per wake-up, and each publish costs the I/O thread a
        write to every subscriber, so the fan-out is paid once per wake-up instead of once
        per move."""
        arbiter, router = self.arbiter, self.router
        flooded = False  # the last wake-up dropped frames: read in small batches, then rest
        while not self._stopping:
            now = self.clock()
            wait = min(0.1, max(0.0, arbiter.next_deadline(now) - now))
            most = FLOOD_DRAIN if flooded else DRAIN
            # Frames that came while the last wake-up was handled are read without a poll.
            ready = self._inbox or _get(router, EVENTS) & POLLIN
            if not ready:
                asleep = time.perf_counter()
                ready = poller.poll(wait * 1000)
                if ready and time.perf_counter() - asleep >= QUIET:
                    most = 1  # a quiet table: answer the move that woke it before reading on
            if ready:
                out = Outbox()
                # (Strangers' snapshots over budget, arbiter.views.strangers, are no flood: a rest
                # would hold back the frames behind a burst from hundreds of connections.)
                dropped = arbiter.limiter.dropped + arbiter.views.answered.dropped
                began = time.perf_counter()
                self._drain(out, most, flush=True)
                spent = time.perf_counter() - began
                flooded = arbiter.limiter.dropped + arbiter.views.answered.dropped > dropped
                self._send(out)  # before tick: a move's update waits for nothing else
                if flooded:
                    time.sleep(min(MAX_NAP, max(MIN_NAP, spent * NAP_FACTOR)))
            # (nothing to send, mostly: a beat a second, the fairness window's end)
            self._send(self._step("a tick", arbiter.tick))
            self.asks.answer(arbiter, self.clock, self._send)
            self._tell_seats()
            if self.watch is not None and now >= self._next_watch:
                self._next_watch = now + WATCH_EVERY
                self._watched()
            if exit_when_over and arbiter.finished(self.clock()):
                break
        if self.watch is not None:
            self._watched()  # the last round's end, before the final table
        return arbiter.result

    def _drain(self, out: Outbox, most: int = DRAIN, flush: bool = False) -> None:
        """Handle up to ``most`` ready frames, each **at the time it was read** (``now``),
        adding what the arbiter says to ``out``. Why: RD-11 believes a move's ``ts`` only down
        to its arrival less the lag cap (§8); a move read behind frames slow to handle (a
        liar's friend's burst of snapshots) would be stamped late, and a backdated move would
        beat it. So once a wake-up has handled for :data:`RESTAMP_AFTER` (a busy table's does
        not: twenty moves take ~0.3 ms), what waits is read, stamped, before it is handled
        (:meth:`_read_ahead`). A bug in the arbiter is logged; the next frame is handled."""
        arbiter, clock, router = self.arbiter, self.clock, self.router
        handle, identify = arbiter.handle_into, self.identify
        began = clock()
        if self._inbox:  # read by the last wake-up, not handled yet: before what is new
            return self._read_ahead(out, most, flush)
        for n in range(most):
            # Again ends the drain (~9 µs, once a wake-up); EVENTS per frame would cost ~4 µs.
            try:
                if identify:
                    peer, payload, sender = self._receive_identified()
                else:  # the routing id, then the message: every part is there once one is,
                    # and a ROUTER always puts the routing id before at least one part. A
                    # part received as a Frame says whether more follow (asking RCVMORE of
                    # the socket costs a third of a receive: pyzmq looks the option up).
                    peer, sender = _recv(router, NOBLOCK), NOBODY
                    part = _recv(router, NOBLOCK, False)
                    payload = [part.bytes]
                    while part.more:
                        part = _recv(router, NOBLOCK, False)
                        payload.append(part.bytes)
            except zmq.Again:
                return
            at = clock()
            if at - began >= RESTAMP_AFTER:  # slow going: what waits is read before handled
                self._inbox.append((peer, payload, sender, at))
                self._read_ahead(out, most - n, flush)
                return
            try:
                if len(payload) == 1:  # a message is exactly one frame
                    handle(peer, payload[0], at, out, sender)
                else:
                    out.extend(arbiter.handle_multipart(peer, payload, at, sender))
            except Exception as err:
                log_internal("a message", err)

    def _read_ahead(self, out: Outbox, most: int, flush: bool) -> None:
        """A slow wake-up (:meth:`_drain`): what waits is read into :attr:`_inbox`, stamped,
        first and every :data:`RESTAMP` frames after :data:`RESTAMP_AFTER`, while fewer than
        :data:`DRAIN` wait (flooded, ``most`` < DRAIN: about as many as handled); ``most`` handled
        at their stamps a peer at a time in turn (no one's backlog holds back another's), the
        rest next wake-up; ``flush``: ``out`` is sent every :data:`FLUSH_AFTER`."""
        arbiter, clock, inbox = self.arbiter, self.clock, self._inbox
        handle = arbiter.handle_into  # (flooded: a few new frames still read, a ping among them)
        room = max(RESTAMP, most - len(inbox)) if most < DRAIN else 1 << 30
        looked = flushed = clock()
        room -= self._read(inbox, min(room, DRAIN - len(inbox)))
        while inbox and most > 0:
            chunk = inbox.take(min(RESTAMP, most))
            most -= len(chunk)
            for peer, payload, sender, at in chunk:
                try:
                    if len(payload) == 1:
                        handle(peer, payload[0], at, out, sender)
                    else:
                        out.extend(arbiter.handle_multipart(peer, payload, at, sender))
                except Exception as err:
                    log_internal("a message", err)
            if flush and clock() - flushed >= FLUSH_AFTER and (out.public or out.private):
                self._send(Outbox(out.private, out.public, out.stalled))
                out.private, out.public, flushed = [], [], clock()
            if room > 0 and len(inbox) < DRAIN and clock() - looked >= RESTAMP_AFTER:
                looked = clock()  # (a look costs a few µs)
                if self._waiting():
                    room -= self._read(inbox, min(room, DRAIN - len(inbox)))

    def _read(self, inbox: Inbox, most: int) -> int:
        """Read up to ``most`` ready frames into ``inbox``, each stamped as read; how many."""
        clock, keep, identify = self.clock, inbox.append, self.identify
        receive = self._receive_identified if identify else self._receive_parts
        for n in range(most):
            try:
                peer, payload, sender = receive()
            except zmq.Again:
                return n
            keep((peer, payload, sender if identify else NOBODY, clock()))
        return max(most, 0)

    def _receive_parts(self) -> tuple[bytes, list[bytes], Any]:
        """The routing id, the message's parts, and its last part as a Frame (which carries
        the sender's key and address): received through the backend, as the plain receive in
        :meth:`_drain` — pyzmq's ``recv_multipart`` costs three times as much (~10 µs a
        message against ~3.5)."""
        router = self.router
        peer = _recv(router, NOBLOCK)
        part = _recv(router, NOBLOCK, False)
        payload = [part.bytes]
        while part.more:
            part = _recv(router, NOBLOCK, False)
            payload.append(part.bytes)
        return peer, payload, part

    def _waiting(self) -> bool:
        """Whether a frame is there to read (asked between handlings, see :meth:`_drain`)."""
        return bool(_get(self.router, EVENTS) & POLLIN)

    def _receive_identified(self) -> tuple[bytes, list[bytes], Sender]:
        """One message with its sender's CURVE key (the ZAP ``User-Id``) and IP address,
        which only a part received without copying (a Frame) carries; a burst of strangers'
        frames is read at this price before the move behind it is (RD-11, :meth:`_drain`)."""
        peer, payload, part = self._receive_parts()
        key = peer_key(part) if self.keys is not None else None
        return peer, payload, Sender(key, peer_address(part))

    def _tell_seats(self) -> None:
        """Seat counts changed (someone sat down or left, the match started): say so."""
        if self.on_seats is None:
            return
        counts = self.arbiter.seat_counts()
        if counts != self._seats:
            self._seats = counts
            try:
                self.on_seats(*counts)
            except Exception as err:  # the announcement must never take the table down
                log_internal("telling the seat counts", err)

    def _watched(self) -> None:
        try:
            self.watch(self.arbiter)  # type: ignore[misc]
        except Exception as err:  # the log must never take the table down
            log_internal("the host's log", err)

    def _step(self, what: str, step: Callable[[float], Outbox]) -> Outbox:
        """Run one step of the arbiter; what it says. A bug in it is logged and the loop goes
        on serving (with nothing to send for that step)."""
        try:
            return step(self.clock())
        except Exception as err:
            log_internal(what, err)
            return Outbox()

    def _send(self, out: Outbox) -> None:
        """Publish first, then answer privately: the canonical update is what every screen
        waits for, and the PUB's fan-out is the longest path. All the updates go in one frame,
        each peer's replies in one (§2), in order — once their journal records are written."""
        out = self.arbiter.outgoing(out)
        frame = self._frame(out.public) if out.public else None
        if frame is not None:
            self.sent_bytes += len(frame)
            self.published += len(out.public)
            _send(self.pub, frame)
        if not out.private:
            return
        router = self.router
        replies: dict[bytes, list[dict[str, Any]]] = {}
        for peer, msg in out.private:
            if peer is not None:
                replies.setdefault(peer, []).append(msg)
        for peer, msgs in replies.items():
            frame = self._frame(msgs)
            if frame is None:
                continue
            self.sent_bytes += len(frame)
            try:
                # A full queue to this peer (it does not read): the ROUTER drops the message
                # without blocking or raising; the peer resyncs with a snapshot when it reads.
                _send(router, peer, NOBLOCK | SNDMORE)
                _send(router, frame, NOBLOCK)
            except zmq.ZMQError:
                pass  # the peer is gone; its seat is kept and it will resync on return

    def _frame(self, msgs: list[dict[str, Any]]) -> bytes | None:
        return frame(msgs, self._packer)

    # --- running in a thread (tests, `lan-demon play`) -------------------------------------

    def start(self) -> ArbiterServer:
        self._thread = threading.Thread(target=self._run_thread, name="arbiter", daemon=True)
        self._thread.start()
        return self

    def _run_thread(self) -> None:
        try:
            self.serve(exit_when_over=False)
        finally:
            self._close_sockets()

    def stop(self) -> None:
        """Ask the loop to end; it does within its next poll (at most 0.1 s). Safe from a
        signal handler and from any thread: asked from inside :meth:`serve` (a signal handler
        on the thread serving, or the loop itself) or while another thread's :meth:`serve`
        runs, it only sets a flag, and that call to :meth:`serve` returns (its caller then
        closes the server, e.g. with :meth:`close`). Otherwise it also finishes the job: a
        server run by :meth:`start` is waited for (its thread closes the sockets), one not
        serving is closed."""
        self._stopping = True
        serving, thread = self._serving, self._thread
        if serving is not None and (thread is None or thread.ident == threading.get_ident()):
            return  # serve() is running here, or in a thread that is not ours to wait for
        if thread is not None:
            thread.join(timeout=10)
            self._thread = None
        else:
            self._close_sockets()

    def close(self) -> None:
        """Stop, and close the sockets and the journal once nothing serves (:meth:`stop`)."""
        self.stop()

    def _close_sockets(self, linger: int = 0) -> None:
        if self._closed:
            return
        self._closed = True
        if getattr(self, "watchers_pub", None) is not None:  # (its relay reads the PUB)
            self.watchers_pub.close(linger)
        for sock in (getattr(self, "router", None), getattr(self, "pub", None)):
            if sock is not None and not sock.closed:
                sock.close(linger=linger)
        if getattr(self, "auth", None) is not None:  # after the sockets, as ZAP wants
            self.auth.gates.pop(self.watch_domain, None)
            SharedZap.give_back(self.context)
            self.auth = None
        if getattr(self, "journal", None):
            self.journal.close()
            self.journal = None

    def finish(self, grace: float = 2.0, linger_ms: int = 2000) -> None:
        """Close after a normal end. For up to ``grace`` seconds the table still answers — a
        client that missed the final update asks a snapshot and learns the match is over —
        closing sooner once no seated player is still here (bots say ``leave`` at the end)."""
        poller = zmq.Poller()
        poller.register(self.router, zmq.POLLIN)
        deadline = self.clock() + grace
        while self.clock() < deadline and any(s.status == "here" for s in self.arbiter.seats):
            out = Outbox()
            if self._inbox or poller.poll(50):
                self._drain(out)
            out.extend(self._step("a tick", self.arbiter.tick))
            self._send(out)
        self._close_sockets(linger=linger_ms)
