"""Option values the commands share: argparse types (``--pause``, ``--lag-cap``,
``--rate-limit``, ``--level``, seeds, counts), the checks of values argparse cannot make (speed
profiles, room codes, CURVE keys, ``--browse``), the flags several commands take alike
(``--handicap``, ``--deals``, ``--level``, the LAN join flags, a journal to read), the game a
command is told none of, and the words their help texts list (speed profiles, strategies,
levels). The table's own defaults are :mod:`lan_demon.net.settings`'s, imported, never copied.
"""

from __future__ import annotations

import argparse
import math
from typing import Any

from lan_demon.commands.errors import UsageError
from lan_demon.games import GAME_IDS, get_game
from lan_demon.net.discovery import BROWSE_SECONDS, MOST_BROWSE_SECONDS
from lan_demon.net.settings import MAX_LAG_CAP_MS, PAUSE


def positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, not {value}")
    return value


def level(text: str) -> int:
    """``--level``: a whole number from 1 to 10, or the one line that says so (argparse's own
    "invalid int value" names a Python type, not what was wanted)."""
    from lan_demon.bots.levels import HIGHEST, LOWEST
    try:
        value = int(text.strip())
    except ValueError:
        value = None
    if value is None or not LOWEST <= value <= HIGHEST:
        raise argparse.ArgumentTypeError(f"must be a whole number from {LOWEST} to {HIGHEST}, "
                                         f"not {text!r}")
    return value


def add_level(parser: argparse.ArgumentParser, default: int | None, who: str) -> None:
    """``--level`` for ``play``, ``host`` and ``bot``, its help naming every level; an explicit
    ``--strategy`` or ``--speed`` beside it wins over the level's own (where the command has
    them)."""
    from lan_demon.bots.levels import LEVELS
    words = "; ".join(f"{n} {lv.words}" for n, lv in LEVELS.items())
    told = f"default {default}" if default is not None else "no default: without it the " \
        "bot plays --strategy at --speed"
    parser.add_argument("--level", type=level, default=None, metavar="1-10", help=f"{who}: "
                        f"skill and speed in one number ({words}; {told}); see docs/bots.md")


DEFAULT_GAME = "racing-demon"  # the game of a ``host`` or ``play`` told none


def seed(text: str) -> int | str:
    return int(text) if text.lstrip("-").isdigit() else text


def default_players(game_id: str) -> int:
    return 1 if game_id == "gin-solitaire" else 4


def default_players_words() -> str:
    """``--players``' default in a help text: "4, or 1 for gin-solitaire"."""
    solitaire = "gin-solitaire"
    return f"{default_players(DEFAULT_GAME)}, or {default_players(solitaire)} for {solitaire}"


#: ``--pause none``: no limit between rounds — the next one waits until every person is ready.
NO_LIMIT = "none"


def number(text: str, unit: str) -> float:
    """An option's number, or the one line that says what was wanted instead."""
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of {unit}: {text!r}") from None


def pause(text: str) -> float | str:
    """``--pause``: seconds (0 or more) or ``none``; ``none`` stays a word until
    :func:`pause_value`, so that "not given" (None) and "no limit" are told apart."""
    if text.strip().lower() == NO_LIMIT:
        return NO_LIMIT
    value = number(text, "seconds or 'none'")
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be 0 seconds or more (or 'none'), not {text}")
    return value


def pause_value(given: float | str | None, default: float | None = PAUSE) \
        -> float | None:
    """What the settings and start_local_table take: seconds, or None for no limit."""
    if given is None:
        return default
    return None if given == NO_LIMIT else float(given)


def pause_words(pause: float | None) -> str:
    return "no limit" if pause is None else f"{pause:g} s"


def lag_cap(text: str) -> float:
    """``--lag-cap MS``: 0 to ``MAX_LAG_CAP_MS`` milliseconds, the most RD-11 credits a move's
    claimed time (PROTOCOL.md §8)."""
    value = number(text, "milliseconds")
    if not 0 <= value <= MAX_LAG_CAP_MS:
        raise argparse.ArgumentTypeError(f"RD-11: the lag cap is 0 to {MAX_LAG_CAP_MS:g} ms, "
                                         f"not {text}")
    return value


#: ``--rate-limit``'s least brake but none: a client's first second (hello, its clock-sync pings,
#: ready, heartbeats) and a person's play fit well inside it, so no limit it takes locks anyone out.
MIN_RATE_LIMIT = 100.0


def rate_limit(text: str) -> float:
    """``--rate-limit N``: messages a second one connection may send: 0 (no brake) or
    ``MIN_RATE_LIMIT`` or more (PROTOCOL.md §10)."""
    value = number(text, "messages a second")
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"a finite number of messages a second (0: no "
                                         f"limit), not {text}")
    if 0 < value < MIN_RATE_LIMIT:
        raise argparse.ArgumentTypeError(
            f"at least {MIN_RATE_LIMIT:g} messages a second (0: no limit), not {text}: fewer "
            "would refuse a client's first messages, and nobody could sit down")
    if value < 0:
        raise argparse.ArgumentTypeError(f"0 (no limit) or at least {MIN_RATE_LIMIT:g} "
                                         f"messages a second, not {text}")
    return value


def add_handicap(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--handicap", action=argparse.BooleanOptionalAction, default=None,
                        help="Racing Demon: RD-15 handicapping (default: on in racing-demon, "
                        "off in racing-demon-german, RG-2)")


def add_deals(parser: argparse.ArgumentParser) -> None:
    from lan_demon.games.gin_solitaire import DEALS
    parser.add_argument("--deals", choices=DEALS, help="Gin Solitaire (GS-9): duplicate — "
                        "every seat gets the same cards, the fairest contest, but a seat that "
                        "is ahead has drawn your next cards (the default); independent — each "
                        "seat its own cards from the same secret deal")


def match_options(game_id: str, handicap: bool | None,
                  deals: str | None = None) -> dict[str, Any]:
    """The game options a command line sets: ``handicap`` (RD-15, RG-2) and ``deals`` (GS-9),
    each refused in one line for a game without it."""
    options: dict[str, Any] = {}
    known = get_game(game_id).default_options()
    if handicap is not None:
        if "handicap" not in known:
            flag = "--handicap" if handicap else "--no-handicap"
            raise UsageError(f"{flag} is a Racing Demon option (RD-15, RG-2), not one of "
                             f"{game_id}")
        options["handicap"] = handicap
    if deals is not None:
        if "deals" not in known:
            raise UsageError(f"--deals is a Gin Solitaire option (GS-9), not one of {game_id}")
        options["deals"] = deals
    return options


def speed_names() -> str:
    from lan_demon.bots.speed import PROFILES
    return ", ".join(PROFILES)


def check_speed(name: str) -> None:
    """A speed profile's name, checked before anything starts (one line naming the choices)."""
    from lan_demon.bots.speed import profile
    profile(name)


def strategy_help() -> str:
    """Every game's strategies as lan_demon.bots has them, the strongest named as such."""
    from lan_demon.bots import strategy_names, strongest
    parts = []
    for game in GAME_IDS:
        names = strategy_names(game)
        best = strongest(game)
        parts.append(f"{game}: " + ", ".join(f"{n} (strongest)" if n == best else n
                                             for n in names))
    return "; ".join(parts)


def check_key(key: str | None) -> str | None:
    from lan_demon.net.security import is_public_key
    if key is None:
        return None
    if not is_public_key(key.strip()):
        raise UsageError(f"--key is not a CURVE public key: {key!r} (40 characters of z85, "
                         f"as 'host --secure' prints it)")
    return key.strip()


def name_refusal(name: str) -> str | None:
    """Why ``name`` cannot be a seat's name (the table could not show it, PROTOCOL.md §4.5;
    or "you", which every screen calls its own player), else None."""
    from lan_demon.net.names import seat_name
    if not seat_name(name):
        return "--name needs a name the others can read (letters, not only spaces or " \
               "pictures), e.g. --name Ann"
    if name.strip().casefold() == "you":
        return "--name you: every screen calls its own player 'you', so the others would " \
               "read 'you are OUT!' when you go out; give your own name, e.g. --name Ann"
    return None


def check_name(given: str | None, spectate: bool = False) -> None:
    """A ``--name`` a seat can be taken with — refused here in one line rather than by the
    table."""
    refusal = None if given is None or spectate else name_refusal(given)
    if refusal is not None:
        raise UsageError(refusal)


def check_code(code: str | None, flag: str) -> str | None:
    from lan_demon.net.security import normalize_code
    if code is None:
        return None
    clean = normalize_code(code)
    if not clean or not clean.isalnum() or not clean.isascii() or len(clean) > 16:
        raise UsageError(f"{flag} must be 1 to 16 letters or digits (spaces and hyphens "
                         f"are ignored), not {code!r}")
    return clean


def lan_join_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--code", help="the room code shown on the host's screen")
    parser.add_argument("--key", help="the host's public key (z85, 40 characters, printed by "
                        "'host --secure'); found on the LAN by itself without an address")
    parser.add_argument("--browse", type=float, default=BROWSE_SECONDS, metavar="SECONDS",
                        help="without an address: seconds to listen for tables, more than 0 "
                        f"and at most {MOST_BROWSE_SECONDS:g} (default {BROWSE_SECONDS:g})")


def add_journal(parser: argparse.ArgumentParser) -> None:
    """The journal a command reads (``replay``, ``verify``), where ``host`` writes it."""
    parser.add_argument("journal", help="a journal written by 'lan-demon host' (in "
                        "~/.local/state/lan_demon/journals/ unless --journal PATH)")


def check_browse_seconds(seconds: float, flag: str) -> None:
    """``--browse`` and ``hosts --timeout``: more than 0 and at most ``MOST_BROWSE_SECONDS``."""
    if not 0 < seconds <= MOST_BROWSE_SECONDS:
        raise UsageError(f"{flag} must be more than 0 and at most {MOST_BROWSE_SECONDS:g} "
                         f"seconds, not {seconds:g}")


def check_browse(args: argparse.Namespace) -> None:
    if args.address is None:
        check_browse_seconds(args.browse, "--browse")


#: ``host``'s flags that set a field of the table's settings (net/settings.py), by the flag's
#: ``args`` name and the field's; ``--seed`` sets how the deals are made. A flag left out takes
#: the settings' own default (the product's); a resumed match takes them all from its journal.
SETTING_FLAGS = {"game": "game", "players": "players", "rounds": "rounds", "seed": "dealing",
                 "fairness_ms": "fairness_ms", "countdown": "countdown", "pause": "pause",
                 "turn_timeout": "turn_timeout", "lag_cap_ms": "lag_cap_ms"}


def flag_values(args: argparse.Namespace) -> dict[str, Any]:
    """The settings the flags given say, by field (``--pause none`` as None, no limit)."""
    from lan_demon.net.settings import dealing_of
    values: dict[str, Any] = {}
    for name, field_name in SETTING_FLAGS.items():
        given = getattr(args, name, None)
        if given is None:
            continue
        if name == "pause":
            given = pause_value(given)
        elif name == "seed":
            given = dealing_of(given)
        values[field_name] = given
    return values


def palette(text: str) -> str:
    """``--palette``: a palette's name (:mod:`lan_demon.seat.palette`), or the one line
    naming the choices."""
    from lan_demon.seat.palette import palette_for
    try:
        return palette_for(text).name
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def add_looks(parser: argparse.ArgumentParser) -> None:
    """How a terminal table looks and reads, for every command that opens one (``play``,
    ``join``): ``--palette``, ``--big`` and ``--plain``."""
    from lan_demon.seat.palette import PALETTES
    choices = "; ".join(f"{p.name}: {p.words}" for p in PALETTES.values())
    parser.add_argument("--palette", type=palette, metavar="NAME", help=f"the table's colours "
                        f"({choices}). Default: none when the NO_COLOR environment variable is "
                        "set, else classic; see docs/accessibility.md")
    parser.add_argument("--big", action="store_true", help="larger cards, where the terminal "
                        "has room for them (where it has not, the usual ones)")
    parser.add_argument("--plain", action="store_true", help="a line-mode table: one line per "
                        "event (what was played where, by whom, what you hold, whose turn, "
                        "scores), typed commands for input ('help' lists them) — for a screen "
                        "reader or a script; no screen is redrawn")
