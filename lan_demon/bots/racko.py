"""A Rack-O bot that sends every card to the slot its value belongs to.

The deck of ``N`` cards is cut into ten equal bands, one per slot: value ``v`` belongs to slot
index ``(v - 1) * 10 // N``. The bot only ever replaces a card that is out of its band with one
that is in band, so in-band slots only grow; bands are disjoint and ordered, so a rack full of
in-band cards ascends, and every round between such bots reaches Rack-O.
"""

from __future__ import annotations

from typing import Any

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
