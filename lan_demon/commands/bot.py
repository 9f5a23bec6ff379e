"""``lan-demon bot``: one bot client at an arbiter, playing until the match ends."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from lan_demon.bots.levels import PLAIN_SPEED, PLAIN_STRATEGY
from lan_demon.commands.errors import UsageError
from lan_demon.commands.lan import only_table, table_key
from lan_demon.commands.options import (add_level, check_browse, check_code, check_key,
                                        check_name, check_speed, lan_join_flags, seed,
                                        speed_names, strategy_help)
from lan_demon.net.settings import CONNECT_TIMEOUT

HELP = "run one bot client against an arbiter"
DESCRIPTION = "Connect one bot to an arbiter and play until the match ends."


def add_arguments(bot: argparse.ArgumentParser) -> None:
    bot.add_argument("address", nargs="?", help="HOST:PORT or tcp://HOST:PORT (default: "
                     "find the one table on the LAN)")
    add_level(bot, None, "the bot's level for the table's game, its name marked with it "
              "(\"Robo L7\")")
    bot.add_argument("--strategy", help=f"the bot's strategy for the table's game, winning "
                     f"over --level's — {strategy_help()} (default: the level's, else "
                     f"{PLAIN_STRATEGY})")
    bot.add_argument("--name", help="the bot's name at the table (default: the strategy, or "
                     "Robo with --level)")
    bot.add_argument("--speed", help=f"the bot's pace (Racing Demon; in Rack-O and Gin "
                     f"Solitaire its pause to think), winning over --level's: {speed_names()} "
                     f"(default: the level's, else {PLAIN_SPEED})")
    bot.add_argument("--seed", type=seed, default=0, help="the bot's own seed")
    bot.add_argument("--timeout", type=float, default=CONNECT_TIMEOUT, help="seconds to wait for "
                     f"the arbiter to answer (default {CONNECT_TIMEOUT:g})")
    lan_join_flags(bot)


def run(args: argparse.Namespace) -> int:
    from lan_demon.bots.levels import Choice
    from lan_demon.bots.runner import run_pool
    from lan_demon.net.connect import normalize_address
    address = normalize_address(args.address) if args.address else None
    if args.speed is not None:
        check_speed(args.speed)
    key, code = check_key(args.key), check_code(args.code, "--code")
    check_browse(args)
    check_name(args.name)
    if address is None:
        table = only_table(args.browse)
        address, key = f"tcp://{table.endpoint}", table_key(table, key)
        if table.code_needed and code is None:
            raise UsageError(f"the table {table.name!r} needs its room code: add --code CODE")
    choice = Choice(args.level, args.strategy, args.speed)
    bot = seat_level_bot(address, choice, bot_label(args), args.seed, args.timeout, key, code)
    if bot is None:
        return 1
    seat = bot.client.seat
    print(f"lan-demon: {bot.client.name} sat down at {address.removeprefix('tcp://')}"
          f"{f' (seat {seat + 1})' if seat is not None else ''}; it plays until the match "
          f"ends (Ctrl-C leaves)", file=sys.stderr, flush=True)  # (stdout: the result)
    try:
        run_pool([bot])
    except KeyboardInterrupt:
        return 130
    finally:
        bot.client.leave()
        bot.client.close()
    gone = bot.client.table.get("gone")
    if gone:  # the host was started again (or kept the seat past its time): nothing to play
        print(f"lan-demon: {bot.client.name}: the table at {address.removeprefix('tcp://')} "
              f"is gone ({gone}); the bot stops", file=sys.stderr)
        return 1
    result = bot.client.table.get("result") or {}
    print(f"{bot.client.name}: match over, winner: {', '.join(result.get('winner', []))}")
    return 0


def bot_label(args: argparse.Namespace) -> str:
    """The bot's name: ``--name``, else its strategy (or "Robo" with a level) — with a level,
    marked with it ("Robo L7"), since a name is what every screen at the table is told."""
    from lan_demon.bots.levels import bot_name
    if args.level is None:
        return args.name or args.strategy or "greedy"
    return bot_name(args.name or "Robo", args.level)


def seat_level_bot(address: str, choice: Any, name: str, seed: int | str, timeout: float,
                   key: str | None, code: str | None) -> Any:
    """Seat the bot; the game is known only then, and with it the level's strategy and pace
    (checked there: an unknown --strategy for the table's game is one line naming the
    choices). None, said in one line, when the table has no seat for it."""
    from lan_demon.bots.registry import make_strategy
    from lan_demon.bots.runner import seat_bot
    from lan_demon.net.connect import ConnectError
    try:
        bot = seat_bot(address, name, lambda client: make_strategy(
            client.game.id, choice.strategy_for(client.game.id)), seed,
            connect_timeout=timeout, server_key=key, code=code, remember=True)
    except ConnectError as err:
        if err.code != "full":
            raise
        print(f"lan-demon: {no_seat(err, name, address)}", file=sys.stderr)
        return None
    bot.set_speed(choice.pace_for(bot.client.game.id))
    return bot


def no_seat(err: Exception, name: str, address: str) -> str:
    """Why a full table seats no bot, and when one can sit down: the arbiter's reason is
    written for a person ("watch it as a spectator (join --spectate)…"), of no use to a bot."""
    from lan_demon.net.seats import TOKEN_LIFE
    why = str(err).split(": ")[1] if ": " in str(err) else str(err)
    return (f"no seat for {name} at {address.removeprefix('tcp://')}: {why}. A bot sits "
            f"down before the match starts, or takes its own seat back when the same "
            f"command runs again within {TOKEN_LIFE / 60:g} minutes of its leaving")
