"""The match journal: every canonical event, appended as it is committed — enough to replay the
match, and enough for a restarted arbiter to take it up again (:mod:`lan_demon.net.recovery`).

A journal is a stream of msgpack maps, one per record, each flushed as it is written, in a file
readable by its owner only (0600). Since version 2 the records are *chained*: each carries
``prev``, the SHA-256 (hex) of the exact bytes of the record before it (the first: 64 zeros), so
that an edit, or a cut at a record boundary anywhere but the end, is found by whoever reads it
(:func:`read_journal`; ``lan-demon verify`` checks the rest, :mod:`lan_demon.net.audit`). The
arbiter writes a record *before* it publishes the event the record describes (the outbox of a
step is sent only after the step has returned), so nothing a client has seen is missing from the
journal. Flushed records are in the operating system's hands: they survive the arbiter process
being killed, but not a power cut (the file is not ``fsync``-ed, which would cost a disk round
trip per move).

Records, by ``j``:

* ``host`` — first: ``config``, every setting of the table in its one written form
  (:meth:`lan_demon.net.settings.Settings.to_data`: version 3; version 2 wrote ``seed`` where
  3 writes ``dealing``, and no brake, which :data:`lan_demon.net.settings.MIGRATIONS` supplies),
  ``port`` and ``pub_port`` bound, ``v`` the journal version (3),
  ``coded`` whether a room code was needed and, on an encrypted table, ``key`` its CURVE public
  key — never the code or the secret key: a journal may be shared to replay a match, so those
  stay in the secrets file beside it (:class:`lan_demon.net.secrets_file.HostSecrets`);
* ``seat`` ``{seat, name, bot, key?}`` — a seat taken in the lobby, ``key`` the CURVE
  public key that took it (encrypted tables only), which a resumed arbiter binds the seat to
  again. Its session token is not here (version 1 had it): it is kept in the secrets file, by
  the seat record's ordinal (:meth:`JournalWriter.keep_token`); ``leave`` ``{seat}`` — a seat
  said leave (in the lobby the seats after it move up one);
  ``ready`` ``{seat}``;
* ``seq`` ``{upto}`` — every update number handed out so far is at most ``upto`` (written
  before the first number above the last mark is used), so a resumed arbiter numbers on above
  anything a client has seen;
* ``match`` ``{game, seed, players, options, rounds}`` — the match started;
* ``countdown`` ``{round, commit, commits, words, seeded}`` — the countdown to a round's Go
  began, under that host commitment and those players' commitments and check words (a second
  one for the same round under another ``commit`` is a host giving itself a second chance:
  ``verify`` fails it);
* ``commit`` ``{seat, round, hash, ok?, fail?}`` — a seat's nonce commitment for a round (with
  its check words' hashes) was acknowledged (``ok``); ``reveal`` ``{seat, round, nonce}`` — its
  nonce was taken in the countdown (so a host that crashes in a countdown deals the round with
  it, and a resumed one lists the commitments acknowledged before the crash; ``verify`` finds
  a countdown that leaves out one acknowledged since the last ``resumed`` record);
* ``round`` ``{round, setup, commit?, commits?, words?, nonces?, seeded?, hash?}`` — a round
  was dealt: from the seed when ``seeded`` is true or there is no ``commit``, otherwise from
  the host secret the ``round_end`` record reveals and the players' ``nonces`` ([[seat, hex],
  …]); ``hash`` the deal's fingerprint published at Go (PROTOCOL.md §22.4);
* ``move`` ``{seq, round, seat, move, at, ts?}`` — a committed move (seat -1: the table), ``at``
  its arrival on the arbiter's clock, ``ts`` the time its client claimed, as sent;
* ``refused`` ``{round, seat, move, at, ts, code, rule?, by?, ms?, top?}`` — a move refused in
  play (``illegal``, ``beaten``, ``bad_move``); a race lost (RD-11) names the winner ``by``
  and, when it was a race in time, ``ms`` earlier and the stack's ``top`` card before;
* ``round_end`` ``{round, result, secret?}`` and ``match_end`` ``{result}``;
* ``resumed`` ``{port, pub_port, torn, at?}`` — an arbiter took the match up again from here.
* ``dispute`` ``{seat, round, reason}`` — a seat's client found a round's deal not the one
  committed to (PROTOCOL.md §22); ``verify`` re-derives the deal itself either way;
* ``check`` ``{seat, round, word, reason?}`` — a seat's check of a finished round, published:
  one of the two words its commitment promised (§22.6).
* ``pause`` ``{by, at}`` and ``resume`` ``{by, at, paused}`` — the host (``by`` -1) or the
  captain stopped every clock of the table, and started them again ``paused`` seconds later
  (PROTOCOL.md §24); no move is committed between them, and RD-13's minute does not count
  the pause; ``remove`` ``{seat, by, at}`` — the seat was given up for good: its token no
  longer takes it back (a resumed host keeps it removed, and a pause paused); with ``bot``
  (a level) and ``name`` the seat was handed to a bot instead, renamed ``name``: its new
  token is kept in the secrets file by the ordinal of the records that give tokens (``seat``
  records and these), the person's old one no longer takes it back.

No record holds a secret but the face-down Gin Solitaire discards (in their move records): the
session tokens, the room code, the key pair and the round in progress's host secret are in the
secrets file beside the journal, ``<journal>.secret`` (0600).

Journals written before the ``host`` record existed begin with ``match``; they replay as before
but cannot be resumed (they hold no seats); version 1 journals (unchained, dealt with CPython's
``random``) replay too, marked unchained, but are not resumed. Replaying a journal — the match
as its records tell it — is :mod:`lan_demon.net.replay`.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import msgpack

from lan_demon.games import GameError
from lan_demon.net.security import is_public_key

VERSION = 3
GENESIS = "0" * 64  # the ``prev`` of a journal's first record


class JournalError(GameError):
    """A journal that cannot be read or does not replay. ``number`` and ``kind``: the record
    it is about, when it is about one; ``words``: the problem without the journal's name."""

    def __init__(self, message: str, number: int | None = None, kind: str | None = None,
                 words: str | None = None):
        super().__init__(message)
        self.number, self.kind, self.words = number, kind, words or message


def record_hash(raw: bytes) -> str:
    """What the next record's ``prev`` holds: the SHA-256 of a record's exact bytes, in hex."""
    return hashlib.sha256(raw).hexdigest()


# --- the secrets file beside the journal (its format: lan_demon.net.secrets_file.HostSecrets) ------

SECRET_SUFFIX = ".secret"
PLAIN_SECRETS = {"v": 1, "code": None, "public": None, "secret": None, "name": None,
                 "lan": False, "tokens": [], "round_secret": None}


def secret_path(journal: str | Path) -> Path:
    """Where a journal's secrets are kept: beside it, ``<journal>.secret``."""
    return Path(str(journal) + SECRET_SUFFIX)


def write_private(path: Path, data: bytes) -> None:
    """Replace ``path`` by ``data``, readable by its owner only (0600) from its first byte on:
    written to a new file made with that mode, flushed to disk, then renamed over the old one,
    so a crash leaves the old file or the new one, never half of either."""
    temporary = path.with_name(path.name + ".new")
    try:
        if temporary.exists():
            temporary.unlink()
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.fchmod(fd, 0o600)  # whatever the umask
            os.write(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temporary, path)
    except OSError as err:
        raise JournalError(f"cannot write the secrets file {str(path)!r}: {err.strerror}") \
            from None


def _secrets_data(journal: Path) -> dict[str, Any]:
    """The secrets file's fields as they stand (a plain table's when there is none yet)."""
    try:
        data = json.loads(secret_path(journal).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return dict(PLAIN_SECRETS)
    except (OSError, ValueError) as err:
        raise JournalError(f"cannot read the secrets file {str(secret_path(journal))!r}: "
                           f"{getattr(err, 'strerror', None) or err}") from None
    if not isinstance(data, dict):
        raise JournalError(f"{secret_path(journal)}: not a lan-demon secrets file")
    return {**PLAIN_SECRETS, **data}


class JournalWriter:
    """Appends records to a file (0600), flushing each so a crash loses at most the one being
    written, and chains each to the one before (``prev``). Keeps the secrets file beside it up
    to date: the seats' session tokens and the round in progress's host secret.

    ``keep``: cut the file to this many bytes first — a resumed arbiter drops a torn last record
    so that what it appends follows (and is chained to) the last whole one. A new (empty)
    journal starts its secrets file afresh: no tokens, no round secret (the code and keys a host
    wrote there just before are kept)."""

    def __init__(self, path: str | Path, keep: int | None = None):
        self.path = Path(path)
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o600)
            os.fchmod(fd, 0o600)  # whatever the umask, and an older journal's mode too
            if keep is not None:
                os.truncate(fd, keep)
            self._file: BinaryIO = os.fdopen(fd, "ab+")
            self._file.seek(0)
            old = self._file.read()
        except OSError as err:
            raise JournalError(f"cannot write the journal {str(path)!r}: {err.strerror}") \
                from None
        self._packer = msgpack.Packer(use_bin_type=True)
        self.prev, self.seat_records = GENESIS, 0
        for raw, record in _raw_records(old):
            self.prev = record_hash(raw)
            self.seat_records += holds_token(record)
        self._secrets = _secrets_data(self.path)
        if not old:
            self._secrets.update(tokens=[], round_secret=None)
            self._keep()

    def write(self, record: dict[str, Any]) -> None:
        raw = self._packer.pack({**record, "prev": self.prev})
        self._file.write(raw)
        self._file.flush()
        self.prev = record_hash(raw)
        if holds_token(record):
            self.seat_records += 1

    def keep_token(self, token: str) -> None:
        """The session token of the ``seat`` record (or a handover's ``remove``:
        :func:`holds_token`) about to be written, kept in the secrets file (by that record's
        ordinal) *before* the record: a seat in the journal always has its token there, and a
        resumed arbiter gives it back to the same seat."""
        tokens = list(self._secrets.get("tokens") or [])
        tokens += [None] * (self.seat_records + 1 - len(tokens))
        tokens[self.seat_records] = token
        self._secrets["tokens"] = tokens
        self._keep()

    def keep_round_secret(self, round_no: int, secret_hex: str) -> None:
        """The host secret of the round about to be dealt (from its countdown until its end
        reveals it in the journal): a resumed arbiter deals the round in progress again from
        it and the nonces in its ``round`` record."""
        self._secrets["round_secret"] = {"round": round_no, "secret": secret_hex}
        self._keep()

    def _keep(self) -> None:
        write_private(secret_path(self.path),
                      json.dumps(self._secrets, indent=1).encode("utf-8"))

    def close(self) -> None:
        self._file.close()


def _raw_records(data: bytes) -> list[tuple[bytes, Any]]:
    """Each whole record's exact bytes and value (a torn or garbled tail is left out)."""
    unpacker = msgpack.Unpacker(raw=False, strict_map_key=True)
    unpacker.feed(data)
    found, start = [], 0
    try:
        for record in unpacker:
            end = unpacker.tell()
            found.append((data[start:end], record))
            start = end
    except (msgpack.ExtraData, msgpack.FormatError, msgpack.StackError, ValueError):
        pass
    return found


@dataclass
class JournalRead:
    records: list[dict[str, Any]]
    torn: bool = False  # the last record was cut off mid-write and was left out
    size: int = 0  # bytes of the whole records (where a torn one begins)
    version: int = VERSION  # 1: written before records were chained
    chained: int = 0  # how many records carry a ``prev`` that was checked

    @property
    def unchained(self) -> bool:
        return self.version < 2


FIRST = ("host", "match")  # the kinds a journal may begin with (match: older journals)


def read_journal(path: str | Path) -> JournalRead:
    """Every whole record of a journal, its chain checked; a torn last record is left out and
    flagged. An edit, or records removed or inserted anywhere but at the end, breaks the chain
    and is refused, naming the first record that does not follow the one before it."""
    try:
        data = Path(path).read_bytes()
    except OSError as err:
        raise JournalError(f"cannot read the journal {str(path)!r}: {err.strerror}") from None
    unpacker = msgpack.Unpacker(raw=False, strict_map_key=True)
    unpacker.feed(data)
    records: list[dict[str, Any]] = []
    hashes: list[str] = []
    size = 0  # where the last whole record ends (tell() after a partial one is past it)
    try:
        for record in unpacker:
            if not isinstance(record, dict) or "j" not in record:
                raise JournalError(f"{path}: record {len(records) + 1} is not a journal record",
                                   len(records) + 1, None, "it is not a journal record")
            records.append(record)
            end = unpacker.tell()
            hashes.append(record_hash(data[size:end]))
            size = end
    except (msgpack.ExtraData, msgpack.FormatError, msgpack.StackError, ValueError) as err:
        if isinstance(err, JournalError):
            raise
        raise JournalError(f"{path}: not a lan_demon journal ({type(err).__name__})") from None
    if not records or records[0].get("j") not in FIRST:
        raise JournalError(f"{path}: not a lan_demon journal (no host or match record first)")
    head = records[0]
    version = head.get("v", 1) if head["j"] == "host" else 1
    if not isinstance(version, int) or isinstance(version, bool) or version > VERSION:
        raise JournalError(f"{path}: a journal of version {version!r}, which this lan-demon "
                           f"does not know (it reads versions 1 to {VERSION})", 1, head["j"])
    chained = 0
    for number, record in enumerate(records, 1):
        if version >= 2:
            _check_link(record, number, hashes[number - 2] if number > 1 else GENESIS,
                        records[number - 2] if number > 1 else None, path)
            chained += 1
        elif "prev" in record:
            _fail(path, number, record, "the journal says it is version 1 (unchained), but its "
                  "records are chained: its host record was edited")
        check(record, number, path, version)
    return JournalRead(records, size < len(data), size, version, chained)


def _fail(path: Any, number: int, record: dict[str, Any], words: str) -> None:
    raise JournalError(f"{path}: record {number} ({record.get('j')}): {words}", number,
                       record.get("j"), words)


def _check_link(record: dict[str, Any], number: int, expected: str,
                before: dict[str, Any] | None, path: Any) -> None:
    prev = record.get("prev")
    if prev == expected:
        return
    if not isinstance(prev, str):
        _fail(path, number, record, "it has no prev field: a version 2 journal chains every "
              "record")
    if before is None:
        _fail(path, number, record, "the first record's prev is not 64 zeros: records were "
              "removed before it")
    _fail(path, number, record, f"the chain is broken: its prev is not the hash of record "
          f"{number - 1} ({before.get('j')}) — record {number - 1} was edited, or records were "
          f"removed or inserted between them")


_CONFIG = (dict,)
_INT = (int,)

#: The fields each record must have, with their types.
_FIELDS: dict[str, dict[str, tuple[type, ...]]] = {
    "host": {"config": _CONFIG, "port": _INT, "pub_port": _INT},
    "seat": {"seat": _INT, "name": (str,), "bot": (bool,)},
    "leave": {"seat": _INT},
    "ready": {"seat": _INT},
    "seq": {"upto": _INT},
    "match": {"game": (str,), "seed": (int, str, type(None)), "players": (list,),
              "options": (dict, type(None)), "rounds": (int, type(None))},
    "countdown": {"round": _INT},
    "commit": {"seat": _INT, "round": _INT, "hash": (str,)},
    "reveal": {"seat": _INT, "round": _INT, "nonce": (str,)},
    "round": {"round": _INT},
    "move": {"round": _INT, "seat": _INT, "move": (dict,)},
    "refused": {"round": _INT, "seat": _INT, "move": (dict,), "code": (str,)},
    "round_end": {"round": _INT, "result": (dict,)},
    "match_end": {"result": (dict,)},
    "resumed": {"port": _INT, "pub_port": _INT},
    "dispute": {"seat": _INT, "round": _INT, "reason": (str,)},  # a client's failed check
    "check": {"seat": _INT, "round": _INT},  # a seat's check, published: word or lost
    "pause": {"by": _INT, "at": (int, float)},  # §24: the host (-1) or the captain paused
    "resume": {"by": _INT, "at": (int, float), "paused": (int, float)},
    "remove": {"seat": _INT, "by": _INT, "at": (int, float)},
}

#: Fields a record may leave out (journals of plain tables, older journals), with their types
#: when present. A ``key`` must be a z85 CURVE public key.
_TIME = (int, float)
_OPTIONAL: dict[str, dict[str, tuple[type, ...]]] = {
    "host": {"coded": (bool,), "key": (str,)},
    "seat": {"key": (str,), "token": (str,)},  # token: version 1 only
    "leave": {"away": (bool,)},  # a leave during the match: the seat is kept, away
    "countdown": {"commit": (str,), "commits": (list,), "seeded": (bool,), "words": (list,)},
    "round": {"commit": (str,), "commits": (list,), "nonces": (list,), "seeded": (bool,),
              "at": _TIME, "hash": (str,), "words": (list,)},
    "commit": {"ok": (str,), "fail": (str,)},
    "check": {"word": (str,), "reason": (str,), "lost": (bool,)},
    "move": {"at": _TIME, "ts": _TIME},
    "refused": {"at": _TIME, "ts": _TIME, "rule": (str,), "by": _INT, "ms": _INT,
                "top": (str,)},
    "round_end": {"secret": (str,)},
    "resumed": {"at": _TIME},
    "remove": {"bot": _INT, "name": (str,)},  # §24: handed to a bot of that level, so named
}


def holds_token(record: Any) -> bool:
    """Whether a record gives a seat a session token, kept in the secrets file by the
    ordinal of such records (:meth:`JournalWriter.keep_token`): a ``seat``, and a ``remove``
    that handed the seat to a bot (its new token)."""
    return isinstance(record, dict) and (record.get("j") == "seat" or (
        record.get("j") == "remove" and "bot" in record))


def check(record: dict[str, Any], number: int, path: Any, version: int = VERSION) -> None:
    """Refuse a record of an unknown kind or with a field missing or of the wrong type."""
    kind = record["j"]
    fields = _FIELDS.get(kind)
    if fields is None:
        _fail(path, number, record, f"an unknown kind {kind!r}")
    for name, types in fields.items():
        value = record.get(name)
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
            _fail(path, number, record, f"a bad or missing field {name!r} (the record was "
                  "damaged or edited)")
    for name, types in _OPTIONAL.get(kind, {}).items():
        value = record.get(name)
        if value is None:
            continue
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in types) \
                or (name == "key" and not is_public_key(value)):
            _fail(path, number, record, f"a bad field {name!r}")
    if kind == "match" and not all(isinstance(p, str) for p in record["players"]):
        _fail(path, number, record, "the match record's players are not names")
    if version >= 2 and kind == "seat" and "token" in record:
        _fail(path, number, record, "a seat record holds a session token, which a version 2 "
              "journal never does (tokens stay in the secrets file): it was edited")
    if version < 2 and kind == "seat" and not isinstance(record.get("token"), str):
        _fail(path, number, record, "a bad or missing field 'token'")
    if kind in ("round", "countdown"):
        for name in ("commits", "nonces"):
            if name in record and not _pairs(record[name]):
                _fail(path, number, record, f"its {name} are not [seat, hex] pairs")


def _pairs(value: Any) -> bool:
    """A list of [seat, hex] pairs, as the ``round`` record's commits and nonces are."""
    try:
        return all(isinstance(p, list) and len(p) == 2 and isinstance(p[0], int)
                   and isinstance(p[1], str) and bytes.fromhex(p[1]) is not None
                   for p in value)
    except ValueError:
        return False
