"""Headless matches: bots play whole matches on the engines alone, no network, no screen.

Turn-based games simply ask the seat to move until the round ends. Racing Demon has no turns, so
the simulator keeps a clock: every bot looks at the table, decides, and its move lands a
reaction time later, drawn from a seeded speed profile. Meanwhile other moves land, so a bot's
card may arrive on a stack that someone has just taken — it is refused under RD-11 and goes back,
exactly as the arbiter will do it on a real table. The clock is simulated: nothing sleeps.

A bot plays like the person its speed profile describes (:mod:`lan_demon.bots.speed`): a card
someone else puts on a stack reaches its eyes only a notice time later — until then it decides on
the stacks as it last saw them, and a card aimed at a stack that has moved on meets RD-11 — and
at each look it may overlook a playable card. Every draw is seeded per seat, so a run replays
byte for byte from its seed.
"""

from __future__ import annotations

import dataclasses
import heapq
import random
from dataclasses import dataclass, field
from typing import Any, Callable

from lan_demon.bots.base import Strategy, Turn
from lan_demon.bots.from_file import make_any
from lan_demon.bots.speed import PROFILES, SpeedProfile, profile
from lan_demon.games import TABLE, BadConfig, Game, GameError, IllegalMove, Match, get_game
from lan_demon.games.cards import Card
from lan_demon.games.demon_moves import Play, Timeout
from lan_demon.games.demon_races import RaceBook
from lan_demon.games.demon_stuck import STUCK_TIMEOUT, restarts_minute
from lan_demon.games.demon_table import DemonState, Stack

MAX_MOVES = 200_000  # a round of any game by any bot in this project ends far sooner


class SimulationError(GameError):
    """A match that cannot be played as asked (it explains why)."""


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


class _Sight:
    """The stacks as each seat has noticed them (RD-5, RD-11).

    Every card that lands on a stack is a new version of that stack. Its player knows it at once;
    every other seat learns it a notice time later. A seat that has noticed everything sees the
    real table; otherwise it gets a copy of the table whose stacks are the versions it has seen.
    Only the stacks are delayed: they are where the others' moves meet one's own cards.
    """

    def __init__(self, speeds: list[SpeedProfile], rngs: list[random.Random],
                 state: DemonState):
        self.speeds = speeds
        self.rngs = rngs
        self.version = 0
        # per seat: stack id -> (version, top card or None once its King was claimed, size);
        # what is on the table when the round starts, everybody sees
        start = {sid: (0, st.cards[-1], len(st.cards)) for sid, st in state.stacks.items()}
        self.seen: list[dict[int, tuple[int, Card | None, int]]] = [dict(start) for _ in speeds]
        self.pending: list[list[tuple[float, int, int, Card | None, int]]] = [[] for _ in speeds]

    def landed(self, state: DemonState, seat: int, events: list[dict[str, Any]],
               now: float) -> None:
        """Record the stack a committed play went to, for every seat to notice in its time."""
        for e in events:
            if e["e"] != "play" or not e["to"].startswith("s"):
                continue
            sid = int(e["to"][1:])
            stack = state.stacks.get(sid)
            top, size = (stack.cards[-1], len(stack.cards)) if stack else (None, 0)
            self.version += 1
            for i, speed in enumerate(self.speeds):
                delay = 0.0 if i == seat else speed.notice_delay(self.rngs[i])
                if delay <= 0:
                    self._see(i, sid, self.version, top, size)
                else:
                    self.pending[i].append((now + delay, self.version, sid, top, size))

    def _see(self, seat: int, sid: int, version: int, top: Card | None, size: int) -> None:
        known = self.seen[seat].get(sid)
        if known is None or known[0] < version:  # a later version noticed first wins
            self.seen[seat][sid] = (version, top, size)

    def table(self, state: DemonState, seat: int, now: float) -> DemonState:
        """The table as ``seat`` sees it at ``now``."""
        pending = self.pending[seat]
        if not pending:
            return state
        waiting = []
        for item in pending:
            if item[0] <= now:
                self._see(seat, item[2], item[1], item[3], item[4])
            else:
                waiting.append(item)
        self.pending[seat] = waiting
        if not waiting:
            return state
        stacks: dict[int, Stack] = {}
        wants: dict[Any, list[int]] = {}
        for sid, (_, top, size) in self.seen[seat].items():
            if top is None:
                continue
            stacks[sid] = Stack(sid, [top] * size)  # only the top and the size are ever read
            key = top.rank + 1 if state.german else (top.rank + 1, top.suit)
            wants.setdefault(key, []).append(sid)
        return dataclasses.replace(state, stacks=stacks, wants=wants)


def _overlooked(speed: SpeedProfile, eye: random.Random) -> Callable[[Any], bool] | None:
    """A turn's filter of the playable cards a seat sees at one look: each is overlooked with
    its profile's miss probability, drawn from ``eye`` (None: a profile that misses none)."""
    if speed.miss <= 0:
        return None
    return lambda move: not (isinstance(move, Play) and speed.misses(eye))


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
    seats = range(len(bots))
    clock = [_seat_rng(seed, round_no, s, "clock") for s in seats]
    eyes = [_seat_rng(seed, round_no, s, "miss") for s in seats]
    sight = _Sight(speeds, [_seat_rng(seed, round_no, s, "notice") for s in seats], state) \
        if any(p.notice > 0 for p in speeds) else None
    races = RaceBook(game)  # RD-11: what a refused card was, judged as the arbiter judges it
    queue: list[tuple[float, int, int, Any]] = []
    seq = 0
    for seat in game.to_move(state):  # RD-4: everybody starts at Go, t = 0
        queue.append((speeds[seat].react(clock[seat]), seq := seq + 1, seat, None))
    heapq.heapify(queue)
    last_play = now = 0.0
    while queue and not game.round_over(state):
        now, _, seat, move = heapq.heappop(queue)
        if now - last_play >= STUCK_TIMEOUT:  # RD-13: a minute with no play
            game.apply(state, TABLE, Timeout())
            last_play = now
            if game.round_over(state):
                break
        if move is None:  # the bot looks at the table (as it has noticed it) and decides
            speed = speeds[seat]
            table = sight.table(state, seat, now) if sight else state
            turn = Turn(game, table, seat, rngs[seat], _overlooked(speed, eyes[seat]))
            move = bots[seat].choose(turn)
            delay = speed.react(clock[seat])
            # the move lands after the delay; with nothing to do (None) the bot looks again then
            heapq.heappush(queue, (now + delay, seq := seq + 1, seat, move))
            continue
        stats.moves += 1
        try:
            events = game.apply(state, seat, move)
        except IllegalMove as err:
            stats.refused += 1
            # it lands the instant it is judged, so its place is the one it names (no hold)
            stats.beaten += races.lost(state, seat, move, None, now, err.rule)
            events = []
        races.remember(seat, now, events, state)
        if restarts_minute(events):
            last_play = now
            if sight:
                sight.landed(state, seat, events, now)
        if stats.moves > MAX_MOVES:
            raise SimulationError(f"a round of {game.title} did not end in {MAX_MOVES} moves")
        heapq.heappush(queue, (now + speeds[seat].react(clock[seat]) * 0.25,
                               seq := seq + 1, seat, None))
    stats.seconds = now
    return stats


__all__ = ["RoundStats", "Simulation", "SimulationError", "SpeedProfile",
           "play_round", "simulate"]


def simulate(game_id: str, players: int, seed: int | str, rounds: int | None = None,
             strategy: str | list[str] = "greedy", speed: str = "club",
             options: dict[str, Any] | None = None) -> Simulation:
    """Play a whole match headless. ``strategy`` is one name for every seat, or one per seat."""
    game = get_game(game_id)
    names = strategy if isinstance(strategy, list) else [strategy] * players
    if len(names) != players:
        raise SimulationError(f"{len(names)} strategies for {players} players")
    try:
        pace = profile(speed)
    except BadConfig as err:
        raise SimulationError(str(err)) from None
    bots = [make_any(game.id, n) for n in names]
    if game.id == "racko" and all(n == "random" for n in names):
        raise SimulationError("random Rack-O bots never order a rack among themselves "
                              "(RK-5 would take millions of turns): seat at least one greedy "
                              "bot, e.g. --strategy random,greedy")
    labels = [f"{n}-{i + 1}" for i, n in enumerate(names)]
    match = Match(game, labels, seed, options or {}, rounds_wanted=rounds)
    sim = Simulation(match)
    speeds = [pace] * players
    while not match.over:
        state = match.deal()
        sim.stats.append(play_round(game, state, bots, seed, match.round_no, speeds))
        match.record(game.round_result(state))
    return sim
