"""The arbiter's core: the one authority on the table, as plain functions of messages and time.

``Arbiter.handle(peer, frame, now)`` takes one frame from the ROUTER and ``Arbiter.tick(now)``
takes the passing of time; both return an :class:`~lan_demon.net.outbox.Outbox` of private
replies (to a peer) and public updates (for the PUB). The socket loop in
:mod:`lan_demon.net.server` is a thin shell around it, and tests drive it directly with a fake
clock. Hidden cards never go over the PUB: each seat's own cards travel to it alone, as a
redacted state (``Game.redact``) or a move's private events.

This module holds the table's state, the entry points (the flood brake, decoding, dispatching
each message to its handler, ``tick``) and the match's flow (start, countdown, Go, a round's
end). The rest is in socket-free modules named after what they hold, plain functions that take
this core first and reach each other only through it (the names bound below):

* :mod:`lan_demon.net.seats` — admission, the room code, tokens, presence, the captain;
* :mod:`lan_demon.net.race` — RD-11's fairness hold, ordering by timestamp, the commit (the
  judgement itself, who was beaten and by how much, is :mod:`lan_demon.games.demon_races`);
* :mod:`lan_demon.net.table_clock` — heartbeats, clock probes, RD-13, stand-in turns;
* :mod:`lan_demon.net.record` — numbered updates, snapshots, the journal (Clone pattern);
* :mod:`lan_demon.net.commitments` — a player's commit, reveal and dispute (§22);
* :mod:`lan_demon.net.evening` — the host's and the captain's pause, resume and remove (§24).
"""

from __future__ import annotations

from collections import deque
from typing import Any

import msgpack

from lan_demon.games import GameError, Match, get_game
from lan_demon.games.demon_races import RaceBook
from lan_demon.games.demon_stuck import STUCK_TIMEOUT
from lan_demon.net import (commitments, evening, handover, race, record, seats, stall,
                           table_clock)
from lan_demon.net.codec import (FROM_CLIENT, SMALL, ProtocolError, SharedPacker, decode,
                                 make, request_id)
from lan_demon.net.fairdeal import HostDeal
from lan_demon.net.guard import (BYTES_PER_TOKEN, MALFORMED_COST, MOVE_BURST, MOVE_RATE,
                                 SNAPSHOT_BURST, SNAPSHOT_COST, SNAPSHOT_RATE, STRANGER_BURST,
                                 STRANGER_RATE, NoCollection, RateLimiter, RecentIds,
                                 frame_cost, log_internal)
from lan_demon.net.outbox import Outbox
from lan_demon.net.race import Held
from lan_demon.net.record import Journal
from lan_demon.net.seats import (NOBODY, PRESENCE_BURST, PRESENCE_RATE, SEATING_RATE, Seat,
                                 Sender)
from lan_demon.net.security import CodeThrottle, WatchGate
from lan_demon.net.settings import Settings
from lan_demon.net.table_clock import BEAT_INTERVAL

#: A countdown of 0 deals once every listed seat has revealed its nonce, or this long after
#: the countdown began, whichever is first (PROTOCOL.md §22.3): Go at once would leave every
#: nonce out.
REVEAL_WAIT = 1.0


class Arbiter:
    """The one authority on the table: it validates, orders, commits and broadcasts."""

    def __init__(self, settings: Settings, journal: Journal | None = None, now: float = 0.0,
                 code: str | None = None, server_key: str | None = None):
        """``code``: the room code a seat or a spectator's place needs (``host --lan``), None
        for none — never journaled: it is said aloud in the room, never sent. ``server_key``:
        the table's CURVE public key (z85) when it is encrypted; journaled, so that a resumed
        host proves with it that its secrets file (<journal>.secret) is this table's."""
        self.settings = settings  # checked when made (net/settings.py)
        self.game = get_game(settings.game)
        self.code, self.server_key = code, server_key
        self.pub = ""  # the PUB endpoint, told to clients in the welcome (set by the server)
        self.watch_pub = ""  # the spectators' PUB (§11; net/watchers_pub.py), "" for ``pub``
        self.journal = journal
        self.seats: list[Seat] = []
        self.peer_seats: dict[bytes, Seat] = {}  # seats.seat_of's memory, checked on use
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
        self.paused: evening.Pause | None = None  # every clock stands still (§24)
        self.stall: stall.Stall | None = None  # the journal cannot be written (§25)
        self.resumed_by = ""  # who last resumed it, in words (the host's log says it)
        self.removed_tokens: dict[str, Seat] = {}  # lobby seats removed, by token (§24)
        # Seats handed to a bot (§24, net/handover.py): the people's old tokens, refused; the
        # handovers the table's own bots have still to pick up; and whether anything here
        # runs bots to pick them up (the server says so when it has a taker).
        self.handed: dict[str, handover.HandedOver] = {}
        self.handovers: list[handover.Handover] = []
        self.takes_bots = False
        self.now = now  # the time of the step in hand (a snapshot's seats kept, §24)
        # The round being dealt or played: its host secret and commitments (§22). The secret
        # goes to the journal's secrets file (keep_round_secret) before it is committed to,
        # so a resumed arbiter deals the same round.
        self.deal_round: HostDeal | None = None
        self.deal_before: HostDeal | None = None  # the round before's: its checks are owed
        self.disputes: set[tuple[int, int]] = set()  # (seat, round) already published
        self.checks: dict[int, dict[int, dict[str, Any]]] = {}  # round -> seat -> its check
        self.checked: set[tuple[int, int]] = set()  # (seat, round) of every check published
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
        self.limiter = RateLimiter(settings.rate_limit, settings.rate_burst)
        self.seat_moves = RateLimiter(MOVE_RATE if settings.rate_limit > 0 else 0,
                                      MOVE_BURST)  # moves taken per seat (by its index)
        self.snapshots = RateLimiter(SNAPSHOT_RATE if settings.rate_limit > 0 else 0,
                                     SNAPSHOT_BURST)  # snapshots answered per connection
        self.throttle = CodeThrottle()  # wrong room codes, by the sender's IP address
        # Snapshots for connections that hold no seat and watch nothing, by IP address (§2):
        # a few, however many connections ask — they cost time every move behind them waits.
        self.strangers = RateLimiter(STRANGER_RATE, STRANGER_BURST)
        self.passed = WatchGate()  # who gave the room code: only they may watch the PUB (§20)
        self.move_ids: dict[bytes, RecentIds] = {}
        self.probes: dict[bytes, deque[float]] = {}
        # Bounds (PROTOCOL.md §2): what one peer's flood can make the journal keep and every
        # screen show. A seat's presence changes published, by seat index; seats taken, by
        # address (a whole table's worth at once); the seats whose stepping out the journal
        # has (once a match is all a resume needs); refused moves journaled this round, by
        # seat (race.REFUSED_PER_ROUND); the last pause by a seat (evening.PAUSE_GAP).
        self.presence_brake = RateLimiter(PRESENCE_RATE, PRESENCE_BURST)
        self.seatings = RateLimiter(SEATING_RATE, float(settings.players
                                                        or self.game.max_players))
        self.stepped_out: set[int] = set()
        self.refused: tuple[int, dict[int, int]] = (-1, {})
        self.seat_paused_at = float("-inf")
        # The arbiter's own msgpack Packer, reused for what it packs per move (a seal): a
        # Packer is built per call by ``msgpack.packb``. Used only on the arbiter's thread.
        self.packer = msgpack.Packer(use_bin_type=True)

    # --- the pieces, bound as the core's own (the socket-free modules named above) ----------
    # Messages, dispatched by type (``_on_`` + ``t``; ``hello``, ``snapshot`` also take the
    # sender):
    _on_hello = seats.on_hello
    _on_hb = seats.on_hb
    _on_ready = seats.on_ready
    _on_start = seats.on_start
    _on_leave = seats.on_leave
    _on_ping = table_clock.on_ping
    _on_echo = table_clock.on_echo
    _on_move = race.on_move
    _on_snapshot = record.on_snapshot
    _on_commit = commitments.on_commit
    _on_reveal = commitments.on_reveal
    _on_dispute = commitments.on_dispute
    _on_check = commitments.on_check
    _on_pause = evening.on_pause
    _on_resume = evening.on_resume
    _on_remove = evening.on_remove
    # Public: the server, recovery, the LAN announcement and tests ask these.
    captain = seats.captain
    seat_counts = seats.seat_counts
    table = record.table
    snapshot = record.snapshot
    public_hash = record.public_hash
    attach_journal = record.attach_journal
    durable = record.durable
    keep_secret = record.keep_secret
    keep_round_secret = record.keep_round_secret
    # What one piece asks of another:
    _seat_of = seats.seat_of
    _player = seats.player_seat
    _public_config = seats.public_config
    _presence = seats.presence
    _absences = seats.absences
    _all_ready = seats.all_ready
    _forget_strangers = seats.forget_strangers
    _beat = table_clock.beat
    _probe = table_clock.probe
    _table_moves = table_clock.table_moves
    _release = race.release
    _commit = race.commit
    _drop_in_flight = race.drop_in_flight
    _publish = record.publish
    _next_seq = record.next_seq
    record = record.record  # last: from here on in this class body the name is the method

    # --- entry points ----------------------------------------------------------------------

    def handle(self, peer: bytes, frame: bytes, now: float,
               sender: Sender = NOBODY) -> Outbox:
        """One frame from one peer. Every request is answered, bad ones with an error. Over
        the connection's rate limit the frame is dropped (one ``rate_limited`` error a second);
        a failure inside is logged and answered ``internal``, never raised: the table goes on.
        ``sender``: the peer's CURVE key and address, when the socket layer reads them."""
        out = Outbox()
        self.handle_into(peer, frame, now, out, sender)
        return out

    def handle_into(self, peer: bytes, frame: bytes, now: float, out: Outbox,
                    sender: Sender = NOBODY) -> None:
        """:meth:`handle`, adding what it says to ``out``: the socket loop gathers a whole
        wake-up's frames into one outbox (one publish, §2) without a new one per frame."""
        if not self._admit(peer, frame, now, out):
            return
        self.now = now
        try:
            if len(frame) <= SMALL:  # (a move)
                self._handle(peer, frame, now, out, sender)
            else:  # what it builds (2 KiB: up to 1,900 lists) is freed before a collection
                with NoCollection():
                    self._handle(peer, frame, now, out, sender)
        except Exception as err:  # a bug; the table must outlive it
            log_internal(f"a frame from peer {peer.hex()}", err)
            out.private.append((peer, make("error", re=request_id(frame), code="internal",
                                           reason=f"the arbiter failed on this message "
                                           f"({type(err).__name__}); the table goes on")))

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
        started BYTES_PER_TOKEN bytes, so big frames drain the bucket faster than small ones."""
        if self.limiter.rate <= 0:  # (--rate-limit 0: no brake, nothing to weigh)
            return True
        verdict = self.limiter.admit(peer, now, frame_cost(len(frame)))
        if verdict == RateLimiter.WARN:
            out.private.append((peer, make(
                "error", re=request_id(frame), code="rate_limited",
                reason=f"more than {self.settings.rate_limit:g} tokens a second (bursts of "
                       f"{self.settings.rate_burst:g}; a message costs one per started "
                       f"{BYTES_PER_TOKEN} bytes, a snapshot {SNAPSHOT_COST}); the rest are "
                       f"dropped unanswered")))
        return verdict == RateLimiter.ADMIT

    def _handle(self, peer: bytes, frame: bytes, now: float, out: Outbox,
                sender: Sender = NOBODY) -> None:
        try:
            msg = decode(frame, "client")
        except ProtocolError as err:
            self.limiter.charge(peer, MALFORMED_COST - 1, now)  # junk is dear (§2)
            out.private.append((peer, make("error", re=err.re, code=err.code,
                                           reason=err.reason)))
            return
        seat, kind = self._seat_of(peer), msg["t"]
        if self.stall is not None:  # the journal cannot be written: the table stands (§25)
            try:
                stall.on_frame(self, peer, seat, msg, now, out)
            except ProtocolError as err:
                out.private.append((peer, make("error", re=_request_id(msg), code=err.code,
                                               reason=err.reason)))
            return
        if seat is None:
            if self._quiet(peer, msg, now):
                return
        else:
            if not seats.same_key(seat, sender):
                out.private.append((peer, seats.wrong_key(_request_id(msg))))
                return
            seat.heard = now
            if seat.status == "away":
                self._presence(seat, "here", out)
        try:
            if kind == "move":  # most frames at a busy table: no name built, no lookup
                self._on_move(peer, seat, msg, now, out)
            elif kind == "hello" or kind == "snapshot":  # (by key and address: §20, §2)
                getattr(self, "_on_" + kind)(peer, seat, msg, now, out, sender)
            else:
                getattr(self, "_on_" + kind)(peer, seat, msg, now, out)
        except ProtocolError as err:
            out.private.append((peer, make("error", re=_request_id(msg), code=err.code,
                                           reason=err.reason)))

    def tick(self, now: float) -> Outbox:
        """Time passing: heartbeats, absences, Go, the fairness window, RD-13, stand-in turns."""
        self.now = now
        if self.stall is not None:  # the journal cannot be written: the table stands (§25)
            return stall.tick(self, now)
        out = Outbox()
        if now >= self.next_beat:
            self.next_beat = now + BEAT_INTERVAL
            self._beat(now, out)
        self._absences(now, out)
        if self.paused is not None:  # every clock stands still (§24)
            return out
        if self.phase == "countdown" and now >= self._go_time():
            self._deal(now, out)
        if self.held_until is not None and now >= self.held_until:
            self._release(now, out)
        if self.phase == "playing":
            self._table_moves(now, out)
        if self.phase == "between" and (self._pause_over(now) or self._all_ready()):
            self._countdown(now, out)
        return out

    def outgoing(self, out: Outbox) -> Outbox:
        """What of ``out`` may be sent now: all of it, unless records it describes wait for
        a disk that would not take them (:func:`lan_demon.net.stall.outgoing`). Whatever
        sends what the arbiter says sends only this (the time: the last step's, ``now``)."""
        if self.stall is None and not getattr(self.journal, "pending", None):
            return out
        return stall.outgoing(self, out, self.now)

    def next_deadline(self, now: float) -> float:
        """When :meth:`tick` next has something to do (the socket loop's poll timeout)."""
        if self.stall is not None:
            return max(now, stall.next_deadline(self))
        times = [self.next_beat]
        if self.paused is not None:
            return max(now, self.next_beat)
        if self.phase == "countdown":
            times.append(self._go_time())
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
        if self.phase != "between" or self.settings.pause is None:
            return None
        return self.between_since + self.settings.pause

    def _go_time(self) -> float:
        """When the round counting down is dealt: at ``go``; with a countdown of 0, as soon
        as every listed seat has revealed, and at most :data:`REVEAL_WAIT` later."""
        if self.settings.countdown > 0 or self.deal_round is None or \
                self.deal_round.all_revealed():
            return self.go_at
        return self.go_at + REVEAL_WAIT

    def _pause_over(self, now: float) -> bool:
        at = self.next_at()
        return at is not None and now >= at

    # --- the match ---------------------------------------------------------------------------

    def _start(self, now: float, out: Outbox) -> None:
        settings = self.settings
        self.match = Match(self.game, [s.name for s in self.seats], settings.seed,
                           dict(settings.options), rounds_wanted=settings.rounds)
        self.record("match", game=self.game.id, seed=settings.seed, players=self.match.players,
                    options=self.match.options, rounds=self.match.rounds_wanted)
        self._countdown(now, out)

    def _start_when_ready(self, now: float, out: Outbox) -> None:
        """``--players N``: the match starts by itself once N seats are filled and ready."""
        if self.settings.players and len(self.seats) == self.settings.players and \
                self._all_ready():
            self._start(now, out)

    def _countdown(self, now: float, out: Outbox) -> None:
        """The deal's secret is drawn and committed to, with the players' commitments (§22)."""
        self.phase = "countdown"
        self.go_at = now + self.settings.countdown
        round_no = self.match.round_no
        if self.deal_round is not None and self.deal_round.round != round_no:
            self.deal_before = self.deal_round
        deal = self.deal_round = self._draw(round_no)
        commitments.fix(self, deal)
        for s in self.seats:
            s.ready = False
        self.keep_round_secret(round_no, deal.secret.hex())
        self.record("countdown", round=round_no, **deal.announced())
        self._publish(out, "countdown", round=round_no, go=self.go_at, **deal.announced())
        if now >= self._go_time():  # a countdown of 0 with nothing to wait for
            self._deal(now, out)

    def _draw(self, round_no: int) -> HostDeal:
        """The round's host secret: fresh from the operating system, or the seed's."""
        return HostDeal.draw(round_no, self.settings.dealing)

    def _deal(self, now: float, out: Outbox) -> None:
        """RD-4: Go — the round is dealt and play starts for everyone at once."""
        deal = self.deal_round
        self.state = self.match.deal(deal.secret, deal.nonces)
        deal.dealt_now(self.game, self.state)  # its fingerprint, and a copy for snapshots
        self.races.clear()  # stack ids start again each round
        self.phase = "playing"
        self.last_play = self.turn_since = now
        self._next_seq()
        present = [s for s in self.seats if s.peer is not None and s.status == "here"]
        *mine, public = self.game.redacted_data(self.state, [s.index for s in present] + [None])
        # Every seat's copy is the whole table, and mostly the public one's very objects (at
        # Go in Racing Demon, all of it): packed once here, spliced into each frame (codec).
        update = make("update", seq=self.seq, k="round", round=self.match.round_no,
                      setup=self.match.setup, state=public, nonces=deal.used(),
                      hash=deal.hash)
        sharing = SharedPacker(update)
        for s, state in zip(present, mine):
            out.private.append((s.peer, sharing.message(
                make("private", seq=self.seq, k="round", state=state))))
        out.public.append(sharing.message(update))
        self.record("round", round=self.match.round_no, setup=self.match.setup,
                    nonces=deal.used(), hash=deal.hash, at=now, **deal.announced())
        if self.game.round_over(self.state):  # RD-16: a Pile of 0 is out at Go
            self._end_round(now, out)

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

    def finished(self, now: float) -> bool:
        """Over, with nobody left to tell. A match resumed after its end was journaled may
        not have reached its clients: until every seat has come back (and heard a few beats'
        ``match_end`` since), or ``encore_until``, the arbiter stays to tell them."""
        if self.stall is not None:  # what it has to say waits for the journal (§25)
            return False
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


def _request_id(msg: dict[str, Any]) -> int | None:
    """The id an error answers: the message's own, for a type that carries one (a ``hb``
    may carry junk there). Looked up only when an error is sent."""
    return msg.get("id") if "id" in FROM_CLIENT[msg["t"]] else None
