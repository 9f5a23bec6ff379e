"""The coach on the Racing Demon screen (issue 14): fed the views this seat's screen draws and
the races it is told it lost, it gives the review the round-end screen shows under the scores.

The review itself is made by whatever the command handed the screen
(:func:`lan_demon.coach.coach_for`: :class:`lan_demon.coach.demon.DemonCoach`), since it plays
the strong bot's own moves and the TUI imports no bot. What it is shown is what the screen
showed — the table as this seat may see it, its own moves in flight — so it cannot name a card
the seat did not see. A spectator has no review.
"""

from __future__ import annotations

from typing import Any

from lan_demon.tui.demon_words import short_name
from lan_demon.tui.style import Fragments, line
from lan_demon.tui.text import wrap

COACH_SHOWN = 2  # missed plays and lost races the round-end review writes out
#: A screen that first shows a round this long after Go came in late (a rejoin): its review
#: says from when it speaks, so nobody reads "nothing missed" as a whole round's verdict.
LATE = 3.0


def watch(make: Any, review: Any, ctl: Any, view: dict[str, Any]) -> Any:
    """Show this round's review (made now, with ``make``, if there is none yet) the view just
    drawn; returns the review, or None when there is none to keep (no coach, a spectator,
    no round in play)."""
    seat = ctl.client.seat
    if make is None or seat is None or ctl.spectator or ctl.phase != "playing":
        return review
    now = ctl.client.arbiter_now()
    if review is None:
        go = ctl.client.table.get("go")
        start = go if isinstance(go, (int, float)) and go <= now else None
        names = [short_name(ctl.name(i), 40) for i in range(len(view["players"]))]
        review = make(view["game"], seat, names, start)
        if start is None:  # came back mid-round: a snapshot does not say when Go was
            review.note("This screen joined the round after Go (you came back): the review "
                        "covers what it saw from then on, its times counted from then.")
        elif now - start > LATE:
            late = int(now - start)
            review.note(f"This screen joined the round {late // 60}:{late % 60:02d} after Go "
                        "(you came back): the review covers what it saw from then on.")
    review.see(now, view)
    return review


def heard_lost(review: Any, ctl: Any, data: dict[str, Any]) -> None:
    """A ``beaten`` answer (RD-11), as the arbiter told it: who, by how many ms, the top."""
    if review is None:
        return
    by, ms, top = data.get("by"), data.get("ms"), data.get("top")
    review.lost(ctl.client.arbiter_now(), by if isinstance(by, int) else None,
                ms if isinstance(ms, (int, float)) else None, top if isinstance(top, str) else None)


def review_lines(review: Any, ctl: Any, width: int) -> Fragments:
    """The round's review for the round-end screen: a head line and up to three short ones
    (missed plays, races lost, the best missed move — those with something to say), wrapped
    to ``width``."""
    if review is None or ctl.spectator:
        return []
    head, *said = review.review().lines(COACH_SHOWN, whose="your", brief=True)
    out = line(("class:me", f" {head}"))
    for text in said:
        out += wrap(text, width, indent="  ")
    return out
