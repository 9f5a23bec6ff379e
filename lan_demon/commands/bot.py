"""``lan-demon bot``: one bot client at an arbiter, playing until the match ends."""

from __future__ import annotations

import argparse

from lan_demon.commands.errors import UsageError
from lan_demon.commands.lan import only_table, table_key
from lan_demon.commands.options import (check_browse, check_code, check_key, check_speed,
                                        lan_join_flags, seed, speed_names, strategy_help)

HELP = "run one bot client against an arbiter"
DESCRIPTION = "Connect one bot to an arbiter and play until the match ends."


def add_arguments(bot: argparse.ArgumentParser) -> None:
    bot.add_argument("address", nargs="?", help="HOST:PORT or tcp://HOST:PORT (default: "
                     "find the one table on the LAN)")
    bot.add_argument("--strategy", default="greedy", help=f"the bot's strategy for the "
                     f"table's game — {strategy_help()} (default greedy)")
    bot.add_argument("--name", help="the bot's name at the table (default: the strategy)")
    bot.add_argument("--speed", default="club", help=f"Racing Demon pace: {speed_names()} "
                     f"(default club)")
    bot.add_argument("--seed", type=seed, default=0, help="the bot's own seed")
    bot.add_argument("--timeout", type=float, default=5.0, help="seconds to wait for the "
                     "arbiter to answer")
    lan_join_flags(bot)


def run(args: argparse.Namespace) -> int:
    from lan_demon.bots.runner import make_bot, run_pool
    from lan_demon.net.connect import normalize_address
    address = normalize_address(args.address) if args.address else None
    check_speed(args.speed)
    key, code = check_key(args.key), check_code(args.code, "--code")
    check_browse(args)
    if address is None:
        table = only_table(args.browse)
        address, key = f"tcp://{table.endpoint}", table_key(table, key)
        if table.code_needed and code is None:
            raise UsageError(f"the table {table.name!r} needs its room code: add --code CODE")
    bot = make_bot(address, args.strategy, args.name or args.strategy, args.seed, args.speed,
                   connect_timeout=args.timeout, server_key=key, code=code, remember=True)
    try:
        run_pool([bot])
    except KeyboardInterrupt:
        return 130
    finally:
        bot.client.leave()
        bot.client.close()
    result = bot.client.table.get("result") or {}
    print(f"{bot.client.name}: match over, winner: {', '.join(result.get('winner', []))}")
    return 0
