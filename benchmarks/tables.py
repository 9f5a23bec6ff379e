"""The table the in-process benchmarks sit at (arbiter_core.py, hot_path.py, floor.py)."""

from __future__ import annotations

from typing import Any


def seated_table(seats: int, seed: int) -> tuple[Any, list[bytes], float]:
    """An in-process arbiter with ``seats`` players, all ready, past Go: Racing Demon (classic),
    handicaps off, fairness window 0, no flood brake; returns it, the seats' peer ids and the
    arbiter clock's time. (lan_demon is imported here, not at the top, so that a script's
    children that never sit at a table do not pay for it.)"""
    from lan_demon.net.arbiter import Arbiter
    from lan_demon.net.settings import Settings, dealing_of
    from lan_demon.net.codec import encode, make
    now = 100.0
    config = Settings("racing-demon", dealing=dealing_of(seed), players=seats,
                      rounds=1_000_000, options={"handicap": False}, fairness_ms=0,
                      countdown=0, pause=0, rate_limit=0)
    arbiter = Arbiter(config, now=now)
    peers = [f"peer-{i}".encode() for i in range(seats)]
    for i, peer in enumerate(peers):
        arbiter.handle(peer, encode(make("hello", id=1, name=f"seat {i}", role="player")), now)
    for peer in peers:
        arbiter.handle(peer, encode(make("ready", id=2)), now)
    while arbiter.phase != "playing":
        now += 0.01
        arbiter.tick(now)
    return arbiter, peers, now
