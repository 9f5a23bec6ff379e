"""Drive the real prompt_toolkit application through a pipe, with a dummy output.

``drive(game, bots, script)`` starts a local table (arbiter and bots on loopback, in this
process), connects a person, builds the very application ``lan-demon play`` runs, and runs it
with ``create_pipe_input`` / ``DummyOutput`` / ``create_app_session`` while ``script`` presses
keys and waits on the game state (polling with a deadline — no sleeps as synchronisation).
"""

from __future__ import annotations

import asyncio
import time
from typing import Any, Awaitable, Callable

import zmq
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from lan_demon.commands.local_table import start_local_table
from lan_demon.net.client import Client
from lan_demon.tui.app import build_app, table_for
from lan_demon.tui.style import text_of
from lan_demon.tui.table import Controller


class Keys:
    """What a script may do: press keys and wait for a condition."""

    def __init__(self, pipe: Any, ctl: Controller, table: Any):
        self.pipe, self.ctl, self.table = pipe, ctl, table

    async def press(self, *keys: str) -> None:
        """Type keys, one by one, each handled by the application before the next."""
        for key in keys:
            seen = self.ctl.keys_seen
            self.pipe.send_text({"enter": "\r", "space": " ", "escape": "\x1b"}.get(key, key))
            await self.until(lambda: self.ctl.keys_seen > seen, what=f"the key {key!r}")

    async def seated(self, players: int, timeout: float = 20.0) -> None:
        """Wait for ``players`` seats, every bot among them ready. Seated is not ready (a bot
        commits its nonce first, §22): an Enter before then only asks the captain "start
        anyway?", and a test waiting for Go would wait out its timeout."""
        seats = lambda: self.ctl.seats  # noqa: E731
        await self.until(lambda: len(seats()) == players and all(
            s.get("ready") for s in seats() if s.get("bot")), timeout,
            what=f"{players} seats, the bots ready")

    async def until(self, condition: Callable[[], bool], timeout: float = 20.0,
                    what: str = "") -> None:
        deadline = time.monotonic() + timeout
        await asyncio.sleep(0)  # always let the application run
        while not condition():
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what or condition}")
            await asyncio.sleep(0.005)  # yield to the application's loop while polling

    async def read_help(self, width: int = 100, height: int = 40) -> str:
        """Open the help with ``?``, read it as drawn at width × height, and close it (Esc)."""
        await self.press("?")
        await self.until(lambda: self.ctl.help, what="the help")
        text = text_of(self.ctl.render(width, height))
        await self.press("escape")
        return text

    async def settled(self) -> None:
        """Wait until none of our moves is in flight."""
        await self.until(lambda: not self.ctl.client.pending, what="our moves to land")


def drive(game: str, bots: int, script: Callable[[Keys], Awaitable[None]], seed: Any = 1,
          rounds: int | None = None, speed: str = "expert", timeout: float = 60.0,
          banner_seconds: float = 0.0, bell: bool = True, coach: Any = None) -> Controller:
    context = zmq.Context()
    table = start_local_table(game, seed, rounds, speed, countdown=0, context=context)
    client = None
    try:
        client = Client(table.address, name="Tess", context=context).connect()
        table.add_bots(bots)
        ctl = table_for(client, host=True, bell=bell, coach=coach)  # coach: as play hands it
        ctl.banner_seconds = banner_seconds  # the OUT banner is held only when a test asks
        with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
            app = build_app(ctl)

            async def main() -> None:
                running = asyncio.ensure_future(app.run_async())
                try:
                    await asyncio.wait_for(script(Keys(pipe, ctl, table)), timeout)
                finally:
                    ctl.quit = True
                    await asyncio.wait_for(running, 10)

            asyncio.run(main())
        return ctl
    finally:
        if client is not None:
            client.close()
        table.close()
        context.term()
