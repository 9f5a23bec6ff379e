"""Words on a terminal: formatted text split into lines and joined again, wrapping to the
width, lists of names in a sentence, the rules text cut into paragraphs, and the help page."""

from __future__ import annotations

import re
from typing import Any

from lan_demon.net.cells import cells, cut
from lan_demon.tui.style import Fragments, line


def lines_of(frags: Fragments) -> list[Fragments]:
    """Fragments split into lines (no newline fragments left)."""
    out: list[Fragments] = [[]]
    for style, text in frags:
        parts = text.split("\n")
        for i, part in enumerate(parts):
            if i:
                out.append([])
            if part:
                out[-1].append((style, part))
    if not out[-1]:
        out.pop()
    return out


def join_lines(rows: list[Fragments]) -> Fragments:
    out: Fragments = []
    for row in rows:
        out += row + [("", "\n")]
    return out


def wrap(text: str, width: int, style: str = "", indent: str = " ") -> Fragments:
    """``text`` as whole words on as many lines as ``width`` needs (the lines after the
    first indented two more), measured in terminal cells: a name with emoji takes the room
    it is drawn in."""
    return join_lines([[(style, part)] for part in
                       wrap_lines(text, max(10, width - 1), indent, indent + "  ")])


def wrap_lines(text: str, width: int, indent: str = "", more: str = "") -> list[str]:
    """``text``'s words filled into lines of at most ``width`` cells, the first starting
    with ``indent``, the rest with ``more``. Only a word longer than a whole line is broken
    (no screen has one: a name is at most 12 cells)."""
    out: list[str] = []
    row = indent
    for word in re.split(r"[ \t\n]+", text.strip(" \t\n")):  # (a no-break space holds)
        if not word:
            continue
        gap = "" if row.strip() == "" else " "
        if cells(row) + len(gap) + cells(word) <= width:
            row += gap + word
            continue
        if row.strip():
            out.append(row)
            row = more
        while cells(row) + cells(word) > width and width > cells(row):
            piece = cut(word, width - cells(row))
            out.append(row + piece)
            row, word = more, word[len(piece):]
        row += word
    if row.strip():
        out.append(row)
    return out


def fold(pieces: Fragments | list[Fragments], width: int) -> Fragments:
    """A row folded onto as many lines of ``width`` cells as it needs, between its pieces:
    fragments (a prompt's parts), or groups of fragments kept together (a chart's marker
    and the name beside it), two spaces apart."""
    groups = [[p] if isinstance(p, tuple) else p for p in pieces]
    gap = "  " if any(isinstance(p, list) for p in pieces) else ""
    out: Fragments = [("", " ")] if gap else []
    used = len(out)
    for group in groups:
        size = cells("".join(text for _, text in group).rstrip())
        if used > 1 and used + len(gap) + size > width - 1:
            out += [("", "\n"), ("", " ")]
            used = 1
        elif used > 1 and gap:
            out.append(("", gap))
            used += len(gap)
        out += group
        used += cells("".join(text for _, text in group))
    return out + [("", "\n")]


def hint_rows(hints: list[str], width: int) -> list[str]:
    """Key hints ("p play the Pile top") laid out whole, two spaces apart, on as many rows
    of ``width`` cells as they take (at least one, maybe empty)."""
    rows = [""]
    for hint in hints:
        if rows[-1] and cells(rows[-1]) + 2 + cells(hint) > width - 1:
            rows.append("")
        rows[-1] += f"  {hint}" if rows[-1] else f" {hint}"
    return rows


def advice_lines(shown: Any, width: int) -> Fragments:
    """The coach's advice (:class:`lan_demon.seat.advice.Shown`, or None): its plain words,
    the numbers behind it once asked for, and how to see them or hide it."""
    if shown is None:
        return []
    out = wrap(shown.words, width, "class:good")
    if shown.numbers:
        out += wrap(f"Numbers: {shown.numbers}", width, "class:dim")
    return out + (wrap(f"({shown.more})", width, "class:dim") if shown.more else [])


def paragraphs(text: str) -> list[str]:
    """The rules text as paragraphs: a line that starts with a rule id (or a dash) begins one,
    any other line goes on the one before — so the help wraps to the terminal, not to the
    line breaks of the source."""
    out: list[str] = []
    for raw in text.strip().splitlines():
        piece = raw.strip()
        starts = piece.split(" ", 1)[0].rstrip(":,.") if piece else ""
        if out and piece and not is_rule_id(starts) and not piece.startswith(("-", "•")):
            out[-1] += " " + piece
        elif piece:
            out.append(piece)
    return out


def is_rule_id(text: str) -> bool:
    """A rule book id: ``RD-7``, ``RG-6``, ``RK-4``, ``GS-9``."""
    prefix, _, number = text.partition("-")
    return prefix in ("RD", "RG", "RK", "GS") and number.isdigit()


def help_page(keys: list[tuple[str, str]], rules: str, width: int) -> Fragments:
    """The help: a game's keys (none for a spectator), the keys every screen has, and its
    rules in short, wrapped to the terminal."""
    out = line(("class:me", " Keys"))
    for k, what in keys + [("PgDn", "next page of a long screen"), ("?", "this help"),
                           ("q", "leave the table")]:
        said = wrap_lines(what, width - 1, " " * 12, " " * 12)  # (under its words, not cut)
        out += line(("class:key", f"  {k:>8}"), said[0][10:])
        for more in said[1:]:
            out += line(more)
    out += line(("class:me", " The rules in short"))
    for text in paragraphs(rules):
        out += wrap(text, width, indent="  ")
    return out + line(("class:dim", " (any key closes this)"))
