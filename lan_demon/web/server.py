"""The HTTP server beside the arbiter: the page's static files, the lobby's QR code, and the
WebSocket gateway, on an asyncio loop of its own in a thread of the host's process.

Why a thread of its own: the arbiter's loop (``net/server.py``) is one synchronous ZeroMQ poll
loop tuned for RD-11's races, and stays untouched; aiohttp needs an asyncio loop. The gateway's
clients talk to the arbiter over 127.0.0.1 like any terminal, so the two loops share no state
and no lock, and a slow or hostile page can cost the arbiter no more than a terminal could.

Routes: ``/`` the lobby (``static/index.html``), ``/tv`` the shared screen (``static/tv.html``),
``/static/...`` the package's files, ``/qr.svg`` the address as a QR code, ``/ws`` the gateway
(``docs/page-protocol.md``), ``/table.json`` what the lobby needs before joining (the game,
whether a room code is asked, the address). Nothing is fetched from anywhere else.
"""

from __future__ import annotations

import asyncio
import errno
import socket
import threading
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Callable
from urllib.parse import urlsplit

import zmq
from aiohttp import web

from lan_demon.web.frames import MAX_FRAME
from lan_demon.web.gateway import Gateway
from lan_demon.web.page_book import PageBook

LOOPBACK = "127.0.0.1"
EVERY_INTERFACE = "0.0.0.0"
DEFAULT_PORT = 8700  # beside the arbiter's 7700: "seven for terminals, eight for browsers"
PORTS_TRIED = 10  # the default port taken: the next ones are tried, and the one used is said
HEARTBEAT = 20.0  # seconds between WebSocket pings: a page gone without a word is noticed
STATIC = Path(str(resources.files("lan_demon.web") / "static"))
#: What a page's files may do: load from this host only (no CDN, no font from elsewhere).
POLICY = ("default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
          "script-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; "
          "frame-ancestors 'none'")


class WebError(Exception):
    """The web server cannot serve as asked (its port is taken); the text says so plainly."""


def bind_host(lan: bool) -> str:
    """Where the web server listens: every interface with ``--lan`` (phones on the Wi-Fi reach
    it), else 127.0.0.1 only, exactly like the arbiter."""
    return EVERY_INTERFACE if lan else LOOPBACK


@dataclass(frozen=True)
class TableInfo:
    """What the lobby is told before anyone joins (``/table.json``)."""

    game: str
    coded: bool  # the table asks a room code
    url: str = ""  # the address people open (for the lobby's QR code)
    lan: bool = False  # phones can reach it (a --lan table): the laptop's lobby shows its QR


def _listen(host: str, port: int) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    sock.setblocking(False)
    return sock


def open_port(host: str, port: int | None) -> tuple[socket.socket, str | None]:
    """A listening socket on ``port`` (0: any free one; None: :data:`DEFAULT_PORT` or, taken,
    the next free of :data:`PORTS_TRIED`), and what to tell the host when it is not the port
    asked for. A port given and taken is a :class:`WebError` in one line."""
    if port is not None:
        try:
            return _listen(host, port), None
        except OSError as err:
            raise WebError(_taken(host, port, err) + " (--web-port N chooses another, "
                           "--no-web serves no page)") from None
    first_err: OSError | None = None
    for candidate in range(DEFAULT_PORT, DEFAULT_PORT + PORTS_TRIED):
        try:
            sock = _listen(host, candidate)
        except OSError as err:
            first_err = first_err or err
            continue
        note = None if candidate == DEFAULT_PORT else \
            f"port {DEFAULT_PORT} is taken, so the page is on port {candidate}"
        return sock, note
    raise WebError(_taken(host, DEFAULT_PORT, first_err) + f" and so are the next "
                   f"{PORTS_TRIED - 1} (--web-port N chooses another, --no-web serves no page)")


def _taken(host: str, port: int, err: OSError | None) -> str:
    if err is not None and err.errno == errno.EADDRINUSE:
        why = "it is taken"
    elif err is not None and err.strerror:
        why = err.strerror
    else:
        why = "it cannot be used"
    return f"cannot serve the page on {host}:{port}: {why}"


class WebServer:
    """The aiohttp app, its loop and its thread. ``start()`` returns once it listens;
    ``stop()`` ends every browser's client, closes the pages and joins the thread."""

    def __init__(self, arbiter_port: int, game: str, host: str = LOOPBACK,
                 port: int | None = 0, server_key: str | None = None, code: str | None = None,
                 context: zmq.Context | None = None, public: str | None = None,
                 coach_for: Callable[[str], Any] | None = None,
                 book: str | None = None):
        """``arbiter_port``: the ROUTER's, reached over 127.0.0.1; ``server_key``: the host's
        CURVE public key at a ``--secure`` table; ``code``: the table's room code (the
        lobby shows its field; the gateway brakes wrong ones by browser, the arbiter decides).
        ``port`` as :func:`open_port`.
        ``public``: this machine's address as people's browsers reach it (a --lan table's
        LAN address), for the address shown and its QR code; default 127.0.0.1.
        ``coach_for(game_id)``: each browser seat's coach (the round's review, the hints),
        handed in by the command as the terminal's is. ``book``: the file where the
        browser seats are written down (beside the journal), so that a resumed host seats
        each page again (:mod:`.page_book`)."""
        self.sock, self.note = open_port(host, port)
        self.host, self.port = host, self.sock.getsockname()[1]
        where = public or (LOOPBACK if host == EVERY_INTERFACE else host)
        self.url = f"http://{where}:{self.port}/"
        self.info = TableInfo(game, code is not None, self.url, lan=public is not None)
        self.gateway = Gateway(f"tcp://{LOOPBACK}:{arbiter_port}", server_key, context, code,
                               coach_for=coach_for,
                               book=PageBook.open(book) if book is not None else None)
        self.loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._runner: web.AppRunner | None = None
        self._failed: BaseException | None = None

    # --- the app ---------------------------------------------------------------------------

    def app(self) -> web.Application:
        app = web.Application(middlewares=[_policy])
        app.router.add_get("/", self._page("index.html"))
        app.router.add_get("/tv", self._page("tv.html"))
        app.router.add_get("/table.json", self._table)
        app.router.add_get("/qr.svg", self._qr)
        app.router.add_get("/ws", self._socket)
        app.router.add_static("/static/", STATIC, follow_symlinks=False)
        return app

    def _page(self, name: str):
        async def page(request: web.Request) -> web.StreamResponse:
            path = STATIC / name
            if not path.is_file():
                raise web.HTTPNotFound(text=f"{name} is not in this installation")
            return web.FileResponse(path)
        return page

    async def _table(self, request: web.Request) -> web.Response:
        return web.json_response({"game": self.info.game, "coded": self.info.coded,
                                  "url": self.info.url, "lan": self.info.lan})

    async def _qr(self, request: web.Request) -> web.Response:
        from lan_demon.web.qr import svg
        return web.Response(text=svg(self.url), content_type="image/svg+xml")

    async def _socket(self, request: web.Request) -> web.WebSocketResponse:
        origin = request.headers.get("Origin")
        if origin is not None and urlsplit(origin).netloc != request.host:
            # A page of another site, open in a browser on the Wi-Fi, may not sit down here
            # (browsers send the page's origin with every WebSocket they open).
            raise web.HTTPForbidden(text="this table's socket is for its own page only")
        ws = web.WebSocketResponse(max_msg_size=MAX_FRAME, heartbeat=HEARTBEAT)
        await ws.prepare(request)
        await self.gateway.handle(ws, request.remote or "")
        return ws

    # --- the thread ------------------------------------------------------------------------

    def start(self) -> WebServer:
        self._thread = threading.Thread(target=self._run, name="web", daemon=True)
        self._thread.start()
        self._ready.wait(timeout=10)
        if self._failed is not None:
            raise WebError(f"the web server did not start: {self._failed}")
        return self

    def _run(self) -> None:
        loop = self.loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        try:
            loop.run_until_complete(self._serve())
        except BaseException as err:  # said by start(); the host goes on without a page
            self._failed = err
        finally:
            self._ready.set()
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.close()

    async def _serve(self) -> None:
        self._runner = web.AppRunner(self.app(), handle_signals=False, access_log=None)
        await self._runner.setup()
        await web.SockSite(self._runner, self.sock).start()
        self._stopping = asyncio.Event()
        self._ready.set()
        await self._stopping.wait()
        await self.gateway.close()
        await self._runner.cleanup()

    def stop(self) -> None:
        """End it all; safe to call twice and from any thread but the server's own."""
        loop, thread = self.loop, self._thread
        if thread is None:
            self.sock.close()
            return
        if loop is not None and not loop.is_closed() and hasattr(self, "_stopping"):
            try:
                loop.call_soon_threadsafe(self._stopping.set)
            except RuntimeError:  # the loop ended meanwhile
                pass
        thread.join(timeout=10)
        self._thread = None
        self.sock.close()

    # --- for tests and tools ---------------------------------------------------------------

    def call(self, fn: Any, timeout: float = 5.0) -> Any:
        """Run ``fn()`` on the server's loop and return what it returned (a look at the
        gateway's seats from a test, without racing the loop)."""
        assert self.loop is not None

        async def run() -> Any:
            return fn()
        return asyncio.run_coroutine_threadsafe(run(), self.loop).result(timeout)


@web.middleware
async def _policy(request: web.Request, handler: Any) -> web.StreamResponse:
    response = await handler(request)
    if not isinstance(response, web.WebSocketResponse):
        response.headers.setdefault("Content-Security-Policy", POLICY)
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "no-referrer")
        response.headers.setdefault("Cache-Control", "no-cache")
    return response
