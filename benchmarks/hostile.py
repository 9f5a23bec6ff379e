"""One hostile peer against a table (issue 11, items 4 and 5): what it costs the arbiter and the
honest seats, measured against a baseline with no attacker in the same run, on 127.0.0.1.

    python benchmarks/hostile.py [--seconds 8] [--bots 3] [--speed expert] [--seed 1]
                                 [--rate-limit N] [--only f,g,...]

The arbiter runs in a process of its own (``ArbiterServer``, Racing Demon, the default rate
limits and high-water marks, RD-15 handicaps off so a long table keeps dealing), so its CPU
time (utime + stime of every thread, ``/proc/PID/stat``) and its RSS (``VmRSS``) can be read.
``--bots`` greedy bots at the ``--speed`` pace play in a second process (and one more in a
third, the seat of (g)-(i)); this process is a
spectator that pings the arbiter every 10 ms (ping p50/p99) and counts the committed moves on
the PUB (moves/s). Phases, ``--seconds`` each, an attacker process started and stopped for each:

* baseline: no attacker;
* (a) 60 KB frames each holding a 60,000-element list, ~155 a second (the issue's attack);
* (a') the same list shape at the byte cap: 2 KiB frames of 2,000-element lists, ~155 a second;
* (b) one connection asking ``snapshot`` ~4,500 times a second and never reading;
* (c) flat-out junk: random bytes and capped list frames, as fast as the attacker can send;
* (d) a page flood: a browser's WebSocket (issue 28) watching the table and sending intents as
  fast as it can (the gateway's bucket reads 20 a second, bursts of 40, and drops the rest);
* (e) page junk: a WebSocket sending frames that are not JSON, as fast as it can;
* (f) the widest frame the arbiter still reads (a ``hb`` whose unknown field holds 64 lists of
  28 empty lists: 1,857 containers in 1,998 bytes), as many as the brake admits: its burst at
  once, then its rate (the rate limit and burst over what one such frame costs, asked of an
  :class:`Arbiter` of this tree; so too in (g)-(i));
* (g) legal moves at the rate limit from a seat of its own (issue 30): the table has one seat
  more than ``--bots``, a greedy bot at the same pace in a process of its own (the *seat*),
  which plays in every phase; in (g) it also sends ``turn`` (RD-9: always legal while its Pack
  or waste holds a card) as many a second as the brake admits;
* (h) the seat asks ``snapshot`` as many a second as the brake admits (a snapshot costs 16
  tokens);
* (i) the seat disputes the round in hand as many a second as the brake admits;
* baseline': no attacker again, so the two quiet phases show the run's own noise.

Moves/s counts only the ``--bots`` bots' committed moves (not the seat's, shown apart).

The host process serves the page too (``WebServer`` on a thread of its own, as ``lan-demon
host`` does), so its CPU is the arbiter's and the gateway's together.

For each: arbiter CPU% (CPU time / wall time), ping p50/p99, moves/s, the CPU% of the bots'
process and of the flooder's (the attacker's, or the seat's), and the arbiter's RSS before,
at its peak during, and 2 s after the attacker stopped. Nothing is asserted; the
figures go to docs/benchmarks.md. Every process and socket started here is stopped by its id.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import statistics
import subprocess
import sys
import time
from typing import Any

import msgpack
import zmq

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from lan_demon.net.codec import VERSION  # noqa: E402  (the protocol version this table speaks)
from children import stop_all  # noqa: E402  (benchmarks/children.py: the end of a run)

HOST = "127.0.0.1"
HERE = os.path.abspath(__file__)
CLK_TCK = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")


# --------------------------------------------------------------------------- children

def host_worker(args: argparse.Namespace) -> None:
    from lan_demon.net.server import ArbiterServer
    from lan_demon.net.settings import Settings, dealing_of
    from lan_demon.web.server import WebServer
    config = Settings("racing-demon", dealing=dealing_of(args.seed), players=args.bots + 1,
                      rounds=1_000_000, options={"handicap": False}, countdown=0, pause=0,
                      **brake(args))
    server = ArbiterServer(config, host=HOST, port=0)
    page = WebServer(server.port, "racing-demon", host=HOST, port=0).start()
    print(server.address, page.url, flush=True)
    signal.signal(signal.SIGTERM, lambda *_: server.stop())
    try:
        server.serve(exit_when_over=False)
    finally:
        page.stop()
        server.close()


def bots_worker(args: argparse.Namespace) -> None:
    from lan_demon.bots.runner import make_bot, run_pool
    stopping: list[int] = []
    signal.signal(signal.SIGTERM, lambda *_: stopping.append(1))
    bots = [make_bot(args.address, "greedy", f"bot-{i}", seed=f"{args.seed}:{i}",
                     speed=args.speed, connect_timeout=30) for i in range(args.bots)]
    try:
        run_pool(bots, until=lambda: bool(stopping), timeout=3600)
    finally:
        for bot in bots:
            bot.client.close()
        zmq.Context.instance().term()


def _list_frame(n: int) -> bytes:
    """A map {"v": VERSION, "t": "hb", "x": [0] * n}: n one-byte elements (array32 header)."""
    return (b"\x83\xa1v" + bytes([VERSION]) + b"\xa1t\xa2hb\xa1x\xdd" + n.to_bytes(4, "big")
            + b"\x00" * n)


def _widest_frame() -> bytes:
    """(f): a ``hb`` (which any connection may send) whose unknown field ``x`` holds 64 lists of
    28 empty lists, 1,998 bytes: within every limit of UNPACK_LIMITS, and as many containers as
    a frame under MAX_MESSAGE holds, so the costliest frame the arbiter reads whole."""
    return msgpack.packb({"v": VERSION, "t": "hb", "x": [[[]] * 28] * 64})


def brake(args: argparse.Namespace) -> dict[str, float]:
    """The host's brake: the default, or ``--rate-limit N`` with bursts of 2N (as ``host``)."""
    return {} if args.rate_limit is None else {"rate_limit": args.rate_limit,
                                               "rate_burst": 2 * args.rate_limit}


def brake_rate(frame: bytes, args: argparse.Namespace) -> tuple[float, int]:
    """Frames a second of ``frame`` the default brake admits from one connection, and how many
    at once (its burst): the rate limit and the burst over the tokens one costs, found by
    handing it to an Arbiter of this tree (whatever the tree charges: bytes, a snapshot's or a
    refused frame's price). A flooder sends the burst at once, then the rate."""
    from lan_demon.net.arbiter import Arbiter
    from lan_demon.net.settings import Settings
    arbiter = Arbiter(Settings("racing-demon", players=2, **brake(args)))
    arbiter.handle(b"probe", frame, 1.0)
    cost = arbiter.limiter.burst - arbiter.limiter.buckets[b"probe"].tokens
    return arbiter.limiter.rate / max(1.0, cost), int(arbiter.limiter.burst / max(1.0, cost))


def seat_worker(args: argparse.Namespace) -> None:
    """The seat of (g)-(i): a greedy bot at ``--speed`` that plays as the others do, all the
    time (a seat that stopped playing would change the game the bots play: fewer cards on the
    stacks, RD-13 waiting for it). While the last line on stdin is ``g``, ``h`` or ``i`` it
    also floods from its seat's connection, as many frames a second as the brake admits
    (sent raw, beside the client's own traffic), until the line ``quiet``. Prints its seat
    index first."""
    import select

    from lan_demon.bots.runner import make_bot
    stopping: list[int] = []
    signal.signal(signal.SIGTERM, lambda *_: stopping.append(1))
    bot = make_bot(args.address, "greedy", "seat", seed=f"{args.seed}:seat", speed=args.speed,
                   connect_timeout=30)
    client = bot.client
    print(client.seat, flush=True)
    send = zmq.backend.Socket.send
    poller = zmq.Poller()
    polled: Any = None
    mode, rid, sent, start, rate = "quiet", 10**9, 0, 0.0, 0.0  # (ids clear of the client's)
    try:
        while not stopping:
            if select.select([sys.stdin], [], [], 0)[0]:
                line = sys.stdin.readline().strip()
                if not line:
                    break
                mode, start = line, time.monotonic()
                rate, burst = (0.0, 0) if mode == "quiet" else \
                    brake_rate(_seat_frame(mode, client, 1), args)
                sent = -burst  # the burst at once, then the rate
            now = time.monotonic()
            due = min(int((now - start) * rate) - sent, 1000)  # (the flooder's own pace)
            for _ in range(max(0, due) if client.dealer is not None else 0):
                rid += 1
                try:
                    send(client.dealer, _seat_frame(mode, client, rid), NOBLOCK)
                except zmq.Again:
                    pass
            sent += max(0, due)
            if client.sockets() != polled:
                poller, polled = zmq.Poller(), client.sockets()
                for sock in polled:
                    poller.register(sock, zmq.POLLIN)
            wait = min(bot.wake_in(now), 0.05, 0.002 if rate else 0.05)
            poller.poll(wait * 1000)
            client.pump()
            if client.notices:
                bot.handle(client.take_notices())
            bot.step(time.monotonic())
    finally:
        client.close()
        zmq.Context.instance().term()


NOBLOCK = int(zmq.NOBLOCK)


def _seat_frame(mode: str, client: Any, rid: int) -> bytes:
    round_no = client.table.get("round") or 0
    if mode == "g":
        msg = {"v": VERSION, "t": "move", "id": rid, "round": round_no, "move": {"t": "turn"},
               "ts": client.arbiter_now()}
    elif mode == "h":
        msg = {"v": VERSION, "t": "snapshot", "id": rid}
    else:
        msg = {"v": VERSION, "t": "dispute", "id": rid, "round": round_no,
               "reason": "your cards differ from the commitment"}
    return msgpack.packb(msg)


def page_attacker_worker(args: argparse.Namespace) -> None:
    """(d) and (e): one browser's WebSocket, flat out (aiohttp's client, as a page's)."""
    import asyncio
    import json

    import aiohttp
    stopping: list[int] = []
    signal.signal(signal.SIGTERM, lambda *_: stopping.append(1))

    async def flood() -> None:
        async with aiohttp.ClientSession() as session:
            ws = await session.ws_connect(args.web.rstrip("/") + "/ws")
            await ws.send_str(json.dumps({"t": "join", "watch": True}))
            await ws.receive(timeout=30)  # seated
            frames = [json.dumps({"t": "act", "do": "play", "from": f"c{i % 4 + 1}"})
                      for i in range(8)] if args.attack == "page-flood" else \
                ["{not json" * (1 + i % 8) for i in range(8)]
            sent = 0
            while not stopping:
                await ws.send_str(frames[sent % len(frames)])
                sent += 1
                if sent % 64 == 0:  # read what came back, so the socket never backs up
                    while True:
                        try:
                            msg = await ws.receive(timeout=0.001)
                        except asyncio.TimeoutError:
                            break
                        if msg.type != aiohttp.WSMsgType.TEXT:
                            return
            await ws.close()
    asyncio.run(flood())


def attacker_worker(args: argparse.Namespace) -> None:
    if args.attack.startswith("page"):
        return page_attacker_worker(args)
    stopping: list[int] = []
    signal.signal(signal.SIGTERM, lambda *_: stopping.append(1))
    ctx = zmq.Context()
    sock = ctx.socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    sock.setsockopt(zmq.RCVHWM, 1)  # (b) reads nothing: let the replies pile up at the arbiter
    sock.setsockopt(zmq.SNDHWM, 1000)
    sock.connect(args.address)
    rng = random.Random(args.seed)
    mode = args.attack
    if mode in ("lists", "capped"):
        frame = _list_frame(60_000 if mode == "lists" else 2_000)
        rate = 155.0
    elif mode == "widest":
        frame = _widest_frame()
        rate, burst = brake_rate(frame, args)
    elif mode == "snapshot":
        frames = [msgpack.packb({"v": VERSION, "t": "snapshot", "id": i + 1})
                  for i in range(4500)]
        rate = 4500.0
    else:
        junk = [bytes(rng.getrandbits(8) for _ in range(rng.randrange(1, 2048)))
                for _ in range(64)] + [_list_frame(2_000)] * 16
        rate = None
    start, sent = time.monotonic(), 0
    if mode == "widest":
        sent = -burst  # the burst at once, then the rate
    try:
        while not stopping:
            if rate is not None:
                due = start + sent / rate
                wait = due - time.monotonic()
                if wait > 0:
                    time.sleep(wait)  # the attacker's own pace, not a synchronisation
            if mode in ("lists", "capped", "widest"):
                msg = frame
            elif mode == "snapshot":
                msg = frames[sent % len(frames)]
            else:
                msg = junk[sent % len(junk)]
            try:
                sock.send(msg, zmq.NOBLOCK)
            except zmq.Again:
                pass
            sent += 1
    finally:
        sock.close(linger=0)
        ctx.term()


# --------------------------------------------------------------------------- measuring

def proc_cpu(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def proc_rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/statm") as f:
        return int(f.read().split()[1]) * PAGE / 1e6


class Spectator:
    """Pings every 10 ms on a DEALER (a spectator's seatless connection), counts moves on a
    SUB. Its pongs are read before its updates, and at most 16 update frames between two
    looks at them: under a flood of legal moves (g) it reads thousands of updates a second,
    and the ping measures how soon the arbiter answers, not how long this process took to
    read a flood's updates (the bots' CPU and moves/s show what those cost the clients)."""

    def __init__(self, ctx: zmq.Context, address: str):
        self.skip: set[int] = {-1}  # seats whose moves are not counted: the table's, the seat's
        self.dealer = ctx.socket(zmq.DEALER)
        self.sub = ctx.socket(zmq.SUB)
        for sock in (self.dealer, self.sub):
            sock.setsockopt(zmq.LINGER, 0)
        self.dealer.connect(address)
        self.ids = iter(range(1, 10**9))
        self.dealer.send(msgpack.packb({"v": VERSION, "t": "hello", "id": next(self.ids),
                                        "name": "watch", "role": "spectator"}))
        if not self.dealer.poll(30_000):
            raise SystemExit("the arbiter did not answer")
        welcome = msgpack.unpackb(self.dealer.recv())
        port = welcome["pub"].rsplit(":", 1)[1]
        self.sub.setsockopt(zmq.SUBSCRIBE, b"")
        self.sub.connect(f"tcp://{HOST}:{port}")

    def run(self, seconds: float, pid: int, others: tuple[int, ...] = ()) -> dict[str, Any]:
        """``others``: processes whose CPU% is reported too (the bots, the attacker)."""
        poller = zmq.Poller()
        poller.register(self.dealer, zmq.POLLIN)
        poller.register(self.sub, zmq.POLLIN)
        rtts: list[float] = []
        sent: dict[int, float] = {}
        moves = theirs = 0  # the bots' committed moves, and the seat's
        peak = proc_rss_mb(pid)
        cpu0, t0 = proc_cpu(pid), time.monotonic()
        theirs0 = [proc_cpu(p) for p in others]
        end, next_ping, next_rss = t0 + seconds, t0, t0
        while (now := time.monotonic()) < end:
            if now >= next_ping:
                rid = next(self.ids)
                sent[rid] = now
                self.dealer.send(msgpack.packb({"v": VERSION, "t": "ping", "id": rid, "c": now}))
                next_ping = now + 0.010
            if now >= next_rss:
                peak = max(peak, proc_rss_mb(pid))
                next_rss = now + 0.25
            for sock, _ in poller.poll(max(0.0, min(next_ping, next_rss) - now) * 1000):
                for _ in range(10**9 if sock is self.dealer else 16):  # pongs first (below)
                    try:
                        frame = sock.recv(zmq.NOBLOCK)
                    except zmq.Again:
                        break
                    got = msgpack.unpackb(frame, raw=False)
                    for msg in got if isinstance(got, list) else [got]:  # a frame of several (§2)
                        if sock is self.dealer and msg.get("t") == "pong" and \
                                msg["re"] in sent:
                            rtts.append(time.monotonic() - sent.pop(msg["re"]))
                        elif msg.get("t") == "update" and msg.get("k") == "move" and \
                                msg.get("seat") not in self.skip:
                            moves += 1
                        elif msg.get("t") == "update" and msg.get("k") == "move" and \
                                msg.get("seat", -1) >= 0:
                            theirs += 1
        wall = time.monotonic() - t0
        cpu = proc_cpu(pid) - cpu0
        spent = [100 * (proc_cpu(p) - c) / wall for p, c in zip(others, theirs0)]
        rtts.sort()
        lost = len([t for t in sent.values() if t < end - 1.0])
        return {"cpu": 100 * cpu / wall, "p50": 1e3 * statistics.median(rtts) if rtts else 0,
                "p99": 1e3 * rtts[int(0.99 * (len(rtts) - 1))] if rtts else 0,
                "pings": len(rtts), "lost": lost, "moves": moves / wall, "seat": theirs / wall,
                "others": spent, "peak": peak}

    def close(self) -> None:
        self.dealer.close(linger=0)
        self.sub.close(linger=0)


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


ATTACKS = [("baseline", None, "no attacker"),
           ("a", "lists", "60 KB frames of 60,000-element lists, 155/s"),
           ("a'", "capped", "2 KiB frames of 2,000-element lists, 155/s"),
           ("b", "snapshot", "snapshot 4,500/s, never reading"),
           ("c", "junk", "flat-out junk (random bytes, capped lists)"),
           ("d", "page-flood", "a page's WebSocket: intents flat out"),
           ("e", "page-junk", "a page's WebSocket: junk frames flat out"),
           ("f", "widest", "widest readable frames at the brake"),
           ("g", "seat:g", "a seat's legal moves (turn) at the brake"),
           ("h", "seat:h", "a seat's snapshots at the brake"),
           ("i", "seat:i", "a seat's disputes at the brake"),
           ("baseline'", None, "no attacker again")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--bots", type=int, default=3)
    parser.add_argument("--speed", default="expert")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rate-limit", type=float, help="the host's --rate-limit (default: "
                        "the host's default)")
    parser.add_argument("--host-worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--bots-worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--seat-worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--only", help="run only these phases (comma-separated names; the "
                        "baselines always run)")
    parser.add_argument("--attack", help=argparse.SUPPRESS)
    parser.add_argument("--address", help=argparse.SUPPRESS)
    parser.add_argument("--web", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.host_worker:
        return host_worker(args)
    if args.bots_worker:
        return bots_worker(args)
    if args.seat_worker:
        return seat_worker(args)
    if args.attack:
        return attacker_worker(args)

    print(f"command: python benchmarks/hostile.py --seconds {args.seconds:g} --bots {args.bots} "
          f"--speed {args.speed} --seed {args.seed}"
          + (f" --rate-limit {args.rate_limit:g}" if args.rate_limit is not None else "")
          + (f" --only {args.only}" if args.only else ""))
    print(f"python {sys.version.split()[0]}, pyzmq {zmq.__version__} (libzmq "
          f"{zmq.zmq_version()}), msgpack {'.'.join(map(str, msgpack.version))}, "
          f"{os.cpu_count()} cores, loopback {HOST}")
    began = time.monotonic()
    common = ["--seed", str(args.seed), "--bots", str(args.bots), "--speed", args.speed] + \
        ([] if args.rate_limit is None else ["--rate-limit", f"{args.rate_limit:g}"])
    host = subprocess.Popen([sys.executable, HERE, "--host-worker"] + common,
                            stdout=subprocess.PIPE, text=True)
    procs = [host]
    ctx = zmq.Context()
    watcher = None
    try:
        address, _, web = host.stdout.readline().strip().partition(" ")
        if not address.startswith("tcp://"):
            raise SystemExit("the arbiter did not start")
        bots = subprocess.Popen([sys.executable, HERE, "--bots-worker", "--address", address]
                                + common)
        procs.append(bots)
        seat = subprocess.Popen([sys.executable, HERE, "--seat-worker", "--address", address]
                                + common, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                text=True)
        procs.append(seat)
        watcher = Spectator(ctx, address)
        watcher.skip.add(int(seat.stdout.readline()))
        watcher.run(3.0, host.pid)  # warm-up: the bots sit down and the first round is dealt
        only = set(args.only.split(",")) if args.only else None
        for name, mode, what in ATTACKS:
            if only is not None and mode is not None and name not in only:
                continue
            before = proc_rss_mb(host.pid)
            attacker = None
            if mode is not None and mode.startswith("seat:"):
                seat.stdin.write(mode[5:] + "\n")
                seat.stdin.flush()
            elif mode is not None:
                attacker = subprocess.Popen([sys.executable, HERE, "--attack", mode,
                                             "--address", address, "--web", web] + common)
                procs.append(attacker)
            flooder = attacker.pid if attacker is not None else seat.pid
            got = watcher.run(args.seconds, host.pid, (bots.pid, flooder))
            if attacker is not None:
                stop(attacker)
            if mode is not None and mode.startswith("seat:"):
                seat.stdin.write("quiet\n")
                seat.stdin.flush()
            after = watcher.run(2.0, host.pid)["peak"]  # 2 s after the attacker stopped
            print(f"{name:>9}  {what:<46} arbiter CPU {got['cpu']:5.1f}%  ping p50 "
                  f"{got['p50']:5.2f} ms p99 {got['p99']:6.2f} ms ({got['pings']} pings, "
                  f"{got['lost']} lost)  moves {got['moves']:4.1f}/s (seat {got['seat']:6.1f}/s)  "
                  f"CPU bots {got['others'][0]:4.1f}% flooder {got['others'][1]:4.1f}%  RSS "
                  f"{before:5.1f} → {got['peak']:5.1f} → {after:5.1f} MB", flush=True)
    finally:
        stop_all(watcher, procs, ctx)
    print(f"took {time.monotonic() - began:.0f} s")


if __name__ == "__main__":
    main()
