"""The table of ``lan-demon play``: an arbiter and bots in this process, on loopback. The
person's own client and screen come from :mod:`lan_demon.tui`; the lobby's ``v`` key changes the
bots' speed through :meth:`LocalTable.set_speed`."""

from __future__ import annotations

import secrets
import threading
from dataclasses import dataclass
from typing import Any

import zmq

from lan_demon.bots.runner import make_bot, run_pool
from lan_demon.bots.speed import profile
from lan_demon.net.arbiter import LAG_CAP_MS, Config
from lan_demon.net.server import ArbiterServer

BOT_NAMES = ["Ada", "Bea", "Cy", "Dot", "Eli", "Flo", "Gus", "Hal", "Ivy", "Jo", "Kit", "Lu",
             "Mo", "Ned", "Oz", "Pam", "Quin", "Rex", "Sal", "Tam"]


@dataclass
class LocalTable:
    """An arbiter and bots in this process, on loopback: what ``lan-demon play`` sits at.

    The person connects first (so they hold seat 0 and start the match), then the bots."""

    server: Any
    seed: Any
    speed: str = "club"
    context: zmq.Context | None = None
    bots_thread: threading.Thread | None = None
    strategy: str = "greedy"

    def __post_init__(self) -> None:
        self.stop = threading.Event()
        self.bots: list[Any] = []  # the NetBots, once seated

    def set_speed(self, name: str) -> None:
        """Every bot plays at speed profile ``name`` from its next action on (a NetBot reads
        its profile from its ``speed`` attribute at each decision)."""
        chosen = profile(name)
        self.speed = name
        for bot in list(self.bots):
            bot.set_speed(chosen)

    @property
    def address(self) -> str:
        return self.server.address

    def add_bots(self, count: int, timeout: float = 10.0) -> None:
        """Seat ``count`` bots playing ``self.strategy`` and run them in a thread of their
        own."""
        if not count:
            return
        seated = threading.Event()
        self.bots_thread = threading.Thread(target=self._run_bots, args=(count, seated),
                                            name="bots", daemon=True)
        self.bots_thread.start()
        seated.wait(timeout=timeout)

    def _run_bots(self, count: int, seated: threading.Event) -> None:
        bots = self.bots
        try:
            for i in range(count):
                bots.append(make_bot(self.address, self.strategy, f"{BOT_NAMES[i % 20]} (bot)",
                                     seed=f"{self.seed}:{i}", speed=self.speed,
                                     context=self.context))
            seated.set()
            run_pool(bots, until=self.stop.is_set, timeout=24 * 3600)
        finally:
            seated.set()
            for bot in bots:
                bot.client.close()

    def close(self) -> None:
        self.stop.set()
        if self.bots_thread is not None:
            self.bots_thread.join(timeout=10)
        self.server.stop()


def start_local_table(game: str, seed: int | str | None, rounds: int | None = None,
                      speed: str = "club", countdown: float = 3.0, pause: float | None = 60.0,
                      context: zmq.Context | None = None,
                      strategy: str = "greedy", lag_cap_ms: float | None = None,
                      options: dict[str, Any] | None = None) -> LocalTable:
    """Start an arbiter on 127.0.0.1 (any free port) in a thread of this process;
    ``lag_cap_ms`` (RD-11, PROTOCOL.md §8) and ``options`` (e.g. RD-15 ``handicap``) as
    ``lan-demon play`` was told, the defaults otherwise. ``seed`` None: secret deals
    (committed and revealed); the bots' own choices then get a fresh seed."""
    config = Config(game, rounds=rounds, seed=seed, countdown=countdown, pause=pause,
                    turn_timeout=120.0, options=dict(options or {}),
                    lag_cap_ms=LAG_CAP_MS if lag_cap_ms is None else lag_cap_ms)
    server = ArbiterServer(config, port=0, context=context).start()
    bots_seed = seed if seed is not None else secrets.token_hex(8)
    return LocalTable(server, bots_seed, speed, context, strategy=strategy)
