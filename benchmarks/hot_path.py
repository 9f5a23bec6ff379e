"""The two ends of a move without sockets: the arbiter's ``handle`` of a Pack turn, and a client
applying the updates a table publishes.

    python benchmarks/hot_path.py [--seats 20] [--moves 5000] [--repeat 8] [--seed 5]
    python benchmarks/hot_path.py --before /tmp/old-tree [--seats 20] [--repeat 8]

1. **arbiter**: an :class:`~lan_demon.net.arbiter.Arbiter` with ``--seats`` players past Go
   (Racing Demon, handicaps off, fairness window 0, no flood brake, a clock this script moves);
   each seat in turn sends a Pack turn (always legal, never contested) and only
   ``Arbiter.handle`` is timed: decode, checks, the engine's ``apply``, the messages built.
   Beside it, the engine's ``apply`` of the same turn alone: the rules' own part of it.
2. **client**: the updates that table published for ``--moves`` such turns, packed ten to a
   frame as one wake-up of the server packs them (``packing.encode_many``), fed to a spectator
   :class:`~lan_demon.net.client.Client` through ``_receive`` — its receive path from a frame's
   bytes to its mirror moved on, without the socket — after the table's snapshot.

3. **deal**: the same table's rounds ended by RD-13 (every seat votes stuck three times), and
   the tick that deals the next one timed with its messages packed as the server frames them
   (``packing.frame``: one PUB frame, one per peer; ``encode_many`` at an older tree):
   every seat's private copy of the whole table and the public update. Beside it, the
   engine's deal of that round alone.

Each figure is the best of ``--repeat`` runs (this machine is shared and noisy: the best is the
least disturbed), beside the baseline measured in the same run: a move map packed and unpacked
by msgpack alone (the least any arbiter must do per move; the same whatever lan_demon's code).

``--before TREE`` measures 1 and 3 of the code in TREE (an older checkout's root, holding its
``lan_demon``: ``git archive <commit> lan_demon | tar -x -C TREE``) against this tree's in the
same run: each repeat runs both, one after the other in child processes of their own (the
order alternating), so a disturbance of the machine falls on both alike. With
``--instructions`` it also counts, under valgrind's callgrind, the instructions a turn costs in
each tree (two runs of ``--moves`` and six times as many turns; the difference over the
difference of turns takes the start out): a count that does not depend on what else the
machine does, for differences smaller than its timing noise. Nothing here asserts a time; the
figures go to docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import msgpack

from lan_demon.net.client import Client
from lan_demon.net.codec import encode, make

from tables import seated_table

try:  # frames of several messages, and the server's framing function
    from lan_demon.net.packing import encode_many, frame as server_frame
except ImportError:  # pragma: no cover - only with PYTHONPATH at an older tree
    try:  # protocol 3 (the codec); an older checkout publishes one update per frame
        from lan_demon.net.codec import encode_many
    except ImportError:
        encode_many = None
    try:  # the server's; an older tree frames in a method of the server
        from lan_demon.net.server import frame as server_frame
    except ImportError:
        server_frame = None

TURN = {"t": "turn"}
STUCK = {"t": "stuck"}


def turns(seats: int, moves: int, seed: int, keep: list[dict[str, Any]] | None = None,
          rid: int = 10) -> float:
    """µs per ``handle`` of a Pack turn; ``keep`` gathers what the table published."""
    arbiter, peers, now = seated_table(seats, seed)
    # The phase and the match read where they are held (the table's facts; an older tree's
    # arbiter itself), so that reading them costs every tree alike in a count of instructions.
    table = getattr(arbiter, "facts", arbiter)
    spent, done = 0.0, 0
    while done < moves:
        if table.phase != "playing":  # stuck (RD-13): the next round is dealt
            now += 0.5
            out = arbiter.tick(now)
            if keep is not None:
                keep += out.public
            continue
        rid += 1
        frame = encode(make("move", id=rid, round=table.match.round_no, move=TURN, ts=now))
        began = time.perf_counter()
        out = arbiter.handle(peers[done % seats], frame, now)
        spent += time.perf_counter() - began
        if keep is not None:
            keep += out.public
        done += 1
        now += 0.0001
    return spent / done * 1e6


def frames_of(updates: list[dict[str, Any]], batch: int = 10) -> list[bytes]:
    if encode_many is None:
        return [encode(u) for u in updates]
    return [encode_many(updates[i:i + batch]) for i in range(0, len(updates), batch)]


def client_apply(seats: int, moves: int, seed: int) -> tuple[float, int]:
    """µs per update a spectator client applies, fed the table's frames; and how many."""
    arbiter, _, _ = seated_table(seats, seed)
    snap = encode(arbiter.snapshot(1, None))
    published: list[dict[str, Any]] = []
    turns(seats, moves, seed, published)
    frames = frames_of(published)
    client = Client("tcp://127.0.0.1:1", name="watch", role="spectator")  # never connected
    client.copy.game, client.connected = arbiter.game, True
    client.send = lambda msg: True  # a snapshot asked for would go nowhere
    client._receive(snap, "private")
    seq0 = client.seq
    began = time.perf_counter()
    for frame in frames:
        client._receive(frame, "pub")
    spent = time.perf_counter() - began
    applied = client.seq - seq0
    client.close()
    return spent / max(1, applied) * 1e6, applied


def engine_turn(seats: int, moves: int, seed: int) -> float:
    """µs of the engine's ``apply`` of a Pack turn alone (RD-9, with RD-13's check): the part
    of ``handle`` that is the rules themselves, which no arbiter of this game can skip."""
    arbiter, _, _ = seated_table(seats, seed)
    game, dealt = arbiter.game, arbiter.state
    move = game.move_from_data(TURN)
    state, spent = game.copy_state(dealt), 0.0
    for i in range(moves):
        began = time.perf_counter()
        try:
            game.apply(state, i % seats, move)
        except Exception:  # stuck (RD-13): play on from the deal again
            state = game.copy_state(dealt)
        spent += time.perf_counter() - began
    return spent / moves * 1e6


def packed(out: Any, packer: msgpack.Packer) -> int:
    """The bytes of the frames the server sends for ``out``: its updates in one frame, each
    peer's messages in one (``ArbiterServer._send``)."""
    def one(msgs: list[dict[str, Any]]) -> bytes:
        if server_frame is not None:
            return server_frame(msgs, packer)
        if encode_many is not None:
            return encode_many(msgs, packer)
        return b"".join(encode(m) for m in msgs)
    replies: dict[bytes, list[dict[str, Any]]] = {}
    for peer, msg in out.private:
        replies.setdefault(peer, []).append(msg)
    sizes = [len(one(msgs)) for msgs in replies.values()]
    return sum(sizes) + (len(one(out.public)) if out.public else 0)


def deals(seats: int, rounds: int, seed: int) -> tuple[float, int]:
    """ms of a deal — the tick at Go, with every message it makes packed into its frames —
    over ``rounds`` rounds, each ended by RD-13 first; and the bytes of one deal's frames."""
    arbiter, peers, now = seated_table(seats, seed)
    packer = msgpack.Packer(use_bin_type=True)
    spent, size, rid = 0.0, 0, 10
    for _ in range(rounds):
        round_no = arbiter.match.round_no
        while arbiter.phase == "playing" and arbiter.match.round_no == round_no:
            for peer in peers:  # RD-13: everyone stuck, three times, ends the round
                rid += 1
                arbiter.handle(peer, encode(make("move", id=rid, round=round_no, move=STUCK,
                                                 ts=now)), now)
                now += 0.0001
        now += 0.01
        began = time.perf_counter()
        out = arbiter.tick(now)  # pause and countdown 0: the next round is dealt at once
        size = packed(out, packer)
        spent += time.perf_counter() - began
        assert arbiter.phase == "playing" and arbiter.match.round_no == round_no + 1
    return spent / rounds * 1e3, size


def engine_deal(seats: int, rounds: int, seed: int) -> float:
    """ms of the engine's deal of that table's round alone (every seat's cards shuffled and
    laid out): the part of a deal that is the game's, whatever the arbiter sends."""
    arbiter, _, _ = seated_table(seats, seed)
    # (a tree older than the arbiter's rooms holds the deal on the arbiter itself)
    match, deal = arbiter.match, getattr(arbiter, "commitments", arbiter).deal_round
    began = time.perf_counter()
    for _ in range(rounds):
        match.deal(deal.secret, deal.nonces)
    return (time.perf_counter() - began) / rounds * 1e3


def msgpack_baseline(n: int = 20_000) -> float:
    """µs to pack and unpack one move map with msgpack alone."""
    began = time.perf_counter()
    for rid in range(1, n + 1):
        msgpack.unpackb(msgpack.packb({"v": 3, "t": "move", "id": rid, "round": 0, "move": TURN,
                                       "ts": 1.0}, use_bin_type=True), raw=False)
    return (time.perf_counter() - began) / n * 1e6


HERE = Path(__file__).resolve().parent
OWN_TREE = HERE.parent


def one_in_child(tree: Path, what: str, args: argparse.Namespace) -> float:
    """One run of ``what`` (``arbiter``: µs a turn; ``deal``: ms a deal) with ``lan_demon``
    imported from ``tree``, in a process of its own."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tree), str(HERE)]))
    done = subprocess.run([sys.executable, str(Path(__file__)), "--one", what,
                           "--seats", str(args.seats), "--moves", str(args.moves),
                           "--seed", str(args.seed)],
                          env=env, cwd=str(HERE), capture_output=True, text=True, check=True)
    return float(done.stdout.split()[-1])


def instructions(tree: Path, turns_run: int, args: argparse.Namespace) -> int:
    """The instructions a child running ``turns_run`` turns in ``tree`` executes (callgrind;
    one hash seed, so that sets and dicts are laid out alike run after run)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tree), str(HERE)]),
               PYTHONHASHSEED="0")
    done = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                           sys.executable, str(Path(__file__)), "--one", "arbiter",
                           "--seats", str(args.seats), "--moves", str(turns_run),
                           "--seed", str(args.seed)],
                          env=env, cwd=str(HERE), capture_output=True, text=True, check=True)
    collected = [line for line in done.stderr.splitlines() if "Collected :" in line]
    return int(collected[-1].split()[-1])


def instructions_per_turn(tree: Path, args: argparse.Namespace) -> float:
    """Instructions a turn costs in ``tree``, the start taken out (see the module's notes)."""
    few, many = args.moves, 6 * args.moves
    return (instructions(tree, many, args) - instructions(tree, few, args)) / (many - few)


def before_and_after(args: argparse.Namespace) -> None:
    """1 and 3 for the tree ``--before`` and this one, each repeat running both."""
    before = Path(args.before).resolve()
    print(f"before: {before}; after: {OWN_TREE}")
    for what, unit in (("arbiter", "µs a Pack turn's handle"), ("deal", "ms a deal")):
        runs: dict[str, list[float]] = {"before": [], "after": []}
        for i in range(args.repeat):
            order = (("before", before), ("after", OWN_TREE))
            for name, tree in order if i % 2 == 0 else reversed(order):
                runs[name].append(one_in_child(tree, what, args))
        best = {name: min(times) for name, times in runs.items()}
        spread = {name: max(times) for name, times in runs.items()}
        print(f"{what}, {args.seats} seats, {unit}: before {best['before']:.2f} "
              f"(worst {spread['before']:.2f}), after {best['after']:.2f} "
              f"(worst {spread['after']:.2f}); after / before {best['after'] / best['before']:.3f}")
    if args.instructions:
        counts = {name: instructions_per_turn(tree, args)
                  for name, tree in (("before", before), ("after", OWN_TREE))}
        print(f"instructions a turn (handle, and the harness's making of the move), "
              f"{args.seats} seats: before {counts['before']:,.0f}, after "
              f"{counts['after']:,.0f}; after / before {counts['after'] / counts['before']:.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seats", type=int, default=20, help="players at the table (default 20)")
    parser.add_argument("--moves", type=int, default=5000, help="turns per run (default 5000)")
    parser.add_argument("--repeat", type=int, default=8, help="runs, best kept (default 8)")
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--before", help="an older tree to measure against (see above)")
    parser.add_argument("--instructions", action="store_true",
                        help="with --before: count instructions too (needs valgrind)")
    parser.add_argument("--one", choices=("arbiter", "deal"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one == "arbiter":
        print(turns(args.seats, args.moves, args.seed))
        return
    if args.one == "deal":
        print(deals(args.seats, 5, args.seed)[0])
        return
    if args.before:
        counted = " --instructions" if args.instructions else ""
        print(f"command: python benchmarks/hot_path.py --before {args.before}{counted} --seats "
              f"{args.seats} --moves {args.moves} --repeat {args.repeat} --seed {args.seed}")
        print(f"python {platform.python_version()} on {platform.machine()}; best of "
              f"{args.repeat}, alternating")
        before_and_after(args)
        return
    print(f"command: python benchmarks/hot_path.py --seats {args.seats} --moves {args.moves} "
          f"--repeat {args.repeat} --seed {args.seed}")
    print(f"python {platform.python_version()} on {platform.machine()}; best of {args.repeat}")
    base = min(msgpack_baseline() for _ in range(args.repeat))
    print(f"baseline: a move map packed and unpacked by msgpack: {base:.1f} µs")
    handle = min(turns(args.seats, args.moves, args.seed) for _ in range(args.repeat))
    print(f"arbiter: Arbiter.handle of a Pack turn, {args.seats} seats: {handle:.1f} µs "
          f"({handle / base:.1f}× the baseline)")
    engine = min(engine_turn(args.seats, args.moves, args.seed) for _ in range(args.repeat))
    print(f"  of which the rules: the engine's apply of a Pack turn alone: {engine:.1f} µs")
    runs = [client_apply(args.seats, args.moves, args.seed) for _ in range(args.repeat)]
    apply_us, applied = min(runs)
    print(f"client: a spectator applies an update, {args.seats} seats, frames of "
          f"{'10' if encode_many else '1'} updates: {apply_us:.1f} µs ({applied} updates a run)")
    deal_ms, size = min(deals(args.seats, 5, args.seed) for _ in range(args.repeat))
    print(f"deal: a round dealt and its messages packed, {args.seats} seats: {deal_ms:.2f} ms "
          f"({size:,} bytes of frames)")
    engine_ms = min(engine_deal(args.seats, 5, args.seed) for _ in range(args.repeat))
    print(f"  of which the rules: the engine's deal alone: {engine_ms:.2f} ms")


if __name__ == "__main__":
    main()
