"""The table served to browsers beside the arbiter: ``--web-port`` / ``--no-web`` of
``host`` and ``play``, starting :class:`lan_demon.web.server.WebServer`, and what the host's
screen says of it — the address to open and, at a ``--lan`` table, its QR code, said again
between rounds for latecomers (:class:`~lan_demon.commands.host_log.HostLog`'s reminder).

At a loopback table only this computer can open the page, so no QR code is drawn: a phone that
scanned ``127.0.0.1`` would open itself.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any, TextIO

from lan_demon.commands.errors import LanError, UsageError


@dataclass(frozen=True)
class WebChoice:
    """What the command line says of the page: ``port`` None is the default (8700, or the
    next free one, said which), 0 any free port; ``off``: ``--no-web``; ``lan``: ``--lan``."""

    port: int | None = None
    off: bool = False
    lan: bool = False


def port_number(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value < 65536:
        raise argparse.ArgumentTypeError(f"a port is a whole number from 0 to 65535 (0: any "
                                         f"free one), not {text!r}")
    return value


def add_web(parser: argparse.ArgumentParser) -> None:
    from lan_demon.web.server import DEFAULT_PORT
    parser.add_argument("--web-port", type=port_number, metavar="N", help="serve the table to "
                        "browsers (phones, tablets, laptops) on this HTTP port (default "
                        f"{DEFAULT_PORT}, or the next free one; 0: any free port)")
    parser.add_argument("--no-web", action="store_true", help="serve no page to browsers: "
                        "terminals and bots only")


def web_choice(args: argparse.Namespace) -> WebChoice:
    if args.no_web and args.web_port is not None:
        raise UsageError("--web-port and --no-web say opposite things: give one of them")
    return WebChoice(args.web_port, args.no_web, bool(getattr(args, "lan", False)))


def start_web(server: Any, game: str, keys: Any, code: str | None, choice: WebChoice,
              info: TextIO) -> Any:
    """Start the page's server for the arbiter ``server`` and say where it is on ``info``;
    None with ``--no-web``. A port that cannot be had is one line (:class:`UsageError`)."""
    if choice.off:
        return None
    from lan_demon.coach import coach_for
    from lan_demon.web.page_book import book_path
    from lan_demon.web.server import WebError, WebServer, bind_host
    public = None
    if choice.lan:
        from lan_demon.net import discovery
        addresses = discovery.lan_addresses()
        if not addresses:
            raise LanError("--lan: this machine has no LAN address (is it on a network?)")
        public = addresses[0]
    try:
        journal = getattr(server, "journal", None)  # the browser seats kept beside it
        web = WebServer(server.port, game, host=bind_host(choice.lan), port=choice.port,
                        server_key=keys.public.decode() if keys is not None else None,
                        code=code, public=public, coach_for=coach_for,
                        book=str(book_path(journal.path)) if journal is not None else None
                        ).start()
    except WebError as err:
        raise UsageError(str(err)) from None
    if web.note:
        print(f"lan-demon: {web.note}", file=info, flush=True)
    from lan_demon.seat.palette import no_color  # NO_COLOR: the QR code without colour too
    for line in banner(web.url, choice.lan, colour=_is_terminal(info) and not no_color()):
        print(line, file=info, flush=True)
    return web


def banner(url: str, lan: bool, colour: bool) -> list[str]:
    """What the host's screen says of the page: the address, and at a ``--lan`` table a QR
    code of it (black on white where ``colour``: a terminal)."""
    if not lan:
        return [f"lan-demon: a browser on this computer can sit down at {url} (only this "
                f"computer: with --lan, phones and tablets on the Wi-Fi can too)"]
    from lan_demon.web.qr import terminal
    return [f"lan-demon: phones, tablets and laptops on this Wi-Fi: open {url} in a browser, "
            f"or scan this code:", *terminal(url, colour)]


def _is_terminal(out: TextIO) -> bool:
    try:
        return out.isatty()
    except (AttributeError, ValueError):
        return False
