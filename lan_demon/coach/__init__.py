"""The coach: a short review of a Racing Demon round for one seat.

The coach is fed only what one seat saw — that seat's views of the table
(:meth:`lan_demon.games.racing_demon.RacingDemon.view`, where no face-down card appears) and the
races it lost — so it cannot name a card the seat could not see. The seat feeds it as it is
pumped during the round (:class:`lan_demon.seat.demon.DemonSeat`); ``lan-demon replay --coach``
feeds it from a journal, rebuilding each step's view for the seat (:mod:`.journal`).

* :mod:`.review` — what the review holds (missed plays, lost races, the best missed move) and
  its text lines;
* :mod:`.knowledge` — the table as one seat knows it, rebuilt from its view, and how many Pile
  cards a move frees there, played on by the strong bot's own choices;
* :mod:`.demon` — :class:`~.demon.DemonCoach`, the fold of views into a review;
* :mod:`.journal` — the reviews of a journal's rounds for one seat.

:func:`coach_for` is what a table's seat is handed for each game: the commands, which may
import every players' layer, give it to the terminal's and the page's seats, which import no
bot.
"""

from __future__ import annotations

from typing import Any


def coach_for(game_id: str) -> Any:
    """The coach for ``game_id``'s screen: in Racing Demon a maker of the round's review
    (:class:`~.demon.DemonCoach`); in Rack-O the strong bot's advice from a seat's view
    (``PlannerRackO().advise``); in Gin Solitaire the solver's, from what the seat has held
    (:class:`~.gin.GinCoach`); None where a game has none."""
    if game_id.startswith("racing-demon"):
        from lan_demon.coach.demon import DemonCoach
        return DemonCoach
    if game_id == "racko":
        from lan_demon.bots.racko import PlannerRackO
        return PlannerRackO().advise
    if game_id == "gin-solitaire":
        from lan_demon.coach.gin import GinCoach
        return GinCoach()
    return None
