"""The arbiter's decisions, as plain functions of messages and time — no sockets here.

``Arbiter.handle(peer, frame, now)`` takes one frame from the ROUTER and ``Arbiter.tick(now)``
takes the passing of time; both return an :class:`Outbox` of private replies (to a peer) and
public updates (for the PUB). The socket loop in :mod:`lan_demon.net.server` is a thin shell
around it, and tests drive it directly with a fake clock.

The design follows the ZeroMQ Guide's Clone pattern: every canonical update carries the next
number of one sequence, a snapshot says which number it stands at, and a client that sees a gap
asks for a snapshot. Hidden cards never go over the PUB: each seat's own cards travel to it
alone, as a redacted state (``Game.redact``) or a move's private events.
"""

from __future__ import annotations

import secrets
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Protocol

from lan_demon.games import TABLE, BadMove, GameError, IllegalMove, Match, get_game
from lan_demon.games.base import public_events
from lan_demon.games.demon_races import RaceBook, holder, placed, stack_id
from lan_demon.net.codec import (FROM_CLIENT, ProtocolError, decode, make, request_id,
                                 state_hash)
from lan_demon.net.fairdeal import HostDeal, is_hash
from lan_demon.net.guard import (MALFORMED_COST, SNAPSHOT_BURST, SNAPSHOT_COST, SNAPSHOT_RATE,
                                 RateLimiter, RecentIds, frame_cost, log_internal)
from lan_demon.net.journal import VERSION as JOURNAL_VERSION
from lan_demon.net.security import CodeThrottle, codes_match

BEAT_INTERVAL = 1.0  # seconds between heartbeats, both ways
AWAY_AFTER = 3.0  # a seat silent this long (three beats) is marked away
TOKEN_LIFE = 300.0  # a session token reconnects to its seat for 5 minutes after going away
STUCK_TIMEOUT = 60.0  # RD-13
MAX_FAIRNESS_MS = 250  # the cap on the host's fairness window
TOLERANCE = 0.005  # seconds a timestamp may be earlier than its arrival allows (clock jitter)
NAME_LIMIT = 24
MAX_ONE_WAY = 0.1  # the most one-way delay a move's timestamp is ever allowed (the cap's ceiling)
LAG_CAP_MS = 10.0  # the default cap on that credit, tolerance included (a home LAN: <= a few ms)
PROBES_KEPT = 8  # probes per connection whose echo is still awaited
SEQ_BLOCK = 1000  # update numbers reserved per journal "seq" mark (crash recovery)


class Journal(Protocol):
    """Where records go (:class:`lan_demon.net.journal.JournalWriter`). A journal may also
    have ``keep_token(token)`` and ``keep_round_secret(round, hex)``: secrets that never enter
    it, kept in the secrets file beside it."""

    def write(self, record: dict[str, Any]) -> None: ...


@dataclass
class Outbox:
    """What one step of the arbiter sends: (peer, message) pairs and public updates."""

    private: list[tuple[bytes, dict[str, Any]]] = field(default_factory=list)
    public: list[dict[str, Any]] = field(default_factory=list)

    def extend(self, other: Outbox) -> None:
        self.private += other.private
        self.public += other.public


@dataclass(frozen=True)
class Sender:
    """What the socket layer knows of a frame's sender beyond its routing id: its CURVE public
    key (z85; None on a plain table) and its IP address (the room-code brake's key)."""

    key: str | None = None
    address: str | None = None


NOBODY = Sender()


@dataclass
class Seat:
    index: int
    name: str
    token: str
    bot: bool
    peer: bytes | None
    key: str | None = None  # the CURVE key that took the seat: only it may speak for the seat
    status: str = "here"  # here | away | left
    ready: bool = False
    heard: float = 0.0
    away_since: float | None = None
    # Said ``leave`` during the match: away at once for RD-13 votes and stand-in turns (a
    # silent seat is given the turn timeout first: it may be a network hiccup).
    stepped_out: bool = False
    rtts: list[float] = field(default_factory=list)
    commit: tuple[int, str] | None = None  # (round, hash): its nonce's commitment (§22)

    def one_way(self) -> float:
        """The measured one-way delay: half the best recent round trip (NTP style)."""
        return min(self.rtts) / 2 if self.rtts else 0.0

    def public(self) -> dict[str, Any]:
        return {"name": self.name, "bot": self.bot, "status": self.status, "ready": self.ready}


@dataclass(order=True)
class Held:
    """A contested move waiting out the fairness window (RD-11)."""

    ts: float
    arrival: float
    seat: int = field(compare=False)
    rid: int = field(compare=False)
    move: Any = field(compare=False)
    place: str | None = field(default=None, compare=False)  # where it was going on arrival
    claimed: float | None = field(default=None, compare=False)  # its ``ts`` as sent (journal)


@dataclass
class Config:
    game: str
    players: int | None = None  # start by itself when this many seats are filled
    rounds: int | None = None
    # None: every deal from a fresh committed secret and the players' nonces (§22); a seed:
    # reproducible deals (tests, simulate) — and so not secret, which the table says.
    seed: int | str | None = 0
    options: dict[str, Any] = field(default_factory=dict)
    fairness_ms: float = 30.0
    # RD-11: the most a move's claimed ``ts`` may precede its arrival, in ms, measured delay
    # and TOLERANCE together (PROTOCOL.md §8): all a client that lies about its link can gain.
    lag_cap_ms: float = LAG_CAP_MS
    countdown: float = 3.0
    # Longest wait between rounds for the people present to say ready; None: no limit (the
    # next round waits for every present person); 0: at once.
    pause: float | None = 10.0
    turn_timeout: float = 30.0  # an absent player's Rack-O turn is played after this
    pub: str = ""  # the PUB endpoint, told to clients in the welcome
    # Messages per second one connection may send, and how many at once (PROTOCOL.md §10). A
    # flat-out bot sends ~1,000-2,000 a second (docs/benchmarks.md); 0 turns the limit off.
    rate_limit: float = 5000.0
    rate_burst: float = 10000.0
    # The room code a seat or a spectator's place needs (``host --lan``); None: none needed.
    # Not in ``public()`` nor in the journal: it is said aloud in the room, never sent.
    code: str | None = None
    # The table's CURVE public key (z85) when it is encrypted (set by the server). Journaled:
    # a resumed host proves with it that its secrets file (<journal>.secret) is this table's.
    server_key: str | None = None

    def public(self) -> dict[str, Any]:
        return {"game": self.game, "players": self.players, "rounds": self.rounds,
                "options": self.options, "fairness_ms": self.fairness_ms,
                "countdown": self.countdown, "pause": self.pause,
                "seeded": self.seed is not None}


class Arbiter:
    """The one authority on the table: it validates, orders, commits and broadcasts."""

    def __init__(self, config: Config, journal: Journal | None = None, now: float = 0.0):
        self.config = config
        self.game = get_game(config.game)
        if config.players is not None:
            self.game.check_players(config.players)
        if config.rounds is not None:
            self.game.check_rounds(config.rounds)
        if not 0 <= config.fairness_ms <= MAX_FAIRNESS_MS:
            raise GameError(f"the fairness window is 0 to {MAX_FAIRNESS_MS} ms, "
                            f"not {config.fairness_ms}")
        if not 0 <= config.lag_cap_ms <= MAX_ONE_WAY * 1000:
            raise GameError(f"RD-11: the lag cap is 0 to {MAX_ONE_WAY * 1000:g} ms, "
                            f"not {config.lag_cap_ms:g}")
        self.journal = journal
        self.seats: list[Seat] = []
        self.spectators: dict[bytes, float] = {}
        self.phase = "lobby"  # lobby | countdown | playing | between | over
        self.seq = 0
        self.match: Match | None = None
        self.state: Any = None
        self.go_at = 0.0
        self.between_since = 0.0
        self.last_play = now
        self.turn_since = now
        self.next_beat = now
        self.held: list[Held] = []
        self.held_until: float | None = None
        self.queued: dict[int, list[Held]] = {}  # moves behind a seat's held move, in order
        self.result: dict[str, Any] | None = None
        # The round being dealt or played: its host secret and commitments (§22). The secret
        # goes to the journal's secrets file (keep_round_secret) before it is committed to,
        # so a resumed arbiter deals the same round.
        self.deal_round: HostDeal | None = None
        self.disputes: set[tuple[int, int]] = set()  # (seat, round) already published
        self._captain_told: int | None = None  # the captain the last lobby update named
        self.races = RaceBook(self.game)  # each stack's last committed play (RD-11)
        # Crash recovery (lan_demon.net.recovery): the journal's header, the update numbers the
        # journal has reserved, and a resumed arbiter's quiet time towards strangers.
        self.ports: dict[str, int] = {}
        self.headed = False
        self.seq_mark = 0
        self.quiet_until: float | None = None
        self.encore_until: float | None = None  # resumed when already over: see finished()
        self.encore_back: dict[int, float] = {}  # seats back since, by index
        # Hostile input (PROTOCOL.md §10): a token bucket per connection, the move ids each
        # seated connection has used, and the probes whose echo each is awaited.
        self.limiter = RateLimiter(config.rate_limit, config.rate_burst)
        self.snapshots = RateLimiter(SNAPSHOT_RATE if config.rate_limit > 0 else 0,
                                     SNAPSHOT_BURST)  # snapshots answered per connection
        self.throttle = CodeThrottle()  # wrong room codes, by the sender's IP address
        self.move_ids: dict[bytes, RecentIds] = {}
        self.probes: dict[bytes, deque[float]] = {}

    # --- entry points ----------------------------------------------------------------------

    def handle(self, peer: bytes, frame: bytes, now: float,
               sender: Sender = NOBODY) -> Outbox:
        """One frame from one peer. Every request is answered, bad ones with an error. Over
        the connection's rate limit the frame is dropped (one ``rate_limited`` error a second);
        a failure inside is logged and answered ``internal``, never raised: the table goes on.
        ``sender``: the peer's CURVE key and address, when the socket layer reads them."""
        out = Outbox()
        if not self._admit(peer, frame, now, out):
            return out
        try:
            self._handle(peer, frame, now, out, sender)
        except Exception as err:  # a bug; the table must outlive it
            log_internal(f"a frame from peer {peer.hex()}", err)
            out.private.append((peer, make("error", re=request_id(frame), code="internal",
                                           reason=f"the arbiter failed on this message "
                                           f"({type(err).__name__}); the table goes on")))
        return out

    def handle_multipart(self, peer: bytes, parts: list[bytes], now: float,
                         sender: Sender = NOBODY) -> Outbox:
        """What the ROUTER received from ``peer``: a message is exactly one frame."""
        if len(parts) == 1:
            return self.handle(peer, parts[0], now, sender)
        out = Outbox()
        if self._admit(peer, b"", now, out):
            out.private.append((peer, make("error", code="malformed",
                                           reason="a message is exactly one frame")))
        return out

    def _admit(self, peer: bytes, frame: bytes, now: float, out: Outbox) -> bool:
        """The flood brake (PROTOCOL.md §2), weighed by bytes: a frame costs one token per
        started 512 bytes, so big frames drain the bucket faster than small ones."""
        verdict = self.limiter.admit(peer, now, frame_cost(len(frame)))
        if verdict == RateLimiter.WARN:
            out.private.append((peer, make(
                "error", re=request_id(frame), code="rate_limited",
                reason=f"more than {self.config.rate_limit:g} tokens a second (bursts of "
                       f"{self.config.rate_burst:g}; a message costs one per started 512 "
                       f"bytes, a snapshot {SNAPSHOT_COST}); the rest are dropped unanswered")))
        return verdict == RateLimiter.ADMIT

    def _handle(self, peer: bytes, frame: bytes, now: float, out: Outbox,
                sender: Sender = NOBODY) -> None:
        try:
            msg = decode(frame, "client")
        except ProtocolError as err:
            self.limiter.charge(peer, MALFORMED_COST - 1, now)  # junk is dear (§2)
            out.private.append((peer, make("error", re=request_id(frame), code=err.code,
                                           reason=err.reason)))
            return
        seat = self._seat_of(peer)
        if seat is None and self._quiet(peer, msg, now):
            return
        rid = msg.get("id") if "id" in FROM_CLIENT[msg["t"]] else None  # hb may carry junk
        if seat is not None and not self._same_key(seat, sender):
            out.private.append((peer, self._wrong_key(rid)))
            return
        if seat is not None:
            seat.heard = now
            if seat.status == "away":
                self._presence(seat, "here", out)
        try:
            if msg["t"] == "hello":
                self._on_hello(peer, seat, msg, now, out, sender)
            else:
                getattr(self, "_on_" + msg["t"])(peer, seat, msg, now, out)
        except ProtocolError as err:
            out.private.append((peer, make("error", re=rid, code=err.code, reason=err.reason)))

    @staticmethod
    def _same_key(seat: Seat, sender: Sender) -> bool:
        """A seat taken with a CURVE key speaks only with that key (a routing id can be
        chosen by a client; a key cannot be used without its secret half)."""
        return seat.key is None or sender.key == seat.key

    @staticmethod
    def _wrong_key(rid: int | None) -> dict[str, Any]:
        return make("error", re=rid, code="wrong_key", reason="this seat was taken with "
                    "another connection key; a session token alone does not give it")

    def tick(self, now: float) -> Outbox:
        """Time passing: heartbeats, absences, Go, the fairness window, RD-13, stand-in turns."""
        out = Outbox()
        if now >= self.next_beat:
            self.next_beat = now + BEAT_INTERVAL
            self._beat(now, out)
        self._absences(now, out)
        if self.phase == "countdown" and now >= self.go_at:
            self._deal(now, out)
        if self.held_until is not None and now >= self.held_until:
            self._release(now, out)
        if self.phase == "playing":
            self._table_moves(now, out)
        if self.phase == "between" and (self._pause_over(now) or self._all_ready()):
            self._countdown(now, out)
        return out

    def next_deadline(self, now: float) -> float:
        """When :meth:`tick` next has something to do (the socket loop's poll timeout)."""
        times = [self.next_beat]
        if self.phase == "countdown":
            times.append(self.go_at)
        if self.held_until is not None:
            times.append(self.held_until)
        if self.phase == "between" and self.next_at() is not None:
            times.append(self.next_at())
        if self.phase == "playing" and self.game.races:
            times.append(self.last_play + STUCK_TIMEOUT)
        return max(now, min(times))

    def next_at(self) -> float | None:
        """When the next round starts by itself (arbiter clock); None: it waits for every
        present person to say ready (``pause`` None), or no pause is running."""
        if self.phase != "between" or self.config.pause is None:
            return None
        return self.between_since + self.config.pause

    def _pause_over(self, now: float) -> bool:
        at = self.next_at()
        return at is not None and now >= at

    # --- joining ---------------------------------------------------------------------------

    def _seat_of(self, peer: bytes) -> Seat | None:
        for seat in self.seats:
            if seat.peer == peer:
                return seat
        return None

    def _on_hello(self, peer: bytes, seat: Seat | None, msg: dict, now: float,
                  out: Outbox, sender: Sender = NOBODY) -> None:
        role = msg["role"]
        if role not in ("player", "spectator"):
            raise ProtocolError("malformed", f"role is 'player' or 'spectator', not {role!r}")
        if role == "spectator":
            if peer not in self.spectators and not self._code_passes(peer, msg, now, out,
                                                                     sender):
                return
            self.spectators[peer] = now
            out.private.append((peer, self._welcome(msg["id"], None, "")))
            return
        if msg.get("token"):
            self._rejoin(peer, msg, now, out, sender)
            return
        if seat is not None:  # the same connection saying hello again: same seat
            out.private.append((peer, self._welcome(msg["id"], seat.index, seat.token)))
            return
        if self._code_passes(peer, msg, now, out, sender):
            self._take_seat(peer, msg, now, out, sender)

    def _code_passes(self, peer: bytes, msg: dict, now: float, out: Outbox,
                     sender: Sender) -> bool:
        """The room code gate (PROTOCOL.md §20): True to let the hello in; otherwise the
        refusal is in ``out``. Wrong codes from one address cost it waiting
        (:class:`~lan_demon.net.security.CodeThrottle`); a hello with no code is no guess."""
        expected = self.config.code
        if expected is None:
            return True
        where = sender.address or peer.hex()
        wait = self.throttle.wait(where, now)
        if wait > 0:
            out.private.append((peer, make("error", re=msg["id"], code="slow_down", wait=wait,
                                           reason=f"too many wrong room codes; try again in "
                                                  f"{wait:.0f} s")))
            return False
        given = msg.get("code")
        if codes_match(given, expected):
            self.throttle.succeeded(where)
            return True
        if given is None:
            reason = "this table needs the room code shown on the host's screen"
        else:
            self.throttle.failed(where, now)
            reason = "wrong room code; it is shown on the host's screen"
        out.private.append((peer, make("error", re=msg["id"], code="bad_code", reason=reason)))
        return False

    def seat_counts(self) -> tuple[int, int]:
        """(taken, free) seats, as the LAN announcement says them: no seat is free once the
        match has started."""
        taken = len(self.seats)
        limit = self.config.players or self.game.max_players
        return taken, (max(0, limit - taken) if self.phase == "lobby" else 0)

    def _take_seat(self, peer: bytes, msg: dict, now: float, out: Outbox,
                   sender: Sender = NOBODY) -> None:
        limit = self.config.players or self.game.max_players
        if self.phase != "lobby":
            raise ProtocolError("full", "the match has started: watch it as a spectator "
                                "(join --spectate); a player who left comes back by running "
                                "the same join again")
        if len(self.seats) >= limit:
            raise ProtocolError("full", f"all {limit} seats are taken")
        name = self._unique_name(msg["name"].strip()[:NAME_LIMIT] or "player")
        seat = Seat(len(self.seats), name, secrets.token_hex(8), bool(msg.get("bot")), peer,
                    key=sender.key, heard=now)
        self.seats.append(seat)
        self.keep_secret("keep_token", seat.token)  # beside the journal, never in it
        self.record("seat", seat=seat.index, name=seat.name, bot=seat.bot,
                    **({"key": seat.key} if seat.key else {}))  # a resume binds it again
        out.private.append((peer, self._welcome(msg["id"], seat.index, seat.token)))
        self._probe(seat, now, out)
        self._publish_lobby(out)

    def _rejoin(self, peer: bytes, msg: dict, now: float, out: Outbox,
                sender: Sender = NOBODY) -> None:
        """Back to a seat by its token — from the key that took it. No room code is asked:
        the token was only ever given to someone who had it. A seat restored from a journal
        has the key its ``seat`` record names; one from a journal without it (a plain table, an
        older journal) takes the first key that comes back with its token."""
        for seat in self.seats:
            if secrets.compare_digest(seat.token.encode(), msg["token"].encode()):
                gone = seat.away_since is not None and now - seat.away_since > TOKEN_LIFE
                if gone or seat.status == "left":
                    break
                if not self._same_key(seat, sender):
                    out.private.append((peer, self._wrong_key(msg["id"])))
                    return
                seat.key = seat.key or sender.key
                seat.peer, seat.heard, seat.stepped_out = peer, now, False
                out.private.append((peer, self._welcome(msg["id"], seat.index, seat.token)))
                self._presence(seat, "here", out)
                self._probe(seat, now, out)
                if self.phase == "lobby":  # a resumed lobby may be full and ready again
                    self._start_when_ready(now, out)
                return
        raise ProtocolError("bad_token", "that session token is unknown or has expired")

    def _unique_name(self, name: str) -> str:
        taken = {s.name for s in self.seats}
        candidate, n = name, 2
        while candidate in taken:
            candidate, n = f"{name} ({n})", n + 1
        return candidate

    def _public_config(self) -> dict[str, Any]:
        config = self.config.public()
        config["options"] = {**self.game.default_options(), **config["options"]}
        return config

    def _welcome(self, rid: int, seat: int | None, token: str) -> dict[str, Any]:
        return make("welcome", re=rid, seat=seat, token=token, pub=self.config.pub,
                    game=self.game.id, config=self._public_config())

    def _on_ping(self, peer: bytes, seat: Seat | None, msg: dict, now: float,
                 out: Outbox) -> None:
        out.private.append((peer, make("pong", re=msg["id"], c=msg["c"], a=now)))

    def _on_echo(self, peer: bytes, seat: Seat | None, msg: dict, now: float,
                 out: Outbox) -> None:
        # Only the echo of a probe this connection was sent counts, once: a made-up ``a``
        # would make up a delay, and with it an earlier timestamp allowed (§8).
        sent = self.probes.get(peer)
        if seat is None or not sent or msg["a"] not in sent:
            return
        sent.remove(msg["a"])
        if 0 <= now - msg["a"] < 10:
            seat.rtts = (seat.rtts + [now - msg["a"]])[-8:]

    def _on_hb(self, peer: bytes, seat: Seat | None, msg: dict, now: float,
               out: Outbox) -> None:
        if peer in self.spectators:
            self.spectators[peer] = now

    def _on_ready(self, peer: bytes, seat: Seat | None, msg: dict, now: float,
                  out: Outbox) -> None:
        player = self._player(seat, peer)
        player.ready = True
        self.record("ready", seat=player.index)
        out.private.append((peer, make("ok", re=msg["id"])))
        if self.phase in ("lobby", "between"):  # every screen shows who is ready (§5)
            self._publish_lobby(out)
        if self.phase == "lobby":
            self._start_when_ready(now, out)
        elif self.phase == "between" and self._all_ready():
            self._countdown(now, out)

    def _on_start(self, peer: bytes, seat: Seat | None, msg: dict, now: float,
                  out: Outbox) -> None:
        player = self._player(seat, peer)
        captain = self.captain()
        if player.index != captain:
            who = self.seats[captain].name if captain is not None else "nobody yet"
            raise ProtocolError("not_host", f"only the captain ({who}) starts the match")
        if self.phase != "lobby":
            raise ProtocolError("not_playing", "the match has already started")
        try:
            self.game.check_players(len(self.seats))
        except GameError as err:
            raise ProtocolError("not_playing", str(err)) from None
        out.private.append((peer, make("ok", re=msg["id"])))
        self._start(now, out)

    def _on_leave(self, peer: bytes, seat: Seat | None, msg: dict, now: float,
                  out: Outbox) -> None:
        self.spectators.pop(peer, None)
        if seat is not None and self.phase in ("countdown", "playing", "between"):
            # The seat is kept, away, for TOKEN_LIFE: its token takes it back, cards and score
            # intact; meanwhile it is absent at once (RD-13 votes, stand-in turns).
            seat.peer, seat.away_since, seat.stepped_out = None, now, True
            self.record("leave", seat=seat.index, away=True)
            self._presence(seat, "away", out)
        elif seat is not None:
            self._gone(seat, now, out)
        out.private.append((peer, make("ok", re=msg["id"])))

    def _gone(self, seat: Seat, now: float, out: Outbox) -> None:
        """The seat is left for good; in the lobby it is freed and those after it move up."""
        seat.peer = None
        seat.away_since = seat.away_since if seat.status == "away" else now
        self.record("leave", seat=seat.index)
        self._presence(seat, "left", out)
        if self.phase == "lobby":
            self.seats.remove(seat)
            for i, s in enumerate(self.seats):
                if s.index != i and s.peer is not None:
                    s.index = i
                    out.private.append((s.peer, self._welcome(0, i, s.token)))
                s.index = i
            self._publish_lobby(out)

    def _on_snapshot(self, peer: bytes, seat: Seat | None, msg: dict, now: float,
                     out: Outbox) -> None:
        """A snapshot is the dearest thing a client can ask (the whole table, encoded): it
        costs ``SNAPSHOT_COST`` tokens of the rate limit, and one connection is answered at most
        ``SNAPSHOT_RATE`` a second (bursts of ``SNAPSHOT_BURST``); beyond that one
        ``rate_limited`` error a second, the rest dropped unanswered (PROTOCOL.md §2)."""
        self.limiter.charge(peer, SNAPSHOT_COST - 1, now)  # the frame already paid its own
        verdict = self.snapshots.admit(peer, now)
        if verdict == RateLimiter.WARN:
            out.private.append((peer, make(
                "error", re=msg["id"], code="rate_limited",
                reason=f"more than {SNAPSHOT_RATE:g} snapshots a second (bursts of "
                       f"{SNAPSHOT_BURST:g}); the rest are dropped unanswered")))
        if verdict != RateLimiter.ADMIT:
            return
        out.private.append((peer, self.snapshot(msg["id"], seat.index if seat else None)))

    def _on_commit(self, peer: bytes, seat: Seat | None, msg: dict, now: float,
                   out: Outbox) -> None:
        """A player's nonce commitment for the next round to be dealt (§22) — in the lobby,
        during the round before it (so a table with no pause still takes it) or between
        rounds; a later one replaces it."""
        player = self._player(seat, peer)
        upcoming = self.match.round_no if self.match is not None else 0
        if self.phase == "playing":
            upcoming += 1
        if self.phase not in ("lobby", "playing", "between") or msg["round"] != upcoming:
            raise ProtocolError("too_late", f"round {msg['round']}'s deal is already fixed; "
                                f"commit for the next round when it is announced")
        if not is_hash(msg["hash"]):
            raise ProtocolError("malformed", "a commitment is a SHA-256: 64 lowercase hex "
                                "digits")
        player.commit = (upcoming, msg["hash"])
        out.private.append((peer, make("ok", re=msg["id"])))

    def _on_reveal(self, peer: bytes, seat: Seat | None, msg: dict, now: float,
                   out: Outbox) -> None:
        """A player's nonce, after the host's commitment is out and before Go (§22)."""
        player = self._player(seat, peer)
        deal = self.deal_round
        if self.phase != "countdown" or deal is None or msg["round"] != deal.round:
            raise ProtocolError("too_late", "nonces are revealed during the countdown; this "
                                "round is dealt without yours")
        problem = deal.reveal(player.index, msg["nonce"])
        if problem is not None:
            raise ProtocolError("bad_reveal", problem)
        out.private.append((peer, make("ok", re=msg["id"])))

    def _on_dispute(self, peer: bytes, seat: Seat | None, msg: dict, now: float,
                    out: Outbox) -> None:
        """A client found a deal that does not match its commitment: every screen is told
        (once per seat and round), and the journal keeps it."""
        player = self._player(seat, peer)
        key = (player.index, msg["round"])
        if key not in self.disputes:
            self.disputes.add(key)
            reason = msg["reason"][:200]
            self.record("dispute", seat=player.index, round=msg["round"], reason=reason)
            self._publish(out, "dispute", seat=player.index, round=msg["round"], reason=reason)
        out.private.append((peer, make("ok", re=msg["id"])))

    def _player(self, seat: Seat | None, peer: bytes | None = None) -> Seat:
        if seat is None:
            if peer is not None and peer in self.spectators:
                raise ProtocolError("spectator", "spectators watch; they cannot move")
            raise ProtocolError("not_joined", "say hello and take a seat first")
        return seat

    # --- the match -------------------------------------------------------------------------

    def _all_ready(self) -> bool:
        present = [s for s in self.seats if s.status == "here"]
        return bool(present) and all(s.ready for s in present)

    def _start(self, now: float, out: Outbox) -> None:
        cfg = self.config
        self.match = Match(self.game, [s.name for s in self.seats], cfg.seed, dict(cfg.options),
                           rounds_wanted=cfg.rounds)
        self.record("match", game=self.game.id, seed=cfg.seed, players=self.match.players,
                    options=cfg.options, rounds=self.match.rounds_wanted)
        self._countdown(now, out)

    def _start_when_ready(self, now: float, out: Outbox) -> None:
        """``--players N``: the match starts by itself once N seats are filled and ready."""
        if self.config.players and len(self.seats) == self.config.players and \
                self._all_ready():
            self._start(now, out)

    def _countdown(self, now: float, out: Outbox) -> None:
        """The deal's secret is drawn and committed to, with the players' commitments (§22)."""
        self.phase = "countdown"
        self.go_at = now + self.config.countdown
        round_no = self.match.round_no
        deal = self.deal_round = HostDeal.draw(round_no, self.config.seed)
        deal.fix({s.index: s.commit[1] for s in self.seats
                  if s.commit is not None and s.commit[0] == round_no})
        for s in self.seats:
            s.ready, s.commit = False, None
        self.keep_round_secret(round_no, deal.secret.hex())
        self.record("countdown", round=round_no, **deal.announced())
        self._publish(out, "countdown", round=round_no, go=self.go_at, **deal.announced())
        if self.config.countdown <= 0:
            self._deal(now, out)

    def _deal(self, now: float, out: Outbox) -> None:
        """RD-4: Go — the round is dealt and play starts for everyone at once."""
        deal = self.deal_round
        self.state = self.match.deal(deal.secret, deal.nonces)
        self.races.clear()  # stack ids start again each round
        self.phase = "playing"
        self.last_play = self.turn_since = now
        self._next_seq()
        present = [s for s in self.seats if s.peer is not None and s.status == "here"]
        *mine, public = self.game.redacted_data(self.state, [s.index for s in present] + [None])
        for s, state in zip(present, mine):
            out.private.append((s.peer, make("private", seq=self.seq, k="round", state=state)))
        out.public.append(make("update", seq=self.seq, k="round", round=self.match.round_no,
                               setup=self.match.setup, state=public, nonces=deal.used()))
        self.record("round", round=self.match.round_no, setup=self.match.setup,
                    nonces=deal.used(), at=now, **deal.announced())
        if self.game.round_over(self.state):  # RD-16: a Pile of 0 is out at Go
            self._end_round(now, out)

    def _redacted(self, seat: int | None) -> dict[str, Any]:
        return self.game.state_to_data(self.game.redact(self.state, seat))

    def _end_round(self, now: float, out: Outbox) -> None:
        result = self.game.round_result(self.state)
        number = self.match.round_no
        self.match.record(result)
        over = self.match.over
        if not over:
            self.phase, self.between_since = "between", now
        secret = self.deal_round.secret.hex() if self.deal_round is not None else None
        self._publish(out, "round_end", round=number, result=result.to_data(),
                      totals=self.match.totals, next=self.match.setup, next_at=self.next_at(),
                      secret=secret)
        self.record("round_end", round=number, result=result.to_data(), secret=secret)
        self._drop_in_flight(out)
        if over:
            self.phase = "over"
            self.result = self.match.result_data()
            self._publish(out, "match_end", result=self.result)
            self.record("match_end", result=self.result)
        else:
            for s in self.seats:
                s.ready = False

    # --- moves -----------------------------------------------------------------------------

    def _on_move(self, peer: bytes, seat: Seat | None, msg: dict, now: float,
                 out: Outbox) -> None:
        player = self._player(seat, peer)
        if not self._first_use(peer, msg["id"]):
            raise ProtocolError("duplicate", f"move {msg['id']} was already sent on this "
                                "connection; a move is never applied twice")
        try:
            move = self.game.move_from_data(msg["move"])
        except GameError as err:
            raise ProtocolError("bad_move", str(err)) from None
        if self.phase != "playing":
            self._after_round(player, msg, move, out)
            return
        if msg["round"] != self.match.round_no:
            raise ProtocolError("wrong_round", f"the round in progress is {self.match.round_no}, "
                                f"not {msg['round']}")
        # The claimed time is believed only between the earliest the network allows (the
        # measured delay and the tolerance, together capped at lag_cap_ms: slow echoes buy no
        # more) and the arrival: never a way to jump the queue by more than the cap (§8).
        credit = min(player.one_way() + TOLERANCE, self.config.lag_cap_ms / 1000)
        ts = min(max(msg["ts"], now - credit), now)
        held = Held(ts, now, player.index, msg["id"], move,
                    self.game.destination(self.state, player.index, move), claimed=msg["ts"])
        if player.index in self.queued:  # keep a seat's moves in the order it sent them
            self.queued[player.index].append(held)
        elif self.config.fairness_ms > 0 and self.game.rivals(self.state, player.index, move):
            self._hold(held, now)
        else:
            self._commit(held, now, out)

    def _after_round(self, player: Seat, msg: dict, move: Any, out: Outbox) -> None:
        """A move for the round that just ended is refused by the rule that ended it (RD-12:
        nothing is played after OUT; a second OUT counts for nothing)."""
        just_ended = self.match is not None and msg["round"] == self.match.round_no - 1
        if not just_ended or self.state is None:
            raise ProtocolError("not_playing", f"no round is in progress ({self.phase})")
        try:
            self.game.apply(self.game.copy_state(self.state), player.index, move)
        except IllegalMove as err:
            out.private.append((player.peer, make("error", re=msg["id"], code="illegal",
                                                  reason=err.reason, rule=err.rule)))
            return
        except GameError:
            pass
        raise ProtocolError("not_playing", "the round is over")

    def _drop_in_flight(self, out: Outbox) -> None:
        """Moves still held or queued when the round ends are answered, not forgotten."""
        waiting = self.held + [h for hs in self.queued.values() for h in hs]
        self.held, self.held_until, self.queued = [], None, {}
        for h in waiting:
            peer = self.seats[h.seat].peer
            try:
                self.game.apply(self.game.copy_state(self.state), h.seat, h.move)
            except IllegalMove as err:
                if peer is not None:
                    out.private.append((peer, make("error", re=h.rid, code="illegal",
                                                   reason=err.reason, rule=err.rule)))
                continue
            except GameError:
                pass
            if peer is not None:
                out.private.append((peer, make("error", re=h.rid, code="not_playing",
                                               reason="the round ended first")))

    def _hold(self, held: Held, now: float) -> None:
        self.held.append(held)
        self.queued[held.seat] = []
        if self.held_until is None:
            self.held_until = now + self.config.fairness_ms / 1000

    def _release(self, now: float, out: Outbox) -> None:
        """The window closed: rivals are settled by timestamp, then what queued behind them."""
        held, queued = sorted(self.held), self.queued
        self.held, self.held_until, self.queued = [], None, {}
        for h in held:
            if self.phase == "playing":
                self._commit(h, now, out)
        for seat in sorted(queued, key=lambda s: min((q.arrival for q in queued[s]),
                                                     default=0)):
            for h in queued[seat]:
                if self.phase == "playing":
                    self._commit(h, now, out)

    def _commit(self, held: Held, now: float, out: Outbox) -> None:
        seat, move = held.seat, held.move
        # The table's own moves and stand-in turns (rid -1) are answered to nobody; a stand-in
        # seat whose connection is still open gets its private half all the same (§9)
        owner = self.seats[seat].peer if seat >= 0 else None
        peer = owner if held.rid >= 0 else None
        try:
            events = self.game.apply(self.state, seat, move)
        except IllegalMove as err:
            refusal = self._refusal(held, err)
            self._record_refused(held, refusal)
            if peer is not None:
                out.private.append((peer, refusal))
            return
        except BadMove as err:
            refusal = make("error", re=held.rid, code="bad_move", reason=str(err))
            self._record_refused(held, refusal)
            if peer is not None:
                out.private.append((peer, refusal))
            return
        if self.game.races:
            self.races.remember(seat, held.ts, events, self.state)
        move = placed(move, events)
        self._next_seq()
        shown = self.game.public_move(move)
        hidden_move = shown != move.to_data()
        secret = hidden_move or any("private" in e for e in events)
        if secret and owner is not None:
            out.private.append((owner, make("private", seq=self.seq, k="move", events=events,
                                           move=move.to_data() if hidden_move else None)))
        out.public.append(make("update", seq=self.seq, k="move", round=self.match.round_no,
                               seat=seat, move=shown, rid=held.rid,
                               events=public_events(events), p=secret))
        if peer is not None:
            out.private.append((peer, make("ok", re=held.rid, seq=self.seq)))
        self.record("move", seq=self.seq, round=self.match.round_no, seat=seat,
                    move=move.to_data(), at=held.arrival,
                    **({"ts": held.claimed} if held.claimed is not None else {}))
        if any(e.get("e") in ("play", "rotate") for e in events):
            self.last_play = now
        self.turn_since = now
        if self.game.round_over(self.state):
            self._end_round(now, out)

    def _record_refused(self, held: Held, refusal: dict[str, Any]) -> None:
        """A client's move refused in play goes in the journal with its reason, so an auditor
        can check it was refused by the rules (``lan-demon verify``)."""
        if held.rid < 0:
            return  # the table's own moves and stand-in turns: nobody asked
        self.record("refused", round=self.match.round_no, seat=held.seat,
                    move=held.move.to_data(), at=held.arrival,
                    ts=held.claimed if held.claimed is not None else held.ts,
                    code=refusal["code"],
                    **{k: refusal[k] for k in ("rule", "by") if refusal.get(k) is not None})

    def _refusal(self, held: Held, err: IllegalMove) -> dict[str, Any]:
        """The error for a refused move. A card whose place another seat's card took first
        was beaten (RD-11), whatever else the engine sees wrong with it now: the error says
        who, on which stack (as it showed before), and by how many milliseconds."""
        lost = self.races.beaten(self.state, held.seat, held.move, held.place, held.ts)
        if lost is not None:
            who = self.seats[lost.by].name if 0 <= lost.by < len(self.seats) else "someone"
            top = lost.top
            where = f"the {top.symbol} stack" if top is not None else f"stack {lost.stack}"
            return make("error", re=held.rid, code="beaten",
                        reason=f"{who} got to {where} first, by {lost.ms} ms", rule="RD-11",
                        by=lost.by, stack=lost.stack,
                        top=top.code if top is not None else None, ms=lost.ms)
        if err.rule != "RD-11":
            return make("error", re=held.rid, code="illegal", reason=err.reason, rule=err.rule)
        place = held.place or getattr(held.move, "target", "")
        by = holder(self.state, place)
        who = self.seats[by].name if by is not None and 0 <= by < len(self.seats) else "someone"
        return make("error", re=held.rid, code="beaten", reason=f"{who} got to {place} first",
                    rule="RD-11", by=by, stack=stack_id(place))

    def _table_moves(self, now: float, out: Outbox) -> None:
        """Moves nobody at the table makes: RD-13's minute without a play, an absent player's
        Rack-O turn (draw and discard, so the table is not stuck)."""
        if self.game.races and now - self.last_play >= STUCK_TIMEOUT:
            self.last_play = now
            self._commit(Held(now, now, TABLE, -1, self.game.move_from_data({"t": "timeout"})),
                         now, out)
            return
        if self.game.simultaneous and self.game.races:
            self._absent_votes(now, out)
            return
        for index in self.game.to_move(self.state):
            seat = self.seats[index]
            absent_for = now - max(self.turn_since, seat.away_since or now)
            if seat.status != "here" and (seat.stepped_out
                                          or absent_for >= self.config.turn_timeout):
                self._stand_in(seat, now, out)

    def _absent_votes(self, now: float, out: Outbox) -> None:
        """RD-13 waits for "every player still in the round". A player who has left, or been
        away past the turn timeout, is not playing: the arbiter says "stuck" for them, so the
        others are not held to the 60-second timeout by an empty chair. Their cards stay in the
        round and still score (RD-14); any play clears every vote, and this one is said again."""
        for seat in self.seats:
            if seat.status == "here" or seat.away_since is None:
                continue
            if seat.status == "away" and not seat.stepped_out and \
                    now - seat.away_since < self.config.turn_timeout:
                continue
            vote = self.game.move_from_data({"t": "stuck"})
            try:
                self.game.check(self.state, seat.index, vote)
            except GameError:
                continue  # voted already, out, or the round is over
            self._commit(Held(now, now, seat.index, -1, vote), now, out)
            if self.phase != "playing":
                return

    def _stand_in(self, seat: Seat, now: float, out: Outbox) -> None:
        """Play an absent seat's turn the plainest way — draw, then discard (RK-4, GS-4) — so
        the table is not stuck waiting for someone who has gone."""
        for _ in range(3):
            legal = self.game.legal_moves(self.state, seat.index)
            kinds = {m.to_data()["t"]: m for m in reversed(legal)}
            move = kinds.get("draw") or kinds.get("discard")
            if move is None or self.phase != "playing":
                return
            self._commit(Held(now, now, seat.index, -1, move), now, out)
            if move.to_data()["t"] == "discard":
                return

    # --- presence, heartbeats, snapshots ---------------------------------------------------

    def _absences(self, now: float, out: Outbox) -> None:
        for seat in list(self.seats):
            if seat.status == "here" and now - seat.heard > AWAY_AFTER:
                self._presence(seat, "away", out)
                seat.away_since = now
            elif seat.status == "away" and seat.away_since is not None and \
                    now - seat.away_since > TOKEN_LIFE:
                self._gone(seat, now, out)  # its token no longer takes it back
        for peer, heard in list(self.spectators.items()):
            if now - heard > TOKEN_LIFE:
                del self.spectators[peer]

    def _presence(self, seat: Seat, status: str, out: Outbox) -> None:
        seat.status = status
        if status == "here":
            seat.away_since = None
            if self.encore_until is not None:
                self.encore_back[seat.index] = seat.heard
        self._publish(out, "presence", seat=seat.index, status=status)
        if self.phase == "lobby" and status != "left" and self.captain() != self._captain_told:
            self._publish_lobby(out)  # the captaincy moved (a lobby leave publishes its own)

    def _beat(self, now: float, out: Outbox) -> None:
        self.throttle.prune(now)
        if self.phase == "over" and self.encore_until is not None:
            self._publish(out, "match_end", result=self.result)  # for those coming back
        out.public.append(make("beat", seq=self.seq, a=now, hash=self.public_hash()))
        for seat in self.seats:
            if seat.status == "here" and seat.peer is not None:
                self._probe(seat, now, out)

    def _probe(self, seat: Seat, now: float, out: Outbox) -> None:
        if seat.peer not in self.probes:
            self._forget_strangers(self.probes)
        self.probes.setdefault(seat.peer, deque(maxlen=PROBES_KEPT)).append(now)
        out.private.append((seat.peer, make("probe", a=now)))

    def _first_use(self, peer: bytes, rid: int) -> bool:
        """Whether this connection has not sent a move with this id before."""
        if peer not in self.move_ids:
            self._forget_strangers(self.move_ids)
        return self.move_ids.setdefault(peer, RecentIds()).add(rid)

    def _forget_strangers(self, per_peer: dict[bytes, Any]) -> None:
        """Keep per-connection memory only for connections that hold a seat."""
        if len(per_peer) > 2 * len(self.seats) + 8:
            seated = {s.peer for s in self.seats}
            for peer in [p for p in per_peer if p not in seated]:
                del per_peer[peer]

    def public_hash(self) -> str:
        """A short hash of what everyone may see, so a client notices divergence at once."""
        if self.state is None:
            return ""
        return state_hash(self._redacted(None))

    def _publish(self, out: Outbox, kind: str, **fields: Any) -> None:
        self._next_seq()
        out.public.append(make("update", seq=self.seq, k=kind, **fields))

    def _publish_lobby(self, out: Outbox) -> None:
        self._captain_told = self.captain()
        self._publish(out, "lobby", seats=[s.public() for s in self.seats],
                      captain=self._captain_told)

    def captain(self) -> int | None:
        """The seat that starts the match: the first person seated (a hello without ``bot``)
        who is here — a captain whose laptop closed does not keep the others waiting for five
        minutes —, else the first person still at the table; with no person, the first seat;
        None with no seat."""
        people = [s for s in self.seats if not s.bot and s.status != "left"]
        here = [s for s in people if s.status == "here"]
        if here or people:
            return (here or people)[0].index
        return 0 if self.seats else None

    def table(self) -> dict[str, Any]:
        """The public match information, as a snapshot carries it."""
        match = self.match
        return {
            "phase": self.phase,
            "game": self.game.id,
            "config": self._public_config(),
            "seats": [s.public() for s in self.seats],
            "round": match.round_no if match else 0,
            "totals": list(match.totals) if match else [],
            "results": [r.to_data() for r in match.rounds] if match else [],
            "setup": match.setup if match else None,
            "go": self.go_at if self.phase == "countdown" else None,
            "result": self.result,
            "captain": self.captain(),
            "next_at": self.next_at(),
            "deal": self._deal_now(),
        }

    def _deal_now(self) -> dict[str, Any] | None:
        """The commitments of the round counting down or in play (§22), for a client that
        (re)joins then: it can still reveal its nonce, or at least hold the host to them."""
        deal = self.deal_round
        if deal is None or self.phase not in ("countdown", "playing"):
            return None
        return {"round": deal.round, **deal.announced(),
                **({"nonces": deal.used()} if self.phase == "playing" else {})}

    def snapshot(self, rid: int, seat: int | None) -> dict[str, Any]:
        state = self._redacted(seat) if self.state is not None else None
        return make("snap", re=rid, seq=self.seq, table=self.table(), state=state)

    # --- the journal (crash recovery: lan_demon.net.recovery) ------------------------------

    def attach_journal(self, journal: Journal, ports: dict[str, int]) -> None:
        """Write to ``journal`` from now on; a new journal starts with the ``host`` record."""
        self.journal, self.ports = journal, dict(ports)
        self._header()

    def record(self, kind: str, **fields: Any) -> None:
        """Append one record. Called before the step's outbox is sent, so the journal always
        holds what a client may have seen."""
        if self.journal:
            self._header()
            self.journal.write({"j": kind, **fields})

    def keep_secret(self, what: str, *values: Any) -> None:
        """Hand a secret to the journal's secrets file (``keep_token``, ``keep_round_secret``),
        when the journal keeps one: it never enters the journal itself."""
        keep = getattr(self.journal, what, None) if self.journal else None
        if keep is not None:
            self._header()
            keep(*values)

    def keep_round_secret(self, round_no: int, secret_hex: str) -> None:
        """Call when a round's countdown begins (before the countdown record): the round's host
        secret, kept beside the journal so that a resumed arbiter deals the round in progress
        again; its ``round_end`` record reveals it in the journal."""
        self.keep_secret("keep_round_secret", round_no, secret_hex)

    def _header(self) -> None:
        if self.journal and not self.headed:
            self.headed = True
            cfg = self.config
            config = {"game": cfg.game, "players": cfg.players, "rounds": cfg.rounds,
                      "seed": cfg.seed, "options": cfg.options, "fairness_ms": cfg.fairness_ms,
                      "lag_cap_ms": cfg.lag_cap_ms,
                      "countdown": cfg.countdown, "pause": cfg.pause,
                      "turn_timeout": cfg.turn_timeout}
            # Whether the table had a code and its public key — never the code or the secret
            # key, which stay in the secrets file beside the journal (recovery.HostSecrets).
            guard = {"coded": cfg.code is not None,
                     **({"key": cfg.server_key} if cfg.server_key else {})}
            self.journal.write({"j": "host", "v": JOURNAL_VERSION, "config": config,
                                "port": self.ports.get("port", 0),
                                "pub_port": self.ports.get("pub_port", 0), **guard})

    def _next_seq(self) -> int:
        """The next update number. The journal keeps a mark above every number handed out, so
        an arbiter resumed from it numbers on above anything a client has seen (Clone: the
        sequence never goes back)."""
        self.seq += 1
        if self.journal and self.seq > self.seq_mark:
            self.seq_mark = self.seq + SEQ_BLOCK
            self.record("seq", upto=self.seq_mark)
        return self.seq

    def finished(self, now: float) -> bool:
        """Over, with nobody left to tell. A match resumed after its end was journaled may
        not have reached its clients: until every seat has come back (and heard a few beats'
        ``match_end`` since), or ``encore_until``, the arbiter stays to tell them."""
        if self.phase != "over" or self.encore_until is None or now >= self.encore_until:
            return self.phase == "over"
        waiting = [s for s in self.seats if s.status != "left"]
        back = [self.encore_back.get(s.index) for s in waiting]
        return all(t is not None and now - t >= 3 * BEAT_INTERVAL for t in back)

    def _quiet(self, peer: bytes, msg: dict[str, Any], now: float) -> bool:
        """Just after a resume, a connection the arbiter does not know is answered only when it
        says hello: the crashed arbiter's clients must hear silence on their old connections,
        so that they come back with their tokens (a pong would keep them waiting there)."""
        return (self.quiet_until is not None and now < self.quiet_until
                and peer not in self.spectators and msg["t"] != "hello")

