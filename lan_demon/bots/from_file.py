"""A strategy from a Python file of the bot author's own: ``mybot.py`` or ``mybot.py:PileFirst``
where the arena and ``simulate`` name strategies (``arena --seats mybot.py,greedy``).

Why: a bot written from docs/bots.md is measured against the built-in ones only if the arena
and ``simulate`` can name it beside their own. The file is loaded as a module; the class
named after the colon, or else the one :class:`~lan_demon.bots.sdk.Bot` or
:class:`~lan_demon.bots.base.Strategy` subclass the file defines, is made fresh for each seat.
An SDK bot plays through :class:`~lan_demon.bots.sdk.BotStrategy`, as it does offline.
"""

from __future__ import annotations

import functools
import importlib.util
import inspect
from pathlib import Path
from typing import Any

from lan_demon.bots.base import Strategy, where_raised
from lan_demon.bots.registry import make_strategy
from lan_demon.games.base import BadConfig


def is_file_spec(name: str) -> bool:
    return name.partition(":")[0].endswith(".py")


def make_any(game_id: str, name: str) -> Strategy:
    """A built-in strategy by its name, or an author's from its file (the arena, simulate)."""
    if is_file_spec(name):
        return strategy_from_file(game_id, name)
    try:
        return make_strategy(game_id, name)
    except BadConfig as err:
        raise BadConfig(f"{err}, or a bot of your own: mybot.py[:Class]") from None


def strategy_from_file(game_id: str, spec: str) -> Strategy:
    """A fresh strategy from ``spec`` (``PATH.py`` or ``PATH.py:Class``); :class:`BadConfig`
    in one line when the file, the class or the game does not fit."""
    from lan_demon.bots.sdk import Bot, BotStrategy
    from lan_demon.games import get_game
    cls = _class_of(spec)
    if issubclass(cls, Bot):
        return Guarded(BotStrategy(cls(), get_game(game_id)), spec)
    if game_id not in getattr(cls, "games", ()):
        raise BadConfig(f"{spec}: {cls.__name__} plays {getattr(cls, 'games', ())}, "
                        f"not {game_id}")
    return Guarded(cls(), spec)


@functools.lru_cache(maxsize=None)
def _class_of(spec: str) -> type:
    """The bot class ``spec`` names, its file run once in this process: the arena makes a
    fresh strategy for every round, which would otherwise load and run the file again."""
    from lan_demon.bots.sdk import Bot
    path, _, wanted = spec.partition(":")
    return _pick(_load(Path(path)), wanted, (Bot, Strategy), spec)


class Guarded(Strategy):
    """The author's strategy, whose errors end the run in one line that says where their code
    raised, not a traceback through the arena's worker processes."""

    def __init__(self, inner: Strategy, spec: str):
        self.inner, self.spec = inner, spec
        self.name, self.games = inner.name, inner.games  # type: ignore[misc]

    def choose(self, turn: Any) -> Any:
        try:
            return self.inner.choose(turn)
        except BadConfig:
            raise
        except Exception as err:
            raise BadConfig(f"{self.spec} raised {type(err).__name__}: {err}"
                            f"{where_raised(err)}") from None

    def reset(self) -> None:
        self.inner.reset()


def _load(path: Path) -> Any:
    if not path.is_file():
        raise BadConfig(f"no bot file {str(path)!r}")
    module_spec = importlib.util.spec_from_file_location(f"lan_demon_user_{path.stem}", path)
    if module_spec is None or module_spec.loader is None:
        raise BadConfig(f"{str(path)!r} cannot be loaded as Python")
    module = importlib.util.module_from_spec(module_spec)
    try:
        module_spec.loader.exec_module(module)
    except Exception as err:  # the author's file: one line, where it failed
        raise BadConfig(f"loading {str(path)!r} failed: {type(err).__name__}: {err}"
                        f"{where_raised(err)}") from None
    return module


def _pick(module: Any, wanted: str, bases: tuple[type, ...], spec: str) -> type:
    """The class named ``wanted``, or the file's only bot class."""
    own = [c for _, c in inspect.getmembers(module, inspect.isclass)
           if c.__module__ == module.__name__ and issubclass(c, bases) and c not in bases]
    if wanted:
        found = [c for c in own if c.__name__ == wanted]
        if not found:
            raise BadConfig(f"{spec}: no bot class {wanted!r} in it (its bot classes: "
                            f"{', '.join(c.__name__ for c in own) or 'none'})")
        return found[0]
    if len(own) != 1:
        raise BadConfig(f"{spec}: name the class after a colon (its bot classes: "
                        f"{', '.join(c.__name__ for c in own) or 'none'})")
    return own[0]
