"""Browser seats at a 20-seat Racing Demon table (issue 28, "Fast"): a tap → every other page
updated, and the host's CPU with 20 browser seats idle, on 127.0.0.1.

    python benchmarks/web_taps.py [--seats 20] [--taps 100] [--idle 10] [--seed 1]

The host runs in a process of its own, as ``lan-demon host`` does: the arbiter
(``ArbiterServer``) and the page's server (``WebServer``: the gateway, one ``Client`` and
``Seat`` per browser seat) beside it, so its CPU (utime + stime of every thread,
``/proc/PID/stat``) is all a host pays. This process plays the pages: ``--seats`` WebSocket
clients that do exactly what the page does (join, ready, start, send ``act`` frames, read every
face). Phases:

* idle in the lobby and idle in a round (nobody taps), ``--idle`` seconds each: host CPU;
* ``--taps`` taps one after the other: a page that can play a card onto a stack sends
  ``{"t":"act","do":"play","from":S,"to":T}`` (the place its face offers), and each page's time
  until a face arrives whose stacks hold the card is recorded (a page with no such card turns
  its Pack instead, unmeasured). Per page and per tap (the last page to see it: "all pages").

Also the lobby's weight: the bytes of ``/`` and of every file it names. Real Chromium pages,
the time to the lobby and the page's own timing are not measured here. Every process and socket
started here is stopped.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

HOST = "127.0.0.1"
HERE = os.path.abspath(__file__)
CLK_TCK = os.sysconf("SC_CLK_TCK")


def host_worker(args: argparse.Namespace) -> None:
    from lan_demon.net.server import ArbiterServer
    from lan_demon.net.settings import Settings, dealing_of
    from lan_demon.web.server import WebServer
    config = Settings("racing-demon", dealing=dealing_of(args.seed), rounds=1_000_000,
                      options={"handicap": False}, countdown=0, pause=0)
    server = ArbiterServer(config, host=HOST, port=0)
    page = WebServer(server.port, "racing-demon", host=HOST, port=0).start()
    print(page.url, flush=True)
    signal.signal(signal.SIGTERM, lambda *_: server.stop())
    try:
        server.serve(exit_when_over=False)
    finally:
        page.stop()
        server.close()


def proc_cpu(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def stacked(face: dict[str, Any]) -> int:
    """Cards on the stacks as a face shows them (a play onto a stack adds one)."""
    table = face.get("table") or {}
    return sum((s.get("count") or 0) for s in table.get("stacks") or [])


class Pages:
    """``n`` page sockets: each one's latest face, and an event when any face arrives."""

    def __init__(self, session: Any, url: str, n: int):
        self.session, self.url, self.n = session, url, n
        self.socks: list[Any] = []
        self.faces: list[dict[str, Any] | None] = [None] * n
        self.arrived: list[float] = [0.0] * n
        self.changed = asyncio.Event()
        self.readers: list[asyncio.Task] = []

    async def open(self) -> None:
        for i in range(self.n):
            ws = await self.session.ws_connect(self.url + "ws")
            await ws.send_str(json.dumps({"t": "join", "name": f"P{i}"}))
            self.socks.append(ws)
            self.readers.append(asyncio.create_task(self._read(i, ws)))

    async def _read(self, i: int, ws: Any) -> None:
        async for msg in ws:
            frame = json.loads(msg.data)
            if frame.get("t") == "face":
                self.faces[i] = frame["face"]
                self.arrived[i] = time.perf_counter()
                self.changed.set()

    async def until(self, condition: Any, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while not condition():
            self.changed.clear()
            left = deadline - time.monotonic()
            if left <= 0:
                raise SystemExit("timed out waiting for the pages")
            try:
                await asyncio.wait_for(self.changed.wait(), left)
            except asyncio.TimeoutError:
                pass

    async def send(self, i: int, frame: dict[str, Any]) -> None:
        await self.socks[i].send_str(json.dumps(frame))

    async def close(self) -> None:
        for task in self.readers:
            task.cancel()
        for ws in self.socks:
            await ws.close()


def a_stack_play(face: dict[str, Any]) -> dict[str, Any] | None:
    me = (face.get("table") or {}).get("me") or {}
    for source, places in (me.get("places") or {}).items():
        for place in places:
            if place["to"] == "middle" or place["to"].startswith("s"):
                return {"t": "act", "do": "play", "from": source, "to": place["to"]}
    return None


async def run(args: argparse.Namespace, url: str, pid: int) -> None:
    import aiohttp
    async with aiohttp.ClientSession() as session:
        weight = 0
        async with session.get(url) as r:
            text = await r.text()
            weight += len(text.encode())
        for name in re.findall(r'(?:src|href)="(/static/[^"]+)"', text):
            async with session.get(url.rstrip("/") + name) as r:
                weight += len(await r.read())
        print(f"the lobby's weight: {weight / 1000:.1f} kB (index.html and the files it names)")
        pages = Pages(session, url, args.seats)
        await pages.open()
        await pages.until(lambda: all(f is not None and len(f["seats"]) == args.seats
                                      for f in pages.faces))
        await idle(pages, pid, args.idle, "in the lobby")
        for i in range(args.seats):
            await pages.send(i, {"t": "act", "do": "ready"})
        await pages.until(lambda: all(s["ready"] for s in pages.faces[0]["seats"]))
        await pages.send(0, {"t": "act", "do": "start"})
        await pages.until(lambda: all(f["phase"] == "playing" and f["table"]
                                      for f in pages.faces))
        await idle(pages, pid, args.idle, "in a round, nobody tapping")
        await taps(pages, pid, args.taps)
        await pages.close()


async def idle(pages: Pages, pid: int, seconds: float, where: str) -> None:
    cpu0, t0 = proc_cpu(pid), time.monotonic()
    await asyncio.sleep(seconds)  # the measuring window itself, not a synchronisation
    share = 100 * (proc_cpu(pid) - cpu0) / (time.monotonic() - t0)
    print(f"host CPU, {pages.n} browser seats idle {where}: {share:.1f}% of a core")


async def taps(pages: Pages, pid: int, count: int) -> None:
    each: list[float] = []
    every: list[float] = []
    turn = 0
    done = 0
    cpu0, t0 = proc_cpu(pid), time.monotonic()
    while done < count:
        if any(f["phase"] != "playing" for f in pages.faces):
            await pages.until(lambda: all(f["phase"] == "playing" and f["table"]
                                          for f in pages.faces))
        tapper, frame = None, None
        for k in range(pages.n):
            i = (turn + k) % pages.n
            frame = a_stack_play(pages.faces[i])
            if frame is not None:
                tapper = i
                break
        turn += 1
        if tapper is None:  # nobody can play onto a stack: a Pack is turned, unmeasured
            before = pages.faces[turn % pages.n]
            await pages.send(turn % pages.n, {"t": "act", "do": "turn"})
            await pages.until(lambda: pages.faces[turn % pages.n] is not before)
            continue
        before = [stacked(f) for f in pages.faces]
        sent = time.perf_counter()
        await pages.send(tapper, frame)
        try:
            await pages.until(lambda: all(stacked(f) != b or f["phase"] != "playing"
                                          for f, b in zip(pages.faces, before)), 5.0)
        except SystemExit:
            continue  # beaten or refused (a race with nobody: rare); not counted
        if any(f["phase"] != "playing" for f in pages.faces):
            continue  # the round ended with it: not counted
        seen = [pages.arrived[i] - sent for i in range(pages.n) if i != tapper]
        each += seen
        every.append(max(seen))
        done += 1
    share = 100 * (proc_cpu(pid) - cpu0) / (time.monotonic() - t0)
    each.sort()
    every.sort()

    def pct(xs: list[float], q: float) -> float:
        return 1e3 * xs[min(len(xs) - 1, int(q * len(xs)))]
    print(f"{count} taps: tap → each other page p50 {1e3 * statistics.median(each):.1f} ms, "
          f"p99 {pct(each, 0.99):.1f} ms; tap → all {pages.n - 1} other pages p50 "
          f"{1e3 * statistics.median(every):.1f} ms, p99 {pct(every, 0.99):.1f} ms; host CPU "
          f"while tapping {share:.1f}% of a core")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seats", type=int, default=20)
    parser.add_argument("--taps", type=int, default=100)
    parser.add_argument("--idle", type=float, default=10.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--host-worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.host_worker:
        return host_worker(args)
    import aiohttp
    import zmq
    print(f"command: python benchmarks/web_taps.py --seats {args.seats} --taps {args.taps} "
          f"--idle {args.idle:g} --seed {args.seed}")
    print(f"python {sys.version.split()[0]}, aiohttp {aiohttp.__version__}, pyzmq "
          f"{zmq.__version__}, {os.cpu_count()} cores, loopback {HOST}")
    host = subprocess.Popen([sys.executable, HERE, "--host-worker", "--seed", str(args.seed)],
                            stdout=subprocess.PIPE, text=True)
    try:
        url = host.stdout.readline().strip()
        if not url.startswith("http://"):
            raise SystemExit("the host did not start")
        asyncio.run(run(args, url, host.pid))
    finally:
        if host.poll() is None:
            host.send_signal(signal.SIGTERM)
            try:
                host.wait(20)
            except subprocess.TimeoutExpired:
                host.kill()
                host.wait()


if __name__ == "__main__":
    main()
