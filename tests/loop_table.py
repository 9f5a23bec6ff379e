"""Real clients' table copies at a pure arbiter, on a clock the test moves, with no sockets.

:class:`LoopClient` holds a :class:`~lan_demon.net.table_copy.TableCopy` — the very code a
client keeps its table and does its §22 duties with (commit, reveal, the deal check) — and is
the link it is kept over: its messages go straight into :meth:`Arbiter.handle` and whose answers come straight back, every one
through the codec. A :class:`Loop` holds the arbiter, the clock and the clients, and can *crash*
the arbiter: the journal and its secrets file are taken as they were at that moment, a new arbiter
is restored from them (``lan-demon host --resume``), and the clients, which keep everything they
knew, come back with their tokens as the real client does after a silence.
"""

from __future__ import annotations

import itertools
import shutil
from pathlib import Path
from typing import Any

from lan_demon.games import get_game
from lan_demon.net.arbiter import Arbiter
from lan_demon.net.codec import decode_all, encode, make
from lan_demon.net.copy_facade import CopyFacade
from lan_demon.net.journal import JournalWriter, read_journal, secret_path
from lan_demon.net.outbox import Outbox
from lan_demon.net.recovery import restore, take_up
from lan_demon.net.settings import Settings
from lan_demon.net.table_copy import Notice, TableCopy

PORTS = {"port": 7700, "pub_port": 7701}


class LoopClient(CopyFacade):
    """One player's table copy, its messages handed to the loop's arbiter."""

    def __init__(self, loop: Loop, name: str):
        self.loop, self.name = loop, name
        self.connected = False
        self.ids = itertools.count(1)
        self.copy = TableCopy(self)
        self.token: str | None = None
        self.config: dict[str, Any] = {}
        self.peer = b""
        self.connections = 0
        self.heard: list[Notice] = []  # every notice, in order (the screen's feed)
        self.verdicts: dict[int, bool] = {}  # round -> its deal was re-dealt and found honest
        round_over = self.copy.duties.round_over

        def judged(round_no: int, secret: Any, setup: dict[str, Any]) -> None:
            round_over(round_no, secret, setup)
            self.verdicts[round_no] = self.copy.witness.outcome(round_no) == "ok"
        self.copy.duties.round_over = judged  # type: ignore[method-assign]

    # --- what the table copy asks of its link (lan_demon/net/link.py) ----------------------

    def clock(self) -> float:
        return self.loop.now

    def send(self, msg: dict[str, Any]) -> bool:
        self.loop.post(self, encode(msg))
        return True

    def next_id(self) -> int:
        return next(self.ids)

    def hang_up(self) -> None:
        pass  # (no socket to close: the loop hands frames only to connected clients)

    def match_over(self) -> None:
        pass

    # --- the client's own -----------------------------------------------------------------

    def connect(self) -> None:
        """A new connection (a new peer), saying hello with our token if we hold one."""
        self.connections += 1
        self.peer = f"{self.name}#{self.connections}".encode()
        self.connected = False
        self.copy.connection_lost()
        self.send(make("hello", id=self.next_id(), name=self.name, role="player",
                       token=self.token, bot=True))

    def on_update(self, msg: dict[str, Any]) -> None:
        self.copy.on_update(msg)

    def on_stall(self, msg: dict[str, Any]) -> None:
        if self.copy.on_stall(msg) and self.connected:
            self.copy.stall_over()

    def receive(self, msg: dict[str, Any]) -> None:
        kind = msg["t"]
        if kind == "update":
            self.on_update(msg)
        elif kind == "beat":
            self.copy.on_beat(msg)
        elif kind == "stall":
            self.on_stall(msg)
        elif kind == "welcome":
            self.token = msg["token"] or self.token
            self.config = msg["config"]
            self.copy.seated(msg.get("seat"), msg.get("seal"), get_game(msg["game"]),
                             self.config)
            self.connected = True
            self.copy.resync()
        elif kind == "snap":
            self.copy.on_snap(msg)
        elif kind == "private":
            self.copy.on_private(msg)
        elif kind == "ok":
            self.copy.duties.answer(msg["re"], None)
        elif kind == "error":
            if msg.get("re") is not None and self.copy.duties.answer(msg["re"], msg):
                pass  # (a §22 request refused: the witness knows)
            elif msg["code"] not in ("not_playing", "beaten", "illegal", "wrong_round",
                                     "stalled"):
                raise AssertionError(f"{self.name} was refused: {msg}")
        self.copy.duties.commit_when_due()
        self.heard.extend(self.copy.take_notices())

    def alarms(self) -> list[Notice]:
        """What this client's screen would show as a failed deal check or a dispute."""
        return [n for n in self.heard if n.kind in ("dishonest", "dispute")]

    def notes(self) -> list[Notice]:
        """What it would show as plain facts about a deal: whose randomness a round lacked,
        a round NOT checked."""
        return [n for n in self.heard if n.kind == "deal_note"]


class Loop:
    """An arbiter journaling to ``path``, its clients and the clock."""

    def __init__(self, path: Path, settings: Settings, names: list[str], now: float = 100.0):
        self.path, self.now = path, now
        self.writer = JournalWriter(path)
        self.arbiter = Arbiter(settings, now=now)
        self.arbiter.attach_journal(self.writer, PORTS)
        self.clients = [LoopClient(self, name) for name in names]
        self.queue: list[tuple[LoopClient, bytes]] = []
        self.crashes = 0
        self.retired: list[LoopClient] = []  # programs closed and replaced (restart)

    def post(self, client: LoopClient, frame: bytes) -> None:
        self.queue.append((client, frame))

    def deliver(self) -> None:
        """Hand every queued frame to the arbiter, and what it says to the clients, until
        nobody has anything more to say."""
        while self.queue:
            client, frame = self.queue.pop(0)
            self.spread(self.arbiter.handle(client.peer, frame, self.now))

    def spread(self, out: Outbox) -> None:
        out = self.arbiter.outgoing(out)  # as the server: nothing the journal lacks (§25)
        by_peer = {c.peer: c for c in self.clients if c.peer}
        for msg in out.public:
            for decoded in decode_all(encode(msg), "pub"):
                for client in self.clients:
                    if client.connected:
                        client.receive(decoded)
        for peer, msg in out.private:
            client = by_peer.get(peer)
            if client is not None:
                for decoded in decode_all(encode(msg), "private"):
                    client.receive(decoded)

    def tick(self, dt: float) -> None:
        self.now += dt
        self.spread(self.arbiter.tick(self.now))
        self.deliver()

    def join(self) -> None:
        for client in self.clients:
            client.connect()
        self.deliver()

    def crash(self, restarted: tuple[str, ...] = ()) -> None:
        """The host is killed now: a new arbiter is restored from the journal and secrets file
        as they are, and every client comes back with its token (what it knew, it keeps) —
        but those named in ``restarted``, whose programs were closed meanwhile: a new program
        takes each seat back with its token, knowing nothing else (``join`` run again)."""
        self.crashes += 1
        kept = self.path.with_name(f"{self.path.name}.crash{self.crashes}")
        shutil.copyfile(self.path, kept)  # what the killed host left, for the test to look at
        self.writer.close()
        self.queue.clear()  # frames in flight die with the host
        for client in self.clients:
            client.connected = False
        read = read_journal(self.path)
        restored = restore(read, self.now, self.path)
        self.writer = JournalWriter(self.path, keep=read.size)
        restored.arbiter.attach_journal(self.writer, PORTS)
        take_up(restored, self.now)
        self.arbiter = restored.arbiter
        self.now += 4.0  # the clients notice the silence (3.5 s) and come back
        for name in restarted:
            self.restart(name)
        for client in self.clients:
            client.connect()
        self.deliver()

    def restart(self, name: str) -> LoopClient:
        """``name``'s program is closed and run again: a new table copy with its token only."""
        index = next(i for i, c in enumerate(self.clients) if c.name == name)
        old, new = self.clients[index], LoopClient(self, name)
        new.token = old.token
        self.clients[index] = new
        self.retired.append(old)
        return new

    def close(self) -> None:
        self.writer.close()


def secrets_copy(path: Path, to: Path) -> None:
    """The secrets file of ``path`` beside ``to`` too (a cut journal's own)."""
    shutil.copyfile(secret_path(path), secret_path(to))
