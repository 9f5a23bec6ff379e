"""What a snapshot holds: the table as a client (re)joining sees it, the hash every beat
carries, and what of the table its journal keeps (crash recovery's measure).

A snapshot is the dearest thing a client can ask (the whole table, encoded), so its rate
limits live here with it (PROTOCOL.md §2).
"""

from __future__ import annotations

import copy
from typing import Any, Callable

from lan_demon.net.codec import make, state_hash
from lan_demon.net.commitments import Commitments
from lan_demon.net.guard import (SNAPSHOT_BURST, SNAPSHOT_COST, SNAPSHOT_RATE, STRANGER_BURST,
                                 STRANGER_RATE, RateLimiter)
from lan_demon.net.outbox import Outbox
from lan_demon.net.record import Record
from lan_demon.net.seated import NOBODY, Seat, Sender
from lan_demon.net.seats import Seats
from lan_demon.net.table_facts import TableFacts


class Snapshots:
    """The table's views: a snapshot, its public hash, what the journal keeps."""

    def __init__(self, facts: TableFacts, seats: Seats, commitments: Commitments,
                 record: Record, limiter: RateLimiter, next_at: Callable[[], float | None]):
        """``limiter``: the connection's flood brake (a snapshot costs more of it);
        ``next_at``: when the next round starts by itself (the match's flow)."""
        self.facts, self.seats, self.commitments, self.record = facts, seats, commitments, record
        self.limiter, self.next_at = limiter, next_at
        # Snapshots answered per connection; and for connections that hold no seat and watch
        # nothing, by IP address (§2): a few, however many connections ask — they cost time
        # every move behind them waits.
        self.answered = RateLimiter(SNAPSHOT_RATE if facts.settings.rate_limit > 0 else 0,
                                    SNAPSHOT_BURST)
        self.strangers = RateLimiter(STRANGER_RATE, STRANGER_BURST)

    def public_hash(self) -> str:
        """A short hash of what everyone may see, so a client notices divergence at once."""
        if self.facts.state is None:
            return ""
        return state_hash(self.redacted(None))

    def redacted(self, seat: int | None) -> dict[str, Any]:
        game = self.facts.game
        return game.state_to_data(game.redact(self.facts.state, seat))

    def table(self) -> dict[str, Any]:
        """The public match information, as a snapshot carries it."""
        facts, seats = self.facts, self.seats
        match, paused, now = facts.match, facts.paused, facts.now
        return {
            "phase": facts.phase,
            "game": facts.game.id,
            "config": facts.settings.public(),
            "seats": [s.public() for s in facts.seats],
            "round": match.round_no if match else 0,
            "totals": list(match.totals) if match else [],
            "results": [r.to_data() for r in match.rounds] if match else [],
            "setup": match.setup if match else None,
            "go": facts.go_at if facts.phase == "countdown" else None,
            "result": facts.result,
            "captain": seats.captain(),
            "next_at": self.next_at(),
            "deal": self.deal_now(),
            "checks": self.commitments.checks_now(),
            # §24: who paused the table (None: it runs), and how long each away seat is kept
            "paused": None if paused is None else {
                "by": paused.by, "name": paused.name,
                "for": max(0.0, now - paused.since)},  # seconds it has stood so far
            "kept": [[s.index, kept] for s in facts.seats
                     if (kept := seats.kept(s, now)) is not None],
        }

    def deal_now(self) -> dict[str, Any] | None:
        """The commitments of the round counting down, in play or just ended (§22), for a
        client that (re)joins then: it can still reveal its nonce, and holds the host to what
        it promised — in play, also what Go published (the deal's ``hash``; the snapshot adds
        this seat's ``dealt`` cards); after the round, its ``secret`` too, so a client that
        missed the end still checks it."""
        deal, phase, match = self.commitments.deal_round, self.facts.phase, self.facts.match
        if deal is None or phase == "lobby":
            return None
        fields = {"round": deal.round, **deal.announced()}
        if phase == "countdown":
            return fields
        fields.update(nonces=deal.used(), hash=deal.hash, setup=self._setup_of(deal.round))
        if phase in ("between", "over"):
            fields["secret"] = deal.secret.hex()
        return fields

    def _setup_of(self, round_no: int) -> Any:
        """The setup of the round dealt: the match's current one in play, else as recorded."""
        match = self.facts.match
        if self.facts.phase == "playing":
            return match.setup
        setups = match.setups if match is not None else []
        return setups[round_no] if round_no < len(setups) else None

    def snapshot(self, rid: int, seat: int | None) -> dict[str, Any]:
        facts = self.facts
        state = self.redacted(seat) if facts.state is not None else None
        now = self.table()
        deal = self.commitments.deal_round
        if facts.phase == "playing" and deal is not None and deal.dealt is not None and \
                now["deal"]:
            # this seat's cards as Go dealt them (§22.4): a client that missed the Go still
            # checks them at the round's end (the moves before it came it takes on trust)
            now["deal"]["dealt"] = facts.game.state_to_data(facts.game.redact(deal.dealt, seat))
        return make("snap", re=rid, seq=self.record.seq, table=now, state=state)

    def on_snapshot(self, peer: bytes, seat: Seat | None, msg: dict, now: float,
                    out: Outbox, sender: Sender = NOBODY) -> None:
        """A snapshot costs ``SNAPSHOT_COST`` tokens of the rate limit, and one connection is
        answered at most ``SNAPSHOT_RATE`` a second (bursts of ``SNAPSHOT_BURST``); beyond
        that one ``rate_limited`` error a second, the rest dropped unanswered (§2).

        A connection that holds no seat and watches nothing is a stranger: all the strangers
        of one IP address share a budget of ``STRANGER_RATE`` a second (bursts of
        ``STRANGER_BURST``), whatever their number — hundreds of them asking at once would
        hold back the moves read behind them (RD-11). At a coded table a stranger has not
        given the code, and is refused ``not_joined`` (within the same budget): its play is
        for the room (§20)."""
        self.limiter.charge(peer, SNAPSHOT_COST - 1, now)  # the frame already paid its own
        if seat is None and not self.seats.watching(peer) and \
                not self._stranger_answered(peer, msg, now, out, sender):
            return
        verdict = self.answered.admit(peer, now)
        if verdict == RateLimiter.WARN:
            out.private.append((peer, make(
                "error", re=msg["id"], code="rate_limited",
                reason=f"more than {SNAPSHOT_RATE:g} snapshots a second (bursts of "
                       f"{SNAPSHOT_BURST:g}); the rest are dropped unanswered")))
        if verdict != RateLimiter.ADMIT:
            return
        out.private.append((peer, self.snapshot(msg["id"], seat.index if seat else None)))

    def _stranger_answered(self, peer: bytes, msg: dict, now: float, out: Outbox,
                           sender: Sender) -> bool:
        """Whether a stranger's snapshot is answered: within its address's budget, and at a
        table without a room code (the refusals are in ``out``)."""
        verdict = self.strangers.admit(sender.address or "", now)
        if verdict == RateLimiter.WARN:
            out.private.append((peer, make(
                "error", re=msg["id"], code="rate_limited",
                reason=f"more than {STRANGER_RATE:g} snapshots a second from this address "
                       f"before saying hello (bursts of {STRANGER_BURST:g}); the rest are "
                       f"dropped unanswered")))
        if verdict != RateLimiter.ADMIT:
            return False
        if self.facts.code is not None:
            out.private.append((peer, make(
                "error", re=msg["id"], code="not_joined",
                reason="this table shows its play only to those who gave its room code: "
                       "say hello with it first, as a player or a spectator")))
            return False
        return True

    def durable(self) -> dict[str, Any]:
        """What of the table its journal keeps (with the secrets file beside it): everything
        an arbiter restored from them must hold as the crashed one held it — crash recovery's
        test compares the two field by field. Not here: connections, clocks and timers (a
        resume starts them again), moves not yet committed (never answered, so never seen),
        the seal keys (§23: a resumed seat gets a new one), and the update number, which a
        resume takes above every number handed out instead (:meth:`Record.next_seq`)."""
        facts, commitments = self.facts, self.commitments
        match, live = facts.match, facts.phase in ("countdown", "playing")
        deal = commitments.deal_round if live else None
        before = commitments.deal_before
        return copy.deepcopy({  # a view that the table's next moves do not change
            "settings": facts.settings, "code": facts.code, "server_key": facts.server_key,
            "phase": facts.phase,
            "seats": [{"index": s.index, "name": s.name, "bot": s.bot, "key": s.key,
                       "token": s.token, "left": s.status == "left", "ready": s.ready,
                       "commit": s.commit, "removed": s.removed} for s in facts.seats],
            "paused": None if facts.paused is None else (facts.paused.by, facts.paused.name),
            "match": None if match is None else {
                "players": match.players, "seed": match.seed, "options": match.options,
                "rounds_wanted": match.rounds_wanted, "totals": match.totals,
                "results": [r.to_data() for r in match.rounds], "setups": match.setups,
                "setup": match.setup},
            "deal": None if deal is None else {
                "round": deal.round, "secret": deal.secret, "seeded": deal.seeded,
                "commits": deal.commits, "words": deal.words, "nonces": deal.nonces,
                "hash": deal.hash,
                "dealt": None if deal.dealt is None else facts.game.state_to_data(deal.dealt)},
            "before": None if before is None else {
                "round": before.round, "secret": before.secret, "words": before.words},
            "checks": commitments.checks,
            "state": facts.game.state_to_data(facts.state) if facts.phase == "playing"
            else None,
            "disputes": sorted(commitments.disputes),
            "checked": sorted(commitments.checked),
            "result": facts.result,
        })
