"""Levels 1 to 10: one number that sets a bot's skill and speed together, so that a family can
set the table right without knowing the strategies' names or the speed profiles.

A level blends two things, and the blend differs by kind of game:

* **Racing Demon** (both variants) is a race: a bot's *pace* — how soon its card lands, how
  long it takes to notice a stack someone else changed, how often it overlooks a playable card
  (:mod:`lan_demon.bots.speed`) — decides most of how hard it is to beat, so the levels climb
  mostly by pace: from ``newcomer`` (a card every ~3 s, one card in five overlooked) at 1 and 2
  through ``beginner`` (4) and ``club`` (6) to ``expert`` (10), with profiles made between
  them for the steps in between (3 and 5 halfway, 7 to 9 at quarters from club to expert).
  Strategy is the smaller step: level 1 plays ``greedy`` (the plain "stack first" rule), 2 to
  10 the strongest strategy. Measured, each level beats the one below it (docs/bots.md).
* **Rack-O and Gin Solitaire** are turn-based: nobody is beaten to a card, so notice times and
  misses mean nothing and speed is only how long the bot "thinks" before its move. There the
  level climbs by strategy — Rack-O ``greedy`` (1-2), ``threshold`` (3-5, a human's target-band
  rule; ``greedy`` while that strategy is not registered), the strongest (6-10); Gin Solitaire
  ``greedy`` (1-4), the strongest (5-10) — and the think pause follows the Racing Demon pace's
  median, 3 s at level 1 down to 0.5 s at 10.

"The strongest" is :func:`lan_demon.bots.registry.strongest` at the time a level is used, not a
name written here, so a stronger bot registered later is what those levels play.
Level 2 is ``lan-demon play``'s default: in Racing Demon the strongest strategy at the
``newcomer`` pace, one a person new to the game can race; in Rack-O it is ``greedy``, so that
the default table is one such a person can win in every game.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from lan_demon.bots.registry import strategy_names, strongest
from lan_demon.bots.speed import PROFILES, SpeedProfile, profile
from lan_demon.games import get_game
# The lowest, highest and default level (``play``, ``host --bots``, a handover that names none)
# are the protocol's: a seat handed to a bot names its level on the wire, and the arbiter
# checks it without importing the bots.
from lan_demon.net.handover import DEFAULT_LEVEL, HIGHEST, LOWEST

STRONGEST = "strongest"  # a level's strategy: registry.strongest(game) when the level is used
#: A strategy a level names that another change may not have registered yet, and its stand-in.
STAND_INS = {"threshold": "greedy"}
#: A bot told no level and no ``--strategy`` / ``--speed`` (``bot``, ``simulate``): the plain
#: "stack first" rule at a seasoned player's pace.
PLAIN_STRATEGY = "greedy"
PLAIN_SPEED = "club"


def between(name: str, low: SpeedProfile, high: SpeedProfile, part: float) -> SpeedProfile:
    """The profile ``part`` of the way from ``low`` to ``high``: times geometrically (they are
    log-normal, so halfway between 1.6 s and 0.9 s is 1.2 s, not 1.25 s), spread and miss
    linearly; to two decimals, as the docs print them."""
    def geo(a: float, b: float) -> float:
        return a * math.exp(part * math.log(b / a)) if a > 0 and b > 0 else a + part * (b - a)
    return SpeedProfile(name, round(geo(low.median, high.median), 2),
                        round(low.spread + part * (high.spread - low.spread), 2),
                        notice=round(geo(low.notice, high.notice), 2),
                        miss=round(low.miss + part * (high.miss - low.miss), 2))


def races(game_id: str) -> bool:
    """Whether ``game_id`` is a race (Racing Demon), where a pace is more than a think pause."""
    return get_game(game_id).races


@dataclass(frozen=True)
class Level:
    """What one level plays: a strategy per kind of game and a Racing Demon pace (whose median
    is also the think pause of the turn-based games)."""

    number: int
    words: str  # how the level reads in --help and the docs
    demon: str  # Racing Demon and its German variant
    racko: str
    gin: str
    pace: SpeedProfile

    def strategy(self, game_id: str) -> str:
        """The registered strategy this level plays in ``game_id``: ``strongest`` resolved,
        a stand-in for a named strategy that is not (yet) registered."""
        name = {"racko": self.racko, "gin-solitaire": self.gin}.get(game_id, self.demon)
        if name == STRONGEST:
            return strongest(game_id)
        if name not in strategy_names(game_id):
            return STAND_INS.get(name, strongest(game_id))
        return name

    def profile(self, game_id: str) -> SpeedProfile:
        """The level's pace in a race; in a turn-based game only its reaction time — the pause
        before each move — with no notice time and no misses (nothing to be beaten to)."""
        if races(game_id):
            return self.pace
        return replace(self.pace, name=f"think {self.pace.median:g} s", notice=0.0, miss=0.0)


def _levels() -> dict[int, Level]:
    p, best = PROFILES, STRONGEST
    newcomer, beginner, club, expert = p["newcomer"], p["beginner"], p["club"], p["expert"]
    rows = [  # number, words, demon, racko, gin, pace
        (1, "slow and plain", "greedy", "greedy", "greedy", newcomer),
        (2, "a newcomer's pace", best, "greedy", "greedy", newcomer),
        (3, "finding its feet", best, "threshold", "greedy",
         between("level 3", newcomer, beginner, 0.5)),
        (4, "a beginner", best, "threshold", "greedy", beginner),
        (5, "a keen beginner", best, "threshold", best, between("level 5", beginner, club, 0.5)),
        (6, "a club player", best, best, best, club),
        (7, "a quick club player", best, best, best, between("level 7", club, expert, 0.25)),
        (8, "sharp", best, best, best, between("level 8", club, expert, 0.5)),
        (9, "very sharp", best, best, best, between("level 9", club, expert, 0.75)),
        (10, "expert speed, strongest strategy", best, best, best, expert),
    ]
    return {n: Level(n, words, demon, racko, gin, pace)
            for n, words, demon, racko, gin, pace in rows}


LEVELS: dict[int, Level] = _levels()


def level(number: int) -> Level:
    """Level ``number`` (1 to 10); ValueError otherwise (the commands check it first)."""
    if number not in LEVELS:
        raise ValueError(f"a level is a whole number from {LOWEST} to {HIGHEST}, not {number!r}")
    return LEVELS[number]


# --- a level on the wire: in the bot's name ------------------------------------------------------
# The seats list carries a name and a bot flag, nothing more (PROTOCOL.md); a bot seated with a
# level that will not change (`host --bots`, `bot --level`) says it in its name, "Ada L7", and
# that name is its label on every screen, in the journal and in the results (docs/bots.md,
# "A bot's name"). The mark is inside the arbiter's name limit, so no screen ever cuts it.

def bot_name(name: str, number: int) -> str:
    """``name`` with the level's mark ("Ada L7"), the name cut so that the whole fits the
    arbiter's name limit (a cut "Rosalind L10" would read "Rosalind L1"): the arbiter names a
    seat handed over to a bot by the same rule (net/names.level_name)."""
    from lan_demon.net.names import level_name
    return level_name(name, number)


@dataclass(frozen=True)
class Choice:
    """What a table's bots play: a level, and beside it what the command line said explicitly —
    an explicit ``--strategy`` or ``--speed`` wins over the level's own. Without a level: the
    explicit choices, else :data:`PLAIN_STRATEGY` at :data:`PLAIN_SPEED`."""

    level: int | None = None
    strategy: str | None = None
    speed: str | None = None  # a profile name of lan_demon.bots.speed

    def strategy_for(self, game_id: str) -> str:
        if self.strategy is not None:
            return self.strategy
        return PLAIN_STRATEGY if self.level is None else level(self.level).strategy(game_id)

    def pace_for(self, game_id: str) -> SpeedProfile:
        if self.speed is not None:
            return profile(self.speed)
        return profile(PLAIN_SPEED) if self.level is None else level(self.level).profile(game_id)

    def describe(self, game_id: str) -> str:
        """The level in words, then the strategy and the pace (or think pause), for the lobby
        and the host: "a beginner — demon, a card every 1.6 s". The words only when nothing
        explicit overrides the level's own choices (then they would not be true)."""
        pace = self.pace_for(game_id)
        plain = self.level is not None and self.strategy is None and self.speed is None
        head = f"{level(self.level).words} — " if plain else ""
        if races(game_id):
            return f"{head}{self.strategy_for(game_id)}, a card every {pace.median:g} s"
        return f"{head}{self.strategy_for(game_id)}, {pace.median:g} s to think"


__all__ = ["DEFAULT_LEVEL", "HIGHEST", "LEVELS", "LOWEST", "PLAIN_SPEED", "PLAIN_STRATEGY",
           "STAND_INS", "STRONGEST", "Choice", "Level", "between", "bot_name", "level", "races"]
