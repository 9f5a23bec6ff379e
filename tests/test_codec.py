"""The wire codec against the golden vectors of ``protocol/`` (protocol version 5).

Every vector ``protocol/vectors/NAME.json`` must encode to ``NAME.msgpack`` byte for byte and
decode back from it on the channel its name's prefix gives (``c2a_`` client, ``a2c_`` private,
``pub_`` pub) — a vector whose JSON is an array is one frame of several messages from the
arbiter (PROTOCOL.md §2), made by ``encode_many`` and read by ``decode_all``; the recorded
sessions must decode message by message; and anything that is not a protocol message — wrong
version, not msgpack, not a map, a missing or mistyped field, an unknown type, too many bytes,
an array from a client — is a :class:`ProtocolError` with the code PROTOCOL.md §10 gives, never
another exception. The fast path for a plain ``move`` gives the full check's verdict.
"""

from __future__ import annotations

import json
import math
import struct
import zlib
from pathlib import Path
from typing import Any
from unittest import mock

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from table_settings import settings as table_settings
from lan_demon.games import get_game
from lan_demon.net import codec
from lan_demon.net.arbiter import Arbiter
from lan_demon.net.codec import (ERROR_CODES, FROM_CLIENT, MAX_MESSAGE, PUBLISHED, SCHEMAS,
                                 TO_CLIENT, VERSION, ProtocolError, decode, decode_all, encode,
                                 make, request_id)
from lan_demon.net.packing import encode_many
from lan_demon.net.seal import open_seal, private_of

pytestmark = pytest.mark.timeout(30)

VECTORS = Path(__file__).resolve().parent.parent / "protocol" / "vectors"
CHANNEL_OF = {"c2a": "client", "a2c": "private", "pub": "pub"}
NAMES = sorted(p.stem for p in VECTORS.glob("*.msgpack"))
SESSIONS = sorted(VECTORS.glob("session-*.jsonl"))

PROPERTY = settings(max_examples=300, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])


def from_json(value: dict[str, Any]) -> Any:
    """The vectors' JSON for bytes, ``{"$bin": hex}`` (vectors/README.md), read back."""
    return bytes.fromhex(value["$bin"]) if list(value) == ["$bin"] else value


def read_json(text: str) -> Any:
    return json.loads(text, object_hook=from_json)


def load(name: str) -> tuple[Any, bytes, str]:
    """A vector: its message (a list of messages for a frame of several), frame, channel."""
    msg = read_json((VECTORS / f"{name}.json").read_text(encoding="utf-8"))
    return msg, (VECTORS / f"{name}.msgpack").read_bytes(), CHANNEL_OF[name[:3]]


def messages(name: str) -> list[dict[str, Any]]:
    msg = load(name)[0]
    return msg if isinstance(msg, list) else [msg]


BATCHES = [n for n in NAMES if isinstance(load(n)[0], list)]


def refused(frame: bytes, channel: str = "client") -> ProtocolError:
    with pytest.raises(ProtocolError) as caught:
        decode(frame, channel)
    return caught.value


def pack(obj: Any) -> bytes:
    return msgpack.packb(obj, use_bin_type=True)


# --- the golden vectors ------------------------------------------------------------------------


def test_the_vectors_are_there() -> None:
    assert len(NAMES) >= 60, "run python protocol/make_vectors.py"
    index = json.loads((VECTORS / "index.json").read_text(encoding="utf-8"))
    assert sorted(row["name"] for row in index) == NAMES
    for row in index:
        assert row["channel"] == CHANNEL_OF[row["name"][:3]]


@pytest.mark.parametrize("name", NAMES)
def test_vector_encodes_byte_for_byte(name: str) -> None:
    msg, frame, _ = load(name)
    if isinstance(msg, list):
        assert encode_many(msg) == frame
        assert encode_many(msg, msgpack.Packer(use_bin_type=True)) == frame
    else:
        assert encode(msg) == frame
        assert encode_many([msg]) == frame  # a frame of one message is its map (§2)


@pytest.mark.parametrize("name", NAMES)
def test_vector_decodes_to_its_json(name: str) -> None:
    msg, frame, channel = load(name)
    if isinstance(msg, list):
        decoded = decode_all(frame, channel)
        assert decoded == msg
        assert [list(m) for m in decoded] == [list(m) for m in msg]  # key order on the wire
        return
    decoded = decode(frame, channel)
    assert decoded == msg
    assert list(decoded) == list(msg)  # the key order on the wire is the JSON's
    if channel == "client":  # (the arbiter's frames have no limit, §2: a snap may be large)
        assert len(frame) <= MAX_MESSAGE
    if channel != "client":
        assert decode_all(frame, channel) == [msg]


def test_the_frames_of_several_messages_have_vectors() -> None:
    """§2: a frame from the arbiter may be an array of two or more maps, to one client or on
    the PUB; a client's frame never is."""
    assert {"a2c_batch", "pub_batch", "pub_batch_beat"} <= set(BATCHES)
    for name in BATCHES:
        msg, frame, channel = load(name)
        assert channel != "client" and len(msg) >= 2
        assert 0x92 <= frame[0] <= 0x9F  # a msgpack (fix)array, not a map
    assert [m["t"] for m in messages("a2c_batch")] == ["welcome", "probe"]
    assert [m["k"] for m in messages("pub_batch")] == ["lobby", "countdown"]
    seqs = [m["seq"] for m in messages("pub_batch")]
    assert seqs[1] == seqs[0] + 1  # consecutive updates, in order
    beat, presence = messages("pub_batch_beat")
    assert beat["t"] == "beat" and presence["k"] == "presence"
    assert presence["seq"] == beat["seq"] + 1  # the beat, then the update it had not yet seen


def test_every_message_type_and_update_kind_has_a_vector() -> None:
    seen: dict[str, set[str]] = {"client": set(), "private": set(), "pub": set()}
    kinds, codes = set(), set()
    for name in NAMES:
        channel = CHANNEL_OF[name[:3]]
        for msg in messages(name):
            seen[channel].add(msg["t"])
            if msg["t"] == "update":
                kinds.add(msg["k"])
            if msg["t"] == "error":
                codes.add(msg["code"])
    assert seen == {"client": set(FROM_CLIENT), "private": set(TO_CLIENT),
                    "pub": set(PUBLISHED)}
    assert kinds >= {"lobby", "presence", "countdown", "round", "move", "round_end",
                     "match_end"}
    assert codes == set(ERROR_CODES)


def _welcome_keys(session: str) -> list[bytes]:
    """Every seal key a welcome of a recorded session gave (§23)."""
    lines = (VECTORS / f"session-{session}.jsonl").read_text(encoding="utf-8").splitlines()
    return [read_json(line)["msg"]["seal"] for line in lines
            if '"welcome"' in line and '"seal"' in line]


def test_the_rarer_ends_and_reveals_have_vectors() -> None:
    """RD-12: the last Pile card played (a pile of 0 with no top, then out); RK-5: a rack that
    ascends; GS-6: a knock with no deadwood is gin; RD-9: a play from the waste whose new top,
    sealed in s, opens with the mover's welcome key to the private vector's real waste_top."""
    out = messages("pub_update_move_rd_out")[0]
    assert [e["e"] for e in out["events"]] == ["play", "pile", "out"]
    assert out["events"][1]["size"] == 0 and out["events"][1]["top"] is None
    racko = messages("pub_update_move_racko_racko")[0]
    assert [e["e"] for e in racko["events"]] == ["take", "racko"]
    gin = messages("pub_update_move_gin_gin")[0]
    assert gin["move"] == {"t": "knock", "card": "??"}
    assert [e["e"] for e in gin["events"]] == ["gin", "seat-over"]
    for update, half in (("pub_update_move_rd_waste", "a2c_private_move_rd_waste"),
                         ("pub_update_move_gin_gin", "a2c_private_move_gin_gin")):
        sealed, private = messages(update)[0], messages(half)[0]
        opened = [open_seal(key, sealed["seq"], sealed["s"]) for key in _welcome_keys("features")]
        assert [private_of(sealed, h) for h in opened if h is not None] == [private]
    waste_top = messages("a2c_private_move_rd_waste")[0]["events"][0]["private"]["waste_top"]
    assert waste_top is not None and not waste_top.startswith("??")
    assert messages("a2c_private_move_gin_gin")[0]["move"] == {"t": "knock", "card": "KD"}


def test_the_vectors_do_not_decode_on_another_channel() -> None:
    """Each direction has its own types: a welcome is not something a client sends."""
    for name in ("a2c_welcome", "pub_update_round", "c2a_hello"):
        _, frame, channel = load(name)
        for other in set(SCHEMAS) - {channel}:
            assert refused(frame, other).code == "unknown_type"


def test_the_beat_hash_is_crc32_of_the_public_state() -> None:
    """PROTOCOL.md §9: crc32 (zlib's) of the msgpack bytes of the public redacted state, as
    8 lowercase hex digits."""
    from lan_demon.net.codec import state_hash

    state = load("pub_update_round")[0]["state"]
    beat = load("pub_beat")[0]
    expected = format(zlib.crc32(pack(state)), "08x")
    assert beat["hash"] == expected == state_hash(state)
    assert beat["seq"] == load("pub_update_round")[0]["seq"]
    assert load("pub_beat_lobby")[0]["hash"] == ""


def test_the_private_round_shares_the_public_round_seq() -> None:
    assert load("a2c_private_round")[0]["seq"] == load("pub_update_round")[0]["seq"]


def test_floats_in_the_vectors_are_float64() -> None:
    """Times travel as msgpack float 64 (0xcb), even whole numbers."""
    msg, frame, _ = load("a2c_probe")
    assert frame.endswith(b"\xa1a\xcb" + struct.pack(">d", msg["a"]))
    assert msg["a"] == int(msg["a"])  # a whole number, and still a float on the wire
    assert isinstance(decode(frame, "private")["a"], float)


@pytest.mark.parametrize("path", SESSIONS, ids=lambda p: p.stem)
def test_recorded_sessions_decode(path: Path) -> None:
    """Everything the arbiter sent decodes; a client message that does not (the session's
    deliberate bad requests) was answered with an error of the code the codec gives."""
    log = [read_json(line) for line in path.read_text(encoding="utf-8").splitlines()]
    for i, entry in enumerate(log):
        channel = CHANNEL_OF[entry["dir"]]
        if "raw" in entry:
            continue
        msg = entry["msg"]
        try:
            decoded = decode(encode(msg), channel)
        except ProtocolError as err:
            assert channel == "client", msg
            answer = next(e["msg"] for e in log[i + 1:]
                          if e["dir"] == "a2c" and e["peer"] == entry["peer"])
            assert answer["t"] == "error" and answer["code"] == err.code
            continue
        assert decoded == msg


def _entries(path: Path) -> list[dict[str, Any]]:
    return [read_json(line) for line in path.read_text(encoding="utf-8").splitlines()]


ANSWERS = {"welcome", "pong", "ok", "snap", "error"}


@pytest.mark.parametrize("path", SESSIONS, ids=lambda p: p.stem)
def test_every_request_in_the_sessions_is_answered_exactly_once(path: Path) -> None:
    """PROTOCOL.md §3 (version 3): each request with an id gets one answer — on the DEALER
    with re = id, except a committed move, whose one answer is its published update (rid = id,
    seat = the mover's); no move gets an ok. A move held when its round ended is answered too
    (an error). The only other re is 0 (an unasked welcome); an error without re answers a
    frame whose id cannot be read; stand-in and table moves (rid -1) answer nobody."""
    asked: dict[tuple[str, int], int] = {}
    answered: dict[tuple[str, int], int] = {}
    moves: set[tuple[str, int]] = set()
    seat_of: dict[int, str] = {}  # seat -> the client now holding it (its latest welcome)
    unreadable = unanswered_errors = committed = 0
    for entry in _entries(path):
        msg = entry.get("msg")
        if entry["dir"] == "c2a":
            rid = msg.get("id") if msg is not None else None
            if msg is None or type(rid) is not int:
                unreadable += msg is None or msg.get("t") not in ("hb", "echo")
                continue
            asked[entry["peer"], rid] = asked.get((entry["peer"], rid), 0) + 1
            if msg.get("t") == "move":
                moves.add((entry["peer"], rid))
        elif entry["dir"] == "pub" and msg["t"] == "update" and msg["k"] == "move":
            if msg["rid"] == -1:
                continue
            key = (seat_of[msg["seat"]], msg["rid"])
            assert key in moves, msg
            answered[key] = answered.get(key, 0) + 1
            committed += 1
        elif entry["dir"] == "a2c" and msg["t"] in ANSWERS:
            if msg["t"] == "welcome" and "seat" in msg:
                seat_of[msg["seat"]] = entry["peer"]
            if "re" not in msg:
                assert msg["t"] == "error"
                unanswered_errors += 1
                continue
            assert msg["re"] > 0 or (msg["t"], msg["re"]) == ("welcome", 0), msg
            if msg["re"] == 0:
                continue
            key = (entry["peer"], msg["re"])
            assert msg["t"] != "ok" or key not in moves, f"an ok for a move: {msg}"
            answered[key] = answered.get(key, 0) + 1
    assert answered == asked
    assert unanswered_errors == unreadable
    assert committed > 0 or not moves  # the sessions with moves commit some


def test_an_unreadable_frame_keeps_its_id_when_it_can() -> None:
    """The error about a frame that does not decode carries re when the frame is a map with an
    integer id (PROTOCOL.md §3), and no re otherwise."""
    assert request_id(pack({"v": 3, "t": "ping", "id": 7})) == 7
    assert request_id(pack({"v": 3, "t": "hello", "id": 3})) == 3
    assert request_id(pack({"t": "dance", "id": 9, "v": 3})) == 9
    for frame in (b"\xc1", b"", pack([1, 2]), pack({"v": 3, "t": "ping"}),
                  pack({"v": 3, "t": "ping", "id": "7"}), pack({"v": 3, "t": "ping", "id": True}),
                  pack({"v": 3, "t": "ping", "id": 2.0}),
                  pack([{"v": 3, "t": "ping", "id": 7, "c": 1.0}]),
                  encode(make("hello", id=1, name="x" * MAX_MESSAGE, role="player"))):
        assert request_id(frame) is None
    msg = load("a2c_error_malformed_re")[0]
    assert msg["re"] == 7 and msg["code"] == "malformed"
    assert "re" not in load("a2c_error_malformed")[0]
    assert "re" not in load("a2c_error_too_big")[0]


def test_only_what_clients_send_is_limited() -> None:
    """The 64 KiB limit is on the ROUTER's side; the arbiter's own frames may be larger."""
    big = encode(make("snap", re=1, seq=3, table={"pad": "x" * MAX_MESSAGE}))
    assert len(big) > MAX_MESSAGE
    assert decode(big, "private")["table"]["pad"] == "x" * MAX_MESSAGE
    beat = encode(make("update", seq=4, k="match_end", result={"pad": "y" * MAX_MESSAGE}))
    assert decode(beat, "pub")["seq"] == 4
    assert refused(encode(make("hello", id=1, name="x" * MAX_MESSAGE, role="player"))).code \
        == "too_big"


def test_the_welcome_lists_every_option_of_the_game() -> None:
    welcomes = [e["msg"] for path in SESSIONS for e in _entries(path)
                if e["dir"] == "a2c" and e["msg"]["t"] == "welcome"]
    assert {w["game"] for w in welcomes} >= {"racing-demon", "racko", "gin-solitaire"}
    for w in welcomes:
        assert w["config"]["options"] == get_game(w["game"]).default_options()
    assert load("a2c_welcome")[0]["config"]["options"] == {"handicap": True}


def test_the_unasked_messages() -> None:
    """A lobby leave re-welcomes the seat that moved up (re 0); a stand-in move is published
    with rid -1 for the absent seat and answered to nobody (§9, §12: no ok with re -1), though
    its connection gets the private half, sealed in the update with its seat's key (§23)."""
    moved = load("a2c_welcome_moved_up")[0]
    assert moved["re"] == 0 and moved["seat"] == 0 and moved["token"]
    stand_in = load("pub_update_move_stand_in")[0]
    assert stand_in["rid"] == -1 and stand_in["seat"] >= 0 and stand_in["move"] == {"t": "draw"}
    assert stand_in["p"] is True  # the drawn card goes to the absent seat alone
    log = _entries(VECTORS / "session-racko.jsonl")
    told = [e["msg"] for e in log if e["dir"] == "a2c" and e["msg"].get("seq") == stand_in["seq"]]
    assert told == [] and isinstance(stand_in["s"], bytes)  # no frame of its own: sealed
    assert not any(e["msg"]["t"] == "ok" and e["msg"]["re"] < 0 for path in SESSIONS
                   for e in _entries(path) if e["dir"] == "a2c")
    assert "a2c_ok_stand_in" not in NAMES and "a2c_ok_move" not in NAMES  # version 2's


def test_no_ok_carries_a_seq_any_more() -> None:
    """§4.2: version 3 sends ok {re} only; the seq of a move's ok (version 2) is gone, as the
    update that commits the move is its answer."""
    oks = [e["msg"] for path in SESSIONS for e in _entries(path)
           if e["dir"] == "a2c" and e["msg"]["t"] == "ok"]
    assert oks and all(list(m) == ["v", "t", "re"] for m in oks)


def test_the_racing_demon_refusals() -> None:
    """RD-11 whether the stack was named or "middle"; a spectator's move; a move held in the
    fairness window when the round ended is answered with the rule that ended it."""
    for name in ("a2c_error_beaten", "a2c_error_beaten_middle"):
        msg = load(name)[0]
        assert msg["code"] == "beaten" and msg["rule"] == "RD-11" and msg["by"] == 1
    assert load("a2c_error_spectator")[0]["code"] == "spectator"
    held = load("a2c_error_held_at_round_end")[0]
    assert held["code"] == "illegal" and held["rule"] == "RD-13"
    log = _entries(VECTORS / "session-errors.jsonl")
    asked = next(e["msg"]["id"] for e in log if e["dir"] == "c2a" and e["peer"] == "eve"
                 and e["msg"]["t"] == "move")
    assert any(e["dir"] == "a2c" and e["peer"] == "eve" and e["msg"].get("re") == asked
               and e["msg"].get("code") == "spectator" for e in log)


# --- version refusal ---------------------------------------------------------------------------


def test_this_is_version_6() -> None:
    assert VERSION == 7


@pytest.mark.parametrize("old", [1, 2, 3, 4, 5, 6])
def test_an_old_client_is_refused_with_a_clear_reason(old: int) -> None:
    """A version 2 client would wait for a move's ok and misread a frame of several messages
    (§2, §3), a version 3 client for a move's private frame that is now sealed in its update
    (§23), a version 4 client would send no check of a round's deal, and every other client
    would say its verdict was hidden (§22.6), a version 5 client would move at a paused table
    and count down to a Go that does not come (§24), a version 6 client would take a stalled
    table's silence for a lost host (§25): it is refused with version, and the reason names
    both versions."""
    err = refused(encode({"v": old, "t": "hello", "id": 1, "name": "Ann", "role": "player"}))
    assert err.code == "version"
    assert f"version {old} " in err.reason and f"version {VERSION}" in err.reason


@pytest.mark.parametrize("version", [None, 0, 1, 2, 3, 4, 5, 6, 8, 99, "7", [7]])
def test_any_other_version_is_refused(version: Any) -> None:
    msg = {"t": "hb"} if version is None else {"v": version, "t": "hb"}
    assert refused(pack(msg)).code == "version"


def test_the_version_is_checked_before_the_type() -> None:
    """A future version's unknown type is a version refusal, not an unknown type."""
    assert refused(pack({"v": VERSION + 1, "t": "teleport"})).code == "version"


@pytest.mark.parametrize("version", [4.0])
def test_a_version_that_only_equals_4_is_refused(version: Any) -> None:
    assert refused(pack({"v": version, "t": "hb"})).code == "version"


# --- malformed input ---------------------------------------------------------------------------


@pytest.mark.parametrize("frame", [b"", b"\xc1", b"\x82\xa1v", b"\x81\xa1v\x01\x00",
                                   b"\xa5hello", b"\x91" * 2000 + b"\xc0", b"\x81\x01\x01",
                                   b"\x81\xa1v\xa2\xff\xfe", b"\xff\xff\xff"],
                         ids=["empty", "never-used-byte", "truncated", "trailing-bytes",
                              "a-string", "deep-nesting", "int-key", "bad-utf8", "garbage"])
def test_what_is_not_a_msgpack_map_is_malformed(frame: bytes) -> None:
    assert refused(frame).code == "malformed"


@pytest.mark.parametrize("value", [[1, 2], 7, "hello", None, 2.5, True])
def test_a_message_is_a_map(value: Any) -> None:
    err = refused(pack(value))
    assert err.code == "malformed"
    assert "map" in err.reason


def test_the_type_must_be_a_string() -> None:
    assert refused(pack({"v": VERSION})).code == "malformed"
    assert refused(pack({"v": VERSION, "t": 3})).code == "malformed"


@pytest.mark.parametrize("kind,field", [(k, f) for k, schema in FROM_CLIENT.items()
                                        for f, (_, required) in schema.items() if required])
def test_a_missing_required_field_is_malformed(kind: str, field: str) -> None:
    msg = _valid(kind, "client")
    del msg[field]
    err = refused(encode(msg))
    assert err.code == "malformed" and repr(field) in err.reason
    msg[field] = None  # nil is the same as absent
    assert refused(encode(msg)).code == "malformed"


@pytest.mark.parametrize("channel,kind,field,value", [
    ("client", "hello", "name", 42),
    ("client", "hello", "role", ["player"]),
    ("client", "ping", "c", "now"),
    ("client", "move", "move", "pile middle"),
    ("client", "move", "round", 0.0),
    ("client", "move", "ts", None),
    ("client", "hello", "token", 1234),
    ("private", "welcome", "config", []),
    ("private", "snap", "state", "full"),
    ("private", "private", "events", {}),
    ("pub", "update", "k", 1),
    ("pub", "beat", "hash", 0xDEADBEEF),
])
def test_a_mistyped_field_is_malformed(channel: str, kind: str, field: str, value: Any) -> None:
    msg = _valid(kind, channel)
    msg[field] = value
    err = refused(encode(msg), channel)
    assert err.code == "malformed" and repr(field) in err.reason


@pytest.mark.parametrize("kind,field", [("hello", "id"), ("move", "round"), ("ping", "c"),
                                        ("move", "ts"), ("echo", "a"), ("ready", "id")])
def test_a_bool_is_not_a_number(kind: str, field: str) -> None:
    """msgpack's true is not 1: a bool where an int or a float belongs is malformed."""
    msg = _valid(kind, "client")
    msg[field] = True
    err = refused(encode(msg))
    assert err.code == "malformed" and "bool" in err.reason


def test_an_int_is_accepted_where_a_float_belongs() -> None:
    assert decode(encode(make("ping", id=1, c=5)))["c"] == 5
    assert decode(encode(make("echo", a=100)))["a"] == 100


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_a_float_field_is_finite(value: float) -> None:
    msg = make("move", id=1, round=0, move={"t": "turn"}, ts=value)
    assert refused(encode(msg)).code == "malformed"


def test_a_bin_string_is_not_a_str() -> None:
    msg = _valid("hello", "client")
    msg["name"] = b"Ann"
    assert refused(encode(msg)).code == "malformed"


def test_unknown_types_are_refused_as_such() -> None:
    assert refused(encode(make("dance", id=1))).code == "unknown_type"
    assert refused(encode(make("welcome", re=1, token="", pub="", game="racko",
                               config={}))).code == "unknown_type"  # not a client's message


def test_unknown_fields_are_ignored() -> None:
    """PROTOCOL.md §3: a receiver ignores fields it does not know (room to grow)."""
    msg = {**_valid("hello", "client"), "colour": "blue", "x": [1, 2]}
    assert decode(encode(msg)) == msg


def test_oversized_frames_are_too_big() -> None:
    # A frame of exactly MAX_MESSAGE bytes, padded with unknown fields of 200-byte strings
    # (each under max_str_len), is read; one byte more is too_big.
    pad = {f"p{i}": "x" * 200 for i in range(9)}
    base = encode({**make("hello", id=1, name="", role="player"), **pad})
    fill = MAX_MESSAGE - len(base) - 1  # str8 takes 1 more header byte than fixstr
    at_limit = encode({**make("hello", id=1, name="x" * fill, role="player"), **pad})
    assert len(at_limit) == MAX_MESSAGE
    assert decode(at_limit)["name"] == "x" * fill
    over = encode({**make("hello", id=1, name="x" * (fill + 1), role="player"), **pad})
    assert len(over) == MAX_MESSAGE + 1
    err = refused(over)
    assert err.code == "too_big" and str(MAX_MESSAGE) in err.reason
    assert refused(b"\xc1" * (MAX_MESSAGE + 1)).code == "too_big"  # size is checked first


def test_every_code_is_known() -> None:
    with pytest.raises(AssertionError):
        ProtocolError("no_such_code", "x")
    for code in ERROR_CODES:
        assert ProtocolError(code, "why").code == code


# --- the encoder -------------------------------------------------------------------------------


def test_encode_adds_the_version_first() -> None:
    frame = encode({"t": "hb"})
    assert frame == b"\x82\xa1v\x07\xa1t\xa2hb"
    assert decode(frame) == {"v": 7, "t": "hb"}


def test_make_leaves_out_none_and_puts_v_and_t_first() -> None:
    assert make("error", re=None, code="full", reason="x", rule=None) == {
        "v": 7, "t": "error", "code": "full", "reason": "x"}
    assert list(make("ok", re=3, seq=9)) == ["v", "t", "re", "seq"]


# --- frames of several messages (§2) -----------------------------------------------------------


def _update(seq: int, **fields: Any) -> dict[str, Any]:
    return make("update", seq=seq, k="presence", seat=0, status="here", **fields)


@pytest.mark.parametrize("channel", ["private", "pub"])
def test_decode_all_reads_a_map_as_one_message(channel: str) -> None:
    msg = make("beat", seq=3, a=101.0, hash="") if channel == "pub" else make("ok", re=4)
    assert decode_all(encode(msg), channel) == [msg]


def test_decode_all_reads_an_array_as_its_messages_in_order() -> None:
    """§2: each map of the array is a whole message, handled in order."""
    msgs = [_update(7), make("beat", seq=7, a=104.0, hash="0badcafe"), _update(8)]
    frame = encode_many(msgs)
    assert frame[0] == 0x93  # a fixarray of 3
    assert decode_all(frame, "pub") == msgs
    replies = [make("ok", re=4), make("private", seq=9, k="move", events=[]),
               make("pong", re=5, c=5.0, a=100.5)]
    assert decode_all(encode_many(replies), "private") == replies


def test_encode_many_of_one_message_is_its_map() -> None:
    msg = make("probe", a=100.0)
    assert encode_many([msg]) == encode(msg)
    packer = msgpack.Packer(use_bin_type=True)
    for _ in range(3):  # a Packer reused frame after frame makes the same bytes
        assert encode_many([msg, msg], packer) == pack([msg, msg])


@pytest.mark.parametrize("channel", ["private", "pub"])
def test_an_empty_array_is_malformed(channel: str) -> None:
    with pytest.raises(ProtocolError) as caught:
        decode_all(pack([]), channel)
    assert caught.value.code == "malformed"


@pytest.mark.parametrize("bad", [7, "update", None, [], [{"v": 3, "t": "hb"}], True])
def test_an_array_holding_anything_but_maps_is_malformed(bad: Any) -> None:
    """Nested arrays too: a frame is one map or one array of maps, never deeper."""
    with pytest.raises(ProtocolError) as caught:
        decode_all(pack([_update(1), bad]), "pub")
    assert caught.value.code == "malformed" and "map" in caught.value.reason


@pytest.mark.parametrize("version", [2, None, "3", 3.0])
def test_an_array_with_a_message_of_another_version_is_refused_whole(version: Any) -> None:
    other = {**_update(2), "v": version} if version is not None else \
        {k: v for k, v in _update(2).items() if k != "v"}
    with pytest.raises(ProtocolError) as caught:
        decode_all(pack([_update(1), other]), "pub")
    assert caught.value.code == "version"


def test_an_array_with_a_bad_message_is_refused_whole() -> None:
    with pytest.raises(ProtocolError) as caught:
        decode_all(pack([make("ok", re=1), make("ok")]), "private")  # the second has no re
    assert caught.value.code == "malformed"
    with pytest.raises(ProtocolError) as caught:
        decode_all(pack([make("ok", re=1), make("hello", id=2)]), "private")
    assert caught.value.code == "unknown_type"


def test_decode_all_of_what_is_not_msgpack_is_malformed() -> None:
    for frame in (b"", b"\xc1", b"\x92\x81"):
        with pytest.raises(ProtocolError) as caught:
            decode_all(frame, "pub")
        assert caught.value.code == "malformed"


@pytest.mark.parametrize("count", [1, 2])
def test_a_client_frame_that_is_an_array_is_malformed(count: int) -> None:
    """§2: a client sends one map per frame; an array — even of one good message — is
    malformed, answered without re (no id can be read from an array, §3)."""
    frame = pack([make("ping", id=1, c=5.0)] * count)
    err = refused(frame)
    assert err.code == "malformed" and "map" in err.reason
    assert request_id(frame) is None


def test_the_arbiter_answers_a_client_array_malformed_and_goes_on() -> None:
    arb = Arbiter(table_settings("racing-demon", players=2, seed=1), now=100.0)
    out = arb.handle(b"ann", pack([make("hello", id=1, name="Ann", role="player")]), 100.0)
    assert out.public == []
    [(peer, err)] = out.private
    assert peer == b"ann" and err["t"] == "error" and err["code"] == "malformed"
    assert "re" not in err
    out = arb.handle(b"ann", encode(make("hello", id=2, name="Ann", role="player")), 100.0)
    assert [m["t"] for _, m in out.private] == ["welcome", "probe"]  # one frame in v3 (§2)


# --- the fast path for a plain move agrees with the full check ---------------------------------


def _verdict(frame: bytes, fast: bool) -> tuple[str, Any]:
    """("ok", message) or ("error", code) from decode, with or without the fast path."""
    try:
        if fast:
            return "ok", decode(frame)
        with mock.patch.object(codec, "_plain_move", lambda msg: False):
            return "ok", decode(frame)
    except ProtocolError as err:
        return "error", err.code


GOOD_MOVE = {"v": VERSION, "t": "move", "id": 5, "round": 0,
             "move": {"t": "play", "from": "pile", "to": "middle"}, "ts": 104.2421875}


def _but(**changes: Any) -> dict[str, Any]:
    """GOOD_MOVE with fields changed; a value of ``...`` removes the field."""
    msg = dict(GOOD_MOVE)
    for k, v in changes.items():
        if v is ...:
            del msg[k]
        else:
            msg[k] = v
    return msg


MOVE_CASES = {
    "good": GOOD_MOVE,
    "bool-id": _but(id=True),
    "id-0": _but(id=0),
    "id-negative": _but(id=-3),
    "float-round": _but(round=0.0),
    "bool-round": _but(round=False),
    "int-ts": _but(ts=104),
    "nan-ts": _but(ts=math.nan),
    "inf-ts": _but(ts=math.inf),
    "minus-inf-ts": _but(ts=-math.inf),
    "extra-field": {**GOOD_MOVE, "seat": 1},
    "missing-ts": _but(ts=...),
    "missing-move": _but(move=...),
    "nested-move": _but(move={"t": "play", "from": {"col": 1}, "to": "middle"}),
    "list-in-move": _but(move={"t": "play", "cards": ["AS"]}),
    "move-not-a-map": _but(move="pile middle"),
    "nil-in-move": _but(move={"t": "turn", "n": None}),
    "v2": _but(v=2),
    "v-float": _but(v=3.0),
    "v-bool": _but(v=True),
    "str-id": _but(id="5"),
}


@pytest.mark.parametrize("name", sorted(MOVE_CASES))
def test_the_plain_move_fast_path_gives_the_full_checks_verdict(name: str) -> None:
    frame = pack(MOVE_CASES[name])
    assert _verdict(frame, fast=True) == _verdict(frame, fast=False)


def test_the_fast_path_is_taken_for_a_plain_move_only() -> None:
    """The good move goes by the fast path (so the comparison above tests it); the others that
    the full check accepts — an int ts, a nested move, an extra field — go the long way."""
    assert codec._plain_move(GOOD_MOVE)
    assert _verdict(pack(GOOD_MOVE), fast=True) == ("ok", GOOD_MOVE)
    for name in ("int-ts", "nested-move", "extra-field", "v2", "bool-id", "id-0", "nan-ts"):
        assert not codec._plain_move(MOVE_CASES[name]), name
    assert _verdict(pack(MOVE_CASES["int-ts"]), fast=True)[0] == "ok"
    assert _verdict(pack(MOVE_CASES["bool-id"]), fast=True) == ("error", "malformed")
    assert _verdict(pack(MOVE_CASES["v2"]), fast=True) == ("error", "version")


_SCALAR = (st.none() | st.booleans() | st.integers(-2**63, 2**64 - 1) | st.floats()
           | st.text(max_size=6) | st.binary(max_size=4))
_MOVE_VALUE = _SCALAR | st.lists(_SCALAR, max_size=2) | st.dictionaries(
    st.text(max_size=3), _SCALAR, max_size=2)


@PROPERTY
@given(v=st.sampled_from([VERSION, VERSION, 2, 3.0, True, None]),
       rid=st.sampled_from([1, 5, 0, -1, True, 2.0, "1", None]) | st.integers(-2**63, 2**64 - 1),
       round_no=st.sampled_from([0, 1, 0.0, False, None, "0"]) | st.integers(-5, 2**40),
       ts=_SCALAR | st.sampled_from([104.25, 104, math.nan, math.inf]),
       move=st.dictionaries(st.text(max_size=5), _MOVE_VALUE, max_size=4) | _SCALAR,
       drop=st.sets(st.sampled_from(["v", "t", "id", "round", "move", "ts"]), max_size=2),
       extra=st.dictionaries(st.sampled_from(["seat", "x", "ts2"]), _SCALAR, max_size=1))
def test_the_fast_path_agrees_with_the_full_check_on_any_move(
        v: Any, rid: Any, round_no: Any, ts: Any, move: Any, drop: set[str],
        extra: dict[str, Any]) -> None:
    msg = {"v": v, "t": "move", "id": rid, "round": round_no, "move": move, "ts": ts, **extra}
    for name in drop:
        del msg[name]
    frame = pack(msg)
    fast, full = _verdict(frame, fast=True), _verdict(frame, fast=False)
    if fast[0] == "ok" and full[0] == "ok":
        assert _same(fast[1], full[1])  # NaN != NaN: compare as the round trip test does
    else:
        assert fast == full


# --- nothing but ProtocolError -----------------------------------------------------------------


@PROPERTY
@given(frame=st.binary(max_size=512), channel=st.sampled_from(sorted(SCHEMAS)))
def test_random_bytes_never_raise_anything_else(frame: bytes, channel: str) -> None:
    try:
        msg = decode(frame, channel)
    except ProtocolError as err:
        assert err.code in ERROR_CODES
    else:
        assert isinstance(msg, dict) and msg["v"] == VERSION


def _values() -> st.SearchStrategy[Any]:
    leaves = (st.none() | st.booleans() | st.integers(-2**63, 2**64 - 1)
              | st.floats(allow_nan=True) | st.text(max_size=8) | st.binary(max_size=8))
    return st.recursive(leaves, lambda inner: st.lists(inner, max_size=4)
                        | st.dictionaries(st.text(max_size=4), inner, max_size=4), max_leaves=12)


_FIELDS = sorted({f for schemas in SCHEMAS.values() for s in schemas.values() for f in s})
_TYPES = sorted({t for schemas in SCHEMAS.values() for t in schemas} | {"nonsense"})


@PROPERTY
@given(t=st.sampled_from(_TYPES), v=st.sampled_from([VERSION, VERSION, VERSION, 2, None]),
       fields=st.dictionaries(st.sampled_from(_FIELDS), _values(), max_size=6),
       channel=st.sampled_from(sorted(SCHEMAS)))
def test_random_maps_decode_as_themselves_or_raise_protocol_error(
        t: str, v: Any, fields: dict[str, Any], channel: str) -> None:
    msg = {"v": v, "t": t, **fields}
    frame = pack(msg)
    try:
        decoded = decode(frame, channel)
    except ProtocolError as err:
        assert err.code in ERROR_CODES
        return
    assert t in SCHEMAS[channel]
    for name, (kind, required) in SCHEMAS[channel][t].items():
        assert not required or decoded.get(name) is not None
    assert _same(decoded, msg)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a):
        return math.isnan(b)
    if isinstance(a, dict):
        return isinstance(b, dict) and list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(map(_same, a, b))
    return a == b and type(a) is type(b)


# --- helpers -----------------------------------------------------------------------------------

_SAMPLE = {"int": 1, "float": 12.5, "str": "x", "bool": True, "map": {}, "list": [],
           "bin": b"\x01", "any": 0}


def _valid(kind: str, channel: str) -> dict[str, Any]:
    """A message of ``kind`` with every field of its schema, and the check that it decodes."""
    schema = SCHEMAS[channel][kind]
    msg = make(kind, **{f: _SAMPLE[k] for f, (k, _) in schema.items()})
    assert decode(encode(msg), channel) == msg
    return msg


def test_the_worked_session_in_protocol_md_is_the_recorded_session() -> None:
    """§17 is written by make_vectors.py from session-racing-demon.jsonl; a hand edit or a
    vector regenerated without it would leave the document telling another session."""
    import importlib.util
    root = VECTORS.parent
    spec = importlib.util.spec_from_file_location("make_vectors", root / "make_vectors.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    log = [read_json(line) for line in
           (VECTORS / "session-racing-demon.jsonl").read_text("utf-8").splitlines()]
    doc = (root / "PROTOCOL.md").read_text("utf-8")
    head = doc.index("## 17 A worked session")
    start = doc.index("```\n", head) + 4
    assert doc[start:doc.index("```\n", start)] == module.worked_session(log)
