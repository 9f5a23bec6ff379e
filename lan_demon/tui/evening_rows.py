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
    words = evening.pause_words(ctl)
    if words is not None:
        out += wrap(f"⏸ {words}", width, "class:warn")
    for text in evening.away_lines(ctl):
        out += wrap(f"· {text}", width, "class:dim")
    return out


def evening_hints(ctl: Any) -> list[str]:
    """The captain's keys on the status line, after the game's (dropped first when narrow)."""
    names = {"pause": "pause", "resume": "resume"}
    hints = []
    for key, intent in evening.keys(ctl).items():
        what = names.get(intent["do"]) or f"remove {ctl.name(intent['seat'])}"
        hints.append(f"{key} {what}")
    return hints
