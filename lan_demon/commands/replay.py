"""``lan-demon replay``: a match journal dealt and played again, printed round by round; with
``--coach --seat NAME``, the coach's review of each Racing Demon round for that seat."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict

from lan_demon.commands.errors import UsageError
from lan_demon.commands.options import add_journal
from lan_demon.commands.results import format_table

HELP = "replay a match journal round by round"
DESCRIPTION = ("Deal every round again from the journal's seed, apply its moves, and print the "
               "match round by round. With --coach --seat NAME: the coach's review of each "
               "Racing Demon round for that seat (missed plays, races lost, the best missed "
               "move), from what that seat could see.")


def add_arguments(rep: argparse.ArgumentParser) -> None:
    add_journal(rep)
    rep.add_argument("--json", action="store_true", help="print the JSON result document")
    rep.add_argument("--coach", action="store_true",
                     help="review each Racing Demon round for the seat named by --seat")
    rep.add_argument("--seat", metavar="NAME", help="whose rounds the coach reviews")


def run(args: argparse.Namespace) -> int:
    if args.coach or args.seat is not None:
        return coach(args)
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


def coach(args: argparse.Namespace) -> int:
    """The coach's review of every round, for one seat: text, or with --json the reviews."""
    if not args.coach:
        raise UsageError("--seat names whose rounds the coach reviews: add --coach")
    if not args.seat or not args.seat.strip():
        raise UsageError("--coach needs --seat NAME: whose rounds to review")
    from lan_demon.coach.journal import CoachError, journal_reviews
    try:
        reviews = journal_reviews(args.journal, args.seat)
    except CoachError as err:
        raise UsageError(str(err)) from None
    if args.json:
        print(json.dumps([{"round": r.round + 1, "finished": r.finished,
                           "lines": r.review.lines(), **asdict(r.review)} for r in reviews],
                         ensure_ascii=False, indent=1))
        return 0
    if not reviews:
        print("no round was dealt in this journal: nothing to review")
    for r in reviews:
        print(f"Round {r.round + 1}" + ("" if r.finished else " (unfinished: the journal "
                                        "ends in it)"))
        for text in r.review.lines(shown=10):
            print(f"  {text}")
    return 0
