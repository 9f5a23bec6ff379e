"""Text measured as a terminal draws it: in cells, not characters.

A name typed on a phone may hold emoji, accents made of combining marks, or joiners; counting
code points shifts every row after it (``🃏Bob🎉`` is 5 characters and 7 cells). A terminal
draws an East Asian Wide or Fullwidth character (most emoji among them) in 2 cells, a
combining mark or an invisible format character in none, and the rest in 1.

Some characters have no width every terminal agrees on: a zero-width joiner fusing emoji into
one picture (👨‍👩‍👧 is one glyph in some terminals and three in others), a variation selector
asking for emoji presentation, skin-tone modifiers, flag pairs (regional indicators), control
and private-use characters. :func:`clean` drops them, so a cleaned text measures the same
everywhere — the arbiter cleans every name before it seats it.
"""

from __future__ import annotations

import unicodedata

#: Combining marks kept on one base character (more is "Zalgo" text, drawn over other rows).
MARKS_PER_BASE = 2
_DROPPED_CATEGORIES = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}


def _unsteady(ch: str) -> bool:
    """A character whose drawn width depends on the terminal (or that draws nothing)."""
    code = ord(ch)
    return (unicodedata.category(ch) in _DROPPED_CATEGORIES
            or 0xFE00 <= code <= 0xFE0F          # variation selectors
            or 0xE0100 <= code <= 0xE01EF        # variation selectors supplement
            or 0x1F3FB <= code <= 0x1F3FF        # emoji skin-tone modifiers
            or 0x1F1E6 <= code <= 0x1F1FF)       # regional indicators (flags)


def char_cells(ch: str) -> int:
    """Cells one character takes: 0 for a combining mark or format character, 2 for East
    Asian Wide or Fullwidth, else 1."""
    if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me", "Cf", "Cc"):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def cells(text: str) -> int:
    """The cells ``text`` takes on a terminal."""
    return sum(char_cells(ch) for ch in text)


def clean(text: str) -> str:
    """``text`` in characters every terminal draws alike: NFC, white space runs as one space,
    trimmed, with no character of unsteady width and at most :data:`MARKS_PER_BASE`
    combining marks on a character."""
    out: list[str] = []
    marks = 0
    for ch in unicodedata.normalize("NFC", text):
        if ch.isspace():
            if out and out[-1] != " ":
                out.append(" ")
            marks = 0
            continue
        if _unsteady(ch):
            continue
        if char_cells(ch) == 0:
            if not out or out[-1] == " " or marks >= MARKS_PER_BASE:
                continue  # a mark on nothing, or one too many
            marks += 1
        else:
            marks = 0
        out.append(ch)
    return "".join(out).strip()


def cut(text: str, width: int) -> str:
    """The longest start of ``text`` that takes at most ``width`` cells, never splitting a
    character from its combining marks."""
    used, end = 0, 0
    for i, ch in enumerate(text):
        w = char_cells(ch)
        if used + w > width:
            break
        used += w
        end = i + 1
    while end < len(text) and char_cells(text[end]) == 0:
        end += 1  # the marks of the last character kept go with it
    return text[:end]


def fit(text: str, width: int) -> str:
    """``text`` in at most ``width`` cells: whole if it fits, else cut with an ellipsis."""
    if cells(text) <= width:
        return text
    if width <= 0:
        return ""
    return cut(text, width - 1) + "…"


def pad(text: str, width: int) -> str:
    """``text`` fitted to ``width`` cells and padded with spaces to exactly ``width``."""
    text = fit(text, width)
    return text + " " * (width - cells(text))
