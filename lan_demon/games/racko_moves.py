"""Rack-O's moves and their text and wire forms (RK-4): take the Discard into a slot, or draw
and then place the drawn card into a slot or discard it. Slots are named by their printed
number (5, 10, … 50); whether a slot exists is the engine's to check (RK-2).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lan_demon.games.base import BadMove, move_fields


@dataclass(frozen=True, slots=True)
class TakeDiscard:
    """Take the top Discard into ``slot`` (a printed number); the replaced card is discarded."""

    slot: int

    def to_data(self) -> dict[str, Any]:
        return {"t": "take", "slot": self.slot}

    def __str__(self) -> str:
        return f"take {self.slot}"


@dataclass(frozen=True, slots=True)
class Draw:
    """Take the top Draw card into the hand; it must then be placed or discarded."""

    def to_data(self) -> dict[str, Any]:
        return {"t": "draw"}

    def __str__(self) -> str:
        return "draw"


@dataclass(frozen=True, slots=True)
class Place:
    """Put the drawn card into ``slot``; the replaced card is discarded."""

    slot: int

    def to_data(self) -> dict[str, Any]:
        return {"t": "place", "slot": self.slot}

    def __str__(self) -> str:
        return f"place {self.slot}"


@dataclass(frozen=True, slots=True)
class DiscardHeld:
    """Discard the drawn card, leaving the rack as it is."""

    def to_data(self) -> dict[str, Any]:
        return {"t": "discard"}

    def __str__(self) -> str:
        return "discard"


Move = TakeDiscard | Draw | Place | DiscardHeld
_SLOT_MOVES: dict[str, type] = {"take": TakeDiscard, "place": Place}
_BARE_MOVES: dict[str, type] = {"draw": Draw, "discard": DiscardHeld}
_BARE_FIELDS = frozenset(("t",))  # the wire fields of each kind of move (§15)
_SLOT_FIELDS = frozenset(("t", "slot"))
MOVE_FORMS = "take <slot>, draw, place <slot>, discard (slots 5, 10, … 50)"


def _slot_move(kind: str, slot: Any) -> Move:
    """A slot move from its kind and slot; the slot's range is checked by ``apply`` (RK-2)."""
    if isinstance(slot, bool) or not isinstance(slot, int):
        raise BadMove(f"{kind!r} needs a slot number (5, 10, … 50), not {slot!r}")
    return _SLOT_MOVES[kind](slot)


def parse_move(text: str) -> Move:
    """A move from ``take 25``, ``draw``, ``place 25`` or ``discard`` (any case or spacing)."""
    words = str(text).lower().split()
    if not words:
        raise BadMove(f"empty move; the moves are {MOVE_FORMS}")
    kind = words[0]
    args = words[1:]
    if kind in _BARE_MOVES and not args:
        return _BARE_MOVES[kind]()
    if kind in _SLOT_MOVES and len(args) == 1:
        try:
            return _slot_move(kind, int(args[0]))
        except ValueError:
            raise BadMove(f"{text.strip()!r}: {args[0]!r} is not a slot number "
                          f"(5, 10, … 50)") from None
    raise BadMove(f"cannot read {text.strip()!r}; the moves are {MOVE_FORMS}")


def move_from_data(data: Any) -> Move:
    """A move from its ``to_data()`` dict; anything else is a :class:`BadMove`."""
    if not isinstance(data, dict) or not isinstance(data.get("t"), str):
        raise BadMove(f"a Rack-O move is a map with a type 't', not {data!r}")
    kind = data["t"]
    if kind in _BARE_MOVES:
        move_fields(data, _BARE_FIELDS)  # its fields and no others (§15); nil: left out
        return _BARE_MOVES[kind]()
    if kind in _SLOT_MOVES:
        slot = move_fields(data, _SLOT_FIELDS).get("slot")
        if slot is None:
            raise BadMove(f"{kind!r} needs a slot (5, 10, … 50)")
        return _slot_move(kind, slot)
    raise BadMove(f"not a Rack-O move: {data!r}; the moves are {MOVE_FORMS}")
