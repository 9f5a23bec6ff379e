"""An arbiter driven directly, with named peers and a clock the test moves (no sockets): what
tests/test_arbiter.py and tests/test_hostile.py both sit at."""

from __future__ import annotations

from typing import Any

from hand_tables import RD, c
from table_settings import settings
from lan_demon.games.demon_table import DemonSeat, DemonState
from lan_demon.net.arbiter import Arbiter
from lan_demon.net.codec import decode, encode, make
from lan_demon.net.seal import open_seal, private_of
from lan_demon.net.seated import NOBODY, Sender

PLAY = {"t": "play", "from": "c1", "to": "s1"}
NEEDS_ID = ("hello", "ready", "move", "snapshot", "leave", "start", "ping", "pause", "resume",
            "remove")


class Table:
    """An arbiter with named peers; every reply and update goes through the codec."""

    def __init__(self, game: str = "racing-demon", code: str | None = None, **config: Any):
        """``config``: the table's settings (``tests/table_settings.py``); ``code``: the room
        code, which is not one of them (it is never journaled)."""
        config = {"players": 2, "countdown": 0, "pause": 0, "seed": 3, **config}
        self.now = 100.0
        self.arbiter = Arbiter(settings(game, **config), now=self.now, code=code)
        self.inbox: dict[bytes, list[dict]] = {}
        self.published: list[dict] = []
        self.ids = iter(range(1, 1_000_000))

    def send(self, peer: bytes, kind: str, at: float | None = None, sender: Sender = NOBODY,
             **fields: Any) -> list[dict]:
        """``sender``: the key and address the socket layer would read with the frame."""
        msg = make(kind, **fields)
        if kind in NEEDS_ID and "id" not in fields:
            msg["id"] = next(self.ids)
        self.last_id = msg.get("id")
        return self.deliver(peer, encode(msg), at, sender)

    def deliver(self, peer: bytes, frame: bytes, at: float | None = None,
                sender: Sender = NOBODY) -> list[dict]:
        if at is not None:
            self.now = at
        return self._collect(self.arbiter.handle(peer, frame, self.now, sender), peer)

    def deliver_parts(self, peer: bytes, parts: list[bytes]) -> list[dict]:
        return self._collect(self.arbiter.handle_multipart(peer, parts, self.now), peer)

    def tick(self, at: float) -> None:
        self.now = at
        self._collect(self.arbiter.tick(at), None)

    def _collect(self, out: Any, peer: bytes | None) -> list[dict]:
        mine = []
        for to, msg in out.private:
            decoded = decode(encode(msg), "private")
            self.inbox.setdefault(to, []).append(decoded)
            if to == peer:
                mine.append(decoded)
        self.published += [decode(encode(m), "pub") for m in out.public]
        return mine

    def seat(self, peer: bytes, name: str, rtt: float | None = None) -> dict:
        """Take a seat; ``rtt``: the round trip the arbiter believes it measured."""
        (welcome, *_) = self.send(peer, "hello", name=name, role="player")
        if rtt is not None:
            self.arbiter.seats[welcome["seat"]].rtts = [rtt]
        return welcome

    def committed(self, replies: list[dict], rid: int | None = None) -> bool:
        """Whether a move was committed: protocol 3 answers it with its update alone (the
        ``rid`` is the move's id; default: the last one :meth:`send` sent), no error."""
        rid = self.last_id if rid is None else rid
        return not any(m["t"] == "error" for m in replies) and any(
            m["t"] == "update" and m["k"] == "move" and m.get("rid") == rid
            for m in self.published)

    def seal_key(self, peer: bytes) -> bytes | None:
        """The key the last welcome to ``peer`` gave it for its sealed halves (§23)."""
        keys = [m.get("seal") for m in self.inbox.get(peer, []) if m["t"] == "welcome"]
        return keys[-1] if keys else None

    def move_halves(self, peer: bytes) -> list[dict]:
        """The private halves of moves ``peer`` can read, in order: sealed in the published
        updates with its key (§23), or sent as ``private`` frames (a seat of a resumed
        table before its hello)."""
        key, halves = self.seal_key(peer), []
        for m in self.published:
            if m["t"] == "update" and "s" in m and key is not None:
                half = open_seal(key, m["seq"], m["s"])
                if half is not None:
                    halves.append(private_of(m, half))
        halves += [m for m in self.inbox.get(peer, []) if m["t"] == "private" and
                   m["k"] == "move"]
        return sorted(halves, key=lambda h: h["seq"])

    def updates(self, kind: str) -> list[dict]:
        return [m for m in self.published if m["t"] == "update" and m["k"] == kind]


def journaled_table(path: Any, game: str = "racko", **config: Any) -> tuple[Table, Any]:
    """Ann and Bob seated and ready at a table (fake clock, no sockets) that journals to
    ``path``, its first round begun; and the open journal writer."""
    from lan_demon.net.journal import JournalWriter
    table = Table(game, **config)
    writer = JournalWriter(path)
    table.arbiter.attach_journal(writer, {"port": 7700, "pub_port": 7701})
    table.seat(b"A", "Ann")
    table.seat(b"B", "Bob")
    table.send(b"A", "ready")
    table.send(b"B", "ready")
    return table, writer


def racko_journal(path: Any) -> Any:
    """A small real journal at ``path``: a Rack-O table whose first round began."""
    journaled_table(path)[1].close()
    return path


def dealt_table(game: str = "racko", **config: Any) -> Table:
    """Ann (seat 0) and Bob (seat 1) seated and ready, so the first round is dealt."""
    t = Table(game, **config)
    t.seat(b"A", "Ann")
    t.seat(b"B", "Bob")
    t.send(b"A", "ready")
    t.send(b"B", "ready")
    return t


def race_table(rtts: tuple[float, float] | None = (0.200, 0.002), **config: Any) -> Table:
    """Ann (seat 0) and Bob (seat 1) playing; both show a 2♥ on column 1 and A♥ founds stack
    1, so both can race for it (RD-11). By default Ann's messages take long to arrive."""
    t = Table(**config)
    for (peer, name), rtt in zip(((b"A", "Ann"), (b"B", "Bob")), rtts or (None, None)):
        t.seat(peer, name, rtt)
    t.send(b"A", "ready")
    t.send(b"B", "ready")
    assert t.arbiter.phase == "playing"
    seats = [DemonSeat(pile=[c("5C", o), c("9D", o)],
                       columns=[[c("2H", o)], [c("9S", o)], [c("8S", o)], [c("7S", o)]],
                       pack=[c("3C", o)], pile_size=13) for o in (0, 1)]
    data = RD.state_to_data(DemonState(german=False, seats=seats))
    data["stacks"], data["next_stack"] = [{"id": 1, "cards": ["AH@0"]}], 2
    t.arbiter.facts.state = RD.state_from_data(data)
    return t


def unmeasured_race_table(**config: Any) -> Table:
    """:func:`race_table` before any round trip is measured: the arbiter holds no rtt for
    either seat."""
    return race_table(rtts=None, **config)
