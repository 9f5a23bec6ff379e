"""Crash recovery: an arbiter taken up again from its journal (``lan-demon host --resume``).

The journal (:mod:`lan_demon.net.journal`) holds everything a restarted arbiter cannot work out
for itself — the host's configuration and ports, the seats, who said ready, the update numbers
handed out — next to the match: its seed, every committed move and every round's result; the
secrets file beside it holds the seats' session tokens and the round in progress's host secret.
:func:`restore` reads both back into an :class:`Arbiter`: finished rounds, totals and RD-15
handicaps come from :class:`~lan_demon.games.Match` recording each result again; the round in
progress is dealt again (from the seed, or from its host secret and the nonces of its ``round``
record) and every committed move re-applied with the engine. Seats come back *away*, each
waiting for its client to say hello with its token.

What the crashed arbiter had not journaled it had not sent either (a step's outbox goes out
after the step's records are written), so a client never saw anything that is lost: a move still
in the fairness window, or a ``ready`` not yet written, was never answered — its client's
snapshot after reconnecting clears it.

Every journaled table has a *secrets file* beside the journal, ``<journal>.secret``
(:class:`HostSecrets`, mode 0600, replaced atomically whenever it changes): the session tokens
(by the ordinal of each ``seat`` record: lobby leaves renumber seats, never records), the round
in progress's host secret and, on a table with them, the room code and CURVE keys — never in the
journal itself, which may be shared to replay and verify a match. The journal says only whether
there was a code and which public key the table had, so a resumed host can tell that the secrets
file is the table's, and refuses to resume a coded or encrypted table without it (it could not
be the same table: its clients hold its key and code), or a journal with seats without it (their
tokens are there). Each ``seat`` record names the key that took the seat, so a resumed seat
speaks only with that key again — a token alone does not win it back after a crash either.

Clients notice a dead arbiter by silence (about 3.5 s with nothing heard) and reconnect with
their tokens. :func:`resume` therefore binds a *new* PUB port and keeps quiet, for a while, towards
connections it does not know: the old connections of those clients reconnect to the same ROUTER
port on their own, and an answer there (a pong) would keep them from ever noticing.
"""

from __future__ import annotations

from secrets import token_hex
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import zmq

from lan_demon.games import GameError
from lan_demon.net.arbiter import Arbiter
from lan_demon.net.client import SILENCE
from lan_demon.games.deal import commitment
from lan_demon.net.commitments import CHECKS_KEPT
from lan_demon.net.fairdeal import HostDeal, unpairs
from lan_demon.net.journal import JournalError, JournalRead, read_journal, secret_path
from lan_demon.net.outbox import Outbox
from lan_demon.net.replay import MatchFold, revealed_secrets
from lan_demon.net.seated import HandedOver, Seat
from lan_demon.net.secrets_file import HostSecrets, check_secrets, read_secrets
from lan_demon.net.settings import Settings
from lan_demon.net.table_facts import HOST, Pause

#: How long a resumed arbiter answers only ``hello`` from connections it does not know: a
#: client's silence limit and a margin, so every client of the crashed arbiter has given up its
#: old connection before anything could answer on it.
RESUME_QUIET = SILENCE + 1.5

#: How long at most a host resumed after the match's end stays to tell returning clients
#: the result (it goes sooner once every seat has been back a few seconds).
ENCORE = 30.0

@dataclass
class Restored:
    """An arbiter rebuilt from a journal, and what the journal said about where it listened."""

    arbiter: Arbiter
    port: int
    pub_port: int
    torn: bool = False  # the journal's last record was cut off mid-write and was left out
    size: int = 0  # bytes of whole records: a resumed journal is cut here before appending
    moves: int = 0  # committed moves of the round in progress
    match_ended: bool = False  # the journal holds the match_end record
    #: cut between the match record and its first countdown's: that countdown is still to begin
    countdown_due: bool = False


def settings_of(head: dict[str, Any], path: Any) -> Settings:
    """The host's settings from a ``host`` record, in their one written form (an older
    journal's through its named migration, :data:`lan_demon.net.settings.MIGRATIONS`)."""
    try:
        return Settings.from_data(head["config"], head.get("v", 1))
    except GameError as err:  # (SettingsError, or a value the game refuses)
        raise JournalError(f"{path}: the host record's settings cannot be used: {err}") \
            from None


class _Restorer:
    """Folds the records into a new arbiter, the way the crashed one moved through them."""

    def __init__(self, head: dict[str, Any], now: float, path: Any,
                 tokens: tuple[str | None, ...] = (), secrets: dict[int, str] | None = None):
        self.path, self.now = path, now
        self.arbiter = Arbiter(settings_of(head, path), now=now)
        self.facts = self.arbiter.facts  # what the folding below sets as the table stood
        self.fold = MatchFold(path, secrets=secrets)
        self.secrets = dict(secrets or {})  # round -> host secret (hex), kept or revealed
        self.tokens, self.seat_records = tokens, 0
        self.port, self.pub_port = head["port"], head["pub_port"]
        self.seq = self.mark = 0
        self.match_ended = False
        self.counted_down: int | None = None  # the round whose countdown record was read
        self.paused: tuple[int, str] | None = None  # (by, name) of a pause not resumed

    def feed(self, record: dict[str, Any]) -> None:
        self.fold.feed(record)
        handler = getattr(self, "_" + record["j"], None)
        if handler is not None:
            handler(record)

    def _seat(self, record: dict[str, Any]) -> None:
        seats = self.facts.seats
        if record["seat"] != len(seats) or self.facts.phase != "lobby":
            raise JournalError(f"{self.path}: seat {record['seat']} taken out of turn")
        ordinal, self.seat_records = self.seat_records, self.seat_records + 1
        token = self.tokens[ordinal] if ordinal < len(self.tokens) else None
        # No token kept (its secrets file was cut short): one nobody knows — the seat plays on
        # (stand-ins, RD-13 votes) but cannot be taken back.
        seats.append(Seat(record["seat"], record["name"], token or token_hex(8),
                          record["bot"], None, key=record.get("key"), status="away",
                          heard=self.now, away_since=self.now))

    def _seat_at(self, record: dict[str, Any]) -> Seat:
        seats = self.facts.seats
        if not 0 <= record["seat"] < len(seats):
            raise JournalError(f"{self.path}: a {record['j']} record for seat {record['seat']}, "
                               f"which nobody took")
        return seats[record["seat"]]

    def _leave(self, record: dict[str, Any]) -> None:
        seat = self._seat_at(record)
        if record.get("away") and self.facts.phase != "lobby":
            seat.stepped_out = True  # kept for its token, absent at once (Seats.on_leave)
            self.arbiter.seating.stepped_out.add(seat.index)
            return
        seat.status = "left"
        if self.facts.phase == "lobby":  # as Seats.gone: the others move up one
            self.facts.seats.remove(seat)
            for i, s in enumerate(self.facts.seats):
                s.index = i

    def _ready(self, record: dict[str, Any]) -> None:
        self._seat_at(record).ready = True

    def _seq(self, record: dict[str, Any]) -> None:
        self.mark = max(self.mark, record["upto"])

    def _match(self, record: dict[str, Any]) -> None:
        names = [s.name for s in self.facts.seats]
        if record["players"] != names:
            raise JournalError(f"{self.path}: the match's players are not the seats taken")
        self.facts.match = self.fold.match
        # The match record comes just before its first countdown's: cut between them, the
        # countdown is begun afresh (complete()), as nothing of it was published.
        self.facts.phase = "countdown"

    def _countdown(self, record: dict[str, Any]) -> None:
        """As ``MatchFlow.countdown``: readiness and the players' commitments are used up, the
        round's commitments fixed — its secret the one the secrets file kept for it."""
        self._phase("countdown")
        for seat in self.facts.seats:
            seat.commit = None
        deal = self._deal_round(record)
        deal.commits = {} if deal.seeded else unpairs(record.get("commits"))
        deal.words = {} if deal.seeded else unpairs(record.get("words"), 3)
        deal.nonces = {}
        self.counted_down = record["round"]

    def _commit(self, record: dict[str, Any]) -> None:
        self._seat_at(record).commit = (record["round"], record["hash"], record.get("ok"),
                                        record.get("fail"))

    def _reveal(self, record: dict[str, Any]) -> None:
        deal = self.arbiter.commitments.deal_round
        if deal is None or deal.round != record["round"] or \
                deal.reveal(record["seat"], record["nonce"]) is not None:
            raise JournalError(f"{self.path}: a reveal of seat {record['seat']} that its "
                               f"round {record['round'] + 1}'s countdown does not take")

    def _round(self, record: dict[str, Any]) -> None:
        self.facts.phase = "playing"
        deal = self._deal_round(record)
        deal.commits = unpairs(record.get("commits"))
        deal.words = unpairs(record.get("words"), 3)
        deal.nonces = {seat: bytes.fromhex(n) for seat, n in unpairs(record.get("nonces"))
                       .items()}
        # Its fingerprint and the cards at Go, as the crashed arbiter published them (§22.4):
        # a snapshot during the round gives them to a client that missed Go.
        deal.dealt_now(self.facts.game, self.fold.state)
        if record.get("hash") is not None and record["hash"] != deal.hash:
            raise JournalError(f"{self.path}: round {record['round'] + 1} deals again to "
                               "another deal than the one whose fingerprint it published")

    def _check(self, record: dict[str, Any]) -> None:
        """A seat's verdict, published (``Commitments.on_check``): a snapshot repeats the
        last rounds' ones, and it is not published twice."""
        fields = {k: record[k] for k in ("seat", "round", "word", "reason", "lost")
                  if k in record}
        commitments = self.arbiter.commitments
        commitments.checks.setdefault(record["round"], {}).setdefault(record["seat"], fields)
        commitments.checked.add((record["seat"], record["round"]))
        for old in [r for r in commitments.checks
                    if r < self.facts.match.round_no - CHECKS_KEPT]:
            del self.arbiter.commitments.checks[old]

    def _dispute(self, record: dict[str, Any]) -> None:
        self.arbiter.commitments.disputes.add((record["seat"], record["round"]))

    def _deal_round(self, record: dict[str, Any]) -> HostDeal:
        """The round's secret as the crashed arbiter held it: a seeded table's follows from
        its seed; a secret one's was kept in the secrets file before its commitment was
        published (or is revealed by the round's end) — and must be the one committed to."""
        a, round_no = self.arbiter.commitments, record["round"]
        if a.deal_round is not None and a.deal_round.round == round_no:
            return a.deal_round
        if a.deal_round is not None:
            a.deal_before = a.deal_round  # its checks are still owed (MatchFlow.countdown)
        if self.facts.settings.seeded:
            a.deal_round = HostDeal.draw(round_no, self.facts.settings.dealing)
            return a.deal_round
        kept = self.secrets.get(round_no)
        secret = bytes.fromhex(kept) if kept else None
        if secret is None or ("commit" in record and commitment(secret) != record["commit"]):
            what = "is not kept" if secret is None else "kept is not the one committed to"
            raise JournalError(f"{self.path}: the host secret of round {round_no + 1} {what} "
                               f"(in the secrets file {secret_path(self.path)}): the round "
                               "cannot be dealt as it was promised")
        a.deal_round = HostDeal(round_no, secret, False)
        return a.deal_round

    def _move(self, record: dict[str, Any]) -> None:
        self.seq = max(self.seq, record.get("seq") or 0)

    def _round_end(self, record: dict[str, Any]) -> None:
        self._phase("over" if self.facts.match.over else "between")

    def _match_end(self, record: dict[str, Any]) -> None:
        self.facts.phase = "over"
        self.match_ended = True

    def _resumed(self, record: dict[str, Any]) -> None:
        self.port, self.pub_port = record["port"], record["pub_port"]

    def _pause(self, record: dict[str, Any]) -> None:
        """A table paused when its host stopped is still paused when it is resumed (§24):
        its clocks stand until someone resumes it (its pause counted from the resume)."""
        by = record["by"]
        if by != HOST:
            self._seat_at({"j": "pause", "seat": by})
        self.paused = (by, self.facts.name_of(by))

    def _resume(self, record: dict[str, Any]) -> None:
        self.paused = None

    def _remove(self, record: dict[str, Any]) -> None:
        """As ``Evening.remove``: marked, left, and in the lobby the others move up — or, with
        ``bot``, handed to a bot (net/handover.py): renamed, a bot, its new token from the
        secrets file, its key forgotten. No bot is started again: the seat is away until one
        comes back with the token (none does after ``host --resume``), and stand-ins play."""
        seat = self._seat_at(record)
        by = record["by"]
        if "bot" in record:
            ordinal, self.seat_records = self.seat_records, self.seat_records + 1
            token = self.tokens[ordinal] if ordinal < len(self.tokens) else None
            by_name = self.facts.name_of(by) if by == HOST or \
                0 <= by < len(self.facts.seats) else "the host"
            self.arbiter.seating.handed[seat.token] = HandedOver(seat.name, by_name, record["name"],
                                                         record["bot"])
            seat.token, seat.key = token or token_hex(8), None
            seat.bot, seat.name, seat.stepped_out = True, record["name"], True
            return
        seat.removed = True
        seat.removed_by = self.facts.name_of(by) if by == HOST or \
            0 <= by < len(self.facts.seats) else "the host"
        self._leave({"j": "remove", "seat": record["seat"]})

    def _phase(self, phase: str) -> None:
        self.facts.phase = phase
        for seat in self.facts.seats:
            seat.ready = False

    def finish(self) -> Arbiter:
        """The arbiter as it stood at the last record, its clocks started again at ``now``."""
        a, facts, now = self.arbiter, self.facts, self.now
        a.records.resume_at(max(self.seq, self.mark))
        if facts.match is not None:
            facts.state = self.fold.state if facts.phase == "playing" else self.fold.replay.last
            if facts.phase == "over":
                facts.result = facts.match.result_data()
        # A countdown starts again once its clients have had the time to come back and reveal
        # their nonces again (they notice the silence, then reconnect: RESUME_QUIET).
        facts.go_at = now + RESUME_QUIET + facts.settings.countdown
        facts.between_since = facts.last_play = facts.turn_since = a.clock.next_beat = now
        if self.paused is not None:
            facts.paused = Pause(*self.paused, since=now)
        return a


def host_settings(read: JournalRead, path: Any = "journal") -> Settings:
    """The settings of the host that wrote a journal (its ``host`` record)."""
    head = read.records[0]
    if head["j"] != "host":
        raise JournalError(f"{path}: this journal was written by an older lan-demon; it "
                           "replays, but it holds no seats, so it cannot be resumed")
    return settings_of(head, path)


def restore(read: JournalRead, now: float, path: Any = "journal",
            secrets: HostSecrets | None = None) -> Restored:
    """Rebuild the arbiter of a journal as it stood at its last whole record; the seats'
    tokens and the round in progress's host secret come from ``secrets`` (read from the
    secrets file beside ``path`` when not given)."""
    host_settings(read, path)
    if read.unchained:
        raise JournalError(f"{path}: this journal was written by an older lan-demon (version "
                           f"1, unchained); it replays, but it cannot be resumed")
    if secrets is None:
        secrets = read_secrets(path)
    if secrets is None and any(r["j"] == "seat" for r in read.records):
        raise JournalError(f"{path}: its secrets file {secret_path(path)} is missing: the seats' "
                           "session tokens are kept there, and without them nobody could take "
                           "a seat back")
    kept = revealed_secrets(read.records)
    if secrets is not None and secrets.round_secret is not None:
        kept.setdefault(secrets.round_secret["round"], secrets.round_secret["secret"])
    try:
        restorer = _Restorer(read.records[0], now, path, secrets.tokens if secrets else (),
                             kept)
        for record in read.records[1:]:
            if record["j"] == "host":
                raise JournalError(f"{path}: a second host record")
            restorer.feed(record)
        arbiter = restorer.finish()
    except (KeyError, TypeError, ValueError) as err:
        if isinstance(err, GameError):
            raise
        raise JournalError(f"{path}: the journal cannot be resumed ({type(err).__name__}: "
                           f"{err})") from None
    moves = restorer.fold.replay.moves[-1] if arbiter.phase == "playing" else 0
    due = arbiter.phase == "countdown" and restorer.counted_down != arbiter.match.round_no
    return Restored(arbiter, restorer.port, restorer.pub_port, read.torn, read.size, moves,
                    restorer.match_ended, due)


def complete(restored: Restored, now: float) -> None:
    """Finish the step the crash cut in two: a match whose first countdown was not begun, a
    round whose last move is journaled but not its end, a match whose last round ended but
    whose end was not written. What this publishes
    reaches nobody (no client is back yet); clients learn it from their snapshots."""
    a = restored.arbiter
    if restored.countdown_due:
        restored.countdown_due = False
        a.flow.countdown(now, Outbox())
        a.facts.go_at = now + RESUME_QUIET + a.settings.countdown  # (as finish() says why)
    elif a.phase == "playing" and a.game.round_over(a.state):
        a.flow.end_round(now, Outbox())
    elif a.phase == "over" and not restored.match_ended:
        a.records.write("match_end", result=a.result)
    restored.match_ended = restored.match_ended or a.phase == "over"


def take_up(restored: Restored, now: float) -> None:
    """Start a restored arbiter whose journal (a :class:`JournalWriter`) is attached again:
    note the resume in the journal, finish the step the crash cut in two, and keep quiet
    towards strangers for :data:`RESUME_QUIET` seconds (see the module's notes).

    The ``resumed`` record is written now or the resume is refused: a disk that cannot take
    it (full, read-only, failing) raises a :class:`JournalError` of one line, and the journal
    is left byte for byte as it was found — a torn tail cut when it was opened is put back and
    its copy removed (:meth:`JournalWriter.put_back`)."""
    arbiter = restored.arbiter
    journal = arbiter.journal
    try:
        ports = arbiter.records.ports
        journal.write_now({"j": "resumed", "port": ports.get("port", 0),
                           "pub_port": ports.get("pub_port", 0),
                           "torn": restored.torn, "at": now})
    except JournalError as err:
        kept = "the journal is left as it was" if journal.put_back() else \
            f"its torn last record could not be put back: the whole journal is kept in " \
            f"{str(journal.torn_copy)!r}"
        raise JournalError(f"cannot resume: {err}; {kept}") from None
    if arbiter.paused is not None:  # still paused: from this record on (as verify counts it)
        arbiter.facts.paused = Pause(arbiter.paused.by, arbiter.paused.name, now)
    complete(restored, now)
    arbiter.quiet_until = now + RESUME_QUIET
    if arbiter.phase == "over":  # its end may not have gone out before the crash
        arbiter.facts.encore_until = now + RESUME_QUIET + ENCORE


def resume(path: str | Path, port: int | None = None,
           clock: Callable[[], float] = time.monotonic,
           context: zmq.Context | None = None,
           read: JournalRead | None = None, secrets: HostSecrets | None = None,
           on_seats: Callable[[int, int], None] | None = None) -> tuple[Any, Restored]:
    """An :class:`~lan_demon.net.server.ArbiterServer` serving the match of a journal again,
    on the journal's ROUTER port unless ``port`` is given, appending to the same journal
    (``read``: the journal already read). ``secrets``: the table's code, keys and LAN binding
    (:func:`read_secrets`; checked against the journal here); ``on_seats`` as for the server
    (the LAN announcement)."""
    from lan_demon.net.server import LOOPBACK, ArbiterServer  # the socket shell, only here
    read = read or read_journal(path)
    check_secrets(read, secrets, path)
    restored = restore(read, clock(), path, secrets)
    arbiter = restored.arbiter
    arbiter.facts.code = secrets.code if secrets else None
    server = ArbiterServer(arbiter.settings, host="0.0.0.0" if secrets and secrets.lan else
                           LOOPBACK, port=restored.port if port is None else port,
                           journal=str(path), clock=clock, context=context, arbiter=arbiter,
                           journal_keep=read.size, avoid_pub=restored.pub_port,
                           keys=secrets.keys if secrets else None, on_seats=on_seats)
    try:
        take_up(restored, clock())
    except JournalError:
        server.close()
        raise
    return server, restored


def summary(restored: Restored) -> str:
    """What was resumed, in words: the phase, the round, its moves, the totals."""
    a = restored.arbiter
    if a.match is None:
        taken = ", ".join(s.name for s in a.seats) or "none"
        return f"in the lobby (seats taken: {taken})"
    match = a.match
    totals = ", ".join(f"{n} {t}" for n, t in zip(match.sides, match.totals))
    number = match.round_no + 1
    of = f" of {match.rounds_wanted}" if match.rounds_wanted else ""
    where = {
        "playing": f"round {number}{of} in progress, {restored.moves} "
                   f"move{'' if restored.moves == 1 else 's'}",
        "countdown": f"counting down to round {number}{of}",
        "between": f"between rounds, {match.round_no} played{of}",
        "over": f"the match is over after {match.round_no} rounds",
    }[a.phase]
    return f"{where}; totals: {totals}"


__all__ = ["RESUME_QUIET", "Restored", "complete", "host_settings", "restore", "resume",
           "settings_of", "summary", "take_up"]
