"""Colours and card faces for the terminal table.

A screen is built as prompt_toolkit "formatted text": a list of ``(style, text)`` fragments.
Cards are red or black by suit, with the ♠♥♦♣ symbols; in Racing Demon a card also shows its
owner's mark (RD-2: every pack has a back of its own) as a coloured edge holding the owner's
letter, so everyone can see whose card sits on a stack. Ten colours are as many as a terminal
shows apart at a glance, so the mark is colour *and* letter: seat 0 is ``a`` on blue, seat 10
``k`` on blue — no two of the first 130 seats (the least common multiple of 10 and 26) look alike.
"""

from __future__ import annotations

from prompt_toolkit.styles import Style

from lan_demon.games.cards import SUIT_SYMBOLS, Card
from lan_demon.net.cells import cells, cut

Fragments = list[tuple[str, str]]

#: Owner colours (card backs, RD-2), cycling every ten seats; the letter tells them apart.
OWNER_COLOURS = ["#1f77b4", "#2ca02c", "#d62728", "#9467bd", "#ff7f0e", "#17becf", "#8c564b",
                 "#e377c2", "#bcbd22", "#7f7f7f"]
OWNER_LETTERS = "abcdefghijklmnopqrstuvwxyz"
BACKS = OWNER_COLOURS  # the older name


def _ink(colour: str) -> str:
    """Black or white, whichever reads better on ``colour``."""
    r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return "#000000" if 0.299 * r + 0.587 * g + 0.114 * b > 140 else "#ffffff"


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
    "hl": "bg:#ffd75f",  # a card that fits a stack now, and the stacks it fits
    **{f"back{i}": f"bg:{colour}" for i, colour in enumerate(OWNER_COLOURS)},
    **{f"owner{i}": f"bg:{colour} {_ink(colour)} bold" for i, colour in enumerate(OWNER_COLOURS)},
    **{f"ownerfg{i}": f"{colour} bold" for i, colour in enumerate(OWNER_COLOURS)},
})


def owner_mark(seat: int) -> tuple[str, str]:
    """The mark of ``seat``'s pack: (style, letter) — a colour and a letter, so that twenty
    seats (and up to 130) never look alike although colours repeat every ten."""
    return (f"class:owner{seat % len(OWNER_COLOURS)}", OWNER_LETTERS[seat % len(OWNER_LETTERS)])


def owner_ink(seat: int) -> str:
    """The style for text in ``seat``'s colour (a name in the list of players)."""
    return f"class:ownerfg{seat % len(OWNER_COLOURS)}"


def signed(n: int) -> str:
    """A score with its sign, a real minus for negatives: ``+3``, ``0``, ``−13``."""
    return f"+{n}" if n > 0 else f"−{-n}" if n < 0 else "0"


def face3(card: Card | None) -> str:
    """A card's face in exactly three characters: `` 5♥``, ``10♥``; `` ··`` for none, so
    rows of cards line up and their width is known before they are drawn."""
    if card is None:
        return " ··"
    if card.hidden:
        return " ░░"
    rank = "10" if card.rank == 10 else "A23456789TJQK"[card.rank - 1]
    return rank.rjust(2) + SUIT_SYMBOLS[card.suit]


def card4(card: Card | None, owner: bool = False, lit: bool = False) -> Fragments:
    """A card in four characters: its owner's mark (``owner``) or a space, then its face;
    ``lit``: highlighted (it fits a stack, or is a stack a card of yours fits)."""
    if owner and card is not None and card.owner >= 0 and not card.hidden:
        edge = owner_mark(card.owner)
    else:
        edge = ("", " ")
    if card is None:
        return [edge, ("class:nocard", face3(None))]
    if card.hidden:
        style = "class:card.hidden"
    else:
        style = "class:card.red" if card.red else "class:card.black"
    return [edge, (style + (" class:hl" if lit else ""), face3(card))]


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
        frags.append(owner_mark(card.owner))
    else:
        frags.append(("", " "))
    if card.hidden:
        frags.append(("class:card.hidden", face(card, width)))
    else:
        frags.append(("class:card.red" if card.red else "class:card.black", face(card, width)))
    return frags


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


def keep_rows(rows: list[Fragments], height: int) -> list[Fragments]:
    """The first ``height`` rows (a safety net like :func:`clip_line`: a screen is laid out
    to fit, and tests/test_small_screens.py fails on any row it drops that is not blank)."""
    return rows[:max(0, height)]


def cells_of(frags: Fragments) -> int:
    """The terminal cells fragments take (a name's emoji take two each, its marks none)."""
    return cells(text_of(frags))


def clip_line(frags: Fragments, width: int) -> Fragments:
    """One line cut to ``width`` terminal cells (a safety net: screens are laid out to fit,
    and tests/test_small_screens.py fails on anything it cuts)."""
    out: Fragments = []
    for style, text in frags:
        if width <= 0:
            break
        out.append((style, cut(text, width)))
        width -= cells(text)
    return out
