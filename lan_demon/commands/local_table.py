"""The table of ``lan-demon play``: an arbiter and bots in this process, on loopback — and the
bots alone (:class:`TableBots`), which ``host --bots`` seats at its own arbiter too. The
person's own client and screen come from :mod:`lan_demon.tui`; the lobby's ``v`` key steps the
bots' level through :meth:`LocalTable.set_speed`."""

from __future__ import annotations

import secrets
import sys
import threading
from dataclasses import dataclass, field
from typing import Any

import zmq

from lan_demon.bots.levels import HIGHEST, LOWEST, PLAIN_SPEED, PLAIN_STRATEGY, Choice, bot_name
from lan_demon.bots.registry import make_strategy
from lan_demon.bots.runner import NetBot, leave_and_close, run_pool, seat_bot
from lan_demon.games import GameError
from lan_demon.net.handover import Handover
from lan_demon.net.settings import COUNTDOWN, LAG_CAP_MS, PAUSE, Settings, dealing_of
from lan_demon.net.server import ArbiterServer

BOT_NAMES = ["Ada", "Bea", "Cy", "Dot", "Eli", "Flo", "Gus", "Hal", "Ivy", "Jo", "Kit", "Lu",
             "Mo", "Ned", "Oz", "Pam", "Quin", "Rex", "Sal", "Tam"]
#: What the lobby's ``v`` steps through (Controller ``speeds``): every level, slowest first.
LEVEL_LABELS = [f"level {n}" for n in range(LOWEST, HIGHEST + 1)]


@dataclass
class TableBots:
    """Bots of this process at one table, seated and run in a thread of their own.

    ``mark``: each name carries the level ("Ada L7"), so that every screen at the table
    shows it — for ``host --bots``, whose level is set once; ``play``'s lobby asks
    :meth:`level_of` instead, since its ``v`` changes the level after the bots sat down."""

    address: str
    seed: Any
    choice: Choice
    context: zmq.Context | None = None
    server_key: str | None = None
    code: str | None = None
    mark: bool = False
    thread: threading.Thread | None = None
    bots: list[NetBot] = field(default_factory=list)
    handed: list[threading.Thread] = field(default_factory=list)  # bots for seats handed over

    def __post_init__(self) -> None:
        self.stop = threading.Event()

    def add(self, count: int, timeout: float = 10.0) -> None:
        """Seat ``count`` bots and run them in a thread of their own, returning once they are
        seated (or ``timeout`` passed)."""
        if not count:
            return
        seated = threading.Event()
        self.thread = threading.Thread(target=self._run, args=(count, seated), name="bots",
                                       daemon=True)
        self.thread.start()
        seated.wait(timeout=timeout)

    def name(self, i: int) -> str:
        base = BOT_NAMES[i % len(BOT_NAMES)]
        if self.mark and self.choice.level is not None:
            return bot_name(base, self.choice.level)
        return base

    def _seat(self, name: str, seed: str, choice: Choice, token: str | None = None) -> NetBot:
        bot = seat_bot(self.address, name,
                       lambda client: make_strategy(client.game.id,
                                                    choice.strategy_for(client.game.id)),
                       seed=seed, context=self.context, server_key=self.server_key,
                       code=self.code, token=token)
        bot.set_speed(choice.pace_for(bot.client.game.id))  # before it first acts (run_pool)
        return bot

    def _run(self, count: int, seated: threading.Event) -> None:
        def seat() -> None:
            for i in range(count):
                self.bots.append(self._seat(self.name(i), f"{self.seed}:{i}", self.choice))
            seated.set()
        try:
            self._play(self.bots, seat, "the bots")
        finally:
            seated.set()

    def _play(self, bots: list[NetBot], seat: Any, who: str) -> None:
        """Seat ``bots`` (``seat()``) and run them until stopped; a table gone away or a
        seat refused is one line; every bot leaves at the end."""
        try:
            seat()
            run_pool(bots, until=self.stop.is_set, timeout=24 * 3600)
        except (GameError, zmq.ZMQError) as err:  # no seat, or the table went away: one line
            if not self.stop.is_set():
                print(f"lan-demon: {who} stopped: {err}", file=sys.stderr, flush=True)
        finally:
            for bot in bots:
                leave_and_close(bot.client)

    def take_over(self, handover: Handover) -> None:
        """A seat handed over to a bot (PROTOCOL.md §24): a bot of the handover's level takes
        it by its token, in a thread of its own — called from the arbiter's loop, so it returns
        at once (the bot's hello is answered by that loop). Its level is fixed: the lobby's
        ``v`` does not change it."""
        thread = threading.Thread(target=self._run_handed, args=(handover,),
                                  name=f"bot for seat {handover.seat + 1}", daemon=True)
        self.handed.append(thread)
        thread.start()

    def _run_handed(self, handover: Handover) -> None:
        bots: list[NetBot] = []
        self._play(bots, lambda: bots.append(self._seat(
            "bot", f"{self.seed}:seat{handover.seat}", Choice(handover.level),
            token=handover.token)), f"the bot for seat {handover.seat + 1}")

    def set_choice(self, choice: Choice) -> None:
        """Every bot plays ``choice`` from its next action on: a NetBot reads its profile and
        its strategy afresh at each decision (the lobby changes it before the match)."""
        self.choice = choice
        for bot in list(self.bots):
            game = bot.client.game.id
            bot.set_speed(choice.pace_for(game))
            bot.strategy = make_strategy(game, choice.strategy_for(game))

    def level_of(self, name: str) -> int | None:
        """The level of the seat called ``name`` if it is one of these bots."""
        if any(bot.client.name == name for bot in list(self.bots)):
            return self.choice.level
        return None

    def close(self) -> None:
        self.stop.set()
        for thread in [self.thread, *self.handed]:
            if thread is not None:
                thread.join(timeout=10)


def table_bots(server: Any, seed: str, keys: Any, code: str | None, level: int) -> Any:
    """A :class:`~lan_demon.commands.local_table.TableBots` at ``server``, which starts the
    bots of the seats handed over there (a fresh host's and a resumed one's); ``level`` is
    also what the host's ``remove NAME bot`` hands a seat to when it names no level."""
    bots = TableBots(f"tcp://127.0.0.1:{server.port}", seed, Choice(level),
                     server_key=keys.public.decode() if keys is not None else None,
                     code=code, mark=True)
    server.asks.take_handovers(server.arbiter, bots.take_over)
    server.asks.bot_level = level
    return bots


@dataclass
class LocalTable:
    """An arbiter and bots in this process, on loopback: what ``lan-demon play`` sits at.

    The person connects first (so they hold seat 0 and start the match), then the bots."""

    server: Any
    table_bots: TableBots
    page_url: str | None = None  # where a browser on this computer sits down (its lobby says)

    @property
    def address(self) -> str:
        return self.server.address

    @property
    def bots(self) -> list[NetBot]:
        return self.table_bots.bots

    @property
    def choice(self) -> Choice:
        return self.table_bots.choice

    @property
    def level(self) -> int | None:
        return self.choice.level

    @property
    def speed(self) -> str:
        """What the lobby's ``v`` shows and steps from: ``level N`` (one of LEVEL_LABELS), or
        the speed profile's name at a table without a level."""
        choice = self.choice
        return f"level {choice.level}" if choice.level is not None else \
            choice.pace_for(self.server.arbiter.settings.game).name

    def set_speed(self, label: str) -> None:
        """The lobby's ``v``: ``label`` is ``level N``; the level then chooses both strategy
        and pace (an explicit --strategy or --speed is set aside: the host chose anew)."""
        number = int(label.removeprefix("level "))
        self.table_bots.set_choice(Choice(number))

    def describe(self) -> str:
        """The bots' strategy and pace in a few words (the lobby's footer)."""
        return self.choice.describe(self.server.arbiter.settings.game)

    def level_of(self, name: str) -> int | None:
        return self.table_bots.level_of(name)

    def add_bots(self, count: int, timeout: float = 10.0) -> None:
        self.table_bots.add(count, timeout)

    def close(self) -> None:
        self.table_bots.close()
        self.server.stop()


def start_local_table(game: str, seed: int | str | None, rounds: int | None = None,
                      speed: str | None = PLAIN_SPEED, countdown: float = COUNTDOWN,
                      pause: float | None = PAUSE, context: zmq.Context | None = None,
                      strategy: str | None = PLAIN_STRATEGY, lag_cap_ms: float | None = None,
                      options: dict[str, Any] | None = None,
                      level: int | None = None) -> LocalTable:
    """Start an arbiter on 127.0.0.1 (any free port) in a thread of this process;
    ``lag_cap_ms`` (RD-11, PROTOCOL.md §8) and ``options`` (e.g. RD-15 ``handicap``) as
    ``lan-demon play`` was told, the defaults otherwise. ``seed`` None: secret deals
    (committed and revealed); the bots' own choices then get a fresh seed. The bots play
    ``level`` (:mod:`lan_demon.bots.levels`), an explicit ``strategy`` or ``speed`` winning
    over the level's own; without a level, ``strategy`` at ``speed``."""
    settings = Settings(game, rounds=rounds, dealing=dealing_of(seed), countdown=countdown,
                        pause=pause, turn_timeout=120.0, options=dict(options or {}),
                        lag_cap_ms=LAG_CAP_MS if lag_cap_ms is None else lag_cap_ms)
    server = ArbiterServer(settings, port=0, context=context).start()
    bots_seed = seed if seed is not None else secrets.token_hex(8)
    choice = Choice(level, strategy, speed)
    bots = TableBots(server.address, bots_seed, choice, context)
    server.asks.take_handovers(server.arbiter, bots.take_over)  # a seat handed to a bot (§24)
    return LocalTable(server, bots)
