"""A seat at a remote table: the client library that people (the UI) and bots both use.

:class:`Client` holds a :class:`~lan_demon.net.table_copy.TableCopy` (the mirror, the
prediction, the buffered updates, the duties of §22) and is the connection it is kept over
(:class:`~lan_demon.net.link.Link`): a DEALER for requests and private halves, a SUB for the
published updates, the clock sync, heartbeats, the send queue and the reconnect. What the copy
knows is read on the client too (:class:`~lan_demon.net.copy_facade.CopyFacade`). When the
arbiter refuses a move, or another card beat it to its place (RD-11),
the move leaves the in-flight list, ``predicted`` is rebuilt from the mirror, and a
:class:`~lan_demon.net.notices.Notice` says why.

Nothing here blocks for long: :meth:`Client.poll` handles whatever arrived and returns.

At a LAN table started with ``--secure`` the client is a CURVE client of the host's public key
(``server_key``), with one key pair of its own for its whole life: the arbiter binds the seat to
that key, so the same client can come back to its seat and nobody else can, token or not.
"""

from __future__ import annotations

import itertools
import time
from typing import Any, Callable

import zmq

from lan_demon.games import IllegalMove, get_game
from lan_demon.net.clock_sync import ClockSync
from lan_demon.net.codec import NAME_CHARS, ProtocolError, decode_all, fit_text, make
from lan_demon.net.connect import (ConnectError, check_server_key, handshake_failure,
                                   normalize_address,
                                   pub_endpoint, unwatch, watch_handshake)
from lan_demon.net.copy_facade import CopyFacade
from lan_demon.net.notices import Notice, NoticeKind
from lan_demon.net.security import KeyPair, make_curve_client, new_keypair, normalize_code
from lan_demon.net.send_queue import SendQueue
from lan_demon.net.settings import CONNECT_TIMEOUT
from lan_demon.net.table_copy import TableCopy
from lan_demon.net.tokens import TokenStore

BEAT, WATCH_BEAT = 1.0, 30.0  # a seat's hb; a spectator's hb and clock ping (§11)
SILENCE = 3.5  # no word from the arbiter this long: it is lost, reconnect
REFUSALS = ("bad_token", "full", "version", "not_joined", "bad_code", "slow_down", "wrong_key",
            "removed", "stalled")
WATCHED = {"pub": "update", "private": "private"}  # a socket's channel as a watcher hears it
# pyzmq's flags as plain ints: its enum types cost a call each time they are combined or passed
EVENTS, POLLIN, NOBLOCK = int(zmq.EVENTS), int(zmq.POLLIN), int(zmq.NOBLOCK)


class Client(CopyFacade):
    """One connection to an arbiter, as a player or a spectator.

    ``watchers`` (a list, empty at first) is for measuring tools: each is called as
    ``watcher(channel, msg, size)`` for every message the client receives — ``channel``
    ``"update"`` (the published updates and beats) or ``"private"`` (everything the arbiter
    sends this seat alone), ``msg`` the decoded message, ``size`` the frame's length in bytes
    (shared evenly by the messages of a frame that held several, §2) — before the frame's
    messages are handled. An empty list costs one truth test per frame. A watcher
    must not change ``msg``. See also :attr:`buffered` and :attr:`catching_up`.

    ``copy`` is the table as this seat knows it; the client reads it out under the names a
    screen or a bot uses (``table``, ``seat``, ``game``, ``mirror``, ``predicted``, ``seq``,
    ``pending``, ``notices``…), and hands it every update and snapshot."""

    def __init__(self, address: str, name: str = "player", role: str = "player",
                 token: str | None = None, bot: bool = False,
                 context: zmq.Context | None = None, send_delay: float = 0.0,
                 clock: Callable[[], float] = time.monotonic,
                 server_key: str | bytes | None = None, code: str | None = None,
                 keys: KeyPair | None = None, history: int | None = None,
                 remember: bool = False):
        """``server_key``: the host's CURVE public key (z85), to join a ``--secure`` table;
        ``keys``: our own pair (default: a fresh one, kept across reconnects); ``code``: the
        room code, sent in every hello; ``history``: how many finished rounds' results to keep
        (:attr:`scores`; None: all — a person's score sheet; a bot needs few, and on an
        endless table all of them would grow without end). ``remember``: keep the session token on disk
        (:mod:`lan_demon.net.tokens`), so a restart within 5 minutes takes the same seat."""
        self.copy = TableCopy(self, role, history)
        self._view: dict[str, Any] | None = None
        self._view_key: tuple[int, int | None] | None = None
        self._legal: list[Any] = []
        self._legal_key: tuple[int, int | None] | None = None
        self.watchers: list[Callable[[str, dict[str, Any], int], None]] = []
        self.address = normalize_address(address)
        self.name, self.token, self.bot = name, token, bot
        self.server_key = check_server_key(server_key)
        self.store: TokenStore | None = None
        self._stored_token = False  # the hello carries a token read from disk
        self._given_up: str | None = None  # why the table refused that token, if it did
        self.welcomed = False  # a welcome came once: a refusal now is of a way back (_gone)
        if remember and role == "player" and token is None:
            store = TokenStore(self.address, name)
            free, stored = store.claim()
            if free:  # else another process of ours sits under this name: a seat of our own
                self.store, self.token, self._stored_token = store, stored, stored is not None
                pair = store.keys() if self.server_key is not None and keys is None else None
                if pair is not None:  # the seat is bound to the key that took it (CURVE)
                    keys = KeyPair(pair[0].encode("ascii"), pair[1].encode("ascii"))
        self.keys = keys or (new_keypair() if self.server_key is not None else None)
        self.code = normalize_code(code) if code else None
        self._reconnect_soon = False
        self.context = context or zmq.Context.instance()
        self.clock = clock
        self._ids = itertools.count(1)
        self.outgoing = SendQueue(clock, send_delay)
        self.sync = ClockSync(clock)
        self.dealer: zmq.Socket | None = None
        self.sub: zmq.Socket | None = None
        self._polled: tuple[Any, Any] = (None, None)  # the sockets _polling was made for
        self._polling = zmq.Poller()
        self.config: dict[str, Any] = {}
        self.heard = self.next_beat = self.clock()
        self.connected = False
        self.bytes_in = 0
        copy = self.copy
        self._handlers: dict[str, Callable[[dict[str, Any]], None]] = {
            "private": copy.on_private, "snap": copy.on_snap,
            "beat": copy.on_beat, "stall": self._on_stall, "welcome": self._on_welcome,
            "pong": self._on_pong, "ok": self._on_ok, "error": self._on_error,
            "probe": self._on_probe}

    # --- what the table copy asks of its connection (net/link.py) ---------------------------

    def send(self, msg: dict[str, Any]) -> bool:
        """Queue a message for the arbiter; False when it could not be queued."""
        return self.outgoing.send(msg)

    def next_id(self) -> int:
        return next(self._ids)

    def hang_up(self) -> None:
        self._close_sockets()

    def match_over(self) -> None:
        if self.store is not None:
            self.store.forget()  # nothing to come back to (the token stays in memory)

    # --- connecting ------------------------------------------------------------------------

    def connect(self, timeout: float = CONNECT_TIMEOUT) -> Client:
        """Say hello, take the seat, sync the clock, fetch a snapshot. Raises ConnectError.

        A failed CURVE handshake (one side encrypted and the other not, or a wrong server
        key) is seen on the connection and said at once rather than waited out."""
        monitor = self._open(watch=True)
        deadline = self.clock() + timeout
        try:
            while not self.connected or self.copy.catching_up or not self.sync.synced:
                failure = handshake_failure(monitor, self.server_key is not None)
                if failure is not None:
                    raise ConnectError(f"cannot talk to the arbiter at {self.address}: "
                                       f"{failure}")
                if self.clock() > deadline:
                    raise ConnectError(self._silence(timeout))
                self.poll(0.05)
        except BaseException:
            unwatch(self.dealer, monitor)
            self.close()
            raise
        unwatch(self.dealer, monitor)
        return self

    def _silence(self, timeout: float) -> str:
        text = f"no answer from an arbiter at {self.address} within {timeout:g} s"
        if self.server_key is not None:
            return f"{text} — wrong key? (check the host's fingerprint), or is it not running?"
        return f"{text} — is the host running?"

    def _open(self, watch: bool = False) -> zmq.Socket | None:
        """A new DEALER to the arbiter, saying hello. ``watch``: return a monitor of its
        handshake, attached before connecting (a refused one is not tried again)."""
        self.dealer = self.context.socket(zmq.DEALER)
        self.dealer.setsockopt(zmq.LINGER, 0)
        self._secure(self.dealer)
        monitor = watch_handshake(self.dealer) if watch else None
        self.dealer.connect(self.address)
        self.outgoing.socket = self.dealer
        self.connected = False
        self.send(self._hello())
        return monitor

    def _hello(self) -> dict[str, Any]:
        """Our name trimmed and cut to the characters the arbiter reads (§4.1), which keeps it
        within the bytes a string may have (§2): a longer one would be refused with the frame."""
        return make("hello", id=next(self._ids), name=fit_text(self.name.strip(), NAME_CHARS),
                    role=self.role, token=self.token, bot=self.bot or None, code=self.code)

    def _secure(self, sock: zmq.Socket) -> None:
        if self.server_key is not None:
            make_curve_client(sock, self.server_key, self.keys)

    def _on_welcome(self, msg: dict[str, Any]) -> None:
        self.token = msg["token"] or self.token
        self.name = msg.get("name") or self.name  # as seated
        self._stored_token = False
        if self.store is not None and self.token:
            self.store.save(self.token, None if self.keys is None else
                            (self.keys.public.decode("ascii"), self.keys.secret.decode("ascii")))
        self.config = msg["config"]
        self.copy.seated(msg.get("seat"), msg.get("seal"), get_game(msg["game"]), self.config)
        if self.sub is None:
            self.sub = self.context.socket(zmq.SUB)
            self.sub.setsockopt(zmq.LINGER, 0)
            self.sub.setsockopt(zmq.SUBSCRIBE, b"")
            self._secure(self.sub)
            self.sub.connect(pub_endpoint(msg["pub"], self.address))
        self.connected = self.welcomed = True
        self.sync.restart()
        self.send(self.sync.ping(next(self._ids)))
        self.copy.resync()

    def _on_pong(self, msg: dict[str, Any]) -> None:
        if self.sync.on_pong(msg):
            self.send(self.sync.ping(next(self._ids)))

    @property
    def rtt(self) -> float | None:
        """The best round trip to the arbiter measured (None: none yet)."""
        return self.sync.rtt

    @property
    def offset(self) -> float:
        """The arbiter's clock minus ours, as estimated."""
        return self.sync.offset

    def arbiter_now(self) -> float:
        """Our best estimate of the arbiter's clock now (NTP style, from the best round trip)."""
        return self.sync.arbiter_now()

    # --- playing ---------------------------------------------------------------------------

    def legal_moves(self) -> list[Any]:
        """This seat's legal moves now (a new list each time; worked out once per change)."""
        if self.predicted is None or self.seat is None or self.table["phase"] != "playing":
            return []
        key = (self.copy.changes, self.seat)
        if self._legal_key != key:
            self._legal, self._legal_key = self.game.legal_moves(self.predicted, self.seat), key
        return list(self._legal)

    def view(self) -> dict[str, Any] | None:
        """This seat's view of the table now, worked out once per change of the mirror or
        the moves in flight: a screen reads it many times for one drawing (a browser seat's
        face asked for it seven times), and the host makes one face per browser seat for
        each update. Read it, never change it: the next reader gets the same dict."""
        if self.predicted is None:
            return None
        key = (self.copy.changes, self.seat)
        if self._view_key != key:
            self._view, self._view_key = self.game.view(self.predicted, self.seat), key
        return self._view

    def play(self, move: Any) -> int:
        """Play a move: it shows at once in ``predicted`` and goes to the arbiter.

        Raises IllegalMove (naming the rule) when the local engine already knows it is illegal;
        nothing is sent then.
        """
        if self.seat is None:
            raise ConnectError("spectators cannot play")
        if self.table["phase"] != "playing" or self.predicted is None:
            raise IllegalMove(self.game.moves_rule if self.game else "RD-4",
                              "no round is in progress", move)
        self.game.check(self.predicted, self.seat, move)  # illegal: raises, nothing is sent
        rid = next(self._ids)
        self.pending[rid] = move
        if not self.send(make("move", id=rid, round=self.table["round"], move=move.to_data(),
                              ts=self.arbiter_now())):
            del self.pending[rid]
            raise ConnectError("the move was not sent: the arbiter is not taking messages "
                               "(it may be restarting)")
        self.copy.repredict()  # predicted now shows the move too, from the next time it is read
        return rid

    def come_back(self) -> None:
        """After :meth:`leave` during a match (the arbiter keeps the seat 5 minutes): take the
        seat again by its token, on a new connection, as a terminal's ``join`` does."""
        self._reconnect()

    def leave(self) -> None:
        if self.dealer is not None:
            self.send(make("leave", id=next(self._ids)))
            self.outgoing.flush(force=True)

    def close(self) -> None:
        """Close the sockets and let go of the stored token (it stays on disk)."""
        self._close_sockets()
        if self.store is not None:
            self.store.release()

    def _close_sockets(self) -> None:
        for sock in (self.dealer, self.sub):
            if sock is not None and not sock.closed:
                sock.close(linger=0)
        self.dealer = self.sub = self.outgoing.socket = None
        self.connected = False

    # --- the loop --------------------------------------------------------------------------

    def sockets(self) -> list[zmq.Socket]:
        return [s for s in (self.dealer, self.sub) if s is not None]

    def poll(self, timeout: float = 0.0) -> list[Notice]:
        """Wait up to ``timeout`` seconds for traffic, handle all of it, return new notices."""
        if self.dealer is None:
            return self.take_notices()
        wait = timeout
        waiting = self.outgoing.next_at()
        if waiting is not None:
            wait = max(0.0, min(wait, waiting - self.clock()))
        if wait > 0:
            self._poller().poll(wait * 1000)
        self.pump()
        return self.take_notices()

    def _poller(self) -> zmq.Poller:
        """A poller of our sockets, made again only when they change (a reconnect)."""
        sockets = (self.dealer, self.sub)
        if self._polled != sockets:
            self._polled, self._polling = sockets, zmq.Poller()
            for sock in self.sockets():
                self._polling.register(sock, zmq.POLLIN)
        return self._polling

    def pump(self) -> None:
        """Handle everything that has arrived, without waiting; send what is due."""
        self.outgoing.flush()
        for sock, channel in ((self.dealer, "private"), (self.sub, "pub")):
            # Read while a frame is waiting (asking is cheaper than the Again a recv raises
            # on an empty socket); a fresh hello may replace the dealer meanwhile.
            while sock is not None and not sock.closed and sock.getsockopt(EVENTS) & POLLIN:
                frame = sock.recv(NOBLOCK)
                self.bytes_in += len(frame)
                self._receive(frame, channel)
        self.copy.duties.commit_when_due()
        self._housekeeping()
        self.outgoing.flush()

    def due(self) -> float:
        """The earliest time :meth:`pump` has work even if nothing arrives: a heartbeat to
        send, a silence to notice, a private half overdue, a delayed frame to send."""
        due = float("inf")
        if self.connected:
            due = min(self.next_beat, self.heard + SILENCE)
        private = self.copy.order.private_due()
        if private is not None:
            due = min(due, private)
        waiting = self.outgoing.next_at()
        if waiting is not None:
            due = min(due, waiting)
        return due - 0.001  # early rather than late: pump itself decides to the microsecond

    def _receive(self, frame: bytes, channel: str) -> None:
        """One frame from the arbiter: one message, or several to handle in order (§2)."""
        try:
            msgs = decode_all(frame, channel)
        except ProtocolError as err:
            self.copy.notice(NoticeKind.REFUSED, f"a bad message from the arbiter: {err}")
            return
        if channel == "pub" or msgs[0]["t"] != "pong":
            # A pong is no sign that our table is still there: any arbiter on this port answers
            # one, a new host started on it too, and its pongs would keep a client on a table
            # that is gone, its screen frozen. Beats and our own replies are (§18.7).
            self.heard = self.clock()
        if self.watchers:
            size = len(frame) / len(msgs)
            for msg in msgs:
                for watcher in self.watchers:
                    watcher(WATCHED[channel], msg, size)
        copy = self.copy
        for msg in msgs:
            if msg["t"] == "update":  # nearly every message: straight to the copy
                copy.on_update(msg)
            else:
                self._handlers[msg["t"]](msg)

    def _housekeeping(self) -> None:
        now = self.clock()
        if self.connected and now >= self.next_beat:
            self.next_beat = now + (BEAT if self.role == "player" else WATCH_BEAT)
            self.send(make("hb"))
            if self.sync.synced and not self.sync.pings:
                self.send(self.sync.ping(next(self._ids)))  # keep the clock estimate fresh
        if self.connected and (now - self.heard > SILENCE or self._reconnect_soon):
            if self.table.get("phase") == "over":
                self._closed()
            else:
                self._reconnect()
        self.copy.order.tick()

    def _closed(self) -> None:
        """The host went quiet after the match: nothing to come back to, and nothing
        reconnects (the copy says so once)."""
        self._reconnect_soon = False
        self.copy.closed()
        self.heard = self.clock()  # (not said again: "closed" is set)

    def _reconnect(self) -> None:
        """The arbiter went quiet: a new connection, the same seat by its token."""
        self.copy.notice(NoticeKind.RECONNECTING, "reconnecting…")
        self._close_sockets()
        self._reconnect_soon = False
        self.copy.connection_lost()
        self.copy.forget_stall()
        self.heard = self.clock()
        self._open()

    # --- sending ---------------------------------------------------------------------------

    @property
    def dropped(self) -> int:
        """Frames the arbiter's full queue would not take (:class:`SendQueue`)."""
        return self.outgoing.dropped

    # --- private messages ------------------------------------------------------------------

    def _on_probe(self, msg: dict[str, Any]) -> None:
        self.send(make("echo", a=msg["a"]))

    def _on_ok(self, msg: dict[str, Any]) -> None:  # (a move's answer is its update)
        self.copy.duties.answer(msg["re"], None)

    def _on_error(self, msg: dict[str, Any]) -> None:
        rid, code = msg.get("re"), msg["code"]
        if rid is not None and self.copy.duties.answer(rid, msg):
            return  # e.g. a commit just too late: every screen says whose randomness is missing
        if code == "bad_token" and self._stored_token and not self.connected:
            self._given_up = msg["reason"]  # said again if no other seat is to be had
            self._fresh_hello()  # a token from disk the table does not know: forget it
            return
        if code == "stalled" and self.welcomed and not self.connected:  # (§25: our way back,
            return  # at a table standing still: taken once it goes on, _on_stall)
        if code in REFUSALS and not self.connected:
            if self.welcomed:  # a way back refused: not an error of the caller's
                self._gone(msg["reason"])
                return
            self.close()
            # A match under way has no seat for a token the table gave up: why it gave it up
            # is the news, not the advice to come back with the same join.
            reason = self._given_up if code == "full" and self._given_up else msg["reason"]
            raise ConnectError(f"the table at {self.address.removeprefix('tcp://')} "
                               f"refused: {reason}", code, msg.get("wait"))
        if code == "not_joined" and self.token and self.seat is not None:
            self._reconnect_soon = True  # it has forgotten this connection: back by token
        elif code == "rate_limited":
            self.outgoing.hold()
        elif code == "internal":
            self.copy.resync()  # whatever failed there, our copy may be behind
        self.copy.refused(rid, msg)

    def _gone(self, reason: str) -> None:
        """The arbiter that answered a reconnect refused it — a new host on the old one's
        port knows no such seat, say. Nothing to come back to: the copy says so once, and
        the sockets close."""
        self.copy.gone(reason, f"the host refused this seat back: {reason}")

    def _on_stall(self, msg: dict[str, Any]) -> None:
        """§25: the table stands still, or goes on. Once it goes on, what it refused
        meanwhile is said again — or, when our way back was what it refused, that is taken."""
        if not self.copy.on_stall(msg):
            return
        if self.connected:
            self.copy.stall_over()
        elif self.welcomed:
            self._reconnect()

    def _fresh_hello(self) -> None:
        """The stored token was refused (another match, or too long away): forget it and
        say hello once more without it, for a seat of our own."""
        assert self.store is not None
        self.store.forget()
        self.token, self._stored_token = None, False
        self._close_sockets()
        self._open()


