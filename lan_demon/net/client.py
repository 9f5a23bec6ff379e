"""A seat at a remote table: the client library that people (the UI) and bots both use.

The client keeps two copies of the round:

* ``mirror`` — the canonical table as this seat may see it (a redacted engine state), moved on
  only by the arbiter's sequenced updates (``Game.replay``);
* ``predicted`` — the mirror with this seat's own moves that are still in flight applied on
  top, so the screen answers a key press at once instead of waiting for the network.

When the arbiter refuses a move, or another card beat it to its place (RD-11), the move leaves
the in-flight list, ``predicted`` is rebuilt from the mirror, and a :class:`Notice` says why.
A gap in the sequence (or a late join) is healed with a snapshot, after the Clone pattern.

Nothing here blocks for long: :meth:`Client.poll` handles whatever arrived and returns.

At a LAN table started with ``--secure`` the client is a CURVE client of the host's public key
(``server_key``), with one key pair of its own for its whole life: the arbiter binds the seat to
that key, so the same client can come back to its seat and nobody else can, token or not.
"""

from __future__ import annotations

import collections
import itertools
import time
from dataclasses import dataclass, field
from typing import Any, Callable

import zmq
from zmq.utils.monitor import recv_monitor_message

from lan_demon.games import GameError, IllegalMove, get_game
from lan_demon.net.codec import ProtocolError, decode, encode, make, state_hash
from lan_demon.net.fairdeal import DealWitness
from lan_demon.net.security import (KeyPair, is_public_key, make_curve_client, new_keypair,
                                    normalize_code)
from lan_demon.net.tokens import TokenStore

BEAT = 1.0
SILENCE = 3.5  # no word from the arbiter this long: it is lost, reconnect
SYNC_PINGS = 5
DEFAULT_PORT = 7700  # the port of an address given without one (``host``'s default)
PRIVATE_WAIT = 1.0  # how long an update may wait for its private half before a resync
RATE_BACKOFF = 1.0  # told rate_limited: hold everything we send this long (the arbiter's warning
#                     interval), rather than keep a flood going
REFUSALS = ("bad_token", "full", "version", "not_joined", "bad_code", "slow_down", "wrong_key")
HANDSHAKE_FAILED = (zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL | zmq.EVENT_HANDSHAKE_FAILED_AUTH
                    | zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL)


class ConnectError(GameError):
    """The arbiter could not be reached or refused us; the text says which and why, ``code``
    the arbiter's error code when it refused (e.g. ``bad_code``), else None."""

    def __init__(self, text: str, code: str | None = None, wait: float | None = None):
        super().__init__(text)
        self.code = code
        self.wait = wait


@dataclass
class Notice:
    """Something the player should hear about: ``kind`` is one of beaten, refused, round,
    round_end, match_end, presence, lobby, countdown, resync, reconnecting, reconnected,
    closed (the host went quiet after the match: the final scoreboard stays), dishonest (our
    own check of a round's deal failed, §22) and dispute (a seat's check failed: the text
    says whose and why)."""

    kind: str
    text: str = ""
    data: dict[str, Any] = field(default_factory=dict)


def normalize_address(address: str) -> str:
    """``HOST:PORT``, ``tcp://HOST:PORT`` or ``HOST`` (port 7700) → ``tcp://HOST:PORT``; a
    clear error otherwise. A host without a port is an IPv4 address, ``localhost`` or a
    dotted name (``ann.local``): a bare word is more likely a slip than a machine."""
    text = address.strip()
    if text.startswith("tcp://"):
        text = text[len("tcp://"):]
    host, sep, port = text.rpartition(":")
    if not sep and _looks_like_host(text):
        host, sep, port = text, ":", str(DEFAULT_PORT)  # no port given: the default
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ConnectError(f"not an address: {address!r} (use HOST:PORT, e.g. 127.0.0.1:7700)")
    return f"tcp://{host}:{port}"


def _looks_like_host(text: str) -> bool:
    labels = text.split(".")
    if not all(label and all(ch.isalnum() or ch == "-" for ch in label) for label in labels):
        return False
    return text == "localhost" or len(labels) > 1


def pub_endpoint(pub: str, router: str) -> str:
    """Where to connect the SUB: the welcome's ``pub`` names the host the arbiter bound to,
    which on a LAN host is a wildcard (``0.0.0.0``) — so take the host we reached the ROUTER
    at, with the ``pub`` port (PROTOCOL.md §2)."""
    port = pub.rpartition(":")[2]
    host = router[len("tcp://"):].rpartition(":")[0]
    return f"tcp://{host}:{port}"


class Client:
    """One connection to an arbiter, as a player or a spectator."""

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
        in ``table["results"]`` (None: all — a person's score sheet; a bot needs few, and on an
        endless table all of them would grow without end). ``table["results_from"]`` is the
        number of the first round kept. ``remember``: keep the session token on disk
        (:mod:`lan_demon.net.tokens`), so a restart within 5 minutes takes the same seat."""
        self.history = history
        self.address = normalize_address(address)
        self.name, self.role, self.token, self.bot = name, role, token, bot
        self.server_key = _server_key(server_key)
        self.store: TokenStore | None = None
        self._stored_token = False  # the hello carries a token read from disk
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
        self._said_ready = False  # we said ready and no countdown has used it up yet
        self._hold_until = float("-inf")  # told rate_limited: nothing is sent before this
        self._reconnect_soon = False
        self.context = context or zmq.Context.instance()
        self.clock = clock
        self.send_delay = send_delay  # injected latency on everything we send (tests)
        self._ids = itertools.count(1)
        self._outgoing: collections.deque[tuple[float, bytes]] = collections.deque()
        self.dealer: zmq.Socket | None = None
        self.sub: zmq.Socket | None = None
        self.seat: int | None = None
        self.game: Any = None
        self.config: dict[str, Any] = {}
        self.offset = 0.0  # arbiter clock minus ours
        self.rtt: float | None = None
        self.seq = 0
        self.table: dict[str, Any] = {"phase": "lobby", "seats": []}
        self.mirror: Any = None
        self._predicted: Any = None
        self._stale = False  # predicted must be worked out again before it is read
        self.pending: dict[int, Any] = {}  # in-flight moves by request id, oldest first
        self._updates: dict[int, dict[str, Any]] = {}
        self._privates: dict[int, dict[str, Any]] = {}
        self._waiting_since: float | None = None
        self._snapshot_asked = False
        self._pings: dict[int, float] = {}
        self._samples: list[tuple[float, float]] = []
        self.notices: list[Notice] = []
        self.heard = self.next_beat = self.clock()
        self.connected = False
        self.bytes_in = 0
        self.dropped = 0  # frames the arbiter's full queue would not take (see _put)
        # Commit and reveal (§22): our nonces, and what each round's deal was held to.
        self.witness = DealWitness()
        self._commit_due: int | None = None  # the round to commit a nonce for, when we can
        self._deal_rids: set[int] = set()  # our commit/reveal/dispute requests

    # --- connecting ------------------------------------------------------------------------

    def connect(self, timeout: float = 5.0) -> Client:
        """Say hello, take the seat, sync the clock, fetch a snapshot. Raises ConnectError.

        A failed CURVE handshake (one side encrypted and the other not, or a wrong server
        key) is seen on the connection and said at once rather than waited out."""
        monitor = self._open(watch=True)
        deadline = self.clock() + timeout
        try:
            while not self.connected or self._snapshot_asked or \
                    len(self._samples) < SYNC_PINGS:
                failure = _handshake_failure(monitor, self.server_key is not None)
                if failure is not None:
                    raise ConnectError(f"cannot talk to the arbiter at {self.address}: "
                                       f"{failure}")
                if self.clock() > deadline:
                    raise ConnectError(self._silence(timeout))
                self.poll(0.05)
        except BaseException:
            self._unwatch(monitor)
            self.close()
            raise
        self._unwatch(monitor)
        return self

    def _silence(self, timeout: float) -> str:
        text = f"no answer from an arbiter at {self.address} within {timeout:g} s"
        if self.server_key is not None:
            return f"{text} — wrong key? (check the host's fingerprint), or is it not running?"
        return f"{text} — is the host running?"

    def _watch_handshake(self) -> zmq.Socket | None:
        try:
            return self.dealer.get_monitor_socket(HANDSHAKE_FAILED)
        except (zmq.ZMQError, NotImplementedError):
            return None  # no monitor: a failed handshake shows as silence instead

    def _unwatch(self, monitor: zmq.Socket | None) -> None:
        if monitor is None:
            return
        try:
            if self.dealer is not None and not self.dealer.closed:
                self.dealer.disable_monitor()
        except zmq.ZMQError:
            pass
        monitor.close(linger=0)

    def _open(self, watch: bool = False) -> zmq.Socket | None:
        """A new DEALER to the arbiter, saying hello. ``watch``: return a monitor of its
        handshake, attached before connecting (a refused one is not tried again)."""
        self.dealer = self.context.socket(zmq.DEALER)
        self.dealer.setsockopt(zmq.LINGER, 0)
        self._secure(self.dealer)
        monitor = self._watch_handshake() if watch else None
        self.dealer.connect(self.address)
        self.connected = False
        self._send(make("hello", id=next(self._ids), name=self.name, role=self.role,
                        token=self.token, bot=self.bot or None, code=self.code))
        return monitor

    def _secure(self, sock: zmq.Socket) -> None:
        if self.server_key is not None:
            make_curve_client(sock, self.server_key, self.keys)

    def _on_welcome(self, msg: dict[str, Any]) -> None:
        self.seat, self.token = msg.get("seat"), msg["token"] or self.token
        self._stored_token = False
        if self.store is not None and self.token:
            self.store.save(self.token, None if self.keys is None else
                            (self.keys.public.decode("ascii"), self.keys.secret.decode("ascii")))
        self.game = get_game(msg["game"])
        self.config = msg["config"]
        if self.sub is None:
            self.sub = self.context.socket(zmq.SUB)
            self.sub.setsockopt(zmq.LINGER, 0)
            self.sub.setsockopt(zmq.SUBSCRIBE, b"")
            self._secure(self.sub)
            self.sub.connect(pub_endpoint(msg["pub"], self.address))
        self.connected = True
        self._samples.clear()
        self._ping()
        self.resync()

    def resync(self) -> None:
        """Ask for a snapshot; updates after it are applied when it comes (Clone pattern)."""
        if not self._snapshot_asked:
            self._snapshot_asked = True
            self._send(make("snapshot", id=next(self._ids)))

    def _ping(self) -> None:
        rid = next(self._ids)
        self._pings[rid] = self.clock()
        self._send(make("ping", id=rid, c=self._pings[rid]))

    def _on_pong(self, msg: dict[str, Any]) -> None:
        sent = self._pings.pop(msg["re"], None)
        if sent is None:
            return
        now = self.clock()
        rtt = now - sent
        self._samples = sorted(self._samples + [(rtt, msg["a"] - (sent + now) / 2)])[:8]
        self.rtt, self.offset = self._samples[0]
        if len(self._samples) < SYNC_PINGS:
            self._ping()

    def arbiter_now(self) -> float:
        """Our best estimate of the arbiter's clock now (NTP style, from the best round trip)."""
        return self.clock() + self.offset

    # --- playing ---------------------------------------------------------------------------

    def ready(self) -> None:
        """Say ready — after our nonce's commitment for the round it may start (§22): a
        ``ready`` can be the one that starts the countdown, which fixes the commitments."""
        self._said_ready = True
        self._commit_due = self._upcoming_round()
        self._commit_when_due()
        self._send(make("ready", id=next(self._ids)))

    def start(self) -> None:
        self._send(make("start", id=next(self._ids)))

    def legal_moves(self) -> list[Any]:
        if self.predicted is None or self.seat is None or self.table["phase"] != "playing":
            return []
        return self.game.legal_moves(self.predicted, self.seat)

    def view(self) -> dict[str, Any] | None:
        if self.predicted is None:
            return None
        return self.game.view(self.predicted, self.seat)

    def play(self, move: Any) -> int:
        """Play a move: it shows at once in ``predicted`` and goes to the arbiter.

        Raises IllegalMove (naming the rule) when the local engine already knows it is illegal;
        nothing is sent then.
        """
        if self.seat is None:
            raise ConnectError("spectators cannot play")
        if self.table["phase"] != "playing" or self.predicted is None:
            raise IllegalMove("RD-4" if self.game and self.game.races else "RK-4",
                              "no round is in progress", move)
        self.game.check(self.predicted, self.seat, move)  # illegal: raises, nothing is sent
        rid = next(self._ids)
        self.pending[rid] = move
        if not self._send(make("move", id=rid, round=self.table["round"], move=move.to_data(),
                               ts=self.arbiter_now())):
            del self.pending[rid]
            raise ConnectError("the move was not sent: the arbiter is not taking messages "
                               "(it may be restarting)")
        self._stale = True  # predicted now shows the move too, from the next time it is read
        return rid

    @property
    def predicted(self) -> Any:
        """The mirror with our moves in flight applied, worked out when it is read (a bot
        never reads it, and a person's screen reads it once per change)."""
        if self._stale:
            self._stale = False
            self._predicted = self._prediction()
        return self._predicted

    @predicted.setter
    def predicted(self, state: Any) -> None:
        self._predicted, self._stale = state, False

    def leave(self) -> None:
        if self.dealer is not None:
            self._send(make("leave", id=next(self._ids)))
            self._flush(force=True)

    def close(self) -> None:
        """Close the sockets and let go of the stored token (it stays on disk)."""
        self._close_sockets()
        if self.store is not None:
            self.store.release()

    def _close_sockets(self) -> None:
        for sock in (self.dealer, self.sub):
            if sock is not None and not sock.closed:
                sock.close(linger=0)
        self.dealer = self.sub = None
        self.connected = False

    # --- the loop --------------------------------------------------------------------------

    def sockets(self) -> list[zmq.Socket]:
        return [s for s in (self.dealer, self.sub) if s is not None]

    def poll(self, timeout: float = 0.0) -> list[Notice]:
        """Wait up to ``timeout`` seconds for traffic, handle all of it, return new notices."""
        if self.dealer is None:
            return self.take_notices()
        wait = timeout
        if self._outgoing:
            wait = max(0.0, min(wait, self._outgoing[0][0] - self.clock()))
        if wait > 0:
            poller = zmq.Poller()
            for sock in self.sockets():
                poller.register(sock, zmq.POLLIN)
            poller.poll(wait * 1000)
        self.pump()
        return self.take_notices()

    def pump(self) -> None:
        """Handle everything that has arrived, without waiting; send what is due."""
        self._flush()
        for sock, channel in ((self.dealer, "private"), (self.sub, "pub")):
            while sock is not None and not sock.closed:  # (a fresh hello replaces the dealer)
                try:
                    frame = sock.recv(zmq.NOBLOCK)
                except zmq.Again:
                    break
                self.bytes_in += len(frame)
                self._receive(frame, channel)
        self._commit_when_due()
        self._housekeeping()
        self._flush()

    def due(self) -> float:
        """The earliest time :meth:`pump` has work even if nothing arrives: a heartbeat to
        send, a silence to notice, a private half overdue, a delayed frame to send."""
        due = float("inf")
        if self.connected:
            due = min(self.next_beat, self.heard + SILENCE)
        if self._waiting_since is not None:
            due = min(due, self._waiting_since + PRIVATE_WAIT)
        if self._outgoing:
            due = min(due, self._outgoing[0][0])
        return due - 0.001  # early rather than late: pump itself decides to the microsecond

    def take_notices(self) -> list[Notice]:
        notices, self.notices = self.notices, []
        return notices

    def _receive(self, frame: bytes, channel: str) -> None:
        try:
            msg = decode(frame, channel)
        except ProtocolError as err:
            self.notices.append(Notice("refused", f"a bad message from the arbiter: {err}"))
            return
        self.heard = self.clock()
        handler = getattr(self, "_on_" + msg["t"])
        handler(msg)

    def _housekeeping(self) -> None:
        now = self.clock()
        if self.connected and now >= self.next_beat:
            self.next_beat = now + BEAT
            self._send(make("hb"))
            if len(self._samples) >= SYNC_PINGS and not self._pings:
                self._ping()  # keep the clock estimate fresh
        if self.connected and (now - self.heard > SILENCE or self._reconnect_soon):
            if self.table.get("phase") == "over":
                self._closed()
            else:
                self._reconnect()
        if self._waiting_since is not None and now - self._waiting_since > PRIVATE_WAIT:
            self._waiting_since = None
            self.resync()

    def _closed(self) -> None:
        """The host went quiet after the match: nothing to come back to. Said once; the
        final scoreboard (``table``) stays, and nothing reconnects."""
        self._reconnect_soon = False
        if not self.table.get("closed"):
            self.table["closed"] = True
            self.notices.append(Notice("closed", "the host has closed the table"))
        self.heard = self.clock()  # (not said again: "closed" is set)

    def _reconnect(self) -> None:
        """The arbiter went quiet: a new connection, the same seat by its token."""
        self.notices.append(Notice("reconnecting", "reconnecting…"))
        self._reconnect_soon = False
        self._close_sockets()
        self._snapshot_asked = False
        self.heard = self.clock()
        self._open()

    # --- sending ---------------------------------------------------------------------------

    def _send(self, msg: dict[str, Any]) -> bool:
        """Queue a message for the arbiter; False when it could not be queued (see _put)."""
        frame = encode(msg)
        now = self.clock()
        if self.send_delay > 0 or now < self._hold_until:
            at = max(now + self.send_delay, self._hold_until)
            if self._outgoing:
                at = max(at, self._outgoing[-1][0])  # in the order they were sent
            self._outgoing.append((at, frame))
            self._flush()
            return True
        return self._put(frame)

    def _put(self, frame: bytes) -> bool:
        """Hand a frame to ZeroMQ without ever blocking. When the arbiter is gone (killed,
        restarting) the queue to it fills up and the frame is dropped: a heartbeat or ping
        does not matter, a move is reported by :meth:`play`, and the snapshot that follows
        the reconnect heals the rest."""
        if self.dealer is None:
            return False
        try:
            self.dealer.send(frame, zmq.NOBLOCK)
        except zmq.Again:
            self.dropped += 1
            return False
        return True

    def _flush(self, force: bool = False) -> None:
        now = self.clock()
        while self._outgoing and (force or self._outgoing[0][0] <= now):
            _, frame = self._outgoing.popleft()
            self._put(frame)

    # --- private messages ------------------------------------------------------------------

    def _on_probe(self, msg: dict[str, Any]) -> None:
        self._send(make("echo", a=msg["a"]))

    def _on_ok(self, msg: dict[str, Any]) -> None:
        # a committed move shows up in its update, which carries our request id
        self._deal_rids.discard(msg["re"])

    def _on_error(self, msg: dict[str, Any]) -> None:
        rid, code = msg.get("re"), msg["code"]
        if rid in self._deal_rids:  # e.g. a commit just too late: the round goes on without
            self._deal_rids.discard(rid)  # our nonce, and the player need not hear of it
            return
        if code == "bad_token" and self._stored_token and not self.connected:
            self._fresh_hello()  # a token from disk the table does not know: forget it
            return
        if code in REFUSALS and not self.connected:
            self.close()
            raise ConnectError(f"the arbiter refused us: {msg['reason']}", code,
                               msg.get("wait"))
        if code == "not_joined" and self.token and self.seat is not None:
            self._reconnect_soon = True  # it has forgotten this connection: back by token
        elif code == "rate_limited":
            self._hold_until = self.clock() + RATE_BACKOFF
        elif code == "internal":
            self.resync()  # whatever failed there, our copy may be behind
        move = self.pending.pop(rid, None) if rid is not None else None
        if move is not None:
            self._repredict()
        kind = "beaten" if msg["code"] == "beaten" else "refused"
        text = msg["reason"] if not msg.get("rule") else f"{msg['rule']}: {msg['reason']}"
        self.notices.append(Notice(kind, text, dict(msg, move=move)))

    def _fresh_hello(self) -> None:
        """The stored token was refused (another match, or too long away): forget it and
        say hello once more without it, for a seat of our own."""
        assert self.store is not None
        self.store.forget()
        self.token, self._stored_token = None, False
        self._close_sockets()
        self._open()

    def _on_snap(self, msg: dict[str, Any]) -> None:
        self._snapshot_asked = False
        self.table = msg["table"]
        self.table["results_from"] = 0
        self._trim_history()
        self.seq = msg["seq"]
        state = msg.get("state")
        self.mirror = self.game.state_from_data(state) if state is not None else None
        self.pending.clear()
        self._repredict()
        self._updates = {s: u for s, u in self._updates.items() if s > self.seq}
        self._privates = {s: p for s, p in self._privates.items() if s > self.seq}
        self.notices.append(Notice("resync", f"synchronised at update {self.seq}"))
        self._ready_again()
        self._deal_again()
        self._advance()

    def _ready_again(self) -> None:
        """After a reconnect (or a resumed arbiter) the table may not know we said ready: if
        the snapshot shows the lobby or a pause between rounds with our seat not ready, say it
        again — only when we had said it, never for a player who had not."""
        if not self._said_ready or self.seat is None:
            return
        phase, seats = self.table.get("phase"), self.table.get("seats") or []
        if phase in ("countdown", "playing", "over"):
            self._said_ready = False  # used up: the arbiter clears it at each countdown
        elif self.seat < len(seats) and not seats[self.seat].get("ready"):
            self.ready()

    # --- commit and reveal (§22) -----------------------------------------------------------

    def _upcoming_round(self) -> int | None:
        """The next round to be dealt, whose nonce may be committed now: in the lobby and
        between rounds ``table.round``, during a round the one after it; None while a
        countdown has fixed the commitments, or once the match is over (§22)."""
        phase, round_no = self.table.get("phase"), self.table.get("round", 0)
        if phase in ("lobby", "between"):
            return round_no
        return round_no + 1 if phase == "playing" else None

    def _deal_again(self) -> None:
        """After a snapshot: commit for the next round, or reveal for the one counting down."""
        deal = self.table.get("deal")
        if self.table.get("phase") == "countdown" and deal:
            self._reveal(deal["round"], deal)
        self._commit_due = self._upcoming_round()

    def _commit_when_due(self) -> None:
        """Commit a fresh nonce for the next round to be dealt — once the updates that came
        with it are applied, so none is sent after the match is over."""
        due, self._commit_due = self._commit_due, None
        if due is None or due != self._upcoming_round() or self.seat is None or \
                self.role != "player" or due in self.witness.nonces:  # (never resent)
            return
        self._deal_request(make("commit", id=next(self._ids), round=due,
                                hash=self.witness.commit_for(due)))

    def _reveal(self, round_no: int, announced: dict[str, Any]) -> None:
        nonce = self.witness.reveal_for(self.seat, round_no, announced)
        if nonce is not None:
            self._deal_request(make("reveal", id=next(self._ids), round=round_no, nonce=nonce))

    def _deal_request(self, msg: dict[str, Any]) -> None:
        self._deal_rids.add(msg["id"])
        self._send(msg)

    def _check_deal(self, update: dict[str, Any]) -> None:
        """The round is over and the host's secret revealed: was this round's deal the one
        committed to? A failure is ours to say, loudly, and every seat is told (dispute)."""
        problem = self.witness.check(self.game, self.seat, update["round"], update.get("secret"))
        if problem is None:
            return
        text = f"round {update['round'] + 1}: {problem}"
        self.notices.append(Notice("dishonest", text, {"round": update["round"]}))
        if self.seat is not None and self.connected:
            self._deal_request(make("dispute", id=next(self._ids), round=update["round"],
                                    reason=problem))

    def _on_private(self, msg: dict[str, Any]) -> None:
        if msg["seq"] > self.seq:
            self._privates[msg["seq"]] = msg
            self._advance()

    # --- published updates ------------------------------------------------------------------

    def _on_beat(self, msg: dict[str, Any]) -> None:
        if msg["seq"] > self.seq and self.seq + 1 not in self._updates \
                and not self._snapshot_asked:
            self.resync()  # we missed the next update and nothing else will tell us
        elif msg["seq"] == self.seq and msg.get("hash") and self.mirror is not None:
            public = self.game.state_to_data(self.game.redact(self.mirror, None))
            if state_hash(public) != msg["hash"]:  # our table drifted from the canonical one
                self.notices.append(Notice("resync", "the table drifted; resynchronising"))
                self.resync()

    def _on_update(self, msg: dict[str, Any]) -> None:
        if msg["seq"] <= self.seq:
            return
        self._updates[msg["seq"]] = msg
        self._advance()

    def _advance(self) -> None:
        """Apply buffered updates in sequence order while the next one is complete.

        Later updates waiting behind a missing one are a gap: ask for a snapshot (Clone). An
        update merely waiting for its private half is no gap — that half comes over the other
        socket, usually a moment later (PRIVATE_WAIT bounds the wait)."""
        if self._snapshot_asked:
            return
        while self.seq + 1 in self._updates:
            update = self._updates[self.seq + 1]
            private = self._privates.get(update["seq"])
            if self._needs_private(update) and private is None:
                if self._waiting_since is None:
                    self._waiting_since = self.clock()
                return
            self._waiting_since = None
            del self._updates[update["seq"]]
            self._privates.pop(update["seq"], None)
            self.seq = update["seq"]
            getattr(self, "_k_" + update["k"])(update, private)
        if self._updates and self.connected:
            self.resync()  # the next update is missing while later ones wait: a gap

    def _needs_private(self, update: dict[str, Any]) -> bool:
        if self.seat is None:
            return False
        if update["k"] == "round":
            return True
        return update["k"] == "move" and update.get("p") and update.get("seat") == self.seat

    def _k_lobby(self, update: dict[str, Any], private: Any) -> None:
        self.table["seats"] = update["seats"]
        self.table["captain"] = update.get("captain")
        self.notices.append(Notice("lobby", data=update))

    def _k_presence(self, update: dict[str, Any], private: Any) -> None:
        seats = self.table.get("seats", [])
        if update["seat"] < len(seats):
            seats[update["seat"]]["status"] = update["status"]
        self.notices.append(Notice("presence", data=update))

    def _unready(self) -> None:
        """The arbiter clears every seat's ready at a countdown and at a round's end: so does
        our copy, or a screen would show who was ready for the round before."""
        for seat in self.table.get("seats", []):
            seat["ready"] = False

    def _k_countdown(self, update: dict[str, Any], private: Any) -> None:
        self._said_ready = False  # the arbiter clears every seat's ready at a countdown
        self._unready()
        self.table.update(phase="countdown", go=update["go"], round=update["round"],
                          next_at=None, deal={"round": update["round"],
                                              **{k: update.get(k) for k in
                                                 ("commit", "commits", "seeded")}})
        self._reveal(update["round"], self.table["deal"])
        self.notices.append(Notice("countdown", data=update))

    def _k_round(self, update: dict[str, Any], private: Any) -> None:
        state = private["state"] if private is not None else update["state"]
        self.witness.on_go(update["round"], update.get("nonces"), update["setup"], state)
        self.mirror = self.game.state_from_data(state)
        self.pending.clear()
        self.predicted = self.mirror
        self.table.update(phase="playing", round=update["round"], setup=update["setup"])
        self._commit_due = update["round"] + 1  # ready for a next round that starts at once
        self.notices.append(Notice("round", f"round {update['round'] + 1}: go!", update))

    def _k_move(self, update: dict[str, Any], private: Any) -> None:
        events = private["events"] if private is not None else update["events"]
        move = self.game.move_from_data((private or {}).get("move") or update["move"])
        self.game.replay(self.mirror, update["seat"], move, events)
        if update["seat"] == self.seat:
            self.pending.pop(update.get("rid"), None)
        self._repredict()

    def _k_round_end(self, update: dict[str, Any], private: Any) -> None:
        self.table.setdefault("results", []).append(update["result"])
        self._trim_history()
        self._unready()
        self.table.update(phase="between", totals=update["totals"], setup=update["next"],
                          round=update["round"] + 1, next_at=update.get("next_at"))
        self.pending.clear()
        self._repredict()
        self.notices.append(Notice("round_end", data=update))
        self._check_deal(update)
        self._commit_due = update["round"] + 1

    def _trim_history(self) -> None:
        results = self.table.setdefault("results", [])
        if self.history is not None and len(results) > self.history:
            dropped = len(results) - self.history
            del results[:dropped]
            self.table["results_from"] = self.table.get("results_from", 0) + dropped

    def _k_dispute(self, update: dict[str, Any], private: Any) -> None:
        seats = self.table.get("seats") or []
        who = seats[update["seat"]]["name"] if 0 <= update["seat"] < len(seats) else \
            f"seat {update['seat']}"
        text = f"{who}'s client says round {update['round'] + 1}'s deal was not the one " \
               f"the host committed to: {update['reason']}"
        self.notices.append(Notice("dispute", text, update))

    def _k_match_end(self, update: dict[str, Any], private: Any) -> None:
        self.table.update(phase="over", result=update["result"])
        if self.store is not None:
            self.store.forget()  # nothing to come back to (the token stays in memory)
        self.notices.append(Notice("match_end", data=update))

    def _repredict(self) -> None:
        """The mirror or the moves in flight changed: ``predicted`` is worked out again (when
        it is next read)."""
        self._stale = True

    def _prediction(self) -> Any:
        """The mirror plus our moves still in flight; a move that no longer applies is left
        out (the arbiter will refuse it too, and the player is told then)."""
        if self.mirror is None or not self.pending:
            return self.mirror
        state = self.game.copy_state(self.mirror)
        for rid, move in list(self.pending.items()):
            try:
                self.game.apply(state, self.seat, move)
            except GameError:
                continue  # its refusal (with the reason) is on its way from the arbiter
        return state


def _server_key(key: str | bytes | None) -> bytes | None:
    """The host's public key as z85 bytes, checked; a clear error for anything else."""
    if key is None:
        return None
    text = key.decode("ascii", errors="replace") if isinstance(key, bytes) else key
    if not is_public_key(text.strip()):
        raise ConnectError(f"not a CURVE public key: {text!r} (40 characters of z85, as the "
                           f"host prints it)")
    return text.strip().encode("ascii")


def _handshake_failure(monitor: zmq.Socket | None, secure: bool) -> str | None:
    """What a failed CURVE handshake seen on ``monitor`` means, in words; None if none."""
    while monitor is not None and monitor.poll(0):
        event = recv_monitor_message(monitor)
        if event["event"] == zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL:
            if secure:
                return "it is not encrypted (leave out --key), or not a lan-demon arbiter"
            return ("it is encrypted (CURVE): join with its public key (--key), or without "
                    "an address to find it on the LAN")
        if event["event"] & HANDSHAKE_FAILED:
            return ("the encrypted handshake failed — wrong key? check the fingerprint on "
                    "the host's screen")
    return None
