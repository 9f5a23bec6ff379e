"""A Racing Demon player written from protocol/PROTOCOL.md alone: pyzmq, msgpack, stdlib.

It imports nothing from lan_demon, on purpose: it shows that the wire protocol can be followed
from its document. It speaks protocol version 7 and does what §18 ("A minimal Racing Demon
client") describes — hello, clock sync, snapshot, ready; every frame from the arbiter read as
one message or an array of several, handled in order (§2); a mirror kept by applying each
update's events (§18.4) in sequence order, healed by a snapshot on a gap (§7); one simple move
at a time, confirmed by the update that carries its id as ``rid`` (no ``ok`` comes for a
committed move, §3, §18.5), our own move's private half opened from the update's sealed ``s``
with the welcome's key (§23); heartbeats and probe echoes (§9); the state hash of every beat
checked (§9); no move sent while the table is paused, and a seat removed by the host or the
captain stops (§24, §18.7) — and at match end prints the final scores and exits 0.

    python examples/raw_client.py 127.0.0.1:7700 [--name Raw] [--pace 0.05]

Exit status: 0 after the match end, 1 when the arbiter refuses or speaks another version
or our seat is removed,
2 for bad arguments.
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import hmac
import sys
import time
import zlib

import msgpack
import zmq

VERSION = 7
BEAT = 1.0  # §9: hb once a second
SILENCE = 3.5  # §9: nothing heard this long before match_end: reconnect
PRIVATE_WAIT = 1.0  # §7.3: a missing private half is asked for by snapshot after this
SYNC_PINGS = 5  # §6: pings at connect, one after the other
RANKS = "A23456789TJQK"
COLUMNS = ("c1", "c2", "c3", "c4")


def encode(msg: dict) -> bytes:
    return msgpack.packb(msg, use_bin_type=True)  # §2: the reference encoding


def decode(frame: bytes) -> list[dict] | None:
    """§2: a frame from the arbiter is one message (a map) or several (an array of two or more
    maps, to be handled in order). None for a frame that is neither."""
    try:
        msg = msgpack.unpackb(frame, raw=False)
    except Exception:  # noqa: BLE001 - a frame we cannot read is ignored, never fatal
        return None
    if isinstance(msg, dict):
        return [msg]
    if isinstance(msg, list) and msg and all(isinstance(m, dict) for m in msg):
        return msg
    return None


def open_seal(key: bytes, seq: int, sealed: bytes) -> dict | None:
    """§23: the private half sealed in an update's ``s``; None if it does not open."""
    if not isinstance(sealed, bytes) or len(sealed) < 48 or (len(sealed) - 16) % 32:
        return None
    cipher, tag = sealed[:-16], sealed[-16:]
    nonce = seq.to_bytes(8, "big")
    if not hmac.compare_digest(tag, hashlib.blake2b(b"t" + nonce + cipher, key=key,
                                                    digest_size=16).digest()):
        return None
    stream = b"".join(hashlib.blake2b(b"k" + nonce + i.to_bytes(4, "big"), key=key).digest()
                      for i in range((len(cipher) + 63) // 64))
    plain = bytes(a ^ b for a, b in zip(cipher, stream))
    size = int.from_bytes(plain[:2], "big")
    try:
        half = msgpack.unpackb(plain[2:2 + size], raw=False)
    except Exception:  # noqa: BLE001 - treated as a half that did not open
        return None
    return half if isinstance(half, dict) else None


def hide(seat: int) -> str:
    return f"??@{seat}"


def owner(card: str) -> int:
    return int(card.partition("@")[2])


def rank(card: str) -> int:
    return RANKS.index(card[0]) + 1


def red(card: str) -> bool:
    return card[1] in "HD"


def state_hash(state: dict) -> str:
    """§9: crc32 of the msgpack encoding, as 8 lowercase hex digits."""
    return f"{zlib.crc32(encode(state)) & 0xFFFFFFFF:08x}"


# --- the mirror: §18.4, event by event -------------------------------------------------------


def apply_event(state: dict, e: dict) -> None:
    """One Racing Demon event (§14's events table, as §18.4 writes it) applied to the mirror."""
    kind, seats = e["e"], state["seats"]
    if kind == "play":
        me = seats[e["seat"]]
        source = me["pile"] if e["from"] == "pile" else me["waste"] if e["from"] == "waste" \
            else me["columns"][COLUMNS.index(e["from"])]
        del source[len(source) - len(e["cards"]):]
        if e["to"].startswith("c"):
            me["columns"][COLUMNS.index(e["to"])].extend(e["cards"])
        else:
            sid = int(e["to"][1:])
            stack = next((s for s in state["stacks"] if s["id"] == sid), None)
            if stack is None:
                stack = {"id": sid, "cards": []}
                state["stacks"].append(stack)
                state["next_stack"] = sid + 1
            stack["cards"].extend(e["cards"])
            for card in e["cards"]:
                seats[owner(card)]["stacked"] += 1
        top = (e.get("private") or {}).get("waste_top")
        if top is not None:
            me["waste"][-1] = top
        state["plays"] += 1
        state["rotations"] = 0
        for s in seats:
            s["voted"], s["turned"] = False, 0
    elif kind == "king":
        stack = next(s for s in state["stacks"] if s["id"] == e["stack"])
        state["stacks"].remove(stack)
        state["claimed"].append([e["stack"], e["seat"]])
        state["kings_cards"].append(stack["cards"])
        seats[e["seat"]]["kings"] += 1
    elif kind == "refill":
        seats[e["seat"]]["columns"][COLUMNS.index(e["col"])].append(e["card"])
    elif kind == "pile":
        size = e["size"]
        seats[e["seat"]]["pile"] = [hide(e["seat"])] * (size - 1) + [e["top"]] if size else []
    elif kind == "out":
        seats[e["seat"]]["out"] = True
        state["over"], state["ended"] = True, "out"
    elif kind == "recycle":
        s = seats[e["seat"]]
        s["pack"], s["waste"] = [hide(e["seat"])] * len(s["waste"]), []
    elif kind == "turn":
        s = seats[e["seat"]]
        s["pack"], s["waste"] = [hide(e["seat"])] * e["pack"], [hide(e["seat"])] * e["waste"]
        top = (e.get("private") or {}).get("waste_top")
        if top is not None:
            s["waste"][-1] = top
        s["turned"] += e["n"]
    elif kind == "stuck":
        seats[e["seat"]]["voted"] = True
    elif kind == "rotate":
        for i, s in enumerate(seats):
            s["pack"], s["waste"] = [hide(i)] * (len(s["pack"]) + len(s["waste"])), []
            s["voted"], s["turned"] = False, 0
        state["rotations"] = e["n"]
    elif kind == "stuck_end":
        state["over"], state["ended"] = True, "stuck"
    else:
        raise KeyError(kind)  # an event we do not know: the caller resyncs (§18.4)


# --- choosing: §18.5 --------------------------------------------------------------------------


def candidates(state: dict, seat: int) -> list[dict]:
    """Every move §18.5 would make now, best first."""
    me = state["seats"][seat]
    if state["over"] or me["out"]:
        return []
    sources = [(name, col[-1]) for name, col in zip(COLUMNS, me["columns"]) if col]
    if me["pile"]:
        sources.insert(0, ("pile", me["pile"][-1]))
    if me["waste"] and not me["waste"][-1].startswith("??"):
        sources.append(("waste", me["waste"][-1]))
    moves = []
    for name, card in sources:  # 1, 2: to a stack (RD-5)
        if card.startswith("??"):
            continue
        if rank(card) == 1:
            moves.append({"t": "play", "from": name, "to": "middle"})
            continue
        for stack in state["stacks"]:
            top = stack["cards"][-1]
            if rank(top) == rank(card) - 1 and (state["german"] or top[1] == card[1]):
                moves.append({"t": "play", "from": name, "to": f"s{stack['id']}"})
                break
    if not state["german"]:  # 3: Pile or waste top onto a column (RD-7; not RG-4)
        for name, card in sources:
            if name in COLUMNS or card.startswith("??"):
                continue
            for j, col in enumerate(me["columns"]):
                if col and rank(card) == rank(col[-1]) - 1 and red(card) != red(col[-1]):
                    moves.append({"t": "play", "from": name, "to": COLUMNS[j]})
    if me["pack"] or me["waste"]:  # 4: turn the Pack (RD-9)
        moves.append({"t": "turn"})
    elif not me["voted"]:  # 5: vote stuck (RD-13)
        moves.append({"t": "stuck"})
    return moves


# --- the client -------------------------------------------------------------------------------


class RawClient:
    """One seat: two sockets, a mirror, one move at a time."""

    def __init__(self, address: str, name: str, pace: float):
        host, _, port = address.removeprefix("tcp://").rpartition(":")
        if not host or not port.isdigit():
            raise ValueError(f"not an address: {address!r} (use HOST:PORT)")
        self.host, self.address, self.name, self.pace = host, f"tcp://{host}:{port}", name, pace
        self.ctx = zmq.Context()
        self.poller = zmq.Poller()  # both sockets, waited on together (§18.1)
        self.dealer: zmq.Socket | None = None
        self.sub: zmq.Socket | None = None
        self.ids = 0
        self.seat: int | None = None
        self.token: str | None = None
        self.seal: bytes | None = None  # §23: the key to our sealed private halves
        self.pings: dict[int, float] = {}
        self.samples: list[tuple[float, float]] = []  # (rtt, offset)
        self.offset = 0.0
        self.snap_id: int | None = None  # the snapshot we wait for
        self.applied = -1  # no snapshot yet: buffer everything
        self.updates: dict[int, dict] = {}
        self.privates: dict[int, dict] = {}
        self.waiting_since: float | None = None
        self.table: dict = {"phase": "lobby"}
        self.state: dict | None = None
        #: the request id of our move, until its answer: the move update with our seat and
        #: this rid, once applied (§3: no ok comes for a committed move), or an error
        self.in_flight: int | None = None
        self.refused: tuple[dict, int] | None = None  # (move, applied when it was refused)
        self.next_move_at = 0.0
        self.readied = False
        self.last_move: dict = {}
        self.heard = self.next_beat = time.monotonic()
        self.result: dict | None = None
        self.paused: dict | None = None  # §24: the table's pause, while it stands
        self.removed: str | None = None  # §24: who removed our seat
        self.stalled = False  # the host's journal cannot be written (§25)
        self.stats = {"moves": 0, "refused": 0, "beaten": 0, "hash_ok": 0, "hash_bad": 0,
                      "snapshots": 0}

    # sending

    def send(self, t: str, **fields) -> int | None:
        msg = {"v": VERSION, "t": t}
        rid = None
        if t not in ("hb", "echo"):
            self.ids += 1
            rid = msg["id"] = self.ids
        msg.update(fields)
        self.dealer.send(encode(msg))
        return rid

    def hello(self) -> None:
        self.dealer = self.ctx.socket(zmq.DEALER)
        self.dealer.setsockopt(zmq.LINGER, 0)
        self.dealer.connect(self.address)
        self.poller.register(self.dealer, zmq.POLLIN)
        self.ids = 0  # request ids count per connection
        fields = {"name": self.name, "role": "player", "bot": True}
        if self.token:
            fields["token"] = self.token
        self.send("hello", **fields)

    def ping(self) -> None:
        now = time.monotonic()
        self.pings[self.send("ping", c=now)] = now

    def snapshot(self) -> None:
        if self.snap_id is None:
            self.snap_id = self.send("snapshot")
            self.stats["snapshots"] += 1

    def arbiter_now(self) -> float:
        return time.monotonic() + self.offset

    # the loop

    def run(self) -> int:
        self.hello()
        while self.result is None:
            for sock, _ in self.poller.poll(50):
                while True:
                    try:
                        frame = sock.recv(zmq.NOBLOCK)
                    except zmq.Again:
                        break
                    msgs = decode(frame)
                    if msgs is None:
                        continue
                    self.heard = time.monotonic()
                    for msg in msgs:  # §2: in order, as if each had come alone
                        if msg.get("v") != VERSION:  # §3: never act on another version
                            print(f"raw_client: the arbiter speaks protocol version "
                                  f"{msg.get('v')!r}, not {VERSION}", file=sys.stderr)
                            return 1
                        code = self.on_private(msg) if sock is self.dealer \
                            else self.on_public(msg)
                        if code is not None:
                            return code
            if self.result is not None:
                break
            if self.removed is not None:
                print(f"raw_client: {self.removed} removed our seat from the table (§24)",
                      file=sys.stderr)
                return 1
            self.housekeeping()
            self.act()
        self.finish()
        return 0

    def housekeeping(self) -> None:
        now = time.monotonic()
        if now >= self.next_beat:
            self.next_beat = now + BEAT
            self.send("hb")
        if self.waiting_since is not None and now - self.waiting_since > PRIVATE_WAIT:
            self.waiting_since = None
            self.snapshot()
        if now - self.heard > SILENCE:  # §18.7: a new DEALER, hello with the token
            self.poller.unregister(self.dealer)
            self.dealer.close(linger=0)
            self.heard, self.snap_id, self.in_flight = now, None, None
            self.samples.clear()
            self.hello()

    # private messages (DEALER)

    def on_private(self, msg: dict) -> int | None:
        t = msg.get("t")
        if t == "probe":
            self.send("echo", a=msg["a"])
        elif t == "welcome":
            return self.on_welcome(msg)
        elif t == "pong":
            self.on_pong(msg)
        elif t == "snap" and msg.get("re") == self.snap_id:
            self.on_snap(msg)
        elif t == "private":
            if msg["seq"] > self.applied:
                self.privates[msg["seq"]] = msg
                self.advance()
        elif t == "error":  # (an ok answers a ready or a leave: nothing to do; never a move)
            return self.on_error(msg)
        return None

    def on_welcome(self, msg: dict) -> int | None:
        self.seat = msg.get("seat")
        self.token = msg.get("token") or self.token
        self.seal = msg.get("seal") or self.seal
        if self.seat is None:
            print("raw_client: the arbiter gave us no seat", file=sys.stderr)
            return 1
        if msg["re"] == 0:  # §5 step 11: a lobby leave moved us up; nothing else changes
            return None
        if self.sub is None:  # §18.2 step 2: pub's port, on the host we reached the ROUTER at
            port = msg["pub"].rpartition(":")[2]
            self.sub = self.ctx.socket(zmq.SUB)
            self.sub.setsockopt(zmq.LINGER, 0)
            self.sub.setsockopt(zmq.SUBSCRIBE, b"")
            self.sub.connect(f"tcp://{self.host}:{port}")
            self.poller.register(self.sub, zmq.POLLIN)
        self.ping()
        return None

    def on_pong(self, msg: dict) -> None:
        sent = self.pings.pop(msg.get("re"), None)
        if sent is None:
            return
        t3 = time.monotonic()
        self.samples.append((t3 - sent, msg["a"] - (sent + t3) / 2))
        self.offset = min(self.samples)[1]  # §6: the sample with the smallest rtt
        if len(self.samples) < SYNC_PINGS:
            self.ping()
        elif self.snap_id is None and len(self.samples) == SYNC_PINGS:
            self.snapshot()

    def on_snap(self, msg: dict) -> None:
        self.snap_id = None
        self.table = msg["table"]
        self.paused = self.table.get("paused")  # §24: who paused, while the table stands
        self.applied = msg["seq"]
        self.state = msg.get("state")
        self.in_flight, self.refused = None, None
        self.updates = {s: u for s, u in self.updates.items() if s > self.applied}
        self.privates = {s: p for s, p in self.privates.items() if s > self.applied}
        if self.table["phase"] == "over":
            self.result = self.table["result"]
            return
        if self.table["phase"] in ("lobby", "between") and not self.readied:
            self.readied = True
            self.send("ready")
        self.advance()

    def on_error(self, msg: dict) -> int | None:
        code, reason = msg.get("code"), msg.get("reason", "")
        if code in ("full", "bad_token", "version", "not_joined", "removed") and \
                self.seat is None:
            print(f"raw_client: the arbiter refused us: {reason}", file=sys.stderr)
            return 1
        if "re" not in msg:  # §3: a frame of ours the arbiter could not read, whichever it was:
            print(f"raw_client: the arbiter could not read a message of ours: {reason}",
                  file=sys.stderr)  # not our move's refusal (its update may be on its way):
            self.snapshot()  # a snapshot settles the move in flight (§7)
            return None
        if code == "stalled" and self.table.get("phase") in ("lobby", "between"):
            self.readied = False  # §25: our ready was not taken; said again when it goes on
        if msg.get("re") == self.in_flight:
            if self.in_flight is not None:
                self.stats["beaten" if code == "beaten" else "refused"] += 1
                self.refused = (self.last_move, self.applied)
                self.in_flight = None
        return None

    # published messages (SUB)

    def on_public(self, msg: dict) -> int | None:
        t = msg.get("t")
        if t == "update":
            if msg["seq"] > self.applied:
                if "s" in msg and msg.get("seat") == self.seat and self.seat is not None:
                    half = open_seal(self.seal or b"", msg["seq"], msg["s"])  # §23
                    parts = half.get("e") if half else None
                    if not isinstance(parts, list) or len(parts) != len(msg["events"]):
                        self.snapshot()  # a stale key, or altered on the way: resync (§7.2)
                    else:  # the private parts put back into the public events
                        events = [dict(e, private=p) if p else e
                                  for e, p in zip(msg["events"], parts)]
                        self.privates[msg["seq"]] = {"t": "private", "seq": msg["seq"],
                                                     "k": "move", "events": events}
                self.updates[msg["seq"]] = msg
                self.advance()
        elif t == "beat":
            self.on_beat(msg)
        elif t == "stall":
            self.on_stall(msg)
        return None

    def on_stall(self, msg: dict) -> None:
        """§25: the host's journal cannot be written; the table stands still, unnumbered."""
        if msg["on"] and not self.stalled:
            print(f"raw_client: the table stands still ({msg['why']})", file=sys.stderr)
        self.stalled = msg["on"]
        if not msg["on"] and self.table.get("phase") in ("lobby", "between") \
                and not self.readied:
            self.readied = True
            self.send("ready")

    def on_beat(self, msg: dict) -> None:
        if self.applied < 0 or self.snap_id is not None:
            return
        if msg["seq"] > self.applied and not self.updates:
            self.snapshot()  # §7.4: we missed the last updates
        elif msg["seq"] == self.applied and msg.get("hash") and self.state is not None:
            if state_hash(self.public_state()) == msg["hash"]:
                self.stats["hash_ok"] += 1
            else:
                self.stats["hash_bad"] += 1
                print(f"raw_client: state hash differs at update {self.applied}; resync",
                      file=sys.stderr)
                self.snapshot()

    def public_state(self) -> dict:
        """§14: the mirror with our own waste top hidden, as a spectator sees the table."""
        public = copy.deepcopy(self.state)
        waste = public["seats"][self.seat]["waste"]
        if waste:
            waste[-1] = hide(self.seat)
        return public

    def advance(self) -> None:
        """§7: apply buffered updates in order while the next one is complete."""
        if self.applied < 0 or self.snap_id is not None:
            return
        while self.applied + 1 in self.updates:
            update = self.updates[self.applied + 1]
            private = self.privates.get(update["seq"])
            needs = update["k"] == "round" or (update["k"] == "move" and update.get("p")
                                               and update.get("seat") == self.seat)
            if needs and private is None:
                self.waiting_since = self.waiting_since or time.monotonic()
                return
            self.waiting_since = None
            del self.updates[update["seq"]]
            self.privates.pop(update["seq"], None)
            self.applied = update["seq"]
            try:
                self.apply_update(update, private)
            except (KeyError, IndexError, ValueError) as err:  # §18.4: in doubt, snapshot
                print(f"raw_client: cannot apply update {update['seq']} ({err!r}); resync",
                      file=sys.stderr)
                self.snapshot()
                return
            if self.result is not None:
                return
        if self.updates and min(self.updates) > self.applied + 1:
            self.snapshot()  # §7.4: a gap

    def apply_update(self, update: dict, private: dict | None) -> None:
        k = update["k"]
        if k == "lobby":
            self.table["seats"] = update["seats"]
        elif k == "countdown":
            self.table.update(phase="countdown", go=update["go"], round=update["round"])
        elif k == "round":
            self.state = private["state"]
            self.table.update(phase="playing", round=update["round"])
            self.in_flight, self.refused = None, None
        elif k == "move":
            events = private["events"] if private is not None else update["events"]
            for e in events:
                apply_event(self.state, e)
            if update["seat"] == self.seat and update["rid"] == self.in_flight:
                self.in_flight = None  # §3: our move's answer, now on the mirror (§18.5)
        elif k == "round_end":
            self.table.update(phase="between", totals=update["totals"],
                              round=update["round"] + 1)
            self.in_flight = None
            self.send("ready")  # §18.6
        elif k == "match_end":
            self.table["phase"] = "over"
            self.result = update["result"]
        elif k == "pause":  # §24: no move until the resume (it would be refused "paused")
            self.paused = {"by": update["by"], "name": update["name"]}
            print(f"raw_client: {update['name']} paused the table", file=sys.stderr)
        elif k == "resume":
            self.paused = None
        elif k == "removed" and update["seat"] == self.seat:
            self.removed = update["by_name"]  # §24: our seat is given up for good

    # moving (§18.5)

    def act(self) -> None:
        state, now = self.state, time.monotonic()
        if self.table.get("phase") != "playing" or state is None or self.in_flight is not None \
                or self.snap_id is not None or now < self.next_move_at or self.paused:
            return
        for move in candidates(state, self.seat):
            if self.refused and self.refused == (move, self.applied):
                continue  # §18.5: not again before the table has changed
            self.last_move = move
            self.in_flight = self.send("move", round=self.table["round"], move=move,
                                       ts=self.arbiter_now())
            self.stats["moves"] += 1
            self.next_move_at = now + self.pace
            return

    def finish(self) -> None:
        """§18.6: print the scores, say leave without waiting, close."""
        totals = self.result.get("totals", {})
        winners = self.result.get("winner", [])
        print("final scores: " + ", ".join(f"{n} {p}" for n, p in totals.items()))
        print("winner: " + ", ".join(winners))
        if self.state is not None:  # the last round's table, as everyone may see it (§9)
            print(f"raw_client: public mirror hash {state_hash(self.public_state())} at update "
                  f"{self.applied}", file=sys.stderr)
        print("raw_client: " + ", ".join(f"{k} {v}" for k, v in self.stats.items()),
              file=sys.stderr)
        try:
            self.send("leave")
        except zmq.ZMQError:
            pass
        self.dealer.close(linger=200)
        if self.sub is not None:
            self.sub.close(linger=0)
        self.ctx.term()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="A Racing Demon player that speaks the wire "
                                     "protocol directly (protocol/PROTOCOL.md).")
    parser.add_argument("address", help="the arbiter, HOST:PORT")
    parser.add_argument("--name", default="Raw", help="the name at the table")
    parser.add_argument("--pace", type=float, default=0.05,
                        help="seconds between two moves (default 0.05)")
    args = parser.parse_args(argv)
    try:
        client = RawClient(args.address, args.name, max(0.0, args.pace))
    except ValueError as err:
        parser.error(str(err))
    return client.run()


if __name__ == "__main__":
    sys.exit(main())
