"""Many watchers (issue 30, item 6): what a crowd of spectators costs a seated player and the host.

    python benchmarks/watchers.py [--watchers 2000] [--waves 1] [--seconds 8] [--bots 3]
                                  [--speed expert] [--seed 1] [--raw] [--no-hb]

The arbiter runs in a process of its own (``ArbiterServer``, Racing Demon, default rate limits
and high-water marks, RD-15 handicaps off), so
its CPU time (utime + stime of every thread) and RSS (``VmRSS``) can be read; ``--bots``
greedy bots at the ``--speed`` pace play in a second process. This process holds a **seated**
player (it sat down before the match started, never plays a card, votes "stuck" once a second
so RD-13 never waits a minute for it) that pings every 10 ms, counts the committed moves on
its SUB and times the beats' way to it (``beat lag``: now − the beat's ``a``; one clock, one
machine). A third process, the crowd, holds ``--watchers`` spectators as cheap raw sockets —
each a DEALER that says ``hello`` as a spectator and then, as the reference ``Client`` does, a
``hb`` and a ``ping`` every ``--beat`` seconds (default: the client's own ``WATCH_BEAT``, or
``BEAT`` in a checkout from before issue 30), and a SUB on the PUB the welcome names — and
reads everything they are sent (epoll on each socket's ``ZMQ_FD``: no thread per watcher).
``--raw``: SUBs only, no hello, on the seats' PUB (a player's welcome names it; anyone may
subscribe there at an uncoded table without a hello).

Phases: a baseline with no watchers (``--seconds``), then ``--waves`` times: the crowd
connects (how long, how many refused and with what), is watched for ``--seconds``, says
``leave`` and closes; RSS 2 s and 10 s after. Nothing is asserted; the figures go to
docs/benchmarks.md. Every process and socket started here is stopped by its id.
"""

from __future__ import annotations

import argparse
import collections
import os
import resource
import select
import signal
import subprocess
import sys
import time
from typing import Any

import msgpack
import zmq

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from children import quantiles, read_line, stop_all  # noqa: E402
from hostile import HOST, bots_worker, proc_cpu, proc_rss_mb  # noqa: E402
from lan_demon.net.codec import VERSION  # noqa: E402

HERE = os.path.abspath(__file__)
POLLIN, NOBLOCK, EVENTS = int(zmq.POLLIN), int(zmq.NOBLOCK), int(zmq.EVENTS)


def _pack(t: str, **fields: Any) -> bytes:
    return msgpack.packb({"v": VERSION, "t": t, **fields})


def _messages(frame: bytes) -> list[dict[str, Any]]:
    got = msgpack.unpackb(frame, raw=False)
    return got if isinstance(got, list) else [got]


# --------------------------------------------------------------------------- children

def host_worker(args: argparse.Namespace) -> None:
    from lan_demon.net.server import ArbiterServer
    from lan_demon.net.settings import Settings, dealing_of
    config = Settings("racing-demon", dealing=dealing_of(args.seed), players=args.bots + 1,
                      rounds=1_000_000, options={"handicap": False}, countdown=0, pause=0)
    context = zmq.Context(io_threads=args.io_threads) if args.io_threads else None
    server = ArbiterServer(config, host=HOST, port=args.port, context=context)
    print(server.address, flush=True)
    signal.signal(signal.SIGTERM, lambda *_: server.stop())
    try:
        server.serve(exit_when_over=False)
    finally:
        server.close()


class Crowd:
    """``n`` watchers as raw sockets in one context, read through epoll on their ZMQ_FDs."""

    def __init__(self, address: str, pub: str, hb: bool, beat: float):
        self.address, self.pub, self.hb, self.beat = address, pub, hb, beat
        self.ctx = zmq.Context()
        self.ctx.set(zmq.MAX_SOCKETS, 16384)
        self.ep = select.epoll()
        self.by_fd: dict[int, zmq.Socket] = {}
        self.dealers: list[zmq.Socket] = []
        self.subs: list[zmq.Socket] = []
        self.next_hb: dict[zmq.Socket, float] = {}
        self.frames = 0
        self.refused: collections.Counter[str] = collections.Counter()

    def _watch(self, sock: zmq.Socket) -> None:
        fd = sock.getsockopt(zmq.FD)
        self.by_fd[fd] = sock
        self.ep.register(fd, select.EPOLLIN)

    def _read(self, sock: zmq.Socket) -> None:
        """Everything waiting on ``sock``. ZMQ_FD is edge-triggered: it is signalled only when
        a socket that found nothing to read gets something, so every socket is read until
        EVENTS says it is empty — after each wake and after each send (which may take the
        signal while processing the socket's commands)."""
        while sock.get(EVENTS) & POLLIN:
            sock.recv(NOBLOCK)
            self.frames += 1

    def join(self, n: int, raw: bool) -> str:
        began = time.monotonic()
        waiting: dict[zmq.Socket, int] = {}
        for i in range(n):
            if raw:
                self._sub(self.pub)
                continue
            dealer = self.ctx.socket(zmq.DEALER)
            dealer.setsockopt(zmq.LINGER, 1000)  # the leave said on close gets out
            dealer.connect(self.address)
            self._watch(dealer)
            dealer.get(EVENTS)  # (arms its ZMQ_FD: see _read)
            dealer.send(_pack("hello", id=1, name=f"w{i}", role="spectator"))
            waiting[dealer] = i
            self.dealers.append(dealer)
        deadline = time.monotonic() + 60
        welcomed = 0
        while waiting and time.monotonic() < deadline:
            for sock in [self.by_fd[fd] for fd, _ in self.ep.poll(0.05)] or list(waiting):
                # (a socket's ZMQ_FD says only that something changed: read until EVENTS
                # says nothing waits; with nothing polled, ask every one still waiting)
                while sock.get(EVENTS) & POLLIN:
                    for msg in _messages(sock.recv(NOBLOCK)):
                        if sock in waiting and msg.get("t") == "welcome":
                            del waiting[sock]
                            welcomed += 1  # (the PUB its welcome names: §11)
                            self._sub(f"tcp://{HOST}:{msg['pub'].rsplit(':', 1)[1]}")
                            spread = self.beat * (welcomed % 1000) / 1000
                            self.next_hb[sock] = time.monotonic() + spread
                        elif sock in waiting and msg.get("t") == "error":
                            del waiting[sock]
                            self.refused[f"{msg['code']}: {msg['reason']}"] += 1
        took = time.monotonic() - began
        refused = "; ".join(f"{k} ×{v}" for k, v in self.refused.items()) or "none"
        return (f"{len(self.subs)} watching after {took:.2f} s ({len(waiting)} unanswered, "
                f"refused: {refused})")

    def _sub(self, pub: str) -> None:
        sub = self.ctx.socket(zmq.SUB)
        sub.setsockopt(zmq.LINGER, 0)
        sub.setsockopt(zmq.SUBSCRIBE, b"")
        sub.connect(pub)
        self.subs.append(sub)
        self._watch(sub)
        self._read(sub)

    def pump(self, timeout: float) -> None:
        """Read what came (every frame a watcher is sent), say the heartbeats due."""
        for fd, _ in self.ep.poll(timeout):
            sock = self.by_fd.get(fd)
            if sock is not None:
                self._read(sock)
        if self.hb:
            now = time.monotonic()
            for dealer, due in self.next_hb.items():
                if now >= due:
                    dealer.send(_pack("hb"), NOBLOCK)
                    dealer.send(_pack("ping", id=3, c=now), NOBLOCK)
                    self.next_hb[dealer] = due + self.beat
                    self._read(dealer)

    def leave(self) -> str:
        for dealer in self.dealers:
            try:
                dealer.send(_pack("leave", id=2), NOBLOCK)
            except zmq.Again:
                pass
        for sock in self.dealers + self.subs:
            self.ep.unregister(sock.getsockopt(zmq.FD))
            sock.close()
        n = len(self.subs)
        self.by_fd.clear()
        self.dealers, self.subs = [], []
        self.next_hb.clear()
        self.refused.clear()
        return f"{n} left"


def crowd_worker(args: argparse.Namespace) -> None:
    """Holds the watchers; told what to do a line at a time on stdin, answers a line each."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = min(hard, 4 * args.watchers + 256)
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    from lan_demon.net import client
    beat = args.beat or getattr(client, "WATCH_BEAT", client.BEAT)  # (before issue 30: BEAT)
    crowd = Crowd(args.address, args.pub, not args.no_hb, beat)
    print("ready", flush=True)
    try:
        while True:
            crowd.pump(0.01)
            if select.select([sys.stdin], [], [], 0)[0]:
                line = sys.stdin.readline().strip()
                if not line or line == "quit":
                    break
                if line == "join":
                    print(crowd.join(args.watchers, args.raw), flush=True)
                elif line == "leave":
                    print(crowd.leave(), flush=True)
                elif line == "frames":
                    print(crowd.frames, flush=True)
    finally:
        crowd.leave()
        crowd.ctx.term()


# --------------------------------------------------------------------------- the seated player

class Player:
    """A seat taken before the match: pings every 10 ms, votes stuck a second, counts moves."""

    def __init__(self, ctx: zmq.Context, address: str):
        self.dealer = ctx.socket(zmq.DEALER)
        self.sub = ctx.socket(zmq.SUB)
        for sock in (self.dealer, self.sub):
            sock.setsockopt(zmq.LINGER, 0)
        self.dealer.connect(address)
        self.ids = iter(range(1, 10**9))
        self.dealer.send(_pack("hello", id=next(self.ids), name="pinger", role="player"))
        if not self.dealer.poll(30_000):
            raise SystemExit("the arbiter did not answer")
        welcome = _messages(self.dealer.recv())[0]
        if welcome.get("t") != "welcome":
            raise SystemExit(f"not seated: {welcome}")
        self.pub = f"tcp://{HOST}:{welcome['pub'].rsplit(':', 1)[1]}"
        self.sub.setsockopt(zmq.SUBSCRIBE, b"")
        self.sub.connect(self.pub)
        self.dealer.send(_pack("ready", id=next(self.ids)))
        self.round = 0

    def run(self, seconds: float, pid: int) -> dict[str, Any]:
        poller = zmq.Poller()
        poller.register(self.dealer, zmq.POLLIN)
        poller.register(self.sub, zmq.POLLIN)
        rtts: list[float] = []
        lags: list[float] = []
        sent: dict[int, float] = {}
        moves = 0
        peak = proc_rss_mb(pid)
        cpu0, t0 = proc_cpu(pid), time.monotonic()
        end, next_ping, next_rss, next_vote = t0 + seconds, t0, t0, t0
        while (now := time.monotonic()) < end:
            if now >= next_ping:
                rid = next(self.ids)
                sent[rid] = now
                self.dealer.send(_pack("ping", id=rid, c=now))
                next_ping = now + 0.010
            if now >= next_vote and self.round:
                self.dealer.send(_pack("move", id=next(self.ids), round=self.round,
                                       move={"t": "stuck"}, ts=now))
                next_vote = now + 1.0
            if now >= next_rss:
                peak = max(peak, proc_rss_mb(pid))
                next_rss = now + 0.25
            for sock, _ in poller.poll(max(0.0, min(next_ping, next_rss) - now) * 1000):
                while sock.get(EVENTS) & POLLIN:
                    for msg in _messages(sock.recv(NOBLOCK)):
                        t = msg.get("t")
                        if t == "pong" and msg["re"] in sent:
                            rtts.append(time.monotonic() - sent.pop(msg["re"]))
                        elif t == "probe":
                            self.dealer.send(_pack("echo", a=msg["a"]))
                        elif t == "beat" and msg["a"] >= t0:  # (sent while we read; the
                            lags.append(time.monotonic() - msg["a"])  # clock is this machine's)
                        elif t == "update" and msg.get("k") == "move":
                            moves += 1
                        elif t == "update" and msg.get("k") == "round":
                            self.round = msg["round"]
                            next_vote = now
        wall = time.monotonic() - t0
        cpu = proc_cpu(pid) - cpu0
        p50, p99 = quantiles([1e3 * r for r in rtts])
        lost = len([t for t in sent.values() if t < end - 1.0])
        return {"cpu": 100 * cpu / wall, "p50": p50, "p99": p99, "pings": len(rtts),
                "lost": lost, "moves": moves / wall, "peak": peak,
                "lag": 1e3 * max(lags) if lags else float("nan"),
                "lag50": 1e3 * quantiles(lags)[0] if lags else float("nan")}

    def close(self) -> None:
        self.dealer.close(linger=0)
        self.sub.close(linger=0)


def tell(crowd: subprocess.Popen, line: str, timeout: float = 120) -> str:
    crowd.stdin.write(line + "\n")
    crowd.stdin.flush()
    return read_line(crowd, timeout)


def line_of(name: str, got: dict[str, Any], before: float) -> str:
    return (f"{name:<10} arbiter CPU {got['cpu']:5.1f}%  ping p50 {got['p50']:5.2f} ms p99 "
            f"{got['p99']:6.2f} ms ({got['pings']} pings, {got['lost']} lost)  moves "
            f"{got['moves']:5.1f}/s  beat lag p50 {got['lag50']:.1f} max {got['lag']:.1f} ms  "
            f"RSS {before:5.1f} → "
            f"{got['peak']:5.1f} MB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--watchers", type=int, default=2000)
    parser.add_argument("--waves", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--bots", type=int, default=3)
    parser.add_argument("--speed", default="expert")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--port", type=int, default=0, help="the arbiter's port (0: any)")
    parser.add_argument("--io-threads", type=int, default=0,
                        help="the arbiter context's libzmq I/O threads (0: the server's own)")
    parser.add_argument("--raw", action="store_true", help="SUBs only: no hello, no DEALER")
    parser.add_argument("--no-hb", action="store_true",
                        help="watchers send no heartbeats nor pings")
    parser.add_argument("--beat", type=float, default=0.0,
                        help="seconds between a watcher's hb + ping (0: the reference client's)")
    parser.add_argument("--host-worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--bots-worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--crowd-worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--address", help=argparse.SUPPRESS)
    parser.add_argument("--pub", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.host_worker:
        return host_worker(args)
    if args.bots_worker:
        return bots_worker(args)
    if args.crowd_worker:
        return crowd_worker(args)

    flags = " ".join(a for a in sys.argv[1:])
    print(f"command: python benchmarks/watchers.py {flags}".rstrip())
    print(f"python {sys.version.split()[0]}, pyzmq {zmq.__version__} (libzmq "
          f"{zmq.zmq_version()}), {os.cpu_count()} cores, loopback {HOST}; "
          f"load {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f}", flush=True)
    began = time.monotonic()
    common = ["--seed", str(args.seed), "--bots", str(args.bots), "--speed", args.speed,
              "--watchers", str(args.watchers)] + (["--raw"] if args.raw else []) + \
        (["--no-hb"] if args.no_hb else []) + ["--beat", str(args.beat)] + \
        ["--io-threads", str(args.io_threads)]
    host = subprocess.Popen([sys.executable, HERE, "--host-worker", "--port", str(args.port)]
                            + common, stdout=subprocess.PIPE, text=True)
    procs: list[subprocess.Popen] = [host]
    ctx = zmq.Context()
    player = None
    try:
        address = read_line(host, 30)
        player = Player(ctx, address)
        procs.append(subprocess.Popen([sys.executable, HERE, "--bots-worker", "--address",
                                       address] + common))
        crowd = subprocess.Popen([sys.executable, HERE, "--crowd-worker", "--address", address,
                                  "--pub", player.pub] + common, stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, text=True)
        procs.append(crowd)
        read_line(crowd, 30)
        player.run(3.0, host.pid)  # warm-up: the bots sit down, the first round is dealt
        idle = proc_rss_mb(host.pid)
        print(line_of("baseline", player.run(args.seconds, host.pid), idle), flush=True)
        for wave in range(1, args.waves + 1):
            before = proc_rss_mb(host.pid)
            c0 = proc_cpu(crowd.pid)
            t0 = time.monotonic()
            print(f"wave {wave}: {tell(crowd, 'join')}", flush=True)
            got = player.run(args.seconds, host.pid)
            crowd_cpu = 100 * (proc_cpu(crowd.pid) - c0) / (time.monotonic() - t0)
            print(line_of(f"wave {wave}", got, before) + f"  (crowd CPU {crowd_cpu:.0f}%)",
                  flush=True)
            tell(crowd, "leave")
            after2 = player.run(2.0, host.pid)
            rss2 = proc_rss_mb(host.pid)
            player.run(8.0, host.pid)
            rss10 = proc_rss_mb(host.pid)
            print(f"wave {wave}: left; RSS idle {idle:.1f} MB, 2 s after {rss2:.1f} MB, 10 s "
                  f"after {rss10:.1f} MB; ping p99 2 s after {after2['p99']:.2f} ms",
                  flush=True)
    finally:
        stop_all(player, procs, ctx)
    print(f"took {time.monotonic() - began:.0f} s; load {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
