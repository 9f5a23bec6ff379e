"""The arbiter's clock as a client estimates it, NTP style, from the best of a few round trips.

A move carries the time it was made on the arbiter's clock (RD-11 judges races by it), and a
countdown or a pause is told as the arbiter's time: each client keeps its offset from ours.
"""

from __future__ import annotations

from typing import Any, Callable

from lan_demon.net.codec import make

SYNC_PINGS = 5  # round trips measured before the estimate is trusted (and connect returns)
KEPT = 8  # the best round trips kept


class ClockSync:
    """Pings sent and not answered yet (by request id: when, on our ``clock``), and the best
    round trips measured as (round trip, offset): the shortest one's offset is the estimate."""

    def __init__(self, clock: Callable[[], float]):
        self.clock = clock
        self.pings: dict[int, float] = {}
        self.samples: list[tuple[float, float]] = []
        self.offset = 0.0  # arbiter clock minus ours
        self.rtt: float | None = None

    def restart(self) -> None:
        """A new connection: measured again. A ping lost with the last connection (a host
        stopped) is never answered: forgotten, or no refresh ping would go out again."""
        self.samples.clear()
        self.pings.clear()

    @property
    def synced(self) -> bool:
        """Enough round trips measured to trust the estimate."""
        return len(self.samples) >= SYNC_PINGS

    def ping(self, rid: int) -> dict[str, Any]:
        """A ping to send, with request id ``rid``."""
        self.pings[rid] = self.clock()
        return make("ping", id=rid, c=self.pings[rid])

    def on_pong(self, msg: dict[str, Any]) -> bool:
        """The arbiter's answer to one of our pings; True when another ping is wanted."""
        sent = self.pings.pop(msg["re"], None)
        if sent is None:
            return False
        now = self.clock()
        rtt = now - sent
        self.samples = sorted(self.samples + [(rtt, msg["a"] - (sent + now) / 2)])[:KEPT]
        self.rtt, self.offset = self.samples[0]
        return not self.synced

    def arbiter_now(self) -> float:
        """Our best estimate of the arbiter's clock now."""
        return self.clock() + self.offset
