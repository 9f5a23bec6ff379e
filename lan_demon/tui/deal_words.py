"""What every screen says about the deal (PROTOCOL.md §22), at its top, on every page.

* **Alarms** — our own check found the host's deal not the one it promised (``dishonest``),
  or another seat's program says so (``dispute``): in the warning colour, with the bell, kept
  until the table is left. Our own dispute coming back says nothing new.
* **Deal notes** — plain facts that accuse nobody: whose randomness the round was dealt
  without, a round this screen could NOT check and why. The latest round's are shown.

The notices come from :mod:`lan_demon.net.deal_duties`; the words in them are written for a
family at the table ("The host's deal for round 3 does not match what it promised: …").
"""

from __future__ import annotations

from typing import Any

from lan_demon.net.table_copy import Notice
from lan_demon.tui.style import Fragments
from lan_demon.tui.text import wrap

ALARMS_KEPT = 4  # the newest alarms shown; the first of them stays (it says the most)
NOTES_KEPT = 4


def deal_alarm(ctl: Any, notice: Notice) -> bool:
    """Keep an alarm for the top of every screen; True when it is new (ring the bell)."""
    mine = notice.kind == "dispute" and notice.data.get("seat") == ctl.client.seat and \
        any(a.startswith("DEAL CHECK FAILED") for a in ctl.alarms)
    head = "DEAL CHECK FAILED" if notice.kind == "dishonest" else "DEAL DISPUTED"
    text = f"{head} — {notice.text}"
    if mine or text in ctl.alarms:
        return False
    ctl.alarms.append(text)
    if len(ctl.alarms) > ALARMS_KEPT:  # the first (what started it) and the newest
        del ctl.alarms[1:len(ctl.alarms) - ALARMS_KEPT + 1]
    return True


def deal_note(ctl: Any, notice: Notice) -> None:
    """A fact about a round's deal, kept with the round it is about: only the latest round's
    are shown (the next round's Go replaces the last round's NOT checked)."""
    round_no = notice.data.get("round")
    round_no = round_no if isinstance(round_no, int) else -1
    latest = max((r for r, _ in ctl.deal_notes), default=-1)
    if round_no > latest:
        ctl.deal_notes = []
    if round_no >= latest and notice.text not in (t for _, t in ctl.deal_notes):
        ctl.deal_notes.append((round_no, notice.text))
        del ctl.deal_notes[:-NOTES_KEPT]


def deal_rows(ctl: Any, width: int) -> Fragments:
    """The alarms, then the notes, wrapped to ``width``."""
    out: Fragments = []
    for text in ctl.alarms:
        out += wrap(f"⚠ {text}", width, "class:warn")
    for _, text in ctl.deal_notes:
        out += wrap(f"· {text}", width, "class:dim")
    return out
