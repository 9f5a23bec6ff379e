"""The full-screen prompt_toolkit application, and the ``play`` and ``join`` sessions.

The application is thin: one window whose text is :meth:`Controller.render`, every key handed
to :meth:`Controller.key`, and a task that pumps the client a hundred times a second and
redraws when something changed. ``play`` runs an arbiter and bots in this process, on
loopback, so one command gives a whole table.
"""

from __future__ import annotations

import asyncio
import secrets
import threading
from dataclasses import dataclass
from typing import Any

import zmq
from prompt_toolkit.application import Application, get_app
from prompt_toolkit.key_binding import KeyBindings
from prompt_toolkit.layout import Layout, Window
from prompt_toolkit.layout.controls import FormattedTextControl

from lan_demon.net.client import Client
from lan_demon.tui.style import STYLE
from lan_demon.tui.table import Controller, GameScreen

PUMP_EVERY = 0.01


def screen_for(game_id: str) -> GameScreen:
    if game_id.startswith("racing-demon"):
        from lan_demon.tui.demon import DemonScreen
        return DemonScreen()
    if game_id == "racko":
        from lan_demon.tui.racko import RackOScreen
        return RackOScreen()
    from lan_demon.tui.gin import GinScreen
    return GinScreen()


KEY_NAMES = {"c-m": "enter", "c-j": "enter", "escape": "escape", "pagedown": "pagedown",
             "pageup": "pageup"}


def key_name(data: str, key: str | None = None) -> str:
    """The controller's name for a key press: the character, or enter / escape / space /
    pagedown / pageup (``key`` is prompt_toolkit's name for it, when it has one)."""
    if key in KEY_NAMES:
        return KEY_NAMES[key]
    return {"\r": "enter", "\n": "enter", "\x1b": "escape", " ": "space"}.get(data, data)


def build_app(ctl: Controller) -> Application:
    bindings = KeyBindings()

    @bindings.add("c-c")
    def _(event: Any) -> None:
        ctl.quit = True
        event.app.exit()

    @bindings.add("<any>")
    def _(event: Any) -> None:
        size = event.app.output.get_size()
        ctl.size = (size.columns, size.rows)  # so no key acts behind "too small"
        pressed = event.key_sequence[0].key if event.key_sequence else None
        ctl.key(key_name(event.data, getattr(pressed, "value", pressed)))
        if ctl.quit:
            event.app.exit()

    def text() -> Any:
        size = get_app().output.get_size()
        return ctl.render(size.columns, size.rows)

    app: Application = Application(
        layout=Layout(Window(FormattedTextControl(text, focusable=True), wrap_lines=False)),
        key_bindings=bindings, style=STYLE, full_screen=True, refresh_interval=0.25)

    async def pump() -> None:
        while not ctl.quit:
            if ctl.pump():
                app.invalidate()
            await asyncio.sleep(PUMP_EVERY)
        app.exit()

    app.pre_run_callables.append(lambda: app.create_background_task(pump()))
    ctl.output = app.output  # the bell rings through the application's terminal
    return app


def table_for(client: Client, host: bool = False, bell: bool = True,
              local: LocalTable | None = None) -> Controller:
    """The screen for ``client``'s game. ``bell=False``: silent (``--no-bell``); ``local``:
    the in-process table of ``lan-demon play``, whose bots' speed the lobby can change."""
    from lan_demon.bots.speed import PROFILES
    return Controller(client, screen_for(client.game.id), host=host, bell=bell, local=local,
                      speeds=list(PROFILES))


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
        from lan_demon.games import BadConfig
        from lan_demon.bots.speed import PROFILES
        if name not in PROFILES:
            raise BadConfig(f"unknown speed profile {name!r}; choose one of: "
                            f"{', '.join(PROFILES)}")
        self.speed = name
        for bot in list(self.bots):
            bot.set_speed(PROFILES[name])

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
        from lan_demon.bots.runner import make_bot, run_pool
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


BOT_NAMES = ["Ada", "Bea", "Cy", "Dot", "Eli", "Flo", "Gus", "Hal", "Ivy", "Jo", "Kit", "Lu",
             "Mo", "Ned", "Oz", "Pam", "Quin", "Rex", "Sal", "Tam"]


def start_local_table(game: str, seed: int | str | None, rounds: int | None = None,
                      speed: str = "club", countdown: float = 3.0, pause: float | None = 60.0,
                      context: zmq.Context | None = None,
                      strategy: str = "greedy", lag_cap_ms: float | None = None,
                      options: dict[str, Any] | None = None) -> LocalTable:
    """Start an arbiter on 127.0.0.1 (any free port) in a thread of this process;
    ``lag_cap_ms`` (RD-11, PROTOCOL.md §8) and ``options`` (e.g. RD-15 ``handicap``) as
    ``lan-demon play`` was told, the defaults otherwise. ``seed`` None: secret deals
    (committed and revealed); the bots' own choices then get a fresh seed."""
    from lan_demon.net.arbiter import LAG_CAP_MS, Config
    from lan_demon.net.server import ArbiterServer
    config = Config(game, rounds=rounds, seed=seed, countdown=countdown, pause=pause,
                    turn_timeout=120.0, options=dict(options or {}),
                    lag_cap_ms=LAG_CAP_MS if lag_cap_ms is None else lag_cap_ms)
    server = ArbiterServer(config, port=0, context=context).start()
    bots_seed = seed if seed is not None else secrets.token_hex(8)
    return LocalTable(server, bots_seed, speed, context, strategy=strategy)
