"""``lan-demon hosts``: the tables announced on the LAN, one a line."""

from __future__ import annotations

import argparse
import sys

from lan_demon.commands.errors import UsageError

HELP = "list the tables announced on the LAN"
DESCRIPTION = ("Ask the LAN with mDNS (zeroconf, multicast) for tables started with 'host "
               "--lan', list them one a line, exit 0 — also when none answered.")


def add_arguments(hosts: argparse.ArgumentParser) -> None:
    hosts.add_argument("--timeout", type=float, default=3.0, help="seconds to listen for "
                       "answers, more than 0 and at most 60 (default 3)")


def run(args: argparse.Namespace) -> int:
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
