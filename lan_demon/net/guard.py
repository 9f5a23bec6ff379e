"""The arbiter's guards against hostile or broken peers: a flood brake per connection, a memory
of recent move ids so a replayed move is refused, and one-line logging of a failure the
arbiter survives. Pure: the time is passed in."""

from __future__ import annotations

import gc
import sys
import traceback
from collections import deque
from collections.abc import Hashable
from dataclasses import dataclass

RECENT_MOVE_IDS = 1024  # move ids remembered per connection, so a replayed move is refused
RATE_WARN_EVERY = 1.0  # seconds between rate_limited errors to a flooding connection
# A frame costs one token per started 128 bytes (PROTOCOL.md §2): every value in it takes a
# byte at least, so a token buys at most 128 values built (a move, ~70 bytes, costs one; a
# 2 KiB frame of 1,900 values costs 16, as its building costs, not the 4 of 512-byte tokens).
BYTES_PER_TOKEN = 128
SNAPSHOT_COST = 16  # tokens a snapshot costs in all: building one is dearer than a move
# Tokens a frame the codec refuses costs in all (not msgpack, not a message, a bad field): no
# honest client sends one, and each costs an error reply, so junk is held to ~1/16 of the rate.
MALFORMED_COST = 16
SNAPSHOT_RATE, SNAPSHOT_BURST = 4.0, 8.0  # snapshots one connection is answered a second
# Snapshots answered a second, by IP address, to connections that hold no seat and watch nothing
# (shared by all that address's connections; PROTOCOL.md §2). Nobody honest needs more: a
# client says hello before it asks. Beyond it they are dropped (one rate_limited a second),
# cheaply: a burst of them from hundreds of connections must not hold back the move behind it
# (RD-11: 300 strangers' snapshots at once made an honest move wait 33-113 ms). Always on, even with
# ``--rate-limit 0``: it is part of what makes a race fair, not a brake on floods.
STRANGER_RATE, STRANGER_BURST = 2.0, 4.0
# Moves one seat may have taken a second (bursts of MOVE_BURST), whatever its connection's
# tokens allow: every move taken is published to every screen and applied by every client, so a
# seat turning its Pack at the brake's 5,000 a second cost the others' processes a core between
# them (a seated player's ping p99 14-19 ms; 500 a second: 4 ms, docs/benchmarks.md). A person
# makes a few a second, a flat-out bot ~1,600; past it a move is refused rate_limited, each with
# its id (PROTOCOL.md §2). Off with ``--rate-limit 0`` (benchmarks).
MOVE_RATE, MOVE_BURST = 500.0, 1000.0


def frame_cost(size: int) -> int:
    """Tokens a frame of ``size`` bytes costs: one per started :data:`BYTES_PER_TOKEN` bytes,
    at least one (an empty frame too), so a 2 KiB frame costs what sixteen small ones do."""
    return max(1, -(-size // BYTES_PER_TOKEN))


@dataclass
class Bucket:
    """One connection's token bucket (:class:`RateLimiter`)."""

    tokens: float
    at: float
    warned: float = float("-inf")
    dropped: int = 0


class RateLimiter:
    """A token bucket per connection: ``burst`` tokens at once, then ``rate`` a second; a
    message costs the tokens :meth:`admit` is told (:func:`frame_cost`: one per started 128
    bytes), and :meth:`charge` takes more for work found dear once the message is read.

    A message over the limit is dropped unread; the connection is told so at most once a
    second, so a flood costs the arbiter a dictionary lookup per frame and the rest of the
    table nothing. ``rate`` 0 turns the limit off. A bucket is usually a connection's (its
    routing id); any hashable key will do (an IP address: ``Arbiter.strangers``)."""

    ADMIT, WARN, DROP = "admit", "warn", "drop"
    # Buckets kept before the idle (full) ones are forgotten; if too few of them are idle, the
    # oldest are forgotten too, down to half: never more than this many (~200 bytes each).
    PRUNE_AT = 4096

    def __init__(self, rate: float, burst: float):
        self.rate, self.burst = rate, max(1.0, burst)
        self.buckets: dict[Hashable, Bucket] = {}
        self.dropped = 0
        self.warned = 0

    def admit(self, peer: Hashable, now: float, cost: float = 1.0) -> str:
        if self.rate <= 0:
            return self.ADMIT
        bucket = self._refilled(peer, now)
        if bucket.tokens >= cost:
            bucket.tokens -= cost
            return self.ADMIT
        bucket.dropped += 1
        self.dropped += 1
        if now - bucket.warned < RATE_WARN_EVERY:
            return self.DROP
        bucket.warned = now
        self.warned += 1
        return self.WARN

    def charge(self, peer: Hashable, cost: float, now: float) -> None:
        """Take ``cost`` more tokens from a connection whose message turned out dear (a
        snapshot); the bucket may go below zero, and the next messages wait for it to refill."""
        if self.rate > 0:
            self._refilled(peer, now).tokens -= cost

    def wait(self, peer: Hashable, now: float, cost: float = 1.0) -> float:
        """Seconds until ``peer``'s bucket holds ``cost`` tokens (0: now)."""
        if self.rate <= 0:
            return 0.0
        return max(0.0, (cost - self._refilled(peer, now).tokens) / self.rate)

    def _refilled(self, peer: Hashable, now: float) -> Bucket:
        bucket = self.buckets.get(peer)
        if bucket is None:
            if len(self.buckets) >= self.PRUNE_AT:
                self._prune(now)
            bucket = self.buckets[peer] = Bucket(self.burst, now)
        bucket.tokens = min(self.burst, bucket.tokens + max(0.0, now - bucket.at) * self.rate)
        bucket.at = now
        return bucket

    def _prune(self, now: float) -> None:
        self.buckets = {peer: b for peer, b in self.buckets.items()
                        if b.tokens + (now - b.at) * self.rate < self.burst}
        if len(self.buckets) >= self.PRUNE_AT:  # busy ones all: the oldest go
            keep = list(self.buckets.items())[-(self.PRUNE_AT // 2):]
            self.buckets = dict(keep)


class NoCollection:
    """``with NoCollection():`` no collection of cycles starts inside (one that was off stays
    off). For unpacking a client's frame: 2 KiB can hold 1,900 lists, and a collection that
    starts while they are being built finds them alive and moves them to an older generation,
    so that the full collections a flood of such frames brings on — each walks every object of
    the process — came every 0.2 s and took 8-57 ms. Nothing unpacked is cyclic;
    what is built is freed by its count as soon as it is read."""

    def __enter__(self) -> None:
        self.was = gc.isenabled()
        gc.disable()

    def __exit__(self, *exc: object) -> None:
        if self.was:
            gc.enable()


class RecentIds:
    """The last ``RECENT_MOVE_IDS`` move ids one connection used: a move frame sent twice is
    refused the second time, never applied again."""

    def __init__(self) -> None:
        self.order: deque[int] = deque()
        self.seen: set[int] = set()

    def add(self, rid: int) -> bool:
        """Remember ``rid``; False if it was already there."""
        if rid in self.seen:
            return False
        self.order.append(rid)
        self.seen.add(rid)
        if len(self.order) > RECENT_MOVE_IDS:
            self.seen.discard(self.order.popleft())
        return True


def log_internal(what: str, err: BaseException) -> None:
    """One line on stderr for a failure the arbiter survives: a bug to fix, not to hide."""
    frames = traceback.extract_tb(err.__traceback__)
    where = f" at {frames[-1].filename}:{frames[-1].lineno}" if frames else ""
    text = " ".join(str(err).split())[:300]
    print(f"lan_demon arbiter: internal error on {what}: {type(err).__name__}: {text}{where}",
          file=sys.stderr, flush=True)
