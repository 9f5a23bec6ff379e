"""The colours a table is drawn in, decided once for the terminal and the page.

A palette names a colour for everything the table tells apart by colour: the owners' marks
(RD-2: every pack has a back of its own), the red suits' ink against the black suits', the
card's face, a card that fits now (lit), and the states (good, warning, away). Colour is never
the only signal: an owner is also a letter, a suit a symbol, a lit card a ★ on the page and a
reversed cell on the terminal, a state a word — so ``none`` (no colour at all, as ``NO_COLOR``
asks, https://no-color.org) loses nothing but colour.

``safe`` is built from Okabe & Ito's colour-blind-safe set (and Paul Tol's wine for a sixth
owner): ``tests/test_palette.py`` simulates protanopia, deuteranopia and tritanopia (Machado,
Oliveira & Fernandes 2009, on linear RGB) and fails when two colours the table tells apart come
closer than the CIEDE2000 distances written down in ``docs/accessibility.md``. ``classic`` is
the table's first look (ten owner colours from matplotlib's ``tab10``): vivid, but orange and
green, for one, are nearly one colour to a protanope.

The terminal builds its styles from a palette (``lan_demon/tui/style.py``); the page has the
same colours as CSS variables (``web/static/table.css``, checked against these by a test).
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class Palette:
    """The colours of one look of the table (``#rrggbb``), or none at all (``colour`` False)."""

    name: str
    words: str  # what the choice is, for --help and the page's setting
    owners: tuple[str, ...]  # the owners' marks, cycling; the letter tells a cycle apart
    red: str  # the ink of ♥ and ♦ on a card's face
    black: str  # the ink of ♠ and ♣
    card: str  # a card's face
    lit: str  # behind a card that fits a stack now, and the stacks it fits
    good: str  # ready, done, your turn
    warn: str  # a warning, a lost race
    away: str  # a seat away or gone, a refusal
    flash: str = ""  # behind a line that flashes (a refusal, a lost race)
    chart: str = ""  # the lines between the points of the totals' chart
    colour: bool = True


CLASSIC = Palette(
    "classic", "the first look: vivid, ten owner colours (not safe for colour blindness)",
    owners=("#1f77b4", "#2ca02c", "#d62728", "#9467bd", "#ff7f0e", "#17becf", "#8c564b",
            "#e377c2", "#bcbd22", "#7f7f7f"),
    red="#d70000", black="#000000", card="#ffffff", lit="#ffd75f",
    good="#5fd75f", warn="#ffaf00", away="#ff5f5f", flash="#af0000", chart="#5fafff")

SAFE = Palette(
    "safe", "colour-blind safe (Okabe-Ito): six owner colours told apart in protanopia, "
    "deuteranopia and tritanopia",
    owners=("#0072b2", "#f0e442", "#d55e00", "#56b4e9", "#882255", "#999999"),
    red="#c04a00", black="#000000", card="#ffffff", lit="#56b4e9",
    good="#56b4e9", warn="#f0e442", away="#d55e00", flash="#d55e00", chart="#56b4e9")

NONE = Palette(
    "none", "no colour at all (as NO_COLOR asks): suits by symbol, owners by letter",
    owners=("",), red="", black="", card="", lit="", good="", warn="", away="", colour=False)

PALETTES: dict[str, Palette] = {p.name: p for p in (CLASSIC, SAFE, NONE)}

#: Every palette's owner colours cycle with a period dividing this, so that a screen can name
#: ``owner{seat % OWNER_CYCLE}`` once and every palette keeps seat → (colour, letter) distinct.
OWNER_CYCLE = math.lcm(*(len(p.owners) for p in PALETTES.values()))


def no_color(environ: Mapping[str, str] | None = None) -> bool:
    """``NO_COLOR`` is set and not empty (https://no-color.org)."""
    return bool((os.environ if environ is None else environ).get("NO_COLOR"))


def palette_for(name: str | None, environ: Mapping[str, str] | None = None) -> Palette:
    """The palette a person asked for; without ``--palette``, ``none`` under ``NO_COLOR``
    and ``classic`` otherwise (a flag given on the command line wins over the environment,
    as no-color.org asks). An unknown name raises ``ValueError`` naming the choices."""
    if name is None:
        return NONE if no_color(environ) else CLASSIC
    try:
        return PALETTES[name.strip().lower()]
    except KeyError:
        raise ValueError(f"there is no palette {name!r}: one of "
                         f"{', '.join(PALETTES)}") from None


def owner_colour(palette: Palette, seat: int) -> str:
    """The colour of ``seat``'s mark in ``palette`` ("" in ``none``)."""
    return palette.owners[seat % len(palette.owners)]
