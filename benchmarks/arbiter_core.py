"""The arbiter's decision per move, without sockets: ``Arbiter.handle`` on one move frame.

    python benchmarks/arbiter_core.py [--seconds 3] [--seats 4] [--seed 5]

Racing Demon (classic), handicaps off, fairness window 0, no flood brake, a clock this script
moves. Each step a random seat plays the first card its legal moves offer (else turns its Pack)
on the arbiter's own canonical table; only the ``handle`` call is timed — decode, checks, the
engine's ``apply``, the journal-free record and the messages built (protocol 3: the update
and, for a card only its mover may see, the private half; no ``ok``) — so the figure is the
rules-and-bookkeeping part of a move, apart from every socket (``net_latency.py`` and
``floor.py`` measure those).

The baseline, measured in the same run because this machine is shared and noisy: a move frame
encoded and decoded by the codec alone (the least any arbiter must do per move). Nothing here
asserts a time; figures go to docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import platform
import random
import time

from lan_demon.net.codec import decode, encode, make

from tables import seated_table




def arbiter_per_move(seconds: float, seats: int, seed: int) -> tuple[float, int]:
    """Microseconds per ``Arbiter.handle`` of a move, and how many moves were timed."""
    arbiter, peers, now = seated_table(seats, seed)
    game, rng = arbiter.game, random.Random(seed)
    spent, moves, rid = 0.0, 0, 10
    deadline = time.process_time() + seconds
    while time.process_time() < deadline:
        if arbiter.phase != "playing":  # between rounds: time passes until the next Go
            now += 0.5
            arbiter.tick(now)
            continue
        seat = rng.randrange(seats)
        legal = game.legal_moves(arbiter.state, seat)
        if not legal:
            now += 0.01
            arbiter.tick(now)
            continue
        plays = [m for m in legal if type(m).__name__ == "Play"]
        move = (plays or legal)[0]
        rid += 1
        frame = encode(make("move", id=rid, round=arbiter.match.round_no,
                            move=move.to_data(), ts=now))
        start = time.perf_counter()
        arbiter.handle(peers[seat], frame, now)
        spent += time.perf_counter() - start
        moves += 1
        now += 0.001
    return spent / max(moves, 1) * 1e6, moves


def codec_per_move(seconds: float) -> float:
    """The baseline: microseconds to encode and decode one move frame."""
    msg = make("move", id=41, round=2, move={"t": "play", "from": "c2", "to": "s7"}, ts=12.5)
    done, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _ in range(1000):
            decode(encode(msg), "client")
        done += 1000
    return (time.perf_counter() - start) / done * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()
    print(f"command: python benchmarks/arbiter_core.py --seconds {args.seconds:g} "
          f"--seats {args.seats} --seed {args.seed}")
    print(f"python {platform.python_version()} on {platform.machine()}")
    base = codec_per_move(min(1.0, args.seconds))
    print(f"baseline: a move frame encoded and decoded by the codec: {base:.1f} µs")
    per_move, moves = arbiter_per_move(args.seconds, args.seats, args.seed)
    print(f"Arbiter.handle of a move, {args.seats} seats: {per_move:.1f} µs per move over "
          f"{moves:,} moves ({per_move / base:.1f}× the baseline)")


if __name__ == "__main__":
    main()
