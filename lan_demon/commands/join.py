"""``lan-demon join``: a person at a table hosted elsewhere (found on the LAN without an
address), the table opened in the terminal."""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import sys
import weakref
from typing import Any

from lan_demon.commands import prompts
from lan_demon.commands.errors import EXIT_USAGE
from lan_demon.commands.lan import choose_table, table_key
from lan_demon.commands.options import (add_looks, check_browse, check_code, check_key,
                                        check_name, lan_join_flags, name_refusal, positive)
from lan_demon.net.names import seated_words

HELP = "sit at a table hosted elsewhere"
NAME_TOLD_SECONDS = 12.0  # a name taken at the table: how long the screen says which you got
DESCRIPTION = ("Connect to an arbiter and open the table. Without an address, ask the LAN "
               "(mDNS, multicast) for tables started with 'host --lan', list them and join the "
               "one you choose.")


def add_arguments(join: argparse.ArgumentParser) -> None:
    join.add_argument("address", nargs="?", help="HOST:PORT or tcp://HOST:PORT (default: "
                      "find the tables on the LAN and choose)")
    join.add_argument("--name", help="your name at the table (default: the name this "
                      "computer last sat down with at that table, else your login name)")
    join.add_argument("--spectate", action="store_true", help="watch instead of playing")
    join.add_argument("--tries", type=positive, default=3, help="connection attempts before "
                      "giving up (default 3)")
    join.add_argument("--no-bell", action="store_true", help="no terminal bell (when someone "
                      "goes out)")
    lan_join_flags(join)
    add_looks(join)


def run(args: argparse.Namespace) -> int:
    from lan_demon.coach import coach_for
    from lan_demon.net.connect import normalize_address
    from lan_demon.seat.palette import palette_for
    from lan_demon.tui.app import build_app, table_for
    from lan_demon.tui.plain import PlainTable
    from lan_demon.tui.plain import run as run_plain
    address = normalize_address(args.address) if args.address else None
    key, code = check_key(args.key), check_code(args.code, "--code")
    check_browse(args)
    check_name(args.name, args.spectate)
    looks = palette_for(args.palette)
    if not args.plain:  # (the line-mode table reads lines: a pipe will do)
        prompts.need_terminal()
    if address is None:
        table = choose_table(args.browse)
        address, key = f"tcp://{table.endpoint}", table_key(table, key)
        if table.code_needed and code is None:
            code = prompts.ask_code()
    args.name = seat_name(args.name, address, args.spectate)
    client = connect_person(args, address, key, code)
    if client is None:
        return EXIT_USAGE  # as any other refusal of the command: said in one line
    told = name_told(args, client)
    if told:  # a name taken (or shortened): said before the table opens, and on it
        print(f"lan-demon: {told} (join again with another --name to choose one)",
              file=sys.stderr)
    if args.plain:
        ctl: Any = PlainTable(client, sys.stdout, coach=coach_for(client.game.id))
        if told:
            ctl.tell("said", told)
        run_plain(ctl)
    else:
        ctl = table_for(client, bell=not args.no_bell, coach=coach_for(client.game.id),
                        big=args.big)
        if told:
            ctl.flash(told, seconds=NAME_TOLD_SECONDS)
        build_app(ctl, looks).run()
    client.leave()
    client.close()
    print(farewell(client, args, host_silent=ctl.reconnecting))
    return 0


def farewell(client: Any, args: argparse.Namespace, host_silent: bool = False) -> str:
    """What the terminal says once the table's screen is gone: where the person stands now
    (a seat kept, and the command that takes it back — only if the host comes back, when it
    was not answering: ``host_silent``), and after a match its final scores, which must not
    vanish with the screen."""
    from lan_demon.commands.results import format_table
    from lan_demon.seat.seat import SEAT_KEPT_MINUTES
    address = client.address.removeprefix("tcp://")
    table = client.table or {}
    if table.get("phase") == "over" and table.get("result"):
        return f"The match at {address} is over.\n{format_table(table['result'])}"
    if args.spectate:
        return f"You stopped watching the table at {address}."
    again = join_again(address, args, key=client.server_key)
    if table.get("gone"):
        return f"The host at {address} no longer knows your seat ({table['gone']}). To sit " \
               f"at the table hosted there now:\n  {again}"
    if table.get("phase", "lobby") == "lobby":  # a seat left in the lobby is freed (seats.gone)
        return f"You left the table at {address} before the match began. To sit down " \
               f"again:\n  {again}"
    if host_silent:  # (a host stopped mid-match: "your seat is kept" would promise too much)
        return (f"You left the table at {address} while its host was not answering: it may "
                f"have been stopped. If it comes back within {SEAT_KEPT_MINUTES} minutes, "
                f"this takes your seat back:\n  {again}")
    return (f"You left the table at {address}; your seat is kept for {SEAT_KEPT_MINUTES} "
            f"minutes.\nTo take it back, with your cards as you left them:\n  {again}")


def join_again(address: str, args: argparse.Namespace, name: str | None = None,
               key: bytes | str | None = None) -> str:
    """The join that takes a seat back, as this terminal can run it: the program's path when
    ``lan-demon`` on the PATH is not this one (a venv not activated: the bare name would fail),
    the table's key at an encrypted table (without it the printed join fails with 'the
    encrypted handshake failed'), and ``--no-bell``, ``--palette``, ``--big`` and
    ``--plain`` when they were given (a screen reader's user comes back to a plain table)."""
    bell = " --no-bell" if getattr(args, "no_bell", False) else ""
    if isinstance(key, bytes):
        key = key.decode("ascii")
    keyed = f" --key {shlex.quote(key)}" if key else ""
    palette = getattr(args, "palette", None)
    looks = (f" --palette {palette}" if palette else "") + \
        (" --big" if getattr(args, "big", False) else "") + \
        (" --plain" if getattr(args, "plain", False) else "")
    return f"{program()} join {address} --name {shlex.quote(name or args.name)}{keyed}{bell}" \
        f"{looks}"


def program() -> str:
    """How to run this lan-demon again from this terminal."""
    called = sys.argv[0] if sys.argv else ""
    if os.path.basename(called) == "lan-demon":
        found = shutil.which("lan-demon")
        try:
            if found and os.path.samefile(found, called):
                return "lan-demon"
        except OSError:
            pass
        return shlex.quote(called)
    if called.endswith(os.path.join("lan_demon", "__main__.py")):  # python -m lan_demon
        return f"{shlex.quote(sys.executable)} -m lan_demon"
    return "lan-demon"


def seat_name(given: str | None, address: str, spectate: bool) -> str:
    """The name to join ``address`` with. A seat taken from this computer is found again by
    the name it was taken with (its token is kept under it): without ``--name``, that name
    when there is one; with a ``--name`` that differs only in case from it ("ann" for "Ann"),
    the seat's own spelling. Otherwise the name given, or the login name."""
    from lan_demon.net.tokens import names_at
    names = [] if spectate else names_at(address)
    if given is None and len(names) == 1:
        print(f"lan-demon: back at {address.removeprefix('tcp://')} as {names[0]}, the name "
              f"this computer sat down with there", file=sys.stderr)
        return names[0]
    same = [n for n in names if given is not None and n.casefold() == given.casefold()]
    if given is not None and given not in names and len(same) == 1:
        print(f"lan-demon: joining as {same[0]}, the name this computer sat down with there",
              file=sys.stderr)
        return same[0]
    if spectate:
        return given if given is not None else login_name()
    if given is not None:
        check_name(given, spectate)
        return given
    return own_name()


def own_name() -> str:
    """The login name; without one to be had (or one the table cannot show), asked for until
    one is given."""
    name = login_name()
    while name_refusal(name) is not None:
        name = prompts.ask("Your name at the table: ")
    return name


def login_name() -> str:
    """The user's login name, capitalised ("Ann"): a name the others at the table know, where
    a fixed default would make everyone "you" ("waiting for you (captain)")."""
    import getpass
    try:
        name = getpass.getuser().strip()
    except (OSError, KeyError):  # (no login name to be had)
        name = ""
    return name[:1].upper() + name[1:]


def seat_hint(err: Any, client: Any, args: argparse.Namespace) -> str:
    """For a seat refused once the match has started: the names this computer sat down with
    at that table, and the join that takes such a seat back (someone coming back without
    ``--name``, or as "ann" for "Ann", would otherwise hear only that the match has started)."""
    from lan_demon.net.tokens import names_at
    if err.code != "full" or args.spectate:
        return ""
    names = [n for n in names_at(client.address) if n != args.name]
    if not names:
        return ""
    address = client.address.removeprefix("tcp://")
    joins = "; ".join(join_again(address, args, n, client.server_key) for n in names)
    sat = " or ".join(repr(n) for n in names)
    return f". You sat down here as {sat}: to take that seat back, {joins}"


_TAKEN_BACK: weakref.WeakSet[Any] = weakref.WeakSet()  # clients back at a seat by its token


def name_told(args: argparse.Namespace, client: Any) -> str | None:
    """The line saying the table seated this person under another name ("Ann is taken at
    this table: you sit as Ann ²"); None for a spectator, and for a seat taken back by its
    stored token — it was named so when first taken (said again, it would tell "ANN is taken"
    to the person coming back to their own seat)."""
    if args.spectate or client in _TAKEN_BACK:
        return None
    return seated_words(args.name, client.name)


def connect_person(args: argparse.Namespace, address: str, key: str | None,
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
        stored = client.token is not None  # (read from disk: this seat taken before)
        try:
            client.connect(timeout=3.0)
            if stored and client.seat is not None:
                _TAKEN_BACK.add(client)
            return client
        except ConnectError as err:
            if err.code == "bad_code":
                print(f"lan-demon: {err}", file=sys.stderr)
                code = prompts.ask_code()
                continue
            if err.code is not None or attempt >= args.tries:
                print(f"lan-demon: {err}{seat_hint(err, client, args)}", file=sys.stderr)
                return None
            attempt += 1
            print(f"lan-demon: {err} — trying again ({attempt} of {args.tries})",
                  file=sys.stderr)
