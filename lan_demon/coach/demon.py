"""The Racing Demon coach: one seat's views of a round folded into a :class:`~.review.Review`.

Fed in time order with what the seat saw — :meth:`DemonCoach.see` with the seat's view (as
:meth:`~lan_demon.games.racing_demon.RacingDemon.view` gives it: no face-down card is in it)
and :meth:`DemonCoach.lost` with a race the seat lost (the arbiter's "beaten" answer, RD-11) —
it keeps, for every card of the seat's that *fits*, since when it has:

* a card fits when the engine's legal moves on the seat's known table
  (:func:`~.knowledge.known_table`) put it on a stack (an ace: a new one), or on a column when
  that frees a Pile card (:func:`~.knowledge.pile_freed`: from the Pile itself, a whole column
  moved so that RD-8 refills it, a waste card the Pile top can follow). A part of a column
  moved onto another is not a card that fits: it frees nothing by itself;
* it stops fitting when it leaves its place (played, covered, turned under), when its place
  goes (another card took the stack), or when the round ends. A card that fitted for
  :data:`~.review.MISSED_AFTER` seconds or more is a missed play;
* the best missed move is the missed play that frees the most Pile cards, made when it was
  first possible (its Pile count is worked out then, from that view), the longest missed
  breaking ties.

Pure: no clock (times are data, in seconds on any one clock), no sockets, no real table.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from lan_demon.coach.knowledge import Freed, card_at, known_table, pile_freed, strong_bot
from lan_demon.coach.review import MISSED_AFTER, LostRace, Missed, Review
from lan_demon.games import get_game
from lan_demon.games.cards import Card
from lan_demon.games.demon_moves import COLUMN_NAMES, Play


@dataclass
class _Fit:
    """A card that fits now: where it goes best, and the stacks (id -> top) it fits."""

    card: str
    source: str
    target: str
    top: str | None
    freed: Freed
    stacks: dict[int, str] = field(default_factory=dict)
    since: float = 0.0

    def rank(self) -> tuple[int, bool]:
        """The better place of two for one card: more Pile freed, then a stack."""
        return self.freed.pile, not self.target.startswith("column")


class DemonCoach:
    """One seat's round, seen as that seat saw it. ``names``: every seat's name, by seat;
    ``start``: the time of Go on the clock the times come in (None: the first view's)."""

    def __init__(self, game_id: str, seat: int, names: Sequence[str],
                 start: float | None = None):
        self.game = get_game(game_id)
        self.seat = seat
        self.names = list(names)
        self.start = start
        self.bot = strong_bot(game_id)
        self.open: dict[str, _Fit] = {}
        self.missed: list[Missed] = []
        self.races: list[LostRace] = []
        self.notes: list[str] = []
        self.seen: set[str] = set()  # every card code the seat was shown, with and without owner
        self.last_view: dict[str, Any] | None = None
        self.last_t: float | None = None
        self._freed: dict[Any, Freed] = {}

    # --- feeding ----------------------------------------------------------------------------

    def see(self, t: float, view: dict[str, Any]) -> None:
        """The seat was shown ``view`` at time ``t``."""
        if self.start is None:
            self.start = t
        if view == self.last_view:
            self.last_t = t
            return
        self._remember(view)
        fits = self._fits(view)
        for code in [c for c in self.open if c not in fits]:
            self._close(code, t, view)
        for code, fit in fits.items():
            if code in self.open:
                self.open[code].stacks = fit.stacks
            else:
                fit.since = t
                self.open[code] = fit
        self.last_view, self.last_t = view, t

    def lost(self, t: float, by: int | None, ms: float | None, top: str | None,
             exact: bool = True) -> None:
        """A card of the seat's lost a race at ``t``: seat ``by`` was first, ``ms`` earlier,
        onto a stack that showed ``top`` (a card code) before. A top the seat was never
        shown is not named."""
        if self.start is None:
            self.start = t
        name = self.names[by] if by is not None and 0 <= by < len(self.names) else \
            "another player"
        shown = top if top and top in self.seen else None
        self.races.append(LostRace(t - self.start, name,
                                   None if ms is None else int(round(ms)), shown, exact))

    def note(self, text: str) -> None:
        """Something the review should say about its source (what it could not tell)."""
        if text not in self.notes:
            self.notes.append(text)

    # --- the review -------------------------------------------------------------------------

    def review(self, end: float | None = None) -> Review:
        """The round so far; cards still fitting count up to ``end`` (default: the last view).
        May be asked again: nothing is used up."""
        end = self.last_t if end is None else end
        missed = list(self.missed)
        if end is not None:
            for fit in self.open.values():
                found = self._missed(fit, end, "end", None)
                if found is not None:
                    missed.append(found)
        missed.sort(key=lambda m: (-m.seconds, m.since))
        freeing = [m for m in missed if m.pile > 0]
        best = max(freeing, key=lambda m: (m.pile, m.seconds, -m.since)) if freeing else None
        name = self.names[self.seat] if 0 <= self.seat < len(self.names) else "your"
        return Review(name, missed, list(self.races), best, list(self.notes))

    # --- what fits ----------------------------------------------------------------------------

    def _remember(self, view: dict[str, Any]) -> None:
        codes = [st["top"] for st in view["stacks"]]
        for p in view["players"]:
            codes += [p["pile_top"], p.get("waste_top")] + [c for col in p["columns"]
                                                            for c in col]
        for code in codes:
            if code and not code.startswith("??"):
                self.seen.add(code)
                self.seen.add(code.partition("@")[0])

    def _fits(self, view: dict[str, Any]) -> dict[str, _Fit]:
        """Every card of the seat's that fits now, by code, with its best place."""
        state = known_table(view)
        seat = self.seat
        if state.over or not 0 <= seat < len(state.seats) or state.seats[seat].out:
            return {}
        found: dict[str, _Fit] = {}
        for move in self.game.legal_moves(state, seat):
            if not isinstance(move, Play):
                continue
            card = card_at(state, seat, move.source)
            if card is None or move.count > 1:
                continue
            to_column = move.target in COLUMN_NAMES
            if to_column and move.source in COLUMN_NAMES and \
                    len(state.seats[seat].columns[COLUMN_NAMES.index(move.source)]) > 1:
                continue  # part of a column onto another frees nothing by itself
            freed = self._freed_by(state, view, move)
            if to_column and freed.pile == 0:
                continue
            fit = self._fit(state, move, card, freed)
            held = found.get(fit.card)
            if held is None or fit.rank() > held.rank():
                if held is not None:
                    fit.stacks.update(held.stacks)
                found[fit.card] = fit
            else:
                held.stacks.update(fit.stacks)
        return found

    def _fit(self, state: Any, move: Play, card: Card, freed: Freed) -> _Fit:
        code = card.to_data()
        if move.target in COLUMN_NAMES:
            return _Fit(code, move.source, f"column {move.target[1:]}", None, freed)
        if move.target == "middle":
            return _Fit(code, move.source, "a new stack", None, freed)
        sid = int(move.target[1:])
        top = state.stacks[sid].cards[-1]
        return _Fit(code, move.source, f"the {top.symbol} stack", top.to_data(), freed,
                    {sid: top.to_data()})

    def _freed_by(self, state: Any, view: dict[str, Any], move: Play) -> Freed:
        """:func:`~.knowledge.pile_freed`, once per move and table of the seat's own cards
        and the stacks (all the bot's play after the move depends on)."""
        me = view["players"][self.seat]
        key = (move, me["pile"], me["pile_top"], me.get("waste_top"), me["waste"], me["pack"],
               tuple(tuple(c) for c in me["columns"]),
               tuple((st["id"], st["top"]) for st in view["stacks"]))
        freed = self._freed.get(key)
        if freed is None:
            freed = self._freed[key] = pile_freed(self.game, state, self.seat, move, self.bot)
        return freed

    # --- when a card stops fitting --------------------------------------------------------------

    def _close(self, code: str, t: float, view: dict[str, Any]) -> None:
        fit = self.open.pop(code)
        ended, by = self._ending(fit, view)
        found = self._missed(fit, t, ended, by)
        if found is not None:
            self.missed.append(found)

    def _missed(self, fit: _Fit, t: float, ended: str, by: str | None) -> Missed | None:
        seconds = t - fit.since
        if seconds < MISSED_AFTER:
            return None
        start = self.start or 0.0
        return Missed(fit.card, fit.source, fit.target, fit.since - start, seconds, ended,
                      fit.top, by, fit.freed.pile, fit.freed.how, fit.freed.card)

    def _ending(self, fit: _Fit, view: dict[str, Any]) -> tuple[str, str | None]:
        """Why ``fit``'s card stopped fitting, seen in the new view, and who took its place."""
        me = view["players"][self.seat]
        tops = [me["pile_top"], me.get("waste_top")] + [col[-1] for col in me["columns"] if col]
        if fit.card in tops:
            return "taken", self._taker(fit, view)
        if any(fit.card in col[:-1] for col in me["columns"]):
            return "covered", None
        before = (self.last_view or view)["players"][self.seat]["waste"]
        if fit.source == "waste" and me["waste"] != before - 1:
            return "turned", None
        return "played", None

    def _taker(self, fit: _Fit, view: dict[str, Any]) -> str | None:
        """The name of whoever put a card on a stack ``fit``'s card fitted (you: "you")."""
        now = {st["id"]: st["top"] for st in view["stacks"]}
        for sid, top in fit.stacks.items():
            new = now.get(sid)
            if new is not None and new != top:
                owner = Card.from_data(new).owner
                if owner == self.seat:
                    return "you"
                return self.names[owner] if 0 <= owner < len(self.names) else None
        return None
