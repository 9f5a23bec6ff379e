"""``lan-demon simulate``: a whole match headless with bots, its scores printed."""

from __future__ import annotations

import argparse
import json

from lan_demon.bots.levels import PLAIN_SPEED, PLAIN_STRATEGY
from lan_demon.commands.options import (DEFAULT_GAME, add_deals, add_handicap, default_players,
                                        default_players_words, match_options, positive, seed,
                                        speed_names)
from lan_demon.commands.results import format_table
from lan_demon.games import GAME_IDS, get_game

HELP = "play a whole match headless with bots"
DESCRIPTION = "Play a whole match headless with bots and print the round scores and totals."


def add_arguments(sim: argparse.ArgumentParser) -> None:
    sim.add_argument("--game", required=True, help=f"one of: {', '.join(GAME_IDS)}")
    sim.add_argument("--players", type=positive, help="seats at the table (default: "
                     f"{default_players_words()})")
    sim.add_argument("--rounds", type=positive, help="rounds to play (default: Racing Demon "
                     f"{get_game(DEFAULT_GAME).default_rounds()}; Rack-O and Gin Solitaire play "
                     "to 500 / 100)")
    sim.add_argument("--seed", type=seed, default=0, help="the match seed (default 0)")
    sim.add_argument("--strategy", default=PLAIN_STRATEGY, help="bot strategy for every seat, "
                     f"or a comma-separated list, one per seat (default: {PLAIN_STRATEGY})")
    sim.add_argument("--speed", default=PLAIN_SPEED, help=f"Racing Demon speed profile: "
                     f"{speed_names()} (default: {PLAIN_SPEED})")
    add_handicap(sim)
    add_deals(sim)
    sim.add_argument("--json", action="store_true", help="print one JSON document instead")


def run(args: argparse.Namespace) -> int:
    from lan_demon.bots.simulator import simulate
    get_game(args.game)
    players = args.players or default_players(args.game)
    strategy = args.strategy.split(",") if "," in args.strategy else args.strategy
    options = match_options(args.game, args.handicap, args.deals)
    sim = simulate(args.game, players, args.seed, args.rounds, strategy, args.speed, options)
    result = sim.match.result_data()
    if args.json:
        print(json.dumps(result, ensure_ascii=False, indent=1))
    else:
        print(format_table(result))
    return 0
