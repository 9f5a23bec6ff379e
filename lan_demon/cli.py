"""The ``lan-demon`` command: the parser assembled from the commands and the dispatch.

Each command is a module of :mod:`lan_demon.commands` (``HELP``, ``DESCRIPTION``,
``add_arguments(parser)``, ``run(args) -> int``). Every mistake a user can make — a wrong flag,
an unknown game, a bad card code, a move that does not parse — ends in one line on stderr and
exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import sys
from types import ModuleType
from typing import NoReturn

from lan_demon import __version__
from lan_demon.commands import (arena, bot, deadwood, deal, host, hosts, join, play, replay,
                                simulate, verify)
from lan_demon.commands.errors import EXIT_PIPE, EXIT_USAGE, LanError, UsageError
from lan_demon.games import GameError

#: The commands in the order ``--help`` lists them.
COMMANDS: dict[str, ModuleType] = {
    "simulate": simulate, "arena": arena, "deal": deal, "play": play, "join": join,
    "host": host, "bot": bot, "verify": verify, "replay": replay, "deadwood": deadwood,
    "hosts": hosts}


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line naming the fix, not a usage block."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see '{self.prog} --help')")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="lan-demon", description="A card table for a home network: Racing "
                     "Demon, its German variant, Rack-O and Gin Solitaire.")
    parser.add_argument("--version", action="version", version=f"lan-demon {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name, command in COMMANDS.items():
        command.add_arguments(sub.add_parser(name, help=command.HELP,
                                             description=command.DESCRIPTION))
    return parser


def glue_keys(argv: list[str]) -> list[str]:
    """``--key KEY`` read as ``--key=KEY`` when KEY begins with '-': a z85 key does about one
    time in 85, and argparse would take it for an option ("expected one argument") — a person
    pastes the key the host printed after ``--key``, as the help says."""
    out = list(argv)
    for i in range(len(out) - 2, -1, -1):  # from the end: a glued pair shortens the list
        value = out[i + 1]
        if out[i] == "--key" and value.startswith("-") and len(value.strip()) == 40:
            out[i:i + 2] = [f"--key={value}"]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args, extras = parser.parse_known_args(glue_keys(sys.argv[1:] if argv is None
                                                         else argv))
        if extras:  # name the command's own help, where the flag that was meant is listed
            where = f"lan-demon {args.command}" if args.command else "lan-demon"
            raise UsageError(f"unrecognized arguments: {' '.join(extras)} "
                             f"(see '{where} --help')")
        if not args.command:
            parser.print_help()
            return EXIT_USAGE
        code = COMMANDS[args.command].run(args)
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
