"""The arbiter: the one authority on the table, a plain object of messages and time.

``Arbiter.handle(peer, frame, now)`` takes one frame from the ROUTER and ``Arbiter.tick(now)``
takes the passing of time; both return an :class:`~lan_demon.net.outbox.Outbox` of private
replies (to a peer) and public updates (for the PUB). The socket loop in
:mod:`lan_demon.net.server` is a thin shell around it, and tests drive it directly with a fake
clock. Hidden cards never go over the PUB: each seat's own cards travel to it alone, as a
redacted state (``Game.redact``) or a move's private events.

This module is the facade: the entry points (the flood brake, decoding, dispatching each
message to its room's handler, ``tick``) and what the server, recovery and tests ask. The table
itself is in rooms, each an object holding its own state and handed what it needs — the shared
:class:`~lan_demon.net.table_facts.TableFacts`, and other rooms by type:

* :class:`~lan_demon.net.seats.Seats` — admission, the room code, tokens, presence, the captain;
* :class:`~lan_demon.net.race.Race` — RD-11's fairness hold, ordering by timestamp, the commit
  (the judgement itself, who was beaten and by how much, is
  :mod:`lan_demon.games.demon_races`);
* :class:`~lan_demon.net.table_clock.TableClock` — heartbeats, clock probes, RD-13, stand-ins;
* :class:`~lan_demon.net.record.Record` — numbered updates and the journal (Clone pattern);
* :class:`~lan_demon.net.snapshots.Snapshots` — a snapshot, the public hash, what is durable;
* :class:`~lan_demon.net.commitments.Commitments` — a player's commit, reveal, dispute (§22);
* :class:`~lan_demon.net.evening.Evening` — the host's and the captain's pause, resume and
  remove (§24), and :class:`~lan_demon.net.handover.Handovers` — a seat handed to a bot;
* :class:`~lan_demon.net.match_flow.MatchFlow` — the start, countdown, Go and a round's end;
* :class:`~lan_demon.net.stall.Standstill` — a table whose journal cannot be written (§25).
"""

from __future__ import annotations

from typing import Any

from lan_demon.games import Game, Match, get_game
from lan_demon.games.demon_stuck import STUCK_TIMEOUT
from lan_demon.net.codec import FROM_CLIENT, SMALL, ProtocolError, decode, make, request_id
from lan_demon.net.commitments import Commitments
from lan_demon.net.evening import Evening
from lan_demon.net.forwarded import Fact
from lan_demon.net.guard import (BYTES_PER_TOKEN, MALFORMED_COST, SNAPSHOT_COST, NoCollection,
                                 RateLimiter, frame_cost, log_internal)
from lan_demon.net.handover import Handovers
from lan_demon.net.match_flow import MatchFlow
from lan_demon.net.outbox import Outbox
from lan_demon.net.race import Race
from lan_demon.net.record import Journal, Record
from lan_demon.net.seated import NOBODY, HandedOver, Seat, Sender
from lan_demon.net.seats import Seats, same_key, wrong_key
from lan_demon.net.settings import Settings
from lan_demon.net.snapshots import Snapshots
from lan_demon.net.stall import HARMLESS, Handler, Stall, Standstill
from lan_demon.net.table_clock import BEAT_INTERVAL, TableClock
from lan_demon.net.table_facts import Pause, TableFacts

#: The messages whose handlers also take the sender (by key and address: §20, §2).
BY_SENDER = ("hello", "snapshot")


class Arbiter:
    """The one authority on the table: it validates, orders, commits and broadcasts."""

    def __init__(self, settings: Settings, journal: Journal | None = None, now: float = 0.0,
                 code: str | None = None, server_key: str | None = None):
        """``code``: the room code a seat or a spectator's place needs (``host --lan``), None
        for none — never journaled: it is said aloud in the room, never sent. ``server_key``:
        the table's CURVE public key (z85) when it is encrypted; journaled, so that a resumed
        host proves with it that its secrets file (<journal>.secret) is this table's."""
        # settings are checked when made (net/settings.py)
        facts = self.facts = TableFacts(settings, get_game(settings.game), now, code=code,
                                        server_key=server_key, last_play=now, turn_since=now)
        # The flood brake (PROTOCOL.md §10): a token bucket per connection.
        self.limiter = RateLimiter(settings.rate_limit, settings.rate_burst)
        # A resumed arbiter's quiet time towards strangers (lan_demon.net.recovery).
        self.quiet_until: float | None = None
        self.records = Record(facts, journal)
        self.seating = Seats(facts, self.records)
        self.commitments = Commitments(facts, self.seating, self.records)
        self.race = Race(facts, self.seating, self.records)
        self.flow = MatchFlow(facts, self.seating, self.records, self.commitments, self.race)
        self.views = Snapshots(facts, self.seating, self.commitments, self.records,
                               self.limiter, self.flow.next_at)
        self.clock = TableClock(facts, self.race, self.records, self.seating.throttle,
                                self.views.public_hash)
        self.handovers = Handovers(facts, self.seating, self.records)
        self.evening = Evening(facts, self.seating, self.race, self.records, self.handovers)
        # (the seats and the race call rooms made after them: they are handed those now)
        self.seating.connect(self.flow, self.clock.probe)
        self.race.connect(self.flow.end_round)
        self.handlers = self._handlers()
        self.standstill = Standstill(facts, self.records, self.race,
                                     {kind: self.handlers[kind] for kind in HARMLESS})

    def _handlers(self) -> dict[str, Handler]:
        """Each message type's handler, the room's own method, looked up once per frame."""
        handlers: dict[str, Handler] = {
            "move": self.race.on_move,
            "hello": self.seating.on_hello, "hb": self.seating.on_hb,
            "ready": self.seating.on_ready, "start": self.seating.on_start,
            "leave": self.seating.on_leave,
            "ping": self.clock.on_ping, "echo": self.clock.on_echo,
            "snapshot": self.views.on_snapshot,
            "commit": self.commitments.on_commit, "reveal": self.commitments.on_reveal,
            "dispute": self.commitments.on_dispute, "check": self.commitments.on_check,
            "pause": self.evening.on_pause, "resume": self.evening.on_resume,
            "remove": self.evening.on_remove,
        }
        assert handlers.keys() == FROM_CLIENT.keys(), "a message type with no handler"
        return handlers

    # --- what the server, recovery, the host's window and tests read ---------------------
    settings: Fact[Settings] = Fact("facts")
    game: Fact[Game] = Fact("facts")
    now: Fact[float] = Fact("facts")  # the time of the step in hand
    phase: Fact[str] = Fact("facts")  # lobby | countdown | playing | between | over
    match: Fact[Match | None] = Fact("facts")
    state: Fact[Any] = Fact("facts")
    result: Fact[dict[str, Any] | None] = Fact("facts")
    seats: Fact[list[Seat]] = Fact("facts")
    paused: Fact[Pause | None] = Fact("facts")
    code: Fact[str | None] = Fact("facts")
    journal: Fact[Journal | None] = Fact("records")
    handed: Fact[dict[str, HandedOver]] = Fact("seating")  # old tokens of seats handed over
    resumed_by: Fact[str] = Fact("evening")  # who last resumed the table, in words
    stall: Fact[Stall | None] = Fact("standstill")  # why the table stands (§25), or None

    def captain(self) -> int | None:
        return self.seating.captain()

    def seat_counts(self) -> tuple[int, int]:
        return self.seating.seat_counts()

    def table(self) -> dict[str, Any]:
        return self.views.table()

    def snapshot(self, rid: int, seat: int | None) -> dict[str, Any]:
        return self.views.snapshot(rid, seat)

    def public_hash(self) -> str:
        return self.views.public_hash()

    def durable(self) -> dict[str, Any]:
        return self.views.durable()

    def attach_journal(self, journal: Journal, ports: dict[str, int]) -> None:
        self.records.attach(journal, ports)

    def next_at(self) -> float | None:
        return self.flow.next_at()

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
        self.facts.now = now
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
        seat, kind = self.seating.seat_of(peer), msg["t"]
        try:
            if self.standstill.stall is not None:  # the journal cannot be written (§25)
                self.standstill.on_frame(peer, seat, msg, now, out)
                return
            if seat is None:
                if self._quiet(peer, msg, now):
                    return
            elif not same_key(seat, sender):
                out.private.append((peer, wrong_key(_request_id(msg))))
                return
            else:  # (written out, not a method: every frame of a busy table comes here)
                seat.heard = now
                if seat.status == "away":
                    self.seating.presence(seat, "here", out)
            if kind in BY_SENDER:
                self.handlers[kind](peer, seat, msg, now, out, sender)
            else:
                self.handlers[kind](peer, seat, msg, now, out)
        except ProtocolError as err:
            out.private.append((peer, make("error", re=_request_id(msg), code=err.code,
                                           reason=err.reason)))

    def tick(self, now: float) -> Outbox:
        """Time passing: heartbeats, absences, Go, the fairness window, RD-13, stand-in turns."""
        self.facts.now = now
        if self.standstill.stall is not None:  # the journal cannot be written (§25)
            return self.standstill.tick(now)
        out = Outbox()
        self.clock.beat_if_due(now, out)
        self.seating.absences(now, out)
        if self.facts.paused is not None:  # every clock stands still (§24)
            return out
        flow = self.flow
        if self.facts.phase == "countdown" and now >= flow.go_time():
            flow.deal(now, out)
        if self.race.held_until is not None and now >= self.race.held_until:
            self.race.release(now, out)
        if self.facts.phase == "playing":
            self.clock.table_moves(now, out)
        if self.facts.phase == "between" and (flow.pause_over(now) or self.seating.all_ready()):
            flow.countdown(now, out)
        return out

    def outgoing(self, out: Outbox) -> Outbox:
        """What of ``out`` may be sent now: all of it, unless records it describes wait for
        a disk that would not take them (:meth:`lan_demon.net.stall.Standstill.outgoing`).
        Whatever sends what the arbiter says sends only this (the time: the last step's)."""
        if self.standstill.stall is None and not getattr(self.records.journal, "pending", None):
            return out
        return self.standstill.outgoing(out, self.facts.now)

    def next_deadline(self, now: float) -> float:
        """When :meth:`tick` next has something to do (the socket loop's poll timeout)."""
        if self.standstill.stall is not None:
            return max(now, self.standstill.next_deadline())
        facts, flow = self.facts, self.flow
        times = [self.clock.next_beat]
        if facts.paused is not None:
            return max(now, self.clock.next_beat)
        if facts.phase == "countdown":
            times.append(flow.go_time())
        if self.race.held_until is not None:
            times.append(self.race.held_until)
        next_at = flow.next_at()
        if next_at is not None:
            times.append(next_at)
        if facts.phase == "playing" and facts.game.races:
            times.append(facts.last_play + STUCK_TIMEOUT)
        return max(now, min(times))

    def finished(self, now: float) -> bool:
        """Over, with nobody left to tell. A match resumed after its end was journaled may
        not have reached its clients: until every seat has come back (and heard a few beats'
        ``match_end`` since), or ``encore_until``, the arbiter stays to tell them."""
        facts = self.facts
        if self.standstill.stall is not None:  # what it has to say waits for the journal
            return False
        if facts.phase != "over" or facts.encore_until is None or now >= facts.encore_until:
            return facts.phase == "over"
        waiting = [s for s in facts.seats if s.status != "left"]
        back = [facts.encore_back.get(s.index) for s in waiting]
        return all(t is not None and now - t >= 3 * BEAT_INTERVAL for t in back)

    def _quiet(self, peer: bytes, msg: dict[str, Any], now: float) -> bool:
        """Just after a resume, a connection the arbiter does not know is answered only when it
        says hello: the crashed arbiter's clients must hear silence on their old connections,
        so that they come back with their tokens (a pong would keep them waiting there)."""
        return (self.quiet_until is not None and now < self.quiet_until
                and not self.seating.watching(peer) and msg["t"] != "hello")


def _request_id(msg: dict[str, Any]) -> int | None:
    """The id an error answers: the message's own, for a type that carries one (a ``hb``
    may carry junk there). Looked up only when an error is sent."""
    return msg.get("id") if "id" in FROM_CLIENT[msg["t"]] else None
