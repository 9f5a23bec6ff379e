"""The Gin Solitaire coach: the solver's own advice for a seat's position — the best
discard and whether to knock, each with its expected points this round — from what that seat
has held this round and the Draw pile's size, never from the Joker's place.

The Gin screen is handed one (:func:`lan_demon.coach.coach_for`) and shows it every hand it
draws, so the coach remembers the cards the seat has held; the advice is
:meth:`lan_demon.bots.gin.SolverGin.advise` run on that memory, which is what the solver's
``choose`` plays.
"""

from __future__ import annotations

from typing import Any

from lan_demon.bots.gin import Advice, Seen, SolverGin


class GinCoach:
    """One seat's Gin Solitaire coach: a memory of the hands shown, and the solver's advice."""

    def __init__(self) -> None:
        self.seen = Seen()

    def reset(self) -> None:
        """A new round (or a new table): nothing held yet."""
        self.seen = Seen()

    def see(self, view: dict[str, Any]) -> None:
        """A hand this seat's screen showed (every card of it the seat has held)."""
        self.seen.see(view)

    def advise(self, view: dict[str, Any], legal: list[Any]) -> Advice:
        return SolverGin(seen=self.seen).advise(view, legal)
