"""The ``lan-demon`` command: thin wiring from arguments to the library.

Every mistake a user can make — a wrong flag, an unknown game, a bad card code, a move that does
not parse — ends in one line on stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, NoReturn

from lan_demon import __version__
from lan_demon.games import GAME_IDS, GameError, get_game

EXIT_USAGE = 2
EXIT_PIPE = 141  # 128 + SIGPIPE: what a shell says when the reader of a pipe left early
PLAY_SPEED = "newcomer"  # play's bots: a pace a person new to the game can race (issue 10)


class UsageError(Exception):
    """A mistake on the command line; its text is the one line the user sees."""


class LanError(Exception):
    """The LAN could not do what was asked (no table answered, multicast refused): one line,
    exit 1 — not the user's mistake, so not exit 2."""


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line naming the fix, not a usage block."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see '{self.prog} --help')")


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, not {value}")
    return value


def _seed(text: str) -> int | str:
    return int(text) if text.lstrip("-").isdigit() else text


#: ``--pause none``: no limit between rounds — the next one waits until every person is ready.
NO_LIMIT = "none"
DEFAULT_PAUSE = 60.0  # seconds: long enough to read the scores, short enough to go on alone


def _pause(text: str) -> float | str:
    """``--pause``: seconds (0 or more) or ``none``; ``none`` stays a word until
    :func:`_pause_value`, so that "not given" (None) and "no limit" are told apart."""
    if text.strip().lower() == NO_LIMIT:
        return NO_LIMIT
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds or 'none': {text!r}") \
            from None
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be 0 seconds or more (or 'none'), not {text}")
    return value


#: ``--lag-cap``: the most RD-11 credits a move's claimed time, ms (arbiter.LAG_CAP_MS, MAX_ONE_WAY)
DEFAULT_LAG_CAP_MS = 10.0
MAX_LAG_CAP_MS = 100.0


def _lag_cap(text: str) -> float:
    """``--lag-cap MS``: 0 to 100 milliseconds (PROTOCOL.md §8)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of milliseconds: {text!r}") from None
    if not 0 <= value <= MAX_LAG_CAP_MS:
        raise argparse.ArgumentTypeError(f"RD-11: the lag cap is 0 to {MAX_LAG_CAP_MS:g} ms, "
                                         f"not {text}")
    return value


def _add_handicap(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--handicap", action=argparse.BooleanOptionalAction, default=None,
                        help="Racing Demon: RD-15 handicapping (default: on in racing-demon, "
                        "off in racing-demon-german, RG-2)")


def _match_options(game_id: str, handicap: bool | None) -> dict[str, Any]:
    """The game options a command line sets: only ``handicap`` (RD-15, RG-2) so far."""
    if handicap is None:
        return {}
    if "handicap" not in get_game(game_id).default_options():
        flag = "--handicap" if handicap else "--no-handicap"
        raise UsageError(f"{flag} is a Racing Demon option (RD-15, RG-2), not one of {game_id}")
    return {"handicap": handicap}


def _pause_value(given: float | str | None, default: float | None = DEFAULT_PAUSE) \
        -> float | None:
    """What Config and start_local_table take: seconds, or None for no limit."""
    if given is None:
        return default
    return None if given == NO_LIMIT else float(given)


def _pause_words(pause: float | None) -> str:
    return "no limit" if pause is None else f"{pause:g} s"


def _speed_names() -> str:
    from lan_demon.bots.speed import PROFILES
    return ", ".join(PROFILES)


def _strategy_help() -> str:
    """Every game's strategies as lan_demon.bots has them, the strongest named as such."""
    from lan_demon.bots import strategy_names, strongest
    parts = []
    for game in GAME_IDS:
        names = strategy_names(game)
        best = strongest(game)
        parts.append(f"{game}: " + ", ".join(f"{n} (strongest)" if n == best else n
                                             for n in names))
    return "; ".join(parts)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="lan-demon", description="A card table for a home network: Racing "
                     "Demon, its German variant, Rack-O and Gin Solitaire.")
    parser.add_argument("--version", action="version", version=f"lan-demon {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    sim = sub.add_parser("simulate", help="play a whole match headless with bots",
                         description="Play a whole match headless with bots and print the "
                         "round scores and totals.")
    sim.add_argument("--game", required=True, help=f"one of: {', '.join(GAME_IDS)}")
    sim.add_argument("--players", type=_positive, help="seats at the table (default: 4, or 1 "
                     "for gin-solitaire)")
    sim.add_argument("--rounds", type=_positive, help="rounds to play (default: Racing Demon "
                     "5; Rack-O and Gin Solitaire play to 500 / 100)")
    sim.add_argument("--seed", type=_seed, default=0, help="the match seed (default 0)")
    sim.add_argument("--strategy", default="greedy", help="bot strategy for every seat, or a "
                     "comma-separated list, one per seat (default: greedy)")
    sim.add_argument("--speed", default="club", help=f"Racing Demon speed profile: "
                     f"{_speed_names()} (default: club)")
    _add_handicap(sim)
    sim.add_argument("--json", action="store_true", help="print one JSON document instead")

    arena = sub.add_parser("arena", help="strategies against each other over many rounds",
                           description="Play K rounds headless with one strategy per seat "
                           "(seats rotated each round) and report per strategy: win rate with "
                           "a 95% interval, mean score, and for Racing Demon mean Pile left "
                           "and cards stacked.")
    arena.add_argument("--game", required=True, help=f"one of: {', '.join(GAME_IDS)}")
    arena.add_argument("--seats", required=True, help="one strategy per seat, comma-separated, "
                       "e.g. greedy,greedy,random")
    arena.add_argument("--rounds", type=_positive, required=True, help="rounds to play")
    arena.add_argument("--seed", type=_seed, default=0, help="the arena seed (default 0)")
    arena.add_argument("--jobs", type=_positive, help="worker processes (default: one per CPU)")
    arena.add_argument("--network", action="store_true", help="play through a real arbiter "
                       "on 127.0.0.1 and bot clients instead of the engine alone")
    arena.add_argument("--json", action="store_true", help="print one JSON document instead")

    deal = sub.add_parser("deal", help="deal a round, apply moves, and show a seat's view",
                          description="Deal a seeded round, apply moves in order, then print "
                          "what one seat sees and its legal moves. Handy for bot authors.")
    deal.add_argument("--game", required=True, help=f"one of: {', '.join(GAME_IDS)}")
    deal.add_argument("--players", type=_positive, help="seats (default: 4, or 1 for "
                      "gin-solitaire)")
    deal.add_argument("--seed", type=_seed, default=0)
    deal.add_argument("--seat", type=int, default=0, help="whose view to show (default 0)")
    deal.add_argument("--moves", default="", help="moves separated by ';', each optionally "
                      "prefixed by its seat, e.g. '0: pile middle; 1: turn'")

    play = sub.add_parser("play", help="sit at a table with bots (the main job)",
                          description="Start an arbiter on 127.0.0.1 in this process, seat "
                          "bots and you, and open the table in the terminal. You are the "
                          "host: Enter starts the match.")
    play.add_argument("--game", default="racing-demon", help=f"one of: {', '.join(GAME_IDS)}")
    play.add_argument("--bots", type=int, help="bots at the table (default: 3, none for "
                      "gin-solitaire)")
    play.add_argument("--name", default="you", help="your name at the table")
    play.add_argument("--seed", type=_seed, help="deal from this seed: reproducible, so "
                      "not secret (default: secret deals)")
    play.add_argument("--rounds", type=_positive, help="rounds in the match")
    play.add_argument("--strategy", help="the bots' strategy (default: the strongest for the "
                      "game: demon, planner, solver)")
    play.add_argument("--speed", default=PLAY_SPEED, help=f"the bots' speed: "
                      f"{_speed_names()} (default {PLAY_SPEED}: a card every ~3 s, a pace a "
                      f"newcomer can race; club is a seasoned player)")
    play.add_argument("--pause", type=_pause, help=f"longest pause between rounds, in "
                      f"seconds, or 'none' to wait until everybody is ready (default "
                      f"{DEFAULT_PAUSE:g})")
    play.add_argument("--no-bell", action="store_true", help="no terminal bell (when someone "
                      "goes out)")
    _add_handicap(play)
    play.add_argument("--lag-cap", dest="lag_cap_ms", type=_lag_cap, help="RD-11: the most "
                      "milliseconds a move's claimed time may precede its arrival, measured "
                      f"delay included, 0 to {MAX_LAG_CAP_MS:g} (default {DEFAULT_LAG_CAP_MS:g})")

    join = sub.add_parser("join", help="sit at a table hosted elsewhere",
                          description="Connect to an arbiter and open the table. Without an "
                          "address, ask the LAN (mDNS, multicast) for tables started with "
                          "'host --lan', list them and join the one you choose.")
    join.add_argument("address", nargs="?", help="HOST:PORT or tcp://HOST:PORT (default: "
                      "find the tables on the LAN and choose)")
    join.add_argument("--name", default="you", help="your name at the table")
    join.add_argument("--spectate", action="store_true", help="watch instead of playing")
    join.add_argument("--tries", type=_positive, default=3, help="connection attempts before "
                      "giving up (default 3)")
    join.add_argument("--no-bell", action="store_true", help="no terminal bell (when someone "
                      "goes out)")
    _lan_join_flags(join)

    host = sub.add_parser("host", help="run an arbiter: the table everyone connects to",
                          description="Run an arbiter. It binds to 127.0.0.1 only and "
                          "announces nothing, unless --lan: then it binds every interface, "
                          "announces the table on the LAN (mDNS), asks a room code and "
                          "encrypts (CURVE) — see docs/hosting.md. With --players N the match "
                          "starts by itself when N seats are filled; at the match end it "
                          "prints the result and exits 0. With --resume JOURNAL it takes up "
                          "the match of a crashed host again, on the same port.")
    host.add_argument("--game", help=f"one of: {', '.join(GAME_IDS)} (default racing-demon)")
    host.add_argument("--port", type=int, help="ROUTER port (default 7700, or the journal's "
                      "with --resume; the PUB port is chosen freely and told to clients; 0: "
                      "any free port)")
    host.add_argument("--players", type=_positive, help="start when this many seats are "
                      "filled and ready")
    host.add_argument("--rounds", type=_positive, help="rounds in the match")
    host.add_argument("--seed", type=_seed, help="deal from this seed: reproducible, so "
                      "not secret (default: secret deals, committed and revealed)")
    host.add_argument("--journal", help="append every canonical event to this file")
    host.add_argument("--fairness-ms", type=float, help="RD-11 fairness window "
                      "for contested plays, 0 to 250 (0: pure arrival order; default 30)")
    host.add_argument("--lag-cap", dest="lag_cap_ms", type=_lag_cap, help="RD-11: the most "
                      "milliseconds a move's claimed time may precede its arrival, measured "
                      f"delay included, 0 to {MAX_LAG_CAP_MS:g} (default {DEFAULT_LAG_CAP_MS:g}: "
                      "a home LAN's one-way delay is a few ms; a liar gains at most this)")
    _add_handicap(host)
    host.add_argument("--countdown", type=float, help="seconds from start to Go (default 3)")
    host.add_argument("--pause", type=_pause, help=f"longest pause between rounds, in "
                      f"seconds, or 'none' to wait until every person is ready (default "
                      f"{DEFAULT_PAUSE:g})")
    host.add_argument("--turn-timeout", type=float, help="Rack-O and Gin "
                      "Solitaire: seconds before an absent player's turn is played for them "
                      "(default 30)")
    host.add_argument("--resume", metavar="JOURNAL", help="take up the match of a crashed "
                      "host from its journal (game, seed, seats and settings come from it, "
                      "the room code, keys and LAN name from JOURNAL.secret beside it; it "
                      "goes on appending to it)")
    host.add_argument("--json", action="store_true", help="print the result as the JSON "
                      "document of simulate --json")
    host.add_argument("--lan", action="store_true", help="play over the home LAN: bind every "
                      "interface, announce the table with mDNS, need a room code, encrypt")
    host.add_argument("--secure", action=argparse.BooleanOptionalAction, default=None,
                      help="encrypt with ZeroMQ CURVE and bind seats to connection keys "
                      "(default: on with --lan, off on loopback)")
    host.add_argument("--code", help="the room code a seat needs (default: a fresh 8-letter "
                      "code with --lan, none on loopback)")
    host.add_argument("--name", dest="table_name", help="the table's name on the LAN "
                      "(default: GAME on HOSTNAME)")

    bot = sub.add_parser("bot", help="run one bot client against an arbiter",
                         description="Connect one bot to an arbiter and play until the match "
                         "ends.")
    bot.add_argument("address", nargs="?", help="HOST:PORT or tcp://HOST:PORT (default: "
                     "find the one table on the LAN)")
    bot.add_argument("--strategy", default="greedy", help=f"the bot's strategy for the "
                     f"table's game — {_strategy_help()} (default greedy)")
    bot.add_argument("--name", help="the bot's name at the table (default: the strategy)")
    bot.add_argument("--speed", default="club", help=f"Racing Demon pace: {_speed_names()} "
                     f"(default club)")
    bot.add_argument("--seed", type=_seed, default=0, help="the bot's own seed")
    bot.add_argument("--timeout", type=float, default=5.0, help="seconds to wait for the "
                     "arbiter to answer")
    _lan_join_flags(bot)

    ver = sub.add_parser("verify", help="audit a match journal: chain, deals, moves, scores",
                         description="Check a journal from its records and the spec alone: "
                                     "the chain of records, every deal against its "
                                     "commitments, every move and refusal with the engine, "
                                     "every score, the clock. Prints one line: OK with the "
                                     "counts (exit 0), or the first problem and where (exit "
                                     "1); a file that cannot be read exits 2.")
    ver.add_argument("journal", help="a journal written by 'lan-demon host --journal'")
    rep = sub.add_parser("replay", help="replay a match journal round by round",
                         description="Deal every round again from the journal's seed, apply "
                         "its moves, and print the match round by round.")
    rep.add_argument("journal", help="a journal written by 'lan-demon host --journal'")
    rep.add_argument("--json", action="store_true", help="print the JSON result document")

    dw = sub.add_parser("deadwood", help="Gin Solitaire: the best melds of a hand",
                        description="Print the best melds and the least deadwood of 10 or 11 "
                        "cards (GS-5).")
    dw.add_argument("cards", nargs="+", help="card codes such as QS 10D 7♥")

    hosts = sub.add_parser("hosts", help="list the tables announced on the LAN",
                           description="Ask the LAN with mDNS (zeroconf, multicast) for "
                           "tables started with 'host --lan', list them one a line, exit 0 — "
                           "also when none answered.")
    hosts.add_argument("--timeout", type=float, default=3.0, help="seconds to listen for "
                       "answers, more than 0 and at most 60 (default 3)")
    return parser


def _lan_join_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--code", help="the room code shown on the host's screen")
    parser.add_argument("--key", help="the host's public key (z85, 40 characters, printed by "
                        "'host --secure'); found on the LAN by itself without an address")
    parser.add_argument("--browse", type=float, default=3.0, metavar="SECONDS",
                        help="without an address: seconds to listen for tables, more than 0 "
                        "and at most 60 (default 3)")


def _default_players(game_id: str) -> int:
    return 1 if game_id == "gin-solitaire" else 4


def cmd_simulate(args: argparse.Namespace) -> int:
    from lan_demon.bots.simulator import simulate
    get_game(args.game)
    players = args.players or _default_players(args.game)
    strategy = args.strategy.split(",") if "," in args.strategy else args.strategy
    options = _match_options(args.game, args.handicap)
    sim = simulate(args.game, players, args.seed, args.rounds, strategy, args.speed, options)
    result = sim.match.result_data()
    if args.json:
        print(json.dumps(result, ensure_ascii=False, indent=1))
    else:
        print(format_table(result))
    return 0


def format_table(result: dict[str, Any]) -> str:
    """A readable table: one row per round, one column per side, then totals and winner."""
    names = list(result["totals"])
    width = max(7, *(len(n) for n in names))
    head = "round  " + " ".join(n.rjust(width) for n in names)
    dealt = "secret deals" if result.get("seed") is None else f"seed {result['seed']}"
    lines = [f"{result['game']} · {dealt}", head, "-" * len(head)]
    for k, rnd in enumerate(result["rounds"], 1):
        lines.append(f"{k:>5}  " + " ".join(str(rnd["scores"][n]).rjust(width) for n in names))
    lines.append("-" * len(head))
    lines.append("total  " + " ".join(str(result["totals"][n]).rjust(width) for n in names))
    lines.append(f"winner: {', '.join(result['winner'])}")
    return "\n".join(lines)


def cmd_arena(args: argparse.Namespace) -> int:
    from lan_demon.bots.arena import Progress, parse_seats, run_arena, run_network
    from lan_demon.bots.arena_report import format_report
    game = get_game(args.game)
    seats = parse_seats(args.seats)
    if args.network and args.jobs is not None:
        raise UsageError("--jobs is for the engine-only arena; --network plays its matches "
                         "one after another")
    progress = Progress(args.rounds, f"arena {game.id}")
    try:
        if args.network:
            report = run_network(game.id, seats, args.rounds, args.seed, progress)
        else:
            report = run_arena(game.id, seats, args.rounds, args.seed, args.jobs,
                               progress=progress)
    finally:
        progress.close()
    if args.json:
        print(json.dumps(report.to_data(), ensure_ascii=False, indent=1))
    else:
        print(format_report(report))
    return 0


def cmd_deal(args: argparse.Namespace) -> int:
    from lan_demon.games import Match
    game = get_game(args.game)
    players = args.players or _default_players(args.game)
    match = Match(game, [f"seat-{i}" for i in range(players)], args.seed)
    state = match.deal()
    if not 0 <= args.seat < players:
        raise UsageError(f"--seat must be 0 to {players - 1}, not {args.seat}")
    for text in filter(None, (t.strip() for t in args.moves.split(";"))):
        seat, move_text = _split_seat(text, game, state, args.seat)
        game.apply(state, seat, game.parse_move(move_text))
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


def cmd_deadwood(args: argparse.Namespace) -> int:
    from lan_demon.games.melds import best_arrangement
    best = best_arrangement(_deadwood_hand(args.cards))
    for meld in best.melds:
        print("meld:     " + " ".join(c.symbol for c in meld))
    print("deadwood: " + (" ".join(c.symbol for c in best.deadwood) or "none"))
    if best.discard is not None:
        print(f"discard:  {best.discard.symbol}")
    print(f"points:   {best.points}")
    return 0


def _deadwood_hand(texts: list[str]) -> list[Any]:
    """GS-5: a hand is 10 cards, or 11 before its discard, each card once and no Joker; a
    mistake is told in the words the user typed ("10♦ and 10D are the same card")."""
    from lan_demon.games.cards import parse_card
    from lan_demon.games.melds import HAND_SIZE
    seen: dict[str, str] = {}
    hand = []
    for text in texts:
        card = parse_card(text)  # a CardError names the text that is not a card
        if card.is_joker:
            raise UsageError(f"{text} is the Joker, which is never in a hand (GS-2)")
        if card.code in seen:
            first = seen[card.code]
            raise UsageError(f"{text} is given twice" if first == text else
                             f"{first} and {text} are the same card")
        seen[card.code] = text
        hand.append(card)
    if len(hand) not in (HAND_SIZE - 1, HAND_SIZE):
        raise UsageError(f"a Gin Solitaire hand is {HAND_SIZE - 1} cards, or {HAND_SIZE} "
                         f"before its discard (GS-2, GS-3), not {len(hand)}")
    return hand


def _need_terminal() -> None:
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise UsageError("the table needs a terminal (stdin and stdout must be a TTY); "
                         "for a headless match use 'lan-demon simulate' or 'lan-demon bot'")


def cmd_play(args: argparse.Namespace) -> int:
    from lan_demon.bots import make_strategy, strongest
    from lan_demon.net.client import Client
    from lan_demon.bots.speed import PROFILES
    from lan_demon.tui.app import build_app, start_local_table, table_for
    game = get_game(args.game)
    bots = args.bots if args.bots is not None else (0 if game.id == "gin-solitaire" else 3)
    if bots < 0:
        raise UsageError(f"--bots must be 0 or more, not {bots}")
    game.check_players(bots + 1)
    if args.speed not in PROFILES:
        raise UsageError(f"unknown speed profile {args.speed!r}; choose one of: "
                         f"{', '.join(PROFILES)}")
    if args.rounds is not None:
        game.check_rounds(args.rounds)
    strategy = args.strategy or strongest(game.id)
    make_strategy(game.id, strategy)  # an unknown name: one line naming the choices
    options = _match_options(game.id, args.handicap)
    _need_terminal()
    lag_cap = DEFAULT_LAG_CAP_MS if args.lag_cap_ms is None else args.lag_cap_ms
    table = start_local_table(game.id, args.seed, args.rounds, args.speed, strategy=strategy,
                              pause=_pause_value(args.pause), lag_cap_ms=lag_cap,
                              options=options)
    try:
        client = Client(table.address, name=args.name).connect()
        table.add_bots(bots)
        build_app(table_for(client, host=True, bell=not args.no_bell, local=table)).run()
        client.leave()
        client.close()
    finally:
        table.close()
    return 0


def cmd_join(args: argparse.Namespace) -> int:
    from lan_demon.net.connect import normalize_address
    from lan_demon.tui.app import build_app, table_for
    address = normalize_address(args.address) if args.address else None
    key, code = _check_key(args.key), _check_code(args.code, "--code")
    _check_browse(args)
    _need_terminal()
    if address is None:
        table = _choose_table(args.browse)
        address, key = f"tcp://{table.endpoint}", _table_key(table, key)
        if table.code_needed and code is None:
            code = _ask_code()
    client = _connect_person(args, address, key, code)
    if client is None:
        return EXIT_USAGE  # as any other refusal of the command: said in one line
    build_app(table_for(client, bell=not args.no_bell)).run()
    client.leave()
    client.close()
    return 0


def _connect_person(args: argparse.Namespace, address: str, key: str | None,
                    code: str | None) -> Any:
    """Take a seat (or a spectator's place), the stored token first (a restart within 5
    minutes is the same seat). Only "no answer" is tried again; a wrong room code is asked
    again; any other refusal cannot change: one line, and None."""
    from lan_demon.net.client import Client
    from lan_demon.net.connect import ConnectError
    attempt = 1
    while True:
        client = Client(address, name=args.name, role="spectator" if args.spectate
                        else "player", server_key=key, code=code, remember=True)
        try:
            return client.connect(timeout=3.0)
        except ConnectError as err:
            if err.code == "bad_code":
                print(f"lan-demon: {err}", file=sys.stderr)
                code = _ask_code()
                continue
            if err.code is not None or attempt >= args.tries:
                print(f"lan-demon: {err}", file=sys.stderr)
                return None
            attempt += 1
            print(f"lan-demon: {err} — trying again ({attempt} of {args.tries})",
                  file=sys.stderr)


#: ``host`` settings that a resumed match takes from its journal, with their usual defaults.
HOST_SETTINGS = {"game": "racing-demon", "players": None, "rounds": None, "seed": None,
                 "fairness_ms": 30.0, "countdown": 3.0, "pause": DEFAULT_PAUSE,
                 "turn_timeout": 30.0, "lag_cap_ms": DEFAULT_LAG_CAP_MS}


def cmd_host(args: argparse.Namespace) -> int:
    from lan_demon.net.arbiter import Config
    from lan_demon.net.server import LOOPBACK, ArbiterServer
    if args.port is not None and not 0 <= args.port < 65536:
        raise UsageError(f"--port must be 0 to 65535, not {args.port}")
    if args.resume is not None:
        return _resume_host(args)
    secure = args.lan if args.secure is None else args.secure
    code = _check_code(args.code, "--code")
    if code is not None and len(code) < MIN_HOST_CODE:
        raise UsageError(f"--code needs at least {MIN_HOST_CODE} letters or digits, not "
                         f"{len(code)}: a shorter code can be guessed in an evening "
                         f"(docs/hosting.md); with --lan and no --code one is made for you")
    if args.table_name is not None and not args.lan:
        raise UsageError("--name names the table on the LAN; it goes with --lan")
    for name, default in HOST_SETTINGS.items():
        if getattr(args, name) is None:
            setattr(args, name, default)
    args.port = 7700 if args.port is None else args.port
    args.pause = _pause_value(args.pause)
    get_game(args.game)
    options = _match_options(args.game, args.handicap)
    seed = args.seed  # None: secret deals, committed to and revealed (PROTOCOL.md §22)
    if args.lan and code is None:
        from lan_demon.net.security import new_code
        code = new_code()
    config = Config(args.game, players=args.players, rounds=args.rounds, seed=seed,
                    options=options, fairness_ms=args.fairness_ms, countdown=args.countdown,
                    pause=args.pause, turn_timeout=args.turn_timeout,
                    lag_cap_ms=args.lag_cap_ms, code=code)
    if args.rounds is not None:
        get_game(args.game).check_rounds(args.rounds)  # RG-7: refuse it before binding
    keys = _host_keys() if secure else None
    name = _table_name(args.table_name, args.game) if args.lan else None
    kept = _keep_secrets(args.journal, code, keys, name, args.lan)
    lan = _Announcement()
    try:
        server = ArbiterServer(config, host="0.0.0.0" if args.lan else LOOPBACK,
                               port=args.port, journal=args.journal, keys=keys,
                               on_seats=lan.seats)
    except BaseException:
        if kept is not None:  # no table, no journal record: its secrets go too
            kept.unlink(missing_ok=True)
        raise
    info = sys.stderr if args.json else sys.stdout
    seated = "" if not args.players else f", starting when {args.players} " + \
        ("player is seated" if args.players == 1 else "players are seated")
    print(f"lan-demon: hosting {args.game} at {server.address[len('tcp://'):]} "
          f"(updates on port {server.pub_port}){seated}", file=info, flush=True)
    return _serve_table(server, lan, name, args.game, keys, code, info, args.json)


def _table_name(given: str | None, game: str) -> str:
    import socket
    return given or f"{game} on {socket.gethostname()}"


def _keep_secrets(journal: str | None, code: str | None, keys: Any, name: str | None,
                  lan: bool) -> Any:
    """A journaled table: write its secrets file beside the journal (0600) before the journal's
    first record — its code and keys, if any; the seats' tokens and the round secrets follow
    as they come — so a crash at any moment can be resumed as the same table, and a stale file
    of another match is never taken for this one's. Returns the secrets file's path, or None
    without a journal."""
    from lan_demon.net.recovery import HostSecrets, write_secrets
    if journal is None:
        return None
    return write_secrets(journal, HostSecrets(code, keys, name, lan))


class _Announcement:
    """The table's mDNS announcement once made (``--lan``), told the seat counts by the serve
    loop; nothing at all on a loopback table."""

    def __init__(self) -> None:
        self.announcer: Any = None

    def seats(self, taken: int, free: int) -> None:
        """From the serve loop: publish the seat counts without waiting for it."""
        if self.announcer is not None:
            self.announcer.update_later(taken, free)

    def close(self) -> None:
        if self.announcer is not None:
            self.announcer.close()
            self.announcer = None


def _serve_table(server: Any, lan: _Announcement, name: str | None, game: str, keys: Any,
                 code: str | None, info: Any, as_json: bool) -> int:
    """What a fresh host and a resumed one do alike once bound: show the room code and the key's
    fingerprint, announce the table on the LAN when it has a LAN name, and serve."""
    if code is not None:
        from lan_demon.net.security import format_code
        print(f"lan-demon: room code {format_code(code)} — tell it to the players",
              file=info, flush=True)
    if keys is not None:
        print(f"lan-demon: encrypted; key fingerprint {keys.fingerprint} (public key "
              f"{keys.public.decode()})", file=info, flush=True)
    try:
        if name is not None:
            lan.announcer = _announce(name, game, server, keys, code is not None, info)
        return _serve_host(server, as_json)
    finally:
        lan.close()
        server.close()


def _host_keys() -> Any:
    from lan_demon.net.security import new_keypair
    try:
        return new_keypair()
    except RuntimeError as err:  # a libzmq without CURVE
        raise UsageError(f"{err} (use --no-secure)") from None


def _announce(name: str, game: str, server: Any, keys: Any, code_needed: bool,
              info: Any) -> Any:
    """``host --lan``: register the table with mDNS and say where it is on the host's screen.
    Only here does a host multicast."""
    from lan_demon.net import discovery
    addresses = discovery.lan_addresses()
    if not addresses:
        raise LanError("--lan: this machine has no LAN address (is it on a network?)")
    taken, free = server.arbiter.seat_counts()
    try:
        announcer = discovery.announce(name, server.port, game, taken, free, code_needed,
                                       addresses, keys.public if keys else None,
                                       server.pub_port)
    except OSError as err:
        raise LanError(f"cannot announce the table on the LAN: {err}") from None
    where = ", ".join(f"{a}:{server.port}" for a in addresses)
    print(f"lan-demon: on the LAN as {announcer.name!r} at {where} (updates on port "
          f"{server.pub_port}; open both ports and UDP 5353 in the firewall)",
          file=info, flush=True)
    return announcer


def _serve_host(server: Any, as_json: bool) -> int:
    try:
        result = server.serve()
    except KeyboardInterrupt:
        print("lan-demon: host stopped", file=sys.stderr)
        server.close()
        return 130
    server.finish()
    if as_json:
        print(json.dumps(result, ensure_ascii=False, indent=1))
    else:
        print(format_table(result))
    return 0


def _resume_host(args: argparse.Namespace) -> int:
    """``host --resume JOURNAL``: settings come from the journal, the room code, keys and LAN
    name from the secrets file beside it; a flag that says otherwise is a mistake, not an
    override (the match would no longer replay, the clients would not know the table)."""
    from pathlib import Path

    from lan_demon.net.journal import read_journal
    from lan_demon.net.recovery import check_secrets, host_config, read_secrets, resume, summary
    read = read_journal(args.resume)
    config = host_config(read, args.resume)
    for name in HOST_SETTINGS:
        given, kept = getattr(args, name), getattr(config, name)
        if name == "pause" and given is not None:
            given = _pause_value(given)
            if given != kept:
                raise UsageError(f"--pause {_pause_words(given)} conflicts with the journal's "
                                 f"{_pause_words(kept)}: a resumed match keeps its settings; "
                                 f"leave --pause out")
        elif given is not None and given != kept:
            flag = "--" + name.replace("_", "-")
            raise UsageError(f"{flag} {given} conflicts with the journal's {kept!r}: a resumed "
                             f"match keeps its settings; leave {flag} out")
    if args.handicap is not None:
        kept = {**get_game(config.game).default_options(), **config.options}.get("handicap")
        if args.handicap != kept:
            flag = "--handicap" if args.handicap else "--no-handicap"
            raise UsageError(f"{flag} conflicts with the journal's match, whose handicapping "
                             f"was {'on' if kept else 'off'}: a resumed match keeps its "
                             f"settings; leave {flag} out")
    if args.journal is not None and Path(args.journal).resolve() != \
            Path(args.resume).resolve():
        raise UsageError("--journal conflicts with --resume: a resumed host appends to the "
                         "journal it resumes")
    secrets = read_secrets(args.resume)
    check_secrets(read, secrets, args.resume)
    _agree_with_secrets(args, secrets)
    lan = _Announcement()
    server, restored = resume(args.resume, port=args.port, read=read, secrets=secrets,
                              on_seats=lan.seats)
    torn = "; the last record was cut off mid-write and was left out" if restored.torn else ""
    info = sys.stderr if args.json else sys.stdout
    print(f"lan-demon: resumed {config.game} at {server.address[len('tcp://'):]} "
          f"(updates on port {server.pub_port}): {summary(restored)}{torn}",
          file=info, flush=True)
    code, keys = (secrets.code, secrets.keys) if secrets else (None, None)
    name = secrets.name if secrets and secrets.lan else None
    return _serve_table(server, lan, name, config.game, keys, code, info, args.json)


def _agree_with_secrets(args: argparse.Namespace, secrets: Any) -> None:
    """``--lan``, ``--secure``, ``--code`` and ``--name`` on a resume may only repeat what the
    table was (its secrets file says; none: a plain loopback table)."""
    from lan_demon.net.recovery import secret_path
    lan, code, name = (secrets.lan, secrets.code, secrets.name) if secrets else \
        (False, None, None)
    secure = secrets is not None and secrets.keys is not None
    kept = f"(kept in {secret_path(args.resume)})" if secrets else "(it has no secrets file)"
    if args.lan and not lan:
        raise UsageError(f"--lan conflicts with the resumed table, which served on loopback "
                         f"only {kept}: a resumed table serves where it served; leave --lan out")
    if args.secure is not None and args.secure != secure:
        flag = "--secure" if args.secure else "--no-secure"
        raise UsageError(f"{flag} conflicts with the resumed table, which was "
                         f"{'' if secure else 'not '}encrypted {kept}: leave {flag} out")
    given = _check_code(args.code, "--code")
    if given is not None and given != code:
        was = "had another room code" if code else "needed no room code"
        raise UsageError(f"--code conflicts with the resumed table, which {was} {kept}: a "
                         f"resumed table keeps its code; leave --code out")
    if args.table_name is not None and args.table_name != name:
        was = f"was called {name!r}" if name else "was not on the LAN"
        raise UsageError(f"--name conflicts with the resumed table, which {was} {kept}: "
                         f"leave --name out")


def cmd_bot(args: argparse.Namespace) -> int:
    from lan_demon.bots.runner import make_bot, run_pool
    from lan_demon.net.connect import normalize_address
    from lan_demon.bots.speed import PROFILES
    address = normalize_address(args.address) if args.address else None
    if args.speed not in PROFILES:
        raise UsageError(f"unknown speed profile {args.speed!r}; choose one of: "
                         f"{', '.join(PROFILES)}")
    key, code = _check_key(args.key), _check_code(args.code, "--code")
    _check_browse(args)
    if address is None:
        table = _only_table(args.browse)
        address, key = f"tcp://{table.endpoint}", _table_key(table, key)
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


# --- joining over the LAN ------------------------------------------------------------------

def _check_key(key: str | None) -> str | None:
    from lan_demon.net.security import is_public_key
    if key is None:
        return None
    if not is_public_key(key.strip()):
        raise UsageError(f"--key is not a CURVE public key: {key!r} (40 characters of z85, "
                         f"as 'host --secure' prints it)")
    return key.strip()


MIN_HOST_CODE = 8  # a host's own room code: as long as a made one (issue 11, item 6)


def _check_code(code: str | None, flag: str) -> str | None:
    from lan_demon.net.security import normalize_code
    if code is None:
        return None
    clean = normalize_code(code)
    if not clean or not clean.isalnum() or not clean.isascii() or len(clean) > 16:
        raise UsageError(f"{flag} must be 1 to 16 letters or digits (spaces and hyphens "
                         f"are ignored), not {code!r}")
    return clean


def _check_browse(args: argparse.Namespace) -> None:
    if args.address is None and not 0 < args.browse <= 60:
        raise UsageError(f"--browse must be more than 0 and at most 60 seconds, "
                         f"not {args.browse:g}")


def _browse(seconds: float) -> list[Any]:
    """The compatible tables on the LAN (multicast: only when no address was given)."""
    from lan_demon.net import discovery
    try:
        tables = discovery.browse(seconds)
    except OSError as err:
        raise LanError(f"cannot ask the LAN for tables: {err}") from None
    found = [t for t in tables if t.compatible]
    if not found:
        other = f" ({len(tables)} of another protocol version)" if tables else ""
        raise LanError(f"no table answered within {seconds:g} s{other}; a host must run "
                       f"'lan-demon host --lan' — or join by address (HOST:PORT)")
    return found


def _only_table(seconds: float) -> Any:
    """For a bot: the one table on the LAN; more than one must be named by address."""
    tables = _browse(seconds)
    if len(tables) > 1:
        names = "; ".join(f"{t.name} at {t.endpoint}" for t in tables)
        raise UsageError(f"{len(tables)} tables answered ({names}): name one by its address")
    return tables[0]


def _choose_table(seconds: float) -> Any:
    """For a person: list the tables, numbered, and ask which."""
    print(f"lan-demon: looking for tables on the LAN ({seconds:g} s)…", flush=True)
    tables = _browse(seconds)
    for number, table in enumerate(tables, 1):
        print(f"{number:>3}. {table.line()}")
    answer = _ask(f"table (1-{len(tables)}): ") if len(tables) > 1 else "1"
    if not answer.isdigit() or not 1 <= int(answer) <= len(tables):
        raise UsageError(f"not a table number: {answer!r}")
    table = tables[int(answer) - 1]
    if table.server_key:
        print(f"lan-demon: joining {table.name!r} at {table.endpoint}; its key fingerprint is "
              f"{table.fingerprint} — check it matches the host's screen", flush=True)
    else:
        print(f"lan-demon: joining {table.name!r} at {table.endpoint} (not encrypted)",
              flush=True)
    return table


def _table_key(table: Any, given: str | None) -> str | None:
    """The key to join ``table`` with: the announced one, unless --key says otherwise — then
    the announcement is not the table the user meant (an impostor, or another table)."""
    if given is not None and given != table.server_key:
        raise UsageError(f"the table {table.name!r} announces another key than --key "
                         f"(fingerprint {table.fingerprint or 'none'}): not joining it")
    return table.server_key


def _ask_code() -> str:
    code = _check_code(_ask("room code (shown on the host's screen): "), "the room code")
    assert code is not None
    return code


def _ask(prompt: str) -> str:
    try:
        return input(prompt).strip()
    except EOFError:
        raise UsageError("no answer given (end of input)") from None


def cmd_replay(args: argparse.Namespace) -> int:
    from lan_demon.net.replay import replay
    rep = replay(args.journal)
    if rep.torn:
        print(f"lan-demon: the journal's last record was cut off mid-write; read up to the "
              f"last whole record", file=sys.stderr)
    if rep.unchained:
        print("lan-demon: a version 1 journal (unchained: an edit in it cannot be found; "
              "'lan-demon verify' needs version 2)", file=sys.stderr)
    doc = rep.match.result_data()
    if args.json:
        print(json.dumps(doc, ensure_ascii=False, indent=1))
        return 0
    print(format_table(doc))
    for k, moves in enumerate(rep.moves, 1):
        print(f"round {k}: {moves} moves" + (" (unfinished)" if k > len(doc["rounds"]) else ""))
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    from lan_demon.net.audit import verify
    verdict = verify(args.journal)
    print(verdict.line)
    return 0 if verdict.ok else 1


def cmd_hosts(args: argparse.Namespace) -> int:
    from lan_demon.net import discovery
    if not 0 < args.timeout <= 60:
        raise UsageError(f"--timeout must be more than 0 and at most 60 seconds, "
                         f"not {args.timeout:g}")
    try:
        tables = discovery.browse(args.timeout)
    except OSError as err:  # no multicast-capable interface, port 5353 refused…
        print(f"lan-demon: cannot ask the LAN for tables: {err}", file=sys.stderr)
        return 1
    for table in tables:
        print(table.line())
    if not tables:
        print(f"lan-demon: no tables answered within {args.timeout:g} s "
              f"(a host must run 'lan-demon host --lan')")
    return 0


COMMANDS = {"simulate": cmd_simulate, "arena": cmd_arena, "deal": cmd_deal,
            "deadwood": cmd_deadwood, "host": cmd_host, "bot": cmd_bot, "replay": cmd_replay,
            "verify": cmd_verify,
            "play": cmd_play, "join": cmd_join, "hosts": cmd_hosts}


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if not args.command:
            parser.print_help()
            return EXIT_USAGE
        code = COMMANDS[args.command](args)
        sys.stdout.flush()  # here, so that a reader gone early is caught below, not at exit
        return code
    except (UsageError, GameError) as err:
        print(f"lan-demon: {err}", file=sys.stderr)
        return EXIT_USAGE
    except LanError as err:
        print(f"lan-demon: {err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("lan-demon: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return _reader_left()


def _reader_left() -> int:
    """The reader of our output went away (``… | head -3``): that is how a pipe ends, not an
    error — no traceback, no message. stdout is pointed at devnull so that the interpreter's
    own flush at exit cannot fail again; 141 is what a shell reports for SIGPIPE."""
    import os
    try:
        sys.stdout.flush()
    except (BrokenPipeError, OSError, ValueError):
        pass
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass
    return EXIT_PIPE
