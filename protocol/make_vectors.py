"""Build the golden vectors of ``protocol/PROTOCOL.md`` (protocol version 5).

Run from the repository root::

    python protocol/make_vectors.py            # everything
    python protocol/make_vectors.py --deals    # only §21's deal-GAME.json

It drives the real arbiter (:class:`lan_demon.net.arbiter.Arbiter`, no sockets) with a fake clock
through short sessions of each game on fixed seeds, records every message that crosses the wire
(``protocol/vectors/session-*.jsonl``), and keeps a named selection of them as vectors: for each
``NAME``, ``NAME.json`` is the message as JSON and ``NAME.msgpack`` the exact bytes that
``lan_demon.net.codec.encode`` makes of it. Every vector is a message the arbiter really sent
or received in one of these sessions, except one client message no session sends
(``c2a_move_rd_run``), which is built with ``lan_demon.net.codec.make``.

A few vectors are whole frames of several messages (PROTOCOL.md §2): ``NAME.json`` is then a
JSON array of the messages, in order, and ``NAME.msgpack`` the frame
``lan_demon.net.packing.encode_many`` makes of them. Each is what the reference socket loop sends
for one step of the arbiter (one client frame handled, or one tick) when that step is all its
wake-up did: the session records the messages of each step together (:attr:`Session.frames`).

A vector's name tells its direction, and so the channel to decode it on:

* ``c2a_*`` — client to arbiter (DEALER → ROUTER), channel ``client``;
* ``a2c_*`` — arbiter to one client (ROUTER → DEALER), channel ``private``;
* ``pub_*`` — arbiter to everyone (PUB → SUB), channel ``pub``.

Everything is deterministic: times are exact binary fractions, the deal seeds are fixed, and the
arbiter's random session tokens and seal keys (§23) are replaced by counted ones. Running it
twice gives the same bytes.

JSON has no bytes: a msgpack ``bin`` (a welcome's ``seal``, an update's ``s``) is written in the
JSON files as ``{"$bin": "<hex>"}``. ``a2c_private_move_*`` are the private halves as a seat
reads them: opened from the ``s`` of its update with its key (§23) — the same map a seat of a
resumed table, which has no key yet, gets as a ``private`` frame.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import random
import sys
import zlib
from pathlib import Path
from typing import Any, Callable

import msgpack

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from lan_demon.bots import Turn, make_strategy  # noqa: E402
from lan_demon.net import seats as seats_module  # noqa: E402
from lan_demon.net import handover as handover_module  # noqa: E402
from lan_demon.net.arbiter import Arbiter  # noqa: E402
from lan_demon.net.settings import Settings, dealing_of  # noqa: E402
from lan_demon.net import fairdeal  # noqa: E402
from lan_demon.net.outbox import Outbox  # noqa: E402
from lan_demon.net.seal import half_of, open_seal, private_of, seal  # noqa: E402
from lan_demon.net.seated import Sender  # noqa: E402
from lan_demon.net.codec import (ERROR_CODES, FROM_CLIENT, MAX_MESSAGE, PUBLISHED,  # noqa: E402
                                 TO_CLIENT, VERSION, decode, decode_all, encode, make)
from lan_demon.net.packing import encode_many  # noqa: E402

OUT = HERE / "vectors"
PUB_ENDPOINT = "tcp://192.168.1.20:7701"
RTT = 1 / 64  # every simulated client answers a probe this long after it was sent
CHANNELS = {"c2a": "client", "a2c": "private", "pub": "pub"}
DIRECTIONS = {"c2a": "client → arbiter (DEALER → ROUTER)",
              "a2c": "arbiter → one client (ROUTER → DEALER)",
              "pub": "arbiter → everyone (PUB → SUB)"}


def jsonable(value: Any) -> Any:
    """``value`` for JSON: bytes as ``{"$bin": hex}`` (README.md of the vectors)."""
    if isinstance(value, bytes):
        return {"$bin": value.hex()}
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [jsonable(v) for v in value]
    return value


def from_json(value: Any) -> Any:
    """The inverse of :func:`jsonable`, as ``json.loads``'s ``object_hook``."""
    return bytes.fromhex(value["$bin"]) if list(value) == ["$bin"] else value


def counted_key(counter: list[int] = [0]) -> bytes:  # noqa: B006 - the count is the point
    """Stands in for :func:`lan_demon.net.seal.new_key`: SHA-256 of "seal key N", N = 1, 2, …"""
    counter[0] += 1
    return hashlib.sha256(f"seal key {counter[0]}".encode()).digest()


class CountedTokens:
    """Stands in for the ``secrets`` module inside the arbiter: tokens 0000000000000001, …"""

    def __init__(self) -> None:
        self.n = 0

    def token_hex(self, nbytes: int = 8) -> str:
        self.n += 1
        return f"{self.n:0{2 * nbytes}x}"

    @staticmethod
    def compare_digest(a: str, b: str) -> bool:
        return a == b


def vector_settings(game: str, seed: int | str | None = 0, **changes: Any) -> Settings:
    """The sessions' settings: seeded (seed 0 unless told; None: secret deals), a 10-second
    pause, a 3-second countdown unless told — the vectors' own table, not a host's defaults."""
    return Settings(game, dealing=dealing_of(seed), **{"pause": 10.0, **changes})


class Session:
    """One arbiter, a fake clock, and the record of everything sent either way."""

    def __init__(self, name: str, settings: Settings, start: float = 100.0,
                 code: str | None = None):
        seats_module.secrets = CountedTokens()  # deterministic tokens (this process only)
        seats_module.new_key = counted_key  # and seal keys
        self.name = name
        self.now = start
        self.arbiter = Arbiter(settings, now=start, code=code)
        self.arbiter.seating.pub = PUB_ENDPOINT
        self.log: list[dict[str, Any]] = []
        self.peers: dict[bytes, str] = {}  # peer id -> client name in the log
        self.quiet: set[str] = set()  # clients that have gone silent (no hb, no echo)
        self.ids: dict[str, int] = {}
        #: (direction, peer, messages) of every frame the steps so far would make on their own
        #: (PROTOCOL.md §2: one PUB frame for a step's updates and beats, one frame per peer
        #: for its replies), in the order the socket loop sends them: the PUB frame first.
        self.frames: list[tuple[str, str | None, list[dict[str, Any]]]] = []
        #: the private halves sealed in the updates, opened with their seat's key (§23)
        self.opened: list[dict[str, Any]] = []

    # --- sending -------------------------------------------------------------------------

    def next_id(self, who: str) -> int:
        self.ids[who] = self.ids.get(who, 0) + 1
        return self.ids[who]

    def send(self, who: str, msg: dict[str, Any] | bytes, at: float | None = None,
             peer: bytes | None = None, sender: Sender = Sender()) -> None:
        """Client ``who`` sends ``msg`` (a message, or raw bytes) arriving at time ``at``;
        ``sender``: its CURVE key and address, as a secure arbiter's socket loop sees them."""
        if at is not None:
            self.now = at
        peer = peer or who.encode()
        self.peers[peer] = who
        frame = msg if isinstance(msg, bytes) else encode(msg)
        entry: dict[str, Any] = {"at": self.now, "dir": "c2a", "peer": who}
        if isinstance(msg, bytes):
            entry["raw"] = msg.hex() if len(msg) <= 64 else f"<{len(msg)} bytes>"
        else:
            entry["msg"] = msg
        self.log.append(entry)
        self._record(self.arbiter.handle(peer, frame, self.now, sender))

    def request(self, who: str, kind: str, at: float | None = None, peer: bytes | None = None,
                sender: Sender = Sender(), **fields: Any) -> int:
        rid = self.next_id(who)
        self.send(who, make(kind, id=rid, **fields), at, peer, sender)
        return rid

    def tick(self, at: float) -> None:
        self.now = at
        self._record(self.arbiter.tick(at))

    def _record(self, out: Outbox) -> None:
        out = self.arbiter.outgoing(out)  # as the socket loop: nothing a journal lacks (§25)
        replies: dict[str, list[dict[str, Any]]] = {}
        for peer, msg in out.private:
            if peer is None:
                continue
            who = self.peers.get(peer, "?")
            replies.setdefault(who, []).append(msg)
            self.log.append({"at": self.now, "dir": "a2c", "peer": who, "msg": msg})
        for msg in out.public:
            self.log.append({"at": self.now, "dir": "pub", "msg": msg})
            if msg.get("s") is not None:  # the mover's half, as it opens it (§23)
                seat = self.arbiter.seats[msg["seat"]]
                private = private_of(msg, open_seal(seat.seal, msg["seq"], msg["s"]))
                self.opened.append({"at": self.now, "dir": "a2c", "peer": self.peers[seat.peer],
                                    "msg": private})
        if out.public:
            self.frames.append(("pub", None, list(out.public)))
        self.frames += [("a2c", who, msgs) for who, msgs in replies.items()]

    # --- time passing --------------------------------------------------------------------

    def echo_probes(self, since: int) -> None:
        """Every client that is listening answers the probes sent since log index ``since``."""
        for entry in list(self.log[since:]):
            if entry["dir"] == "a2c" and entry["msg"]["t"] == "probe" \
                    and entry["peer"] not in self.quiet:
                peer = next(p for p, w in self.peers.items() if w == entry["peer"])
                self.send(entry["peer"], make("echo", a=entry["msg"]["a"]),
                          entry["msg"]["a"] + RTT, peer)

    def second(self, at: float, talkers: list[tuple[str, bytes]]) -> None:
        """A whole second: the arbiter's tick (beat and probes), then each client's ``hb``
        and echo."""
        mark = len(self.log)
        self.tick(at)
        for who, peer in talkers:
            if who not in self.quiet:
                self.send(who, make("hb"), at + RTT, peer)
        self.echo_probes(mark)

    # --- picking vectors -----------------------------------------------------------------

    def find(self, direction: str, pred: Callable[[dict[str, Any]], bool],
             peer: str | None = None, nth: int = 0) -> dict[str, Any]:
        hits = [e["msg"] for e in self.log + self.opened if e["dir"] == direction and "msg" in e
                and (peer is None or e.get("peer") == peer) and pred(e["msg"])]
        if len(hits) <= nth:
            raise SystemExit(f"{self.name}: no {direction} message #{nth} matching the "
                             "predicate; has the arbiter changed?")
        return hits[nth]

    def find_frame(self, direction: str, pred: Callable[[list[dict[str, Any]]], bool],
                   peer: str | None = None) -> list[dict[str, Any]]:
        """The messages of the first frame of ``direction`` (to ``peer``) that holds several
        and matches ``pred``."""
        for d, who, msgs in self.frames:
            if d == direction and len(msgs) > 1 and (peer is None or who == peer) \
                    and pred(msgs):
                return msgs
        raise SystemExit(f"{self.name}: no {direction} frame of several messages matching the "
                         "predicate; has the arbiter changed?")

    def write_log(self) -> None:
        path = OUT / f"session-{self.name}.jsonl"
        with path.open("w", encoding="utf-8") as f:
            for entry in self.log:
                f.write(json.dumps(jsonable(entry), ensure_ascii=False) + "\n")


ROUTINE = ("hb", "echo", "probe", "beat")  # shown once each in the worked session
CLIP = 170  # characters of a message shown in the worked session; the .jsonl has all


def _abridged(value: Any) -> Any:
    """Runs of four or more equal placeholders (``"??@0"``) written as ``<12 × "??@0">``."""
    if isinstance(value, dict):
        return {k: _abridged(v) for k, v in value.items()}
    if not isinstance(value, list):
        return value
    out: list[Any] = []
    i = 0
    while i < len(value):
        j = i
        while j < len(value) and isinstance(value[i], str) and value[i].startswith("??") \
                and value[j] == value[i]:
            j += 1
        if j - i >= 4:
            out.append(_Run(j - i, value[i]))
            i = j
        else:
            out.append(_abridged(value[i]))
            i += 1
    return out


class _Run:
    def __init__(self, n: int, text: str):
        self.n, self.text = n, text


def _compact(value: Any) -> str:
    if isinstance(value, _Run):
        return f'<{value.n} × "{value.text}">'
    if isinstance(value, dict):
        return "{" + ",".join(f"{json.dumps(k)}:{_compact(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(_compact(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False)


def worked_session(log: list[dict[str, Any]]) -> str:
    """PROTOCOL.md §17's listing of a session: every message but the routine ones after the
    first of each, long lines clipped (the session's .jsonl holds them whole)."""
    seen: set[str] = set()
    lines = []
    for entry in log:
        msg = entry.get("msg")
        if msg is None:
            continue
        if msg["t"] in ROUTINE:
            if msg["t"] in seen:
                continue
            seen.add(msg["t"])
        text = _compact(_abridged(jsonable(msg)))
        if len(text) > CLIP:
            text = text[:CLIP - 1] + "…"
        arrow = {"c2a": "→", "a2c": "←", "pub": "⇐"}[entry["dir"]]
        who = "" if entry["dir"] == "pub" else entry.get("peer", "")
        lines.append(f"{entry['at']:<12} {who:>4} {arrow} {text}".rstrip())
    return "\n".join(lines) + "\n"


def write_worked_session(log: list[dict[str, Any]]) -> None:
    """Put the listing into PROTOCOL.md §17, between its opening and closing fences."""
    doc = HERE / "PROTOCOL.md"
    text = doc.read_text(encoding="utf-8")
    head = text.index("## 17 A worked session")
    start = text.index("```\n", head) + 4
    end = text.index("```\n", start)
    doc.write_text(text[:start] + worked_session(log) + text[end:], encoding="utf-8")


def kind(t: str, **fields: Any) -> Callable[[dict[str, Any]], bool]:
    """A predicate: the message has type ``t`` and these field values."""
    return lambda m: m.get("t") == t and all(m.get(k) == v for k, v in fields.items())


# ------------------------------------------------------------------------------------- sessions


def racing_demon() -> Session:
    """Two players, seed 12060, two rounds: join, sync, ready, Go, an ace, a contested 2 (RD-11)
    settled by timestamp, a turn of the Pack, a spectator, an absence and a reconnect, three
    RD-13 rotations to end each round, the match end, and everyone leaving."""
    s = Session("racing-demon", vector_settings("racing-demon", players=2, rounds=2, seed=12060,
                                       fairness_ms=30.0, countdown=3.0))
    ann, bob, bob2, eve = b"ann", b"bob", b"bob-2", b"eve"
    both = [("ann", ann), ("bob", bob)]
    s.request("ann", "hello", 100.0, name="Ann", role="player")
    s.request("bob", "hello", 100.0, name="Bob", role="player", bot=True)
    s.echo_probes(0)
    # clock sync: the client's clock reads 5.0 when it sends; the pong is back at 5.015625
    s.request("ann", "ping", 100.03125, c=5.0)
    s.request("ann", "snapshot", 100.0625)
    s.request("ann", "ready", 100.125)
    s.request("bob", "ready", 100.25)  # the second ready seat starts the countdown
    for t in (101.0, 102.0):
        s.second(t, both)
    s.second(103.0, both)
    s.tick(103.25)  # Go: the round is dealt (private state to each seat, public update)
    s.second(104.0, both)  # a beat whose hash is of the dealt public state
    s.request("ann", "move", 104.25, round=0, move={"t": "play", "from": "pile", "to": "middle"},
              ts=104.2421875)
    # RD-11: both 2 of spades go to stack 1. Ann's arrives first, Bob's 1/256 s later but was
    # played earlier (by its timestamp, which is within Bob's one-way delay of its arrival,
    # and within the 10 ms lag cap, §8)
    s.request("ann", "move", 104.5, round=0, move={"t": "play", "from": "c3", "to": "s1"},
              ts=104.5)
    s.request("bob", "move", 104.50390625, round=0, move={"t": "play", "from": "c2", "to": "s1"},
              ts=104.49609375)
    s.tick(104.5625)  # the fairness window (30 ms) has closed: Bob's first, Ann's is beaten
    s.request("ann", "move", 104.75, round=0, move={"t": "turn"}, ts=104.7421875)
    s.quiet.add("bob")  # Bob's connection dies
    s.second(105.0, both)
    s.request("eve", "hello", 105.25, name="Eve", role="spectator")
    s.request("eve", "snapshot", 105.3125)
    spect = both + [("eve", eve)]
    for t in (106.0, 107.0, 108.0):
        s.second(t, spect)  # at 108 Bob has been silent for more than 3 s: away
    s.quiet.discard("bob")
    s.ids["bob"] = 0  # a new connection counts its request ids afresh
    s.request("bob", "hello", 108.5, peer=bob2, name="Bob", role="player",
              token=s.find("a2c", kind("welcome"), peer="bob")["token"], bot=True)
    s.echo_probes(len(s.log) - 3)
    s.request("bob", "snapshot", 108.5625, peer=bob2)
    both = [("ann", ann), ("bob", bob2)]
    spect = both + [("eve", eve)]
    _rotate_out(s, both, 108.75, round_no=0)
    s.second(109.0, spect)
    s.request("ann", "ready", 109.25)
    s.request("bob", "ready", 109.3125, peer=bob2)  # all ready: the next countdown at once
    for t in (110.0, 111.0, 112.0):
        s.second(t, spect)
    s.tick(112.3125)  # Go for round 1 (0-based)
    _rotate_out(s, both, 112.5, round_no=1)  # the last round: round_end, then match_end
    s.request("ann", "leave", 113.25)
    s.request("bob", "leave", 113.3125, peer=bob2)
    s.request("eve", "leave", 113.375)
    return s


def _rotate_out(s: Session, both: list[tuple[str, bytes]], at: float, round_no: int) -> None:
    """RD-13 three times: both seats vote stuck; the third rotation ends the round."""
    step = 1 / 32
    for _ in range(3):
        for who, peer in both:
            s.request(who, "move", at, peer=peer, round=round_no, move={"t": "stuck"},
                      ts=at - step / 2)
            at += step


def errors(rd: Session, lan: Session) -> tuple[Session, dict[str, dict[str, Any]]]:
    """One error of each code, each provoked from a real arbiter; on the way, a lobby leave
    that moves a seat up (its new welcome), a spectator's move, a "to the middle" card that
    loses its stack (RD-11) and a move frame sent twice (refused, not applied again). Two codes
    come from arbiters of their own, whose sessions are not kept: ``rate_limited`` (a table
    with a tiny limit) and ``internal`` (an arbiter with a handler broken on purpose); the room
    code's and the CURVE key's come from the LAN table's session (:func:`lan_table`)."""
    s = Session("errors", vector_settings("racing-demon", players=2, rounds=2, seed=12060,
                                 countdown=0.0))
    s.send("mal", b"\xc1")  # 0xc1 is never used in msgpack
    s.send("ver", {"v": 1, "t": "hello", "id": 1, "name": "Zed", "role": "player"})  # old
    s.send("unk", make("dance", id=1))
    s.send("big", encode(make("hello", id=1, name="x" * MAX_MESSAGE, role="player")))
    s.send("odd", {"v": VERSION, "t": "ping", "id": 7})  # no "c": malformed, but its id is readable
    s.request("nobody", "ready")
    s.request("tok", "hello", name="Tom", role="player", token="00000000deadbeef")
    # Zoe sits first and leaves while the lobby fills: Ann, behind her, moves up to seat 0 and
    # is told so by a new welcome with re 0
    s.request("zoe", "hello", name="Zoe", role="player")
    s.request("ann", "hello", name="Ann", role="player")
    s.request("zoe", "leave")
    s.request("bob", "hello", name="Bob", role="player")
    s.request("cat", "hello", name="Cat", role="player")  # a third seat at a table for two
    s.request("bob", "start")  # only seat 0 starts a match by hand
    s.request("ann", "move", round=0, move={"t": "turn"}, ts=100.0)  # still the lobby
    s.request("eve", "hello", name="Eve", role="spectator")
    s.request("ann", "ready")
    s.request("bob", "ready")  # countdown 0: dealt at once
    s.request("ann", "move", round=3, move={"t": "turn"}, ts=100.0)
    s.request("ann", "move", round=0, move={"t": "fly"}, ts=100.0)
    s.request("ann", "move", round=0, move={"t": "out"}, ts=100.0)
    s.request("eve", "move", round=0, move={"t": "turn"}, ts=100.0)  # spectators cannot move
    # RD-11 "to the middle": Ann's ace founds stack 1; both seats then send their 2 of spades to
    # the middle, Bob's played a little earlier. Bob's takes stack 1; Ann's is beaten, by Bob
    ace = make("move", id=s.next_id("ann"), round=0,
               move={"t": "play", "from": "pile", "to": "middle"}, ts=100.25)
    s.send("ann", ace, 100.25)
    s.request("ann", "move", 100.5, round=0, move={"t": "play", "from": "c3", "to": "middle"},
              ts=100.5)
    s.request("bob", "move", 100.5, round=0, move={"t": "play", "from": "c2", "to": "middle"},
              ts=100.49609375)
    s.tick(100.5625)  # the fairness window has closed
    s.send("ann", ace, 100.625)  # the ace's frame again: a duplicate, not a second play
    elsewhere = {"beaten": rd.find("a2c", kind("error", code="beaten")),
                 "too_late": {}, "bad_reveal": {},  # from the commit-and-reveal session
                 "paused": {}, "not_paused": {}, "bad_seat": {}, "removed": {},  # evening()
                 "stalled": {},  # stall()
                 "too_many": {},
                 "rate_limited": _flood(), "internal": _broken(),
                 **{code: lan.find("a2c", kind("error", code=code))
                    for code in ("bad_code", "slow_down", "wrong_key")}}
    found = {code: s.find("a2c", kind("error", code=code)) for code in ERROR_CODES
             if code not in elsewhere}
    return s, {**found, **elsewhere}


# Two CURVE public keys (z85) as a secure socket loop reports them; they never go on the wire.
ANN_KEY = "b(867Ga{TJxU{%xY3%lZ>Y{LNtBM)?HfeoEdLnOC"
MAL_KEY = "rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7"


def lan_table() -> Session:
    """A LAN table (PROTOCOL.md §20): room code KQZR, seats bound to CURVE keys. Ann sits with
    the code; Tom tries without one (refused, no guess), then three wrong codes (free), a
    fourth (now he must wait a second) and a fifth at once (slow_down, with the wait); Mallory,
    who has Ann's token but not her key, is refused the seat; Sid, who never said hello, asks
    the table and is refused: only those who gave the code may watch."""
    s = Session("lan", vector_settings("racing-demon", players=2, seed=12060, countdown=0.0),
                code="KQZR")
    ann = Sender(ANN_KEY, "192.168.1.21")
    tom = Sender("Q" * 40, "192.168.1.66")
    s.request("ann", "hello", 100.0, sender=ann, name="Ann", role="player", code="kqzr")
    s.request("tom", "hello", 100.25, sender=tom, name="Tom", role="player")
    for guess, t in (("AAAA", 100.5), ("BBBB", 100.75), ("CCCC", 101.0), ("DDDD", 101.25),
                     ("EEEE", 101.5)):
        s.request("tom", "hello", t, sender=tom, name="Tom", role="player", code=guess)
    token = s.find("a2c", kind("welcome"), peer="ann")["token"]
    s.request("mal", "hello", 101.75, sender=Sender(MAL_KEY, "192.168.1.66"), name="Mal",
              role="player", token=token)
    s.request("sid", "snapshot", 102.0, sender=Sender("S" * 40, "192.168.1.77"))
    return s


def _flood() -> dict[str, Any]:
    """A connection over a (tiny) rate limit: its 5th ping in the same instant is dropped, and
    it is told so once; a 6th is dropped unanswered."""
    s = Session("flood", vector_settings("racing-demon", players=2, seed=12060,
                                rate_limit=2.0, rate_burst=4.0))
    for _ in range(6):
        s.request("fast", "ping", 100.0, c=5.0)
    return s.find("a2c", kind("error", code="rate_limited"))


def _names() -> tuple[dict[str, Any], dict[str, Any]]:
    """Names (§4.5), at a table of their own whose session is not kept: Ann sits; a second
    player asking for "ANN" is the same name and sits as "ANN ²" (its welcome says so); a
    name of nothing but a flag (regional indicators, dropped) is refused ``malformed``."""
    s = Session("names", vector_settings("racing-demon", players=3, seed=12060))
    s.request("ann", "hello", 100.0, name="Ann", role="player")
    s.request("two", "hello", 100.0, name="ANN", role="player")
    s.request("nil", "hello", 100.0, name="\U0001F1E9\U0001F1EA", role="player")
    return (s.find("a2c", kind("welcome"), "two"),
            s.find("a2c", kind("error", code="malformed"), "nil"))


def _broken() -> dict[str, Any]:
    """An arbiter whose snapshot handler fails, as a bug would: the request is answered
    ``internal`` (and one line is logged, swallowed here) and the arbiter goes on serving."""
    s = Session("broken", vector_settings("racing-demon", players=2, seed=12060))

    def fails(*args: Any) -> None:
        raise RuntimeError("a bug, on purpose")

    s.arbiter.handlers["snapshot"] = fails
    with contextlib.redirect_stderr(io.StringIO()):
        s.request("ann", "snapshot", 100.0)
    s.request("ann", "ping", 100.0, c=5.0)
    assert s.log[-1]["msg"]["t"] == "pong", "the arbiter stopped serving after a bug"
    return s.find("a2c", kind("error", code="internal"))


def round_end() -> Session:
    """Racing Demon for two, seed 12060: a move still held in the fairness window when the round
    ends is answered all the same. Ann's ace founds stack 1; two RD-13 rotations; Ann votes
    stuck, then sends her 2 of spades to stack 1 — Bob could play his, so it waits out the
    window — and Bob's stuck vote makes the third rotation, which ends the round first."""
    s = Session("round-end", vector_settings("racing-demon", players=2, rounds=1, seed=12060,
                                    countdown=0.0))
    s.request("ann", "hello", 100.0, name="Ann", role="player")
    s.request("bob", "hello", 100.0, name="Bob", role="player")
    s.request("ann", "ready", 100.0)
    s.request("bob", "ready", 100.0)  # countdown 0: dealt at once
    t = 100.25
    s.request("ann", "move", t, round=0, move={"t": "play", "from": "pile", "to": "middle"},
              ts=t)
    for _ in range(2):
        for who in ("ann", "bob"):
            t += 1 / 32
            s.request(who, "move", t, round=0, move={"t": "stuck"}, ts=t)
    t += 1 / 32
    s.request("ann", "move", t, round=0, move={"t": "stuck"}, ts=t)
    t += 1 / 32
    s.request("ann", "move", t, round=0, move={"t": "play", "from": "c3", "to": "s1"}, ts=t)
    t += 1 / 128  # within Ann's window
    s.request("bob", "move", t, round=0, move={"t": "stuck"}, ts=t)
    return s


# The nonces and check words of the commit-and-reveal session; a real client draws 16 random
# bytes for each, every round.
ANN_NONCE = bytes(range(16))
BOB_NONCE = bytes(range(16, 32))
WORDS = {"ann": (bytes([0xA0] * 16), bytes([0xAF] * 16)),  # (ok word, fail word)
         "bob": (bytes([0xB0] * 16), bytes([0xBF] * 16))}


def promise(who: str, nonce: bytes) -> dict[str, str]:
    """A ``commit``'s hashes: the nonce's and the two check words' (§22.1)."""
    ok, fail = WORDS[who]
    return {"hash": fairdeal.commitment(nonce), "ok": fairdeal.commitment(ok),
            "fail": fairdeal.commitment(fail)}
HOST_SECRET = hashlib.sha256(b"lan_demon vector host secret").digest()


@contextlib.contextmanager
def _fixed_host_secret():
    """The operating system's randomness replaced by one fixed host secret, so the vectors of
    an unseeded table are the same on every run."""
    real = fairdeal.secrets.token_bytes
    fairdeal.secrets.token_bytes = lambda n: HOST_SECRET[:n]
    try:
        yield
    finally:
        fairdeal.secrets.token_bytes = real


def fair_deal() -> Session:
    """Commit and reveal (§22) at an unseeded table (its host secret fixed here): Ann and Bob
    commit their nonces and check words in the lobby; the countdown publishes the host's
    commitment and theirs; Bob's second commit is too late; both reveal (Bob first with the
    wrong nonce); Go names the nonces mixed in and the deal's fingerprint; Bob asks a snapshot
    during the round (its ``deal``: the fingerprint and his cards at Go); three RD-13 rotations
    end the round, whose end reveals the host secret; then Ann sends a dispute by hand, as a
    client whose check failed would, and both send their checks: Ann her "fail" word with the
    reason, Bob his "ok" word."""
    with _fixed_host_secret():
        s = Session("deal", vector_settings("racing-demon", players=2, rounds=1, seed=None,
                                   countdown=1.0))
        both = [("ann", b"ann"), ("bob", b"bob")]
        s.request("ann", "hello", 100.0, name="Ann", role="player")
        s.request("bob", "hello", 100.0, name="Bob", role="player")
        s.request("ann", "commit", 100.125, round=0, **promise("ann", ANN_NONCE))
        s.request("bob", "commit", 100.125, round=0, **promise("bob", BOB_NONCE))
        s.request("ann", "ready", 100.25)
        s.request("bob", "ready", 100.25)  # both ready: the countdown, with the commitments
        s.request("bob", "commit", 100.375, round=0, **promise("bob", ANN_NONCE))
        s.request("ann", "reveal", 100.5, round=0, nonce=ANN_NONCE.hex())
        s.request("bob", "reveal", 100.5, round=0, nonce=ANN_NONCE.hex())  # not Bob's
        s.request("bob", "reveal", 100.625, round=0, nonce=BOB_NONCE.hex())
        s.tick(101.25)  # Go
        s.request("bob", "snapshot", 101.375)  # during the round: the deal so far, his cards
        _rotate_out(s, both, 101.5, round_no=0)  # round_end (the secret), then match_end
        reason = "my cards are not the ones the promised deal gives"
        s.request("ann", "dispute", 102.0, round=0, reason=reason)
        s.request("ann", "check", 102.0, round=0, word=WORDS["ann"][1].hex(), reason=reason)
        s.request("bob", "check", 102.0, round=0, word=WORDS["bob"][0].hex())
    return s


def racko() -> Session:
    """Rack-O for two, seed 3: a draw and place (private card), a take, a draw and discard;
    then the player to move goes silent, is marked away, and after ``turn_timeout`` (5 s here)
    the arbiter plays the turn for it: a draw (its card told to that seat alone), a discard."""
    s = Session("racko", vector_settings("racko", players=2, rounds=1, seed=3, countdown=0.75,
                                turn_timeout=5.0))
    both = [("ann", b"ann"), ("bob", b"bob")]
    s.request("ann", "hello", 100.0, name="Ann", role="player")
    s.request("bob", "hello", 100.0, name="Bob", role="player")
    s.echo_probes(0)
    s.request("ann", "ready", 100.25)
    s.request("bob", "ready", 100.25)
    s.second(101.0, both)
    t = 101.25
    for plan in (["draw", "place"], ["take"], ["draw", "discard"]):
        seat = s.arbiter.game.to_move(s.arbiter.state)[0]
        who = both[seat][0]
        for step in plan:
            if step in ("draw", "discard"):
                move = {"t": step}
            else:
                rack = s.arbiter.state.racks[seat]
                slot = 5 * (1 + max(range(10), key=lambda i: abs(rack[i] - 4 * (i + 1))))
                move = {"t": step, "slot": slot}
            s.request(who, "move", t, round=0, move=move, ts=t - 1 / 128)
            t += 0.25
    absent = both[s.arbiter.game.to_move(s.arbiter.state)[0]][0]
    s.quiet.add(absent)  # its connection dies: no hb, no echo
    at = 103.0
    while not any(e["dir"] == "pub" and e["msg"].get("k") == "move" and e["msg"]["rid"] == -1
                  for e in s.log):
        if at > 120.0:
            raise SystemExit("racko: the arbiter never played the absent seat's turn")
        s.second(at, both)
        at += 1.0
    s.quiet.discard(absent)
    t = at - 0.5
    s.request("ann", "leave", t)
    s.request("bob", "leave", t + 0.25)
    return s


def gin_solitaire() -> Session:
    """Gin Solitaire duplicate for two (GS-9), seed 2: each seat plays the same deal with the
    greedy bot until it knocks; the first seat's result stays private until the round is over."""
    s = Session("gin-solitaire", vector_settings("gin-solitaire", players=2, rounds=1, seed=2,
                                        countdown=0.0))
    both = [("ann", b"ann"), ("bob", b"bob")]
    s.request("ann", "hello", 100.0, name="Ann", role="player")
    s.request("bob", "hello", 100.0, name="Bob", role="player")
    s.echo_probes(0)
    s.request("ann", "ready", 100.25)
    s.request("bob", "ready", 100.25)  # every seat ready, and no countdown: Go at once
    game, arb = s.arbiter.game, s.arbiter
    strategy = make_strategy(game.id, "greedy")
    rng = random.Random(1)
    t, beat_at = 100.5, 101.0
    for seat, (who, _) in enumerate(both):
        while arb.phase == "playing" and not arb.state.seats[seat].done:
            if t >= beat_at:
                s.second(beat_at, both)
                beat_at += 1.0
            move = strategy.choose(Turn(game, game.redact(arb.state, seat), seat, rng))
            s.request(who, "move", t, round=0, move=move.to_data(), ts=t - 1 / 128)
            t += 0.125
    s.request("ann", "leave", t)
    s.request("bob", "leave", t + 0.125)
    return s


def evening() -> Session:
    """The host runs the evening (§24): Ann, the captain, pauses a Racing Demon round; Bob's
    move and his resume are refused; Ann resumes it after 30 s, pauses it again and resumes,
    then removes Bob, who cannot come back with his token; a remove of him again and a resume
    of a running table are refused. Bob went away first, so his presence carries ``kept``.
    Last, Ann pauses and resumes at once, and her next pause half a second later is refused
    ``too_many`` (a seat pauses the table at most once in 10 s)."""
    s = _seated("evening", "racing-demon", seed=1, turn_timeout=600.0)
    s.request("ann", "resume", 100.5)  # not paused: not_paused
    s.request("ann", "pause", 100.5)
    s.request("bob", "move", 100.75, round=0, move={"t": "turn"}, ts=100.75)  # paused
    s.request("bob", "resume", 101.0)  # not the captain: not_host
    s.request("ann", "pause", 101.0)  # paused already: paused
    s.request("ann", "resume", 130.5)
    s.request("bob", "move", 130.75, round=0, move={"t": "turn"}, ts=130.75)  # taken again
    s.quiet.add("bob")
    s.second(131.5, [("ann", b"ann")])
    s.second(135.5, [("ann", b"ann")])  # Bob silent: away, kept 300 s
    s.request("ann", "remove", 136.0, seat=1)
    token = s.arbiter.seats[1].token
    s.request("ann", "remove", 136.25, seat=1)  # again: bad_seat
    s.request("bob2", "hello", 136.5, name="Bob", role="player", token=token)  # removed
    # A pause and a resume at once, then another pause: a seat pauses the table at most once
    # in 10 s (§2, Bounds): too_many, with the wait
    s.request("ann", "pause", 137.0)
    s.request("ann", "resume", 137.25)
    s.request("ann", "pause", 137.5)
    return s


class FillingDisk:
    """A journal whose disk the session fills and frees (§25): while records wait, what the
    table said about them is held back; the records themselves are dropped here."""

    def __init__(self) -> None:
        self.full = False
        self.pending: list[dict[str, Any]] = []
        self.failed: OSError | None = None
        self.why: str | None = None

    def write(self, record: dict[str, Any]) -> None:
        if self.full or self.pending:
            self.pending.append(record)
            self.failed, self.why = OSError(28, "No space left on device"), "disk_full"

    def retry(self) -> bool:
        if self.full:
            return False
        self.pending, self.failed, self.why = [], None, None
        return True


def stall() -> Session:
    """A full disk (§25): the host's disk fills as Ann's move is journaled. Her move's update
    waits; the PUB says ``stall``; Bob's ping is answered, his move refused ``stalled``; a
    second later ``stall`` again; the disk is freed, and the next try sends Ann's update, then
    ``stall`` with ``on`` false."""
    s = _seated("stall", "racing-demon", seed=1, turn_timeout=600.0)
    disk = FillingDisk()
    s.arbiter.attach_journal(disk, {"port": 7700, "pub_port": 7701})
    disk.full = True
    s.request("ann", "move", 100.5, round=0, move={"t": "turn"}, ts=100.5)
    s.request("bob", "ping", 100.625, c=100.5)
    s.request("bob", "move", 100.75, round=0, move={"t": "turn"}, ts=100.75)
    s.tick(101.5)
    disk.full = False
    s.tick(101.75)
    return s


def handover() -> Session:
    """A seat handed to a bot (§24): Ann, the captain, asks for a bot of level 11 (malformed),
    then hands Bob's seat to a level-3 bot: published ``removed`` with ``bot`` and
    ``new_name``, Bob's seat away; Bob's old token is refused ``removed``; the bot says hello
    with the seat's new token and is welcomed to seat 1 as "Bob L3"."""
    counter = counted_key.__defaults__[0]  # (the sessions made after this one keep their keys)
    keys_before = counter[0]
    s = _seated("handover", "racing-demon", seed=1, turn_timeout=600.0)
    handover_module.secrets = seats_module.secrets  # the seat's new token: counted too
    s.arbiter.handovers.takes_bots = True  # (a host's arbiter whose own bots take handovers)
    old = s.arbiter.seats[1].token
    s.request("ann", "remove", 100.5, seat=1, bot=11)  # malformed: no such level
    s.request("ann", "remove", 101.0, seat=1, bot=3)
    s.request("bob2", "hello", 101.25, name="Bob", role="player", token=old)  # removed
    s.request("bot", "hello", 101.5, name="Bob", role="player", bot=True,
              token=s.arbiter.seats[1].token)
    counter[0] = keys_before
    return s


def _seated(name: str, game: str, **config: Any) -> Session:
    """Ann and Bob seated and ready: the round dealt at once (no countdown)."""
    s = Session(name, vector_settings(game, players=2, countdown=0.0, **config))
    s.request("ann", "hello", 100.0, name="Ann", role="player")
    s.request("bob", "hello", 100.0, name="Bob", role="player")
    s.echo_probes(0)
    s.request("ann", "ready", 100.25)
    s.request("bob", "ready", 100.25)
    return s


def features() -> Session:
    """What the seeded sessions do not show, each from a table set up by hand (so no deal's
    luck is needed): Racing Demon's King claiming a stack (RD-6), a waste turned over (RD-9) and
    the table's RD-13 timeout; Rack-O's reshuffle (RK-8); Gin Solitaire's Big Gin (GS-6), the
    Joker drawn (GS-7) and a seat sitting a round out (GS-8). One log, several tables."""
    from lan_demon.games.cards import JOKER, parse_card
    from lan_demon.games.demon_table import DemonSeat, DemonState
    log = Session("features", vector_settings("racing-demon"))

    def keep(session: Session) -> None:
        log.log += session.log
        log.opened += session.opened

    # Racing Demon: Ann's K♥ tops stack 1 (A♥…Q♥); her Pack is empty, her waste is not.
    rd = _seated("rd", "racing-demon", seed=1, turn_timeout=600.0)  # no stand-in votes
    game = rd.arbiter.game
    cards = lambda text, o: [parse_card(c, o) for c in text.split()]  # noqa: E731
    seats = [DemonSeat(pile=cards("5C 9D", o), columns=[cards(top, o), cards("9S", o),
                                                        cards("8S", o), cards("7S", o)],
                       pack=[], waste=cards("3C 4D 6C", o), pile_size=13)
             for o, top in ((0, "KH"), (1, "4S"))]
    data = game.state_to_data(game.redact(DemonState(german=False, seats=seats), None))
    data["seats"] = [game.state_to_data(DemonState(german=False, seats=seats))["seats"][i]
                     for i in (0, 1)]
    data["stacks"] = [{"id": 1, "cards": [f"{r}H@1" for r in "A23456789TJQ"]}]
    data["next_stack"] = 2
    rd.arbiter.facts.state = game.state_from_data(data)
    rd.request("ann", "move", 100.5, round=0, move={"t": "play", "from": "c1", "to": "s1"},
               ts=100.5)  # RD-6: the King claims the stack; RD-8: the Pile refills c1
    rd.request("ann", "move", 100.75, round=0, move={"t": "turn"}, ts=100.75)  # RD-9 recycle
    rd.tick(100.75 + 60.0)  # RD-13: a minute with no play: the table's own move, seat −1
    keep(rd)

    # Rack-O: the Draw pile is empty; the seat to move draws: RK-8 turns the Discard over.
    rk = _seated("rk", "racko", seed=1)
    state = rk.arbiter.state
    state.discard = state.draw + state.discard
    state.draw = []
    who = ("ann", "bob")[state.turn]
    rk.request(who, "move", 100.5, round=0, move={"t": "draw"}, ts=100.5)
    keep(rk)

    # Gin Solitaire: Ann's 11 cards all meld (Big Gin); Bob's next draw is his Joker.
    gs = _seated("gs", "gin-solitaire", seed=1)
    ann, bob = gs.arbiter.state.seats
    ann.hand = [parse_card(c) for c in "AS 2S 3S 4S 5H 5D 5C 9C TC JC QC".split()]
    ann.phase = "discard"
    bob.phase = "draw"
    bob.draw.remove(JOKER)
    bob.draw.append(JOKER)
    gs.request("ann", "move", 100.5, round=0, move={"t": "big-gin"}, ts=100.5)
    gs.request("bob", "move", 100.75, round=0, move={"t": "draw"}, ts=100.75)
    keep(gs)

    # Gin Solitaire: a seat whose own match is decided sits the next round out (GS-8).
    so = Session("so", vector_settings("gin-solitaire", players=2, countdown=1.0,
                              seed=1))
    so.request("ann", "hello", 100.0, name="Ann", role="player")
    so.request("bob", "hello", 100.0, name="Bob", role="player")
    so.echo_probes(0)
    so.request("ann", "ready", 100.25)
    so.request("bob", "ready", 100.25)
    so.arbiter.match.setup = {"players": 2, "sat_out": [1], "deals": "duplicate"}
    so.tick(101.25)  # Go: Bob's seat is over from the start, its result sat-out
    keep(so)

    # Racing Demon: Ann plays her waste's A♣ (its new top, 4♦, is hers alone: sealed), then her
    # last Pile card, the 2♣, onto it: her Pile is empty, she is out (RD-12).
    out = _seated("out", "racing-demon", seed=1, turn_timeout=600.0)
    seats = [DemonSeat(pile=cards(pile, o), columns=[cards(c, o) for c in ("KH", "9S", "8S",
                                                                            "7S")],
                       pack=cards("5H 6H", o), waste=cards(waste, o), pile_size=13)
             for o, pile, waste in ((0, "2C", "3C 4D AC"), (1, "9D 5C", "3H"))]
    data = game.state_to_data(game.redact(DemonState(german=False, seats=seats), None))
    data["seats"] = game.state_to_data(DemonState(german=False, seats=seats))["seats"]
    out.arbiter.facts.state = game.state_from_data(data)
    out.request("ann", "move", 100.5, round=0, move={"t": "play", "from": "waste",
                                                    "to": "middle"}, ts=100.5)
    out.request("ann", "move", 100.75, round=0, move={"t": "play", "from": "pile", "to": "s1"},
                ts=100.75)
    keep(out)

    # Rack-O: the seat to move takes the Discard's 39 into slot 50, and its rack ascends (RK-5).
    ro = _seated("ro", "racko", seed=1)
    state = ro.arbiter.state
    mover = state.turn
    state.racks[mover] = [4, 8, 12, 16, 20, 24, 28, 32, 36, 2]
    state.racks[1 - mover] = [1, 3, 5, 7, 9, 11, 13, 15, 17, 19]
    state.discard = [21, 39]
    taken = set(state.racks[0]) | set(state.racks[1]) | set(state.discard)
    state.draw = [n for n in range(40, 0, -1) if n not in taken]
    ro.request(("ann", "bob")[mover], "move", 100.5, round=0, move={"t": "take", "slot": 50},
               ts=100.5)
    keep(ro)

    # Gin Solitaire: Ann drew her 11th card; the K♦ discarded, her 10 all meld: Gin (GS-6).
    gg = _seated("gg", "gin-solitaire", seed=1)
    ann = gg.arbiter.state.seats[0]
    ann.hand = [parse_card(c) for c in "AS 2S 3S 4S 5H 5D 5C 9C TC JC KD".split()]
    ann.draw = [c for c in ann.draw if c not in ann.hand]
    ann.phase = "discard"
    gg.request("ann", "move", 100.5, round=0, move={"t": "knock", "card": "KD"}, ts=100.5)
    keep(gg)
    return log


# ------------------------------------------------------------------------------------- vectors


def build() -> list[tuple[str, dict[str, Any], str]]:
    """(name, message, description) of every vector."""
    rd = racing_demon()
    rk = racko()
    gs = gin_solitaire()
    lan = lan_table()
    es, errs = errors(rd, lan)
    re_ = round_end()
    fd = fair_deal()
    errs["too_late"] = fd.find("a2c", kind("error", code="too_late"))
    errs["bad_reveal"] = fd.find("a2c", kind("error", code="bad_reveal"))
    ev = evening()
    for code in ("paused", "not_paused", "bad_seat", "removed", "too_many"):
        errs[code] = ev.find("a2c", kind("error", code=code))
    ho = handover()
    st = stall()
    errs["stalled"] = st.find("a2c", kind("error", code="stalled"))
    ft = features()
    for session in (rd, rk, gs, es, re_, lan, fd, ft, ev, ho, st):
        session.write_log()
    write_worked_session(rd.log)

    def c2a(pred, who=None, session=rd, nth=0):
        return session.find("c2a", pred, who, nth)

    def a2c(pred, who=None, session=rd, nth=0):
        return session.find("a2c", pred, who, nth)

    def pub(pred, session=rd, nth=0):
        return session.find("pub", pred, None, nth)

    move_is = lambda m, **f: m.get("t") == "move" and all(  # noqa: E731
        m["move"].get(k) == v for k, v in f.items())
    upd_move = lambda m, **f: m.get("t") == "update" and m["k"] == "move" and all(  # noqa: E731
        m["move"].get(k) == v for k, v in f.items())

    v: list[tuple[str, dict[str, Any], str]] = []
    add = lambda name, msg, text: v.append((name, msg, text))  # noqa: E731

    # --- client → arbiter ----------------------------------------------------------------
    add("c2a_hello", c2a(kind("hello"), "ann"), "a player asks for a seat")
    add("c2a_hello_bot", c2a(kind("hello", bot=True), "bob"), "a bot asks for a seat")
    add("c2a_hello_spectator", c2a(kind("hello", role="spectator")), "a spectator joins")
    add("c2a_hello_reconnect", c2a(lambda m: m["t"] == "hello" and "token" in m),
        "a player comes back to its seat with its session token")
    add("c2a_hello_code", c2a(kind("hello"), "ann", session=lan),
        "a player asks for a seat at a table with a room code (§20)")
    add("c2a_ping", c2a(kind("ping")), "clock sync: the client's clock c at sending")
    add("c2a_echo", c2a(kind("echo")), "the answer to a probe: its a, unchanged")
    add("c2a_ready", c2a(kind("ready")), "ready for the (next) round")
    add("c2a_start", c2a(kind("start"), session=es),
        "the host (seat 0) starts the match")
    add("c2a_snapshot", c2a(kind("snapshot")), "ask for the whole table (Clone pattern)")
    add("c2a_hb", c2a(kind("hb")), "heartbeat, once a second")
    add("c2a_leave", c2a(kind("leave")), "leave the table")
    add("c2a_commit", c2a(kind("commit"), "ann", session=fd),
        "commit and reveal (§22): the SHA-256 of this seat's nonce for the next round")
    add("c2a_reveal", c2a(kind("reveal"), "ann", session=fd),
        "commit and reveal (§22): the nonce, once the countdown lists its commitment")
    add("c2a_dispute", c2a(kind("dispute"), session=fd),
        "commit and reveal (§22): this client's check of a revealed deal failed")
    add("c2a_check", c2a(kind("check"), "ann", session=fd),
        "commit and reveal (§22.6): this seat's check of a finished round — its fail word, "
        "with the reason")
    add("c2a_check_ok", c2a(kind("check"), "bob", session=fd),
        "commit and reveal (§22.6): this seat's check of a finished round — its ok word")
    add("c2a_check_lost", make("check", id=4, round=2, lost=True),
        "commit and reveal (§22.6): a program closed and run again holds no promise for round "
        "2, which the program before it made in its seat's name: lost, instead of a word")
    add("c2a_move_rd_play", c2a(lambda m: move_is(m, t="play", to="middle")),
        "Racing Demon: play the Pile's top card to the middle (an ace founds a stack)")
    add("c2a_move_rd_play_stack", c2a(lambda m: move_is(m, t="play", to="s1"), "bob"),
        "Racing Demon: play a column's top card onto stack 1")
    add("c2a_move_rd_run", make("move", id=9, round=0,
                                move={"t": "play", "from": "c1", "to": "c3", "n": 2},
                                ts=104.875),
        "Racing Demon: ladder a run of the 2 top cards of column 1 onto column 3 (RD-7)")
    add("c2a_move_rd_turn", c2a(lambda m: move_is(m, t="turn")), "Racing Demon: turn the Pack")
    add("c2a_move_rd_stuck", c2a(lambda m: move_is(m, t="stuck")),
        "Racing Demon: vote stuck (RD-13)")
    add("c2a_move_rd_out", c2a(lambda m: move_is(m, t="out"), session=es),
        "Racing Demon: call OUT by hand (RD-12; the engine calls it itself)")
    add("c2a_move_racko_draw", c2a(lambda m: move_is(m, t="draw"), session=rk),
        "Rack-O: draw the top Draw card")
    add("c2a_move_racko_place", c2a(lambda m: move_is(m, t="place"), session=rk),
        "Rack-O: put the drawn card into a slot")
    add("c2a_move_racko_take", c2a(lambda m: move_is(m, t="take"), session=rk),
        "Rack-O: take the top Discard into a slot")
    add("c2a_move_racko_discard", c2a(lambda m: move_is(m, t="discard"), session=rk),
        "Rack-O: discard the drawn card")
    add("c2a_move_gin_discard", c2a(lambda m: move_is(m, t="discard"), session=gs),
        "Gin Solitaire: discard a card face down")
    add("c2a_move_gin_draw", c2a(lambda m: move_is(m, t="draw"), session=gs),
        "Gin Solitaire: draw")
    add("c2a_move_gin_knock", c2a(lambda m: move_is(m, t="knock"), session=gs),
        "Gin Solitaire: knock, discarding a card face down")

    add("c2a_pause", c2a(kind("pause"), "ann", session=ev),
        "the captain pauses the whole table: every clock stops (§24)")
    add("c2a_resume", c2a(kind("resume"), "ann", session=ev),
        "the captain resumes it: every clock moves on by the pause (§24)")
    add("c2a_remove", c2a(kind("remove"), "ann", session=ev),
        "the captain gives seat 1 up for good (§24)")
    add("c2a_remove_bot", c2a(kind("remove", bot=3), "ann", session=ho),
        "the captain hands seat 1 to a bot of level 3, which plays it on (§24)")

    # --- arbiter → one client ------------------------------------------------------------
    add("a2c_welcome", a2c(kind("welcome"), "ann"), "a seat taken: seat, token, PUB endpoint")
    add("a2c_welcome_spectator", a2c(kind("welcome"), "eve"),
        "a spectator admitted: no seat, empty token")
    add("a2c_pong", a2c(kind("pong")), "clock sync: the client's c back, with the arbiter's a")
    add("a2c_probe", a2c(kind("probe")), "the arbiter measures the round trip: echo a back")
    add("a2c_ok", a2c(lambda m: m["t"] == "ok" and "seq" not in m), "a request done")
    # (version 2's a2c_ok_move is gone: a committed move is answered by its update alone, §3)
    for code in ERROR_CODES:
        add(f"a2c_error_{code}", errs[code], f"error {code}: {ERROR_CODES[code]}")
    add("a2c_error_malformed_re", a2c(lambda m: m["t"] == "error" and m["code"] == "malformed"
                                      and "re" in m, session=es),
        "a frame that does not decode but is a map with an integer id: the error carries re")
    add("a2c_error_not_joined_snapshot", a2c(kind("error", code="not_joined"), session=lan),
        "a table with a room code: a snapshot from a connection that has not given it (§20)")
    add("a2c_error_beaten_middle", a2c(kind("error", code="beaten"), session=es),
        "Racing Demon: a card sent \"to the middle\" whose stack another card took first "
        "(RD-11)")
    add("a2c_error_held_at_round_end", a2c(kind("error", code="illegal"), session=re_),
        "Racing Demon: a move still held in the fairness window when the round ended")
    add("a2c_error_malformed_level", a2c(kind("error", code="malformed"), session=ho),
        "a remove asking for a bot of level 11: the levels go from 1 to 10 (§24)")
    add("a2c_error_removed_handed", a2c(kind("error", code="removed"), session=ho),
        "a hello with the token of a seat handed to a bot: refused, saying who handed it over "
        "and the bot's name (§24)")
    add("a2c_welcome_handed_bot", a2c(kind("welcome"), "bot", session=ho),
        "the bot of a seat handed over takes it by its new token: seat 1, named Bob L3 (§24)")
    add("a2c_welcome_moved_up", a2c(kind("welcome", re=0), session=es),
        "unasked, re 0: a lobby leave moved this seat up (its new seat number)")
    taken, nameless = _names()
    add("a2c_welcome_name_taken", taken,
        "a seat taken under another name: \"ANN\" asked for, \"Ann\" seated, so \"ANN ²\" (§4.5)")
    add("a2c_error_malformed_name", nameless,
        "a name with nothing to show (a flag's regional indicators are dropped): no seat (§4.5)")
    add("a2c_snap_lobby", a2c(kind("snap"), "ann"), "a snapshot before the match (no state)")
    add("a2c_snap_spectator", a2c(kind("snap"), "eve"),
        "a spectator's snapshot in play: the public state")
    add("a2c_snap_seat", a2c(kind("snap"), "bob"),
        "a returning player's snapshot: the state as its seat may see it")
    add("a2c_snap_deal", a2c(kind("snap"), "bob", session=fd),
        "a snapshot during a round at an unseeded table: table.deal holds what the countdown "
        "and Go published, and this seat's cards as Go dealt them (§22.4)")
    add("a2c_private_round", a2c(kind("private", k="round"), "ann"),
        "Racing Demon: the round as seat 0 may see it, at the seq of the public round update")
    add("a2c_private_move_rd_turn", a2c(kind("private", k="move"), "ann"),
        "Racing Demon: the mover's full events of a turn (its new waste top)")
    add("a2c_private_round_racko", a2c(kind("private", k="round"), session=rk),
        "Rack-O: the round as one seat may see it (its own rack)")
    add("a2c_private_move_racko_draw", a2c(kind("private", k="move"), session=rk),
        "Rack-O: the drawn card, to its drawer")
    add("a2c_private_move_gin_discard", a2c(kind("private", k="move"), session=gs),
        "Gin Solitaire: a face-down discard, told to its mover with the real move")

    # --- arbiter → everyone --------------------------------------------------------------
    add("pub_update_lobby", pub(kind("update", k="lobby"), nth=3), "the seats before the match")
    add("pub_update_presence_away", pub(kind("update", k="presence", status="away")),
        "a seat went silent")
    add("pub_update_presence_here", pub(kind("update", k="presence", status="here")),
        "a seat is back")
    add("pub_update_presence_left", pub(kind("update", k="presence", status="left")),
        "a player left")
    for k, about in (  # the evening (§24)
            ("pause", "the captain paused the whole table: moves are refused paused until a "
                      "resume"),
            ("resume", "the table runs again; every clock published before moves on by paused"),
            ("removed", "seat 1 given up for good by the captain: its token is refused removed")):
        add(f"pub_update_{k}", pub(kind("update", k=k), session=ev), f"{about} (§24)")
    add("pub_update_removed_bot", pub(kind("update", k="removed", bot=3), session=ho),
        "seat 1 handed to a level-3 bot by the captain: renamed new_name, played on (§24)")
    add("pub_update_presence_removed", pub(kind("update", k="presence", status="left"),
                                           session=ev),
        "the removed seat's presence: left, for good (§24)")
    add("pub_update_countdown", pub(kind("update", k="countdown")), "Go is at arbiter time go")
    round_update = pub(kind("update", k="round"))
    add("pub_update_round", round_update, "Racing Demon: Go — the public state of the round")
    add("pub_update_move", pub(lambda m: upd_move(m, t="play", to="s1")),
        "Racing Demon: an ace founded stack 1; the new Pile top is public")
    add("pub_update_move_contested", pub(lambda m: upd_move(m, t="play") and m["seat"] == 1),
        "Racing Demon: the winner of a contested place (RD-11)")
    add("pub_update_move_private", pub(lambda m: upd_move(m, t="turn")),
        "Racing Demon: a turn; p is true and s holds the mover's half, sealed (§23)")
    add("pub_update_move_rotate", pub(lambda m: upd_move(m, t="stuck") and any(
        e["e"] == "rotate" for e in m["events"])), "Racing Demon: RD-13 rotation")
    add("pub_update_round_end", pub(kind("update", k="round_end")), "the round's result")
    add("pub_update_match_end", pub(kind("update", k="match_end")), "the match's result")
    stand_in = pub(lambda m: upd_move(m, t="draw") and m["rid"] == -1, session=rk)
    add("pub_update_move_stand_in", stand_in,
        "Rack-O: the arbiter plays an absent seat's turn (rid -1): first its draw")
    # Stand-in moves are answered to nobody (§12); version 2's a2c_ok_stand_in is gone.
    add("pub_update_round_racko", pub(kind("update", k="round"), session=rk),
        "Rack-O: the public state of a round")
    add("pub_update_move_racko_place", pub(lambda m: upd_move(m, t="place"), session=rk),
        "Rack-O: a drawn card placed (the replaced card goes face up)")
    add("pub_update_round_gin", pub(kind("update", k="round"), session=gs),
        "Gin Solitaire: the public state of a round")
    add("pub_update_move_gin_discard", pub(lambda m: upd_move(m, t="discard"), session=gs),
        "Gin Solitaire: a face-down discard as everyone sees it")
    add("pub_update_move_gin_knock", pub(lambda m: upd_move(m, t="knock"), session=gs),
        "Gin Solitaire: the first seat knocks; its result is not public yet (GS-9)")
    add("a2c_private_move_gin_knock", a2c(lambda m: m["t"] == "private" and m["k"] == "move"
                                          and m.get("move", {}).get("t") == "knock", session=gs),
        "Gin Solitaire: the knocker's own result, told to it alone")
    add("pub_update_move_gin_round_over", pub(lambda m: m.get("k") == "move" and any(
        e["e"] == "round-over" for e in m["events"]), session=gs),
        "Gin Solitaire: the last seat ends; every result is public (round-over)")
    add("pub_update_round_end_gin", pub(kind("update", k="round_end"), session=gs),
        "Gin Solitaire: the round's result (players' sides, then their Jokers')")
    add("pub_update_countdown_commit", pub(kind("update", k="countdown"), session=fd),
        "the countdown at an unseeded table: the host's commitment and the players' (§22)")
    add("pub_update_round_nonces", pub(kind("update", k="round"), session=fd),
        "Go at an unseeded table: the nonces mixed into the deal (§22)")
    add("pub_update_round_end_secret", pub(kind("update", k="round_end"), session=fd),
        "a round's end reveals the host secret its deal came from (§22)")
    add("pub_update_dispute", pub(kind("update", k="dispute"), session=fd),
        "a seat's client says a revealed deal did not match its commitments (§22)")
    add("pub_update_check", pub(kind("update", k="check"), session=fd),
        "a seat's check of a finished round, published for every client to judge (§22.6)")
    add("pub_update_check_lost", make("update", seq=4012, k="check", seat=1, round=2,
                                      lost=True),
        "seat 1's program was closed and run again: its check of round 2 cannot come (§22.6)")
    add("pub_stall", pub(kind("stall", on=True), session=st),
        "the host's journal cannot be written (its disk is full): the table stands still, "
        "moves are refused stalled, and this comes again every second, unnumbered (§25)")
    add("pub_stall_over", pub(kind("stall", on=False), session=st),
        "the disk took the journal again: the updates that waited came just before this, and "
        "every clock moves on by stood (§25)")
    add("pub_beat_lobby", pub(kind("beat", hash="")), "a heartbeat with no round dealt")
    beat = pub(lambda m: m["t"] == "beat" and m["seq"] == round_update["seq"])
    add("pub_beat", beat, "a heartbeat: its hash is of pub_update_round's state")
    # --- frames of several messages (§2): what one step of the arbiter sends at once -------
    add("a2c_batch", rd.find_frame("a2c", lambda ms: ms[0]["t"] == "welcome", "ann"),
        "one frame to one client, two messages: the welcome of Ann's hello and the probe "
        "that follows it")
    add("pub_batch", rd.find_frame("pub", lambda ms: ms[-1].get("k") == "countdown"),
        "one PUB frame, two updates: Bob's ready (the lobby update) and the countdown it starts")
    add("pub_batch_beat", rd.find_frame("pub", lambda ms: ms[0]["t"] == "beat"),
        "one PUB frame of a tick: the second's beat, then a seat marked away (presence)")
    # --- what the seeded sessions do not show (session-features.jsonl: tables set by hand) --
    has = lambda m, e: any(x["e"] == e for x in m["events"])  # noqa: E731
    add("pub_update_move_rd_king", pub(lambda m: upd_move(m, t="play") and has(m, "king"),
                                       session=ft),
        "Racing Demon: a King claims its stack (RD-6); the Pile refills the column (RD-8)")
    add("pub_update_move_rd_recycle", pub(lambda m: upd_move(m, t="turn") and has(m, "recycle"),
                                          session=ft),
        "Racing Demon: the Pack was empty: the waste is turned over, then turned (RD-9)")
    add("a2c_private_move_rd_recycle", a2c(lambda m: m["t"] == "private" and m["k"] == "move"
                                           and has(m, "recycle"), session=ft),
        "Racing Demon: the mover's half of a recycled turn: the new waste top")
    add("pub_update_move_rd_timeout", pub(lambda m: upd_move(m, t="timeout"), session=ft),
        "Racing Demon: 60 s without a play: the table's own move (seat -1, rid -1; RD-13)")
    add("pub_update_move_racko_reshuffle", pub(lambda m: upd_move(m, t="draw")
                                               and has(m, "reshuffle"), session=ft),
        "Rack-O: a draw from an empty Draw pile turns the Discard pile over first (RK-8)")
    add("pub_update_move_gin_big_gin", pub(lambda m: upd_move(m, t="big-gin"), session=ft),
        "Gin Solitaire: Big Gin, all 11 cards melded, no discard (GS-6)")
    add("pub_update_move_gin_joker", pub(lambda m: upd_move(m, t="draw") and any(
        x.get("joker") for x in m["events"]), session=ft),
        "Gin Solitaire: the Joker drawn: the seat's round ends at once (GS-7)")
    add("a2c_private_move_gin_joker", a2c(lambda m: m["t"] == "private" and m["k"] == "move"
                                          and any(x.get("joker") for x in m["events"]),
                                          session=ft),
        "Gin Solitaire: the drawer's half: the card JK and its result (joker)")
    add("pub_update_round_gin_sat_out", pub(lambda m: m.get("k") == "round"
                                            and m["setup"].get("sat_out"), session=ft),
        "Gin Solitaire: a seat whose own match is decided sits the round out (GS-8)")
    add("pub_update_move_rd_waste", pub(lambda m: upd_move(m, t="play", **{"from": "waste"}),
                                        session=ft),
        "Racing Demon: a play from the waste; its new waste top is the mover's alone (p, s)")
    add("a2c_private_move_rd_waste", a2c(lambda m: m["t"] == "private" and m["k"] == "move"
                                         and m["events"][0].get("from") == "waste",
                                         session=ft),
        "Racing Demon: the mover's half of a waste play: the real new waste top (waste_top)")
    add("pub_update_move_rd_out", pub(lambda m: upd_move(m, t="play") and has(m, "out"),
                                      session=ft),
        "Racing Demon: the last Pile card played: the Pile is empty (top nil), OUT (RD-12)")
    add("pub_update_move_racko_racko", pub(lambda m: upd_move(m, t="take") and has(m, "racko"),
                                           session=ft),
        "Rack-O: a take that makes the rack ascend: the round ends, Rack-O (RK-5)")
    add("pub_update_move_gin_gin", pub(lambda m: upd_move(m, t="knock") and has(m, "gin"),
                                       session=ft),
        "Gin Solitaire: a knock with every card melded is Gin (GS-6); its result private")
    add("a2c_private_move_gin_gin", a2c(lambda m: m["t"] == "private" and m["k"] == "move"
                                        and has(m, "gin"), session=ft),
        "Gin Solitaire: the knocker's half of Gin: the real card and its result")
    return v


# --- §21 The deal: secret → every seat's cards, for each game ------------------------------

#: (file stem, game, setup, where the round secret comes from, about). A host secret with
#: nonces is a table's round (§21.1); a seed is ``--seed``, ``simulate`` and the arena.
DEALS: list[tuple[str, str, dict[str, Any], dict[str, Any], str]] = [
    ("deal-racing-demon", "racing-demon", {"pile_sizes": [13, 14, 12], "handicap": True},
     {"host_secret": bytes(range(32)), "nonces": {0: bytes([0xA0] * 16), 2: bytes([0x5C] * 16)}},
     "Racing Demon, 3 seats with handicapped Piles of 13, 14, 12; a host secret and two of "
     "the three seats' nonces"),
    ("deal-racing-demon-german", "racing-demon-german",
     {"pile_sizes": [11, 11], "handicap": False}, {"seed": 55, "round": 0},
     "German Racing Demon, 2 seats, Piles of 11; a seeded table (seed 55, round 0)"),
    ("deal-racko", "racko", {"players": 3, "bonus": False},
     {"host_secret": bytes(range(255, 223, -1)), "nonces": {1: bytes(range(16))}},
     "Rack-O, 3 players (cards 1-50): the cut for dealer, then the dealer's shuffle and deal; "
     "a host secret and seat 1's nonce"),
    ("deal-gin-solitaire", "gin-solitaire", {"players": 2, "sat_out": [], "deals": "duplicate"},
     {"seed": "7", "round": 2},
     "Gin Solitaire, 2 seats (the same deal each, GS-9); a seeded table (seed \"7\", round 2)"),
    ("deal-gin-solitaire-independent", "gin-solitaire",
     {"players": 3, "sat_out": [1], "deals": "independent"},
     {"host_secret": bytes(range(64, 96)), "nonces": {2: bytes([0x27] * 16)}},
     "Gin Solitaire, 3 seats with independent deals (GS-9): seat 0's, then seat 1's (sitting "
     "the round out, dealt all the same), then seat 2's; a host secret and seat 2's nonce"),
]


def deal_vectors() -> dict[str, dict[str, Any]]:
    """PROTOCOL.md §21: for each game, the secret, the round secret, a plain check shuffle and
    every seat's cards in order, as the engine deals them."""
    from lan_demon.games import get_game
    from lan_demon.games.deal import DEAL_TAG, DealRandom, round_secret, seed_secret
    import hashlib
    docs = {}
    for stem, game_id, setup, source, about in DEALS:
        game = get_game(game_id)
        doc: dict[str, Any] = {"about": about, "game": game_id, "setup": setup}
        if "seed" in source:
            host = seed_secret(source["seed"], source["round"])
            nonces: dict[int, bytes] = {}
            doc.update(seed=source["seed"], round=source["round"])
        else:
            host, nonces = source["host_secret"], source["nonces"]
        secret = round_secret(host, nonces)
        doc.update(host_secret=host.hex(), nonces=[[k, v.hex()] for k, v in sorted(nonces.items())],
                   round_secret=secret.hex())
        doc["block_0"] = hashlib.sha256(DEAL_TAG + secret + (0).to_bytes(8, "big")).hexdigest()
        check = list(range(52))
        DealRandom(secret).shuffle(check)
        doc["shuffle_0_to_51"] = check  # the first shuffle of a fresh stream, of 0 … 51
        state = game.deal(setup, DealRandom(secret))
        doc["deal"] = _dealt(game_id, game, setup, secret, state)
        # §22.4: the dealt state's map with nothing hidden, and the deal's fingerprint of it
        doc["state"] = game.state_to_data(state)
        doc["fingerprint"] = fairdeal.deal_hash(secret, doc["state"])
        docs[stem] = doc
    return docs


def _cards(cards: list[Any]) -> list[Any]:
    return [c if isinstance(c, int) else c.to_data() for c in cards]


def _dealt(game_id: str, game: Any, setup: dict[str, Any], secret: bytes,
           state: Any) -> dict[str, Any]:
    """Every seat's cards as dealt, lists bottom first (the top card last)."""
    from lan_demon.games.deal import DealRandom
    if game_id.startswith("racing-demon"):
        return {"seats": [{"pile": _cards(s.pile), "columns": [_cards(c) for c in s.columns],
                           "pack": _cards(s.pack)} for s in state.seats]}
    if game_id == "racko":
        from lan_demon.games.racko import deck_size
        deck = list(range(1, deck_size(setup["players"]) + 1))
        rng = DealRandom(secret)
        rng.shuffle(deck)
        cut = deck[::-1][:setup["players"]]  # seat 0 draws the top card, seat 1 the next, …
        assert state.dealer == cut.index(max(cut))
        return {"cut": cut, "dealer": state.dealer, "racks": [list(r) for r in state.racks],
                "discard": list(state.discard), "draw": list(state.draw), "turn": state.turn}
    return {"seats": [{"hand": _cards(s.hand), "draw": _cards(s.draw)} for s in state.seats]}


def write_deal_vectors() -> None:
    for stem, doc in deal_vectors().items():
        rows = [f"  {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}" for k, v in doc.items()]
        (OUT / f"{stem}.json").write_text("{\n" + ",\n".join(rows) + "\n}\n", encoding="utf-8")


SEALS = [  # PROTOCOL.md §23: (about, key text, seq, the update's events, the real move)
    ("a Racing Demon turn: the new waste top; one block of keystream", "seal example 1", 11,
     [{"e": "turn", "seat": 0, "n": 3, "pack": 32, "waste": 3,
       "private": {"waste_top": "QS@0"}}], None),
    ("a Gin Solitaire discard face down: its card, and the real move", "seal example 2", 40,
     [{"e": "discard", "seat": 0, "first": True, "private": {"card": "KH"}}],
     {"t": "discard", "card": "KH"}),
    ("made up, longer than any game's today: two blocks of keystream", "seal example 3", 300,
     [{"e": "play", "seat": 2, "from": "waste", "cards": ["9C@2"],
       "private": {"waste_top": "TD@2"}, "to": "s4"},
      {"e": "pile", "seat": 2, "size": 7, "top": "3S@2"},
      {"e": "turn", "seat": 2, "n": 3, "pack": 12, "waste": 9,
       "private": {"waste_top": "KH@2", "note": "a longer private part than any game sends"}}],
     None),
]


def seal_vectors() -> list[dict[str, Any]]:
    """§23's worked seals: the key, the plaintext, the first keystream block, the sealed
    bytes — enough to check an implementation step by step."""
    docs = []
    for about, text, seq, events, move in SEALS:
        key = hashlib.sha256(text.encode()).digest()
        half = half_of(events, move)
        body = msgpack.packb(half, use_bin_type=True)
        padded = -(-(len(body) + 2) // 32) * 32
        plain = len(body).to_bytes(2, "big") + body + bytes(padded - len(body) - 2)
        nonce = seq.to_bytes(8, "big")
        block0 = hashlib.blake2b(b"k" + nonce + bytes(4), key=key).digest()
        sealed = seal(key, seq, half)
        assert open_seal(key, seq, sealed) == half and open_seal(key, seq + 1, sealed) is None
        docs.append({"about": about, "key": key.hex(), "key_is": f"SHA-256 of {text!r}",
                     "seq": seq, "events": events, **({"move": move} if move else {}),
                     "half": half, "plaintext": plain.hex(),
                     "keystream_block_0": block0.hex(),
                     "tag": sealed[-16:].hex(), "sealed": sealed.hex()})
    return docs


def write_seal_vectors() -> None:
    rows = [f"  {json.dumps(doc, ensure_ascii=False)}" for doc in seal_vectors()]
    (OUT / "seal.json").write_text("[\n" + ",\n".join(rows) + "\n]\n", encoding="utf-8")


def state_hash(state: dict[str, Any]) -> str:
    """PROTOCOL.md §9: crc32 of the msgpack bytes of the public state, 8 lowercase hex digits."""
    return f"{zlib.crc32(msgpack.packb(state, use_bin_type=True)):08x}"


def main() -> None:
    OUT.mkdir(exist_ok=True)
    if sys.argv[1:] == ["--deals"]:  # §21's deal vectors alone (they need no session)
        write_deal_vectors()
        print(f"{len(DEALS)} deal vectors in {OUT.relative_to(HERE.parent)}")
        return
    for old in list(OUT.glob("*.json")) + list(OUT.glob("*.msgpack")) + list(OUT.glob("*.jsonl")):
        old.unlink()
    vectors = build()
    names = [n for n, _, _ in vectors]
    assert len(names) == len(set(names)), "vector names repeat"
    index = []
    covered: dict[str, set[str]] = {"client": set(), "private": set(), "pub": set()}
    kinds: set[str] = set()
    for name, msg, text in vectors:
        channel = CHANNELS[name[:3]]
        msgs = msg if isinstance(msg, list) else [msg]
        frame = encode(msg) if isinstance(msg, dict) else encode_many(msgs)
        assert isinstance(msg, dict) or (len(msgs) > 1 and channel != "client"), name
        # every vector is valid on its channel, and a frame of several reads as its messages
        assert decode_all(frame, channel) == msgs if channel != "client" else \
            decode(frame, channel) == msg, name
        assert json.loads(json.dumps(jsonable(msg)), object_hook=from_json) == msg, name
        for m in msgs:
            covered[channel].add(m["t"])
            if m["t"] == "update":
                kinds.add(m["k"])
        (OUT / f"{name}.json").write_text(json.dumps(jsonable(msg), indent=2,
                                                     ensure_ascii=False) + "\n",
                                          encoding="utf-8")
        (OUT / f"{name}.msgpack").write_bytes(frame)
        index.append({"name": name, "channel": channel,
                      "type": msg["t"] if isinstance(msg, dict) else
                      "[" + ", ".join(m["t"] for m in msgs) + "]",
                      "bytes": len(frame), "about": text})
    missing = [(c, t) for c, schema in (("client", FROM_CLIENT), ("private", TO_CLIENT),
                                        ("pub", PUBLISHED))
               for t in schema if t not in covered[c]]
    assert not missing, f"message types without a vector: {missing}"
    wanted = {"lobby", "presence", "countdown", "round", "move", "round_end", "match_end",
              "pause", "resume", "removed"}
    assert wanted <= kinds, f"update kinds without a vector: {wanted - kinds}"
    by_name = {n: m for n, m, _ in vectors}
    assert state_hash(by_name["pub_update_round"]["state"]) == by_name["pub_beat"]["hash"]
    # the behaviours PROTOCOL.md describes with these vectors are still what the arbiter does
    assert by_name["a2c_error_beaten_middle"]["rule"] == "RD-11"
    assert by_name["a2c_error_held_at_round_end"]["rule"] == "RD-13"
    assert by_name["a2c_error_malformed_re"]["re"] == 7
    assert by_name["a2c_error_rate_limited"]["re"] == 5
    assert by_name["a2c_welcome_moved_up"]["seat"] == 0
    assert by_name["a2c_welcome_name_taken"]["name"] == "ANN ²"
    assert by_name["a2c_welcome_handed_bot"]["name"] == "Bob L3"
    assert by_name["pub_update_removed_bot"]["new_name"] == "Bob L3"
    assert by_name["a2c_error_removed_handed"]["reason"].startswith("Ann handed the seat of Bob")
    assert "needs a name" in by_name["a2c_error_malformed_name"]["reason"]
    assert by_name["a2c_error_slow_down"]["wait"] == 0.75  # 1 s earned at 101.25, asked at 101.5
    assert [m["t"] for m in by_name["a2c_batch"]] == ["welcome", "probe"]
    sealed, private = by_name["pub_update_move_private"], by_name["a2c_private_move_rd_turn"]
    assert sealed["seq"] == private["seq"] and sealed["seat"] == by_name["a2c_welcome"]["seat"]
    half = open_seal(by_name["a2c_welcome"]["seal"], sealed["seq"], sealed["s"])
    assert half == half_of(private["events"], private.get("move"))  # §23 as written
    assert private_of(sealed, half) == private
    assert [m.get("k", m["t"]) for m in by_name["pub_batch"]] == ["lobby", "countdown"]
    # §24 as written: the pause's 30 s, the away seat's kept, the refusals' words
    assert by_name["pub_update_resume"]["paused"] == 30.0
    assert by_name["pub_update_presence_away"].get("kept") in (None, 300.0)
    assert "paused by Ann" in by_name["a2c_error_paused"]["reason"]
    assert [m.get("k", m["t"]) for m in by_name["pub_batch_beat"]] == ["beat", "presence"]
    (OUT / "index.json").write_text(json.dumps(index, indent=2, ensure_ascii=False) + "\n",
                                    encoding="utf-8")
    write_deal_vectors()
    write_seal_vectors()
    _write_readme(index)
    print(f"{len(index)} vectors and {len(list(OUT.glob('*.jsonl')))} session logs "
          f"in {OUT.relative_to(HERE.parent)}")


def _write_readme(index: list[dict[str, Any]]) -> None:
    lines = [
        f"# Protocol version {VERSION} — golden vectors",
        "",
        "Made by `python protocol/make_vectors.py` (do not edit by hand); described in",
        "`protocol/PROTOCOL.md`. For every `NAME` below, `NAME.json` is one message as JSON and",
        "`NAME.msgpack` the exact frame the reference codec sends for it. Key order in the JSON",
        "is the order on the wire; JSON numbers written with a fraction or exponent (`12.5`,",
        "`3.0`) are msgpack floats (float 64), the others integers.",
        "",
        "A vector whose type is written in brackets (`[welcome, probe]`) is one frame of",
        "several messages from the arbiter (PROTOCOL.md §2): its JSON is an array of the",
        "messages in order, and its `.msgpack` one msgpack array of their maps — each map a",
        "whole message with its own `v` and `t`. A receiver handles them in order, as if each",
        "had come in a frame of its own. Every other vector is one message, one map. A client",
        "always sends one map per frame (`c2a_` vectors are never arrays).",
        "",
        "The prefix of a name is its direction, and so which decoder schema applies:",
        "",
    ]
    for prefix, channel in CHANNELS.items():
        lines.append(f"* `{prefix}_` — {DIRECTIONS[prefix]} (codec channel `{channel}`)")
    lines += [
        "",
        "`index.json` lists the same as data. A client in another language can check itself",
        "with them: its encoder must produce `NAME.msgpack` from `NAME.json` byte for byte",
        "(this needs the reference encoder's choices, PROTOCOL.md §2), and its decoder must",
        "read `NAME.msgpack` back to the JSON. The hash in `pub_beat` is the state hash",
        "(PROTOCOL.md §9) of the `state` in `pub_update_round`.",
        "",
        "`session-*.jsonl` are whole recorded sessions against the real arbiter with a fake",
        "clock, one JSON object a line: `at` (arbiter time), `dir` (`c2a`, `a2c`, `pub`),",
        "`peer` (which client, for `c2a`/`a2c`) and `msg` (or `raw`, the hex of a frame that",
        "is not a valid message). They list **messages**, one a line, not frames: the",
        "arbiter may send several consecutive lines of one direction (and one peer) in one",
        "frame, as in the bracketed vectors above.",
        "",
        "Since version 3 the arbiter sends no `ok` for a committed move (its `update`, with",
        "`rid`, is the answer): there is no `a2c_ok_move`; nor `a2c_ok_stand_in`, an `ok` with `re` −1",
        "that only arbiters before the note of PROTOCOL.md §12 sent.",
        "",
        "JSON has no bytes: a msgpack `bin` (a welcome's `seal`, an update's `s`, §23) is",
        "written `{\"$bin\": \"<hex>\"}` in the JSON files; the `.msgpack` holds the bytes.",
        "The `a2c_private_move_*` vectors are the private halves of moves as their seat",
        "reads them, opened from its update's `s` with its welcome's key (§23): the same",
        "map a seat of a resumed table, before it says hello again, gets as a frame.",
        "`seal.json` works two seals through step by step (key, plaintext, first keystream",
        "block, tag, sealed bytes).",
        "",
        "`deal-GAME.json` (one per game, two for Gin Solitaire's duplicate and independent",
        "deals, PROTOCOL.md §21) are deals, not messages: the host",
        "secret and nonces (or the seed), the round secret, the first SHA-256 block of the",
        "deal stream, one plain shuffle of 0 … 51 from a fresh stream, and every seat's cards",
        "in order as the game deals them (lists bottom first, the top card last); and the",
        "dealt state's map with nothing hidden (`state`) and its fingerprint (`fingerprint`,",
        "PROTOCOL.md §22.4: SHA-256 of `lan_demon/deal-hash/v1`, the round secret and the",
        "msgpack bytes of `state`).",
        "",
        "| vector | type | bytes | what |",
        "| --- | --- | ---: | --- |",
    ]
    for row in index:
        lines.append(f"| `{row['name']}` | {row['type']} | {row['bytes']} | {row['about']} |")
    (OUT / "README.md").write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
