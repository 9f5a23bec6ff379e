"""The wire codec against the golden vectors of ``protocol/`` (protocol version 2).

Every vector ``protocol/vectors/NAME.json`` must encode to ``NAME.msgpack`` byte for byte and
decode back from it on the channel its name's prefix gives (``c2a_`` client, ``a2c_`` private,
``pub_`` pub); the recorded sessions must decode message by message; and anything that is not a
protocol message — wrong version, not msgpack, not a map, a missing or mistyped field, an
unknown type, too many bytes — is a :class:`ProtocolError` with the code PROTOCOL.md §10 gives,
never another exception.
"""

from __future__ import annotations

import json
import math
import struct
import zlib
from pathlib import Path
from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lan_demon.games import get_game
from lan_demon.net.codec import (ERROR_CODES, FROM_CLIENT, MAX_MESSAGE, PUBLISHED, SCHEMAS,
                                 TO_CLIENT, VERSION, ProtocolError, decode, encode, make,
                                 request_id)

pytestmark = pytest.mark.timeout(30)

VECTORS = Path(__file__).resolve().parent.parent / "protocol" / "vectors"
CHANNEL_OF = {"c2a": "client", "a2c": "private", "pub": "pub"}
NAMES = sorted(p.stem for p in VECTORS.glob("*.msgpack"))
SESSIONS = sorted(VECTORS.glob("session-*.jsonl"))

PROPERTY = settings(max_examples=300, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])


def load(name: str) -> tuple[dict[str, Any], bytes, str]:
    msg = json.loads((VECTORS / f"{name}.json").read_text(encoding="utf-8"))
    return msg, (VECTORS / f"{name}.msgpack").read_bytes(), CHANNEL_OF[name[:3]]


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
    assert encode(msg) == frame


@pytest.mark.parametrize("name", NAMES)
def test_vector_decodes_to_its_json(name: str) -> None:
    msg, frame, channel = load(name)
    decoded = decode(frame, channel)
    assert decoded == msg
    assert list(decoded) == list(msg)  # the key order on the wire is the JSON's
    assert len(frame) <= MAX_MESSAGE


def test_every_message_type_and_update_kind_has_a_vector() -> None:
    seen: dict[str, set[str]] = {"client": set(), "private": set(), "pub": set()}
    kinds, codes = set(), set()
    for name in NAMES:
        msg, _, channel = load(name)
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
    log = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
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
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


ANSWERS = {"welcome", "pong", "ok", "snap", "error"}


@pytest.mark.parametrize("path", SESSIONS, ids=lambda p: p.stem)
def test_every_request_in_the_sessions_is_answered_exactly_once(path: Path) -> None:
    """PROTOCOL.md §3: each request with an id gets one answer with re = id (a move held when
    its round ended too); the only other re values are 0 (an unasked welcome) and -1 (the ok
    for a stand-in move); an error without re answers a frame whose id cannot be read."""
    asked: dict[tuple[str, int], int] = {}
    answered: dict[tuple[str, int], int] = {}
    unreadable = unanswered_errors = 0
    for entry in _entries(path):
        msg = entry.get("msg")
        if entry["dir"] == "c2a":
            rid = msg.get("id") if msg is not None else None
            if msg is None or type(rid) is not int:
                unreadable += msg is None or msg.get("t") not in ("hb", "echo")
                continue
            asked[entry["peer"], rid] = asked.get((entry["peer"], rid), 0) + 1
        elif entry["dir"] == "a2c" and msg["t"] in ANSWERS:
            if "re" not in msg:
                assert msg["t"] == "error"
                unanswered_errors += 1
                continue
            if (msg["t"], msg["re"]) in (("welcome", 0), ("ok", -1)):
                continue
            key = (entry["peer"], msg["re"])
            answered[key] = answered.get(key, 0) + 1
    assert answered == asked
    assert unanswered_errors == unreadable


def test_an_unreadable_frame_keeps_its_id_when_it_can() -> None:
    """The error about a frame that does not decode carries re when the frame is a map with an
    integer id (PROTOCOL.md §3), and no re otherwise."""
    assert request_id(pack({"v": 2, "t": "ping", "id": 7})) == 7
    assert request_id(pack({"v": 2, "t": "hello", "id": 3})) == 3
    assert request_id(pack({"t": "dance", "id": 9, "v": 2})) == 9
    for frame in (b"\xc1", b"", pack([1, 2]), pack({"v": 2, "t": "ping"}),
                  pack({"v": 2, "t": "ping", "id": "7"}), pack({"v": 2, "t": "ping", "id": True}),
                  pack({"v": 2, "t": "ping", "id": 2.0}),
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
    with rid -1 for the absent seat, whose connection gets an ok with re -1."""
    moved = load("a2c_welcome_moved_up")[0]
    assert moved["re"] == 0 and moved["seat"] == 0 and moved["token"]
    stand_in = load("pub_update_move_stand_in")[0]
    assert stand_in["rid"] == -1 and stand_in["seat"] >= 0 and stand_in["move"] == {"t": "draw"}
    assert stand_in["p"] is True  # the drawn card goes to the absent seat alone
    ok = load("a2c_ok_stand_in")[0]
    assert ok["re"] == -1 and ok["seq"] == stand_in["seq"]


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


def test_an_old_version_1_client_is_refused_with_a_clear_reason() -> None:
    err = refused(encode({"v": 1, "t": "hello", "id": 1, "name": "Ann", "role": "player"}))
    assert err.code == "version"
    assert "1" in err.reason and f"version {VERSION}" in err.reason


@pytest.mark.parametrize("version", [None, 0, 1, 3, 99, "2", [2]])
def test_any_other_version_is_refused(version: Any) -> None:
    msg = {"t": "hb"} if version is None else {"v": version, "t": "hb"}
    assert refused(pack(msg)).code == "version"


def test_the_version_is_checked_before_the_type() -> None:
    """A future version's unknown type is a version refusal, not an unknown type."""
    assert refused(pack({"v": 3, "t": "teleport"})).code == "version"


@pytest.mark.parametrize("version", [2.0, True])
def test_a_version_that_only_equals_2_is_refused(version: Any) -> None:
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
    assert refused(pack({"v": 2})).code == "malformed"
    assert refused(pack({"v": 2, "t": 3})).code == "malformed"


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
    assert frame == b"\x82\xa1v\x02\xa1t\xa2hb"
    assert decode(frame) == {"v": 2, "t": "hb"}


def test_make_leaves_out_none_and_puts_v_and_t_first() -> None:
    assert make("error", re=None, code="full", reason="x", rule=None) == {
        "v": 2, "t": "error", "code": "full", "reason": "x"}
    assert list(make("ok", re=3, seq=9)) == ["v", "t", "re", "seq"]


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
@given(t=st.sampled_from(_TYPES), v=st.sampled_from([1, 1, 1, 2, None]),
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

_SAMPLE = {"int": 1, "float": 12.5, "str": "x", "bool": True, "map": {}, "list": [], "any": 0}


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
    log = [json.loads(line) for line in
           (VECTORS / "session-racing-demon.jsonl").read_text("utf-8").splitlines()]
    doc = (root / "PROTOCOL.md").read_text("utf-8")
    head = doc.index("## 17 A worked session")
    start = doc.index("```\n", head) + 4
    assert doc[start:doc.index("```\n", start)] == module.worked_session(log)
