"""Racing Demon's moves and their text and wire forms (RD-5 … RD-13, RG-4, RG-5).

Places are named with short strings that read like the table:

* sources: ``pile``, ``waste``, ``c1`` … ``c4`` (the columns of the Line of 4);
* targets: ``middle`` (a new stack for an ace, else any stack that takes the card), ``s7``
  (stack 7: ids are never reused, so a target stays meaningful while moves are in flight),
  ``c1`` … ``c4``.

A move from a column may carry a ``count`` to move a run of its top cards (RD-7).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from lan_demon.games.base import BadMove, move_fields

COLUMNS = 4
COLUMN_NAMES = tuple(f"c{i + 1}" for i in range(COLUMNS))


@dataclass(frozen=True, slots=True)
class Play:
    """Play a card (or, column to column, a run of ``count`` cards) from a source to a target."""

    source: str
    target: str
    count: int = 1

    def to_data(self) -> dict[str, Any]:
        data: dict[str, Any] = {"t": "play", "from": self.source, "to": self.target}
        if self.count != 1:
            data["n"] = self.count
        return data

    def __str__(self) -> str:
        src = self.source if self.count == 1 else f"{self.source}:{self.count}"
        return f"{src} {self.target}"


@dataclass(frozen=True, slots=True)
class TurnPack:
    """Turn the Pack: three cards (one in the German variant) onto the waste (RD-9, RG-5)."""

    def to_data(self) -> dict[str, Any]:
        return {"t": "turn"}

    def __str__(self) -> str:
        return "turn"


@dataclass(frozen=True, slots=True)
class VoteStuck:
    """Say "I'm stuck" (RD-13). Cleared as soon as anyone plays a card."""

    def to_data(self) -> dict[str, Any]:
        return {"t": "stuck"}

    def __str__(self) -> str:
        return "stuck"


@dataclass(frozen=True, slots=True)
class CallOut:
    """Shout OUT (RD-12). The engine calls it itself the moment a Pile empties, so a call by hand
    only ever meets a refusal that explains why (the Pile is not empty, or someone was first)."""

    def to_data(self) -> dict[str, Any]:
        return {"t": "out"}

    def __str__(self) -> str:
        return "out"


@dataclass(frozen=True, slots=True)
class Timeout:
    """The table's own move: 60 seconds passed with no card played (RD-13). Seat TABLE only."""

    def to_data(self) -> dict[str, Any]:
        return {"t": "timeout"}

    def __str__(self) -> str:
        return "timeout"


Move = Play | TurnPack | VoteStuck | CallOut | Timeout
_SIMPLE_MOVES = {"turn": TurnPack(), "stuck": VoteStuck(), "out": CallOut(), "timeout": Timeout()}
PLACE = re.compile(r"^(pile|waste|c[1-4]|middle|s\d+)$")
_SIMPLE_FIELDS = frozenset(("t",))
_PLAY_FIELDS = frozenset(("t", "from", "to", "n"))  # a move map holds these and no others (§14)
_PLAYS: dict[tuple[str, str, int], Play] = {}  # wire form -> move, for the plays parsed so far


def parse_move(text: str) -> Move:
    """``pile middle``, ``c2 s5``, ``c1:3 c4``, ``waste c2``, ``turn``, ``stuck``, ``out``."""
    words = text.strip().lower().split()
    if len(words) == 1 and words[0] in _SIMPLE_MOVES:
        return _SIMPLE_MOVES[words[0]]
    if len(words) != 2:
        raise BadMove(f"not a move: {text!r} (try 'pile middle', 'c2 s5', 'c1:2 c3', "
                      "'turn', 'stuck')")
    src, _, count = words[0].partition(":")
    if count and not count.isdigit():
        raise BadMove(f"not a move: {text!r} (a run is written like 'c1:2')")
    return move_from_data({"t": "play", "from": src, "to": words[1],
                           "n": int(count) if count else 1})


def move_from_data(data: Any) -> Move:
    """A move from its wire form: ``{"t": "play", "from": "c1", "to": "s5", "n": 2}``,
    ``{"t": "turn"}``, …"""
    if not isinstance(data, dict) or not isinstance(data.get("t"), str):
        raise BadMove(f"a move is a map with a type 't', not {data!r}")
    kind = data["t"]
    if kind in _SIMPLE_MOVES:
        if len(data) != 1:
            move_fields(data, _SIMPLE_FIELDS)  # (nil fields are left out; any other: refused)
        return _SIMPLE_MOVES[kind]
    if kind != "play":
        raise BadMove(f"unknown move type {kind!r}")
    if not data.keys() <= _PLAY_FIELDS or None in data.values():
        data = move_fields(data, _PLAY_FIELDS)
    src, dst, n = data.get("from"), data.get("to"), data.get("n", 1)
    plain = type(src) is str and type(dst) is str and type(n) is int
    if plain:
        known = _PLAYS.get((src, dst, n))
        if known is not None:  # every client parses every move: the same few, over again
            return known
    if not isinstance(src, str) or src not in ("pile", "waste", *COLUMN_NAMES):
        raise BadMove(f"unknown source {src!r}: use pile, waste or c1-c4")
    if not isinstance(dst, str) or not PLACE.match(dst) or dst in ("pile", "waste"):
        raise BadMove(f"unknown target {dst!r}: use middle, s<stack> or c1-c4")
    if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= 52:
        raise BadMove(f"a run has 1 to 52 cards, not {n!r}")
    move = Play(src, dst, n)
    if plain and len(_PLAYS) < 4096:
        _PLAYS[(src, dst, n)] = move  # moves are immutable: one object serves every parse
    return move
