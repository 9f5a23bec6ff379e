"""The WebSocket gateway: one socket per page, the seats the pages hold, admission in words.

A page joins (``{"t": "join", ...}``); the gateway connects a :class:`~lan_demon.net.client.
Client` for it to the arbiter over 127.0.0.1 exactly as a terminal's ``join`` would — the name,
the room code as typed (the client normalises it), the host's CURVE key when the table has one
— so the arbiter admits a browser by the same rules as a terminal (the room code and its brake,
a full table, the captain) and the gateway only words its answer. The page is given a token of
the gateway's own (never the arbiter's session token, which stays on the host) that takes the
seat back within :data:`~lan_demon.web.browser_seat.KEEP` seconds. Then each intent or key is
handed to the seat layer, and the seat's task (:mod:`.browser_seat`) sends the new face.

The frames are in ``docs/page-protocol.md``; what the page may send, and how much, is
:mod:`.frames`.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import time
from dataclasses import dataclass, field
from typing import Any, Callable

import zmq
from aiohttp import WSMsgType, web

from lan_demon.net.client import Client
from lan_demon.net.connect import ConnectError
from lan_demon.net.guard import RateLimiter, log_internal
from lan_demon.net.names import seat_name, seated_words
from lan_demon.net.security import CodeThrottle, codes_match
from lan_demon.net.settings import CONNECT_TIMEOUT
from lan_demon.web import seat_link
from lan_demon.web.browser_seat import BrowserSeat
from lan_demon.web.page_book import PageBook
from lan_demon.web.frames import (BURST, RATE, Act, FrameError, Join, Key, Leave, error_frame,
                                  read_frame)

MOST_SEATS = 64  # browser seats and watchers a gateway holds at once (a 20-seat table, TVs)
TOO_FAST = "too many taps at once: some were not sent; slow down a little"
INTERNAL = "something went wrong on the host with that; the table goes on"


def refusal_words(err: ConnectError) -> str:
    """A refused join, in the words of someone who just typed a name and a code."""
    code, text = err.code, str(err)
    reason = text.split("refused: ", 1)[-1]
    if code == "bad_code":
        if "needs" in reason:
            return "This table needs its room code: it is shown on the host's screen."
        return "Wrong room code. Check it on the host's screen and try again."
    if code == "slow_down":
        return slow_down_words(err.wait, seats="seats taken" in reason)
    if code == "full":
        if "started" in reason:
            return ("The match has already started, so no seat is free. You can watch it "
                    "instead (Just watch).")
        return f"No seat is free: {reason}. You can watch instead (Just watch)."
    if code in ("bad_token", "wrong_key", "not_joined", "version"):
        return f"The table did not let this page in: {reason}."
    return f"Could not reach the table: {reason}. Is the host still running?"


def slow_down_words(wait: float | None, seats: bool = False) -> str:
    """``seats``: the arbiter's brake on seats taken from one address (PROTOCOL.md §2,
    Bounds), not the room code's."""
    what = "Too many seats taken from here at once" if seats else "Too many wrong room codes"
    if not wait:
        return f"{what}. Try again in a little while."
    seconds = max(1, round(wait))
    return f"{what}. Try again in {seconds} second{'' if seconds == 1 else 's'}."


@dataclass
class Gateway:
    """The seats the pages hold, by token, and how to reach the arbiter."""

    address: str  # the arbiter's, as a local client reaches it (tcp://127.0.0.1:PORT)
    server_key: str | None = None  # the host's CURVE public key (z85), at a --secure table
    context: zmq.Context | None = None
    # The table's room code, and the brake on wrong ones by the *browser's* address: every
    # browser's client reaches the arbiter from 127.0.0.1, where one guesser's wrong codes
    # would make every browser wait; here they cost the guesser's address alone, by the
    # arbiter's own rule (CodeThrottle), and only a right code is passed on — the arbiter
    # checks it again and decides.
    code: str | None = None
    throttle: CodeThrottle = field(default_factory=CodeThrottle)
    coach_for: Callable[[str], Any] | None = None  # each game's coach (commands hand it in)
    seats: dict[str, BrowserSeat] = field(default_factory=dict)
    book: PageBook | None = None  # the seats written down, for a resumed host (page_book)
    closing: bool = False  # the host is stopping: its seats stay in the book
    joining: int = 0  # joins waiting for the arbiter's answer
    clock: Callable[[], float] = time.monotonic  # the flood brake's (a test may freeze it)

    # --- one socket ------------------------------------------------------------------------

    async def handle(self, ws: web.WebSocketResponse, where: str = "") -> None:
        """Read one page's frames until it goes; ``where``: the browser's IP address."""
        brake = RateLimiter(RATE, BURST)
        held: BrowserSeat | None = None
        try:
            async for msg in ws:
                if msg.type not in (WSMsgType.TEXT, WSMsgType.BINARY):
                    break
                said = brake.admit(0, self.clock())
                if said != RateLimiter.ADMIT:
                    if said == RateLimiter.WARN:
                        await ws.send_json(error_frame(TOO_FAST))
                    # Dropped; and nothing more is read from this page until a token is due:
                    # its frames wait in its own socket's buffers (aiohttp stops reading the
                    # connection when its queue is full), so a flood costs the host a read
                    # every 1/RATE s, not one per frame the sender can make.
                    await asyncio.sleep(1 / RATE)
                    continue
                try:
                    frame = read_frame(msg.data)
                    held = await self._on_frame(ws, held, frame, where)
                except FrameError as err:
                    await ws.send_json(error_frame(str(err)))
                except ConnectionError:
                    raise
                except Exception as err:  # a bug of ours: one line in the log, the table goes on
                    log_internal("a page's frame", err)
                    await ws.send_json(error_frame(INTERNAL))
        except ConnectionError:  # the page went while we answered it
            pass
        finally:
            if held is not None:
                held.detach(ws)

    async def _on_frame(self, ws: web.WebSocketResponse, held: BrowserSeat | None,
                        frame: Any, where: str) -> BrowserSeat | None:
        if isinstance(frame, Join):
            if held is not None and not held.closed:
                raise FrameError("this page already has a seat; reload the page to change")
            return await self._join(ws, frame, where)
        if held is None or held.closed:
            raise FrameError("sit down or watch first")
        if isinstance(frame, Leave):
            await self._leave(ws, held)
            return None
        if isinstance(frame, Act):
            seat_link.perform(held.seat, frame.do, frame.args)
        else:
            assert isinstance(frame, Key)
            seat_link.press(held.seat, frame.key)
        if seat_link.leaving(held.seat):  # a leave said (or confirmed): the seat is given up
            await self._leave(ws, held)
            return None
        held.wake()  # the seat's task pumps and sends the new face (a refusal is its line)
        return held

    async def _leave(self, ws: web.WebSocketResponse, held: BrowserSeat) -> None:
        """A leave said (or confirmed). In the lobby, or once the match is over, the seat is
        given up. During a match the arbiter keeps it 5 minutes, as a terminal's: so does
        the gateway — its client says ``leave`` (the table sees "has left") and waits with
        its token, and the page keeps its own to sit down again (so a phone that left by mistake
        takes its seat back rather than finding "no seat is free" and only watching)."""
        if held.seat.phase in ("countdown", "playing", "between"):
            held.left_match()
            held.detach(ws)
            await ws.send_json({"t": "bye", "kept": True, "words": (
                "You left the table. Your seat is kept for 5 minutes: Sit down to take it "
                "back, cards and score as they were.")})
        else:
            self._end(held)
            await ws.send_json({"t": "bye", "words": "You left the table."})
        await ws.close()

    def _code_refusal(self, join: Join, where: str) -> str | None:
        """The room code gate in front of the arbiter's (§20), by the browser's address: the
        refusal's words, or None to pass the join on."""
        if self.code is None:
            return None
        now = self.clock()
        wait = self.throttle.wait(where, now)
        if wait > 0:
            return slow_down_words(wait)
        if codes_match(join.code, self.code):
            self.throttle.succeeded(where)
            return None
        if not join.code:
            return "This table needs its room code: it is shown on the host's screen."
        self.throttle.failed(where, now)
        return "Wrong room code. Check it on the host's screen and try again."

    async def _join(self, ws: web.WebSocketResponse, join: Join,
                    where: str = "") -> BrowserSeat | None:
        kept = self.seats.get(join.token) if join.token else None
        if kept is not None and not kept.closed and kept.role == \
                ("spectator" if join.watch else "player"):
            old = kept.attach(ws)  # (a seat that left during the match: said hello again)
            await self._seated(ws, kept)
            if old is not None and not old.closed:  # the same seat opened in another tab
                await old.send_json({"t": "bye", "words": "This seat is open in another "
                                     "window now."})
                await old.close()
            return kept
        booked = self.book.get(join.token) if self.book is not None and join.token else None
        if booked is not None:  # a host resumed: the page's seat, by its session token
            return await self._connect(ws, join.token, booked["name"], booked["role"],
                                       session=booked["session"], code=self.code)
        if not join.watch and not join.name:  # a token the gateway no longer knows
            await ws.send_json({"t": "refused", "words": "Your seat was not kept (more than "
                                "5 minutes away, or the host was restarted). Type your name "
                                "to sit down again."})
            return None
        if not join.watch and not seat_name(join.name):  # only spaces or pictures: asked again
            await ws.send_json({"t": "refused", "words": "Type a name the others can read: "
                                "letters, not only spaces or pictures."})
            return None
        refused = self._code_refusal(join, where)
        if refused is not None:
            await ws.send_json({"t": "refused", "words": refused})
            return None
        if len(self.seats) + self.joining >= MOST_SEATS:
            await ws.send_json({"t": "refused", "words": "This table has as many browsers "
                                "as it can take."})
            return None
        return await self._connect(ws, secrets.token_urlsafe(18), join.name or "watcher",
                                   "spectator" if join.watch else "player",
                                   code=join.code or None)

    async def _connect(self, ws: web.WebSocketResponse, token: str, name: str, role: str,
                       session: str | None = None, code: str | None = None
                       ) -> BrowserSeat | None:
        """A client for the page, admitted by the arbiter (a new seat, or with ``session``
        the seat that token holds); the page is told ``seated`` with ``token``."""
        client = Client(self.address, name=name, role=role, code=code, token=session,
                        server_key=self.server_key, context=self.context)
        self.joining += 1
        try:
            await asyncio.get_running_loop().run_in_executor(None, client.connect,
                                                             CONNECT_TIMEOUT)
        except ConnectError as err:
            if session is not None:  # the resumed table no longer knows that seat
                self.book.drop(token)  # type: ignore[union-attr]
                await ws.send_json({"t": "refused", "words": "Your seat was not kept (more "
                                    "than 5 minutes away, or the match ended). Type your name "
                                    "to sit down again."})
                return None
            await ws.send_json({"t": "refused", "words": refusal_words(err)})
            return None
        except (zmq.ZMQError, OSError) as err:  # not a refusal: the table cannot be reached
            client.close()
            await ws.send_json({"t": "refused", "words": f"Could not reach the table ({err})."
                                " Is the host still running?"})
            return None
        finally:
            self.joining -= 1
        held = BrowserSeat(token, client, seat_link.new_seat(client, self.coach_for), role)
        told = seated_words(name, client.name) if role == "player" and session is None \
            else None
        if told:  # a name taken (or shortened): the page's line says which it got
            held.seat.say(told, read=True)
        if ws.closed:  # the page went while the table answered: nobody to keep it for
            held.leave()
            return None
        self.seats[held.token] = held
        if self.book is not None and client.token:
            self.book.put(held.token, client.token, client.name, role)
        held.task = asyncio.get_running_loop().create_task(self._run(held))
        held.attach(ws)
        await self._seated(ws, held)
        return held

    async def _seated(self, ws: web.WebSocketResponse, held: BrowserSeat) -> None:
        client = held.client
        await ws.send_str(json.dumps({"t": "seated", "token": held.token, "seat": client.seat,
                                      "role": held.role, "game": client.game.id}))
        held.wake()  # the face follows from the seat's task

    async def _run(self, held: BrowserSeat) -> None:
        try:
            await held.run()
        finally:
            held.close()
            if self.seats.get(held.token) is held:
                del self.seats[held.token]
                self._unbook(held)

    def _end(self, held: BrowserSeat) -> None:
        held.leave()
        self.seats.pop(held.token, None)
        self._unbook(held)

    def _unbook(self, held: BrowserSeat) -> None:
        if self.book is not None and not self.closing:
            self.book.drop(held.token)

    # --- the end of it all -----------------------------------------------------------------

    async def close(self) -> None:
        """End every seat (the host is stopping): clients closed, pages told. The book keeps
        them: a resumed host seats each page again."""
        self.closing = True
        for held in list(self.seats.values()):
            ws = held.ws
            held.close()
            if ws is not None and not ws.closed:
                await ws.close()
            if held.task is not None:
                await asyncio.gather(held.task, return_exceptions=True)
        self.seats.clear()
