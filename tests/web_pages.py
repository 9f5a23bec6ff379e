"""A page's WebSocket without a browser, for tests and benchmarks: it sends exactly the frames
the page sends (docs/page-protocol.md) and reads what the gateway answers. The test's own
asyncio loop runs it (``asyncio.run``); the web server runs on its own thread."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable

import aiohttp

WAIT = 10.0  # seconds a frame is waited for before the test fails


@dataclass
class Page:
    """One page's socket: ``frames`` every frame received, ``face`` the latest face."""

    ws: aiohttp.ClientWebSocketResponse
    frames: list[dict[str, Any]] = field(default_factory=list)
    face: dict[str, Any] | None = None

    async def send(self, frame: Any) -> None:
        await self.ws.send_str(frame if isinstance(frame, str) else json.dumps(frame))

    async def receive(self, timeout: float = WAIT) -> dict[str, Any] | None:
        """The next frame (None once the socket has closed)."""
        msg = await self.ws.receive(timeout=timeout)
        if msg.type != aiohttp.WSMsgType.TEXT:
            return None
        frame = json.loads(msg.data)
        self.frames.append(frame)
        if frame.get("t") == "face":
            self.face = frame["face"]
        return frame

    async def until(self, condition: Callable[[dict[str, Any]], bool],
                    timeout: float = WAIT) -> dict[str, Any]:
        """Read frames until one satisfies ``condition``; it is returned."""
        while True:
            frame = await self.receive(timeout)
            assert frame is not None, f"the socket closed; frames: {self.frames[-5:]}"
            if condition(frame):
                return frame

    async def until_face(self, condition: Callable[[dict[str, Any]], bool],
                         timeout: float = WAIT) -> dict[str, Any]:
        if self.face is not None and condition(self.face):
            return self.face
        frame = await self.until(lambda f: f.get("t") == "face" and condition(f["face"]),
                                 timeout)
        return frame["face"]

    async def join(self, name: str = "", **more: Any) -> dict[str, Any]:
        """Send a join; the answer (``seated`` or ``refused``) is returned."""
        await self.send({"t": "join", "name": name, **more})
        return await self.until(lambda f: f.get("t") in ("seated", "refused"))


async def open_page(session: aiohttp.ClientSession, url: str) -> Page:
    return Page(await session.ws_connect(url.rstrip("/") + "/ws"))


async def at_play(session: aiohttp.ClientSession, url: str, first: str = "Ann",
                  second: str = "Bob") -> tuple[Page, Page, str]:
    """Two pages sit down, say ready, and the first (the captain) starts: both at a round in
    play. Returns the pages and the first page's token."""
    one, two = await open_page(session, url), await open_page(session, url)
    token = (await one.join(first))["token"]
    await two.join(second)
    for page in (one, two):
        await page.send({"t": "act", "do": "ready"})
    await one.until_face(lambda f: [s["ready"] for s in f["seats"]] == [True, True])
    await one.send({"t": "act", "do": "start"})
    for page in (one, two):
        await page.until_face(lambda f: f["phase"] == "playing" and f["table"] is not None)
    return one, two, token
