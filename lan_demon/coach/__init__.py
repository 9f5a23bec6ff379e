"""The coach: a short review of a Racing Demon round for one seat (issue 14).

The coach is fed only what one seat saw — that seat's views of the table
(:meth:`lan_demon.games.racing_demon.RacingDemon.view`, where no face-down card appears) and the
races it lost — so it cannot name a card the seat could not see. The table's screen feeds it
from the client during the round (:mod:`lan_demon.tui.demon`); ``lan-demon replay --coach``
feeds it from a journal, rebuilding each step's view for the seat (:mod:`.journal`).

* :mod:`.review` — what the review holds (missed plays, lost races, the best missed move) and
  its text lines;
* :mod:`.knowledge` — the table as one seat knows it, rebuilt from its view, and how many Pile
  cards a move frees there, played on by the strong bot's own choices;
* :mod:`.demon` — :class:`~.demon.DemonCoach`, the fold of views into a review;
* :mod:`.journal` — the reviews of a journal's rounds for one seat.
"""
