"""Gin Solitaire's moves (GS-3, GS-4, GS-6) and their text and wire forms.

``discard QS`` (GS-3's first discard and GS-4's end-of-turn one), ``draw``, ``knock QS`` (also
``gin QS``: deadwood 0 is Gin), ``big-gin``. Moves are small frozen dataclasses; on the wire a map
``{"t": kind}`` with a ``card`` code where the move names one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, ClassVar

from lan_demon.games.base import BadMove, move_fields
from lan_demon.games.cards import Card, CardError


@dataclass(frozen=True)
class Discard:
    """GS-3 (the first discard) and GS-4 (the end-of-turn discard): ``discard QS``."""

    card: Card
    kind: ClassVar[str] = "discard"

    def to_data(self) -> dict[str, Any]:
        return {"t": self.kind, "card": self.card.to_data()}

    def __str__(self) -> str:
        return f"discard {self.card.code}"


@dataclass(frozen=True)
class Draw:
    """GS-4: draw the top card of the Draw pile: ``draw``."""

    kind: ClassVar[str] = "draw"

    def to_data(self) -> dict[str, Any]:
        return {"t": self.kind}

    def __str__(self) -> str:
        return "draw"


@dataclass(frozen=True)
class Knock:
    """GS-6: after a draw, discard ``card`` face down and end the round with deadwood ≤ 10
    (0 is Gin): ``knock QS``."""

    card: Card
    kind: ClassVar[str] = "knock"

    def to_data(self) -> dict[str, Any]:
        return {"t": self.kind, "card": self.card.to_data()}

    def __str__(self) -> str:
        return f"knock {self.card.code}"


@dataclass(frozen=True)
class BigGin:
    """GS-6: after a draw, all 11 cards melded; no discard: ``big-gin``."""

    kind: ClassVar[str] = "big-gin"

    def to_data(self) -> dict[str, Any]:
        return {"t": self.kind}

    def __str__(self) -> str:
        return "big-gin"


Move = Discard | Draw | Knock | BigGin


def _card_arg(text: Any, what: str) -> Card:
    if not isinstance(text, str):
        raise BadMove(f"{what} needs a card code like 'QS', not {text!r}")
    try:
        card = Card.from_data(text)
    except CardError as exc:
        raise BadMove(str(exc)) from exc
    if card.is_joker:
        raise BadMove(f"{what}: the Joker is never in your hand")
    return card


_MOVE_TEXT = re.compile(r"\s+")


def parse_move(text: str) -> Move:
    """``discard QS``, ``draw``, ``knock QS`` (also ``gin QS``), ``big-gin``."""
    if not isinstance(text, str):
        raise BadMove(f"a move is text, not {text!r}")
    words = _MOVE_TEXT.split(text.strip().lower())
    if words == [""]:
        raise BadMove("empty move; try: discard QS, draw, knock QS, big-gin")
    verb, args = words[0], words[1:]
    if " ".join(words) in ("big-gin", "biggin", "big gin"):
        return BigGin()
    if verb == "draw" and not args:
        return Draw()
    if verb in ("discard", "knock", "gin") and len(args) == 1:
        card = _card_arg(args[0], verb)
        return Discard(card) if verb == "discard" else Knock(card)
    raise BadMove(f"not a Gin Solitaire move: {text!r}; "
                  "try: discard QS, draw, knock QS, big-gin")


_BARE_FIELDS = frozenset(("t",))  # a move map holds its move's fields and no others (§16)
_CARD_FIELDS = frozenset(("t", "card"))


def move_from_data(data: Any) -> Move:
    """A move from its wire form (a map with ``t``; a move object or its text also do)."""
    if isinstance(data, (Discard, Draw, Knock, BigGin)):
        return data
    if isinstance(data, str):
        return parse_move(data)
    if not isinstance(data, dict) or "t" not in data:
        raise BadMove(f"not a Gin Solitaire move: {data!r}")
    kind = data["t"]
    if kind in ("draw", "big-gin"):
        move_fields(data, _BARE_FIELDS)
        return Draw() if kind == "draw" else BigGin()
    data = move_fields(data, _CARD_FIELDS)
    if kind in ("discard", "knock"):
        if "card" not in data:
            raise BadMove(f"{kind} needs a card")
        card = _card_arg(data["card"], kind)
        return Discard(card) if kind == "discard" else Knock(card)
    raise BadMove(f"unknown Gin Solitaire move kind {kind!r}")
