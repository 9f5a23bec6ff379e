"""What the terminal shows of the evening (PROTOCOL.md §24), at its top on every page: who
paused the table and who resumes it, and each away seat's time counted out loud. The words
are the seat layer's (:mod:`lan_demon.seat.evening`), the page says the same; this module
only draws them."""

from __future__ import annotations

from typing import Any

from lan_demon.seat import evening
from lan_demon.tui.style import Fragments
from lan_demon.tui.text import wrap


def evening_rows(ctl: Any, width: int) -> Fragments:
    """The pause in warning colour, then the away seats, dimmed, each wrapped to ``width``."""
    out: Fragments = []
    words = evening.pause_words(ctl.seat)
    if words is not None:
        out += wrap(f"⏸ {words}", width, "class:warn")
    for text in evening.away_lines(ctl.seat):
        out += wrap(f"· {text}", width, "class:dim")
    return out


def evening_hints(ctl: Any) -> list[str]:
    """The captain's keys on the status line, after the game's — only when there is something
    to do: resume a paused table, remove a seat that went away. "P pause" itself is in the
    help (it would take a 20-seat table's last row at 60x20, for a key pressed once an
    evening)."""
    hints = []
    for key, intent in evening.keys(ctl.seat).items():
        if intent["do"] == "resume":
            hints.append(f"{key} resume")
        elif intent["do"] == "remove":
            hints.append(f"{key} remove {ctl.name(intent['seat'])}")
    return hints
