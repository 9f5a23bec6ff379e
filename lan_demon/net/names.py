"""A seat's name as the arbiter seats it: cleaned, at most :data:`NAME_CELLS` terminal cells,
and told apart from every other name at the table.

Twenty people of all ages at one table must tell each other apart at a glance, on a terminal
row as on a phone. So a name is measured in the cells a terminal draws it in
(:mod:`lan_demon.net.cells`), never in characters, and is limited to a width every screen can
show whole; two names a person would read as the same (``Ann`` and ``ann``, ``Ａｎｎ`` and
``Ann``, ``Ann B`` and ``AnnB``) are the same name here, and the second is seated as
``Ann ²`` — the name its player chose, marked, rather than a cut ``player (2)``.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

from lan_demon.net.cells import cells, clean, cut

#: The most cells a seated name takes: every screen shows every name whole in this width.
NAME_CELLS = 12
_SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


def seat_name(raw: str) -> str:
    """``raw`` as a seat's name: cleaned of characters of unsteady width and cut to
    :data:`NAME_CELLS` cells; "" when nothing drawable is left (the arbiter refuses it)."""
    return cut(clean(raw), NAME_CELLS).rstrip()


def name_key(name: str) -> str:
    """What two names a person would read as the same share: compatibility-normalised
    (``Ａ`` is ``A``, ``²`` is ``2``), case-folded, without white space."""
    return "".join(unicodedata.normalize("NFKC", name).casefold().split())


def marked(name: str, number: int) -> str:
    """``name`` with a superscript ``number`` after it ("Ann ²"), cut so that the whole fits
    :data:`NAME_CELLS` cells."""
    mark = " " + str(number).translate(_SUPERSCRIPT)
    return cut(name, NAME_CELLS - cells(mark)).rstrip() + mark


def level_name(name: str, level: int) -> str:
    """``name`` with a bot level's mark ("Ada L7", "Bob L3"), the name cut so that the whole
    fits :data:`NAME_CELLS` (a cut "Rosalind L10" would read "Rosalind L1"): the one name rule
    for a bot of a fixed level and for a seat handed over to one (docs/bots.md)."""
    mark = f" L{level}"
    return cut(seat_name(name), NAME_CELLS - cells(mark)).rstrip() + mark


def unique_name(name: str, taken: Iterable[str]) -> str:
    """``name`` if no name in ``taken`` looks like it, else the first of ``name ²``,
    ``name ³``, … that none looks like."""
    keys = {name_key(t) for t in taken}
    candidate, number = name, 2
    while name_key(candidate) in keys:
        candidate, number = marked(name, number), number + 1
    return candidate


def seated_words(asked: str, seated: str) -> str | None:
    """The one line a player is told when the table seats them under another name than the
    one they typed: taken (with the name they got instead), or shortened; None when it is the
    same."""
    if seated == asked.strip():
        return None
    cleaned = seat_name(asked)
    if seated != cleaned:
        return f"{cleaned} is taken at this table: you sit as {seated}"
    return f"your name is shown as {seated}, as every screen can draw it"
