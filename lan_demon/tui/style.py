"""Colours and card faces for the terminal table.

A screen is built as prompt_toolkit "formatted text": a list of ``(style, text)`` fragments.
Cards are red or black by suit, with the ♠♥♦♣ symbols; in Racing Demon a card also shows the
colour of its owner's card back (RD-2) as a coloured edge, so everyone can see whose card sits
on a stack.
"""

from __future__ import annotations

from prompt_toolkit.styles import Style

from lan_demon.games.cards import SUIT_SYMBOLS, Card

Fragments = list[tuple[str, str]]

#: Card-back colours, one per seat (cycling past eight seats).
BACKS = ["#1f77b4", "#2ca02c", "#d62728", "#9467bd", "#ff7f0e", "#17becf", "#8c564b",
         "#e377c2"]

STYLE = Style.from_dict({
    "title": "bold reverse",
    "dim": "#888888",
    "key": "bold #ffd75f",
    "flash": "bold #ffffff bg:#af0000",
    "good": "bold #5fd75f",
    "warn": "bold #ffaf00",
    "card": "bg:#ffffff #000000",
    "card.red": "bg:#ffffff #d70000 bold",
    "card.black": "bg:#ffffff #000000 bold",
    "card.hidden": "bg:#444444 #bbbbbb",
    "nocard": "#666666",
    "me": "bold",
    "away": "#ff5f5f",
    "chart": "#5fafff",
    **{f"back{i}": f"bg:{colour}" for i, colour in enumerate(BACKS)},
})


def face(card: Card | None, width: int = 3) -> str:
    """A card's face in ``width`` characters: ``10♥``, ``Q♠``; ``··`` for none."""
    if card is None:
        return "·" * (width - 1)
    if card.hidden:
        return "░" * (width - 1)
    rank = "10" if card.rank == 10 else "A23456789TJQK"[card.rank - 1]
    return (rank + SUIT_SYMBOLS[card.suit]).rjust(width - 1)


def card_fragments(card: Card | None, owner_edge: bool = False, width: int = 3) -> Fragments:
    """A card as fragments: an owner-coloured edge (Racing Demon), then its face."""
    if card is None:
        return [("class:nocard", " " + face(None, width))]
    frags: Fragments = []
    if owner_edge and card.owner >= 0:
        frags.append((f"class:back{card.owner % len(BACKS)}", " "))
    else:
        frags.append(("", " "))
    if card.hidden:
        frags.append(("class:card.hidden", face(card, width)))
    else:
        frags.append(("class:card.red" if card.red else "class:card.black", face(card, width)))
    return frags


def code_card(code: str | None) -> Card | None:
    """A card from its wire code in a view (``5H@2``, ``??@1``), or None."""
    if not code:
        return None
    return Card.from_data(code)


def text_of(frags: Fragments) -> str:
    """The plain text of fragments (for tests and text captures)."""
    return "".join(text for _, text in frags)


def line(*parts: Fragments | tuple[str, str] | str) -> Fragments:
    """One line of text from plain strings, (style, text) pairs and fragment lists."""
    out: Fragments = []
    for part in parts:
        if isinstance(part, str):
            out.append(("", part))
        elif isinstance(part, tuple):
            out.append(part)
        else:
            out += part
    return out + [("", "\n")]
