"""A short Racing Demon match hosted in-process (the arbiter on a clock the test moves, no
sockets) with a journal, for the coach's tests: Ann (seat 0) plays slowly, Bob (seat 1) at
once, both by the greedy bot from their own redacted view; the first time both go for the same
stack, Bob's card arrives 4 ms before Ann's and wins it (RD-11)."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arbiter_harness import Table

from lan_demon.bots.base import Turn
from lan_demon.bots.registry import make_strategy
from lan_demon.net.journal import JournalWriter

ANN, BOB = b"A", b"B"
STEP = 0.5  # seconds between two moments at which a seat may move
ANN_EVERY = 5  # Ann moves at one moment in five: she misses plays


@dataclass
class Hosted:
    """What the match did, as the table saw it: the beaten errors Ann was sent, and every
    view Ann's seat had, with its time."""

    beaten: list[dict[str, Any]] = field(default_factory=list)
    views: list[tuple[float, dict[str, Any]]] = field(default_factory=list)
    go: float = 0.0
    table: Any = None


def host_match(path: Path, seed: int, game: str = "racing-demon", steps: int = 3000) -> Hosted:
    rounds = 5 if game.endswith("german") else 1  # RG-7: a German match is 5 to 10 deals
    t = Table(game, players=2, seed=seed, countdown=0, pause=None, rounds=rounds,
              fairness_ms=30)
    writer = JournalWriter(path)
    t.arbiter.attach_journal(writer, {"port": 7700, "pub_port": 7701})
    t.seat(ANN, "Ann")
    t.seat(BOB, "Bob")
    t.send(ANN, "ready")
    t.send(BOB, "ready")
    hosted = Hosted(go=t.now, table=t)
    arb, rng = t.arbiter, random.Random(seed)
    bots = [make_strategy(game, "greedy") for _ in range(2)]
    raced = False
    eng = arb.game
    hosted.views.append((t.now, eng.view(eng.redact(arb.state, 0), 0)))
    for step in range(steps):
        if arb.phase != "playing":
            break
        now = t.now + STEP
        state = arb.state
        moves = [bots[s].choose(Turn(eng, eng.redact(state, s), s, rng)) for s in (0, 1)]
        where = [eng.destination(state, s, m) if m is not None else None for s, m in
                 enumerate(moves)]
        if not raced and where[0] is not None and where[0] == where[1]:
            raced = True
            t.send(BOB, "move", at=now, round=0, move=moves[1].to_data(), ts=now)
            t.send(ANN, "move", at=now + 0.004, round=0, move=moves[0].to_data(),
                   ts=now + 0.004)
            t.tick(now + 0.1)
        else:
            seat = 1 if step % ANN_EVERY else 0
            if moves[seat] is not None:
                t.send((ANN, BOB)[seat], "move", at=now, round=0,
                       move=moves[seat].to_data(), ts=now)
            else:
                t.tick(now)
        if arb.state is not None:
            hosted.views.append((t.now, eng.view(eng.redact(arb.state, 0), 0)))
    writer.close()
    hosted.beaten = [m for m in t.inbox.get(ANN, []) if m["t"] == "error"
                     and m["code"] == "beaten"]
    return hosted
