"""``lan-demon arena``: strategies against each other over many rounds, the report printed."""

from __future__ import annotations

import argparse
import json

from lan_demon.commands.errors import UsageError
from lan_demon.commands.options import positive, seed
from lan_demon.games import GAME_IDS, get_game

HELP = "strategies against each other over many rounds"
DESCRIPTION = ("Play K rounds headless with one strategy per seat (seats rotated each round) "
               "and report per strategy: win rate with a 95% interval, mean score, and for "
               "Racing Demon mean Pile left and cards stacked; and the mean score difference "
               "against the other strategies at the table, with a 95% interval. --mirror "
               "plays each deal once in every rotation of the seats, so the deal's luck "
               "cancels.")


def add_arguments(arena: argparse.ArgumentParser) -> None:
    arena.add_argument("--game", required=True, help=f"one of: {', '.join(GAME_IDS)}")
    arena.add_argument("--seats", required=True, help="one strategy per seat, comma-separated, "
                       "e.g. greedy,greedy,random")
    arena.add_argument("--rounds", type=positive, required=True, help="rounds to play in "
                       "all (with --mirror: a multiple of the number of seats)")
    arena.add_argument("--seed", type=seed, default=0, help="the arena seed (default 0)")
    arena.add_argument("--jobs", type=positive, help="worker processes (default: one per CPU)")
    arena.add_argument("--network", action="store_true", help="play through a real arbiter "
                       "on 127.0.0.1 and bot clients instead of the engine alone")
    arena.add_argument("--mirror", action="store_true", help="play every deal once with the "
                       "seats in each rotation (engine only)")
    arena.add_argument("--json", action="store_true", help="print one JSON document instead")


def run(args: argparse.Namespace) -> int:
    from lan_demon.bots.arena import Progress, parse_seats, run_arena, run_network
    from lan_demon.bots.arena_report import format_report
    game = get_game(args.game)
    seats = parse_seats(args.seats)
    if args.network and args.jobs is not None:
        raise UsageError("--jobs is for the engine-only arena; --network plays its matches "
                         "one after another")
    if args.network and args.mirror:
        raise UsageError("--mirror is for the engine-only arena: through the arbiter timing "
                         "decides races and matches end at their own round, so the rotations "
                         "would not play the same deals")
    progress = Progress(args.rounds, f"arena {game.id}")
    try:
        if args.network:
            report = run_network(game.id, seats, args.rounds, args.seed, progress)
        else:
            report = run_arena(game.id, seats, args.rounds, args.seed, args.jobs,
                               progress=progress, mirror=args.mirror)
    finally:
        progress.close()
    if args.json:
        print(json.dumps(report.to_data(), ensure_ascii=False, indent=1))
    else:
        print(format_report(report))
    return 0
