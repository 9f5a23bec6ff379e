"""What a fresh host and a resumed one do alike once bound: show the room code and the key's
fingerprint, announce the table on the LAN (mDNS) when it has a LAN name, serve until the match
ends and print its result."""

from __future__ import annotations

import json
import sys
from typing import Any

from lan_demon.commands.errors import LanError
from lan_demon.commands.results import format_table


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
                code: str | None, info: Any, as_json: bool) -> int:
    """Show the room code and the key's fingerprint, announce the table on the LAN when it has
    a LAN name, and serve."""
    if code is not None:
        from lan_demon.net.security import format_code
        print(f"lan-demon: room code {format_code(code)} — tell it to the players",
              file=info, flush=True)
    if keys is not None:
        print(f"lan-demon: encrypted; key fingerprint {keys.fingerprint} (public key "
              f"{keys.public.decode()})", file=info, flush=True)
    try:
        if name is not None:
            lan.announcer = announce(name, game, server, keys, code is not None, info)
        return _serve_host(server, as_json)
    finally:
        lan.close()
        server.close()


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
    print(f"lan-demon: on the LAN as {announcer.name!r} at {where} (updates on port "
          f"{server.pub_port}; open both ports and UDP 5353 in the firewall)",
          file=info, flush=True)
    return announcer


def _serve_host(server: Any, as_json: bool) -> int:
    try:
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


def stopped_how(server: Any) -> str:
    """What a host stopped mid-match leaves behind (the players' screens wait for it): a
    journaled match resumes, one not journaled is lost — said, not left to be guessed."""
    if server.arbiter.phase in ("lobby", "over"):
        return ""
    from lan_demon.net.seats import TOKEN_LIFE
    journal = server.journal
    if journal is not None:
        return (f" mid-match; 'lan-demon host --resume {journal.path}' brings it back, the "
                f"players' seats with it, for {TOKEN_LIFE / 60:g} minutes")
    return (" mid-match; it was not journaled, so it cannot be resumed (host --journal PATH "
            "makes a match resumable)")
