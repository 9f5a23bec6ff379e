"""Engine speed: simulated rounds per second and legal-move generation time, on one core.

    python benchmarks/engine_speed.py [--rounds N] [--seed S]

Prints a baseline measured in the same run (shuffling four packs with the seeded generator, the
first thing every deal does), because this machine is shared and its speed varies. Nothing here
asserts a time: the figures go to docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import sys
import time

from lan_demon.bots.base import Turn
from lan_demon.games import Match, get_game
from lan_demon.games.cards import full_pack
from lan_demon.bots.simulator import simulate


def timed(fn, repeat: int = 3) -> float:
    """The best of ``repeat`` runs, in seconds (the least disturbed by other load)."""
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return best


def baseline(n: int = 20_000) -> float:
    packs = [full_pack(p) for p in range(4)]
    rng = random.Random(1)

    def run() -> None:
        for _ in range(n // 4):
            for pack in packs:
                rng.shuffle(pack)
    return n / timed(run)


def rounds_per_second(game_id: str, players: int, rounds: int,
                      seed: int) -> tuple[float, float, int]:
    """Rounds and moves per CPU second over whole matches (a match may end before ``rounds``)."""
    played = moves = 0

    def run() -> None:
        nonlocal moves, played
        played = moves = 0
        match_seed = seed
        while played < rounds:
            # RG-7: a German match is 5 to 10 deals, so it runs as matches of 10
            per_match = 10 if game_id == "racing-demon-german" else rounds - played
            sim = simulate(game_id, players, match_seed, rounds=per_match, strategy="greedy")
            played += len(sim.stats)
            moves += sum(s.moves for s in sim.stats)
            match_seed += 1
    seconds = timed(run, repeat=2)
    return played / seconds, moves / seconds, played


def legal_move_times(seed: int, samples: int = 3000) -> list[float]:
    """Microseconds per ``legal_moves`` call on states met in four-player greedy play."""
    game = get_game("racing-demon")
    match = Match(game, ["a", "b", "c", "d"], seed)
    state = match.deal()
    rng = random.Random(seed)
    from lan_demon.bots.racing_demon import GreedyDemon
    bot = GreedyDemon()
    times = []
    while len(times) < samples:
        if game.round_over(state):
            match.record(game.round_result(state))
            state = match.deal()
        seat = rng.randrange(4)
        start = time.perf_counter_ns()
        for _ in range(10):
            game.legal_moves(state, seat)
        times.append((time.perf_counter_ns() - start) / 10_000)
        move = bot.choose(Turn(game, state, seat, rng))
        if move is not None:
            game.apply(state, seat, move)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core, as the issue asks
    print(f"command: python benchmarks/engine_speed.py --rounds {args.rounds} --seed {args.seed}")
    print(f"python {platform.python_version()} on {platform.machine()}, one core, CPU time")
    print(f"baseline: {baseline():,.0f} pack shuffles/s (random.shuffle of 52 cards)")
    for game_id, players in (("racing-demon", 4), ("racing-demon-german", 4), ("racko", 2),
                             ("gin-solitaire", 1)):
        rps, mps, rounds = rounds_per_second(game_id, players, args.rounds, args.seed)
        print(f"{game_id:20s} {players} players, greedy: {rps:8.1f} rounds/s  "
              f"{mps:9,.0f} moves/s  ({rounds} rounds)")
    times = legal_move_times(args.seed)
    q = statistics.quantiles(times, n=100)
    print(f"racing-demon legal_moves (4 players): median {statistics.median(times):.1f} µs, "
          f"p99 {q[98]:.1f} µs over {len(times)} states")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
