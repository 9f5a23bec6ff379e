"""What a command asks the person at the terminal, and the check that there is one."""

from __future__ import annotations

import sys

from lan_demon.commands.errors import UsageError
from lan_demon.commands.options import check_code


def ask(prompt: str) -> str:
    try:
        return input(prompt).strip()
    except EOFError:
        raise UsageError("no answer given (end of input)") from None


def ask_code() -> str:
    code = check_code(ask("room code (shown on the host's screen): "), "the room code")
    assert code is not None
    return code


def need_terminal() -> None:
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise UsageError("the table needs a terminal (stdin and stdout must be a TTY); "
                         "for a headless match use 'lan-demon simulate' or 'lan-demon bot'")
