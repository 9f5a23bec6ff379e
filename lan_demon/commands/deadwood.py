"""``lan-demon deadwood``: Gin Solitaire's best melds and least deadwood of a hand (GS-5)."""

from __future__ import annotations

import argparse
from typing import Any

from lan_demon.commands.errors import UsageError

HELP = "Gin Solitaire: the best melds of a hand"
DESCRIPTION = "Print the best melds and the least deadwood of 10 or 11 cards (GS-5)."


def add_arguments(dw: argparse.ArgumentParser) -> None:
    dw.add_argument("cards", nargs="+", help="card codes such as QS 10D 7♥")


def run(args: argparse.Namespace) -> int:
    from lan_demon.games.melds import best_arrangement
    best = best_arrangement(_deadwood_hand(args.cards))
    for meld in best.melds:
        print("meld:     " + " ".join(c.symbol for c in meld))
    print("deadwood: " + (" ".join(c.symbol for c in best.deadwood) or "none"))
    if best.discard is not None:
        print(f"discard:  {best.discard.symbol}")
    print(f"points:   {best.points}")
    return 0


def _deadwood_hand(texts: list[str]) -> list[Any]:
    """GS-5: a hand is 10 cards, or 11 before its discard, each card once and no Joker; a
    mistake is told in the words the user typed ("10♦ and 10D are the same card")."""
    from lan_demon.games.cards import parse_card
    from lan_demon.games.melds import HAND_SIZE
    seen: dict[str, str] = {}
    hand = []
    for text in texts:
        card = parse_card(text)  # a CardError names the text that is not a card
        if card.is_joker:
            raise UsageError(f"{text} is the Joker, which is never in a hand (GS-2)")
        if card.code in seen:
            first = seen[card.code]
            raise UsageError(f"{text} is given twice" if first == text else
                             f"{first} and {text} are the same card")
        seen[card.code] = text
        hand.append(card)
    if len(hand) not in (HAND_SIZE - 1, HAND_SIZE):
        raise UsageError(f"a Gin Solitaire hand is {HAND_SIZE - 1} cards, or {HAND_SIZE} "
                         f"before its discard (GS-2, GS-3), not {len(hand)}")
    return hand
