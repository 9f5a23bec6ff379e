"""A tap on a phone → every other page drawn (issue 28), beside a key on a terminal → every
other screen drawn, on 127.0.0.1, in the same run; the page's weight and time to the lobby; the
host's CPU with browser seats idle and playing. The method and the figures: docs/benchmarks.md.

    python benchmarks/web_tap.py [--seats 6,20] [--pages 6] [--taps 40] [--idle 10] [--seed 1]

Each table size is a Racing Demon host of its own (``lan-demon host --port 0 --web-port 0
--players N --seed S --countdown 0 --pause 0 --fairness-ms 0 --no-journal --rate-limit 0``),
started and stopped here. A tap is a card played onto a stack (what every page shows): by a
terminal seat's one key for a lit source; on the browser table by a Chromium page's tap on a lit
card (stamped in the page), else a page socket's play. Up to ``--pages`` pages are real headless
Chromium (Debian's chromium and chromedriver, as the tests use), the other seats WebSocket
clients doing what the page does. Each page stamps a face once it has drawn it; a page is
updated when it has drawn the first face whose stacks differ. ``WEB_TAP_DEBUG=1`` prints each
tap's times per page. Nothing is asserted. Every process, browser and socket started here is
stopped before it exits.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import re
import subprocess
import sys
import threading
import time
from typing import Any

import aiohttp
import zmq

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, ROOT)

from children import quantiles, read_line, stop  # noqa: E402

# Installed before the page's own scripts: each face frame is stamped, with its stacks (what a
# tap onto a stack changes on every page), once the page has drawn it.
HOOK = r"""
(() => {
  window.__stamps = [];
  const Real = window.WebSocket;
  window.WebSocket = function (url, protocols) {
    const ws = protocols === undefined ? new Real(url) : new Real(url, protocols);
    ws.addEventListener("message", (ev) => {
      let stacks = null;
      try {
        const f = JSON.parse(ev.data);
        if (f.t === "face" && f.face.table) stacks = JSON.stringify(f.face.table.stacks);
      } catch (e) {}
      if (stacks === null) return;
      // The page draws at most once a screen frame (its requestAnimationFrame, asked in its
      // handler, which runs after this listener): a frame asked from a timeout queued here is
      // asked after the page's, so it runs once the page has drawn this face.
      setTimeout(() => requestAnimationFrame(() =>
        window.__stamps.push([stacks, performance.timeOrigin + performance.now()])), 0);
    });
    return ws;
  };
  window.WebSocket.prototype = Real.prototype;
  Object.assign(window.WebSocket, {CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3});
})();
"""

# A tap on a lit card of one's own (to its best place, as the terminal's one key), stamped in
# the page just before; null when no card of this page's is lit.
TAP = """
const b = document.querySelector('button.src.lit');
if (!b) return null;
const t = performance.timeOrigin + performance.now();
b.click();
return t;
"""
TURN = """const b = document.querySelector('[data-do="turn"]'); if (b) b.click();"""
# When this page drew the first face after ``start`` whose stacks are not ``before``.
SINCE = """
const [before, start] = arguments;
const s = window.__stamps.find(s => s[1] >= start && s[0] !== before);
return s ? s[1] : null;
"""
LAST = "const s = window.__stamps; return s.length ? s[s.length - 1][0] : null;"


# --------------------------------------------------------------------------- the host

class Host:
    """``lan-demon host`` in a process of its own, on 127.0.0.1, with its web server."""

    def __init__(self, players: int, seed: int, web: bool = True):
        state = f"/tmp/lan_demon-bench-{os.getpid()}"
        env = dict(os.environ, XDG_STATE_HOME=state, PYTHONUNBUFFERED="1")
        cmd = [sys.executable, "-m", "lan_demon", "host", "--port", "0", "--players",
               str(players), "--seed", str(seed), "--countdown", "0", "--pause", "0",
               "--fairness-ms", "0", "--no-journal", "--rate-limit", "0", "--rounds", "1000"]
        cmd += ["--web-port", "0"] if web else ["--no-web"]
        self.proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.address = self.url = ""
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not (self.address and (self.url or not web)):
            text = read_line(self.proc)
            found = re.search(r"at (127\.0\.0\.1:\d+)", text)
            if found and not self.address:
                self.address = "tcp://" + found[1]
            found = re.search(r"(http://127\.0\.0\.1:\d+/)", text)
            if found:
                self.url = found[1]
        if not self.address:
            raise RuntimeError("the host did not say where it is")
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self) -> None:
        pipe = self.proc.stdout
        try:
            for _ in pipe:
                pass
        except (ValueError, OSError):
            pass

    def cpu(self) -> float:
        """The host process's CPU seconds so far (all threads)."""
        with open(f"/proc/{self.proc.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self) -> None:
        self.proc.stdout = None
        stop(self.proc)


# --------------------------------------------------------------------------- terminal

def terminal(players: int, seed: int, taps: int) -> list[float]:
    """Key → every other terminal screen drawn, in ms, for ``taps`` keys that play a card onto
    a stack (the seat's one key for a lit source; when no seat has one, every seat turns its
    Pack, unmeasured)."""
    from lan_demon.net.client import Client
    from lan_demon.seat.acts import SOURCE_KEYS
    from lan_demon.tui.app import table_for

    host = Host(players, seed, web=False)
    ctx = zmq.Context()
    ctls: list[Any] = []
    try:
        for i in range(players):
            client = Client(host.address, name=f"P{i}", context=ctx)
            client.connect()
            ctls.append(table_for(client, bell=False))
        until(ctls, lambda: all(c.client.seat is not None for c in ctls))
        for c in ctls:
            c.client.ready()
        until(ctls, lambda: all(c.phase == "playing" and c.client.view() for c in ctls))
        samples = []
        for _ in range(taps * 3):
            if len(samples) >= taps:
                break
            settle(ctls)
            before = [c.client.seq for c in ctls]
            tapper = next((c for c in ctls if c.game.fits()[0]), None)
            if tapper is None:  # nobody can play onto a stack: a Pack turns, unmeasured
                for c in ctls:
                    c.key(" ")
                continue
            key = next(k for k, src in SOURCE_KEYS.items() if src in tapper.game.fits()[0])
            start = time.perf_counter()
            tapper.key(key)
            done: dict[int, float] = {}
            poller = zmq.Poller()
            for c in ctls:
                for sock in c.client.sockets():
                    poller.register(sock, zmq.POLLIN)
            deadline = start + 5
            while len(done) < players - 1 and time.perf_counter() < deadline:
                poller.poll(50)
                tapper.pump()
                for i, c in enumerate(ctls):
                    if i in done or c is tapper:
                        continue
                    c.pump()
                    if c.client.seq > before[i]:
                        c.render(100, 40)
                        done[i] = time.perf_counter()
            if len(done) == players - 1:
                samples.append((max(done.values()) - start) * 1000)
        return samples
    finally:
        for c in ctls:
            c.client.close()
        ctx.term()
        host.stop()


def until(ctls: list[Any], condition: Any, seconds: float = 20) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise RuntimeError("the terminal table did not get there in time")
        for c in ctls:
            c.pump()
        time.sleep(0.002)


def settle(ctls: list[Any], quiet: float = 0.05) -> None:
    """Pump until nothing has arrived for ``quiet`` seconds (the last tap's echoes)."""
    last = time.monotonic()
    while time.monotonic() - last < quiet:
        if any(c.pump() for c in ctls):
            last = time.monotonic()
        time.sleep(0.002)


# --------------------------------------------------------------------------- browser

class Socket:
    """A page's WebSocket without a browser, doing what the page does with each face (parse
    it, keep it); each face is stamped with its stacks as the page's hook does."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse):
        self.ws, self.stamps = ws, []
        self.face: dict[str, Any] = {}

    async def run(self) -> None:
        async for msg in self.ws:
            if msg.type != aiohttp.WSMsgType.TEXT:
                break
            frame = json.loads(msg.data)
            if frame.get("t") == "face":
                self.face = frame["face"]
                if self.face.get("table"):
                    stacks = json.dumps(self.face["table"]["stacks"])
                    self.stamps.append((stacks, time.time() * 1000))

    def since(self, before: str, start: float) -> float | None:
        return next((t for s, t in self.stamps if t >= start and s != before), None)

    def lit(self) -> list[str]:
        table = self.face.get("table") or {}
        return list((table.get("me") or {}).get("lit") or [])


async def open_socket(session: aiohttp.ClientSession, url: str, name: str) -> Socket:
    ws = await session.ws_connect(url + "ws", origin=url.rstrip("/"))
    await ws.send_str(json.dumps({"t": "join", "name": name}))
    while True:
        msg = await ws.receive(timeout=10)
        frame = json.loads(msg.data)
        if frame.get("t") == "seated":
            break
        if frame.get("t") == "refused":
            raise RuntimeError(frame["words"])
    await ws.send_str(json.dumps({"t": "act", "do": "ready"}))
    return Socket(ws)


def open_page(browsers: Any, url: str, name: str) -> Any:
    """A phone-sized Chromium page that opens the address and sits down, as a person does."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import WebDriverWait
    driver = browsers.open("phone")
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": HOOK})
    opened = time.perf_counter()
    driver.get(url)
    WebDriverWait(driver, 10).until(EC.visibility_of_element_located((By.ID, "name")))
    shown = (time.perf_counter() - opened) * 1000
    loaded = driver.execute_script(
        "return performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd;")
    driver.find_element(By.ID, "name").send_keys(name)
    driver.find_element(By.ID, "sit").click()
    WebDriverWait(driver, 10).until(
        lambda d: d.execute_script("return !!document.querySelector('[data-do=\"ready\"]')"))
    driver.execute_script("document.querySelector('[data-do=\"ready\"]').click()")
    driver.lobby = (loaded, shown)
    return driver


def weight(driver: Any) -> int:
    """Bytes of everything the page loaded, uncompressed (the lobby and the table's files)."""
    return int(driver.execute_script("""
        let n = performance.getEntriesByType('navigation')[0].decodedBodySize;
        for (const r of performance.getEntriesByType('resource')) n += r.decodedBodySize;
        return n;"""))


async def browser(players: int, pages: int, seed: int, taps: int, idle: float
                  ) -> dict[str, Any]:
    sys.path.insert(0, os.path.join(ROOT, "tests"))
    from browser import Browsers
    browsers = Browsers()
    host = Host(players, seed)
    out: dict[str, Any] = {"taps": [], "in_page": 0, "skipped": 0}
    loop = asyncio.get_running_loop()

    def js(driver: Any, script: str, *args: Any) -> Any:
        return loop.run_in_executor(None, lambda: driver.execute_script(script, *args))

    try:
        async with aiohttp.ClientSession() as session:
            drivers = []
            for i in range(min(pages, players)):
                drivers.append(await loop.run_in_executor(
                    None, open_page, browsers, host.url, f"Page{i}"))
            socks = [await open_socket(session, host.url, f"Sock{i}")
                     for i in range(players - len(drivers))]
            readers = [asyncio.create_task(s.run()) for s in socks]
            for _ in range(2000):  # every page drawn at a round in play
                ok = all(s.face.get("phase") == "playing" and s.face.get("table")
                         for s in socks)
                for d in drivers:
                    ok = ok and (await js(d, LAST)) is not None
                if ok:
                    break
                await asyncio.sleep(0.01)
            else:
                raise RuntimeError("the round did not start on every page")
            out["lobby"] = [d.lobby for d in drivers]
            out["weight"] = await loop.run_in_executor(None, weight, drivers[0])

            await asyncio.sleep(2.0)  # idle: everyone seated at a round in play, nobody taps
            cpu0, t0 = host.cpu(), time.monotonic()
            await asyncio.sleep(idle)
            out["cpu_idle"] = (host.cpu() - cpu0) / (time.monotonic() - t0) * 100

            for _ in range(taps * 3):
                if len(out["taps"]) >= taps:
                    break
                await asyncio.sleep(0.2)  # the last tap's faces are in everywhere
                before = socks[0].face and json.dumps(socks[0].face["table"]["stacks"]) \
                    if socks else await js(drivers[-1], LAST)
                tapper, start = None, None
                for d in drivers:  # a page with a lit card taps it, timed in the page
                    start = await js(d, TAP)
                    if start is not None:
                        tapper = d
                        break
                if tapper is None:  # else a socket with one, timed here
                    for s in socks:
                        if s.lit():
                            tapper, start = s, time.time() * 1000
                            await s.ws.send_str(json.dumps(
                                {"t": "act", "do": "play", "from": s.lit()[0]}))
                            break
                if tapper is None:  # nobody can play onto a stack: a Pack turns, unmeasured
                    out["skipped"] += 1
                    for d in drivers:
                        await js(d, TURN)
                    for s in socks:
                        await s.ws.send_str(json.dumps({"t": "act", "do": "turn"}))
                    continue
                deadline = time.monotonic() + 5
                while time.monotonic() < deadline:
                    others = [s.since(before, start) for s in socks if s is not tapper]
                    if all(t is not None for t in others):
                        drawn = [await js(d, SINCE, before, start) for d in drivers
                                 if d is not tapper]
                        if all(t is not None for t in drawn):
                            out["taps"].append(max(others + drawn) - start)
                            if os.environ.get("WEB_TAP_DEBUG"):
                                print(f"tap by {'page' if tapper in drivers else 'socket'}: "
                                      f"sockets {[round(t - start) for t in others]} "
                                      f"pages {[round(t - start) for t in drawn]}")
                            out["in_page"] += tapper in drivers
                            break
                    await asyncio.sleep(0.002)

            # playing: every socket turns its Pack once a second, staggered (a person's pace)
            async def pace(s: Socket, offset: float, until: float) -> None:
                await asyncio.sleep(offset)
                while time.monotonic() < until:
                    await s.ws.send_str(json.dumps({"t": "act", "do": "turn"}))
                    await asyncio.sleep(1.0)
            cpu0, t0 = host.cpu(), time.monotonic()
            await asyncio.gather(*(pace(s, i / max(1, len(socks)), t0 + idle)
                                   for i, s in enumerate(socks)))
            out["cpu_playing"] = (host.cpu() - cpu0) / (time.monotonic() - t0) * 100
            out["pace"] = len(socks)
            for s in socks:
                await s.ws.close()
            for r in readers:
                r.cancel()
    finally:
        browsers.quit_all()
        host.stop()
    return out


# --------------------------------------------------------------------------- main

def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seats", default="6,20")
    ap.add_argument("--pages", type=int, default=6)
    ap.add_argument("--taps", type=int, default=40)
    ap.add_argument("--idle", type=float, default=10.0, help="seconds of each CPU window")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    print(f"command: python benchmarks/web_tap.py --seats {args.seats} --pages {args.pages} "
          f"--taps {args.taps} --idle {args.idle:g} --seed {args.seed}")
    print(f"python {platform.python_version()} on {platform.machine()}, "
          f"{os.cpu_count()} cores, everything on 127.0.0.1")
    for n in [int(x) for x in args.seats.split(",")]:
        term = terminal(n, args.seed, args.taps)
        web = asyncio.run(browser(n, args.pages, args.seed, args.taps, args.idle))
        tp50, tp99 = quantiles(term)
        wp50, wp99 = quantiles(web["taps"])
        pages = min(args.pages, n)
        print(f"\n{n} seats ({pages} Chromium pages, {n - pages} page sockets)")
        print(f"  terminal: key → every other screen drawn   p50 {tp50:6.1f} ms  "
              f"p99 {tp99:6.1f} ms  ({len(term)} keys)")
        print(f"  browser:  tap → every other page drawn     p50 {wp50:6.1f} ms  "
              f"p99 {wp99:6.1f} ms  ({len(web['taps'])} taps, {web['in_page']} of them "
              f"on a Chromium page; {web['skipped']} times nobody had a card for a stack)")
        print(f"  host CPU: {n} browser seats idle in a round {web['cpu_idle']:.1f}% of a core; "
              f"playing ({web['pace']} Pack turns a second) {web['cpu_playing']:.1f}%")
        loaded = sorted(x[0] for x in web["lobby"])
        shown = sorted(x[1] for x in web["lobby"])
        print(f"  page: {web['weight']:,} bytes in all, uncompressed (the lobby and the "
              f"table's files); open → lobby: DOMContentLoaded p50 {loaded[len(loaded) // 2]:.0f}"
              f" ms, name field shown p50 {shown[len(shown) // 2]:.0f} ms "
              f"({shown[0]:.0f}…{shown[-1]:.0f})")


if __name__ == "__main__":
    main()
