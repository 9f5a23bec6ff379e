"""The full-screen prompt_toolkit application that ``play`` and ``join`` open.

The application is thin: one window whose text is :meth:`Controller.render`, every key handed
to :meth:`Controller.key`, and a task that pumps the client a hundred times a second and
redraws when something changed. The arbiter and bots of ``play`` are the command's
(:mod:`lan_demon.commands.local_table`): the screen only talks to its client.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from prompt_toolkit.application import Application, get_app
from prompt_toolkit.key_binding import KeyBindings
from prompt_toolkit.layout import Layout, Window
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.output import ColorDepth

from lan_demon.net.client import Client
from lan_demon.seat.palette import Palette, no_color, palette_for
from lan_demon.tui.style import style_for
from lan_demon.tui.table import Controller, GameScreen

PUMP_EVERY = 0.01


def screen_for(game_id: str, coach: Any = None) -> GameScreen:
    """The game's screen; ``coach`` (:func:`lan_demon.coach.coach_for`: the round's review in
    Racing Demon, the strong bot's advice in Rack-O and Gin Solitaire) is handed in by the
    command, as the TUI never imports a bot."""
    if game_id.startswith("racing-demon"):
        from lan_demon.tui.demon import DemonScreen
        return DemonScreen(coach, german=game_id == "racing-demon-german")
    if game_id == "racko":
        from lan_demon.tui.racko import RackOScreen
        return RackOScreen(coach)
    from lan_demon.tui.gin import GinScreen
    return GinScreen(coach)


KEY_NAMES = {"c-m": "enter", "c-j": "enter", "escape": "escape", "pagedown": "pagedown",
             "pageup": "pageup"}


def key_name(data: str, key: str | None = None) -> str:
    """The controller's name for a key press: the character, or enter / escape / space /
    pagedown / pageup (``key`` is prompt_toolkit's name for it, when it has one)."""
    if key in KEY_NAMES:
        return KEY_NAMES[key]
    return {"\r": "enter", "\n": "enter", "\x1b": "escape", " ": "space"}.get(data, data)


def colour_depth(palette: Palette) -> ColorDepth | None:
    """How many colours the terminal is told to use: none for a palette without colour; 256
    for a palette chosen by ``--palette`` under ``NO_COLOR`` (the flag wins, as no-color.org
    asks; prompt_toolkit alone would drop every colour); else what the terminal says."""
    if not palette.colour:
        return ColorDepth.DEPTH_1_BIT
    return ColorDepth.DEPTH_8_BIT if no_color() else None


def build_app(ctl: Controller, palette: Palette | None = None) -> Application:
    """The application drawing ``ctl`` in ``palette`` (default: ``none`` under ``NO_COLOR``,
    else ``classic``)."""
    palette = palette if palette is not None else palette_for(None)
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
        key_bindings=bindings, style=style_for(palette), color_depth=colour_depth(palette),
        full_screen=True, refresh_interval=0.25)

    async def pump() -> None:
        while not ctl.quit:
            if ctl.pump():
                app.invalidate()
            await asyncio.sleep(PUMP_EVERY)
        app.exit()

    app.pre_run_callables.append(lambda: app.create_background_task(pump()))
    ctl.output = app.output  # the bell rings through the application's terminal
    return app


def table_for(client: Client, host: bool = False, bell: bool = True, local: Any = None,
              speeds: Sequence[str] = (), coach: Any = None, big: bool = False) -> Controller:
    """The screen for ``client``'s game. ``bell=False``: silent (``--no-bell``); ``local``:
    the in-process table of ``lan-demon play`` (its ``speed`` and ``set_speed(name)``), whose
    bots' level the lobby changes among ``speeds``, the levels' labels lowest first; ``big``:
    larger cards where the terminal has room (``--big``)."""
    ctl = Controller(client, screen_for(client.game.id, coach), host=host, bell=bell,
                     local=local, speeds=speeds)
    ctl.big = big
    return ctl
