"""What a fresh host and a resumed one do alike once bound: show the room code and the key's
fingerprint, announce the table on the LAN (mDNS) when it has a LAN name, serve until the match
ends and print its result."""

from __future__ import annotations

import json
import sys
from typing import Any

from lan_demon.commands.errors import LanError
from lan_demon.commands.results import format_table

#: Open files a host asks for, its soft limit raised towards its hard one: each watcher holds
#: two connections, and at the usual 1,024 a crowd of ~500 reached it — libzmq then retries the
#: refused accept in a loop, a whole core, and the ones past it wait. 16,384 is
#: ~8,000 watchers; past it the same happens.
OPEN_FILES = 16384


def more_open_files() -> int:
    """Raise this process's soft limit of open files to :data:`OPEN_FILES` (or its hard limit,
    if lower); the limit now. Where there is no such limit (Windows), or it cannot be raised,
    it is left as it is."""
    try:
        import resource
    except ImportError:
        return OPEN_FILES
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = OPEN_FILES if hard == resource.RLIM_INFINITY else min(hard, OPEN_FILES)
    if soft == resource.RLIM_INFINITY or soft >= want:
        return OPEN_FILES if soft == resource.RLIM_INFINITY else soft
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    except (ValueError, OSError):
        return soft
    return want


class Announcement:
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


def serve_table(server: Any, lan: Announcement, name: str | None, game: str, keys: Any,
                code: str | None, info: Any, as_json: bool,
                unjournaled: str | None = None, web: Any = None) -> int:
    """Show the room code, the key's fingerprint and where the match is journaled (or why it
    is not: ``unjournaled``), announce the table on the LAN when it has a LAN name, serve the
    page to browsers as ``web`` (a :class:`~lan_demon.commands.web_page.WebChoice`) says, and
    serve."""
    if code is not None:
        from lan_demon.net.security import format_code
        print(f"lan-demon: room code {format_code(code)} — tell it to the players",
              file=info, flush=True)
    if keys is not None:  # the key quoted for a shell (z85 has no "'"), on a line of its own
        print(f"lan-demon: encrypted; key fingerprint {keys.fingerprint}", file=info,
              flush=True)
        print(f"lan-demon: who joins by address adds --key '{keys.public.decode()}'",
              file=info, flush=True)
    elif code is not None:  # the PUB goes by IP address, and the traffic is in clear (§20)
        print("lan-demon: not encrypted: only laptops where someone gave the code may watch, "
              "but anyone who can see the network traffic sees the play (--secure hides it)",
              file=info, flush=True)
    print(f"lan-demon: {journal_words(server, unjournaled)}", file=info, flush=True)
    page = None
    try:
        if name is not None:
            lan.announcer = announce(name, game, server, keys, code is not None, info)
        if web is not None:
            from lan_demon.commands.web_page import start_web
            page = start_web(server, game, keys, code, web, info)
            if page is not None and hasattr(server.watch, "remind"):
                server.watch.remind = web_reminder(page.url, web.lan, code)
        return _serve_host(server, as_json)
    finally:
        if page is not None:
            page.stop()
        lan.close()
        server.close()


def web_reminder(url: str, lan: bool, code: str | None) -> list[str]:
    """What the host's log says again between rounds, for latecomers: the page's address (and
    its QR code at a --lan table), which has scrolled away since the start."""
    from lan_demon.commands.web_page import banner
    lines = banner(url, lan, colour=False)
    if lan:
        coded = "" if code is None else " (with the room code shown above)"
        lines[0] = f"lan-demon: to sit down from a phone on this Wi-Fi, open {url}{coded} or " \
                   f"scan this code:"
    return lines


def announce(name: str, game: str, server: Any, keys: Any, code_needed: bool,
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
    print(f"lan-demon: on the LAN as {announcer.name!r} at {where} (updates on ports "
          f"{server.pub_port} and {server.watchers_pub.port} for spectators; open the three "
          f"ports and UDP 5353 in the firewall)", file=info, flush=True)
    return announcer


def _serve_host(server: Any, as_json: bool) -> int:
    if sys.stdin is not None and sys.stdin.isatty() and not as_json:
        # The person hosting runs the evening from this window: pause, remove …
        from lan_demon.commands.host_desk import Desk
        Desk(server.asks.put, sys.stdin, sys.stdout, level=server.asks.bot_level).start()
    try:
        more_open_files()  # two a watcher
        result = server.serve()
    except KeyboardInterrupt:
        print(f"lan-demon: host stopped{stopped_how(server)}", file=sys.stderr)
        server.close()
        return 130
    server.finish()
    if as_json:
        print(json.dumps(result, ensure_ascii=False, indent=1))
    else:
        print(format_table(result))
    return 0


def journal_words(server: Any, unjournaled: str | None) -> str:
    """The host's line at the start about its journal: where it is, and how a stopped host
    takes the match up again — or that it cannot."""
    journal = server.journal
    if journal is None:
        return (f"this match is not journaled ({unjournaled or '--no-journal'}), so a host "
                f"stopped mid-match cannot take it up again")
    from lan_demon.net.journals import in_folder
    command = "lan-demon host --resume" + ("" if in_folder(journal.path) else
                                           f" {journal.path}")
    return (f"journaling the match to {journal.path}; if this host stops, '{command}' takes "
            f"it up again")


def stopped_how(server: Any) -> str:
    """What a host stopped mid-match, or in a lobby with seats, leaves behind (the players'
    screens wait for it): a journaled match resumes — with ``--resume`` alone when it is the
    latest unfinished one of the journal folder, else with its path — and one not journaled
    is lost: said, not left to be guessed."""
    arbiter = server.arbiter
    seated = len(getattr(arbiter, "seats", ()))
    if arbiter.phase == "over" or (arbiter.phase == "lobby" and not seated):
        return ""
    from lan_demon.net.seats import TOKEN_LIFE
    what = "mid-match" if arbiter.phase != "lobby" else \
        f"with {seated} seated in its lobby"
    journal = server.journal
    if journal is None:
        return f" {what}; it was not journaled, so it cannot be resumed"
    back = "it" if arbiter.phase != "lobby" else "the lobby"
    command, which = f"lan-demon host --resume {journal.path}", ""
    if _resumed_alone(journal.path):
        command, which = "lan-demon host --resume", f" (the latest unfinished match: " \
            f"{journal.path})"
    return (f" {what}; '{command}' brings {back} back, the players' seats with it, for "
            f"{TOKEN_LIFE / 60:g} minutes{which}")


def _resumed_alone(path: Any) -> bool:
    """Whether ``host --resume`` with no journal would take up this one (this process holds
    its lock, so it is not "in use" to itself)."""
    from pathlib import Path

    from lan_demon.net import journals
    if not journals.in_folder(path):
        return False
    latest = journals.latest_unfinished(journals.survey(mine=path))
    return latest is not None and latest.path.resolve() == Path(path).resolve()
