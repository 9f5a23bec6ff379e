"""``lan-demon host``: an arbiter, the table everyone connects to (``--resume``: a crashed
host's match taken up again, :mod:`lan_demon.commands.resume`)."""

from __future__ import annotations

import argparse
import secrets
import sys
from typing import Any

from lan_demon.commands.errors import UsageError
from lan_demon.commands.host_log import HostLog
from lan_demon.commands.host_secrets import host_keys, keep_secrets
from lan_demon.bots.levels import DEFAULT_LEVEL
from lan_demon.commands.options import (DEFAULT_GAME, MIN_RATE_LIMIT, add_deals, add_handicap,
                                        add_level, check_code, flag_values, lag_cap,
                                        match_options, pause, positive, rate_limit, seed)
from lan_demon.commands.resume import resume_host
from lan_demon.commands.serve import Announcement, serve_table
from lan_demon.commands.web_page import add_web, web_choice
from lan_demon.games import GAME_IDS, get_game
from lan_demon.net.connect import DEFAULT_PORT
from lan_demon.net.journals import KEEP_FINISHED
from lan_demon.net.security import CODE_LENGTH
from lan_demon.net.settings import (COUNTDOWN, FAIRNESS_MS, LAG_CAP_MS, MAX_FAIRNESS_MS,
                                    MAX_LAG_CAP_MS, PAUSE, RATE_BURST, RATE_LIMIT, TURN_TIMEOUT)

HELP = "run an arbiter: the table everyone connects to"
DESCRIPTION = ("Run an arbiter. It binds to 127.0.0.1 only and announces nothing, unless "
               "--lan: then it binds every interface, announces the table on the LAN (mDNS), "
               "asks a room code and encrypts (CURVE) — see docs/hosting.md. With --players N "
               "the match starts by itself when N seats are filled; at the match end it prints "
               "the result and exits 0. Every match is journaled (in the state folder, or "
               "--journal PATH; --no-journal: not at all), so that a host stopped or crashed "
               "mid-match can take it up again, on the same port: --resume alone takes up "
               "the latest unfinished one, --resume JOURNAL a given one.")


def add_arguments(host: argparse.ArgumentParser) -> None:
    host.add_argument("--game", help=f"one of: {', '.join(GAME_IDS)} (default "
                      f"{DEFAULT_GAME})")
    host.add_argument("--port", type=int, help=f"ROUTER port (default {DEFAULT_PORT}, or the "
                      "journal's with --resume; the PUB port is chosen freely and told to "
                      "clients; 0: any free port)")
    host.add_argument("--players", type=positive, help="start when this many seats are "
                      "filled and ready")
    host.add_argument("--rounds", type=positive, help="rounds in the match (default: "
                      f"{get_game(DEFAULT_GAME).default_rounds()} in Racing Demon; Rack-O and "
                      "Gin Solitaire play to their target score)")
    host.add_argument("--bots", type=positive, metavar="N", help="seat this many bots of "
                      "this process, named with their level (\"Ada L2\"), before "
                      "anyone joins (default: none)")
    add_level(host, DEFAULT_LEVEL, "the level of the --bots")
    host.add_argument("--seed", type=seed, help="deal from this seed: reproducible, so "
                      "not secret (default: secret deals, committed and revealed)")
    host.add_argument("--journal", metavar="PATH", help="journal the match to this file "
                      "(default: a new file in $XDG_STATE_HOME/lan_demon/journals/, named "
                      "after the table and the time, its path printed at the start; the "
                      f"newest {KEEP_FINISHED} finished ones there are kept)")
    host.add_argument("--no-journal", action="store_true", help="do not journal the match: "
                      "a host stopped mid-match cannot take it up again")
    host.add_argument("--fairness-ms", type=float, help="RD-11 fairness window "
                      f"for contested plays, 0 to {MAX_FAIRNESS_MS:g} (0: pure arrival order; "
                      f"default {FAIRNESS_MS:g})")
    host.add_argument("--lag-cap", dest="lag_cap_ms", type=lag_cap, help="RD-11: the most "
                      "milliseconds a move's claimed time may precede its arrival, measured "
                      f"delay included, 0 to {MAX_LAG_CAP_MS:g} (default {LAG_CAP_MS:g}: "
                      "a home LAN's one-way delay is a few ms; a liar gains at most this)")
    add_handicap(host)
    add_deals(host)
    host.add_argument("--countdown", type=float,
                      help=f"seconds from start to Go (default {COUNTDOWN:g})")
    host.add_argument("--pause", type=pause, help=f"longest pause between rounds, in "
                      f"seconds, or 'none' to wait until every person is ready (default "
                      f"{PAUSE:g})")
    host.add_argument("--turn-timeout", type=float, help="Rack-O and Gin "
                      "Solitaire: seconds before an absent player's turn is played for them "
                      f"(default {TURN_TIMEOUT:g})")
    host.add_argument("--rate-limit", type=rate_limit, metavar="N", help="messages a second "
                      "one connection may send, in bursts of up to twice that; beyond it they "
                      "are dropped (0: no limit, for benchmarks; else at least "
                      f"{MIN_RATE_LIMIT:g}; default "
                      f"{RATE_LIMIT:g}, bursts of {RATE_BURST:g})")
    host.add_argument("--resume", metavar="JOURNAL", nargs="?", const=True, help="take up "
                      "the match of a stopped or crashed host from its journal (game, seed, "
                      "seats and settings come from it, the room code, keys and LAN name from "
                      "JOURNAL.secret beside it; it goes on appending to it). Without JOURNAL: "
                      "the latest unfinished match of the state folder's journals, said which")
    host.add_argument("--json", action="store_true", help="print the result as the JSON "
                      "document of simulate --json")
    host.add_argument("--lan", action="store_true", help="play over the home LAN: bind every "
                      "interface, announce the table with mDNS, need a room code, encrypt")
    host.add_argument("--secure", action=argparse.BooleanOptionalAction, default=None,
                      help="encrypt with ZeroMQ CURVE and bind seats to connection keys "
                      "(default: on with --lan, off on loopback)")
    host.add_argument("--code", help="the room code a seat needs (default: a fresh "
                      f"{CODE_LENGTH}-letter code with --lan, none on loopback)")
    host.add_argument("--name", dest="table_name", help="the table's name on the LAN "
                      "(default: GAME on HOSTNAME)")
    add_web(host)


def run(args: argparse.Namespace) -> int:
    from lan_demon.net.server import LOOPBACK, ArbiterServer
    from lan_demon.net.settings import Settings
    if args.port is not None and not 0 <= args.port < 65536:
        raise UsageError(f"--port must be 0 to 65535, not {args.port}")
    web = web_choice(args)
    if args.level is not None and args.bots is None:
        raise UsageError("--level sets the host's own bots; it goes with --bots N")
    if args.resume is not None:
        if args.bots is not None:
            raise UsageError("--bots goes with a fresh table: a resumed match's seats come "
                             "from its journal; leave --bots out")
        if args.no_journal:
            raise UsageError("--no-journal conflicts with --resume: a resumed host appends to "
                             "the journal it resumes; leave --no-journal out")
        return resume_host(args, web)
    if args.no_journal and args.journal is not None:
        raise UsageError("--journal and --no-journal say opposite things: give one of them")
    secure = args.lan if args.secure is None else args.secure
    code = check_code(args.code, "--code")
    if code is not None and len(code) < CODE_LENGTH:  # as long as a code the host makes
        raise UsageError(f"--code needs at least {CODE_LENGTH} letters or digits, not "
                         f"{len(code)}: a shorter code can be guessed in an evening "
                         f"(docs/hosting.md); with --lan and no --code one is made for you")
    if args.table_name is not None and not args.lan:
        raise UsageError("--name names the table on the LAN; it goes with --lan")
    args.game = args.game or DEFAULT_GAME
    args.port = DEFAULT_PORT if args.port is None else args.port
    game = get_game(args.game)
    seats = args.players or game.max_players
    if args.bots is not None and args.bots > seats:
        raise UsageError(f"--bots {args.bots} is more than the table's {seats} seats")
    options = match_options(args.game, args.handicap, args.deals)
    if args.lan and code is None:
        from lan_demon.net.security import new_code
        code = new_code()
    brake = {} if args.rate_limit is None else \
        {"rate_limit": args.rate_limit, "rate_burst": 2 * args.rate_limit}
    # No --seed: secret deals, committed to and revealed (PROTOCOL.md §22). A value the game
    # refuses (RG-7's rounds, say) is refused here, before anything binds.
    settings = Settings(**flag_values(args), options=options, **brake)
    keys = host_keys() if secure else None
    name = _table_name(args.table_name, args.game) if args.lan else None
    info = sys.stderr if args.json else sys.stdout
    held, why_not = (None, "--no-journal") if args.no_journal else \
        journal_for(args.journal, name or args.game)
    journal = str(held.path) if held is not None else None
    kept = None
    lan = Announcement()
    try:
        kept = keep_secrets(journal, code, keys, name, args.lan)
        server = ArbiterServer(settings, host="0.0.0.0" if args.lan else LOOPBACK,
                               port=args.port, journal=journal, keys=keys, code=code,
                               on_seats=lan.seats,
                               watch=HostLog(sys.stderr if args.json else sys.stdout))
    except BaseException:
        if kept is not None:  # no table, no journal record: its secrets go too
            kept.unlink(missing_ok=True)
        if held is not None:  # and a journal made for it
            held.discard()
        raise
    seated = "" if not args.players else f", starting when {args.players} " + \
        ("player is seated" if args.players == 1 else "players are seated")
    print(f"lan-demon: hosting {args.game} at {server.address[len('tcp://'):]} "
          f"(updates on port {server.pub_port}){seated}", file=info, flush=True)
    try:
        bots = host_bots(args, server, keys, code)
        if args.bots is not None:
            print(f"lan-demon: seating {args.bots} bot{'s' if args.bots > 1 else ''} at level "
                  f"{bots.choice.level}: {bots.choice.describe(args.game)}", file=info,
                  flush=True)
        try:
            return serve_table(server, lan, name, args.game, keys, code, info, args.json,
                               why_not, web)
        finally:
            bots.close()
    finally:
        if held is not None:
            held.release()


def journal_for(given: str | None, table: str) -> tuple[Any, str | None]:
    """The journal a fresh host writes, locked for it (:mod:`lan_demon.net.journals`): the
    ``--journal`` file, or a new one in the state folder after pruning the folder's old
    finished ones; and, with none, why not. A state folder that cannot be written is not a
    reason to refuse a table: it serves unjournaled, and says so (the Ctrl-C line then says
    the match cannot be resumed)."""
    from lan_demon.net import journals
    from lan_demon.net.journal import JournalError
    if given is not None:
        return journals.hold(given, create=True), None
    try:
        journals.prune()
        return journals.new_journal(table), None
    except (JournalError, OSError) as err:
        return None, f"{err} (--journal PATH chooses another place)"


def host_bots(args: argparse.Namespace, server: Any, keys: Any, code: str | None) -> Any:
    """The bots of this process at this table: ``--bots N`` at ``--level`` (default 2),
    seated through loopback like any client (with the room code and the key of a secure
    table) and run in a thread until the match ends, their names saying their level to every
    screen; and, with or without ``--bots``, a bot for each seat the host or the captain hands
    over (PROTOCOL.md §24), at the level they pick."""
    level = DEFAULT_LEVEL if args.level is None else args.level
    seed = args.seed if args.seed is not None else secrets.token_hex(8)
    from lan_demon.commands.local_table import table_bots
    bots = table_bots(server, f"host:{seed}", keys, code, level)
    if args.bots is not None:
        bots.add(args.bots, timeout=0)  # they sit down once serve() answers them
    return bots


def _table_name(given: str | None, game: str) -> str:
    import socket
    return given or f"{game} on {socket.gethostname()}"
