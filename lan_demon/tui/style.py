"""Colours and card faces for the terminal table.

A screen is built as prompt_toolkit "formatted text": a list of ``(style, text)`` fragments.
Cards are red or black by suit, with the ♠♥♦♣ symbols; in Racing Demon a card also shows its
owner's mark (RD-2: every pack has a back of its own) as a coloured edge holding the owner's
letter, so everyone can see whose card sits on a stack. Ten colours are as many as a terminal
shows apart at a glance, so the mark is colour *and* letter: seat 0 is ``a`` on blue, seat 10
``k`` on blue — no two of the first 130 seats (the least common multiple of 10 and 26) look alike.
The colours come from a palette (:mod:`lan_demon.seat.palette`: ``classic``, the colour-blind
safe ``safe``, or ``none``), chosen by ``--palette`` or ``NO_COLOR``: :func:`style_for`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from prompt_toolkit.styles import Style

from lan_demon.games.cards import SUIT_SYMBOLS, Card
from lan_demon.net.cells import cells, cut
from lan_demon.seat.palette import CLASSIC, OWNER_CYCLE, Palette, owner_colour

Fragments = list[tuple[str, str]]

#: Owner colours (card backs, RD-2) of the first look, cycling every ten seats; the letter tells
#: them apart. A person may choose another palette (``--palette``, :mod:`lan_demon.seat.palette`).
OWNER_COLOURS = list(CLASSIC.owners)
OWNER_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def _ink(colour: str) -> str:
    """Black or white, whichever reads better on ``colour``."""
    r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return "#000000" if 0.299 * r + 0.587 * g + 0.114 * b > 140 else "#ffffff"


def _name_ink(colour: str) -> str:
    """A name written in an owner's colour on the terminal's (dark) ground: the colour, bold,
    where it reads (WCAG's 3:1 for bold text against black), else the terminal's own ink —
    the mark beside the name carries the colour (the safe palette's wine is too dark)."""
    def channel(c: int) -> float:
        v = c / 255
        return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4
    r, g, b = (channel(int(colour[i:i + 2], 16)) for i in (1, 3, 5))
    luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b
    return f"{colour} bold" if (luminance + 0.05) / 0.05 >= 3.0 else "bold"


def style_for(palette: Palette = CLASSIC) -> Style:
    """The terminal's styles in ``palette``. Owner classes are ``owner0`` … ``owner{N-1}``
    (N = :data:`OWNER_CYCLE`, a multiple of every palette's count), each in its palette colour,
    so :func:`owner_mark` names a class without knowing the palette. Without colour
    (``none``, ``NO_COLOR``) every signal colour gave is kept by other means: an owner's mark is
    its letter reversed, a card that fits is reversed and underlined, a card's face is plain
    (its suit is its symbol), a hidden card is ``░░``, states are bold words."""
    if not palette.colour:
        return Style.from_dict({
            "title": "bold reverse", "dim": "", "key": "bold", "flash": "bold reverse",
            "good": "bold", "warn": "bold", "card": "", "card.red": "bold",
            "card.black": "bold", "card.hidden": "", "nocard": "", "me": "bold", "away": "bold",
            "chart": "", "hl": "reverse underline",
            **{f"back{i}": "reverse" for i in range(OWNER_CYCLE)},
            **{f"owner{i}": "reverse bold" for i in range(OWNER_CYCLE)},
            **{f"ownerfg{i}": "bold" for i in range(OWNER_CYCLE)},
        })
    owners = [owner_colour(palette, i) for i in range(OWNER_CYCLE)]
    return Style.from_dict({
        "title": "bold reverse",
        "dim": "#888888",
        "key": f"bold {palette.lit}",
        "flash": f"bold {_ink(palette.flash)} bg:{palette.flash}",
        "good": f"bold {palette.good}",
        "warn": f"bold {palette.warn}",
        "card": f"bg:{palette.card} {palette.black}",
        "card.red": f"bg:{palette.card} {palette.red} bold",
        "card.black": f"bg:{palette.card} {palette.black} bold",
        "card.hidden": "bg:#444444 #bbbbbb",
        "nocard": "#666666",
        "me": "bold",
        "away": palette.away,
        "chart": palette.chart,
        "hl": f"bg:{palette.lit}",  # a card that fits a stack now, and the stacks it fits
        **{f"back{i}": f"bg:{colour}" for i, colour in enumerate(owners)},
        **{f"owner{i}": f"bg:{colour} {_ink(colour)} bold" for i, colour in enumerate(owners)},
        **{f"ownerfg{i}": _name_ink(colour) for i, colour in enumerate(owners)},
    })


STYLE = style_for(CLASSIC)


def owner_mark(seat: int) -> tuple[str, str]:
    """The mark of ``seat``'s pack: (style, letter) — a colour and a letter, so that twenty
    seats (and up to 130 in the classic palette, 78 in the safe one) never look alike although
    colours repeat."""
    return (f"class:owner{seat % OWNER_CYCLE}", OWNER_LETTERS[seat % len(OWNER_LETTERS)])


def owner_ink(seat: int) -> str:
    """The style for text in ``seat``'s colour (a name in the list of players)."""
    return f"class:ownerfg{seat % OWNER_CYCLE}"


def back(seat: int) -> str:
    """The style of a mark in ``seat``'s colour (a point on the chart of totals)."""
    return f"class:back{seat % OWNER_CYCLE}"


def signed(n: int) -> str:
    """A score with its sign, a real minus for negatives: ``+3``, ``0``, ``−13``."""
    if n > 0:
        return f"+{n}"
    if n < 0:
        return f"−{-n}"
    return "0"


#: ``--big``: cards drawn with a cell of card on each side of the face (`` 10♥ `` on white),
#: while a screen is drawn inside :func:`big_cards`.
BIG: ContextVar[bool] = ContextVar("big_cards", default=False)


@contextmanager
def big_cards(on: bool = True) -> Iterator[None]:
    """Draw cards big (``on``) within the block: the terminal tries a screen with them and
    keeps it only where everything fits (:meth:`lan_demon.tui.table.Controller.render`)."""
    token = BIG.set(on)
    try:
        yield
    finally:
        BIG.reset(token)


def card_margin() -> str:
    """The card's own margin on each side of its face: a space when cards are big."""
    return " " if BIG.get() else ""


def card_cells() -> int:
    """How many cells a :func:`card4` takes: 4, or 6 when big."""
    return 4 + 2 * len(card_margin())


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
        return [edge, ("class:nocard", card_margin() + face3(None) + card_margin())]
    if card.hidden:
        style = "class:card.hidden"
    else:
        style = "class:card.red" if card.red else "class:card.black"
    margin = card_margin()
    return [edge, (style + (" class:hl" if lit else ""), margin + face3(card) + margin)]


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
        return [("class:nocard", " " + card_margin() + face(None, width) + card_margin())]
    frags: Fragments = []
    if owner_edge and card.owner >= 0:
        frags.append(owner_mark(card.owner))
    else:
        frags.append(("", " "))
    if card.hidden:
        style = "class:card.hidden"
    else:
        style = "class:card.red" if card.red else "class:card.black"
    frags.append((style, card_margin() + face(card, width) + card_margin()))
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
