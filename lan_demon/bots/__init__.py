"""Bots: strategies that play through the same engine interface as people.

This package's face is the bot SDK (:mod:`lan_demon.bots.sdk`: ``Bot``, ``run``, the events) and
the built-in strategies by name (:mod:`lan_demon.bots.registry`: ``make_strategy``,
``strategy_names``). The modules inside: ``base`` (the Strategy interface), one module of
strategies per game, ``speed`` (how fast a bot plays), ``runner`` (bots at a networked table),
``simulator`` (bots on the engines alone, in simulated time) and ``arena`` (many matches, for
win rates).
"""

from __future__ import annotations

from lan_demon.bots.base import RandomStrategy, Strategy, Turn
from lan_demon.bots.registry import STRONGEST, make_strategy, strategy_names, strongest
from lan_demon.bots.sdk import (Beaten, Bot, MatchEnd, Played, Refused, Result, RoundEnd,
                                RoundStart, run, run_many)


__all__ = ["Beaten", "Bot", "MatchEnd", "Played", "RandomStrategy", "Refused", "Result",
           "RoundEnd", "RoundStart", "STRONGEST", "Strategy", "Turn", "make_strategy", "run",
           "run_many", "strategy_names", "strongest"]
