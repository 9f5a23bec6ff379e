"""``lan-demon deal``: a seeded round dealt, moves applied, one seat's view and legal moves."""

from __future__ import annotations

import argparse
import json
from typing import Any

from lan_demon.commands.errors import UsageError
from lan_demon.commands.options import default_players, default_players_words, positive, seed
from lan_demon.games import GAME_IDS, GameError, get_game

HELP = "deal a round, apply moves, and show a seat's view"
DESCRIPTION = ("Deal a seeded round, apply moves in order, then print what one seat sees and "
               "its legal moves. Handy for bot authors.")


def add_arguments(deal: argparse.ArgumentParser) -> None:
    deal.add_argument("--game", required=True, help=f"one of: {', '.join(GAME_IDS)}")
    deal.add_argument("--players", type=positive,
                      help=f"seats (default: {default_players_words()})")
    deal.add_argument("--seed", type=seed, default=0)
    deal.add_argument("--seat", type=int, default=0, help="whose view to show (default 0)")
    deal.add_argument("--moves", default="", help="moves separated by ';', each optionally "
                      "prefixed by its seat, e.g. '0: pile middle; 1: turn'; without one, a "
                      "move is the seat's whose turn it is (Rack-O), else --seat's")


def run(args: argparse.Namespace) -> int:
    from lan_demon.games import Match
    game = get_game(args.game)
    players = args.players or default_players(args.game)
    match = Match(game, [f"seat-{i}" for i in range(players)], args.seed)
    state = match.deal()
    if not 0 <= args.seat < players:
        raise UsageError(f"--seat must be 0 to {players - 1}, not {args.seat}")
    for k, text in enumerate(filter(None, (t.strip() for t in args.moves.split(";"))), 1):
        seat, move_text = _split_seat(text, game, state, args.seat)
        try:
            game.apply(state, seat, game.parse_move(move_text))
        except GameError as err:  # which of the moves, and by which seat (a bot author asked)
            raise UsageError(f"move {k}, {move_text!r} by seat {seat}: {err}") from None
    print(json.dumps({"view": game.view(state, args.seat),
                      "legal": [str(m) for m in game.legal_moves(state, args.seat)]},
                     ensure_ascii=False, indent=1))
    return 0


def _split_seat(text: str, game: Any, state: Any, default: int) -> tuple[int, str]:
    head, sep, rest = text.partition(":")
    if sep and head.strip().isdigit():
        return int(head), rest.strip()
    movers = game.to_move(state)
    return (movers[0] if len(movers) == 1 else default), text
