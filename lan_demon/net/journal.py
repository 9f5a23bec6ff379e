"""The match journal: every canonical event, appended as it is committed — enough to replay the
match, and enough for a restarted arbiter to take it up again (:mod:`lan_demon.net.recovery`).

A journal is a stream of msgpack maps, one per record, each handed to the operating system as it
is written, in a file readable by its owner only (0600). Since version 2 the records are
*chained*: each carries ``prev``, the SHA-256 (hex) of the exact bytes of the record before it
(the first: 64 zeros), so that an edit, or a cut at a record boundary anywhere but the end, is
found by whoever reads it (:func:`read_journal`; ``lan-demon verify`` checks the rest,
:mod:`lan_demon.net.audit`).
Since version 4 every record also ends with its own checksum, ``crc``, so that damage in any
record — the last one too — is found, and a torn last record (cut off mid-write, which a
resumed arbiter may leave out, after copying the whole file to ``<journal>.torn``) is told from
damage (which nothing may leave out): :mod:`lan_demon.net.journal_frames`. Versions 1 to 3 are
still read; a resumed journal goes on in the version its ``host`` record names. The
arbiter writes a record *before* it publishes the event the record describes (the outbox of a
step is sent only after the step has returned, and only once every record it made is on the
file: a step whose records the disk would not take waits with them, :mod:`lan_demon.net.stall`),
so nothing a client has seen is missing from the journal. Written records are in the operating
system's hands: they survive the arbiter process being killed, but not a power cut (the file is
not ``fsync``-ed, which would cost a disk round trip per move).

The records, by kind, and the fields each must have: :mod:`lan_demon.net.journal_records`.

No record holds a secret but the face-down Gin Solitaire discards (in their move records): the
session tokens, the room code, the key pair and the round in progress's host secret are in the
secrets file beside the journal, ``<journal>.secret`` (0600).

Journals written before the ``host`` record existed begin with ``match``; they replay as before
but cannot be resumed (they hold no seats); version 1 journals (unchained, dealt with CPython's
``random``) replay too, marked unchained, but are not resumed. Replaying a journal — the match
as its records tell it — is :mod:`lan_demon.net.replay`.
"""

from __future__ import annotations

import errno
import hashlib
import itertools
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgpack

from lan_demon.net.journal_frames import CHECKSUMS, checksummed, frame, sealed
from lan_demon.net.journal_records import JournalError, check, fail, holds_token

VERSION = 4
GENESIS = "0" * 64  # the ``prev`` of a journal's first record


def record_hash(raw: bytes) -> str:
    """What the next record's ``prev`` holds: the SHA-256 of a record's exact bytes, in hex."""
    return hashlib.sha256(raw).hexdigest()


# --- the secrets file beside the journal (its format: lan_demon.net.secrets_file.HostSecrets) --

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
    try:
        _write_private(path, data)
    except OSError as err:
        raise JournalError(f"cannot write the secrets file {str(path)!r}: {err.strerror}") \
            from None


def _write_private(path: Path, data: bytes) -> None:
    """:func:`write_private`, raising the OSError (a journal keeps what failed to retry it)."""
    temporary = path.with_name(path.name + ".new")
    try:
        if temporary.exists():
            temporary.unlink()
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.fchmod(fd, 0o600)  # whatever the umask
            _write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temporary, path)
    except OSError:
        try:
            temporary.unlink()
        except OSError:
            pass
        raise


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


TORN_SUFFIX = ".torn"


def keep_whole(journal: Path, data: bytes) -> Path:
    """The whole journal, ``data``, copied beside it before a resume cuts its torn last record
    off: ``<journal>.torn`` (``.torn-2``… beside an earlier resume's copy: none is written
    over), 0600, flushed to disk before anything is cut. A copy the disk cannot take whole is
    removed again and refused in one line: nothing was changed."""
    for number in itertools.count(1):
        copy = Path(f"{journal}{TORN_SUFFIX}{'' if number == 1 else f'-{number}'}")
        try:
            fd = os.open(copy, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            break
        except FileExistsError:
            continue
        except OSError as err:
            raise _uncopied(journal, copy, err) from None
    try:
        try:
            os.fchmod(fd, 0o600)
            _write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError as err:
        copy.unlink(missing_ok=True)
        raise _uncopied(journal, copy, err) from None
    return copy


def _uncopied(journal: Path, copy: Path, err: OSError) -> JournalError:
    return JournalError(f"cannot resume {str(journal)!r}: its last record was cut off "
                        f"mid-write, and the whole journal must be copied to {str(copy)!r} "
                        f"before it is left out, which failed ({err.strerror}); nothing was "
                        f"changed")


class JournalWriter:
    """Appends records to a file (0600), each with one ``write`` of its own so a crash loses at
    most the one being written, and chains each to the one before (``prev``). Keeps the secrets
    file beside it up to date: the seats' session tokens and the round in progress's host
    secret.

    ``keep``: cut the file to this many bytes first — a resumed arbiter drops a torn last record
    so that what it appends follows (and is chained to) the last whole one — after copying the
    whole file beside it (:func:`keep_whole`, :attr:`torn_copy`); :meth:`put_back` undoes the
    cut for a resume that does not go on. A journal goes on in the version its ``host`` record
    names (from version 4 each record ends with its checksum). A new (empty)
    journal starts its secrets file afresh: no tokens, no round secret (the code and keys a host
    wrote there just before are kept).

    **A write that fails** (a full disk, a read-only or failing one) loses nothing and tears
    nothing: what was written of the record is cut off again (the file ends with the last whole
    record), and the record — and every one after it, and any secrets-file update, in order —
    waits in :attr:`pending` until :meth:`retry` writes them all. :attr:`failed` says why
    meanwhile. The arbiter sends nothing that a pending record describes until it is written
    (PROTOCOL.md §25, :mod:`lan_demon.net.stall`): no client ever sees what a resume would not
    bring back."""

    def __init__(self, path: str | Path, keep: int | None = None):
        self.path = Path(path)
        self.torn_copy: Path | None = None  # the whole journal, kept before its tail was cut
        self._torn = b""  # the torn tail cut off at open (put_back writes it again)
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o600)
        except OSError as err:
            raise JournalError(f"cannot write the journal {str(path)!r}: {err.strerror}") \
                from None
        try:
            os.fchmod(fd, 0o600)  # whatever the umask, and an older journal's mode too
            with os.fdopen(os.dup(fd), "rb") as file:
                old = file.read()
            if keep is not None and keep < len(old):
                self.torn_copy = keep_whole(self.path, old)
                os.ftruncate(fd, keep)
                old, self._torn = old[:keep], old[keep:]
        except (OSError, JournalError) as err:
            os.close(fd)
            if isinstance(err, JournalError):
                raise
            if self.torn_copy is not None:
                self.torn_copy.unlink(missing_ok=True)
            raise JournalError(f"cannot write the journal {str(path)!r}: {err.strerror}") \
                from None
        self._fd: int | None = fd
        self.size = len(old)  # bytes of whole records: where the next one begins
        self._packer = msgpack.Packer(use_bin_type=True)
        self.prev, self.seat_records = GENESIS, 0
        records = _raw_records(old)
        #: records end with their checksum (version 4); None: a new journal, whose host
        #: record says (:meth:`_pack`)
        self.checksums = checksummed(records[0][1]) if records else None
        for raw, record in records:
            self.prev = record_hash(raw)
            self.seat_records += holds_token(record)
        #: what could not be written yet, in order: ("record", bytes) or ("secrets", bytes)
        self.pending: list[tuple[str, bytes]] = []
        self.failed: OSError | None = None  # why the last write failed, until one works
        self._secrets = _secrets_data(self.path)
        if not old:
            self._secrets.update(tokens=[], round_secret=None)
            self._keep()
            if self.pending:  # a new journal whose secrets cannot be written: say so now
                self.close()
                raise JournalError(f"cannot write the secrets file "
                                   f"{str(secret_path(self.path))!r}: {self.failed.strerror}")

    def _pack(self, record: dict[str, Any]) -> bytes:
        """A record's bytes, chained (and from version 4 on ended by its checksum)."""
        if self.checksums is None:  # the journal's first record says its version
            self.checksums = checksummed(record)
        return sealed(self._packer, record, self.prev, self.checksums)

    def write(self, record: dict[str, Any]) -> None:
        raw = self._pack(record)
        self.prev = record_hash(raw)
        if holds_token(record):
            self.seat_records += 1
        if self.pending:  # (after those before it, in order)
            self.pending.append(("record", raw))
            return
        try:
            self._append(raw)
        except OSError as err:
            self._fail(err, ("record", raw))

    def write_now(self, record: dict[str, Any]) -> None:
        """Write ``record`` or raise :class:`JournalError` with nothing of it left in the
        file: for a step that must not go on unless it is on disk (a resume's ``resumed``
        record: ``--resume`` refuses, and changes nothing, on a disk that cannot take it)."""
        if self.pending:
            raise JournalError(f"cannot write the journal {str(self.path)!r}: "
                               f"{self.failed.strerror if self.failed else 'records wait'}")
        raw = self._pack(record)
        try:
            self._append(raw)
        except OSError as err:
            self._cut()
            raise JournalError(f"cannot write the journal {str(self.path)!r}: "
                               f"{err.strerror}") from None
        self.prev = record_hash(raw)
        if holds_token(record):
            self.seat_records += 1

    def put_back(self) -> bool:
        """Undo the cut of a torn tail made at open, for a resume that does not go on (nothing
        written since): the tail written again after the whole records, its copy removed.
        False when it cannot be written again: the journal keeps its whole records, the copy
        (:attr:`torn_copy`) the whole file. The writer is closed after it."""
        if not self._torn:
            return True
        try:
            _write_all(self._fd, self._torn)
        except OSError:
            self._cut()
            return False
        self._torn = b""
        if self.torn_copy is not None:
            self.torn_copy.unlink(missing_ok=True)
            self.torn_copy = None
        return True

    def _append(self, raw: bytes) -> None:
        """One record at the end of the file, whole, or an OSError (what was written of it is
        cut off by the next :meth:`retry` or :meth:`_cut`)."""
        _write_all(self._fd, raw)
        self.size += len(raw)

    def _cut(self) -> None:
        """The file back to its whole records (a write that failed may have left part of one)."""
        try:
            os.ftruncate(self._fd, self.size)
        except OSError:
            pass  # (retry cuts again before it writes)

    def _fail(self, err: OSError, what: tuple[str, bytes]) -> None:
        self.failed = err
        self.pending.append(what)
        self._cut()

    @property
    def why(self) -> str | None:
        """Why records wait, as the protocol says it (§25): ``disk_full``, ``read_only`` or
        ``io_error``; None when nothing waits."""
        if not self.pending:
            return None
        number = getattr(self.failed, "errno", None)
        if number in (errno.ENOSPC, errno.EDQUOT):
            return "disk_full"
        if number in (errno.EROFS, errno.EACCES, errno.EPERM):
            return "read_only"
        return "io_error"

    def retry(self) -> bool:
        """Write what waits, in order; True once nothing waits. A write that fails again
        leaves the rest waiting (and the file ending with its last whole record)."""
        try:
            if self.pending:
                os.ftruncate(self._fd, self.size)
            while self.pending:
                kind, data = self.pending[0]
                if kind == "record":
                    self._append(data)
                else:
                    _write_private(secret_path(self.path), data)
                self.pending.pop(0)
        except OSError as err:
            self.failed = err
            self._cut()
            return False
        self.failed = None
        return True

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
        data = json.dumps(self._secrets, indent=1).encode("utf-8")
        if self.pending:  # (after the records before it: a token before its seat record)
            self.pending.append(("secrets", data))
            return
        try:
            _write_private(secret_path(self.path), data)
        except OSError as err:
            self._fail(err, ("secrets", data))

    def close(self) -> None:
        """Close the file. Records still waiting are dropped: nobody was shown them."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def _write_all(fd: int, data: bytes) -> None:
    """``data`` written to ``fd`` whole, or an OSError (a short write is carried on)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


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
    checksums: bool = False  # every record ended with its checksum, which was checked (v4)

    @property
    def unchained(self) -> bool:
        return self.version < 2


FIRST = ("host", "match")  # the kinds a journal may begin with (match: older journals)


def read_journal(path: str | Path) -> JournalRead:
    """Every whole record of a journal, each checked as it was written, its chain checked; a
    torn last record is left out and flagged. Only a record cut off mid-write is torn; damage
    anywhere — a record whose checksum does not match, bytes that do not parse where a record
    stands, a last record that is whole and garbled — is a
    :class:`~lan_demon.net.journal_frames.JournalDamage` naming the record
    (:func:`~lan_demon.net.journal_frames.frame`). An edit, or records removed or inserted
    anywhere but at the end, breaks the chain and is refused, naming the first record that
    does not follow the one before it."""
    try:
        data = Path(path).read_bytes()
    except OSError as err:
        raise JournalError(f"cannot read the journal {str(path)!r}: {err.strerror}") from None
    framed = frame(path, data)
    records = [record for _, _, record in framed.spans]
    if not records or records[0].get("j") not in FIRST:
        raise JournalError(f"{path}: not a lan_demon journal (no host or match record first)")
    head = records[0]
    version = head.get("v", 1) if head["j"] == "host" else 1
    if not isinstance(version, int) or isinstance(version, bool) or version > VERSION:
        raise JournalError(f"{path}: a journal of version {version!r}, which this lan-demon "
                           f"does not know (it reads versions 1 to {VERSION})", 1, head["j"])
    if framed.checksums and version < CHECKSUMS:
        fail(path, 1, head, f"the journal says it is version {version}, but its records end "
             f"with checksums: its host record was edited")
    view, expected, chained = memoryview(data), GENESIS, 0
    for number, (start, end, record) in enumerate(framed.spans, 1):
        if version >= 2:
            _check_link(record, number, expected, records[number - 2] if number > 1 else None,
                        path)
            chained += 1
        elif "prev" in record:
            fail(path, number, record, "the journal says it is version 1 (unchained), but its "
                  "records are chained: its host record was edited")
        check(record, number, path, version)
        expected = record_hash(view[start:end])
    return JournalRead(records, framed.torn, framed.size, version, chained, framed.checksums)


def _check_link(record: dict[str, Any], number: int, expected: str,
                before: dict[str, Any] | None, path: Any) -> None:
    prev = record.get("prev")
    if prev == expected:
        return
    if not isinstance(prev, str):
        fail(path, number, record, "it has no prev field: a version 2 journal chains every "
              "record")
    if before is None:
        fail(path, number, record, "the first record's prev is not 64 zeros: records were "
              "removed before it")
    fail(path, number, record, f"the chain is broken: its prev is not the hash of record "
          f"{number - 1} ({before.get('j')}) — record {number - 1} was edited, or records were "
          f"removed or inserted between them")
