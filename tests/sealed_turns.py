"""Turns a bot decides on with the raw state sealed: any read of it fails the test, so a bot
that decides from the seat's legal moves and view alone passes, and one that peeks fails."""

from __future__ import annotations

import random
from typing import Any

from lan_demon.bots.base import Turn


class Sealed:
    """Stands where the raw state (or the game) would be: any read of it fails the test."""

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"the bot read the raw state ({name!r})")


class SealedTurn(Turn):
    """A turn that holds the seat's legal moves and view, worked out beforehand, and a
    :class:`Sealed` state behind them (``game``: a Sealed one too, for a bot that may not even
    ask the rules)."""

    __slots__ = ("moves", "seen")

    def __init__(self, game: Any, seat: int, legal: list[Any], view: dict[str, Any],
                 rng: random.Random | None = None) -> None:
        super().__init__(game, Sealed(), seat, rng or random.Random(0))
        self.moves = legal
        self.seen = view

    @property
    def legal(self) -> list[Any]:
        return self.moves

    @property
    def view(self) -> dict[str, Any]:
        return self.seen


def sealed_turn(game: Any, state: Any, seat: int) -> SealedTurn:
    """The seat's legal moves and view on ``state`` itself (a table with nothing hidden from
    the seat that matters to these tests: Rack-O, Gin Solitaire)."""
    return SealedTurn(game, seat, game.legal_moves(state, seat), game.view(state, seat))


def redacted_turn(game: Any, state: Any, seat: int,
                  rng: random.Random | None = None) -> SealedTurn:
    """The seat's legal moves and view on its redacted copy of ``state``, as a client holds
    it (Racing Demon: no Pack, no Pile below the top, no rival's waste)."""
    mirror = game.redact(state, seat)
    return SealedTurn(game, seat, game.legal_moves(mirror, seat), game.view(mirror, seat), rng)
