"""``lan-demon verify``: a match journal audited from its records and the spec alone."""

from __future__ import annotations

import argparse

from lan_demon.commands.options import add_journal

HELP = "audit a match journal: chain, deals, moves, scores"
DESCRIPTION = ("Check a journal from its records and the spec alone: the chain of records, "
               "every deal against its commitments, every move and refusal with the engine, "
               "every score, the clock, what the host promised before each deal. Prints one "
               "line: OK with the counts (exit 0) and, under it, each round dealt without a "
               "seat's randomness and each seat that found a deal wrong; or the first problem "
               "and where (exit 1); a file that cannot be read exits 2.")


def add_arguments(ver: argparse.ArgumentParser) -> None:
    add_journal(ver)


def run(args: argparse.Namespace) -> int:
    from lan_demon.net.audit import verify
    verdict = verify(args.journal)
    print(verdict.line)
    for note in verdict.notes:
        print(f"  {note}")
    return 0 if verdict.ok else 1
