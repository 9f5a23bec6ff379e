"""The wire codec: protocol messages as msgpack maps, checked field by field on the way in.

This is ``protocol/PROTOCOL.md`` in code. Every message is one ZeroMQ frame holding one msgpack
map with the protocol version ``v`` and a type ``t``; the table :data:`SCHEMAS` lists each
type's fields. Anything that is not such a map — bytes that are not msgpack, a list, a missing
or mistyped field, an unknown type — is a :class:`ProtocolError` with an error code, so the
arbiter can answer it and go on serving.
"""

from __future__ import annotations

import math
import zlib
from itertools import chain, compress
from typing import Any

import msgpack

#: 2: commit and reveal (§22), the spec'd shuffle (§21), journal v2. 3: a committed move is
#: answered by its update alone (no ``ok``), and a frame from the arbiter may hold several
#: messages (a msgpack array of maps, §2) — a version 2 client would wait for the ``ok`` and
#: misread the array, so the number changed. 4: a move's private half is sealed in its update
#: (``s``, §23) for a seat whose welcome gave it a ``seal`` key, instead of a ``private`` frame —
#: a version 3 client would wait for a frame that never comes. 5: every client checks the
#: deal with teeth (§22.7) and each seat sends a ``check`` of every round it promised one for
#: — a version 4 client sends none, and every other client would say its verdict was hidden.
#: 6: the host runs the evening (§24): ``pause``, ``resume`` and ``remove`` from the captain,
#: updates ``pause``, ``resume`` and ``removed``, a seat's ``removed`` mark and the snapshot's
#: ``paused`` and ``kept`` — a version 5 client would go on moving at a paused table (every
#: move refused ``paused``, a code it does not know), count down to a Go that does not come,
#: and show a removed player as one who may come back. 7: a table whose journal cannot be
#: written stands still and says so (§25): the unnumbered ``stall`` message on the PUB, and
#: every request but ``ping`` refused ``stalled`` — a version 6 client would take a ``stall``
#: for a bad message and its silence for a lost host, reconnect, and be refused again.
VERSION = 7
#: Bytes a client's frame may hold; larger ones are refused ``too_big`` unread. A client's largest
#: legitimate message is a ``hello`` (a name of at most 24 characters, a 22-character token, a
#: room code): about 200 bytes. 2 KiB leaves ten times that for fields later revisions may add,
#: and bounds everything a hostile frame can make the arbiter build (see :data:`UNPACK_LIMITS`).
MAX_MESSAGE = 2 * 1024
MAX_DEPTH = 16  # how deep a client's maps and lists may nest (a move is 2 deep)
#: Maps and lists a message may hold, itself counted (a move: 2), in the fields it reads, which
#: alone are walked: 1,998 bytes hold 1,857 empty lists, 800 µs to walk (1,250 such frames a
#: second under the brake would take the arbiter to 93% of a core). guard.BYTES_PER_TOKEN weighs
#: the building.
MAX_CONTAINERS = 64
#: What msgpack's unpacker may build from a client's frame, checked from each header *before*
#: the object is built: a 60,000-element list is refused on reading its length, not after
#: 60,000 objects were made. No client message holds a list today and the longest map is a
#: ``hello`` (8 entries); the longest strings are a name and a dispute's reason, which a client
#: cuts to fit (:func:`fit_text`); ``bin`` and extension types are never used (PROTOCOL.md §2)
#: but are bounded like strings, so that a ``bin`` where a string belongs is still read and
#: refused by field, with its request id. Every object takes a byte at least, so a frame holds
#: at most 2,048 (:data:`MAX_DEPTH` and :data:`MAX_CONTAINERS` bound the fields read).
UNPACK_LIMITS = {"max_array_len": 64, "max_map_len": 32, "max_str_len": 256,
                 "max_bin_len": 256, "max_ext_len": 256}
#: Characters the arbiter keeps of a ``hello``'s name (trimmed first) and of a ``dispute``'s
#: reason; what a client sends of them must also fit the 256 bytes above (:func:`fit_text`).
NAME_CHARS = 24
DISPUTE_CHARS = 200
SMALL = 64  # bytes: msgpack's default limits for a frame this small are all within those

# Field kinds, as msgpack sees them.
INT, FLOAT, STR, BOOL, MAP, LIST, BIN, ANY = ("int", "float", "str", "bool", "map", "list",
                                              "bin", "any")
_PYTHON = {INT: (int,), FLOAT: (int, float), STR: (str,), BOOL: (bool,), MAP: (dict,),
           LIST: (list,), BIN: (bytes,), ANY: (object,)}

#: Who sends what: the fields of each message type, as {field: (kind, required)}. ``v`` and
#: ``t`` are on every message and not listed.
FROM_CLIENT: dict[str, dict[str, tuple[str, bool]]] = {  # over the DEALER, to the ROUTER
    "hello": {"id": (INT, True), "name": (STR, True), "role": (STR, True),
              "token": (STR, False), "bot": (BOOL, False), "code": (STR, False)},
    "ping": {"id": (INT, True), "c": (FLOAT, True)},
    "echo": {"a": (FLOAT, True)},
    "ready": {"id": (INT, True)},
    "start": {"id": (INT, True)},
    "move": {"id": (INT, True), "round": (INT, True), "move": (MAP, True), "ts": (FLOAT, True)},
    "snapshot": {"id": (INT, True)},
    "hb": {},
    "leave": {"id": (INT, True)},
    "commit": {"id": (INT, True), "round": (INT, True), "hash": (STR, True),
               "ok": (STR, True), "fail": (STR, True)},
    "reveal": {"id": (INT, True), "round": (INT, True), "nonce": (STR, True)},
    "dispute": {"id": (INT, True), "round": (INT, True), "reason": (STR, True)},
    "check": {"id": (INT, True), "round": (INT, True), "word": (STR, False),
              "reason": (STR, False), "lost": (BOOL, False)},
    "pause": {"id": (INT, True)},
    "resume": {"id": (INT, True)},
    "remove": {"id": (INT, True), "seat": (INT, True), "bot": (INT, False)},
}
TO_CLIENT: dict[str, dict[str, tuple[str, bool]]] = {  # over the ROUTER, to one client
    "welcome": {"re": (INT, True), "seat": (INT, False), "token": (STR, True),
                "pub": (STR, True), "game": (STR, True), "config": (MAP, True),
                "seal": (BIN, False), "name": (STR, False)},
    "pong": {"re": (INT, True), "c": (FLOAT, True), "a": (FLOAT, True)},
    "probe": {"a": (FLOAT, True)},
    "ok": {"re": (INT, True), "seq": (INT, False)},
    "error": {"re": (INT, False), "code": (STR, True), "reason": (STR, True),
              "rule": (STR, False), "by": (INT, False), "wait": (FLOAT, False),
              "stack": (INT, False), "top": (STR, False), "ms": (INT, False)},
    "snap": {"re": (INT, True), "seq": (INT, True), "table": (MAP, True),
             "state": (MAP, False)},
    "private": {"seq": (INT, True), "k": (STR, True), "state": (MAP, False),
                "events": (LIST, False), "move": (MAP, False)},
}
PUBLISHED: dict[str, dict[str, tuple[str, bool]]] = {  # over the PUB, to everyone
    "update": {"seq": (INT, True), "k": (STR, True), "s": (BIN, False)},
    "beat": {"seq": (INT, True), "a": (FLOAT, True), "hash": (STR, False)},
    "stall": {"on": (BOOL, True), "why": (STR, True), "stood": (FLOAT, True)},
}
SCHEMAS = {"client": FROM_CLIENT, "private": TO_CLIENT, "pub": PUBLISHED}
#: A client message's fields of maps or lists (a move's ``move``), the only ones walked (§2).
_NESTED = {kind: [name for name, (of, _) in schema.items() if of in (MAP, LIST, ANY)]
           for kind, schema in FROM_CLIENT.items()}

ERROR_CODES = {
    "malformed": "the message is not a msgpack map of the right shape",
    "version": "the message's protocol version is not one this arbiter speaks",
    "unknown_type": "the message type is not in the protocol",
    "too_big": "the message is larger than the arbiter accepts",
    "not_joined": "say hello first",
    "full": "every seat is taken",
    "bad_token": "the session token is unknown or has expired",
    "spectator": "spectators watch; they cannot move",
    "not_playing": "no round is in progress",
    "wrong_round": "the move names a round that is not the one in progress",
    "bad_move": "the move does not parse",
    "illegal": "the rules forbid the move now (see rule)",
    "beaten": "another player's card reached the place first (RD-11)",
    "not_host": "only the table's captain (its first person seated) may start the match, "
                "pause it or remove a seat (and the host, from its own terminal)",
    "duplicate": "this connection already sent a move with that id; it is never applied twice",
    "rate_limited": "too many messages from this connection; the rest were dropped unanswered",
    "internal": "the arbiter failed on this message (a bug, logged); the table goes on",
    "bad_code": "the room code is missing or wrong (a table started with a code)",
    "slow_down": "too many wrong room codes, or seats taken, from this address: wait the "
                 "error's 'wait' seconds",
    "wrong_key": "the seat belongs to another connection key (CURVE): a token is not enough",
    "too_late": "the commitments of that round's deal are already fixed (§22)",
    "bad_reveal": "the nonce or check word does not match the commitment sent, or none was "
                  "listed (§22)",
    "paused": "the table is paused: moves wait until it is resumed; or it is paused already "
              "(§24)",
    "not_paused": "the table is not paused, so there is nothing to resume (§24)",
    "bad_seat": "that seat cannot be removed: there is none by that number, it was removed "
                "already, or it is your own (§24)",
    "removed": "the host or the captain removed this seat from the table: its token no longer "
               "takes it back (§24)",
    "stalled": "the host's journal cannot be written (a full disk): the table stands still "
               "until it can, then goes on by itself; only a ping is answered meanwhile (§25)",
    "too_many": "this seat has sent as many of this request as the table takes (§2, Bounds): "
                "nothing changed; 'wait', when given, says in how many seconds it is taken",
}
REASON_LIMIT = 200  # characters of a refusal's reason: what a sender wrote is quoted, clipped


class ProtocolError(Exception):
    """A message that breaks the protocol; ``code`` is one of :data:`ERROR_CODES`."""

    def __init__(self, code: str, reason: str, re: int | None = None):
        assert code in ERROR_CODES, code
        self.code = code
        self.re = re  # the refused request's id, when it could be read (decode sets it)
        # A reason may quote what was sent; clipped, so a refusal is never a large frame.
        self.reason = reason if len(reason) <= REASON_LIMIT else reason[:REASON_LIMIT - 1] + "…"
        super().__init__(f"{code}: {self.reason}")


def encode(msg: dict[str, Any]) -> bytes:
    """Pack a message; ``v`` is added if missing. Keys keep their insertion order."""
    if "v" not in msg:
        msg = {"v": VERSION, **msg}
    return msgpack.packb(msg, use_bin_type=True)


def fit_text(text: str, chars: int) -> str:
    """``text`` as a client sends it in a field the arbiter keeps ``chars`` characters of (a
    name, a dispute's reason): those characters, fewer when their UTF-8 is over the 256 bytes
    the arbiter's unpacker reads — it refuses a longer string with the whole frame, unanswered
    by id (§2), so 200 "é" (400 bytes) would never arrive. Cut between characters, never inside
    one; a lone surrogate (a name from undecodable bytes) goes as "?"."""
    data = text[:chars].encode("utf-8", "replace")[:UNPACK_LIMITS["max_str_len"]]
    return data.decode("utf-8", "ignore")


def make(kind: str, **fields: Any) -> dict[str, Any]:
    """A message of type ``kind`` with ``v`` and ``t`` first; fields that are None are left out."""
    msg = {"v": VERSION, "t": kind}
    for key, value in fields.items():
        if value is not None:
            msg[key] = value
    return msg


def move_update(seq: int, round_no: int, seat: int, move: dict[str, Any], rid: int,
                events: list[dict[str, Any]], secret: bool) -> dict[str, Any]:
    """A committed move's ``update`` (§7): the map ``make("update", seq=seq, k="move",
    round=round_no, seat=seat, move=move, rid=rid, events=events, p=secret)`` makes, key for
    key, written out — every move at every table makes one, and none of its fields is None."""
    return {"v": VERSION, "t": "update", "seq": seq, "k": "move", "round": round_no,
            "seat": seat, "move": move, "rid": rid, "events": events, "p": secret}


def move_private(seq: int, events: list[dict[str, Any]],
                 move: dict[str, Any] | None = None) -> dict[str, Any]:
    """The mover's private half of a move in a frame of its own (§4.2): the map
    ``make("private", seq=seq, k="move", events=events, move=move)`` makes, written out."""
    msg = {"v": VERSION, "t": "private", "seq": seq, "k": "move", "events": events}
    if move is not None:
        msg["move"] = move
    return msg


def quote(value: Any, limit: int = 40) -> str:
    """``repr(value)``, clipped: a refusal names what it refuses without echoing it whole. A
    list or map is only described (its repr could be deep enough to exhaust the stack)."""
    if isinstance(value, (list, dict)):
        return f"<a {type(value).__name__} of {len(value)}>"
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 1] + "…"


_IS_DICT, _IS_LIST, _IS_CONTAINER = (frozenset(t).__contains__
                                     for t in ((dict,), (list,), (dict, list)))


def shape_refusal(value: Any, depth: int = MAX_DEPTH, most: int = MAX_CONTAINERS,
                  inside: int = 0) -> str | None:
    """Why ``value``'s maps and lists (in ``inside`` maps) are over ``most`` or ``depth`` deep,
    or None: walked a level at a time by C iterators, given up at the first level over either."""
    level, level_no, seen = [value], inside + 1, inside + 1
    while level:
        if level_no > depth:
            return f"maps and lists nest at most {depth} deep"
        if seen > most:
            return f"a message holds at most {most} maps and lists"
        types = list(map(type, level))
        items = list(chain(chain.from_iterable(compress(level, map(_IS_LIST, types))),
                           *map(dict.values, compress(level, map(_IS_DICT, types)))))
        level = list(compress(items, map(_IS_CONTAINER, map(type, items))))
        seen += len(level)
        level_no += 1
    return None


def request_id(frame: bytes) -> int | None:
    """The ``id`` of a frame that failed to decode, when it can still be read, so even the
    error about a bad request is matched to it. Only a positive id is echoed: ``re`` 0 and -1
    mean something else (PROTOCOL.md §3)."""
    if len(frame) > MAX_MESSAGE:
        return None
    try:
        msg = unpack_client(frame)
    except Exception:
        return None
    rid = msg.get("id") if isinstance(msg, dict) else None
    return rid if type(rid) is int and rid > 0 else None


def unpack_client(frame: bytes) -> Any:
    """msgpack-unpack a client's frame within :data:`UNPACK_LIMITS` (a ``ValueError`` from the
    unpacker when a header asks for more), the caller having checked its size. A frame of at
    most :data:`SMALL` bytes — a move — is unpacked with msgpack's own limits, which are within
    UNPACK_LIMITS already (the frame's length); passing these costs as much as the unpacking."""
    if len(frame) <= SMALL:  # (raw=False and strict_map_key=True are msgpack 1's defaults)
        return msgpack.unpackb(frame)
    return msgpack.unpackb(frame, raw=False, strict_map_key=True, **UNPACK_LIMITS)


def decode(frame: bytes, channel: str = "client") -> dict[str, Any]:
    """Unpack and check one frame that arrived on ``channel``: ``client`` (what the arbiter's
    ROUTER receives), ``private`` (what a client's DEALER receives) or ``pub``, holding one
    message (:func:`decode_all` reads a frame from the arbiter, which may hold several)."""
    if channel != "client":
        return check(_unpack_arbiter(frame), channel)
    size = len(frame)
    if size > MAX_MESSAGE:
        raise ProtocolError("too_big", f"{size} bytes; the limit is {MAX_MESSAGE}")
    try:  # (unpack_client's small case written out: this is every move's first step)
        msg = msgpack.unpackb(frame) if size <= SMALL else unpack_client(frame)
    except ValueError as err:
        if "exceeds max_" in str(err):  # a header over UNPACK_LIMITS: refused before building
            raise ProtocolError("malformed", f"a list, map or string is longer than a client's "
                                f"message allows ({_limit_named(err)})") from None
        raise ProtocolError("malformed", f"not msgpack ({type(err).__name__})") from None
    except Exception as err:  # msgpack raises several types for garbage
        raise ProtocolError("malformed", f"not msgpack ({type(err).__name__})") from None
    if _plain_move(msg):
        return msg
    try:
        kind = check(msg, "client")["t"]
        if "id" in FROM_CLIENT[kind] and msg.get("id") is not None and msg["id"] < 1:
            raise ProtocolError("malformed", f"{kind!r} field 'id' must be a positive int, "
                                f"not {msg['id']}")
        for name in _NESTED[kind]:  # only what is read is walked (PROTOCOL.md §2)
            if (refusal := shape_refusal(msg.get(name), inside=1)) is not None:
                raise ProtocolError("malformed", refusal)
    except ProtocolError as err:  # its id is read here, not by unpacking the frame again
        rid = msg.get("id") if type(msg) is dict else None
        err.re = rid if type(rid) is int and rid > 0 else None
        raise
    return msg


def decode_all(frame: bytes, channel: str) -> list[dict[str, Any]]:
    """The messages in one frame from the arbiter (``private`` or ``pub``), in order: a map is
    one message, an array of maps several (§2). A frame that is neither, or holds a message
    that is not right, is refused whole."""
    msg = _unpack_arbiter(frame)
    if type(msg) is list:
        if not msg:
            raise ProtocolError("malformed", "an empty array holds no message")
        if channel == "pub":
            return [m if _plain_update(m) else check(m, channel) for m in msg]
        return [check(m, channel) for m in msg]
    return [msg if channel == "pub" and _plain_update(msg) else check(msg, channel)]


def _plain_update(msg: Any) -> bool:
    """A published ``update`` with its two fields right, checked in one pass — the full
    check's verdict on it, only sooner: most of what a client reads is these."""
    return (type(msg) is dict and msg.get("t") == "update" and type(msg.get("v")) is int
            and msg["v"] == VERSION and type(msg.get("seq")) is int
            and type(msg.get("k")) is str)


def _unpack_arbiter(frame: bytes) -> Any:
    try:
        return msgpack.unpackb(frame, raw=False, strict_map_key=True)
    except Exception as err:  # msgpack raises several types for garbage
        raise ProtocolError("malformed", f"not msgpack ({type(err).__name__})") from None


_MOVE_FIELDS = frozenset(("v", "t", "id", "round", "move", "ts"))
_MOVE_KINDS = (int, int, int, float, dict)  # the types of v, id, round, ts and move, exactly
_SCALARS = (str, int, float, bool)


def _plain_move(msg: Any) -> bool:
    """A ``move`` of the usual shape — exactly its fields, each of its kind, the move a flat
    map — checked in one pass: most frames at a busy table are these (the full check below
    gives the same verdict on them, only slower)."""
    if type(msg) is not dict or msg.keys() != _MOVE_FIELDS or msg["t"] != "move":
        return False
    version, rid, round_no, move, ts = msg["v"], msg["id"], msg["round"], msg["move"], msg["ts"]
    return ((type(version), type(rid), type(round_no), type(ts), type(move)) == _MOVE_KINDS
            and version == VERSION and rid > 0 and math.isfinite(ts) and _flat(move))


def _flat(move: dict[str, Any]) -> bool:
    for value in move.values():  # (a loop: a generator for all() costs a call per item)
        if type(value) not in _SCALARS:
            return False
    return True


def check(msg: Any, channel: str) -> dict[str, Any]:
    """``msg`` as a message of ``channel``: a map with our version, a known type and each of
    that type's fields of the right kind; else a :class:`ProtocolError`."""
    if not isinstance(msg, dict):
        raise ProtocolError("malformed", f"a message is a map, not a {type(msg).__name__}")
    version = msg.get("v")
    if type(version) is not int or version != VERSION:
        raise ProtocolError("version", f"protocol version {quote(version)} is not spoken here; "
                            f"this side speaks version {VERSION}")
    kind = msg.get("t")
    if not isinstance(kind, str):
        raise ProtocolError("malformed", "the message has no type 't'")
    schema = SCHEMAS[channel].get(kind)
    if schema is None:
        raise ProtocolError("unknown_type", f"unknown message type {quote(kind)}")
    _check_fields(msg, schema, kind)
    return msg


def _limit_named(err: ValueError) -> str:
    """``max_array_len 64`` from msgpack's "70 exceeds max_array_len(64)"."""
    for name, value in UNPACK_LIMITS.items():
        if name in str(err):
            return f"{name} {value}"
    return "a limit"


def _check_fields(msg: dict[str, Any], schema: dict[str, tuple[str, bool]], kind: str) -> None:
    for name, (field_kind, required) in schema.items():
        if name not in msg or msg[name] is None:
            if required:
                raise ProtocolError("malformed", f"{kind!r} needs the field {name!r}")
            continue
        value = msg[name]
        ok = isinstance(value, _PYTHON[field_kind]) and not (
            field_kind in (INT, FLOAT) and isinstance(value, bool))
        if not ok:
            raise ProtocolError("malformed", f"{kind!r} field {name!r} must be {field_kind}, "
                                f"not {type(value).__name__}")
        if field_kind == FLOAT and not math.isfinite(value):
            raise ProtocolError("malformed", f"{kind!r} field {name!r} must be a finite number")


def state_hash(data: dict[str, Any]) -> str:
    """The beat's hash of a public state: CRC-32 of its msgpack bytes, 8 lowercase hex digits."""
    return f"{zlib.crc32(msgpack.packb(data, use_bin_type=True)):08x}"
