"""How a journal's records stand in its file, and what tells a torn last record from damage.

Every record is one msgpack map, written back to back with the others (:mod:`lan_demon.net
.journal`). Since version 2 each one's last key but one is ``prev`` (the chain); since version 4
its **last** key is ``crc``, a 4-byte bin holding the CRC-32 (big-endian) of every byte of the
record before those four. So every record of a version 4 journal ends with the same 6 bytes,
:data:`CRC_END`, and 4 bytes that check the record by itself — the last one too, which no later
``prev`` covers. (Versions 2 and 3 end every record with :data:`PREV_END` and 64 hex digits.)

A record's end being recognisable is what tells a **torn** tail — a record cut off mid-write,
which a resumed arbiter may leave out (keeping the whole file beside it first) — from
**damage** — a bit flipped on the disk, an edit — which nothing may leave out:
:func:`frame` takes as torn only bytes after the last whole record that are a proper prefix of
one record: the decoder runs out of data in them, they hold no record's end, and they do not
end in one with at most two bits changed (a record cut short lacks at least its last byte, so
its last bytes never stand where a record's end stands). Anything else is
:class:`JournalDamage`, naming the record. A single flipped bit in any record of a version 4
journal is always found; in versions 2 and 3, all but one in a last record that still decodes
(nothing checks it).

The writer packs a record once, with 4 zero bytes for its checksum, and puts the CRC-32 in
their place (:func:`sealed`): one CRC of ~150 bytes per move, a fraction of a microsecond.
"""

from __future__ import annotations

import re
import struct
import zlib
from dataclasses import dataclass
from typing import Any

import msgpack

from lan_demon.net.journal_records import KINDS, JournalError

CHECKSUMS = 4  # the first journal version whose records end with their checksum (``crc``)
#: How every record of a version 4 journal ends, before the 4 bytes of its CRC-32: the key
#: ``crc`` (a 3-letter str) and the head of a 4-byte bin.
CRC_END = b"\xa3crc\xc4\x04"
#: How every record of a version 2 or 3 journal ends, before its 64 hex digits: the key
#: ``prev`` and the head of a 64-byte str.
PREV_END = b"\xa4prev\xd9\x40"
_BLANK = b"\0\0\0\0"
_CRC = struct.Struct(">I")
_ENDS = {True: (CRC_END, 4, re.compile(re.escape(CRC_END) + b".{4}", re.S)),
         False: (PREV_END, 64, re.compile(re.escape(PREV_END) + b"[0-9a-f]{64}"))}
_PARSE_ERRORS = (msgpack.ExtraData, msgpack.FormatError, msgpack.StackError, ValueError)


class JournalDamage(JournalError):
    """A record whose bytes are not the ones written — a bit flipped on the disk, an edit, a
    record that does not parse where a whole one stands: never taken for a torn last record,
    never cut off. ``verify`` and ``host --resume`` say it in the same words."""

    def __init__(self, path: Any, number: int, kind: str | None, why: str):
        what = f"record {number} ({kind})" if kind else f"record {number}"
        words = f"it is damaged ({why}): the journal was changed on disk after it was written"
        super().__init__(f"{path}: {what} is damaged ({why}): the journal was changed on disk "
                         f"after it was written", number, kind, words)


def checksummed(record: Any) -> bool:
    """Whether a journal that begins with ``record`` ends every record with its checksum: a
    ``host`` record of version 4 or later."""
    version = record.get("v") if isinstance(record, dict) and record.get("j") == "host" \
        else None
    return isinstance(version, int) and not isinstance(version, bool) and \
        version >= CHECKSUMS


def sealed(packer: msgpack.Packer, record: dict[str, Any], prev: str,
           checksums: bool) -> bytes:
    """A record's bytes as they go in the file: chained to the one before (``prev``) and, in
    a version 4 journal, ended by its checksum — packed once with a blank ``crc``, whose 4
    bytes are then the CRC-32 of everything before them. (A record read back from a journal
    is sealed anew: its old ``prev`` and ``crc`` go, so that they stand last again.)"""
    if "crc" in record or "prev" in record:
        record = {k: v for k, v in record.items() if k not in ("prev", "crc")}
    if not checksums:
        return packer.pack({**record, "prev": prev})
    head = packer.pack({**record, "prev": prev, "crc": _BLANK})[:-4]
    return head + _CRC.pack(zlib.crc32(head))


@dataclass
class Framed:
    """The whole records of a journal's bytes, each checked as its writer ended it."""

    spans: list[tuple[int, int, dict[str, Any]]]  # (start, end, record), in order
    checksums: bool  # every record ends with its checksum, which was checked (version 4)
    size: int  # bytes of the whole records
    torn: bool  # the bytes after them are a record cut off mid-write


def frame(path: Any, data: bytes) -> Framed:
    """Each whole record of a journal's bytes, checked: it is a map with a kind (``j``) and,
    from version 2 on, it ends as its writer ended it (version 4: its checksum matches). The
    bytes after the last one may be a torn record (:attr:`Framed.torn`); anything else is
    :class:`JournalDamage` (see the module's notes). The first problem, in the file's order,
    is the one raised."""
    spans, stopped = _spans(data)
    head = spans[0][2] if spans else None
    version = head.get("v", 1) if isinstance(head, dict) and head.get("j") == "host" else 1
    checksums = bool(spans) and (data[spans[0][1] - 10:spans[0][1] - 4] == CRC_END
                                 or checksummed(head))
    ends = checksums or (isinstance(version, int) and version >= 2)  # records end alike
    view = memoryview(data)
    for number, (start, end, record) in enumerate(spans, 1):
        if ends:
            _check_end(path, number, view[start:end], record, checksums)
        if not isinstance(record, dict) or "j" not in record:
            raise JournalError(f"{path}: record {number} is not a journal record",
                               number, None, "it is not a journal record")
    size = spans[-1][1] if spans else 0
    if stopped or (size < len(data) and ends and not _torn(data[size:], checksums)):
        if not spans and CRC_END not in data and PREV_END not in data:
            raise JournalError(f"{path}: not a lan_demon journal (it does not parse)", 1, None,
                               "not a lan_demon journal: it does not parse")
        raise JournalDamage(path, len(spans) + 1, _kind_at(data, size),
                            "it does not parse" if stopped else
                            "it does not parse, and it is not a record cut off mid-write")
    return Framed(spans, checksums, size, size < len(data))


def _spans(data: bytes) -> tuple[list[tuple[int, int, Any]], bool]:
    """(start, end, value) of each whole msgpack value, and whether the decoder stopped at
    bytes that do not parse (rather than running out of data, or at the end)."""
    unpacker = msgpack.Unpacker(raw=False, strict_map_key=True)
    unpacker.feed(data)
    spans: list[tuple[int, int, Any]] = []
    start = 0
    try:
        for value in unpacker:
            end = unpacker.tell()
            spans.append((start, end, value))
            start = end
    except _PARSE_ERRORS:
        return spans, True
    return spans, False


def _check_end(path: Any, number: int, raw: memoryview, record: Any,
               checksums: bool) -> None:
    """A whole record ends as its writer ends every one: with its checksum, which matches
    (version 4), or with its ``prev`` (versions 2 and 3)."""
    marker, width, _ = _ENDS[checksums]
    if raw[-len(marker) - width:-width] != marker:
        why = "it does not end with its checksum" if checksums else \
            "it does not end with its prev field"
    elif checksums and zlib.crc32(raw[:-4]) != _CRC.unpack(raw[-4:])[0]:
        why = "its checksum does not match"
    else:
        return
    kind = record.get("j") if isinstance(record, dict) else None
    raise JournalDamage(path, number, kind if kind in KINDS else None, why)


def _torn(tail: bytes, checksums: bool) -> bool:
    """Whether the bytes after the last whole record may be a record cut off mid-write: they
    hold no record's end, and do not end in one with at most two bits changed."""
    marker, width, whole = _ENDS[checksums]
    if whole.search(tail):
        return False
    last = tail[-len(marker) - width:-width]
    if len(last) == len(marker):
        changed = int.from_bytes(last, "big") ^ int.from_bytes(marker, "big")
        if changed.bit_count() <= 2:
            return False
    return True


def _kind_at(data: bytes, start: int) -> str | None:
    """The kind of the record that begins at ``start``, read from its first bytes (a map whose
    first key is ``j``), when they are intact enough to say it."""
    found = re.match(rb"[\x80-\x8f]\xa1j([\xa1-\xbf])", data[start:start + 4])
    if found is None:
        return None
    kind = data[start + 4:start + 4 + found.group(1)[0] - 0xa0].decode("ascii", "replace")
    return kind if kind in KINDS else None
