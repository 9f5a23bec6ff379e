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

from lan_demon.coach.knowledge import Freed, known_table, moved, pile_freed, strong_bot
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
    freed: Freed | None  # None: not worked out (a card that already fitted)
    stacks: dict[int, str] = field(default_factory=dict)
    since: float = 0.0
    run: int = 1  # cards moved with it: a whole column is moved by its base card

    def rank(self) -> tuple[int, bool]:
        """The better place of two for one card: more Pile freed, then a stack."""
        return self.freed.pile if self.freed else 0, not self.target.startswith("column")


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
        self._mine: Any = None  # what of the last view the fits depend on

    # --- feeding ----------------------------------------------------------------------------

    def see(self, t: float, view: dict[str, Any]) -> None:
        """The seat was shown ``view`` at time ``t``."""
        if self.start is None:
            self.start = t
        mine = _mine(view, self.seat)
        if mine == self._mine:  # nothing of this seat's or on the stacks moved: same fits
            self.last_view, self.last_t = view, t
            return
        self._mine = mine
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
        """Every card of the seat's that fits now, by code, with its best place (its Pile
        count worked out only for a card that did not fit before: the one made when it was
        first possible is the one kept)."""
        state = known_table(view)
        seat = self.seat
        if state.over or not 0 <= seat < len(state.seats) or state.seats[seat].out:
            return {}
        places: dict[str, list[Play]] = {}
        for move in self.game.legal_moves(state, seat):
            if isinstance(move, Play) and self._plays(state, move):
                card = moved(state, seat, move)
                if card is not None:
                    places.setdefault(card.to_data(), []).append(move)
        found: dict[str, _Fit] = {}
        for code, moves in places.items():
            if code in self.open:  # still fits: only which stacks it fits may change
                fits = [self._fit(state, m, None) for m in moves]
                found[code] = _Fit(code, "", "", None, None,
                                   {k: v for f in fits for k, v in f.stacks.items()})
                continue
            fits = [self._fit(state, m, self._freed_by(state, m)) for m in moves]
            best = max(fits, key=_Fit.rank)
            best.stacks = {k: v for f in fits for k, v in f.stacks.items()}
            found[code] = best
        return found

    def _plays(self, state: Any, move: Play) -> bool:
        """Whether ``move`` is a card that fits: to a stack; to a column from the Pile, or a
        whole column moved (RD-8 refills its place from the Pile), or a waste card when that
        frees a Pile card; never part of a column (it frees nothing by itself)."""
        if move.target not in COLUMN_NAMES:
            return True
        me = state.seats[self.seat]
        if move.source == "pile":
            return True
        if move.source in COLUMN_NAMES:
            return len(me.columns[COLUMN_NAMES.index(move.source)]) == move.count and \
                bool(me.pile)
        return self._freed_by(state, move).pile > 0

    def _fit(self, state: Any, move: Play, freed: Freed | None) -> _Fit:
        code = moved(state, self.seat, move).to_data()
        if move.target in COLUMN_NAMES:
            return _Fit(code, move.source, f"column {move.target[1:]}", None, freed,
                        run=move.count)
        if move.target == "middle":
            return _Fit(code, move.source, "a new stack", None, freed)
        sid = int(move.target[1:])
        top = state.stacks[sid].cards[-1]
        return _Fit(code, move.source, f"the {top.symbol} stack", top.to_data(), freed,
                    {sid: top.to_data()})

    def _freed_by(self, state: Any, move: Play) -> Freed:
        """:func:`~.knowledge.pile_freed`, once per move and table of the seat's own cards
        and the stacks (all the bot's play after the move depends on)."""
        key = (move, self._mine)
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
        freed = fit.freed or Freed(0)
        return Missed(fit.card, fit.source, fit.target, fit.since - start, seconds, ended,
                      fit.top, by, freed.pile, freed.how, freed.card, fit.run)

    def _ending(self, fit: _Fit, view: dict[str, Any]) -> tuple[str, str | None]:
        """Why ``fit``'s card stopped fitting, seen in the new view, and who took its place:
        still where it was (its place went), covered there, turned under, or played."""
        me = view["players"][self.seat]
        if fit.source in COLUMN_NAMES:
            column = me["columns"][COLUMN_NAMES.index(fit.source)]
            if fit.card in column and fit.run == 1 and column[-1] != fit.card:
                return "covered", None
            here = fit.card in column
        else:
            here = me["pile_top" if fit.source == "pile" else "waste_top"] == fit.card
        if here:
            return "taken", self._taker(fit, view)
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


def _mine(view: dict[str, Any], seat: int) -> Any:
    """All that what fits depends on: this seat's cards (as shown) and the stacks' tops."""
    players = view["players"]
    if not 0 <= seat < len(players):
        return None
    me = players[seat]
    return (view["over"], me["out"], me["pile"], me["pile_top"], me.get("waste_top"),
            me["waste"], me["pack"], tuple(tuple(c) for c in me["columns"]),
            tuple((st["id"], st["top"]) for st in view["stacks"]))
