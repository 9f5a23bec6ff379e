"""``lan-demon hosts``: the tables announced on the LAN, one a line."""

from __future__ import annotations

import argparse
import sys

from lan_demon.commands.options import check_browse_seconds
from lan_demon.net.discovery import BROWSE_SECONDS, MOST_BROWSE_SECONDS

HELP = "list the tables announced on the LAN"
DESCRIPTION = ("Ask the LAN with mDNS (zeroconf, multicast) for tables started with 'host "
               "--lan', list them one a line, exit 0 — also when none answered.")


def add_arguments(hosts: argparse.ArgumentParser) -> None:
    hosts.add_argument("--timeout", type=float, default=BROWSE_SECONDS, help="seconds to "
                       f"listen for answers, more than 0 and at most {MOST_BROWSE_SECONDS:g} "
                       f"(default {BROWSE_SECONDS:g})")


def run(args: argparse.Namespace) -> int:
    from lan_demon.net import discovery
    check_browse_seconds(args.timeout, "--timeout")
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
