"""What the terminal shows in place of the table while it is cut off from it: the seat removed
or handed to a bot, the table gone (the host no longer knows the seat), or the host not
answering — reconnecting, and after a while the likely reason and what to do (wait: the
screen takes its seat back by itself)."""

from __future__ import annotations

from lan_demon.seat import evening
from lan_demon.seat.seat import SEAT_KEPT_MINUTES
from lan_demon.tui.facts import TableFacts
from lan_demon.tui.style import Fragments, line
from lan_demon.tui.text import wrap

GIVE_UP_HINT = 8.0  # seconds reconnecting before the screen says the host may be gone


def cut_off_rows(ctl: TableFacts, width: int) -> Fragments | None:
    """Why this screen is not at its table and what to do, wrapped to ``width``; None while it
    is at its table."""
    phase = ctl.phase
    if ctl.gone and ctl.removed_by:
        heading = " A bot plays your seat" if ctl.removed_by.get("bot") is not None \
            else " You were removed"
        return line(("class:warn", heading)) + wrap(
            evening.removed_text(ctl.removed_by.get("by_name", "the host"),
                                 ctl.removed_by) +
            " — q leaves", width)
    if ctl.gone:
        return line(("class:warn", " This table is gone")) + wrap(
            f"The host no longer knows your seat: {ctl.gone} (a host started again, "
            f"or a seat away for over {SEAT_KEPT_MINUTES} minutes). q leaves; joining "
            "again sits you at the table hosted there now.", width)
    if ctl.reconnecting and phase != "over":
        back = "the same join lets you watch again" if ctl.spectator else \
            f"within {SEAT_KEPT_MINUTES} minutes, the same join takes your seat again"
        out = line(("class:warn", " reconnecting…")) + wrap(
            f"{'' if ctl.spectator else 'the seat is kept; '}it resumes when the host "
            "answers", width)
        quiet = ctl.clock() - ctl.reconnect_since
        if quiet >= GIVE_UP_HINT:  # (waiting is right: "q leaves" first read as "do")
            out += wrap(f"The host has not answered for {quiet:.0f} s: it may have been "
                        "stopped. Stay here: when it comes back, this screen takes "
                        f"{'its place' if ctl.spectator else 'your seat'} back by itself. "
                        f"(q leaves; then, if it comes back, {back}.)", width, "class:dim")
        return out
    return None
