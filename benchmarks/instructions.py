"""The floor in instructions: what each target's threads execute per committed move, counted by
valgrind's callgrind instead of timed (issue 13).

    python benchmarks/instructions.py [--seats 20] [--moves 300,1300] [--before PATH]

Why: this machine is shared, and a timed figure of ``floor.py`` moves by 2-3× between runs of the
same code (docs/benchmarks.md), which is as wide as the margins issue 13 asks about. The number
of instructions a process executes does not depend on what else the machine is doing: the same
code, fed the same moves, counts the same (to a percent or two here: how moves fall into
wake-ups may differ). It is not time — a cache miss, a system call's kernel work (libzmq's TCP
writes, poll) and waiting cost no instructions here — so read it beside floor.py's timed figures,
never instead of them.

Each target of ``floor.py`` (relay, rules, lan_demon, and ``--before PATH``) is started under
``valgrind --tool=callgrind --separate-threads=yes``, its seats seated by floor.py's own load
generator (which runs at full speed, not under valgrind), and then played in floor.py's phase A
— every seat flat out, one Pack turn in flight each — until the reference SUB has seen
``--moves`` committed moves; then the load stops sending, what is in flight is answered, and
the target is stopped and writes its counts. Two runs per target, with the two move counts of
``--moves``: the difference of their counts over the difference of their moves is the cost per
move with the start (imports, seating, the first deal) taken out. Printed per target: the main
thread ("python": the socket loop, decoding, the rules, the messages; for lan_demon the whole
arbiter) and the other threads (libzmq's I/O thread and reaper: framing and queueing, without
the kernel's part), per move, and the ratios to the relay. Under valgrind the target runs ~50×
slower than the load, so nearly every wake-up finds every seat's move waiting: a batch is the
table (20 moves a wake-up at 20 seats), as at a busy table.

Needs valgrind (Debian's ``valgrind``); says so and exits 2 without it. Takes about a minute per
target at 20 seats. Every process started here is stopped before it exits.
"""

from __future__ import annotations

import argparse
import glob
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from typing import Any

import zmq

from floor import STAND_INS, Load, Target, begin, targets
from children import stop

STARTUP = 300.0  # seconds a target under valgrind is given to start (it compiles and imports)


def play(load: Load, moves: int) -> int:
    """floor.py's phase A until ``moves`` committed moves were seen; then every move in flight
    answered. How many were committed in all."""
    load.sending = True
    for i in range(load.n):
        if not load.flying[i]:
            load.send_move(i)
    deadline = time.monotonic() + 600
    while load.count["moves"] < moves:
        if time.monotonic() > deadline:
            raise RuntimeError(f"only {load.count['moves']} of {moves} moves in 600 s")
        load.pump(50)
        load.rescue()
    load.sending = False
    deadline = time.monotonic() + 60
    while load.in_flight() and time.monotonic() < deadline:
        load.pump(50)
    return load.count["moves"]


def thread_counts(prefix: str) -> dict[int, int]:
    """Instructions per thread (1 is the main thread) from callgrind's files ``prefix-NN``."""
    counts = {}
    for path in glob.glob(prefix + "-*"):
        with open(path, errors="replace") as f:
            text = f.read()
        found = re.search(r"^(?:summary|totals): (\d+)", text, re.M)
        counts[int(path.rsplit("-", 1)[1])] = int(found.group(1)) if found else 0
    return counts


def one_run(kind: str, seats: int, moves: int, args: argparse.Namespace, log: Any,
            versions: dict[str, int], out_dir: str) -> tuple[int, dict[int, int]]:
    prefix = os.path.join(out_dir, f"{kind}-{moves}")
    wrapper = ("valgrind", "--tool=callgrind", "--separate-threads=yes",
               f"--callgrind-out-file={prefix}")
    target = load = None
    try:
        target = Target(kind, seats, args.seed, log, args.before, versions, wrapper, STARTUP)
        load = Load(target, seats)
        begin(load, target)
        committed = play(load, moves)
    finally:
        if load is not None:
            load.close()
        if target is not None:
            # a host ends on SIGINT, a stand-in on SIGTERM; either way valgrind writes its files
            stop(target.proc, signal.SIGTERM if kind in STAND_INS else signal.SIGINT, 120)
    return committed, thread_counts(prefix)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seats", type=int, default=20, help="table size (default 20)")
    parser.add_argument("--moves", default="300,1300",
                        help="the two runs' committed moves, comma-separated (default 300,1300)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--before", metavar="PATH",
                        help="a checkout of older lan_demon code, counted as the 'before' target")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        print("instructions.py: valgrind is not installed (apt-get install valgrind)",
              file=sys.stderr)
        sys.exit(2)
    try:
        low, high = (int(n) for n in args.moves.split(","))
        assert 0 < low < high
    except (ValueError, AssertionError):
        print("instructions.py: --moves takes two counts, the smaller first: 300,1300",
              file=sys.stderr)
        sys.exit(2)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    kinds, versions = targets(args)
    print(f"command: python benchmarks/instructions.py --seats {args.seats} --moves "
          f"{low},{high} --seed {args.seed}" + (f" --before {args.before}" if args.before else ""))
    valgrind = subprocess.run(["valgrind", "--version"], capture_output=True, text=True).stdout
    print(f"python {platform.python_version()}, pyzmq {zmq.__version__} (libzmq "
          f"{zmq.zmq_version()}), {valgrind.strip()}, racing-demon, {args.seats} seats")
    began = time.monotonic()
    per_move: dict[str, tuple[float, float]] = {}
    with tempfile.TemporaryDirectory() as out_dir, tempfile.TemporaryFile("w+") as log:
        try:
            for kind in kinds:
                (m1, c1), (m2, c2) = (one_run(kind, args.seats, n, args, log, versions, out_dir)
                                      for n in (low, high))
                main_thread = (c2.get(1, 0) - c1.get(1, 0)) / (m2 - m1)
                others = (sum(v for k, v in c2.items() if k != 1)
                          - sum(v for k, v in c1.items() if k != 1)) / (m2 - m1)
                per_move[kind] = (main_thread, others)
                print(f"{kind:9s} {m1:5d} and {m2:5d} moves: python {main_thread:9,.0f}, "
                      f"other threads {others:7,.0f} instructions per move", flush=True)
        finally:
            log.seek(0)
            errors = "\n".join(line for line in log.read().splitlines()
                               if line.strip() and not line.startswith("==")
                               and "host stopped" not in line)
            if errors.strip():
                print("child processes' stderr:\n" + errors[-3000:], file=sys.stderr)
    relay = per_move.get("relay")
    if relay:
        print()
        print(f"| {args.seats} seats, instructions per move | python | other threads | "
              "python ÷ relay | other ÷ relay |")
        print("| --- | ---: | ---: | ---: | ---: |")
        for kind, (py, other) in per_move.items():
            other_ratio = f"{other / relay[1]:.2f}" if relay[1] else "–"
            print(f"| {kind} | {py:,.0f} | {other:,.0f} | {py / relay[0]:.2f} | "
                  f"{other_ratio} |")
        if "before" in per_move:
            now, then = per_move["lan_demon"], per_move["before"]
            print(f"\nlan_demon ÷ before: python {now[0] / then[0]:.2f}, other threads "
                  f"{now[1] / then[1]:.2f}")
    print(f"took {time.monotonic() - began:.0f} s")


if __name__ == "__main__":
    main()
