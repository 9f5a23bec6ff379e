"""The coach on the Racing Demon screen: fed the views this seat is shown and the
races it is told it lost (by the seat, :class:`lan_demon.seat.demon.DemonSeat`), it gives the
review the round-end screen draws here, under the scores.

The review itself is made by whatever the command handed the screen
(:func:`lan_demon.coach.coach_for`: :class:`lan_demon.coach.demon.DemonCoach`), since it plays
the strong bot's own moves and the TUI imports no bot. What it is shown is what the screen
showed — the table as this seat may see it, its own moves in flight — so it cannot name a card
the seat did not see. A spectator has no review.
"""

from __future__ import annotations

from typing import Any

from lan_demon.tui.style import Fragments, line
from lan_demon.tui.text import wrap

COACH_SHOWN = 2  # missed plays and lost races the round-end review writes out


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
