"""The table's record: the numbered updates (publish), what a snapshot holds, and the journal
(crash recovery, :mod:`lan_demon.net.recovery`; secrets beside it, never in it).

The design follows the ZeroMQ Guide's Clone pattern: every canonical update carries the next
number of one sequence, a snapshot says which number it stands at, and the journal keeps a mark
above every number handed out, so the sequence never goes back, even across a crash. Plain
functions of the table's state, no sockets: each takes the arbiter's core, ``arb``
(:class:`lan_demon.net.arbiter.Arbiter`), first.
"""

from __future__ import annotations

import copy
from typing import Any, Protocol

from lan_demon.net import evening
from lan_demon.net.codec import make, state_hash
from lan_demon.net.commitments import checks_now
from lan_demon.net.guard import (SNAPSHOT_BURST, SNAPSHOT_COST, SNAPSHOT_RATE, STRANGER_BURST,
                                 STRANGER_RATE, RateLimiter)
from lan_demon.net.journal import VERSION as JOURNAL_VERSION
from lan_demon.net.outbox import Outbox
from lan_demon.net.seats import NOBODY, Seat, Sender

SEQ_BLOCK = 1000  # update numbers reserved per journal "seq" mark (crash recovery)


class Journal(Protocol):
    """Where records go (:class:`lan_demon.net.journal.JournalWriter`). A journal may also
    have ``keep_token(token)`` and ``keep_round_secret(round, hex)``: secrets that never enter
    it, kept in the secrets file beside it; and ``pending``, ``why`` and ``retry()``: records a
    full disk would not take yet, which hold back what the table says (net/stall.py)."""

    def write(self, record: dict[str, Any]) -> None: ...


def public_hash(arb) -> str:
    """A short hash of what everyone may see, so a client notices divergence at once."""
    if arb.state is None:
        return ""
    return state_hash(redacted(arb, None))


def publish(arb, out: Outbox, kind: str, **fields: Any) -> None:
    next_seq(arb)
    out.public.append(make("update", seq=arb.seq, k=kind, **fields))


def redacted(arb, seat: int | None) -> dict[str, Any]:
    return arb.game.state_to_data(arb.game.redact(arb.state, seat))


def table(arb) -> dict[str, Any]:
    """The public match information, as a snapshot carries it."""
    match = arb.match
    return {
        "phase": arb.phase,
        "game": arb.game.id,
        "config": arb._public_config(),
        "seats": [s.public() for s in arb.seats],
        "round": match.round_no if match else 0,
        "totals": list(match.totals) if match else [],
        "results": [r.to_data() for r in match.rounds] if match else [],
        "setup": match.setup if match else None,
        "go": arb.go_at if arb.phase == "countdown" else None,
        "result": arb.result,
        "captain": arb.captain(),
        "next_at": arb.next_at(),
        "deal": deal_now(arb),
        "checks": checks_now(arb),
        # §24: who paused the table (None: it runs), and how long each away seat is still kept
        "paused": None if arb.paused is None else {
            "by": arb.paused.by, "name": arb.paused.name,
            "for": max(0.0, arb.now - arb.paused.since)},  # seconds it has stood so far
        "kept": [[s.index, kept] for s in arb.seats
                 if (kept := evening.kept(arb, s, arb.now)) is not None],
    }


def deal_now(arb) -> dict[str, Any] | None:
    """The commitments of the round counting down, in play or just ended (§22), for a client
    that (re)joins then: it can still reveal its nonce, and holds the host to what it
    promised — in play, also what Go published (the deal's ``hash``; the snapshot adds this
    seat's ``dealt`` cards); after the round, its ``secret`` too, so a client that missed
    the end still checks it."""
    deal, phase = arb.deal_round, arb.phase
    if deal is None or phase == "lobby":
        return None
    fields = {"round": deal.round, **deal.announced()}
    if phase == "countdown":
        return fields
    setups = arb.match.setups if arb.match is not None else []
    setup = arb.match.setup if phase == "playing" else \
        setups[deal.round] if deal.round < len(setups) else None
    fields.update(nonces=deal.used(), hash=deal.hash, setup=setup)
    if phase in ("between", "over"):
        fields["secret"] = deal.secret.hex()
    return fields


def snapshot(arb, rid: int, seat: int | None) -> dict[str, Any]:
    state = redacted(arb, seat) if arb.state is not None else None
    now = table(arb)
    deal = arb.deal_round
    if arb.phase == "playing" and deal is not None and deal.dealt is not None and now["deal"]:
        # this seat's cards as Go dealt them (§22.4): a client that missed the Go still
        # checks them at the round's end (the moves before it came it takes on trust)
        now["deal"]["dealt"] = arb.game.state_to_data(arb.game.redact(deal.dealt, seat))
    return make("snap", re=rid, seq=arb.seq, table=now, state=state)


def on_snapshot(arb, peer: bytes, seat: Seat | None, msg: dict, now: float,
                out: Outbox, sender: Sender = NOBODY) -> None:
    """A snapshot is the dearest thing a client can ask (the whole table, encoded): it
    costs ``SNAPSHOT_COST`` tokens of the rate limit, and one connection is answered at most
    ``SNAPSHOT_RATE`` a second (bursts of ``SNAPSHOT_BURST``); beyond that one
    ``rate_limited`` error a second, the rest dropped unanswered (PROTOCOL.md §2).

    A connection that holds no seat and watches nothing is a stranger: all the strangers of
    one IP address share a budget of ``STRANGER_RATE`` a second (bursts of
    ``STRANGER_BURST``), whatever their number — hundreds of them asking at once would hold
    back the moves read behind them (RD-11). At a coded table a stranger has not given the
    code, and is refused ``not_joined`` (within the same budget): its play is for the room
    (§20)."""
    arb.limiter.charge(peer, SNAPSHOT_COST - 1, now)  # the frame already paid its own
    if seat is None and peer not in arb.spectators:
        verdict = arb.strangers.admit(sender.address or "", now)
        if verdict == RateLimiter.WARN:
            out.private.append((peer, make(
                "error", re=msg["id"], code="rate_limited",
                reason=f"more than {STRANGER_RATE:g} snapshots a second from this address "
                       f"before saying hello (bursts of {STRANGER_BURST:g}); the rest are "
                       f"dropped unanswered")))
        if verdict != RateLimiter.ADMIT:
            return
        if arb.code is not None:
            out.private.append((peer, make(
                "error", re=msg["id"], code="not_joined",
                reason="this table shows its play only to those who gave its room code: "
                       "say hello with it first, as a player or a spectator")))
            return
    verdict = arb.snapshots.admit(peer, now)
    if verdict == RateLimiter.WARN:
        out.private.append((peer, make(
            "error", re=msg["id"], code="rate_limited",
            reason=f"more than {SNAPSHOT_RATE:g} snapshots a second (bursts of "
                   f"{SNAPSHOT_BURST:g}); the rest are dropped unanswered")))
    if verdict != RateLimiter.ADMIT:
        return
    out.private.append((peer, snapshot(arb, msg["id"], seat.index if seat else None)))


def attach_journal(arb, journal: Journal, ports: dict[str, int]) -> None:
    """Write to ``journal`` from now on; a new journal starts with the ``host`` record."""
    arb.journal, arb.ports = journal, dict(ports)
    header(arb)


def record(arb, kind: str, **fields: Any) -> None:
    """Append one record. Called before the step's outbox is sent, so the journal always
    holds what a client may have seen."""
    if arb.journal:
        header(arb)
        arb.journal.write({"j": kind, **fields})


def keep_secret(arb, what: str, *values: Any) -> None:
    """Hand a secret to the journal's secrets file (``keep_token``, ``keep_round_secret``),
    when the journal keeps one: it never enters the journal itarb."""
    keep = getattr(arb.journal, what, None) if arb.journal else None
    if keep is not None:
        header(arb)
        keep(*values)


def keep_round_secret(arb, round_no: int, secret_hex: str) -> None:
    """Call when a round's countdown begins (before the countdown record): the round's host
    secret, kept beside the journal so that a resumed arbiter deals the round in progress
    again; its ``round_end`` record reveals it in the journal."""
    keep_secret(arb, "keep_round_secret", round_no, secret_hex)


def header(arb) -> None:
    if arb.journal and not arb.headed:
        arb.headed = True
        # Every setting, in its one written form (net/settings.py); whether the table had a
        # code and its public key — never the code or the secret key, which stay in the
        # secrets file beside the journal (secrets_file.HostSecrets).
        guard = {"coded": arb.code is not None,
                 **({"key": arb.server_key} if arb.server_key else {})}
        # The first record, written now or refused: a host whose disk cannot take it does
        # not start (one line), rather than start a table that stands still (§25).
        write = getattr(arb.journal, "write_now", None) or arb.journal.write
        write({"j": "host", "v": JOURNAL_VERSION, "config": arb.settings.to_data(),
               "port": arb.ports.get("port", 0), "pub_port": arb.ports.get("pub_port", 0),
               **guard})


def durable(arb) -> dict[str, Any]:
    """What of the table its journal keeps (with the secrets file beside it): everything an
    arbiter restored from them must hold as the crashed one held it — crash recovery's test
    compares the two field by field. Not here: connections, clocks and timers (a resume starts
    them again), moves not yet committed (never answered, so never seen), the seal keys (§23:
    a resumed seat gets a new one), and the update number, which a resume takes above every
    number handed out instead (:func:`next_seq`)."""
    match, live = arb.match, arb.phase in ("countdown", "playing")
    deal = arb.deal_round if live else None
    before = arb.deal_before
    return copy.deepcopy({  # a view that the table's next moves do not change
        "settings": arb.settings, "code": arb.code, "server_key": arb.server_key,
        "phase": arb.phase,
        "seats": [{"index": s.index, "name": s.name, "bot": s.bot, "key": s.key,
                   "token": s.token, "left": s.status == "left", "ready": s.ready,
                   "commit": s.commit, "removed": s.removed} for s in arb.seats],
        "paused": None if arb.paused is None else (arb.paused.by, arb.paused.name),
        "match": None if match is None else {
            "players": match.players, "seed": match.seed, "options": match.options,
            "rounds_wanted": match.rounds_wanted, "totals": match.totals,
            "results": [r.to_data() for r in match.rounds], "setups": match.setups,
            "setup": match.setup},
        "deal": None if deal is None else {
            "round": deal.round, "secret": deal.secret, "seeded": deal.seeded,
            "commits": deal.commits, "words": deal.words, "nonces": deal.nonces,
            "hash": deal.hash,
            "dealt": None if deal.dealt is None else arb.game.state_to_data(deal.dealt)},
        "before": None if before is None else {
            "round": before.round, "secret": before.secret, "words": before.words},
        "checks": arb.checks,
        "state": arb.game.state_to_data(arb.state) if arb.phase == "playing" else None,
        "disputes": sorted(arb.disputes),
        "checked": sorted(arb.checked),
        "result": arb.result,
    })


def next_seq(arb) -> int:
    """The next update number. The journal keeps a mark above every number handed out, so
    an arbiter resumed from it numbers on above anything a client has seen (Clone: the
    sequence never goes back)."""
    arb.seq += 1
    if arb.journal and arb.seq > arb.seq_mark:
        arb.seq_mark = arb.seq + SEQ_BLOCK
        record(arb, "seq", upto=arb.seq_mark)
    return arb.seq
