"""What a bot is: a strategy asked for its next move, seeing only what its seat may see.

A strategy gets a :class:`Turn`: the seat's legal moves (from the engine), the seat's view (built
only when the strategy asks for it, since most baseline decisions need the moves alone) and a
seeded generator. It answers a move, or ``None`` to do nothing for now.
"""

from __future__ import annotations

import random
import traceback
from abc import ABC, abstractmethod
from typing import Any, Callable, ClassVar

from lan_demon.games.base import Game


class Turn:
    """One decision point for one seat: ``state`` is the table as the seat has it (a redacted
    mirror at a real table). ``keep``, when given, leaves out the legal moves the person at
    the seat would not see at this look (a stack change not noticed yet, a card overlooked):
    it is asked once for each legal move, in the engine's order."""

    __slots__ = ("game", "seat", "rng", "state", "keep", "_legal", "_view")

    def __init__(self, game: Game, state: Any, seat: int, rng: random.Random,
                 keep: Callable[[Any], bool] | None = None):
        self.game = game
        self.seat = seat
        self.rng = rng
        self.state = state
        self.keep = keep
        self._legal: list[Any] | None = None
        self._view: dict[str, Any] | None = None

    @property
    def legal(self) -> list[Any]:
        """The seat's legal moves now (those it sees, with ``keep``)."""
        if self._legal is None:
            moves = self.game.legal_moves(self.state, self.seat)
            self._legal = moves if self.keep is None else [m for m in moves if self.keep(m)]
        return self._legal

    @property
    def view(self) -> dict[str, Any]:
        """What the seat may see now (hidden cards absent)."""
        if self._view is None:
            self._view = self.game.view(self.state, self.seat)
        return self._view


class Strategy(ABC):
    """A bot's brain. Subclasses set ``name`` and ``games`` and implement :meth:`choose`."""

    name: ClassVar[str]
    games: ClassVar[tuple[str, ...]]

    @abstractmethod
    def choose(self, turn: Turn) -> Any | None:
        """The next move, or None to wait."""

    def reset(self) -> None:
        """Forget anything remembered from the previous round."""


class RandomStrategy(Strategy):
    """Any legal move, uniformly: the floor every other bot must beat."""

    name = "random"
    games = ("racing-demon", "racing-demon-german", "racko", "gin-solitaire")

    def choose(self, turn: Turn) -> Any | None:
        legal = turn.legal
        return turn.rng.choice(legal) if legal else None


def where_raised(err: BaseException) -> str:
    """" (at /home/ann/mybot.py:23, in next_move)": where a bot author's code raised ``err``
    (a one-line report with the error's name alone leaves them nothing to look at)."""
    frames = traceback.extract_tb(err.__traceback__)
    return f" (at {frames[-1].filename}:{frames[-1].lineno}, in {frames[-1].name})" \
        if frames else ""
