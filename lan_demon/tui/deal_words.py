"""What every screen says about the deal (PROTOCOL.md §22), at its top, on every page.

* **Alarms** — our own check found the host's deal not the one it promised (``dishonest``),
  or another seat's program says so (``dispute``): in the warning colour, with the bell, kept
  until the table is left. Our own dispute coming back says nothing new.
* **Deal notes** — plain facts that accuse nobody: whose randomness the round was dealt
  without, a round this screen could NOT check and why. The latest round's are shown.

The seat keeps them (:meth:`lan_demon.seat.seat.Seat._alarm`, ``_deal_note``), from the notices
of :mod:`lan_demon.net.deal_duties`; this module draws them. The words in them are written for a
family at the table ("The host's deal for round 3 does not match what it promised: …").
"""

from __future__ import annotations

from typing import Any

from lan_demon.tui.style import Fragments
from lan_demon.tui.text import wrap

def deal_rows(ctl: Any, width: int) -> Fragments:
    """The alarms, then the notes, wrapped to ``width``."""
    out: Fragments = []
    for text in ctl.alarms:
        out += wrap(f"⚠ {text}", width, "class:warn")
    for _, text in ctl.deal_notes:
        out += wrap(f"· {text}", width, "class:dim")
    return out
