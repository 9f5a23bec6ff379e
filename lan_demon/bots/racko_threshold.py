"""Rack-O's ``threshold`` bot: a sensible human's rule of thumb, the baseline the planner must beat.

Written from the published description of the heuristic players use: every card has a target
band of slots set by its value; take the Discard when it fits a band slot that is not yet in
order; otherwise draw; put a drawn card where it fits its band best, and discard what fits
nowhere better. The exact rule is in :class:`ThresholdRackO`; the measures it uses are the
functions here, so a test can check each on its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lan_demon.bots.base import Strategy, Turn
from lan_demon.games.racko import SLOTS, DiscardHeld, Draw, Place, TakeDiscard

#: How far (in slots) from its target a card may lie and still be in its band.
BAND_WIDTH = 1.0


def target(value: int, deck_size: int) -> float:
    """Where ``value`` belongs, as a rack index on a continuous scale: the ``N`` numbers spread
    evenly over the ten slots, slot index ``i`` covering ``[i - 0.5, i + 0.5]``, so ``v``
    aims at ``v * 10 / N`` slots from the bottom (less half a slot, to centre it)."""
    return (value - 0.5) * len(SLOTS) / deck_size - 0.5


def in_band(value: int, index: int, deck_size: int) -> bool:
    """Rack ``index`` is in the band of ``value``: within one slot of its target."""
    return abs(index - target(value, deck_size)) <= BAND_WIDTH


def band(value: int, deck_size: int) -> list[int]:
    """The rack indexes in the band of ``value``: neighbouring slots, at most three."""
    return [i for i in range(len(SLOTS)) if in_band(value, i, deck_size)]


def slot_in_order(rack: list[int], index: int, deck_size: int) -> bool:
    """A slot is in order when its card is in its band and lies above the card below it and
    below the card above it (at either end, the one neighbour there is)."""
    card = rack[index]
    if not in_band(card, index, deck_size):
        return False
    below = index == 0 or rack[index - 1] < card
    above = index == len(rack) - 1 or card < rack[index + 1]
    return below and above


def in_order_count(rack: list[int], deck_size: int) -> int:
    """How many slots are in order: ten means the rack ascends (Rack-O, RK-5)."""
    return sum(slot_in_order(rack, i, deck_size) for i in range(len(rack)))


def miss(value: int, index: int, deck_size: int) -> float:
    """How far ``value`` lies from its target when it sits in rack ``index``, in slots."""
    return abs(index - target(value, deck_size))


@dataclass(frozen=True)
class Fit:
    """One way to put a card into a slot: the slots it puts in order (``gain``, which may
    count its neighbours too) and how much nearer its target the new card is than the old."""

    index: int
    gain: int
    nearer: float

    def key(self) -> tuple[int, float, int]:
        """Best first: most slots put in order, then the nearest fit, then the lowest slot."""
        return (-self.gain, -self.nearer, self.index)


def fits(rack: list[int], card: int, deck_size: int) -> list[Fit]:
    """Every slot of ``card``'s band that is not yet in order, with what putting it there
    does; best first."""
    before = in_order_count(rack, deck_size)
    out = []
    for index in band(card, deck_size):
        if slot_in_order(rack, index, deck_size):
            continue
        after = rack[:index] + [card] + rack[index + 1:]
        gain = in_order_count(after, deck_size) - before
        nearer = miss(rack[index], index, deck_size) - miss(card, index, deck_size)
        out.append(Fit(index, gain, nearer))
    return sorted(out, key=Fit.key)


def best_take(rack: list[int], card: int, deck_size: int) -> Fit | None:
    """Where the Discard top is worth taking: the best band slot it puts in order, if any."""
    good = [f for f in fits(rack, card, deck_size) if f.gain > 0]
    return good[0] if good else None


def best_place(rack: list[int], card: int, deck_size: int) -> Fit | None:
    """Where a drawn card goes: the best band slot it puts in order or, failing that, one
    not in order whose card it beats for nearness, when the count of slots in order stays."""
    good = [f for f in fits(rack, card, deck_size)
            if f.gain > 0 or (f.gain == 0 and f.nearer > 0)]
    return good[0] if good else None


class ThresholdRackO(Strategy):
    """A human's rule of thumb, by target bands (the measures are this module's functions).

    With ``N`` cards, card ``v`` aims at rack index ``t(v) = (v - 0.5) * 10 / N - 0.5``; its
    band is every slot within one slot of ``t(v)`` (two or three neighbouring slots; one for the
    lowest and highest cards). A slot is *in order*
    when its card is in its band and above the card below it and below the card above it.

    1. The Discard top is taken into the band slot, not yet in order, where it raises the
       count of slots in order most (ties: where it gains most in nearness — the replaced
       card's distance from its own target less the new card's — then the lowest slot),
       when it raises it at all.
    2. Otherwise the bot draws. The drawn card goes where rule 1 would put it; failing that,
       into a band slot not in order whose card lies farther from its own target than the
       drawn card would, when the count of slots in order does not fall.
    3. A drawn card that fits nowhere better is discarded.

    It reads only its seat's view: its rack, the Discard top, the drawn card, the deck size.
    """

    name = "threshold"
    games = ("racko",)

    def choose(self, turn: Turn) -> Any | None:
        legal = turn.legal
        if not legal:
            return None
        view = turn.view
        rack, size = list(view["rack"]), view["deck_size"]
        if "held" in view:
            fit = best_place(rack, view["held"], size)
            wanted: Any = DiscardHeld() if fit is None else Place(SLOTS[fit.index])
        else:
            top = view["discard_top"]
            fit = None if top is None else best_take(rack, top, size)
            wanted = Draw() if fit is None else TakeDiscard(SLOTS[fit.index])
        # RK-8: with nothing left to draw, only the Discard may be taken (the first slot)
        return wanted if wanted in legal else legal[0]
