"""The zeroconf side of tests/test_discovery.py, run only inside a test's own network namespace.

    ip netns exec NS python tests/netns_helper.py announce --address 10.77.0.1 ...
    ip netns exec NS python tests/netns_helper.py browse --interface 10.77.0.2 ...

``announce`` registers a table, prints ``announced NAME`` and then obeys lines on stdin:
``update TAKEN FREE`` (prints ``updated``) and ``quit`` or end of input (says goodbye, prints
``closed``). ``browse`` prints the tables found as one JSON list.

mDNS is multicast, so the script refuses to start in the machine's own network namespace
(it must be in one of the named namespaces ``ip netns add`` made): it is only ever meant to run
under ``ip netns exec``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys

REFUSED = 3


NETNS_DIR = "/var/run/netns"


def in_own_namespace() -> bool:
    """True when this process's network namespace is one that ``ip netns add`` named (the
    check ``ip netns identify`` makes), so multicast stays inside the test's veth pair."""
    try:
        mine = os.stat("/proc/self/ns/net")
        for name in os.listdir(NETNS_DIR):
            named = os.stat(os.path.join(NETNS_DIR, name))
            if (named.st_dev, named.st_ino) == (mine.st_dev, mine.st_ino):
                return True
    except OSError:
        return False
    return False


def cmd_announce(args: argparse.Namespace) -> int:
    from lan_demon.net.discovery import announce
    announcer = announce(args.name, args.port, args.game, args.taken, args.free, args.code,
                         [args.address], server_key=args.key, pub_port=args.pub)
    try:
        print(f"announced {announcer.name}", flush=True)
        for line in sys.stdin:
            words = line.split()
            if words[:1] == ["update"]:
                announcer.update(int(words[1]), int(words[2]))
                print("updated", flush=True)
            elif words[:1] == ["quit"]:
                break
    finally:
        announcer.close()
    print("closed", flush=True)
    return 0


def cmd_browse(args: argparse.Namespace) -> int:
    from lan_demon.net.discovery import browse
    tables = browse(args.timeout, interfaces=[args.interface], enough=args.enough)
    print(json.dumps([dict(dataclasses.asdict(t), fingerprint=t.fingerprint) for t in tables]))
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    ann = sub.add_parser("announce")
    ann.add_argument("--address", required=True)
    ann.add_argument("--name", default="test table")
    ann.add_argument("--port", type=int, default=7700)
    ann.add_argument("--game", default="racing-demon")
    ann.add_argument("--taken", type=int, default=1)
    ann.add_argument("--free", type=int, default=3)
    ann.add_argument("--code", action="store_true")
    ann.add_argument("--key")
    ann.add_argument("--pub", type=int)
    bro = sub.add_parser("browse")
    bro.add_argument("--interface", required=True)
    bro.add_argument("--timeout", type=float, default=5.0)
    bro.add_argument("--enough", type=int)
    args = parser.parse_args()
    if not in_own_namespace():
        print("netns_helper: refusing to run zeroconf outside a test's network namespace",
              file=sys.stderr)
        return REFUSED
    return cmd_announce(args) if args.command == "announce" else cmd_browse(args)


if __name__ == "__main__":
    sys.exit(main())
