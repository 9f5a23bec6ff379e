"""``lan-demon verify JOURNAL``: audit a match journal from its records and the spec alone.

Everything a verifier in another language would do (``protocol/PROTOCOL.md`` §19), in one pass
over the records, stopping at the first problem:

* the chain — each record's ``prev`` is the SHA-256 of the record before it, and (version 4)
  each record's ``crc`` the CRC-32 of its own bytes, so that a damaged record, the last one
  too, is named in the words ``host --resume`` refuses it with
  (:func:`lan_demon.net.journal.read_journal`); a version 1 journal has none and fails;
* every deal — a seeded round from ``seed_secret(seed, round)`` and no nonces; any other from
  the host secret its ``round_end`` reveals, checked against the commitment published before
  the round, and the players' nonces, each checked against the hash its seat committed to;
  the deal's fingerprint published at Go against the deal re-made (§22.4);
* what the host promised (§22.7) — ``seeded`` only at a table with a seed, and never changed;
  one host commitment per round (a second countdown under another is a second chance the host
  gave itself after seeing the nonces); every commitment the host took (its ``commit``
  record, since the last ``resumed``) listed in its round's countdown; every seat's check one
  of the two words it promised. A round dealt without a seat's randomness passes, and is
  reported by seat under the OK line;
* every move replayed with the engine: each committed move applies; each refused move does not;
* every score — each ``round_end`` result is the engine's, the ``match_end`` totals the sums;
* the clock — ``at`` never goes back by more than the fairness window (inside which moves are
  committed in the order of their timestamps, not of their arrival) and
  :data:`RELEASE_SLACK` (the window is released at the loop's next turn), and in Racing Demon each
  table move (RD-13's minute, seat -1) comes at least 60 s after the last play;
* the evening (§24) — a ``pause`` only while the table runs and is not paused, a ``resume``
  only of a pause, saying how long it stood; no move committed, refused or dealt between them,
  and RD-13's minute counted without the pauses in it; a ``remove`` only of a seat at the
  table, never the remover's own, never twice; a handover to a bot (``remove`` with ``bot``)
  only during the match, at a level from 1 to 10, never twice for a seat;
* the end — a journal without its ``match_end`` ends before the match does (a cut at the end
  cannot be told from a match still in progress: nothing follows the last record to say so).

Imports the games and the journal format only: it needs no arbiter, no socket.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lan_demon.games import GameError
from lan_demon.games.deal import commitment, round_secret, seed_secret
from lan_demon.games.demon_stuck import STUCK_TIMEOUT, restarts_minute
from lan_demon.net.journal import JournalError, JournalRead, read_journal
from lan_demon.net.journal_frames import JournalDamage
from lan_demon.net.handover import HIGHEST, LOWEST
from lan_demon.net.fairdeal import WORD_BYTES, deal_hash, from_hex, unpairs, word_meaning
from lan_demon.net.replay import MatchFold, nonces_of, revealed_secrets, seeded

EPSILON = 1e-6  # seconds: float rounding in a journaled time
#: How far past the fairness window an arrival time may go back: a window is released at the
#: arbiter loop's next turn after it closes, and a move that arrived in between (no rival of the
#: held ones) was committed before them.
RELEASE_SLACK = 0.5


class Problem(Exception):
    """The first thing wrong with a journal, in words."""


class NotYet(Problem):
    """Nothing wrong up to here, but the rest cannot be checked until the match goes on: a
    secret round in play, whose deal is checked once its end reveals the host secret."""


@dataclass
class Verdict:
    ok: bool
    line: str  # the line ``verify`` prints
    notes: tuple[str, ...] = ()  # facts under an OK line: randomness left out, checks failed


def verify(path: str | Path) -> Verdict:
    """Audit the journal at ``path``. A file that cannot be read at all raises
    :class:`JournalError` (the command's one line, exit 2); anything else is a verdict."""
    try:
        Path(path).read_bytes()
    except OSError as err:
        raise JournalError(f"cannot read the journal {str(path)!r}: {err.strerror}") from None
    try:
        read = read_journal(path)
    except JournalError as err:
        kind = err.kind or ("damaged" if isinstance(err, JournalDamage) else "?")
        return _fail(err.number or 1, kind, "-", err.words)
    return _Audit(read, path).run()


def _count(n: int, what: str) -> str:
    """``1 round``, ``2 rounds``."""
    return f"{n} {what}" if n == 1 else f"{n} {what}s"


def _fail(number: int, kind: str, round_no: Any, words: str) -> Verdict:
    """``FAIL at record 57 (a move record, in round 2): …`` — rounds counted from 1, as every
    screen counts them (the journal's own ``round`` fields count from 0)."""
    what = f"a {kind} record" if kind not in ("?", "") else "a record that is not a journal's"
    where = f", in round {round_no + 1}" if isinstance(round_no, int) and round_no >= 0 else ""
    return Verdict(False, f"FAIL at record {number} ({what}{where}): {words}")


def _unfinished(number: int, kind: str, round_no: Any, words: str) -> Verdict:
    """A journal whose every record checks but whose match has not ended: not OK (nothing can
    be said of what is not there), but no accusation either — a match in play, or a host
    stopped, reads ``NOT FINISHED`` (``FAIL`` of a paused match reads as a cheat)."""
    line = _fail(number, kind, round_no, words).line.replace("FAIL at", "NOT FINISHED at", 1)
    return Verdict(False, f"{line}; every record up to there checks")


class _Audit:
    def __init__(self, read: JournalRead, path: Any):
        self.read, self.path = read, path
        self.fold = MatchFold(path, read.version, revealed_secrets(read.records))
        head = read.records[0]
        config = head.get("config") if head["j"] == "host" else None
        fairness = (config or {}).get("fairness_ms") or 0
        self.window = (fairness if isinstance(fairness, (int, float)) else 0) / 1000
        self.round: Any = "-"
        self.latest: float | None = None  # the latest arrival time seen on this clock
        self.last_play: float | None = None  # when the round in progress last saw a play
        self.rounds: dict[int, dict[str, Any]] = {}  # round records, by round
        self.moves = self.refused = 0
        self.taken: dict[int, dict[int, tuple[Any, ...]]] = {}  # round -> seat -> commitment
        self.promised: dict[int, dict[str, Any]] = {}  # round -> its (first) countdown
        self.notes: list[str] = []
        self.paused_at: float | None = None  # the pause in force (§24), when it began
        self.removed: set[int] = set()  # seats removed since the match started
        self.handed: set[int] = set()  # seats handed to a bot (§24)

    def run(self) -> Verdict:
        records = self.read.records
        if self.read.unchained:
            return _fail(1, records[0]["j"], "-", "a version 1 journal is not chained, so an "
                         "edit in it cannot be found: it replays (lan-demon replay) but cannot "
                         "be verified")
        for number, record in enumerate(records, 1):
            if isinstance(record.get("round"), int):
                self.round = record["round"]
            try:
                self.feed(record)
            except NotYet as err:  # (a round in play at a table with secret deals)
                return _unfinished(number, record["j"], self.round, str(err))
            except (Problem, JournalError) as err:
                return _fail(number, record["j"], self.round, getattr(err, "words", str(err)))
        last = len(records)
        if self.read.torn:
            return _unfinished(last + 1, "?", self.round, "the last record was cut off "
                               "mid-write: the journal ends before the match does")
        match = self.fold.match
        if match is None or self.fold.replay.result is None:
            return _unfinished(last, records[-1]["j"], self.round, "the journal ends before "
                               "the match does (no match_end record: the match is still being "
                               "played, its host was stopped, or the file was cut at the end)")
        return Verdict(True, f"OK: {match.game.id}, {_count(len(match.players), 'seat')}, "
                             f"{_count(len(match.rounds), 'round')}, "
                             f"{_count(self.moves, 'move')}, {self.refused} refused, "
                             f"{self.read.chained} records chained", tuple(self.notes))

    # --- record by record ------------------------------------------------------------------

    def feed(self, record: dict[str, Any]) -> None:
        kind = record["j"]
        before = getattr(self, "_before_" + kind, None)
        if before is not None:
            before(record)
        if kind != "refused":
            self.fold.feed(record)
        after = getattr(self, "_after_" + kind, None)
        if after is not None:
            after(record)

    # --- what the host promised (§22.7) -------------------------------------------------------

    def _before_commit(self, record: dict[str, Any]) -> None:
        self.taken.setdefault(record["round"], {})[record["seat"]] = \
            (record["hash"], record.get("ok"), record.get("fail"))

    def _before_countdown(self, record: dict[str, Any]) -> None:
        if "commit" not in record:
            return  # a journal from before commit and reveal
        round_no = record["round"]
        self._seed_claim(record)
        first = self.promised.setdefault(round_no, record)
        if first.get("commit") != record["commit"]:
            raise Problem("a second countdown for this round under another commitment to "
                          "its host secret: the host gave itself a second chance after "
                          "seeing the players' randomness")
        if record.get("seeded"):
            return
        listed = dict(unpairs(record.get("commits")))
        words = unpairs(record.get("words"), 3)
        for seat, (digest, ok, fail) in sorted(self.taken.get(round_no, {}).items()):
            if listed.get(seat) != digest or (ok is not None and words.get(seat) != (ok, fail)):
                raise Problem(f"{self._who(seat)}'s commitment to this round, which the host "
                              "took, is not in its countdown's list: the host dropped it")

    def _seed_claim(self, record: dict[str, Any]) -> None:
        match = self.fold.match  # (its seed: nil for a host that deals secretly)
        if record.get("seeded") and match is not None and match.seed is None:
            raise Problem("the round is announced as dealt from a fixed seed, but the host "
                          "had none: a seeded deal takes nobody's randomness, so the host "
                          "could choose the cards")

    def _before_check(self, record: dict[str, Any]) -> None:
        if record.get("lost") is True:
            self.notes.append(f"round {record['round'] + 1}: {self._who(record['seat'])} "
                              "restarted lan-demon (or a bot took the seat over): the promise "
                              "for this round was the earlier program's, and no check came")
            return
        if not isinstance(record.get("word"), str):
            raise Problem(f"{self._who(record['seat'])}'s check of this round has no word")
        promised = self.promised.get(record["round"]) or self.rounds.get(record["round"]) or {}
        hashes = unpairs(promised.get("words"), 3).get(record["seat"])
        word = from_hex(record["word"], WORD_BYTES)
        if "words" not in promised:
            return  # (a countdown this journal does not hold)
        meaning = word_meaning(word, hashes) if hashes is not None and word else None
        if meaning is None:
            raise Problem(f"{self._who(record['seat'])}'s check of this round is not one of "
                          "the two words its commitment promised")
        if meaning == "fail":
            self.notes.append(f"round {record['round'] + 1}: {self._who(record['seat'])}'s "
                              f"program found the deal wrong: {record.get('reason', '')}")

    def _who(self, seat: int) -> str:
        match = self.fold.match
        players = match.players if match is not None else []
        return f"{players[seat]} (seat {seat})" if 0 <= seat < len(players) else f"seat {seat}"

    def _before_round(self, record: dict[str, Any]) -> None:
        self._still("a round dealt")
        match = self.fold.match
        if match is None:
            return  # the fold says so
        self.rounds[record["round"]] = record
        self.last_play = record.get("at")
        self._seed_claim(record)
        commits = {seat: h for seat, h in record.get("commits") or []}
        if not seeded(record):
            used = dict(record.get("nonces") or [])
            left = [self._who(seat) for seat in sorted(commits) if seat not in used]
            if left:
                self.notes.append(f"round {record['round'] + 1} was dealt without the "
                                  f"randomness of {', '.join(left)}: promised, not revealed")
        if seeded(record):
            if "commit" in record and \
                    commitment(seed_secret(match.seed, record["round"])) != record["commit"]:
                raise Problem("a seeded round's commitment is not the hash of the seed's secret")
            if record.get("nonces"):
                raise Problem("a seeded round names nonces: a seeded deal has none")
            return
        if not isinstance(record.get("commit"), str):
            raise Problem("the round is not seeded but names no commitment to its host secret")
        for seat, nonce in record.get("nonces") or []:
            if seat not in commits:
                raise Problem(f"seat {seat}'s nonce is mixed in, but seat {seat} committed to "
                              "none before the round")
            if commitment(bytes.fromhex(nonce)) != commits[seat]:
                raise Problem(f"seat {seat}'s nonce is not the one it committed to (its hash "
                              "differs from the commits list)")
        secret = self.fold.secrets.get(record["round"])
        if secret is None:
            raise NotYet("the journal ends before the match does: this round's deal is "
                         "checked once its end reveals the host secret it was dealt from")
        if commitment(bytes.fromhex(secret)) != record["commit"]:
            raise Problem("the host secret its round_end reveals does not match the "
                          "commitment published before the round: the deal was not the one "
                          "committed to")

    def _after_round(self, record: dict[str, Any]) -> None:
        """The deal's fingerprint published at Go (§22.4) against the deal re-made."""
        match, state, fingerprint = self.fold.match, self.fold.state, record.get("hash")
        if match is None or state is None or not isinstance(fingerprint, str):
            return
        if seeded(record):
            mixed = round_secret(seed_secret(match.seed, record["round"]), {})
        else:
            mixed = round_secret(bytes.fromhex(self.fold.secrets[record["round"]]),
                                 nonces_of(record))
        if deal_hash(mixed, match.game.state_to_data(state)) != fingerprint:
            raise Problem("the deal's fingerprint published at Go is not the fingerprint of "
                          "the deal its revealed secret and nonces give: the cards dealt were "
                          "not the ones promised")

    def _before_move(self, record: dict[str, Any]) -> None:
        self._still("a move committed")
        at = self._clock(record)
        if record["seat"] == -1 and self.fold.match is not None and \
                self.fold.match.game.races and at is not None:
            if self.last_play is not None and at - self.last_play < STUCK_TIMEOUT - EPSILON:
                raise Problem(f"an RD-13 table move {at - self.last_play:.3f} s after the last "
                              f"play, not the {STUCK_TIMEOUT:g} s RD-13 waits")

    def _after_move(self, record: dict[str, Any]) -> None:
        self.moves += 1
        at = record.get("at")
        if record["seat"] == -1 or restarts_minute(self.fold.events):
            self.last_play = at if at is not None else self.last_play

    def _before_refused(self, record: dict[str, Any]) -> None:
        self._still("a move refused")
        self._clock(record)
        code = record["code"]
        if code not in ("illegal", "beaten", "bad_move"):
            raise Problem(f"a refusal with the code {code!r}, which play never gives")
        match, state = self.fold.match, self.fold.state
        if match is None or state is None:
            raise Problem("a refused move when no round is in progress")
        game = match.game
        try:
            game.apply(game.copy_state(state), record["seat"], game.move_from_data(record["move"]))
        except GameError:
            self.refused += 1
            return
        raise Problem(f"a move refused as {code} was legal at that point")

    def _before_round_end(self, record: dict[str, Any]) -> None:
        match = self.fold.match
        dealt = self.rounds.get(record["round"])
        secret = record.get("secret")
        if match is None or dealt is None:
            return  # the fold says so
        if seeded(dealt):
            if secret is not None and secret != seed_secret(match.seed, record["round"]).hex():
                raise Problem("a seeded round's revealed secret is not the seed's")
        elif not isinstance(secret, str):
            raise Problem("the round was dealt from a committed secret, but its end does not "
                          "reveal it")

    def _before_match_end(self, record: dict[str, Any]) -> None:
        match = self.fold.match
        if match is None:
            return
        if not match.over:
            raise Problem("the match ends in the journal before its last round")
        replayed = match.result_data()
        result = record["result"]
        if result.get("totals") != replayed["totals"]:
            raise Problem(f"the match_end totals {result.get('totals')} are not the sums of "
                          f"its rounds {replayed['totals']}")
        if result != replayed:
            different = sorted(k for k in set(result) | set(replayed)
                               if result.get(k) != replayed.get(k))
            raise Problem(f"the match_end result is not the replay's (it differs in "
                          f"{', '.join(different)})")

    # --- the evening (§24) ----------------------------------------------------------------------

    def _by(self, record: dict[str, Any]) -> None:
        match, by = self.fold.match, record["by"]
        if by != -1 and match is not None and not 0 <= by < len(match.players):
            raise Problem(f"by seat {by}, which nobody took (the host is -1)")

    def _still(self, what: str) -> None:
        if self.paused_at is not None:
            raise Problem(f"{what} while the table was paused: a paused table takes no move "
                          "and deals nothing until it is resumed (§24)")

    def _before_pause(self, record: dict[str, Any]) -> None:
        self._by(record)
        if self.paused_at is not None:
            raise Problem("a pause of a table paused already")
        if self.fold.match is None:
            raise Problem("a pause before the match started: nothing runs to pause")
        self.paused_at = record["at"]

    def _before_resume(self, record: dict[str, Any]) -> None:
        self._by(record)
        if self.paused_at is None:
            raise Problem("a resume of a table that was not paused")
        still = record["at"] - self.paused_at
        if abs(record["paused"] - still) > EPSILON:
            raise Problem(f"a resume that says the table stood {record['paused']:.3f} s, "
                          f"not the {still:.3f} s since its pause (or the host's resume)")
        # RD-13's minute stood still: the last play is as long ago as before the pause.
        if self.last_play is not None:
            self.last_play += record["paused"]
        self.paused_at = None

    def _before_remove(self, record: dict[str, Any]) -> None:
        self._by(record)
        seat = record["seat"]
        if seat == record["by"]:
            raise Problem(f"{self._who(seat)} removed their own seat, which nobody may")
        if self.fold.match is None:
            if "bot" in record:
                raise Problem(f"{self._who(seat)} handed to a bot before the match began")
            return  # a lobby seat removed: the others moved up, and nothing was dealt
        if not 0 <= seat < len(self.fold.match.players):
            raise Problem(f"a remove of seat {seat}, which nobody took")
        if seat in self.removed:
            raise Problem(f"{self._who(seat)} removed a second time")
        if "bot" in record:  # handed to a bot of that level: once, and only while it plays
            if not LOWEST <= record["bot"] <= HIGHEST:
                raise Problem(f"{self._who(seat)} handed to a bot of level {record['bot']}, "
                              f"which is no level (they go from {LOWEST} to "
                              f"{HIGHEST})")
            if seat in self.handed:
                raise Problem(f"{self._who(seat)} handed to a bot a second time")
            self.handed.add(seat)
            return
        self.removed.add(seat)

    def _before_resumed(self, record: dict[str, Any]) -> None:
        # A new arbiter: perhaps a new clock (after a reboot), and RD-13's minute starts again;
        # the commitments the crashed one took are not its to list.
        self.taken.clear()
        if self.paused_at is not None:  # still paused; its time counts from here (§24)
            self.paused_at = record.get("at", self.paused_at)
        self.latest = record.get("at")
        self.last_play = record.get("at")

    def _clock(self, record: dict[str, Any]) -> float | None:
        """A move's or refusal's arrival time: there, and not before what came earlier."""
        at = record.get("at")
        if at is None:
            raise Problem("it has no arrival time (at)")
        if self.latest is not None and at < self.latest - self.window - RELEASE_SLACK:
            raise Problem(f"its arrival time goes back {self.latest - at:.3f} s, more than the "
                          f"fairness window ({self.window * 1000:g} ms) and "
                          f"{RELEASE_SLACK * 1000:g} ms for its release allow")
        self.latest = at if self.latest is None else max(self.latest, at)
        return at
