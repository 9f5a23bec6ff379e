"""Bots over the network: a strategy driving a :class:`~lan_demon.net.client.Client`.

A network bot sees exactly what a person at its seat sees — the client's redacted mirror — and
decides only when none of its moves is in flight, so it never plays blind on a card it has not
seen yet. A speed profile spaces its actions like a person's; ``flat-out`` acts at once. Many
bots can share one process: :func:`run_pool` polls all their sockets together.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from typing import Any, Callable

import zmq

from lan_demon.bots import make_strategy
from lan_demon.bots.base import Strategy, Turn
from lan_demon.games import GameError
from lan_demon.net.client import Client, Notice
from lan_demon.simulator import PROFILES, SpeedProfile


@dataclass
class NetBot:
    """One strategy in one seat."""

    client: Client
    strategy: Strategy
    rng: random.Random
    speed: SpeedProfile
    act_at: float | None = None
    done: bool = False
    moves: int = 0
    beaten: int = 0
    on_move: Callable[[NetBot, Any], None] | None = None

    def handle(self, notices: list[Notice]) -> None:
        for notice in notices:
            if notice.kind == "round_end":
                self.strategy.reset()
                self.client.ready()
            elif notice.kind == "match_end":
                self.done = True
            elif notice.kind == "beaten":
                self.beaten += 1
            if notice.kind in ("round", "round_end", "beaten", "refused", "resync"):
                self.act_at = None

    def step(self, now: float) -> None:
        """Act if it is time: choose on the canonical mirror and play."""
        client = self.client
        if self.done or client.pending or client.table.get("phase") != "playing" \
                or client.mirror is None or client.seat is None:
            return
        if self.act_at is None:
            self.act_at = now + (0.0 if self.speed.median < 0.002 else
                                 self.speed.sample(self.rng))
        if now < self.act_at:
            return
        self.act_at = None
        turn = Turn(client.game, client.mirror, client.seat, self.rng)
        if not turn.legal:
            return
        move = self.strategy.choose(turn)
        if move is None:
            self.act_at = now + max(0.05, self.speed.sample(self.rng))  # look again later
            return
        try:
            client.play(move)
        except GameError:
            return
        self.moves += 1
        if self.on_move is not None:
            self.on_move(self, move)

    def wake_in(self, now: float) -> float:
        if self.act_at is None:
            return 0.05
        return max(0.0, self.act_at - now)


def make_bot(address: str, strategy: str, name: str, seed: int | str = 0,
             speed: str = "club", context: zmq.Context | None = None,
             send_delay: float = 0.0, connect_timeout: float = 5.0) -> NetBot:
    """Connect a bot to the arbiter at ``address`` and say it is ready."""
    client = Client(address, name=name, bot=True, context=context, send_delay=send_delay)
    client.connect(timeout=connect_timeout)
    if client.seat is None:
        raise GameError("the arbiter gave the bot no seat")
    bot = NetBot(client, make_strategy(client.game.id, strategy),
                 random.Random(f"lan_demon-bot:{seed}:{client.seat}"), PROFILES[speed])
    client.ready()
    return bot


def run_pool(bots: list[NetBot], until: Callable[[], bool] | None = None,
             timeout: float = 3600.0, clock: Callable[[], float] = time.monotonic) -> None:
    """Run bots in this process until every match they sit in is over (or ``until()``).

    One poll covers every bot's sockets; a bot's client is pumped when one of its sockets is
    readable or its own housekeeping is due (:meth:`Client.due`) — not every client on every
    wake-up — and every bot may act."""
    deadline = clock() + timeout
    poller, polled = zmq.Poller(), None
    while not all(b.done for b in bots) and not (until and until()):
        if clock() > deadline:
            raise GameError(f"the bots' match did not end within {timeout:g} s")
        sockets = [(b.client.dealer, b.client.sub) for b in bots]
        if sockets != polled:  # a reconnecting client has new sockets
            poller, polled = zmq.Poller(), sockets
            for bot in bots:
                for sock in bot.client.sockets():
                    poller.register(sock, zmq.POLLIN)
        now = clock()
        wait = min([b.wake_in(now) for b in bots if not b.done] + [0.05])
        ready = dict(poller.poll(wait * 1000))
        now = clock()
        for bot in bots:
            if not bot.done:
                client = bot.client
                if client.dealer in ready or client.sub in ready or \
                        client.clock() >= client.due():
                    client.pump()
                if client.notices:
                    bot.handle(client.take_notices())
                bot.step(now)
