"""``lan-demon replay``: a match journal dealt and played again, printed round by round."""

from __future__ import annotations

import argparse
import json
import sys

from lan_demon.commands.results import format_table

HELP = "replay a match journal round by round"
DESCRIPTION = ("Deal every round again from the journal's seed, apply its moves, and print the "
               "match round by round.")


def add_arguments(rep: argparse.ArgumentParser) -> None:
    rep.add_argument("journal", help="a journal written by 'lan-demon host --journal'")
    rep.add_argument("--json", action="store_true", help="print the JSON result document")


def run(args: argparse.Namespace) -> int:
    from lan_demon.net.replay import replay
    rep = replay(args.journal)
    if rep.torn:
        print(f"lan-demon: the journal's last record was cut off mid-write; read up to the "
              f"last whole record", file=sys.stderr)
    if rep.unchained:
        print("lan-demon: a version 1 journal (unchained: an edit in it cannot be found; "
              "'lan-demon verify' needs version 2)", file=sys.stderr)
    doc = rep.match.result_data()
    if args.json:
        print(json.dumps(doc, ensure_ascii=False, indent=1))
        return 0
    print(format_table(doc))
    for k, moves in enumerate(rep.moves, 1):
        print(f"round {k}: {moves} moves" + (" (unfinished)" if k > len(doc["rounds"]) else ""))
    return 0
