"""What another thread asks of the arbiter — the host's typed commands (``pause``, ``remove
NAME``: commands/host_desk.py) — run by the server's loop between two wake-ups, so nothing it
does races a move, and answered to the thread that asked; and, the other way, the seats the
arbiter has handed to a bot (§24), passed on to the host's bots (:meth:`Asks.take_handovers`)
on the same loop."""

from __future__ import annotations

from collections import deque
from concurrent.futures import Future, TimeoutError as Late
from typing import Any, Callable

from lan_demon.net.guard import log_internal
from lan_demon.net.handover import DEFAULT_LEVEL, Handover
from lan_demon.net.outbox import Outbox

Ask = Callable[[Any, float, Outbox], str]  # (arbiter, now, out) -> the answer, in words


class Asks:
    def __init__(self) -> None:
        self._waiting: deque[tuple[Ask, Future]] = deque()
        self.bots: Callable[[Handover], None] | None = None  # take_handovers
        self.bot_level = DEFAULT_LEVEL  # the host's "remove NAME bot" with no level

    def take_handovers(self, arbiter: Any, start: Callable[[Handover], None]) -> None:
        """Seats handed to a bot are started by ``start(handover)``, called from the loop (it
        must return at once); until a table has a taker, its arbiter refuses handovers."""
        self.bots, arbiter.handovers.takes_bots = start, True

    def put(self, ask: Ask, wait: float = 5.0) -> str:
        """From any thread: ``ask``'s answer once the loop has run it (at most ``wait`` s)."""
        done: Future = Future()
        self._waiting.append((ask, done))
        try:
            return done.result(wait)
        except Late:
            return "the table did not answer (is it still serving?); try again"

    def answer(self, arbiter: Any, clock: Callable[[], float],
               send: Callable[[Outbox], None]) -> None:
        """On the loop's thread: run what waits, send what each said to the table."""
        while self._waiting:
            ask, done = self._waiting.popleft()
            out = Outbox()
            try:
                said = ask(arbiter, clock(), out)
            except Exception as err:  # a bug in a command must never take the table down
                log_internal("a host command", err)
                said = f"that failed ({type(err).__name__}, logged); the table goes on"
            send(out)
            done.set_result(said)
        arbiter.handovers.pass_on(self.bots)
