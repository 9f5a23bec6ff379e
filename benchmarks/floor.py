"""The floor: lan_demon's arbiter next to a do-nothing relay with the same sockets (issue 13).

    python benchmarks/floor.py [--seats 2,6,20,50,100] [--seconds 5] [--reps 3] [--seed 1]
                               [--before PATH]

Targets, each a process of its own on 127.0.0.1, measured interleaved (for each table size,
for each repetition, every target once, the order rotating between repetitions):

* ``relay`` — ``floor.py --relay``: a ROUTER and a PUB with lan_demon's high-water marks
  (``ROUTER_SNDHWM``, ``PUB_SNDHWM``, ``ROUTER_RCVHWM``, LINGER 0) whose loop is a poll, a drain
  of every ready frame, ``msgpack.unpackb`` of each and, for a ``move``, one published update of
  the same shape and size as lan_demon's update for a Pack turn (its ``events``, and in
  protocol 4 bytes as long as its sealed half ``s``, taken from a real one at startup). No
  replies, no rules: the least any arbiter with these sockets does.
* ``rules`` — ``floor.py --rules``: the relay plus the least an arbiter of Racing Demon must
  add: the engine's ``apply`` of each turn on a real table of N seats, and the turned card for
  its mover alone (RD-9) — sealed in the update with ``lan_demon.net.seal`` in protocol 4
  (§23), a private frame before — batched as lan_demon batches. lan_demon ÷ rules is what its own
  bookkeeping costs; rules ÷ relay what the game's rules and its one secret cost.
* ``lan_demon`` — ``python -m lan_demon host --port 0 --players N --seed S --countdown 0
  --pause 0 --fairness-ms 0 --rounds 1000000 --no-handicap --rate-limit 0`` from this tree.
* ``before`` (``--before PATH``) — the same command with ``cwd`` and ``PYTHONPATH`` = PATH.

The load is the same generator for every target: N seats in this process, each a DEALER and a
SUB, all connected before the match starts.

A. Closed loop, every seat flat out: each seat keeps one Pack turn in flight and sends the next
   as soon as that one is acknowledged — by the PUB ``update`` with its seat and its move's id
   as ``rid`` (v2 also answers ``ok``, ignored; v3 does not), or by an ``error`` with ``re`` =
   that id (refused, resent with the current round). To keep the generator cheap, one
   reference SUB (seat 0's) decodes every frame and acknowledges every seat's moves; the other
   SUBs drain raw. After 1 s of warm-up a window of ``--seconds``: committed moves/s, the
   target's CPU per move split by thread (``/proc/PID/task/*/stat``: "python" is the main
   thread, "I/O" the ``ZMQbg/IO`` threads, "other" the rest), the generator's own CPU per move
   (when it is near a core's worth, the generator and not the target is the limit), PUB and
   private frames and bytes per move.
B. Move → all clients at an idle table: seat 0 alone plays one turn at a time, every SUB
   decodes; send → the last SUB's copy ("all clients") and send → seat 0's own SUB ("one
   client"), p50 and p99, a seeded 1-3 ms pause between moves, ``--seconds`` or 2,000 moves.
C. A client keeps up: during phase A, ``floor.py --client ADDRESS`` (the target's code) holds one
   real ``lan_demon.net.client.Client`` spectator in its normal loop and reports, per update
   applied, µs of ``pump`` in wall time and in its thread's CPU time (``time.thread_time``: the
   cost of receiving, decoding and applying, without the time the busy machine gave other
   processes) and the process's CPU (its ZMQ I/O thread included). For the relay, a plain SUB draining raw instead (so
   every target has the same number of subscribers).

A frame from the arbiter is one msgpack map or (protocol v3) an array of maps; both are read.
Nothing here asserts a time: the script prints figures and the command that made them. Every
process and socket started here is stopped before it exits, also on an error or Ctrl-C.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any, Iterator

import msgpack
import zmq

from children import drain_rest, messages, quantiles, read_line, stop
from tables import seated_table

HOST = "127.0.0.1"
CLK_TCK = os.sysconf("SC_CLK_TCK")
HERE = os.path.abspath(__file__)
TREE = os.path.dirname(os.path.dirname(HERE))  # this script's checkout of lan_demon
PROFILE: str | None = None  # --profile DIR: the lan_demon hosts run under cProfile
WARMUP = 1.0  # seconds of play before phase A's window opens
FIRST_ID = 10  # the first move id (hello is 1, ready 2)
TURN = {"t": "turn"}  # a Pack turn: always legal in Racing Demon, never contested
STUCK = 5.0  # a move unanswered this long is counted lost and sent again
B_MOST = 2000  # phase B's most moves
STAND_INS = ("relay", "rules")  # the targets that are this script's own children, not a host


# --------------------------------------------------------------------------------- helpers


def thread_cpu(pid: int) -> dict[int, tuple[str, float]]:
    """{tid: (comm, utime + stime in seconds)} for every thread of a process."""
    threads = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                text = f.read()
        except FileNotFoundError:  # the thread ended meanwhile
            continue
        head, rest = text.rsplit(")", 1)
        fields = rest.split()  # fields 14 and 15 of stat, counted after the comm
        threads[int(tid)] = (head.split("(", 1)[1], (int(fields[11]) + int(fields[12])) / CLK_TCK)
    return threads


def unjournaled(tree: str) -> list[str]:
    """``--no-journal`` for a tree whose host journals by default (issue 27): the table is
    measured, not the disk. An older tree journals only when asked and knows no such flag."""
    try:
        with open(os.path.join(tree, "lan_demon", "commands", "host.py"),
                  encoding="utf-8") as source:
            return ["--no-journal"] if "--no-journal" in source.read() else []
    except OSError:
        return []


def split_cpu(pid: int, before: dict[int, tuple[str, float]],
              after: dict[int, tuple[str, float]]) -> dict[str, float]:
    """CPU seconds between two :func:`thread_cpu` readings, as python / io / other."""
    split = {"python": 0.0, "io": 0.0, "other": 0.0}
    for tid, (comm, cpu) in after.items():
        spent = cpu - before.get(tid, (comm, 0.0))[1]
        kind = "python" if tid == pid else "io" if comm.startswith("ZMQbg/IO") else "other"
        split[kind] += spent
    return split








def last_json(out: str) -> dict[str, Any]:
    for line in reversed(out.splitlines()):
        if line.startswith("{"):
            return json.loads(line)
    return {}


def tree_env(path: str) -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=path)


def targets(args: argparse.Namespace) -> tuple[list[str], dict[str, int]]:
    """The targets measured (``before`` with ``--before``, whose path is made absolute) and
    the protocol version each speaks."""
    from lan_demon.net.codec import VERSION
    kinds = ["relay", "rules", "lan_demon"]
    versions = {kind: VERSION for kind in kinds}
    if args.before:
        args.before = os.path.abspath(args.before)
        kinds.append("before")
        versions["before"] = tree_version(args.before)
    return kinds, versions


def tree_version(path: str) -> int:
    """The protocol version a checkout of lan_demon speaks."""
    out = subprocess.run([sys.executable, "-c", "from lan_demon.net.codec import VERSION; "
                          "print(VERSION)"], cwd=path, env=tree_env(path), capture_output=True,
                         text=True, check=True)
    return int(out.stdout.strip())




def turn_messages() -> tuple[dict[str, Any], dict[str, Any]]:
    """lan_demon's published update for one Pack turn and its mover's private half, from an
    in-process arbiter."""
    from lan_demon.net.codec import encode, make
    arbiter, peers, now = seated_table(2, 1)
    out = arbiter.handle(peers[0], encode(make("move", id=FIRST_ID, round=arbiter.match.round_no,
                                               move=TURN, ts=0.0)), now)
    update = next(m for m in out.public if m.get("t") == "update" and m.get("k") == "move")
    if "s" in update:  # protocol 4: the half is sealed in the update (PROTOCOL.md §23)
        from lan_demon.net.seal import open_seal, private_of
        return update, private_of(update, open_seal(arbiter.seats[0].seal, update["seq"],
                                                    update["s"]))
    return update, next(m for _, m in out.private if m.get("t") == "private")


def turn_update() -> dict[str, Any]:
    return turn_messages()[0]


def relay_update(version: int, seq: int, round_no: int, seat: int, move: Any, rid: int,
                 events: list[Any], sealed: bytes | None = None) -> dict[str, Any]:
    """The relay's update: lan_demon's shape; ``sealed``: bytes of the size of lan_demon's
    sealed half (protocol 4), so that the relay publishes as many bytes a move."""
    update = {"v": version, "t": "update", "seq": seq, "k": "move", "round": round_no,
              "seat": seat, "move": move, "rid": rid, "events": events, "p": False}
    if sealed is not None:
        update["s"] = sealed
    return update


def pack(msg: dict[str, Any]) -> bytes:
    return msgpack.packb(msg, use_bin_type=True)


# --------------------------------------------------------------------------- the children


@contextlib.contextmanager
def stand_in_sockets() -> Iterator[tuple[zmq.Socket, zmq.Socket, zmq.Poller]]:
    """A stand-in's ROUTER and PUB on loopback with lan_demon's high-water marks and LINGER 0,
    their ports printed for the parent, a SIGTERM that ends the child; closed on the way out."""
    from lan_demon.net.server import PUB_SNDHWM, ROUTER_RCVHWM, ROUTER_SNDHWM
    ctx = zmq.Context()
    router, pub = ctx.socket(zmq.ROUTER), ctx.socket(zmq.PUB)
    try:
        for sock in (router, pub):
            sock.setsockopt(zmq.LINGER, 0)
        router.setsockopt(zmq.SNDHWM, ROUTER_SNDHWM)
        router.setsockopt(zmq.RCVHWM, ROUTER_RCVHWM)
        pub.setsockopt(zmq.SNDHWM, PUB_SNDHWM)
        ports = router.bind_to_random_port(f"tcp://{HOST}"), pub.bind_to_random_port(
            f"tcp://{HOST}")
        print(f"{ports[0]} {ports[1]}", flush=True)
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
        poller = zmq.Poller()
        poller.register(router, zmq.POLLIN)
        yield router, pub, poller
    finally:
        router.close(0)
        pub.close(0)
        ctx.term()


def relay() -> None:
    """Child: a ROUTER and a PUB on loopback; every ``move`` is published as one update."""
    from lan_demon.net.codec import VERSION
    update = turn_update()
    events, sealed = update["events"], update.get("s")
    with stand_in_sockets() as (router, pub, poller):
        seats: dict[bytes, int] = {}
        seq = 0
        while True:
            if not poller.poll(1000):
                continue
            while True:
                try:
                    peer, frame = router.recv_multipart(zmq.NOBLOCK)
                except zmq.Again:
                    break
                obj = msgpack.unpackb(frame, raw=False)
                for msg in obj if isinstance(obj, list) else (obj,):
                    if msg.get("t") != "move":
                        continue
                    seat = seats.get(peer)
                    if seat is None:
                        seat = seats[peer] = len(seats)
                    seq += 1
                    pub.send(pack(relay_update(VERSION, seq, msg["round"], seat, msg["move"],
                                               msg["id"], events, sealed)))


def rules_relay() -> None:
    """Child: the relay plus the least any arbiter of *this game* must add to it: the engine's
    ``apply`` of each turn on a real table (RD-9, RD-13's check; a stuck table is dealt again
    in place, unannounced) and the turned card sent to its mover alone (RD-9: only the mover
    may see it), batched the way lan_demon batches (one PUB frame a wake-up, one frame a
    peer), with pyzmq's backend calls. No seats, ids, rounds, fairness, journal or refusals:
    what lan_demon costs above this is its bookkeeping; what this costs above the relay, the
    game's own rules and its one secret."""
    from lan_demon.net.codec import VERSION
    from zmq.backend import Socket as Raw
    update, private = turn_messages()
    events, hidden = update["events"], private["events"]
    key = None
    if "s" in update:  # one key for every seat: the work of sealing, not its secrecy
        from lan_demon.net.seal import half_of, new_key, seal
        key = new_key()
    arbiter, _, _ = seated_table(int(os.environ["RULES_SEATS"]), 1)
    game, dealt = arbiter.game, arbiter.state
    state = game.copy_state(dealt)
    move_turn = game.move_from_data(TURN)
    send, recv = Raw.send, Raw.recv
    with stand_in_sockets() as (router, pub, poller):
        seats: dict[bytes, int] = {}
        seq = 0
        packer = msgpack.Packer(use_bin_type=True)
        while True:
            if not (router.getsockopt(zmq.EVENTS) & zmq.POLLIN) and not poller.poll(1000):
                continue
            public, private = [], {}
            while True:
                try:
                    peer = recv(router, zmq.NOBLOCK)
                    frame = recv(router, zmq.NOBLOCK)
                except zmq.Again:
                    break
                msg = msgpack.unpackb(frame, raw=False)
                if msg.get("t") != "move":
                    continue
                seat = seats.get(peer)
                if seat is None:
                    seat = seats[peer] = len(seats)
                try:
                    game.apply(state, seat, move_turn)
                except Exception:  # stuck (RD-13): play on from the deal
                    state = game.copy_state(dealt)
                seq += 1
                update = relay_update(VERSION, seq, msg["round"], seat, msg["move"], msg["id"],
                                      events)
                if key is not None:  # protocol 4: sealed for its mover, in the update (§23)
                    update["p"], update["s"] = True, seal(key, seq, half_of(hidden, None))
                else:
                    private.setdefault(peer, []).append(
                        {"v": VERSION, "t": "private", "seq": seq, "k": "move",
                         "events": hidden})
                public.append(update)
            if public:
                send(pub, packer.pack(public) if len(public) > 1 else packer.pack(public[0]), 0)
            for peer, msgs in private.items():
                send(router, peer, zmq.NOBLOCK | zmq.SNDMORE)
                send(router, packer.pack(msgs) if len(msgs) > 1 else packer.pack(msgs[0]),
                     zmq.NOBLOCK)


def watch_client(address: str) -> None:
    """Child: one real spectator Client in its normal loop. SIGUSR1 opens the window (counts
    start again); on SIGTERM one JSON line: updates applied, µs of pump and of process CPU per
    update, the notices seen by kind."""
    from lan_demon.net.client import Client
    flags: dict[str, bool] = {"stop": False, "open": False}
    signal.signal(signal.SIGTERM, lambda *_: flags.__setitem__("stop", True))
    signal.signal(signal.SIGUSR1, lambda *_: flags.__setitem__("open", True))
    client = Client(address, name="watch", role="spectator").connect()
    try:
        print("connected", flush=True)
        poller, registered = zmq.Poller(), []
        spent, used, seq0, cpu0, kinds = 0.0, 0.0, client.seq, time.process_time(), {}
        while not flags["stop"]:
            if flags["open"]:
                flags["open"] = False
                spent, used, seq0, cpu0, kinds = 0.0, 0.0, client.seq, time.process_time(), {}
            socks = client.sockets()
            if socks != registered:  # a reconnect opens a fresh DEALER
                poller, registered = zmq.Poller(), socks
                for sock in socks:
                    poller.register(sock, zmq.POLLIN)
            poller.poll(50)
            t0, c0 = time.perf_counter(), time.thread_time()
            client.pump()
            spent += time.perf_counter() - t0
            used += time.thread_time() - c0
            for notice in client.take_notices():
                kinds[notice.kind] = kinds.get(notice.kind, 0) + 1
        updates = client.seq - seq0
        cpu = time.process_time() - cpu0
        print(json.dumps({"updates": updates, "pump_us": spent / max(1, updates) * 1e6,
                          "pump_cpu_us": used / max(1, updates) * 1e6,
                          "cpu_us": cpu / max(1, updates) * 1e6,
                          "resyncs": kinds.get("resync", 0), "notices": kinds}), flush=True)
    finally:
        client.close()
        client.context.term()


def raw_sub(pub: str) -> None:
    """Child: a plain SUB that drains the PUB raw (the relay's stand-in for phase C's client)."""
    flags: dict[str, bool] = {"stop": False, "open": False}
    signal.signal(signal.SIGTERM, lambda *_: flags.__setitem__("stop", True))
    signal.signal(signal.SIGUSR1, lambda *_: flags.__setitem__("open", True))
    ctx = zmq.Context()
    sub = ctx.socket(zmq.SUB)
    try:
        sub.setsockopt(zmq.LINGER, 0)
        sub.setsockopt(zmq.SUBSCRIBE, b"")
        sub.connect(pub)
        print("connected", flush=True)
        frames = size = 0
        while not flags["stop"]:
            if flags["open"]:
                flags["open"], frames, size = False, 0, 0
            if not sub.poll(50):
                continue
            for frame in drain(sub):
                frames += 1
                size += len(frame)
        print(json.dumps({"frames": frames, "bytes": size}), flush=True)
    finally:
        sub.close(0)
        ctx.term()


def turn_size() -> None:
    """Child: the size of this tree's turn update (for the header's line on ``before``)."""
    from lan_demon.net.codec import encode
    print(len(encode(turn_update())))


# ----------------------------------------------------------------------------- the targets


class Target:
    """One target process on loopback: its ROUTER address, PUB address, pid, version."""

    def __init__(self, kind: str, players: int, seed: int, log: Any, before: str | None,
                 versions: dict[str, int], wrapper: tuple[str, ...] = (),
                 startup: float = 15.0):
        """``wrapper``: a command the target runs under (instructions.py: callgrind), and
        ``startup`` the seconds it is given to say its ports."""
        self.kind = kind
        self.tree = before if kind == "before" else TREE
        self.version = versions[kind]
        env = tree_env(self.tree)
        if kind in STAND_INS:
            env["RULES_SEATS"] = str(players)  # the rules stand-in deals a table of this size
            self.proc = subprocess.Popen([*wrapper, sys.executable, HERE, "--" + kind], cwd=TREE,
                                         env=env, stdout=subprocess.PIPE, stderr=log, text=True)
            router, pub = read_line(self.proc, startup).split()
            self.address, self.pub = f"tcp://{HOST}:{router}", f"tcp://{HOST}:{pub}"
        else:
            profile = ["-m", "cProfile", "-o", os.path.join(PROFILE, f"{kind}-{players}-"
                                                            f"{time.monotonic_ns()}.prof")] \
                if PROFILE else []
            command = [*wrapper, sys.executable, *profile, "-m", "lan_demon", "host", "--port",
                       "0", "--players",
                       str(players), "--seed", str(seed), "--countdown", "0", "--pause", "0",
                       "--fairness-ms", "0", "--rounds", "1000000", "--no-handicap",
                       "--rate-limit", "0", *unjournaled(self.tree)]
            self.proc = subprocess.Popen(command, cwd=self.tree, env=env,
                                         stdout=subprocess.PIPE, stderr=log, text=True)
            # "lan-demon: hosting racing-demon at HOST:PORT (updates on port PUB), …"
            first = read_line(self.proc, startup)
            self.address = "tcp://" + first.split(" at ", 1)[1].split()[0]
            self.pub = f"tcp://{HOST}:{int(first.split('updates on port ', 1)[1].split(')')[0])}"
            if not self.address.startswith(f"tcp://{HOST}:"):
                raise RuntimeError(f"the host is not on loopback: {first}")
            drain_rest(self.proc)  # the host's log: a line a round
        self.pid = self.proc.pid
        self.watcher: subprocess.Popen | None = None

    def start_watcher(self, log: Any) -> None:
        """Phase C's subscriber: a real spectator Client, or for the relay a raw SUB."""
        what = ["--raw-sub", self.pub] if self.kind in STAND_INS else ["--client", self.address]
        self.watcher = subprocess.Popen([sys.executable, HERE] + what, cwd=self.tree,
                                        env=tree_env(self.tree), stdout=subprocess.PIPE,
                                        stderr=log, text=True)
        read_line(self.watcher)

    def close(self) -> dict[str, Any]:
        stats = last_json(stop(self.watcher))
        self.watcher = None
        stop(self.proc, signal.SIGTERM if self.kind in STAND_INS else signal.SIGINT)
        return stats


# ------------------------------------------------------------------------------- the load


class Load:
    """N seats in this process: a DEALER and a SUB each, seat 0's SUB the reference."""

    def __init__(self, target: Target, seats: int):
        self.target, self.n, self.v = target, seats, target.version
        self.ctx = zmq.Context()
        self.dealers: list[zmq.Socket] = []
        self.subs: list[zmq.Socket] = []
        self.seat_of: list[int | None] = [None] * seats  # the target's seat number of each
        self.flying = [0] * seats  # the id of each seat's move in flight, 0 for none
        self.owner: dict[int, int] = {}  # move id -> our seat index (ids are unique here)
        self.sent_at: dict[int, float] = {}
        self.next_id = FIRST_ID
        self.round_no: int | None = 0 if target.kind in STAND_INS else None
        self.waiting: list[int] = []  # seats to send for as soon as a round is known
        self.sending = False  # phase A sets it: seats send again when answered
        self.count = {"moves": 0, "pub_frames": 0, "pub_bytes": 0, "priv_frames": 0,
                      "priv_bytes": 0, "other_bytes": 0, "rounds": 0, "refused": 0, "lost": 0,
                      "wrong_seat": 0}
        for i in range(seats):
            d, sub = self.ctx.socket(zmq.DEALER), self.ctx.socket(zmq.SUB)
            for sock in (d, sub):
                sock.setsockopt(zmq.LINGER, 0)
            sub.setsockopt(zmq.SUBSCRIBE, b"")
            sub.connect(target.pub)
            d.connect(target.address)
            self.dealers.append(d)
            self.subs.append(sub)
        self.index = {d: i for i, d in enumerate(self.dealers)}
        self.ref = self.subs[0]
        self.poller = zmq.Poller()
        for sock in self.dealers + self.subs:
            self.poller.register(sock, zmq.POLLIN)

    def close(self) -> None:
        for sock in self.dealers + self.subs:
            sock.close(0)
        self.ctx.term()

    # --- sending ---------------------------------------------------------------------------

    def send_move(self, i: int) -> None:
        if self.round_no is None:
            self.waiting.append(i)
            return
        rid = self.next_id
        self.next_id += 1
        self.flying[i] = rid
        self.owner[rid] = i
        self.sent_at[rid] = time.monotonic()
        self.dealers[i].send(pack({"v": self.v, "t": "move", "id": rid, "round": self.round_no,
                                   "move": TURN, "ts": 0.0}))

    def acked(self, i: int, rid: int) -> None:
        self.flying[i] = 0
        self.owner.pop(rid, None)
        self.sent_at.pop(rid, None)
        if self.sending:
            self.send_move(i)

    def new_round(self, round_no: int) -> None:
        self.round_no = round_no
        waiting, self.waiting = self.waiting, []
        if self.sending:
            for i in waiting:
                self.send_move(i)

    # --- receiving -------------------------------------------------------------------------

    def on_update(self, msg: dict[str, Any]) -> None:
        """An update read on the reference SUB: acknowledge a move, follow the rounds."""
        k = msg.get("k")
        if k == "move":
            self.count["moves"] += 1
            rid = msg.get("rid")
            i = self.owner.get(rid)
            if i is None or self.flying[i] != rid:
                return
            seat = msg.get("seat")
            if self.seat_of[i] is None:
                self.seat_of[i] = seat  # the relay numbers seats first come, first numbered
            elif self.seat_of[i] != seat:
                self.count["wrong_seat"] += 1
            self.acked(i, rid)
        elif k == "round":
            self.count["rounds"] += 1
            self.new_round(msg["round"])
        elif k == "round_end":
            self.round_no = None

    def on_private(self, i: int, msg: dict[str, Any]) -> None:
        t = msg.get("t")
        if t == "error":
            rid = msg.get("re")
            if rid and self.flying[i] == rid:
                self.count["refused"] += 1
                self.acked(i, rid)  # refused and so answered: the next goes with the round
        elif t == "welcome" and self.seat_of[i] is None:
            self.seat_of[i] = msg.get("seat")
            self.dealers[i].send(pack({"v": self.v, "t": "ready", "id": 2}))

    def pump(self, timeout_ms: float) -> None:
        """One poll and a drain of every ready socket (phase A's way of reading)."""
        count = self.count
        for sock, _ in self.poller.poll(timeout_ms):
            i = self.index.get(sock)
            while True:
                try:
                    frame = sock.recv(zmq.NOBLOCK)
                except zmq.Again:
                    break
                if i is not None:
                    count["priv_frames"] += 1
                    count["priv_bytes"] += len(frame)
                    for msg in messages(frame):
                        self.on_private(i, msg)
                elif sock is self.ref:
                    count["pub_frames"] += 1
                    count["pub_bytes"] += len(frame)
                    for msg in messages(frame):
                        if msg.get("t") == "update":
                            self.on_update(msg)
                else:
                    count["other_bytes"] += len(frame)

    def rescue(self) -> None:
        """A move unanswered for STUCK seconds is counted lost and sent again."""
        now = time.monotonic()
        for rid, at in list(self.sent_at.items()):
            if now - at > STUCK:
                self.count["lost"] += 1
                self.acked(self.owner[rid], rid)

    def in_flight(self) -> int:
        return sum(1 for f in self.flying if f)

    def drain_raw(self, socks: list[zmq.Socket]) -> None:
        for sock in socks:
            while True:
                try:
                    sock.recv(zmq.NOBLOCK)
                except zmq.Again:
                    break


# ------------------------------------------------------------------------------ the phases


def begin(load: Load, target: Target) -> None:
    """Every seat seated and the first round dealt (the relay: every SUB subscribed)."""
    if target.kind not in STAND_INS:
        for i, d in enumerate(load.dealers):
            d.send(pack({"v": load.v, "t": "hello", "id": 1, "name": f"load-{i}",
                         "role": "player", "bot": True}))
        deadline = time.monotonic() + 60
        while load.round_no is None:
            if time.monotonic() > deadline:
                raise RuntimeError(f"{target.kind}: the match did not start")
            load.pump(50)
    else:  # seat 0 plays until the reference SUB hears it: its subscription has arrived
        deadline = time.monotonic() + 30
        while load.seat_of[0] != 0:
            if time.monotonic() > deadline:
                raise RuntimeError("relay: the reference SUB hears nothing")
            if load.flying[0]:
                load.owner.pop(load.flying[0], None)
                load.sent_at.pop(load.flying[0], None)
            load.send_move(0)
            load.pump(100)
        time.sleep(0.1)  # the other SUBs' subscriptions, connected at the same time
        load.owner.pop(load.flying[0], None)  # (that move is answered: seat 0 is free)
        load.flying[0] = 0


def phase_a(load: Load, target: Target, seconds: float) -> dict[str, Any]:
    """Closed loop, every seat flat out, one move in flight each."""
    load.sending = True
    for i in range(load.n):
        if not load.flying[i]:
            load.send_move(i)
    t_open = time.monotonic() + WARMUP
    while time.monotonic() < t_open:
        load.pump(50)
        load.rescue()
    if target.watcher is not None:
        target.watcher.send_signal(signal.SIGUSR1)
    for key in load.count:
        load.count[key] = 0
    t0, g0, cpu0 = time.monotonic(), time.process_time(), thread_cpu(target.pid)
    t_close = t0 + seconds
    while time.monotonic() < t_close:
        load.pump(50)
        load.rescue()
    t1, g1, cpu1 = time.monotonic(), time.process_time(), thread_cpu(target.pid)
    counts = dict(load.count)
    if target.watcher is not None:
        target.watcher.send_signal(signal.SIGTERM)  # it prints its figures; read at close
    load.sending = False
    deadline = time.monotonic() + 2 * STUCK
    while load.in_flight() and time.monotonic() < deadline:
        load.pump(50)
    stuck = load.in_flight()
    for i, rid in enumerate(load.flying):
        if rid:
            load.acked(i, rid)
    moves = max(1, counts["moves"])
    split = split_cpu(target.pid, cpu0, cpu1)
    return {"moves_per_s": counts["moves"] / (t1 - t0),
            "python_us": split["python"] / moves * 1e6, "io_us": split["io"] / moves * 1e6,
            "other_us": split["other"] / moves * 1e6,
            "total_us": sum(split.values()) / moves * 1e6,
            "gen_us": (g1 - g0) / moves * 1e6, "gen_cpu": (g1 - g0) / (t1 - t0),
            "target_cpu": sum(split.values()) / (t1 - t0),
            "pub_frames": counts["pub_frames"] / moves, "pub_bytes": counts["pub_bytes"] / moves,
            "priv_frames": counts["priv_frames"] / moves,
            "priv_bytes": counts["priv_bytes"] / moves,
            "others_bytes": counts["other_bytes"] / max(1, load.n - 1) / max(
                1, counts["pub_bytes"]), "refused": counts["refused"],
            "rounds": counts["rounds"], "lost": counts["lost"],
            "wrong_seat": counts["wrong_seat"], "stuck": stuck}


def phase_b(load: Load, target: Target, seconds: float, seed: int) -> dict[str, Any]:
    """Move → all clients: seat 0 alone, one Pack turn at a time, every SUB decoding."""
    rng = random.Random(seed)
    subs, dealer = load.subs, load.dealers[0]
    load.drain_raw(subs + load.dealers[1:])
    poller = zmq.Poller()
    for sock in subs + [dealer]:
        poller.register(sock, zmq.POLLIN)
    position = {sock: i for i, sock in enumerate(subs)}
    all_clients: list[float] = []
    one_client: list[float] = []
    refused = lost = 0
    deadline = time.monotonic() + seconds
    while len(all_clients) < B_MOST and time.monotonic() < deadline:
        if load.round_no is None:  # between rounds: wait for the next deal
            for sock, _ in poller.poll(50):
                for frame in drain(sock):
                    if sock is subs[0]:
                        for msg in messages(frame):
                            if msg.get("t") == "update" and msg.get("k") == "round":
                                load.round_no = msg["round"]
            continue
        rid = load.next_id
        load.next_id += 1
        missing = set(range(load.n))
        got: dict[int, float] = {}
        answered = False
        start = time.perf_counter()
        dealer.send(pack({"v": load.v, "t": "move", "id": rid, "round": load.round_no,
                          "move": TURN, "ts": 0.0}))
        give_up = start + STUCK
        while missing and not answered:
            ready = poller.poll(max(1.0, (give_up - time.perf_counter()) * 1000))
            if not ready and time.perf_counter() >= give_up:
                lost += 1
                break
            for sock, _ in ready:
                i = position.get(sock)
                for frame in drain(sock):
                    at = time.perf_counter()
                    for msg in messages(frame):
                        if i is None:  # seat 0's DEALER
                            if msg.get("t") == "error" and msg.get("re") == rid:
                                refused += 1
                                answered = True
                            continue
                        if msg.get("t") != "update":
                            continue  # beats and the like
                        k = msg.get("k")
                        if k == "move" and msg.get("rid") == rid and i in missing:
                            got[i] = at
                            missing.discard(i)
                        elif i == 0 and k == "round":
                            load.round_no = msg["round"]
                        elif i == 0 and k == "round_end":
                            load.round_no = None
        if not missing and not answered:
            all_clients.append((max(got.values()) - start) * 1e6)
            one_client.append((got[0] - start) * 1e6)
        pause = time.perf_counter() + rng.uniform(0.001, 0.003)
        load.drain_raw(load.dealers[1:])
        rest = pause - time.perf_counter()
        if rest > 0:
            time.sleep(rest)
    a50, a99 = quantiles(all_clients)
    o50, o99 = quantiles(one_client)
    return {"all_p50": a50, "all_p99": a99, "one_p50": o50, "one_p99": o99,
            "b_moves": len(all_clients), "b_refused": refused, "b_lost": lost}


def drain(sock: zmq.Socket) -> list[bytes]:
    frames = []
    while True:
        try:
            frames.append(sock.recv(zmq.NOBLOCK))
        except zmq.Again:
            return frames


def measure(kind: str, n: int, args: argparse.Namespace, log: Any,
            versions: dict[str, int]) -> dict[str, Any]:
    """One target, one table size, one repetition: phases A, B (and C during A)."""
    target = load = None
    watcher: dict[str, Any] = {}
    try:
        target = Target(kind, n, args.seed, log, args.before, versions)
        target.start_watcher(log)
        load = Load(target, n)
        begin(load, target)
        # B first, on the first round as dealt: the same table (the seed's deal) for every
        # target, whatever phase A would have left behind
        idle = phase_b(load, target, args.seconds, args.seed)
        result = phase_a(load, target, args.seconds)
        result.update(idle)
        watcher = last_json(stop(target.watcher))
        target.watcher = None
    finally:
        if load is not None:
            load.close()
        if target is not None:
            target.close()
    result["client_us"] = watcher.get("pump_us", float("nan")) if kind not in STAND_INS \
        else float("nan")
    result["client_cpu_us"] = watcher.get("cpu_us", float("nan")) if kind not in STAND_INS \
        else float("nan")
    result["client_pump_cpu_us"] = watcher.get("pump_cpu_us", float("nan")) \
        if kind not in STAND_INS else float("nan")
    result["client_updates"] = watcher.get("updates", 0)
    result["client_resyncs"] = watcher.get("resyncs", 0)
    result["watcher"] = watcher
    return result


# -------------------------------------------------------------------------------- output

ROWS = [  # (label, key, format)
    ("moves/s", "moves_per_s", "{:,.0f}"),
    ("CPU/move python (µs)", "python_us", "{:.1f}"),
    ("CPU/move I/O (µs)", "io_us", "{:.1f}"),
    ("CPU/move other (µs)", "other_us", "{:.1f}"),
    ("CPU/move total (µs)", "total_us", "{:.1f}"),
    ("generator CPU/move (µs)", "gen_us", "{:.1f}"),
    ("all-clients p50 (µs)", "all_p50", "{:,.0f}"),
    ("all-clients p99 (µs)", "all_p99", "{:,.0f}"),
    ("one-client p50 (µs)", "one_p50", "{:,.0f}"),
    ("PUB frames/move", "pub_frames", "{:.2f}"),
    ("PUB B/move", "pub_bytes", "{:.0f}"),
    ("private frames/move", "priv_frames", "{:.2f}"),
    ("private B/move", "priv_bytes", "{:.0f}"),
    ("client µs/update (pump, wall)", "client_us", "{:.1f}"),
    ("client µs/update (pump, thread CPU)", "client_pump_cpu_us", "{:.1f}"),
    ("client process CPU µs/update", "client_cpu_us", "{:.1f}"),
]


def fmt(value: float, form: str) -> str:
    if value != value:  # nan
        return "–"
    return form.format(value)


def line(kind: str, n: int, rep: int, r: dict[str, Any]) -> str:
    extra = []
    if r["rounds"]:
        extra.append(f"{r['rounds']} rounds dealt")
    if r["others_bytes"] and abs(r["others_bytes"] - 1) > 0.02:
        extra.append(f"the other SUBs got {r['others_bytes']:.0%} of the reference's bytes")
    for key in ("refused", "lost", "wrong_seat", "stuck", "b_refused", "b_lost"):
        if r.get(key):
            extra.append(f"{key} {r[key]}")
    if r.get("client_resyncs"):
        extra.append(f"client resyncs {r['client_resyncs']}")
    return (f"{n:3d} seats rep {rep} {kind:9s} A: {r['moves_per_s']:7,.0f} moves/s, target "
            f"CPU {r['target_cpu']:4.0%} ({r['python_us']:.1f} py + {r['io_us']:.1f} I/O"
            + (f" + {r['other_us']:.1f} other" if r["other_us"] >= 0.05 else "")
            + f" = {r['total_us']:.1f} µs/move), generator {r['gen_cpu']:4.0%} CPU "
            f"({r['gen_us']:.1f} µs/move); PUB {r['pub_frames']:.2f} fr {r['pub_bytes']:.0f} B, "
            f"private {r['priv_frames']:.2f} fr {r['priv_bytes']:.0f} B per move | B: all "
            f"{fmt(r['all_p50'], '{:,.0f}')}/{fmt(r['all_p99'], '{:,.0f}')} µs, one "
            f"{fmt(r['one_p50'], '{:,.0f}')} µs over {r['b_moves']} | C: "
            + (f"{r['client_us']:.1f} µs pump ({r['client_pump_cpu_us']:.1f} µs of its "
               f"thread's CPU), {r['client_cpu_us']:.1f} µs process CPU per update "
               f"({r['client_updates']} updates)" if kind not in STAND_INS else "raw SUB")
            + (f" [{', '.join(extra)}]" if extra else ""))


def summary(n: int, kinds: list[str], results: dict[str, list[dict[str, Any]]]) -> list[str]:
    med = {k: {key: median([r[key] for r in results[k]]) for _, key, _ in ROWS} for k in kinds}
    ratios = [("lan_demon", "relay"), ("rules", "relay"), ("lan_demon", "rules")]
    if "before" in kinds:
        ratios += [("before", "relay"), ("lan_demon", "before")]
    head = [f"{n} seats (median of {len(results[kinds[0]])})"] + kinds + \
        [f"{a} ÷ {b}" for a, b in ratios]
    out = ["| " + " | ".join(head) + " |", "| --- |" + " ---: |" * (len(head) - 1)]
    for label, key, form in ROWS:
        if key == "other_us" and all(med[k][key] < 0.05 for k in kinds):
            continue
        cells = [label] + [fmt(med[k][key], form) for k in kinds]
        for a, b in ratios:
            x, y = med[a][key], med[b][key]
            cells.append(f"{x / y:.2f}" if y == y and x == x and y > 0 else "–")
        out.append("| " + " | ".join(cells) + " |")
    return out


def median(values: list[float]) -> float:
    values = [v for v in values if v == v]
    return statistics.median(values) if values else float("nan")


# ------------------------------------------------------------------------------------ main


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seats", default="2,6,20,50,100",
                        help="table sizes, comma-separated (default 2,6,20,50,100)")
    parser.add_argument("--seconds", type=float, default=5.0,
                        help="length of phase A's window and of phase B (default 5)")
    parser.add_argument("--reps", type=int, default=3, help="repetitions (default 3)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--before", metavar="PATH",
                        help="a checkout of older lan_demon code, served as the 'before' target")
    parser.add_argument("--profile", metavar="DIR", help="run the lan_demon and before hosts "
                        "under cProfile, one .prof file each in DIR (slows them: figures then "
                        "are not comparable)")
    parser.add_argument("--relay", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--rules", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--client", metavar="ADDRESS", help=argparse.SUPPRESS)
    parser.add_argument("--raw-sub", metavar="PUB", help=argparse.SUPPRESS)
    parser.add_argument("--turn-size", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    global PROFILE
    PROFILE = args.profile and os.path.abspath(args.profile)
    if args.relay:
        return relay()
    if args.rules:
        return rules_relay()
    if args.client:
        return watch_client(args.client)
    if args.raw_sub:
        return raw_sub(args.raw_sub)
    if args.turn_size:
        return turn_size()
    # A SIGTERM ends the run as Ctrl-C does: through every finally, stopping what it started.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    from lan_demon.net.codec import VERSION, encode
    sizes = [int(s) for s in args.seats.split(",")]
    kinds, versions = targets(args)
    command = (f"python benchmarks/floor.py --seats {args.seats} --seconds {args.seconds:g} "
               f"--reps {args.reps} --seed {args.seed}"
               + (f" --before {args.before}" if args.before else ""))
    update = turn_update()
    ours = len(encode(update))
    relayed = len(pack(relay_update(VERSION, update["seq"], update["round"], update["seat"],
                                    update["move"], update["rid"], update["events"],
                                    update.get("s"))))
    print(f"command: {command}")
    print(f"python {platform.python_version()}, pyzmq {zmq.__version__} (libzmq "
          f"{zmq.zmq_version()}), msgpack {'.'.join(map(str, msgpack.version))}, "
          f"{os.cpu_count()} cores, loopback {HOST}, racing-demon")
    sizes_line = f"turn update: lan_demon (v{VERSION}) {ours} B, relay {relayed} B"
    if args.before:
        try:
            before_size = subprocess.run(
                [sys.executable, HERE, "--turn-size"], cwd=args.before,
                env=tree_env(args.before), capture_output=True, text=True, check=True,
                timeout=60).stdout.strip()
        except (subprocess.SubprocessError, OSError):
            before_size = "?"
        sizes_line += f", before (v{versions['before']}) {before_size} B"
    print(sizes_line)
    sys.stdout.flush()
    began = time.monotonic()
    with tempfile.TemporaryFile("w+") as log:
        try:
            for n in sizes:
                results: dict[str, list[dict[str, Any]]] = {k: [] for k in kinds}
                for rep in range(args.reps):
                    shift = rep % len(kinds)
                    for kind in kinds[shift:] + kinds[:shift]:
                        r = measure(kind, n, args, log, versions)
                        results[kind].append(r)
                        print(line(kind, n, rep, r), flush=True)
                print()
                print("\n".join(summary(n, kinds, results)))
                print(flush=True)
        finally:
            log.seek(0)
            errors = "\n".join(text for text in log.read().splitlines()
                               if "host stopped" not in text)
            if errors.strip():
                print("child processes' stderr:\n" + errors[-3000:], file=sys.stderr)
    print(f"took {time.monotonic() - began:.0f} s")


if __name__ == "__main__":
    main()
