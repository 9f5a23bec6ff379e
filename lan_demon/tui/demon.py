"""The Racing Demon table (both variants): the stacks, everyone else's face-up cards, yours.

Playing fast: one key picks a source — ``1``–``4`` the columns, ``p`` the Pile top, ``w`` the
waste top — and the card goes at once to the best legal place the local engine offers: a stack
first, else a column. To choose another place, ``t`` before the source key lists the places
(a lone one too) with letters, and the letter plays it; Esc cancels. Space turns the Pack,
``s`` says "stuck", ``h`` highlights your cards that fit a stack now and the stacks they fit.

What a real table shows face up is shown, and nothing else (RD-3: Pile tops and the Lines are
face up; the Packs, the waste under its top and the Pile under its top are not; another
player's waste top is not public until played). A stack is named by its top card — "the 4♥
stack" — on screen, in the place chooser and in every race message, so a message always names
something the player can see.

How it fits the terminal's height and width is :mod:`lan_demon.tui.demon_layout`'s; this
module holds the keys and hands the layout what the keys changed (the highlight).
"""

from __future__ import annotations

from typing import Any

from lan_demon.games.demon_moves import Play
from lan_demon.seat.acts import PICK_LETTERS, SOURCE_KEYS, key_help
from lan_demon.seat.demon import DemonSeat, rank_target
from lan_demon.tui import demon_coach
from lan_demon.tui.demon_layout import table_rows
from lan_demon.tui.demon_words import CLASSIC_RULES, GERMAN_RULES, PLAYER_KEYS, short_name
from lan_demon.tui.facts import NAME_CELLS
from lan_demon.tui.style import Fragments, line, owner_mark
from lan_demon.tui.table import Controller, GameScreen
from lan_demon.tui.text import fold

__all__ = ["DemonScreen", "SOURCE_KEYS", "rank_target"]
LETTERS = PICK_LETTERS  # a place's letter after t: none is a key of its own in any game


class DemonScreen(GameScreen):
    rules = CLASSIC_RULES
    brief = {k.key: k.brief for k in key_help("DemonSeat")}

    def __init__(self, coach: Any = None, german: bool = False) -> None:
        """``coach`` makes each round's review: ``coach(game, seat, names, start)``, an object
        with ``see(t, view)``, ``lost(t, by, ms, top)`` and ``review()``
        (:class:`lan_demon.coach.demon.DemonCoach`). The command hands it in: the coach plays
        the strong bot's own moves, and the TUI never imports a bot. None: no review."""
        self.game = DemonSeat(coach)  # what the seat may do and is told: the seat layer's
        self.rules = GERMAN_RULES if german else CLASSIC_RULES  # ? in the lobby too, before a view
        self.choosing = False  # "t" was pressed: the next source key lists its places
        self.options: list[Play] = []
        self.highlight = False  # "h": your cards that fit a stack, and those stacks, lit

    @property
    def keys(self) -> list[tuple[str, str]]:  # type: ignore[override]
        """The play keys, for help and the status line; a spectator has none."""
        seat = self.game.seat
        return [] if seat is not None and seat.spectator else PLAYER_KEYS

    @property
    def coach(self) -> Any:
        """This round's review, as this seat saw it (the seat's)."""
        return self.game.review

    @property
    def voted_here(self) -> bool:
        return self.game.voted_here

    @voted_here.setter
    def voted_here(self, value: bool) -> None:
        self.game.voted_here = value

    def reset(self) -> None:
        self.choosing = False
        self.options = []

    def who_is_who(self, ctl: Controller, width: int) -> Fragments:
        """Every pack's mark and whose it is: a small terminal at a big table shows some
        players by their mark alone (their names do not all fit beside the stacks)."""
        if len(ctl.seats) < 2:
            return []
        marks = [[owner_mark(i), ("", f" {short_name(ctl.name(i), NAME_CELLS)}")]
                 for i in range(len(ctl.seats))]
        return line(("class:me", " Whose pack is whose (its mark on the table)")) + \
            fold(marks, width)

    # --- keys ------------------------------------------------------------------------------

    def key(self, ctl: Controller, key: str) -> bool:
        if self.options:
            return self._pick(ctl, key)
        if key == "h":
            self.highlight = not self.highlight
            ctl.flash("highlight on: your cards that fit a stack, and the stacks" if
                      self.highlight else "highlight off")
            return True
        if key == "t":
            self.choosing = True
            ctl.flash("choose: which card? (1-4, p, w; Esc cancels)")
            return True
        if key == "escape" and self.choosing:
            self.choosing = False
            ctl.flash("cancelled")
            return True
        if key in SOURCE_KEYS:
            return self._source(ctl, SOURCE_KEYS[key])
        if key in (" ", "space"):
            self.game.turn()
            return True
        if key == "s":
            self.game.stuck()
            return True
        return False

    def _source(self, ctl: Controller, source: str) -> bool:
        moves = self.places(ctl, source)
        if not moves or not self.choosing:
            self.choosing = False
            self.game.play_from(source)
            return True
        # "t" asked to see where it goes: one place is listed too
        moves = moves[:len(LETTERS)]  # best first: a big table's last few go unlisted
        self.choosing = False
        self.options = moves
        listing = "  ".join(f"{LETTERS[i]}: {self.game.place_words(m)}"
                            for i, m in enumerate(moves))
        ctl.flash(f"to where? {listing}" + ("  (the only place)" if len(moves) == 1 else ""))
        return True

    def _pick(self, ctl: Controller, key: str) -> bool:
        options, self.options = self.options, []
        if len(key) == 1 and key in LETTERS[: len(options)]:
            ctl.play(options[LETTERS.index(key)])
        else:
            ctl.flash("cancelled")
        return True

    def places(self, ctl: Controller, source: str) -> list[Play]:
        """The legal places for a source's card, best first (the seat's)."""
        return self.game.places(source)

    def no_place(self, ctl: Controller, source: str) -> tuple[str, str | None]:
        return self.game.no_place(source)

    def explain(self, ctl: Controller, notice: Any) -> str | None:
        """A ``beaten`` notice worded for this table (the seat's words), or None."""
        if getattr(notice, "kind", None) != "beaten":
            return None
        return self.game.explain(getattr(notice, "data", {}) or {})

    def coach_lines(self, ctl: Any, width: int) -> Fragments:
        return demon_coach.review_lines(self.game.review, ctl, width)

    def fits(self, ctl: Controller) -> tuple[set[str], set[int]]:
        """Your sources whose card goes to a stack now, and the ids of the stacks they fit."""
        return self.game.fits()

    # --- drawing ---------------------------------------------------------------------------
    def render(self, ctl: Controller, width: int, height: int) -> Fragments:
        view = ctl.client.view()
        if view is None:
            return line("waiting for the deal…")
        lit_sources: set[str] = set()
        lit_stacks: set[int] = set()
        if self.highlight and ctl.client.seat is not None:
            lit_sources, lit_stacks = self.fits(ctl)
        return table_rows(ctl, view, width, height, lit_sources, lit_stacks,
                          self.game.voted_here)
