"""What one peer's flood of each message kind costs the table, at exactly the rate the arbiter
admits, for minutes of table time: every message kind is bounded (PROTOCOL.md §2).

    python benchmarks/bounds.py [--minutes 10] [--jobs 2] [--kinds dispute,ready] [--seed 5]

For each kind a client may send (codec.FROM_CLIENT), and for the toggles that take two
(``leave+hello``: a seat steps out and comes back by its token; ``pause+resume``;
``lobby-seat``: a fourth connection takes a seat in the lobby and leaves, over and over),
one flooder — a seat (the captain, seat 1 of 4), then separately a spectator — sends that
kind through ``Arbiter.handle`` at exactly the flood brake's rate (5 000 tokens a second: one per started
512 bytes of the frame, a snapshot 16), while the clock this script moves goes on for
``--minutes`` of table time (not wall time) and ``Arbiter.tick`` runs every 50 ms of it. The
three honest seats only send a heartbeat a second. No sockets. The table: Racing Demon
(classic), 4 seats, a seeded deal, a pause of 10 s between rounds, three rounds already played
(so a ``check`` has past rounds to name), a real :class:`~lan_demon.net.journal.JournalWriter`
in a temporary directory. Each flood is crafted to grow what it can: disputes for rounds that
never existed, checks of every past round, a new commitment each time, a ``move`` a bot's legal
move (the baseline: what the moves themselves need), ``move-refused`` a move the rules refuse.

Per kind, in a child process of its own (so its RSS is its own; ``--jobs`` at a time):

* RSS (VmRSS, after ``gc.collect()``) when the flood starts and when it ends;
* the journal's bytes added, and how many of them are not ``move`` records (what a flood of
  anything but legal moves should add: nothing but a few bounded records);
* updates published that are not the flooder's own committed moves, beside the same count in
  the idle run (the flooder sends only heartbeats): the difference is what the other screens
  were shown because of the flood.

Nothing is asserted; the table goes to docs/benchmarks.md. Run it with ``PYTHONPATH`` set to
an older checkout to measure that code the same way (the figures before a fix).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable

import msgpack

RATE = 5000.0  # the reference flood brake (PROTOCOL.md §2)
TICK = 0.05  # seconds of table time between ticks
SEAT_KINDS = ["idle", "hello", "ping", "echo", "ready", "start", "move", "move-refused",
              "snapshot", "hb", "leave+hello", "commit", "reveal", "dispute", "check", "pause",
              "resume", "pause+resume", "remove", "lobby-seat"]
SPECTATOR_KINDS = ["idle", "hello", "ping", "echo", "snapshot", "hb", "leave+hello", "ready",
                   "move", "dispute", "check", "commit", "pause"]


def rss_mb() -> float:
    gc.collect()
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


class Flood:
    """One table and one flooder; :meth:`run` floods ``kind`` for ``seconds`` of table time."""

    def __init__(self, kind: str, who: str, seed: int, folder: str):
        from lan_demon.net.arbiter import Arbiter
        from lan_demon.net.journal import JournalWriter
        from lan_demon.net.settings import Settings, dealing_of
        self.kind, self.who = kind, who
        self.now = 100.0
        config = Settings("racing-demon", dealing=dealing_of(seed), players=4,
                          rounds=1_000_000, options={"handicap": False}, countdown=0,
                          pause=10.0, rate_limit=RATE, rate_burst=2 * RATE)
        self.arbiter = Arbiter(config, now=self.now)
        self.path = Path(folder) / "bounds.journal"
        self.writer = JournalWriter(self.path)
        self.arbiter.attach_journal(self.writer, {"port": 7700, "pub_port": 7701})
        self.peers = [f"seat-{i}".encode() for i in range(4)]
        self.spectator = b"watcher"
        self.ids = 10
        self.tokens: list[str] = []
        self.published: dict[str, int] = {}
        self.flooder_moves = 0
        lobby = kind == "lobby-seat"  # the flooder takes a seat and leaves, in the lobby
        for i, peer in enumerate(self.peers):
            if lobby and i == 0:
                self.tokens.append("")
                continue
            (welcome,) = [m for m in self._send(peer, "hello", name=f"seat {i}", role="player")
                          if m["t"] == "welcome"]
            self.tokens.append(welcome["token"])
        if not lobby:
            for peer in self.peers:
                self._send(peer, "ready")
            self._until_playing()
            for _ in range(3):  # three rounds played, so a check has past rounds to name
                from lan_demon.net.outbox import Outbox
                self.arbiter.flow.end_round(self.now, Outbox())
                self._until_playing()
        if who == "spectator":
            self._send(self.spectator, "hello", name="", role="spectator")
        self.flooder = self.peers[0] if who == "seat" else self.spectator
        self.illegal = self._illegal_move()
        self.published.clear()

    # --- plumbing ------------------------------------------------------------------------

    def _send(self, peer: bytes, kind: str, **fields: Any) -> list[dict]:
        from lan_demon.net.codec import encode, make
        from lan_demon.net.codec import FROM_CLIENT
        self.ids += 1
        msg = make(kind, **fields)
        if "id" in FROM_CLIENT[kind]:
            msg["id"] = self.ids
        out = self.arbiter.handle(peer, encode(msg), self.now)
        self._count(out)
        return [m for p, m in out.private if p == peer]

    def _count(self, out: Any) -> None:
        for m in out.public:
            if m.get("t") != "update":
                continue
            k = m["k"]
            if k == "move" and m.get("seat") == 0 and self.who == "seat" and \
                    m.get("rid", -1) >= 0:
                self.flooder_moves += 1
                continue
            self.published[k] = self.published.get(k, 0) + 1

    def _tick(self) -> None:
        self._count(self.arbiter.tick(self.now))

    def _until_playing(self) -> None:
        while self.arbiter.phase != "playing":
            self.now += TICK
            for peer in self.peers:
                self._send(peer, "hb")
            self._tick()

    def _illegal_move(self) -> dict[str, Any]:
        """A move the rules refuse seat 0 now (a Play the engine refuses: a ``refused``
        record when it reaches the commit)."""
        from lan_demon.games import GameError, IllegalMove
        game, state = self.arbiter.game, self.arbiter.state
        if state is None:
            return {"t": "play", "from": "c1", "to": "c1"}
        for src in ["p", "c1", "c2", "c3", "c4", "w"]:
            for dst in [f"c{i}" for i in range(1, 5)] + ["middle"]:
                data = {"t": "play", "from": src, "to": dst}
                try:
                    game.check(state, 0, game.move_from_data(data))
                except IllegalMove:
                    return data
                except GameError:
                    continue
        return {"t": "play", "from": "c1", "to": "c1"}

    def _legal_move(self) -> dict[str, Any]:
        arb = self.arbiter
        if arb.phase != "playing":
            return {"t": "turn"}
        legal = arb.game.legal_moves(arb.state, 0)
        plays = [m for m in legal if type(m).__name__ == "Play"]
        return (plays or legal or [None])[0].to_data() if (plays or legal) else {"t": "turn"}

    def _message(self, n: int) -> tuple[str, dict[str, Any]]:
        """The ``n``-th message of the flood: its type and fields."""
        arb, kind = self.arbiter, self.kind
        round_no = arb.match.round_no if arb.match is not None else 0
        if kind == "lobby-seat":
            return ("hello", {"name": "seat 0", "role": "player"}) if n % 2 == 0 \
                else ("leave", {})
        if kind == "hello":
            if self.who == "seat":
                return "hello", {"name": "seat 0", "role": "player", "token": self.tokens[0]}
            return "hello", {"name": "", "role": "spectator"}
        if kind == "leave+hello":
            if n % 2 == 0:
                return "leave", {}
            if self.who == "seat":
                return "hello", {"name": "seat 0", "role": "player", "token": self.tokens[0]}
            return "hello", {"name": "", "role": "spectator"}
        if kind == "ping":
            return "ping", {"c": float(n)}
        if kind == "echo":
            return "echo", {"a": self.now - 0.001 * (n % 7)}
        if kind in ("ready", "start", "snapshot", "hb", "resume"):
            return kind, {}
        if kind == "pause":
            return "pause", {}
        if kind == "pause+resume":
            return ("pause" if n % 2 == 0 else "resume"), {}
        if kind == "move":
            return "move", {"round": round_no, "move": self._legal_move(), "ts": self.now}
        if kind == "move-refused":
            return "move", {"round": round_no, "move": self.illegal, "ts": self.now}
        if kind == "commit":
            upcoming = round_no + (1 if arb.phase == "playing" else 0)
            return "commit", {"round": upcoming, "hash": f"{n:064x}", "ok": f"{n + 1:064x}",
                              "fail": f"{n + 2:064x}"}
        if kind == "reveal":
            return "reveal", {"round": round_no, "nonce": f"{n:032x}"}
        if kind == "dispute":
            return "dispute", {"round": -1 - n, "reason": "x" * 200}
        if kind == "check":
            return "check", {"round": n % max(1, round_no), "lost": True}
        if kind == "remove":
            return "remove", {"seat": 1 + n % 3}
        raise ValueError(kind)

    # --- the flood -----------------------------------------------------------------------

    def run(self, seconds: float) -> dict[str, Any]:
        from lan_demon.net.codec import FROM_CLIENT, encode, make
        from lan_demon.net.guard import MALFORMED_COST, SNAPSHOT_COST, frame_cost
        arb = self.arbiter
        start_rss, start_bytes = rss_mb(), self.path.stat().st_size
        end = self.now + seconds
        next_tick = next_beat = self.now
        sent = 0
        wall = time.perf_counter()
        while self.now < end:
            if self.now >= next_tick:
                next_tick += TICK
                self._tick()
            if self.now >= next_beat:  # the honest seats (and an idle flooder) beat
                next_beat += 1.0
                for peer in self.peers:
                    if peer != self.flooder or self.kind == "idle":
                        self._send(peer, "hb")
                if self.kind == "move-refused" and arb.phase == "playing":
                    self.illegal = self._illegal_move()
            if self.kind == "idle":
                self.now = min(next_tick, next_beat)
                continue
            t, fields = self._message(sent)
            msg = make(t, **fields)
            if "id" in FROM_CLIENT[t]:
                self.ids += 1
                msg["id"] = self.ids
            frame = encode(msg)
            out = arb.handle(self.flooder, frame, self.now)
            self._count(out)
            cost = frame_cost(len(frame))
            if t == "snapshot":
                cost = SNAPSHOT_COST
            elif any(m.get("code") in ("malformed", "version", "unknown_type")
                     for _, m in out.private):
                cost = MALFORMED_COST
            sent += 1
            self.now += cost / RATE  # exactly the admitted rate
        wall = time.perf_counter() - wall
        self.writer.close() if hasattr(self.writer, "close") else None
        kinds: dict[str, int] = {}
        with open(self.path, "rb") as f:
            f.seek(start_bytes)
            unpacker = msgpack.Unpacker(f, raw=False, strict_map_key=False)
            at = start_bytes
            for record in unpacker:
                pos = start_bytes + unpacker.tell()
                kinds[record.get("j", "?")] = kinds.get(record.get("j", "?"), 0) + pos - at
                at = pos
        added = self.path.stat().st_size - start_bytes
        return {"kind": self.kind, "who": self.who, "sent": sent, "rss0": start_rss,
                "rss1": rss_mb(), "journal": added, "not_moves": added - kinds.get("move", 0),
                "records": {k: v for k, v in sorted(kinds.items())},
                "updates": sum(self.published.values()), "by_kind": self.published,
                "moves": self.flooder_moves, "wall": wall}


def child(kind: str, who: str, minutes: float, seed: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        flood = Flood(kind, who, seed, folder)
        print(json.dumps(flood.run(minutes * 60)), flush=True)


def launch(kind: str, who: str, args: argparse.Namespace) -> dict[str, Any]:
    cmd = [sys.executable, __file__, "--child", kind, who, "--minutes", str(args.minutes),
           "--seed", str(args.seed)]
    done = subprocess.run(cmd, capture_output=True, text=True, env=os.environ.copy())
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        return {"kind": kind, "who": who, "error": (done.stderr.strip().splitlines() or
                                                    ["no output"])[-1]}
    return json.loads(lines[-1])


def table(results: list[dict[str, Any]]) -> None:
    idle = {r["who"]: r for r in results if r["kind"] == "idle" and "error" not in r}
    print(f"{'kind':<14} {'who':<9} {'frames':>9} {'RSS start':>9} {'RSS end':>8} "
          f"{'journal +B':>11} {'not moves':>10} {'updates':>8} {'over idle':>9}  shown "
          f"(other than the flooder's moves)")
    for r in results:
        if "error" in r:
            print(f"{r['kind']:<14} {r['who']:<9} failed: {r['error']}")
            continue
        base = idle.get(r["who"], {}).get("updates", 0)
        shown = ", ".join(f"{k} {n}" for k, n in sorted(r["by_kind"].items(),
                                                         key=lambda kv: -kv[1])[:4])
        print(f"{r['kind']:<14} {r['who']:<9} {r['sent']:>9,} {r['rss0']:>8.1f}M "
              f"{r['rss1']:>7.1f}M {r['journal']:>11,} {r['not_moves']:>10,} "
              f"{r['updates']:>8,} {r['updates'] - base:>9,}  {shown}"
              + (f" (+{r['moves']:,} own moves)" if r["moves"] else ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--kinds", default="", help="comma-separated (default: every kind)")
    parser.add_argument("--who", default="seat,spectator")
    parser.add_argument("--child", nargs=2, metavar=("KIND", "WHO"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*args.child, args.minutes, args.seed)
        return
    wanted = [k for k in args.kinds.split(",") if k]
    runs = [(k, who) for who in args.who.split(",")
            for k in (SEAT_KINDS if who == "seat" else SPECTATOR_KINDS)
            if not wanted or k in wanted or k == "idle"]
    print(f"command: python benchmarks/bounds.py --minutes {args.minutes:g} --jobs {args.jobs}"
          f" --seed {args.seed}" + (f" --kinds {args.kinds}" if args.kinds else "")
          + (f" --who {args.who}" if args.who != "seat,spectator" else ""))
    started = time.time()
    with ThreadPoolExecutor(max(1, args.jobs)) as pool:
        results = list(pool.map(lambda kw: launch(*kw, args), runs))
    table(results)
    print(f"({time.time() - started:.0f} s of wall time)")


if __name__ == "__main__":
    main()
