"""What a host colluding with k players can still do: choose among 2^k deals (issue 27).

    python benchmarks/withheld_reveals.py [--trials N] [--players 4] [--seed S]

Commit and reveal (PROTOCOL.md §22) binds the host to its secret before any nonce is out, and
each player to its nonce before it sees another. What it cannot stop: a host that sees the
revealed nonces, together with k players who have not revealed yet, can have any of those k
withhold their reveal — each round is then dealt from one of 2^k round secrets of the host's
choosing. This measures what that buys in Rack-O: seat 0's rack at Go — its longest stretch of
neighbouring slots in rising order, and its longest rising subsequence (the cards that can stay)
— on an honest deal and on the best of 2^k deals for k = 1, 2, 3. Every such round is also seen: each
screen says whose randomness the round was dealt without (``tui/deal_words.py``), and
``lan-demon verify`` lists it under its OK line.

Nothing here asserts a figure: they go to docs/hosting.md ("Why you can trust the table").
"""

from __future__ import annotations

import argparse
import bisect
import itertools
import random
import statistics

from lan_demon.games import get_game
from lan_demon.games.deal import DealRandom, round_secret


def longest_ascending(rack: list[int]) -> int:
    """The longest stretch of neighbouring slots whose cards rise, from slot 5 up."""
    best = run = 1
    for low, high in zip(rack, rack[1:]):
        run = run + 1 if high > low else 1
        best = max(best, run)
    return best


def longest_rising(rack: list[int]) -> int:
    """The most cards that can stay where they are: the rack's longest rising subsequence
    (slots in order, not necessarily neighbours)."""
    tops: list[int] = []
    for card in rack:
        at = bisect.bisect_left(tops, card)
        tops[at:at + 1] = [card]
    return len(tops)


MEASURES = {"longest ascending run of neighbouring slots": longest_ascending,
            "longest rising subsequence (cards that can stay)": longest_rising}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=4000)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=27)
    args = parser.parse_args()
    game = get_game("racko")
    setup = game.first_setup(args.players, game.default_options())
    rng = random.Random(args.seed)
    runs = {name: {k: [] for k in range(4)} for name in MEASURES}
    for _ in range(args.trials):
        host = rng.randbytes(32)
        nonces = {seat: rng.randbytes(16) for seat in range(args.players)}
        for k in range(4):  # seats 1..k collude with the host (seat 0 is theirs to help)
            racks = []
            for withheld in itertools.product((False, True), repeat=k):
                used = {seat: n for seat, n in nonces.items()
                        if not (1 <= seat <= k and withheld[seat - 1])}
                racks.append(game.deal(setup, DealRandom(round_secret(host, used))).racks[0])
            for name, measure in MEASURES.items():  # the host picks the best for each measure
                runs[name][k].append(max(measure(rack) for rack in racks))
    print(f"Rack-O, {args.players} players, {args.trials} deals (seed {args.seed}): seat 0's "
          f"rack at Go, the mean (95% interval)")
    for name, by_k in runs.items():
        print(f"  {name}:")
        for k, values in by_k.items():
            mean = statistics.fmean(values)
            half = 1.96 * statistics.stdev(values) / len(values) ** 0.5
            who = "honest (every nonce used)" if k == 0 else \
                f"host + {k} player{'s' if k > 1 else ''}: best of {2 ** k} deals"
            print(f"    {who:40} {mean:.2f} (±{half:.2f})")


if __name__ == "__main__":
    main()
