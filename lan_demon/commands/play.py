"""``lan-demon play``: the main job — an arbiter and bots in this process on 127.0.0.1
(:mod:`lan_demon.commands.local_table`), you seated first, the table opened in the terminal."""

from __future__ import annotations

import argparse
import sys

from lan_demon.bots.levels import DEFAULT_LEVEL as PLAY_LEVEL
from lan_demon.bots.levels import level as level_of
from lan_demon.commands import prompts
from lan_demon.commands.errors import UsageError
from lan_demon.commands.options import (DEFAULT_GAME, add_deals, add_handicap, add_level,
                                        add_looks, check_name, check_speed, default_players,
                                        lag_cap, match_options, pause, pause_value, positive,
                                        seed, speed_names)
from lan_demon.commands.web_page import add_web, web_choice
from lan_demon.games import GAME_IDS, get_game
from lan_demon.net.score_sheet import ScoreSheet
from lan_demon.net.settings import LAG_CAP_MS, MAX_LAG_CAP_MS, PAUSE

HELP = "sit at a table with bots (the main job)"
DESCRIPTION = ("Start an arbiter on 127.0.0.1 in this process, seat bots and you, and open "
               "the table in the terminal. You are the host: Enter starts the match.")
PLAY_SPEED = level_of(PLAY_LEVEL).pace.name  # a pace a person new to the game can race


def add_arguments(play: argparse.ArgumentParser) -> None:
    play.add_argument("--game", default=DEFAULT_GAME, help=f"one of: {', '.join(GAME_IDS)}")
    play.add_argument("--bots", type=int, help="bots at the table (default: "
                      f"{default_players(DEFAULT_GAME) - 1}, none for gin-solitaire)")
    play.add_argument("--name", help="your name at the table (default: your login name)")
    play.add_argument("--seed", type=seed, help="deal from this seed: reproducible, so "
                      "not secret (default: secret deals)")
    play.add_argument("--rounds", type=positive, help="rounds in the match")
    add_level(play, PLAY_LEVEL, "the bots' level")
    play.add_argument("--strategy", help="the bots' strategy, winning over the level's (default: "
                      f"the level's; level {PLAY_LEVEL} plays the strongest in Racing Demon)")
    play.add_argument("--speed", help=f"the bots' speed, winning over the level's: "
                      f"{speed_names()} (default: the level's; level {PLAY_LEVEL} is "
                      f"{PLAY_SPEED}: a card every ~3 s, a pace a person new to it can race; "
                      f"club is a seasoned player)")
    play.add_argument("--pause", type=pause, help=f"longest pause between rounds, in "
                      f"seconds, or 'none' to wait until everybody is ready (default "
                      f"{PAUSE:g})")
    play.add_argument("--no-bell", action="store_true", help="no terminal bell (when someone "
                      "goes out)")
    add_handicap(play)
    add_deals(play)
    play.add_argument("--lag-cap", dest="lag_cap_ms", type=lag_cap, help="RD-11: the most "
                      "milliseconds a move's claimed time may precede its arrival, measured "
                      f"delay included, 0 to {MAX_LAG_CAP_MS:g} (default {LAG_CAP_MS:g})")
    add_web(play)
    add_looks(play)


def run(args: argparse.Namespace) -> int:
    from lan_demon.coach import coach_for
    from lan_demon.bots import make_strategy
    from lan_demon.commands import local_table
    from lan_demon.commands.web_page import start_web
    from lan_demon.net.client import Client
    from lan_demon.seat.palette import palette_for
    from lan_demon.tui import app
    from lan_demon.tui.plain import PlainTable
    from lan_demon.tui.plain import run as run_plain
    game = get_game(args.game)
    bots = args.bots if args.bots is not None else default_players(game.id) - 1  # and you
    if bots < 0:
        raise UsageError(f"--bots must be 0 or more, not {bots}")
    game.check_players(bots + 1)
    if args.speed is not None:
        check_speed(args.speed)
    if args.rounds is not None:
        game.check_rounds(args.rounds)
    if args.strategy is not None:
        make_strategy(game.id, args.strategy)  # an unknown name: one line naming the choices
    level = PLAY_LEVEL if args.level is None else args.level
    check_name(args.name)
    if args.name is None:
        from lan_demon.commands.join import own_name
        args.name = own_name()
    web = web_choice(args)
    options = match_options(game.id, args.handicap, args.deals)
    looks = palette_for(args.palette)
    if not args.plain:  # (the line-mode table reads lines: a pipe will do)
        prompts.need_terminal()
    lag_cap_ms = LAG_CAP_MS if args.lag_cap_ms is None else args.lag_cap_ms
    table = local_table.start_local_table(game.id, args.seed, args.rounds, args.speed,
                                          strategy=args.strategy, level=level,
                                          pause=pause_value(args.pause),
                                          lag_cap_ms=lag_cap_ms, options=options)
    page = None
    try:
        if not web.off:
            page = start_web(table.server, game.id, None, None, web, sys.stdout)
            table.page_url = page.url if page is not None else None  # (the lobby shows it)
        client = Client(table.address, name=args.name).connect()
        table.add_bots(bots)
        levels = local_table.LEVEL_LABELS if bots else []  # no bots: nothing for v to set
        if args.plain:
            run_plain(PlainTable(client, sys.stdout, coach=coach_for(game.id), local=table))
        else:
            ctl = app.table_for(client, host=True, bell=not args.no_bell, local=table,
                                speeds=levels, coach=coach_for(game.id), big=args.big)
            app.build_app(ctl, looks).run()
        client.leave()
        client.close()
        said = last_word(client.table, client.scores)
    finally:
        if page is not None:
            page.stop()
        table.close()
    print(said)
    return 0


def last_word(table: dict, scores: ScoreSheet) -> str:
    """What the terminal keeps once the screen is gone (``join`` and ``host`` print the same
    table): the final scores, which would otherwise go with the screen, or where the match
    stopped and the totals then — this table lived in this terminal, so it ends with it."""
    from lan_demon.commands.results import format_table
    if table.get("phase") == "over" and table.get("result"):
        return f"The match is over.\n{format_table(table['result'])}"
    done = scores.played
    if table.get("phase", "lobby") == "lobby":
        return "You left the table before the match began."
    when = f"during round {done + 1}" if table.get("phase") in ("countdown", "playing") else \
        f"after {done} round{'' if done == 1 else 's'}"  # (not "after 0 rounds" in round 1)
    said = f"You left the table {when}; the match ended there."
    seats, totals = table.get("seats") or [], scores.totals()
    if done and totals and len(totals) == len(seats):  # the standings, which went with the screen
        from lan_demon.tui.facts import shown
        said += " Totals: " + ", ".join(f"{shown(s)} {t}" for s, t in zip(seats, totals)) + "."
    return said
