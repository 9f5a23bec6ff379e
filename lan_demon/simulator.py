"""Headless matches: bots play whole matches on the engines alone, no network, no screen.

Turn-based games simply ask the seat to move until the round ends. Racing Demon has no turns, so
the simulator keeps a clock: every bot looks at the table, decides, and its move lands a
reaction time later, drawn from a seeded speed profile. Meanwhile other moves land, so a bot's
card may arrive on a stack that someone has just taken — it is refused under RD-11 and goes back,
exactly as the arbiter will do it on a real table. The clock is simulated: nothing sleeps.
"""

from __future__ import annotations

import heapq
import math
import random
from dataclasses import dataclass, field
from typing import Any

from lan_demon.bots import make_strategy
from lan_demon.bots.base import Strategy, Turn
from lan_demon.games import TABLE, Game, GameError, IllegalMove, Match, get_game
from lan_demon.games.racing_demon import Timeout

STUCK_TIMEOUT = 60.0  # RD-13: seconds with no play before the table is stuck
MAX_MOVES = 200_000  # a round of any game by any bot in this project ends far sooner


class SimulationError(GameError):
    """A match that cannot be played as asked (it explains why)."""


@dataclass(frozen=True)
class SpeedProfile:
    """How fast a Racing Demon bot acts: a log-normal reaction time around ``median`` seconds."""

    name: str
    median: float
    spread: float

    def sample(self, rng: random.Random) -> float:
        if self.spread == 0:
            return self.median
        return self.median * math.exp(rng.gauss(0.0, self.spread))


PROFILES = {p.name: p for p in (
    SpeedProfile("beginner", 1.6, 0.5),
    SpeedProfile("club", 0.9, 0.4),
    SpeedProfile("expert", 0.5, 0.3),
    SpeedProfile("flat-out", 0.001, 0.0),
)}


@dataclass
class RoundStats:
    """What happened in one simulated round, beyond its scores."""

    moves: int = 0
    refused: int = 0  # moves refused when they landed
    beaten: int = 0  # of those, beaten to the place by another player's card (RD-11)
    seconds: float = 0.0  # simulated table time (Racing Demon)


@dataclass
class Simulation:
    """One headless match: the match record plus per-round statistics."""

    match: Match
    stats: list[RoundStats] = field(default_factory=list)


def _seat_rng(seed: int | str, round_no: int, seat: int, what: str) -> random.Random:
    return random.Random(f"lan_demon-sim:{seed}:{round_no}:{seat}:{what}")


def play_round(game: Game, state: Any, bots: list[Strategy], seed: int | str, round_no: int,
               speeds: list[SpeedProfile] | None = None) -> RoundStats:
    """Play one dealt round to its end with one strategy per seat."""
    rngs = [_seat_rng(seed, round_no, s, "bot") for s in range(len(bots))]
    for bot in bots:
        bot.reset()
    if game.races:
        speeds = speeds or [PROFILES["club"]] * len(bots)
        return _race(game, state, bots, rngs, speeds, seed, round_no)
    return _turns(game, state, bots, rngs)


def _turns(game: Game, state: Any, bots: list[Strategy], rngs: list[random.Random]) -> RoundStats:
    stats = RoundStats()
    while not game.round_over(state):
        for seat in game.to_move(state):
            move = bots[seat].choose(Turn(game, state, seat, rngs[seat]))
            if move is None:
                raise SimulationError(f"the {bots[seat].name} bot at seat {seat} passed a turn "
                                      f"in {game.title}, which has no passing")
            game.apply(state, seat, move)
            stats.moves += 1
        if stats.moves > MAX_MOVES:
            raise SimulationError(f"a round of {game.title} did not end in {MAX_MOVES} moves "
                                  f"with bots {[b.name for b in bots]}")
    return stats


def _race(game: Game, state: Any, bots: list[Strategy], rngs: list[random.Random],
          speeds: list[SpeedProfile], seed: int | str, round_no: int) -> RoundStats:
    """Racing Demon in simulated time: decide now, land a reaction later (RD-4, RD-11, RD-13)."""
    stats = RoundStats()
    clock = [_seat_rng(seed, round_no, s, "clock") for s in range(len(bots))]
    queue: list[tuple[float, int, int, Any]] = []
    seq = 0
    for seat in game.to_move(state):  # RD-4: everybody starts at Go, t = 0
        queue.append((speeds[seat].sample(clock[seat]), seq := seq + 1, seat, None))
    heapq.heapify(queue)
    last_play = now = 0.0
    while queue and not game.round_over(state):
        now, _, seat, move = heapq.heappop(queue)
        if now - last_play >= STUCK_TIMEOUT:  # RD-13: a minute with no play
            game.apply(state, TABLE, Timeout())
            last_play = now
            if game.round_over(state):
                break
        if move is None:  # the bot looks at the table and decides
            move = bots[seat].choose(Turn(game, state, seat, rngs[seat]))
            delay = speeds[seat].sample(clock[seat])
            # the move lands after the delay; with nothing to do (None) the bot looks again then
            heapq.heappush(queue, (now + delay, seq := seq + 1, seat, move))
            continue
        stats.moves += 1
        try:
            events = game.apply(state, seat, move)
        except IllegalMove as err:
            stats.refused += 1
            stats.beaten += err.rule == "RD-11"
            events = []
        if any(e["e"] in ("play", "rotate") for e in events):
            last_play = now
        if stats.moves > MAX_MOVES:
            raise SimulationError(f"a round of {game.title} did not end in {MAX_MOVES} moves")
        heapq.heappush(queue, (now + speeds[seat].sample(clock[seat]) * 0.25,
                               seq := seq + 1, seat, None))
    stats.seconds = now
    return stats


def simulate(game_id: str, players: int, seed: int | str, rounds: int | None = None,
             strategy: str | list[str] = "greedy", speed: str = "club",
             options: dict[str, Any] | None = None) -> Simulation:
    """Play a whole match headless. ``strategy`` is one name for every seat, or one per seat."""
    game = get_game(game_id)
    names = strategy if isinstance(strategy, list) else [strategy] * players
    if len(names) != players:
        raise SimulationError(f"{len(names)} strategies for {players} players")
    if speed not in PROFILES:
        raise SimulationError(f"unknown speed profile {speed!r}; choose one of: "
                              f"{', '.join(PROFILES)}")
    bots = [make_strategy(game.id, n) for n in names]
    if game.id == "racko" and all(n == "random" for n in names):
        raise SimulationError("random Rack-O bots never order a rack among themselves "
                              "(RK-5 would take millions of turns): seat at least one greedy "
                              "bot, e.g. --strategy random,greedy")
    labels = [f"{n}-{i + 1}" for i, n in enumerate(names)]
    match = Match(game, labels, seed, options or {}, rounds_wanted=rounds)
    sim = Simulation(match)
    speeds = [PROFILES[speed]] * players
    while not match.over:
        state = match.deal()
        sim.stats.append(play_round(game, state, bots, seed, match.round_no, speeds))
        match.record(game.round_result(state))
    return sim
