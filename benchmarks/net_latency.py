"""Networked play: move-to-update latency, throughput and bytes per update, on loopback.

    python benchmarks/net_latency.py [--players 2,8,20,50] [--seconds 15] [--seed 1]
                                     [--bot-procs 2] [--fairness-ms 0] [--profile DIR]

Racing Demon (classic). For each table size the arbiter runs in a process of its own, so that
its CPU time can be read from ``/proc/PID/stat``; its address is read from its first line of
output. It is ``python -m lan_demon host --port 0 --players N --seed S
--countdown 0 --pause 0 --fairness-ms 0 --rounds 1000000`` on 127.0.0.1; for the flat-out and
saturated phases also ``--no-handicap --rate-limit 0`` (a flat-out table plays thousands of
rounds, over which RD-15's handicaps would walk the Piles down to 0, and rounds over at Go,
RD-16, would then flood the table; the saturated phase's bare seats exceed the flood brake on
purpose). Bots share one or two more processes (``run_pool``). Per
table size:

1. latency: one seat is a probe client, the others are greedy bots at the ``club`` pace (a
   person's). The probe plays only moves no other seat can contest — an ace to the middle
   (it founds a new stack), a card or a whole column onto one of its own columns (a ladder),
   a turn of its Pack — so the arbiter commits each at once, whatever the fairness window
   (``Game.rivals`` is asserted empty for each). It times ``client.play(move)`` up to the
   arrival of the PUB ``update`` carrying that move's request id (``rid``), one move about
   every 100 ms;
2. between those moves, at the same pace and under the same load, the probe process also
   times raw round trips to the echo process (a machine that sleeps between actions answers
   more slowly than one kept busy, so this is the fair yardstick next to the back-to-back
   baseline);
3. flat-out: every seat is a greedy bot at the ``flat-out`` pace, split over ``--bot-procs``
   processes. Committed moves are counted from the PUB stream by a plain SUB socket; the
   arbiter's CPU time (utime + stime, every thread of its process) per committed move gives
   the moves per second one core of it could carry. The bots' CPU is shown too: on two cores
   they, not the arbiter, are the bottleneck (every client replays every update);
4. saturated: every seat is a bare DEALER keeping turns of its Pack in flight, with a SUB per
   seat that drains every update, so the arbiter sets the pace — its own capacity (a lower
   bound: the load generator shares the two cores);
5. bytes: the average size of the PUB ``update`` frames (move updates, and all updates
   including deals) and of the private frames the seats receive (``ok``, ``private``).

Before all that, the baseline, measured in the same run: a raw pyzmq DEALER→ROUTER round trip
of a small msgpack map to an echo process, back to back (p50/p99 over 5000).

The machine is shared and noisy, so figures move from run to run: compare them with the
baselines of the same run. Nothing here asserts a time; the figures go to docs/benchmarks.md.
Every process and socket started here is stopped before it exits. ``--profile DIR`` runs the
children under cProfile (one ``.prof`` file each).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import signal
import subprocess
import sys
import tempfile
import time
from typing import Any

import msgpack
import zmq

from children import drain_rest, messages, quantiles, read_line, stop

HOST = "127.0.0.1"
GAME = "racing-demon"
CLK_TCK = os.sysconf("SC_CLK_TCK")
HERE = os.path.abspath(__file__)
WARMUP = 1.0  # seconds of play before a measuring window opens
PROFILE: str | None = None  # --profile DIR: children run under cProfile, one file each


def python(name: str) -> list[str]:
    """The command line that starts a child Python (under cProfile with --profile)."""
    if not PROFILE:
        return [sys.executable]
    return [sys.executable, "-m", "cProfile", "-o", os.path.join(PROFILE, f"{name}.prof")]


# --------------------------------------------------------------------------------- helpers


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process (every thread of it), from /proc/PID/stat."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK








class Host:
    """An arbiter in a process of its own, on loopback, any free port: ``lan-demon host``
    (``--no-journal``: the table is measured, not the disk, and no journal of a million rounds
    is left in the state folder); with ``flat_out`` also ``--no-handicap --rate-limit 0``
    (RD-15 off, no flood brake: the saturated phase's bare seats send ~10,000 messages/s each,
    on purpose)."""

    def __init__(self, players: int, seed: int, fairness_ms: float, log: Any, name: str,
                 flat_out: bool = False):
        command = ["-m", "lan_demon", "host", "--port", "0", "--players", str(players),
                   "--seed", str(seed), "--countdown", "0", "--pause", "0",
                   "--fairness-ms", f"{fairness_ms:g}", "--rounds", "1000000", "--no-journal"]
        if flat_out:
            command += ["--no-handicap", "--rate-limit", "0"]
        self.proc = subprocess.Popen(python(f"host-{name}") + command,
                                     stdout=subprocess.PIPE, stderr=log, text=True)
        # "lan-demon: hosting racing-demon at HOST:PORT (updates on port PUB), …"
        first = read_line(self.proc)
        self.address = "tcp://" + first.split(" at ", 1)[1].split()[0]
        self.pub = f"tcp://{HOST}:{int(first.split('updates on port ', 1)[1].split(')')[0])}"
        drain_rest(self.proc)  # the host's log: a line a round
        self.pid = self.proc.pid

    def close(self) -> None:
        stop(self.proc, signal.SIGINT)


def start_bots(address: str, count: int, first: int, speed: str, seed: int, log: Any
               ) -> subprocess.Popen:
    return subprocess.Popen(
        python(f"bots-{speed}-{count}-{first}") + [
            HERE, "--bots-worker", address, "--count", str(count), "--first", str(first),
            "--speed", speed, "--seed", str(seed)],
        stdout=subprocess.PIPE, stderr=log, text=True)


def worker_stats(out: str) -> dict[str, Any]:
    for line in reversed(out.splitlines()):
        if line.startswith("{"):
            return json.loads(line)
    return {}


# ------------------------------------------------------------------ 1. the raw round trip


def echo_server() -> None:
    """Child: a ROUTER that answers every msgpack map with a small msgpack map."""
    ctx = zmq.Context()
    router = ctx.socket(zmq.ROUTER)
    router.setsockopt(zmq.LINGER, 0)
    port = router.bind_to_random_port(f"tcp://{HOST}")
    print(port, flush=True)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        while True:
            peer, frame = router.recv_multipart()
            msg = msgpack.unpackb(frame, raw=False)
            router.send_multipart([peer, msgpack.packb(
                {"v": 2, "t": "ok", "re": msg["id"], "seq": msg["id"]}, use_bin_type=True)])
    finally:
        router.close(0)
        ctx.term()


class Echo:
    """The echo process and a DEALER connected to it: one raw round trip per :meth:`rtt`."""

    def __init__(self) -> None:
        self.child = subprocess.Popen(python("echo") + [HERE, "--echo"],
                                      stdout=subprocess.PIPE, text=True)
        self.ctx = zmq.Context()
        self.dealer = self.ctx.socket(zmq.DEALER)
        self.dealer.setsockopt(zmq.LINGER, 0)
        self.dealer.connect(f"tcp://{HOST}:{int(read_line(self.child))}")
        self.ids = 0

    def rtt(self) -> float:
        """One DEALER→ROUTER→DEALER round trip of a small msgpack map, in µs."""
        self.ids += 1
        frame = msgpack.packb({"v": 2, "t": "move", "id": self.ids, "round": 0,
                               "move": {"t": "play", "from": "pile", "to": "middle"},
                               "ts": time.monotonic()}, use_bin_type=True)
        start = time.perf_counter()
        self.dealer.send(frame)
        if not self.dealer.poll(5000):
            raise RuntimeError("the echo process did not answer")
        msgpack.unpackb(self.dealer.recv(), raw=False)
        return (time.perf_counter() - start) * 1e6

    def close(self) -> None:
        self.dealer.close(0)
        self.ctx.term()
        stop(self.child)


def baseline(echo: Echo, n: int = 5000) -> tuple[float, float]:
    """p50, p99 of back-to-back raw round trips, after a few hundred to warm both ends up."""
    for _ in range(500):
        echo.rtt()
    return quantiles([echo.rtt() for _ in range(n)])


# ------------------------------------------------------------------------ 2. the probe


def make_probe_class():
    from lan_demon.net.client import Client

    class Probe(Client):
        """A client that notes when the update of each of its own moves arrives (through the
        client's public ``watchers`` hook, before the update is applied)."""

        def __init__(self, *args: Any, **kw: Any):
            super().__init__(*args, **kw)
            self.sent_at: dict[int, float] = {}
            self.latencies: list[float] = []
            self.measuring = False
            self.watchers.append(self._heard)

        def _heard(self, channel: str, msg: dict[str, Any], size: int) -> None:
            if channel == "update" and msg.get("k") == "move" and msg.get("seat") == self.seat:
                start = self.sent_at.pop(msg.get("rid"), None)
                if start is not None and self.measuring:
                    self.latencies.append((time.perf_counter() - start) * 1e6)

    return Probe


def uncontested(client: Any) -> Any | None:
    """The probe's next move: one that no other seat can contest, in the greedy order —
    an ace to the middle, a pile or waste card onto a column, a whole column onto another,
    else a turn of the Pack."""
    from lan_demon.bots.racing_demon import rank_move
    from lan_demon.games.demon_moves import COLUMN_NAMES, Play, TurnPack
    state = client.mirror
    me = state.seats[client.seat]
    sizes = [len(c) for c in me.columns]
    best, best_rank = None, 99
    for move in client.legal_moves():
        if isinstance(move, Play):
            if move.target == "middle":
                card = me.pile[-1] if move.source == "pile" else me.waste[-1] \
                    if move.source == "waste" else me.columns[COLUMN_NAMES.index(move.source)][-1]
                if card.rank != 1:
                    continue  # onto a stack: another seat may race for it (RD-11)
                rank = 0
            elif move.target in COLUMN_NAMES:
                rank = rank_move(move, sizes)
            else:
                continue
        elif isinstance(move, TurnPack):
            rank = 6
        else:
            continue
        if rank < best_rank:
            best, best_rank = move, rank
    if best is not None:
        assert client.game.rivals(state, client.seat, best) == []
    return best


def latency(players: int, seconds: float, seed: int, fairness_ms: float, echo: Echo,
            log: Any) -> dict[str, Any]:
    """Move-to-update latency of a probe seat among club-pace bots. Between its moves the
    probe also times raw round trips to the echo process, at the same pace and under the same
    load: a machine that idles between actions answers more slowly than one kept busy."""
    host = bots = None
    probe = None
    ctx = zmq.Context()
    try:
        host = Host(players, seed, fairness_ms, log, f"club-{players}")
        probe = make_probe_class()(host.address, name="probe", context=ctx).connect()
        if players > 1:
            bots = start_bots(host.address, players - 1, 1, "club", seed, log)
        probe.ready()
        rng = random.Random(seed)
        poller = zmq.Poller()
        for sock in probe.sockets():
            poller.register(sock, zmq.POLLIN)
        deadline = time.monotonic() + 60
        while probe.table.get("phase") != "playing":
            if time.monotonic() > deadline:
                raise RuntimeError("the match did not start")
            poller.poll(50)
            probe.pump()
        t_open = time.monotonic() + WARMUP
        t_close = t_open + seconds
        t_b2b = t_close + min(seconds, 5.0)  # then back to back, as the baseline is taken
        cpu0 = seq0 = None
        refused = 0
        next_act = time.monotonic()
        echo_next, raw = True, []  # actions alternate: a raw round trip, then a move
        paced: list[float] = []
        while True:
            now = time.monotonic()
            if cpu0 is None and now >= t_open:
                cpu0, seq0, wall0 = cpu_seconds(host.pid), probe.seq, now
                probe.measuring = True
            if now >= t_close and not paced:
                wall = now - wall0
                cpu = cpu_seconds(host.pid) - cpu0
                updates = probe.seq - seq0
                paced, probe.latencies, raw_paced, raw = probe.latencies, [], raw, []
            if now >= t_b2b:
                break
            wait = 0.05 if probe.pending else max(0.0, min(next_act - now, 0.05))
            poller.poll(wait * 1000)
            probe.pump()
            for notice in probe.take_notices():
                if notice.kind == "round_end":
                    probe.ready()
                elif notice.kind in ("beaten", "refused"):
                    refused += 1
            if probe.pending or probe.table.get("phase") != "playing" or probe.mirror is None:
                continue
            if time.monotonic() < next_act:
                continue
            if echo_next:
                rtt = echo.rtt()
                if probe.measuring:
                    raw.append(rtt)
                echo_next = False
                next_act = time.monotonic() + (rng.uniform(0.025, 0.075) if not paced else 0)
                continue
            move = uncontested(probe)
            if move is None:
                next_act = time.monotonic() + 0.1
                continue
            start = time.perf_counter()
            rid = probe.play(move)
            probe.sent_at[rid] = start
            # a quick but human hand: a move about every 100 ms, a raw round trip between;
            # in the back-to-back window, each at once after the other's answer
            echo_next = True
            next_act = time.monotonic() + (rng.uniform(0.025, 0.075) if not paced else 0)
        p50, p99 = quantiles(paced)
        r50, r99 = quantiles(raw_paced)
        b50, b99 = quantiles(probe.latencies)
        rb50, rb99 = quantiles(raw)
        return {"p50": p50, "p99": p99, "samples": len(paced), "refused": refused,
                "raw_p50": r50, "raw_p99": r99, "raw_samples": len(raw_paced),
                "b2b_p50": b50, "b2b_p99": b99, "b2b_samples": len(probe.latencies),
                "raw_b2b_p50": rb50, "raw_b2b_p99": rb99,
                "updates_per_s": updates / wall, "arbiter_cpu": cpu / wall}
    finally:
        if probe is not None:
            probe.close()
        stop(bots)
        if host is not None:
            host.close()
        ctx.term()


# ------------------------------------------------------------------- 3. flat-out throughput


def throughput(players: int, seconds: float, seed: int, fairness_ms: float, procs: int,
               log: Any) -> dict[str, Any]:
    """Every seat a flat-out bot; committed moves counted from the PUB stream."""
    host = None
    workers: list[subprocess.Popen] = []
    ctx = zmq.Context()
    sub = ctx.socket(zmq.SUB)
    sub.setsockopt(zmq.LINGER, 0)
    sub.setsockopt(zmq.SUBSCRIBE, b"")
    try:
        host = Host(players, seed, fairness_ms, log, f"flat-out-{players}", flat_out=True)
        sub.connect(host.pub)
        procs = max(1, min(procs, players))
        share = [players // procs + (i < players % procs) for i in range(procs)]
        first = 0
        for count in share:
            workers.append(start_bots(host.address, count, first, "flat-out", seed, log))
            first += count
        moves = frames = move_bytes = all_bytes = pub_frames = pub_bytes = 0
        window: dict[str, float] = {}
        deadline = time.monotonic() + 60
        started = False
        while True:
            now = time.monotonic()
            if not started and now > deadline:
                raise RuntimeError("the match did not start")
            if started and "t0" not in window and now >= t_open:
                window = {"t0": now, "cpu": cpu_seconds(host.pid),
                          "bots": sum(cpu_seconds(w.pid) for w in workers)}
                moves = frames = move_bytes = all_bytes = pub_frames = pub_bytes = 0
            if "t0" in window and now >= t_open + seconds:
                window.update(t1=now, cpu1=cpu_seconds(host.pid),
                              bots1=sum(cpu_seconds(w.pid) for w in workers))
                break
            if not sub.poll(50):
                continue
            while True:
                try:
                    frame = sub.recv(zmq.NOBLOCK)
                except zmq.Again:
                    break
                pub_frames += 1
                pub_bytes += len(frame)
                for msg in messages(frame):  # (protocol 3: a frame may hold several)
                    if msg.get("t") != "update":
                        continue
                    size = len(msgpack.packb(msg, use_bin_type=True))  # its own share
                    frames += 1
                    all_bytes += size
                    if msg["k"] == "move":
                        moves += 1
                        move_bytes += size
                    elif msg["k"] == "round" and not started:
                        started, t_open = True, time.monotonic() + WARMUP
        wall = window["t1"] - window["t0"]
        cpu = window["cpu1"] - window["cpu"]
        bots_cpu = window["bots1"] - window["bots"]
        result = {"moves": moves, "moves_per_s": moves / wall,
                  "cpu_per_move_us": cpu / max(1, moves) * 1e6,
                  "arbiter_cpu": cpu / wall, "bots_cpu": bots_cpu / wall, "procs": procs,
                  "update_move_bytes": move_bytes / max(1, moves),
                  "update_bytes": all_bytes / max(1, frames), "updates": frames,
                  "pub_frames_per_move": pub_frames / max(1, moves),
                  "pub_bytes_per_move": pub_bytes / max(1, moves)}
    finally:
        outs = [stop(w) for w in workers]
        sub.close(0)
        if host is not None:
            host.close()
        ctx.term()
    private: dict[str, list[int]] = {}
    for out in outs:
        for kind, (count, size) in worker_stats(out).get("private", {}).items():
            c, s = private.get(kind, [0, 0])
            private[kind] = [c + count, s + size]
    result["private"] = {k: (c, s / c) for k, (c, s) in private.items() if c}
    return result


def count_private(tally: dict[str, list[int]], channel: str, msg: dict[str, Any],
                  size: int) -> None:
    """Count and size the frames the arbiter sends one seat alone, by type (``ok``,
    ``private/move``, …): a client ``watchers`` hook."""
    if channel == "private":
        kind = msg.get("t") + ("/" + msg["k"] if "k" in msg else "")
        entry = tally.setdefault(kind, [0, 0])
        entry[0] += 1
        entry[1] += size


def bots_worker(args: argparse.Namespace) -> None:
    """Child: ``count`` bots in one process (run_pool) until SIGTERM; then a JSON line."""
    from lan_demon.bots.runner import make_bot, run_pool
    stopping = []
    signal.signal(signal.SIGTERM, lambda *_: stopping.append(1))
    tally: dict[str, list[int]] = {}
    bots = []
    try:
        for i in range(args.count):
            if stopping:
                return
            bot = make_bot(args.bots_worker, "greedy", f"bot-{args.first + i}",
                           seed=f"{args.seed}:{args.first + i}", speed=args.speed,
                           connect_timeout=30)
            bots.append(bot)
            bot.client.watchers.append(
                lambda channel, msg, size: count_private(tally, channel, msg, size))
        run_pool(bots, until=lambda: bool(stopping), timeout=3600)
    finally:
        print(json.dumps({"bots": len(bots), "moves": sum(b.moves for b in bots),
                          "private": tally}), flush=True)
        for bot in bots:
            bot.client.close()
        zmq.Context.instance().term()


# ------------------------------------------------------------ 4. the arbiter saturated


def capacity(players: int, seconds: float, seed: int, fairness_ms: float, log: Any,
             in_flight: int = 16) -> dict[str, Any]:
    """The arbiter's own ceiling: every seat is a bare DEALER that keeps several turns of its
    Pack in flight (a turn is always legal and never contested), with a SUB per seat that
    reads every update, so the arbiter — not a bot's engine — sets the pace. A round ends
    stuck after three rotations (RD-13) and the next is dealt at once, as in real play."""
    from lan_demon.net.codec import encode, make
    host = None
    ctx = zmq.Context()
    socks: list[zmq.Socket] = []
    try:
        host = Host(players, seed, fairness_ms, log, f"capacity-{players}", flat_out=True)
        dealers, subs = [], []
        for i in range(players):
            d, sub = ctx.socket(zmq.DEALER), ctx.socket(zmq.SUB)
            socks += [d, sub]
            for sock in (d, sub):
                sock.setsockopt(zmq.LINGER, 0)
            sub.setsockopt(zmq.SUBSCRIBE, b"")
            sub.connect(host.pub)
            d.connect(host.address)
            d.send(encode(make("hello", id=1, name=f"load-{i}", role="player", bot=True)))
            dealers.append(d)
            subs.append(sub)
        window = max(2, -(-in_flight // players))
        turn = {"t": "turn"}
        poller = zmq.Poller()
        for sock in dealers + subs:
            poller.register(sock, zmq.POLLIN)
        flying = [0] * players
        ids = [10] * players
        round_no: int | None = None
        moves = refused = 0
        ready = set()
        dealer_of: dict[int, int] = {}  # seat number -> index of its DEALER here
        window_at: dict[str, float] = {}
        t_open = t_close = None
        deadline = time.monotonic() + 60
        while True:
            now = time.monotonic()
            if t_open is None and now > deadline:
                raise RuntimeError("the match did not start")
            if t_open is not None and not window_at and now >= t_open:
                window_at = {"t0": now, "cpu0": cpu_seconds(host.pid)}
                moves = refused = 0
            if window_at and now >= t_close:
                window_at.update(t1=now, cpu1=cpu_seconds(host.pid))
                break
            if round_no is not None:
                for i, d in enumerate(dealers):
                    while flying[i] < window:
                        ids[i] += 1
                        flying[i] += 1
                        d.send(encode(make("move", id=ids[i], round=round_no, move=turn,
                                           ts=0.0)))
            for sock, _ in poller.poll(50):
                i = dealers.index(sock) if sock in dealers else -1
                while True:
                    try:
                        frame = sock.recv(zmq.NOBLOCK)
                    except zmq.Again:
                        break
                    if i < 0 and sock is not subs[0]:
                        continue  # one SUB reads the stream; the others just drain
                    for msg in messages(frame):
                        if i >= 0:  # a private message to seat i
                            kind, re = msg["t"], msg.get("re", 0)
                            if kind == "welcome" and i not in ready:
                                ready.add(i)
                                dealer_of[msg["seat"]] = i
                                sock.send(encode(make("ready", id=2)))
                            elif kind == "error" and re > 10:
                                flying[i] -= 1
                                refused += 1
                            continue
                        if msg["t"] != "update":
                            continue
                        if msg["k"] == "move":  # a move's update is its answer (protocol 3)
                            moves += 1
                            if msg.get("rid", 0) > 10 and msg["seat"] in dealer_of:
                                flying[dealer_of[msg["seat"]]] -= 1
                        elif msg["k"] == "round":
                            round_no = msg["round"]
                            if t_open is None:
                                t_open = time.monotonic() + WARMUP
                                t_close = t_open + seconds
                        elif msg["k"] == "round_end":
                            round_no = None
        wall = window_at["t1"] - window_at["t0"]
        cpu = window_at["cpu1"] - window_at["cpu0"]
        return {"moves_per_s": moves / wall, "cpu_per_move_us": cpu / max(1, moves) * 1e6,
                "arbiter_cpu": cpu / wall, "refused": refused, "window": window}
    finally:
        for sock in socks:
            sock.close(0)
        if host is not None:
            host.close()
        ctx.term()


# ------------------------------------------------------------------------------- main


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", default="2,8,20,50",
                        help="table sizes, comma-separated (default 2,8,20,50)")
    parser.add_argument("--seconds", type=float, default=15.0,
                        help="length of each measuring window (default 15)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--bot-procs", type=int, default=2,
                        help="processes the flat-out bots are split across (default 2)")
    parser.add_argument("--fairness-ms", type=float, default=0.0,
                        help="the arbiter's RD-11 window (default 0; the probe's moves are "
                        "uncontested, so they are committed at once either way)")
    parser.add_argument("--profile", metavar="DIR", help="run the arbiter and bot processes "
                        "under cProfile, writing one .prof file each into DIR")
    parser.add_argument("--echo", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--bots-worker", metavar="ADDRESS", help=argparse.SUPPRESS)
    parser.add_argument("--count", type=int, default=1, help=argparse.SUPPRESS)
    parser.add_argument("--first", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--speed", default="club", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.echo:
        return echo_server()
    if args.bots_worker:
        return bots_worker(args)
    global PROFILE
    PROFILE = args.profile and os.path.abspath(args.profile)
    sizes = [int(p) for p in args.players.split(",")]
    command = (f"python benchmarks/net_latency.py --players {args.players} --seconds "
               f"{args.seconds:g} --seed {args.seed} --bot-procs {args.bot_procs}"
               + (f" --fairness-ms {args.fairness_ms:g}" if args.fairness_ms else ""))
    print(f"command: {command}")
    print(f"python {platform.python_version()}, pyzmq {zmq.__version__} (libzmq "
          f"{zmq.zmq_version()}), msgpack {'.'.join(map(str, msgpack.version))}, "
          f"{os.cpu_count()} cores, loopback {HOST}, {GAME}, fairness window "
          f"{args.fairness_ms:g} ms")
    began = time.monotonic()
    echo = Echo()
    try:
        b50, b99 = baseline(echo)
        print(f"baseline: raw DEALER/ROUTER round trip, back to back (msgpack, echo process): "
              f"p50 {b50:.0f} µs, p99 {b99:.0f} µs over 5000")
        sys.stdout.flush()
        with tempfile.TemporaryFile("w+") as log:
            for n in sizes:
                report(n, args, echo, b50, log)
            log.seek(0)
            errors = "\n".join(line for line in log.read().splitlines()
                               if "host stopped" not in line)
            if errors.strip():
                print("child processes' stderr:\n" + errors[-3000:], file=sys.stderr)
    finally:
        echo.close()
    print(f"took {time.monotonic() - began:.0f} s")


def report(n: int, args: argparse.Namespace, echo: Echo, b50: float, log: Any) -> None:
    """Measure one table size and print its lines."""
    lat = latency(n, args.seconds, args.seed, args.fairness_ms, echo, log)
    print(f"{n:3d} players  latency, probe among {n - 1} club bots: p50 {lat['p50']:.0f} µs, "
          f"p99 {lat['p99']:.0f} µs over {lat['samples']} moves "
          f"({lat['updates_per_s']:.0f} updates/s, arbiter CPU {lat['arbiter_cpu']:.0%}"
          + (f", {lat['refused']} refused" if lat["refused"] else "") + ")")
    print(f"{n:3d} players    raw round trip at the probe's pace, same load: p50 "
          f"{lat['raw_p50']:.0f} µs, p99 {lat['raw_p99']:.0f} µs over {lat['raw_samples']}; "
          f"probe p50 = {lat['p50'] / lat['raw_p50']:.1f}× this, {lat['p50'] / b50:.1f}× "
          f"back to back")
    print(f"{n:3d} players  the same probe back to back (each move as soon as the last one's "
          f"update came, a raw round trip between): move p50 {lat['b2b_p50']:.0f} µs, p99 "
          f"{lat['b2b_p99']:.0f} µs over {lat['b2b_samples']}; raw p50 "
          f"{lat['raw_b2b_p50']:.0f} µs, p99 {lat['raw_b2b_p99']:.0f} µs; move p50 = "
          f"{lat['b2b_p50'] / lat['raw_b2b_p50']:.1f}× this")
    sys.stdout.flush()
    fo = throughput(n, args.seconds, args.seed, args.fairness_ms, args.bot_procs, log)
    print(f"{n:3d} players  flat-out bots ({fo['procs']} bot process"
          f"{'es' * (fo['procs'] > 1)}): {fo['moves_per_s']:,.0f} moves/s; CPU: arbiter "
          f"{fo['arbiter_cpu']:.0%}, bots {fo['bots_cpu']:.0%} (of 2 cores); arbiter "
          f"{fo['cpu_per_move_us']:.0f} µs CPU/move ≈ {1e6 / fo['cpu_per_move_us']:,.0f} "
          f"moves/s per core")
    sys.stdout.flush()
    cap = capacity(n, args.seconds, args.seed, args.fairness_ms, log)
    print(f"{n:3d} players  arbiter saturated (bare seats, {cap['window']} turns in flight "
          f"each): {cap['moves_per_s']:,.0f} moves/s at {cap['arbiter_cpu']:.0%} CPU, "
          f"{cap['cpu_per_move_us']:.0f} µs CPU/move"
          + (f", {cap['refused']} refused" if cap["refused"] else ""))
    priv = ", ".join(f"{k} {size:.0f} B" for k, (count, size) in sorted(
        fo["private"].items()) if k in ("ok", "private/move", "private/round"))
    snaps, snap_size = fo["private"].get("snap", (0, 0))
    print(f"{n:3d} players  bytes (flat-out run): update/move {fo['update_move_bytes']:.0f} B, "
          f"all updates {fo['update_bytes']:.0f} B (incl. deals); PUB frames "
          f"{fo['pub_frames_per_move']:.2f} and {fo['pub_bytes_per_move']:.0f} B per move; "
          f"private: {priv}; "
          f"{snaps} resync snapshots of {snap_size / 1000:.0f} kB on average")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
