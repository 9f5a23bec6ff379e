"""The liar-plus-burst race, in real time on 127.0.0.1: how many RD-11
races a liar wins when a friend's connections send a burst of snapshots just before the honest
player plays.

    python benchmarks/race_burst.py [--races 48] [--burst 300] [--secure] [--before PATH]

An arbiter runs in a process of its own (``ArbiterServer``, Racing Demon for two, fairness
window 30 ms, lag cap 10 ms; with ``--secure`` a coded CURVE table), its two seats already
playing a table where both show a 2♥ for the A♥ stack — the state of tests/arbiter_harness.py's
``race_table`` — and taken back by this process's two clients with their tokens. The seats'
measured delays are set as a liar would have them: Ann (honest) 0.1 ms one way, Bob (the liar)
125 ms, so his claimed time is believed down to the lag cap. Before each race the arbiter puts
that table back (asked on its stdin, done in its own loop). Then, in this process:

1. the friend's ``--burst`` connections (none of which said hello; each asked one ``ping``
   first, so all are connected) each send one ``snapshot``;
2. at once Ann sends her play, with her true time (this machine's monotonic clock is the
   arbiter's);
3. 12-25 ms after Ann's send (slept, then the last 0.5 ms spun), Bob sends the same play claiming a second earlier;
4. the race is over when one of them is answered ``beaten`` (RD-11): the other got the stack,
   by the ``ms`` the error says.

Also printed: how long after Ann's send the arbiter stamped her move (its ``Held.arrival``
less her true ``ts``, read in the arbiter as the window closes) — what she would lose to a
late stamp.

Printed per target (this tree, and ``--before PATH``: the same arbiter code from that tree,
``PYTHONPATH`` = PATH): the races the liar won, by how late he sent, the winner's margins, and
what the friend's connections got back. Nothing is asserted; the figures go to
docs/benchmarks.md. Every process and socket started here is stopped before it exits.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import threading
import time
from typing import Any

import msgpack
import zmq

from children import read_line, stop

HERE = os.path.abspath(__file__)
CODE = "KQZRMWTB"
PLAY = {"t": "play", "from": "c1", "to": "s1"}
LATE_MS = range(12, 26)  # the liar's send after Ann's, in turn


# --------------------------------------------------------------------------- the arbiter

def race_state(game: Any) -> Any:
    """Both seats show a 2♥ on column 1; stack 1 is the A♥ (tests/arbiter_harness.race_table)."""
    from lan_demon.games.cards import parse_card
    from lan_demon.games.demon_table import DemonSeat, DemonState
    seats = [DemonSeat(pile=[parse_card("5C", o), parse_card("9D", o)],
                       columns=[[parse_card(c, o)] for c in ("2H", "9S", "8S", "7S")],
                       pack=[parse_card("3C", o)], pile_size=13) for o in (0, 1)]
    data = game.state_to_data(DemonState(german=False, seats=seats))
    data["stacks"], data["next_stack"] = [{"id": 1, "cards": ["AH@0"]}], 2
    return game.state_from_data(data)


def arbiter_main(secure: bool) -> None:
    """The arbiter's process: one line of JSON (address, tokens, key, code, the tree), then
    ``ready`` after each ``reset`` read on stdin, until ``quit`` or stdin closes."""
    import lan_demon
    from lan_demon.net.arbiter import Arbiter
    from lan_demon.net.codec import VERSION, encode, make
    from lan_demon.net.security import new_keypair
    from lan_demon.net.server import ArbiterServer
    code = CODE if secure else None
    now = time.monotonic()
    try:
        from lan_demon.net.settings import Seeded, Settings
    except ImportError:  # (--before a tree of the old Config, which held the code too)
        from lan_demon.net.arbiter import Config
        settings = Config("racing-demon", players=2, seed=1, countdown=0, fairness_ms=30,
                          options={"handicap": False}, code=code)
        arbiter = Arbiter(settings, now=now)
    else:
        settings = Settings("racing-demon", players=2, dealing=Seeded(1), countdown=0,
                            fairness_ms=30, options={"handicap": False})
        arbiter = Arbiter(settings, now=now, code=code)
    tokens = []
    for peer, name in ((b"ann", "Ann"), (b"bob", "Bob")):
        out = arbiter.handle(peer, encode(make("hello", id=1, name=name, role="player",
                                                code=code)), now)
        tokens.append(out.private[0][1]["token"])
    for peer in (b"ann", b"bob"):
        arbiter.handle(peer, encode(make("ready", id=2)), now)
    assert arbiter.phase == "playing"
    for seat, rtt in zip(arbiter.seats, (0.0002, 0.250)):
        seat.peer, seat.rtts = None, [rtt]  # taken back by token; the liar looks far away

    def put_back() -> None:
        arbiter.facts.state = race_state(arbiter.game)
        arbiter.race.held, arbiter.race.held_until, arbiter.race.queued = [], None, {}
        arbiter.race.races.clear()

    put_back()
    keys = new_keypair() if secure else None
    server = ArbiterServer(settings, port=0, arbiter=arbiter, keys=keys)
    asked = threading.Event()
    stopping = threading.Event()
    tick, release = arbiter.tick, arbiter.race.release
    delays: dict[int, float] = {}  # the last race's: seat -> arrival (as stamped) less its ts

    def ticking(now: float) -> Any:  # in the loop's own thread: the table is its alone
        if asked.is_set():
            asked.clear()
            put_back()
            print("ready " + json.dumps(delays), flush=True)
            delays.clear()
        return tick(now)

    def releasing(now: float, out: Any) -> None:
        for held in arbiter.race.held:
            delays[held.seat] = held.arrival - held.claimed
        release(now, out)

    arbiter.tick, arbiter.race.release = ticking, releasing

    def commands() -> None:
        for line in sys.stdin:
            if line.strip() == "reset":
                asked.set()
            else:
                break
        stopping.set()
        server.stop()

    threading.Thread(target=commands, daemon=True).start()
    print(json.dumps({"address": server.address, "pub": server.pub_port, "tokens": tokens,
                      "v": VERSION,
                      "key": keys.public.decode() if keys else None, "code": code,
                      "tree": os.path.dirname(os.path.dirname(lan_demon.__file__))}),
          flush=True)
    try:
        server.serve(exit_when_over=False)
    finally:
        server.close()


# --------------------------------------------------------------------------- the load

class Load:
    """Ann, Bob and the friend's connections, all in this process (three ZeroMQ contexts)."""

    def __init__(self, info: dict[str, Any], burst: int):
        # Each its own context, so its own I/O thread: the friend's 300 writes do not queue
        # Ann's and Bob's frames in this process (their laptops are not the friend's).
        self.contexts = [zmq.Context() for _ in range(3)]
        self.contexts[2].max_sockets = burst + 64
        self.key, self.v = info["key"], info["v"]  # (the tree's protocol version)
        self.ann, self.bob = (self._dealer(ctx, info["address"]) for ctx in self.contexts[:2])
        self.friends = [self._dealer(self.contexts[2], info["address"]) for _ in range(burst)]
        self.ids = {id(s): 10 for s in [self.ann, self.bob, *self.friends]}
        for sock, token in ((self.ann, info["tokens"][0]), (self.bob, info["tokens"][1])):
            self._ask(sock, "hello", name="x", role="player", token=token)
            self._wait(sock, "welcome")
        for sock in self.friends:
            self._ask(sock, "ping", c=0.0)
        for sock in self.friends:
            self._wait(sock, "pong")
        self.friend_got: dict[str, int] = {}

    def _dealer(self, ctx: zmq.Context, address: str) -> zmq.Socket:
        sock = ctx.socket(zmq.DEALER)
        sock.setsockopt(zmq.LINGER, 0)
        if self.key is not None:
            public, secret = zmq.curve_keypair()
            sock.curve_serverkey = self.key.encode("ascii")
            sock.curve_publickey, sock.curve_secretkey = public, secret
        sock.connect(address)
        return sock

    def _frame(self, sock: zmq.Socket, kind: str, **fields: Any) -> bytes:
        self.ids[id(sock)] += 1
        return msgpack.packb({"v": self.v, "t": kind, "id": self.ids[id(sock)], **fields})

    def _ask(self, sock: zmq.Socket, kind: str, **fields: Any) -> None:
        sock.send(self._frame(sock, kind, **fields))

    @staticmethod
    def _messages(frame: bytes) -> list[dict[str, Any]]:
        got = msgpack.unpackb(frame)
        return got if isinstance(got, list) else [got]

    def _wait(self, sock: zmq.Socket, kind: str, timeout: float = 10.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if sock.poll(50):
                for msg in self._messages(sock.recv()):
                    if msg["t"] == kind:
                        return msg
        raise RuntimeError(f"no {kind} within {timeout:g} s")

    def race(self, late: float) -> tuple[str, float]:
        """One race: the burst, Ann's play, Bob's backdated one ``late`` s after it. Who won,
        and by how many ms (the loser's ``beaten`` error)."""
        for sock in (self.ann, self.bob):  # (heard: both seats stay here)
            sock.send(msgpack.packb({"v": self.v, "t": "hb"}))
        snapshot = [self._frame(s, "snapshot") for s in self.friends]
        ann_move = self._frame(self.ann, "move", round=0, move=PLAY, ts=0.0)
        for sock, frame in zip(self.friends, snapshot):
            sock.send(frame, zmq.NOBLOCK)
        ann_move = msgpack.packb({**msgpack.unpackb(ann_move), "ts": time.monotonic()})
        self.ann.send(ann_move)
        sent = time.perf_counter()
        bob_move = self._frame(self.bob, "move", round=0, move=PLAY, ts=0.0)
        # Sleep, then spin the last half millisecond: a spin all the way would take a core
        # from the arbiter on a small machine.
        time.sleep(max(0.0, sent + late - 0.0005 - time.perf_counter()))
        while time.perf_counter() < sent + late:
            pass
        self.bob.send(msgpack.packb({**msgpack.unpackb(bob_move), "ts": time.monotonic() - 1.0}))
        deadline = time.monotonic() + 5.0
        while time.monotonic() < deadline:
            for who, sock in (("bob", self.ann), ("ann", self.bob)):  # the other won
                while sock.poll(0):
                    for msg in self._messages(sock.recv()):
                        if msg["t"] == "error" and msg["code"] == "beaten":
                            self._drain_friends()
                            return who, msg.get("ms", 0)
            time.sleep(0.001)  # (a benchmark's wait for the answer, not a test's sync)
        raise RuntimeError("nobody was beaten within 5 s")

    def _drain_friends(self) -> None:
        for sock in self.friends:
            while sock.poll(0):
                for msg in self._messages(sock.recv()):
                    what = msg["t"] if msg["t"] != "error" else msg["code"]
                    self.friend_got[what] = self.friend_got.get(what, 0) + 1

    def close(self) -> None:
        for sock in [self.ann, self.bob, *self.friends]:
            sock.close(linger=0)
        for ctx in self.contexts:
            ctx.term()


def measure(env: dict[str, str], args: argparse.Namespace) -> dict[str, Any]:
    argv = [sys.executable, HERE, "--arbiter"] + (["--secure"] if args.secure else [])
    proc = subprocess.Popen(argv, env=env, text=True, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE)
    load = None
    try:
        info = json.loads(read_line(proc, 30.0))
        load = Load(info, args.burst)
        results, delays = [], []
        for k in range(args.races + 1):
            proc.stdin.write("reset\n")
            proc.stdin.flush()
            word, _, last = read_line(proc, 10.0).partition(" ")
            assert word == "ready"
            if k:
                delays.append(json.loads(last))  # the race just run's
            if k == args.races:
                break
            late = LATE_MS[k % len(LATE_MS)]
            winner, ms = load.race(late / 1000)
            results.append((late, winner, ms))
        time.sleep(0.2)  # (the friends' last answers: a benchmark's wait, not a test's sync)
        load._drain_friends()
        return {"tree": info["tree"], "results": results, "friends": dict(load.friend_got),
                "ann_delay": [d["0"] * 1000 for d in delays if "0" in d]}
    finally:
        if load is not None:
            load.close()
        if proc.stdin is not None:
            try:
                proc.stdin.close()  # the arbiter stops when its stdin ends
            except OSError:
                pass
            proc.stdin = None
        stop(proc)


def report(name: str, got: dict[str, Any], races: int) -> None:
    results = got["results"]
    won = [late for late, winner, _ in results if winner == "bob"]
    ann = [ms for _, winner, ms in results if winner == "ann"]
    bob = [ms for _, winner, ms in results if winner == "bob"]
    print(f"{name}: {got['tree']}")
    print(f"  the liar won {len(won)} of {races} races (sent {LATE_MS[0]}-{LATE_MS[-1]} ms "
          f"after Ann){'; late by ' + str(sorted(won)) + ' ms' if won else ''}")
    if ann:
        print(f"  Ann's margin when she won: median {statistics.median(ann):g} ms, "
              f"least {min(ann)} ms")
    if bob:
        print(f"  Bob's margin when he won: median {statistics.median(bob):g} ms, "
              f"most {max(bob)} ms")
    late = sorted(got["ann_delay"])
    if late:
        print(f"  Ann's move, from her send to the arbiter's stamp: median "
              f"{statistics.median(late):.1f} ms, p90 {late[int(0.9 * (len(late) - 1))]:.1f} "
              f"ms, most {late[-1]:.1f} ms")
    print(f"  the friend's {sum(got['friends'].values())} answers: {got['friends']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--arbiter", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--races", type=int, default=48)
    parser.add_argument("--burst", type=int, default=300)
    parser.add_argument("--secure", action="store_true",
                        help="a coded CURVE table (the friend's snapshots get not_joined)")
    parser.add_argument("--before", help="also measure the arbiter of the tree at PATH")
    args = parser.parse_args()
    if args.arbiter:
        arbiter_main(args.secure)
        return
    print(f"race_burst: {args.races} races, a burst of {args.burst}, "
          f"{'coded CURVE' if args.secure else 'plain'} table; {platform.python_version()}, "
          f"{os.cpu_count()} CPUs")
    root = os.path.dirname(os.path.dirname(HERE))
    targets = [("this tree", dict(os.environ, PYTHONPATH=root))]
    if args.before:
        targets.append(("before", dict(os.environ, PYTHONPATH=os.path.abspath(args.before))))
    for name, env in targets:
        report(name, measure(env, args), args.races)


if __name__ == "__main__":
    main()
