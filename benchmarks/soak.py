"""Soak: many flat-out bots for a long time; memory must stay flat and no client may drift.

    python benchmarks/soak.py [--bots 100] [--minutes 10] [--seed 1] [--bot-procs 2]
                              [--game racing-demon] [--sample-seconds 10]

Everything on 127.0.0.1. The arbiters run in processes of their own (this script started as a
host worker: the server of ``lan-demon host --port 0 --countdown 0 --pause 0 --fairness-ms 0``,
with Racing Demon's RD-15 handicaps off and a match of a million rounds, so that play never
stops — over thousands of flat-out rounds the handicaps would walk the Piles down to 0 and
rounds over at Go, RD-16, would flood the table; see benchmarks/net_latency.py). A table seats
at most the game's ``max_players`` (classic Racing Demon: 100, RD-1), so ``--bots`` beyond that
are spread over several tables, one arbiter process each, all playing at once. A game whose
matches end by their own rule (Rack-O at 500 points, a German match of 10 deals) restarts:
the host starts a new match on the same sockets and the bots take their seats again.

The bots are greedy at the ``flat-out`` pace, split over ``--bot-procs`` processes (run_pool).
Every ``--sample-seconds``: the RSS (``VmRSS``) and CPU of every arbiter and bot process, and
the moves committed so far, counted from each arbiter's PUB by a plain SUB socket. At the end:

* memory: per process, first / last / max RSS and the slope of RSS over the second half of
  the run (least squares, MB per minute) — the first half holds the warm-up of the allocators;
* desync: the bot processes stop playing (SIGUSR1) but keep every client pumped; when each
  arbiter's ``beat`` shows the same update number twice running, its ``beat`` hash and a fresh
  spectator snapshot give the canonical public state; every client catches up to that number
  and hashes its mirror redacted to the public view (PROTOCOL.md §9). N of N must match. Each
  bot process reports its clients as one JSON line: hashes, resync snapshots during the run,
  drifts its own beat check found, moves beaten (RD-11) and refused.

The machine is shared (2 cores, other work running), so rates and CPU move from run to run.
Nothing here asserts; the figures go to docs/benchmarks.md. Every process started here runs in
a process group of its own and is stopped at the end, on an error and on Ctrl-C.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import msgpack
import zmq

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from net_latency import cpu_seconds, read_line  # noqa: E402  (a sibling script)

HOST = "127.0.0.1"
HERE = os.path.abspath(__file__)
LONG_MATCH = 1_000_000  # rounds: a match that outlasts any soak, where the game allows it
QUIET_BEATS = 2  # beats with the same update number before a paused table counts as settled


# --------------------------------------------------------------------------------- helpers


def rss_mb(pid: int) -> float:
    """Resident set size of a process, from ``VmRSS`` in /proc/PID/status, in MB."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def slope_per_minute(points: list[tuple[float, float]]) -> float:
    """Least-squares slope of (seconds, MB) points, in MB per minute."""
    if len(points) < 2:
        return float("nan")
    n = len(points)
    mt = sum(t for t, _ in points) / n
    mv = sum(v for _, v in points) / n
    var = sum((t - mt) ** 2 for t, _ in points)
    if var == 0:
        return float("nan")
    return sum((t - mt) * (v - mv) for t, v in points) / var * 60


def deep_mb(obj: Any) -> float:
    """What a tree of plain objects (dicts, lists, dataclasses) holds, in MB: the sum of
    ``sys.getsizeof`` over every object reachable, each counted once."""
    seen: set[int] = set()
    total, todo = 0, [obj]
    while todo:
        o = todo.pop()
        if id(o) in seen:
            continue
        seen.add(id(o))
        total += sys.getsizeof(o)
        if isinstance(o, dict):
            todo += list(o.keys()) + list(o.values())
        elif isinstance(o, (list, tuple, set)):
            todo += list(o)
        elif hasattr(o, "__dict__"):
            todo.append(vars(o))
    return total / 2**20


def public_hash(game: Any, state: Any) -> str:
    """The hash a ``beat`` carries (§9): the state redacted to the public view."""
    from lan_demon.net.codec import state_hash
    if state is None:
        return ""
    return state_hash(game.state_to_data(game.redact(state, None)))


def watch_parent() -> None:
    """A child whose parent died (killed outright, so its finally never ran) stops itself."""
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=watch, daemon=True).start()


@dataclass
class Child:
    """A process this script started, in a process group of its own."""

    name: str
    proc: subprocess.Popen
    cpu0: float = 0.0
    samples: list[tuple[float, float]] = field(default_factory=list)  # (seconds, RSS MB)
    output: str | None = None  # what it printed, once stopped

    @property
    def pid(self) -> int:
        return self.proc.pid

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 10.0) -> str:
        """Signal it, wait, and kill its whole group if it does not go; what it printed."""
        if self.output is not None:
            return self.output
        proc = self.proc
        if proc.poll() is None:
            proc.send_signal(sig)
        try:
            out, _ = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            out, _ = proc.communicate()
        self.output = out or ""
        return self.output


def spawn(name: str, argv: list[str], log: Any, stdin: bool = False) -> Child:
    proc = subprocess.Popen([sys.executable, HERE] + argv, stdout=subprocess.PIPE, stderr=log,
                            stdin=subprocess.PIPE if stdin else subprocess.DEVNULL, text=True,
                            start_new_session=True)
    return Child(name, proc)


# ------------------------------------------------------------------------ the host worker


def match_rounds(game_id: str, rounds: int | None = None) -> int | None:
    """``rounds`` if given; else a very long match where the game allows one, else the
    game's own length (matches restart)."""
    from lan_demon.games import GameError, get_game
    if rounds:
        return rounds
    try:
        get_game(game_id).check_rounds(LONG_MATCH)
    except GameError:
        return None
    return LONG_MATCH


def host_worker(args: argparse.Namespace) -> None:
    """Child: one arbiter on 127.0.0.1, any free port; its address as the first line. When a
    match ends a new one starts on the same sockets — until SIGUSR1 (the soak is settling)."""
    from lan_demon.games import get_game
    from lan_demon.net.arbiter import Arbiter
    from lan_demon.net.server import ArbiterServer
    from lan_demon.net.settings import Settings, dealing_of
    watch_parent()
    paused: list[int] = []
    signal.signal(signal.SIGUSR1, lambda *_: paused.append(1))
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    options = {"handicap": False} if "handicap" in get_game(args.game).default_options() else {}
    config = Settings(args.game, dealing=dealing_of(args.seed), players=args.count,
                      rounds=match_rounds(args.game, args.rounds), options=options,
                      fairness_ms=0, countdown=0, pause=0)
    server = ArbiterServer(config, host=HOST, port=0)
    print(f"lan-demon: hosting {args.game} at {server.address[len('tcp://'):]} "
          f"(updates on port {server.pub_port})", flush=True)
    matches = 1
    try:
        while True:
            server.serve(exit_when_over=not paused)
            if paused:  # settling: keep the finished match up so its clients can be checked
                server.serve(exit_when_over=False)
            server.arbiter = Arbiter(config, None, now=server.clock())
            matches += 1
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
        match = server.arbiter.match
        if match is not None:  # what the match in hand keeps of its past rounds
            print(json.dumps({"matches": matches, "rounds_kept": len(match.rounds),
                              "history_mb": deep_mb([match.rounds, match.setups])}),
                  flush=True)


# ------------------------------------------------------------------------- the bot worker


@dataclass
class Group:
    """This process's seats at one table."""

    address: str
    first: int
    count: int
    bots: list[Any] = field(default_factory=list)
    generation: int = 0
    retry_at: float = 0.0
    final: bool = False  # paused and its match over: no new seats
    retired_moves: int = 0  # moves sent by the bots of earlier matches

    def restart_due(self, now: float) -> bool:
        return (not self.final and now >= self.retry_at
                and all(b.done for b in self.bots))


@dataclass
class Tally:
    """What one client heard, for the report."""

    snapshots: int = 0
    drifts: int = 0
    refused: int = 0
    reconnects: int = 0


def seat_group(group: Group, seed: int, tallies: dict[int, Tally], timeout: float) -> None:
    """Connect ``group.count`` flat-out greedy bots to the group's table (all or none)."""
    from lan_demon.bots.runner import make_bot
    bots = []
    try:
        for i in range(group.first, group.first + group.count):
            bot = make_bot(group.address, "greedy", f"bot-{i}",
                           seed=f"{seed}:{i}:{group.generation}", speed="flat-out",
                           connect_timeout=timeout)
            bot.on_error = None
            tally = tallies[id(bot)] = Tally()
            bot.on_notice = lambda n, tally=tally: count_notice(tally, n)
            bots.append(bot)
    except BaseException:
        for bot in bots:
            bot.client.close()
            tallies.pop(id(bot), None)
        raise
    for old in group.bots:
        group.retired_moves += old.moves
        old.client.close()
        tallies.pop(id(old), None)
    group.bots = bots
    group.generation += 1


def count_notice(tally: Tally, notice: Any) -> None:
    if notice.kind == "resync":
        if notice.text.startswith("the table drifted"):
            tally.drifts += 1  # the client's own beat check failed; a snapshot follows
        else:
            tally.snapshots += 1
    elif notice.kind == "refused":
        tally.refused += 1
    elif notice.kind == "reconnecting":
        tally.reconnects += 1


def bots_worker(args: argparse.Namespace) -> None:
    """Child: the bots of ``--tables-spec`` in one process. Plays until SIGUSR1; then keeps
    every client pumped, reads the update number each table settled at from stdin (one JSON
    line), waits until every client has applied it, and prints one JSON line per client."""
    from lan_demon.games import GameError
    from lan_demon.bots.runner import run_pool
    watch_parent()
    stopping: list[int] = []
    paused: list[int] = []
    signal.signal(signal.SIGTERM, lambda *_: stopping.append(1))
    signal.signal(signal.SIGUSR1, lambda *_: paused.append(1))
    groups = [Group(a, first, count) for a, first, count in json.loads(args.tables_spec)]
    tallies: dict[int, Tally] = {}
    restarts = 0
    report: dict[str, Any] = {"clients": []}
    try:
        for group in groups:
            seat_group(group, args.seed, tallies, timeout=60)
        print("seated", flush=True)
        while not stopping and not paused:
            bots = [b for g in groups for b in g.bots]
            run_pool(bots, timeout=LONG_MATCH, until=lambda: bool(
                stopping or paused or any(g.restart_due(time.monotonic()) for g in groups)))
            for group in groups:
                if group.restart_due(time.monotonic()) and not stopping and not paused:
                    try:
                        seat_group(group, args.seed, tallies, timeout=5)
                        restarts += 1
                    except GameError:  # the host has not started the next match yet
                        group.retry_at = time.monotonic() + 0.2
        if not stopping:
            report = settle(groups, tallies, stopping)
    finally:
        bots = [b for g in groups for b in g.bots]
        report.update(bots=len(bots), restarts=restarts,
                      moves=sum(b.moves for b in bots) + sum(g.retired_moves for g in groups))
        print(json.dumps(report), flush=True)
        for bot in bots:
            bot.client.close()
        zmq.Context.instance().term()


def settle(groups: list[Group], tallies: dict[int, Tally], stopping: list[int]
           ) -> dict[str, Any]:
    """Stop playing, keep pumping, catch up to the update number each table settled at."""
    bots = [b for g in groups for b in g.bots]
    poller = zmq.Poller()
    poller.register(sys.stdin.fileno(), zmq.POLLIN)
    for bot in bots:
        for sock in bot.client.sockets():
            poller.register(sock, zmq.POLLIN)
    targets: dict[str, int] | None = None
    deadline = None
    while not stopping:
        ready = dict(poller.poll(50))
        if sys.stdin.fileno() in ready and targets is None:
            targets = json.loads(sys.stdin.readline())
            deadline = time.monotonic() + 60
        for bot in bots:
            client = bot.client
            if client.dealer is None:
                continue
            if client.dealer in ready or client.sub in ready or \
                    client.clock() >= client.due():
                client.pump()
            if client.notices:
                bot.handle(client.take_notices())  # counts; no bot acts any more
        if targets is not None and (time.monotonic() > deadline or all(
                caught_up(g, targets[g.address]) for g in groups)):
            break
    clients = []
    for group in groups:
        sized = False
        for bot in group.bots:
            c, tally = bot.client, tallies[id(bot)]
            clients.append({"name": c.name, "table": group.address, "seat": c.seat,
                            "seq": c.seq, "hash": public_hash(c.game, c.mirror),
                            "phase": c.table.get("phase"), "pending": len(c.pending),
                            "snapshots": tally.snapshots, "drifts": tally.drifts,
                            "beaten": bot.beaten, "refused": tally.refused,
                            "reconnects": tally.reconnects, "dropped": c.dropped,
                            "buffered": c.buffered,
                            "error": bot.error,
                            "results_kept": len(c.table.get("results", []))})
            if not sized:  # one client per table: they all keep the same round results
                sized = True
                clients[-1]["results_mb"] = deep_mb(c.table.get("results", []))
    return {"clients": clients}


def caught_up(group: Group, target: int) -> bool:
    return all(b.client.seq == target and not b.client.catching_up
               for b in group.bots if b.error is None)


# -------------------------------------------------------------------------- the soak run


@dataclass
class Table:
    """One arbiter process and the SUB that counts its commits and reads its beats."""

    host: Child
    address: str
    pub: str
    seats: int
    sub: zmq.Socket | None = None
    moves: int = 0
    rounds: int = 0
    matches: int = 0
    beat: tuple[int, str] = (0, "")
    same_beats: int = 0

    def read(self) -> None:
        """Drain the SUB: count committed moves, deals, match ends; note the last beat."""
        while True:
            try:
                frame = self.sub.recv(zmq.NOBLOCK)
            except zmq.Again:
                return
            msg = msgpack.unpackb(frame, raw=False)
            if msg.get("t") == "beat":
                beat = (msg["seq"], msg.get("hash", ""))
                self.same_beats = self.same_beats + 1 if beat == self.beat else 0
                self.beat = beat
            elif msg.get("t") == "update":
                kind = msg.get("k")
                self.moves += kind == "move"
                self.rounds += kind == "round"
                self.matches += kind == "match_end"


def split(tables: list[Table], procs: int) -> list[list[tuple[str, int, int]]]:
    """Every seat of every table, in order, cut into ``procs`` nearly equal runs; each run
    as (address, first seat number, count) per table it touches."""
    seats = [(t.address, i) for t in tables for i in range(t.seats)]
    share = [len(seats) // procs + (i < len(seats) % procs) for i in range(procs)]
    specs, at = [], 0
    for n in share:
        spec: list[tuple[str, int, int]] = []
        for address, i in seats[at:at + n]:
            if spec and spec[-1][0] == address:
                spec[-1] = (address, spec[-1][1], spec[-1][2] + 1)
            else:
                spec.append((address, i, 1))
        specs.append(spec)
        at += n
    return specs


def table_sizes(bots: int, game_id: str) -> list[int]:
    from lan_demon.games import get_game
    game = get_game(game_id)
    tables = math.ceil(bots / game.max_players)
    sizes = [bots // tables + (i < bots % tables) for i in range(tables)]
    for n in sizes:
        game.check_players(n)
    return sizes


def sample_line(t: float, tables: list[Table], workers: list[Child], moves: int,
                rate: float, cpu: dict[int, float]) -> str:
    hosts = [t.host for t in tables]
    if len(hosts) == 1:
        arb = f"arbiter {hosts[0].samples[-1][1]:.1f}"
    else:
        rss = [h.samples[-1][1] for h in hosts]
        arb = f"arbiters Σ {sum(rss):.1f} (max {max(rss):.1f})"
    bots = " ".join(f"{w.samples[-1][1]:.1f}" for w in workers)
    arb_cpu = sum(cpu[h.pid] for h in hosts)
    bots_cpu = " ".join(f"{cpu[w.pid]:.0%}" for w in workers)
    rounds = sum(tb.rounds for tb in tables)
    return (f"t={t:5.0f} s  moves {moves:>10,} ({rate:6,.0f}/s)  rounds {rounds:>6,}  "
            f"RSS MB: {arb} | bots {bots}  CPU: arbiter{'s' * (len(hosts) > 1)} "
            f"{arb_cpu:.0%}, bots {bots_cpu}")


def memory_verdict(children: list[Child], seconds: float) -> list[str]:
    lines = []
    for child in children:
        pts = child.samples
        second_half = [(t, v) for t, v in pts if t >= seconds / 2]
        rss = [v for _, v in pts]
        lines.append(f"  {child.name:<12} RSS first {rss[0]:6.1f} MB, last {rss[-1]:6.1f} MB, "
                     f"max {max(rss):6.1f} MB; slope over the second half "
                     f"{slope_per_minute(second_half):+.3f} MB/min ({len(second_half)} samples)")
    return lines


def run(args: argparse.Namespace, log: Any) -> None:
    seconds = args.minutes * 60
    sizes = table_sizes(args.bots, args.game)
    from lan_demon.games import get_game
    game = get_game(args.game)
    if len(sizes) > 1:
        print(f"{game.title} seats at most {game.max_players} at a table ({game.players_rule}): "
              f"{len(sizes)} tables ({', '.join(map(str, sizes))} seats), one arbiter process "
              f"each, all playing at once")
    else:
        print(f"one table of {sizes[0]} seats ({game.title} seats up to {game.max_players}, "
              f"{game.players_rule})")
    rounds = match_rounds(args.game, args.rounds)
    print(f"matches of {rounds} rounds, restarted on the same host (the bots take their seats "
          f"again)" if args.rounds else "one match of a million rounds" if rounds else
          "matches end by the game's own rule and restart on the same host")
    ctx = zmq.Context()
    tables: list[Table] = []
    workers: list[Child] = []
    try:
        for i, n in enumerate(sizes):
            host = spawn(f"arbiter-{i}", ["--host-worker", "--count", str(n), "--seed",
                                          str(args.seed + i), "--game", args.game]
                         + (["--rounds", str(args.rounds)] if args.rounds else []), log)
            first = read_line(host.proc, timeout=30)
            address = "tcp://" + first.split(" at ", 1)[1].split()[0]
            pub = f"tcp://{HOST}:{int(first.split('updates on port ', 1)[1].split(')')[0])}"
            table = Table(host, address, pub, n)
            tables.append(table)
            table.sub = ctx.socket(zmq.SUB)
            table.sub.setsockopt(zmq.LINGER, 0)
            table.sub.setsockopt(zmq.SUBSCRIBE, b"")
            table.sub.connect(pub)
        procs = max(1, min(args.bot_procs, args.bots))
        for i, spec in enumerate(split(tables, procs)):
            workers.append(spawn(f"bots-{i}", ["--bots-worker", "--tables-spec",
                                               json.dumps(spec), "--seed", str(args.seed)],
                                 log, stdin=True))
        for w in workers:
            if read_line(w.proc, timeout=120) != "seated":
                raise RuntimeError(f"{w.name} did not seat its bots")
        poller = zmq.Poller()
        for table in tables:
            poller.register(table.sub, zmq.POLLIN)
        children = [t.host for t in tables] + workers
        t0 = time.monotonic()
        for c in children:
            c.cpu0 = cpu_seconds(c.pid)
        last_t, last_moves = t0, 0
        next_sample = t0 + args.sample_seconds
        print(f"{args.bots} bots seated; playing flat out for {args.minutes:g} min", flush=True)
        while True:
            now = time.monotonic()
            if now >= next_sample:
                moves = sum(tb.moves for tb in tables)
                cpu = {}
                for c in children:
                    c.samples.append((now - t0, rss_mb(c.pid)))
                    spent = cpu_seconds(c.pid)
                    cpu[c.pid] = (spent - c.cpu0) / (now - last_t)
                    c.cpu0 = spent
                    if c.proc.poll() is not None:
                        raise RuntimeError(f"{c.name} ended early (status {c.proc.returncode})")
                print(sample_line(now - t0, tables, workers, moves,
                                  (moves - last_moves) / (now - last_t), cpu), flush=True)
                last_t, last_moves = now, moves
                next_sample += args.sample_seconds
                if now - t0 >= seconds - 1e-6:
                    break
            poller.poll(max(0.0, min(next_sample - now, 0.1)) * 1000)
            for table in tables:
                table.read()
        wall = time.monotonic() - t0
        total = sum(tb.moves for tb in tables)
        print(f"played {wall:.0f} s: {total:,} moves committed ({total / wall:,.0f}/s), "
              f"{sum(tb.rounds for tb in tables):,} rounds dealt, "
              f"{sum(tb.matches for tb in tables)} matches ended")
        print("memory (RSS):")
        for line in memory_verdict(children, seconds):
            print(line)
        sys.stdout.flush()
        reports = desync(tables, workers, ctx)
        history(tables, reports, workers, wall)
    finally:
        outs = [w.stop() for w in workers]
        for table in tables:
            if table.sub is not None:
                table.sub.close(0)
            table.host.stop(signal.SIGINT)
        ctx.term()
        for w, out in zip(workers, outs):
            if "Traceback" in out:
                print(f"{w.name} said:\n{out[-2000:]}", file=sys.stderr)


def desync(tables: list[Table], workers: list[Child], ctx: zmq.Context) -> None:
    """Stop the bots, let every table settle, and compare every client with the arbiter."""
    from lan_demon.net.client import Client
    for c in [t.host for t in tables] + workers:
        c.proc.send_signal(signal.SIGUSR1)  # hosts: no new match; bots: no more moves
    began = time.monotonic()
    for table in tables:
        table.same_beats = 0
    while not all(t.same_beats >= QUIET_BEATS for t in tables):
        if time.monotonic() - began > 60:
            raise RuntimeError("a table did not settle within 60 s of the bots stopping")
        for table in tables:
            if table.sub.poll(100):
                table.read()
    canonical: dict[str, tuple[int, str]] = {}
    agree = 0
    for table in tables:
        spectator = Client(table.address, name="soak-check", role="spectator", context=ctx)
        try:
            spectator.connect(timeout=10)
            snap = (spectator.seq, public_hash(spectator.game, spectator.mirror))
        finally:
            spectator.close()
        table.read()
        agree += snap == table.beat
        canonical[table.address] = table.beat
    print(f"settled {time.monotonic() - began:.1f} s after the bots stopped; canonical state: "
          f"beat hash = fresh spectator snapshot hash at the same update for {agree} of "
          f"{len(tables)} table{'s' * (len(tables) > 1)} "
          + ", ".join(f"(update {s:,}, hash {h})" for s, h in canonical.values()))
    line = json.dumps({a: s for a, (s, _) in canonical.items()}) + "\n"
    reports = []
    for w in workers:
        w.proc.stdin.write(line)
        w.proc.stdin.flush()
    for w in workers:
        reports.append(json.loads(read_line(w.proc, timeout=90)))
    clients = [c for r in reports for c in r["clients"]]
    in_sync = [c for c in clients if (c["seq"], c["hash"]) == canonical[c["table"]]]
    print(f"desync check: {len(in_sync)} of {len(clients)} clients in sync (their mirror, "
          f"redacted to the public view, hashes to the arbiter's at the same update)")
    for c in clients:
        if c not in in_sync:
            print(f"  out of sync: {c}")
    totals = {k: sum(c[k] for c in clients) for k in
              ("snapshots", "drifts", "beaten", "refused", "reconnects", "dropped")}
    most = max(clients, key=lambda c: c["snapshots"])
    print(f"during the run, over all clients: {totals['snapshots']} resync snapshots (most "
          f"for one client: {most['snapshots']}, {most['name']}), {totals['drifts']} drifts "
          f"found by the clients' own beat checks, {totals['beaten']} moves beaten (RD-11), "
          f"{totals['refused']} refused, {totals['reconnects']} reconnects, "
          f"{totals['dropped']} frames dropped unsent; bots' moves sent "
          f"{sum(r['moves'] for r in reports):,}; "
          f"re-seatings after a match end {sum(r['restarts'] for r in reports)}")
    errors = [c for c in clients if c["error"]]
    if errors:
        print(f"  {len(errors)} bots removed for raising, e.g. {errors[0]['error']}")
    return reports


def history(tables: list[Table], reports: list[dict[str, Any]], workers: list[Child],
            seconds: float) -> None:
    """What the match in hand keeps of its past rounds — growth by design, per round, not per
    move: the arbiter's ``Match.rounds``/``setups`` and each client's ``table["results"]``."""
    print("match history held at the end (Python objects, so the RSS growth can be told "
          "apart from it):")
    for table in tables:
        out = table.host.stop(signal.SIGINT)
        kept = json.loads(out.splitlines()[-1]) if out.strip().endswith("}") else {}
        if kept:
            print(f"  {table.host.name:<12} {kept['rounds_kept']:,} rounds kept, "
                  f"{kept['history_mb']:.1f} MB (match {kept['matches']}; "
                  f"{kept['history_mb'] / seconds * 60:.2f} MB/min over the run)")
    for w, report in zip(workers, reports):
        clients = report["clients"]
        sized = [c for c in clients if "results_mb" in c]
        per_client = sum(c["results_mb"] for c in sized) / max(1, len(sized))
        held = per_client * len(clients)
        print(f"  {w.name:<12} {len(clients)} clients × {clients[0]['results_kept']:,} round "
              f"results ≈ {per_client:.2f} MB each, {held:.1f} MB in all "
              f"({held / seconds * 60:.2f} MB/min over the run)")


# ------------------------------------------------------------------------------- main


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=100, help="flat-out bots (default 100)")
    parser.add_argument("--minutes", type=float, default=10.0, help="length (default 10)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--bot-procs", type=int, default=2,
                        help="processes the bots are split across (default 2)")
    parser.add_argument("--game", default="racing-demon", help="default racing-demon")
    parser.add_argument("--sample-seconds", type=float, default=10.0,
                        help="seconds between samples (default 10)")
    parser.add_argument("--rounds", type=int, default=None,
                        help="rounds per match, then a new match starts and the bots take "
                        "their seats again (default: one match of a million rounds where the "
                        "game allows it, else the game's own length)")
    parser.add_argument("--host-worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--bots-worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--tables-spec", help=argparse.SUPPRESS)
    parser.add_argument("--count", type=int, default=1, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.host_worker:
        return host_worker(args)
    if args.bots_worker:
        return bots_worker(args)
    from lan_demon.games import GameError, get_game
    try:
        get_game(args.game)
        table_sizes(args.bots, args.game)
    except GameError as err:
        parser.exit(2, f"soak.py: {err}\n")
    if args.bots < 1 or args.minutes <= 0 or args.sample_seconds <= 0 or args.bot_procs < 1 \
            or (args.rounds is not None and args.rounds < 1):
        parser.exit(2, "soak.py: --bots, --minutes, --sample-seconds, --bot-procs and --rounds "
                    "must be positive\n")
    print(f"command: python benchmarks/soak.py --bots {args.bots} --minutes {args.minutes:g} "
          f"--seed {args.seed} --bot-procs {args.bot_procs} --game {args.game} "
          f"--sample-seconds {args.sample_seconds:g}"
          + (f" --rounds {args.rounds}" if args.rounds else ""))
    print(f"python {platform.python_version()}, pyzmq {zmq.__version__} (libzmq "
          f"{zmq.zmq_version()}), msgpack {'.'.join(map(str, msgpack.version))}, "
          f"{os.cpu_count()} cores (shared), {platform.machine()}, loopback {HOST}, {args.game}, "
          f"greedy bots at the flat-out pace, fairness window 0 ms", flush=True)
    began = time.monotonic()
    signal.signal(signal.SIGTERM, signal.default_int_handler)  # stop children on SIGTERM too
    with tempfile.TemporaryFile("w+") as log:
        try:
            run(args, log)
        except KeyboardInterrupt:
            print("interrupted; every process started here was stopped", file=sys.stderr)
            sys.exit(130)
        finally:
            log.seek(0)
            errors = "\n".join(line for line in log.read().splitlines()
                               if "host stopped" not in line)
            if errors.strip():
                print("child processes' stderr:\n" + errors[-3000:], file=sys.stderr)
    print(f"took {time.monotonic() - began:.0f} s")


if __name__ == "__main__":
    main()
