"""How fast and how attentive a Racing Demon bot is, so that it plays like a person.

A person at a Racing Demon table is slow in three separate ways, and a profile models each:

* **reaction** — from deciding to the card landing: log-normal around ``median`` seconds, since
  people are sometimes much slower than usual but never much faster;
* **notice** — a card someone *else* puts on a stack is not seen at once: the bot may only react
  to it ``notice`` seconds (log-normal, same spread) after it landed. Its own plays it knows;
* **miss** — at a glance a person now and then overlooks a card that could be played; each
  playable card is overlooked with probability ``miss`` at each look.

``newcomer`` is the pace of someone who plays a card every 2–4 seconds — the default of
``lan-demon play``, so that a person new to the game races the bots rather than watching them
(at ``club`` pace bots end a round before a person new to it has found a stack).
``flat-out`` reacts in a millisecond, notices at once and misses nothing: for benchmarks. Every
draw takes the caller's seeded :class:`random.Random`, so a run replays from its seed; the
simulator and a network bot ask the same three questions of the same object.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from lan_demon.games.base import BadConfig


@dataclass(frozen=True)
class SpeedProfile:
    """A person's pace: reaction and notice times (seconds) and the chance to overlook a card."""

    name: str
    median: float  # median reaction time
    spread: float  # sigma of the log-normal; 0 makes every time exactly its median
    notice: float = 0.0  # median time to see a change made by someone else
    miss: float = 0.0  # probability of overlooking one playable card at one look

    def __post_init__(self) -> None:
        if self.median < 0 or self.spread < 0 or self.notice < 0:
            raise ValueError(f"speed profile {self.name!r}: times and spread must be >= 0")
        if not 0.0 <= self.miss < 1.0:
            raise ValueError(f"speed profile {self.name!r}: miss is a probability below 1, "
                             f"not {self.miss!r}")

    def _lognormal(self, median: float, rng: random.Random) -> float:
        if self.spread == 0 or median == 0:
            return median
        return median * math.exp(rng.gauss(0.0, self.spread))

    def react(self, rng: random.Random) -> float:
        """Seconds from looking at the table to the chosen card landing."""
        return self._lognormal(self.median, rng)

    def notice_delay(self, rng: random.Random) -> float:
        """Seconds before a change someone else made on the table is seen (0: at once)."""
        return self._lognormal(self.notice, rng)

    def misses(self, rng: random.Random) -> bool:
        """Whether one playable card is overlooked at this look (never draws when miss is 0,
        so a profile without misses leaves the generator untouched)."""
        return self.miss > 0 and rng.random() < self.miss


PROFILES: dict[str, SpeedProfile] = {p.name: p for p in (
    SpeedProfile("newcomer", 3.0, 0.4, notice=1.5, miss=0.2),
    SpeedProfile("beginner", 1.6, 0.5, notice=0.8, miss=0.15),
    SpeedProfile("club", 0.9, 0.4, notice=0.4, miss=0.06),
    SpeedProfile("expert", 0.5, 0.3, notice=0.2, miss=0.02),
    SpeedProfile("flat-out", 0.001, 0.0),
)}


def profile(name: str) -> SpeedProfile:
    """The speed profile called ``name``; :class:`BadConfig` naming the choices otherwise (the
    one check ``play``, ``bot``, the lobby's ``v``, the runner, the simulator and the arena use)."""
    if name not in PROFILES:
        raise BadConfig(f"unknown speed profile {name!r}; choose one of: {', '.join(PROFILES)}")
    return PROFILES[name]
