"""Rack-O bots: the greedy one sends every card to the slot its value belongs to; the planner
keeps the cheapest-to-finish ordered part of its rack (see :class:`PlannerRackO`), and says why
(:meth:`PlannerRackO.advise`, the coach of the Rack-O screen). The ``threshold`` baseline lives
in ``racko_threshold``.

Greedy: the deck of ``N`` cards is cut into ten equal bands, one per slot: value ``v`` belongs
to slot index ``(v - 1) * 10 // N``. The bot only ever replaces a card that is out of its band
with one that is in band, so in-band slots only grow; bands are disjoint and ordered, so a rack
full of in-band cards ascends, and every round between such bots reaches Rack-O.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lan_demon.bots import racko_words as words
from lan_demon.bots.base import Strategy, Turn
from lan_demon.games.racko import SLOTS, DiscardHeld, Draw, Place, TakeDiscard


def band(value: int, deck_size: int) -> int:
    """The rack index whose band holds ``value``."""
    return (value - 1) * len(SLOTS) // deck_size


def _improves(rack: list[int], card: int, deck_size: int) -> int | None:
    """The slot number ``card`` should go into, or None when its slot is already in band."""
    index = band(card, deck_size)
    if band(rack[index], deck_size) == index:
        return None
    return SLOTS[index]


class GreedyRackO(Strategy):
    """Take or keep a card only when it fills its own band's slot; otherwise draw or discard."""

    name = "greedy"
    games = ("racko",)

    def choose(self, turn: Turn) -> Any | None:
        legal = turn.legal
        if not legal:
            return None
        view = turn.view
        rack, size = view["rack"], view["deck_size"]
        if "held" in view:
            slot = _improves(rack, view["held"], size)
            wanted: Any = DiscardHeld() if slot is None else Place(slot)
        else:
            top = view["discard_top"]
            slot = None if top is None else _improves(rack, top, size)
            wanted = Draw() if slot is None else TakeDiscard(slot)
        return wanted if wanted in legal else legal[0]


# --- the planner -------------------------------------------------------------------------------

#: The cost of an unfillable gap: more slots than numbers left to fill them.
_NEVER = 1e9


def _gone_below(deck_size: int, gone: set[int]) -> list[int]:
    """``below[v]``: how many numbers ``<= v`` cannot be drawn."""
    below, count = [0] * (deck_size + 2), 0
    for v in range(deck_size + 2):
        count += v in gone
        below[v] = count
    return below


class Plan:
    """The cheapest way to finish a rack, keeping an increasing subsequence of it as it is.

    Slots are read with a sentinel 0 before slot 5 and ``deck_size + 1`` after slot 50. Keeping
    the numbers ``a < b`` with ``k`` slots between them leaves a gap that costs ``k * k / free``
    draws, ``free`` being the numbers between ``a`` and ``b`` that may still come: each slot gets
    an even share ``free / k`` of them and waits about ``k / free`` draws (in units of the unseen
    pool) for one. The plan cost is the least total over every increasing subsequence — a
    dynamic programme run both ways (``ahead[j]``: slot ``j`` kept, everything left of it
    settled; ``behind[j]``: the same to the right), so that the cost of one card put in one slot
    is found from the two halves without solving the whole rack again.
    """

    def __init__(self, rack: list[int], deck_size: int, gone: set[int]):
        self.values = [0, *rack, deck_size + 1]
        self.below = _gone_below(deck_size, gone)
        last = len(self.values) - 1
        self.ahead = [0.0] + [_NEVER] * last
        for j in range(1, last + 1):
            self.ahead[j] = min((self.ahead[i] + self._gap(i, j) for i in range(j)),
                                default=_NEVER)
        self.behind = [_NEVER] * last + [0.0]
        for i in range(last - 1, -1, -1):
            self.behind[i] = min((self._gap(i, j) + self.behind[j]
                                  for j in range(i + 1, last + 1)), default=_NEVER)
        self.cost = self.ahead[last]

    def _gap(self, i: int, j: int, a: int | None = None, b: int | None = None) -> float:
        """The cost of keeping value indexes ``i < j`` (their numbers, unless given) with
        nothing kept between them; :data:`_NEVER` when they are out of order or too close."""
        a = self.values[i] if a is None else a
        b = self.values[j] if b is None else b
        if a >= b:
            return _NEVER
        k = j - i - 1
        if k == 0:
            return 0.0
        free = b - a - 1 - (self.below[b - 1] - self.below[a])
        return k * k / free if free >= k else _NEVER

    def cost_with(self, card: int, index: int) -> float:
        """The plan cost with ``card`` put into rack ``index``: the halves left and right of
        the slot are already solved, so only the two gaps touching the new card are new."""
        q, last = index + 1, len(self.values) - 1
        left = min(self.ahead[i] + self._gap(i, q, b=card) for i in range(q))
        if left >= _NEVER:
            return _NEVER
        return left + min(self._gap(q, j, a=card) + self.behind[j] for j in range(q + 1, last + 1))

    def kept(self) -> list[int]:
        """The rack indexes the cheapest plan keeps as they are, lowest first: walked back
        from the top sentinel through the gaps that make up ``ahead``."""
        out, j = [], len(self.values) - 1
        while j > 0:
            j = next(i for i in range(j) if abs(self.ahead[i] + self._gap(i, j)
                                                - self.ahead[j]) < 1e-9)
            if j > 0:
                out.append(j - 1)
        return out[::-1]

    def place(self, card: int) -> tuple[float, int | None]:
        """The plan cost with ``card`` in its best slot (a rack index), or None when no slot
        makes the plan cheaper (a card kept nowhere leaves the plan as it is)."""
        best, where = self.cost, None
        for index in range(len(self.values) - 2):
            cost = self.cost_with(card, index)
            if cost < best - 1e-9:
                best, where = cost, index
        return best, where


@dataclass(frozen=True)
class Advice:
    """What the planner would play now, and why, in words a player understands
    (``reason``), with the planner's figures behind it (``numbers``, "" when none)."""

    move: Any
    reason: str
    figures: str = ""

    def text(self) -> str:
        """What to do and why, in plain words."""
        return self.reason

    def numbers(self) -> str:
        """The planner's figures behind :meth:`text` ("" when it shows none)."""
        return self.figures

    def __str__(self) -> str:
        return f"Coach: {self.reason}"


def advice(move: Any, said: words.Said) -> Advice:
    return Advice(move, said.plain, said.numbers)


class PlannerRackO(Strategy):
    """Keep the cheapest-to-finish increasing subsequence; take the Discard only when it beats
    the expected value of a blind draw.

    The plan cost (:class:`Plan`) estimates the draws still needed: for the best set of kept
    slots, every gap of ``k`` slots between kept numbers ``a < b`` costs ``k * k / free``, where
    ``free`` counts the numbers between ``a`` and ``b`` that may still come. A drawn card goes
    where it lowers the cost most, or is discarded. The top Discard is taken when the cost with
    it beats the mean, over every number not seen, of the cost after drawing that number and
    playing it best. Only the seat's view is read: its rack, the Discard top, the drawn card,
    the deck size and the two piles' sizes.

    :meth:`advise` makes the decision and says why; :meth:`choose` plays what it advises, so
    the coach's advice in the Rack-O screen is the bot's own move.
    """

    name = "planner"
    games = ("racko",)

    def choose(self, turn: Turn) -> Any | None:
        legal = turn.legal
        if not legal:
            return None
        wanted = self.advise(turn.view).move
        return wanted if wanted in legal else legal[0]

    def advise(self, view: dict[str, Any]) -> Advice:
        """This turn's move for the seat whose ``view`` this is, with its reason in words.

        The view must be of the seat to move (it holds their rack, and their drawn card once
        they have drawn); nothing else of the table is read.
        """
        rack, size = list(view["rack"]), view["deck_size"]
        if "held" in view:
            return self._place(rack, view["held"], size)
        return self._take_or_draw(rack, view["discard_top"], size, can_draw(view))

    @staticmethod
    def _place(rack: list[int], held: int, size: int) -> Advice:
        plan = Plan(rack, size, {*rack, held})
        cost, index = plan.place(held)
        if index is None:
            return advice(DiscardHeld(), words.discard_held(held))
        change = _change("drawn", held, index, rack, size)
        return advice(Place(SLOTS[index]), words.put(change, cost, plan.cost, "now"))

    @staticmethod
    def _take_or_draw(rack: list[int], top: int | None, size: int, drawable: bool) -> Advice:
        if top is None:
            return advice(Draw(), words.empty_discard())
        seen = {*rack, top}
        plan = Plan(rack, size, seen)
        if not drawable:  # RK-8: nothing to draw, so the Discard must be taken
            index = min(range(len(rack)), key=lambda i: plan.cost_with(top, i))
            return advice(TakeDiscard(SLOTS[index]), words.forced_take(top, SLOTS[index]))
        take_cost, index = plan.place(top)
        unseen = [v for v in range(1, size + 1) if v not in seen]
        if index is None or not unseen:
            return advice(Draw(), words.top_useless(top))
        draw_cost = sum(plan.place(v)[0] for v in unseen) / len(unseen)
        if take_cost <= draw_cost:
            change = _change("discard", top, index, rack, size)
            return advice(TakeDiscard(SLOTS[index]), words.put(change, take_cost, draw_cost,
                                                              "draw"))
        return advice(Draw(), words.draw_beats(top, SLOTS[index], take_cost, draw_cost))


def can_draw(view: dict[str, Any]) -> bool:
    """A Draw card exists, possibly after turning the Discard pile over (RK-8): the engine's
    test, read from the sizes a view shows."""
    return view["draw_size"] > 0 or view["discard_size"] >= 2


def _change(source: str, card: int, index: int, rack: list[int], size: int) -> words.Change:
    """What putting ``card`` into rack ``index`` does, for the words: the card it replaces,
    and the nearest cards the plan of the new rack keeps below and above it."""
    after = rack[:index] + [card] + rack[index + 1:]
    kept = Plan(after, size, set(after)).kept()
    below = [i for i in kept if i < index]
    above = [i for i in kept if i > index]
    return words.Change(
        source=source, card=card, slot=SLOTS[index], replaced=rack[index],
        below=(after[below[-1]], SLOTS[below[-1]]) if below else None,
        above=(after[above[0]], SLOTS[above[0]]) if above else None,
        racko=all(a < b for a, b in zip(after, after[1:])))
