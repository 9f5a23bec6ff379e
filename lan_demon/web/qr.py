"""The table's address as a QR code: drawn in a terminal with half blocks (two rows of modules a
line, so a phone can scan it off the host's screen), and as SVG for the lobby page on a laptop.
segno makes the code; both drawings come from its matrix.
"""

from __future__ import annotations

import io

import segno

BORDER = 2  # modules of quiet zone: scanners want some; 2 keeps the terminal drawing small
# Dark modules on a light ground whatever the terminal's colours (black on white), then reset.
ON_WHITE, RESET = "\x1b[30;47m", "\x1b[0m"
# Upper and lower half of a character cell: (top dark, bottom dark) -> character, the ink being
# the light modules: with no colours we cannot know the ground, and a light-on-dark code is
# what most terminals show; scanners read both ways round.
_PLAIN = {(False, False): "█", (True, False): "▄", (False, True): "▀", (True, True): " "}
# With black on white set, the ink is the dark modules.
_COLOURED = {(False, False): " ", (True, False): "▀", (False, True): "▄", (True, True): "█"}


def _code(url: str) -> segno.QRCode:
    return segno.make(url, error="m", micro=False)


def terminal(url: str, colour: bool) -> list[str]:
    """The QR code of ``url`` as lines of text, two module rows a line. ``colour``: draw it
    black on white with ANSI colours (a terminal); else light blocks on the terminal's own
    ground (a log file, a pipe)."""
    matrix = [list(map(bool, row)) for row in _code(url).matrix]
    size = len(matrix)
    blank = [False] * (size + 2 * BORDER)
    rows = [blank] * BORDER + [[False] * BORDER + row + [False] * BORDER for row in matrix] + \
        [blank] * BORDER
    if len(rows) % 2:
        rows.append(blank)
    cells = _COLOURED if colour else _PLAIN
    lines = []
    for top, bottom in zip(rows[::2], rows[1::2]):
        text = "".join(cells[(t, b)] for t, b in zip(top, bottom))
        lines.append(f"{ON_WHITE}{text}{RESET}" if colour else text)
    return lines


def svg(url: str) -> str:
    """The QR code of ``url`` as an SVG document (black on white, a title for screen readers)."""
    out = io.BytesIO()
    _code(url).save(out, kind="svg", scale=6, border=BORDER, dark="#000", light="#fff",
                    xmldecl=False, title=f"QR code of {url}")
    return out.getvalue().decode("utf-8")
