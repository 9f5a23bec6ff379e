"""Journals for the crash, audit and damage tests, made without sockets: a whole match played
by greedy bots through the pure arbiter on a fake clock, a cut journal taken up and played to
its end, a coded CURVE table's journal; and the edits an attacker makes to a journal (records
written again, rechained, checksummed) for ``lan-demon verify`` to find."""

from __future__ import annotations

import hashlib
import random
import zlib
from pathlib import Path
from typing import Any, Callable

import msgpack

from table_settings import settings
from lan_demon.bots import make_strategy
from lan_demon.bots.base import Turn
from lan_demon.games.demon_stuck import STUCK_TIMEOUT
from lan_demon.net.arbiter import Arbiter
from lan_demon.net.audit import verify
from lan_demon.net.codec import decode, encode, make
from lan_demon.net.journal import GENESIS, JournalWriter, read_journal
from lan_demon.net.recovery import restore, summary, take_up
from lan_demon.net.seated import Sender
from lan_demon.net.secrets_file import read_secrets
from lan_demon.net.security import KeyPair, new_keypair

PORTS = {"port": 7700, "pub_port": 7701}
CODE = "ZEBRAFISH7"  # long enough never to turn up in a journal's bytes by chance


# --- a match played through the pure arbiter, and a cut journal played to its end -------------


class Driver:
    """Clients of one arbiter, by name: each keeps its token and reconnects with it, as the
    real client does. The clock is the test's."""

    def __init__(self, arbiter: Arbiter, names: list[str], now: float,
                 tokens: dict[str, str] | None = None):
        self.arbiter, self.names, self.now = arbiter, names, now
        self.tokens = dict(tokens or {})
        self.peers: dict[str, bytes] = {}
        self.connections = 0
        self.ids = iter(range(1, 10**9))

    def send(self, who: str, kind: str, **fields: Any) -> list[dict[str, Any]]:
        peer = self.peers[who]
        out = self.arbiter.handle(peer, encode(make(kind, id=next(self.ids), **fields)),
                                  self.now)
        return [decode(encode(m), "private") for to, m in out.private if to == peer]

    def tick(self, dt: float = 0.01) -> None:
        self.now += dt
        self.arbiter.tick(self.now)

    def connect(self, name: str) -> None:
        """A (new) connection: hello with the token if we have one, as after a crash."""
        self.connections += 1
        self.peers[name] = f"{name}#{self.connections}".encode()
        token = self.tokens.get(name)
        (welcome, *_) = self.send(name, "hello", name=name, role="player", token=token,
                                  bot=True)
        assert welcome["t"] == "welcome", welcome
        self.tokens[name] = welcome["token"]

    def seat_of(self, name: str) -> int:
        return next(s.index for s in self.arbiter.seats if s.name == name)

    def settle(self) -> None:
        """Bring the table to a round in progress (or the end): join, say ready, wait."""
        a = self.arbiter
        for _ in range(100):
            for name in self.names:
                if name not in self.peers and a.phase != "over":
                    self.connect(name)
            if a.phase in ("playing", "over"):
                return
            for name in self.names:
                seat = a.seats[self.seat_of(name)]
                if a.phase in ("lobby", "between") and not seat.ready:
                    self.send(name, "ready")
            # a resumed countdown gives its clients the time to come back before Go
            self.tick(max(0.01, a.facts.go_at - self.now) if a.phase == "countdown" else 0.01)
        raise AssertionError(f"the table did not get to a round: {a.phase}")


def new_arbiter(game: str, players: int, seed: int, journal: JournalWriter) -> Arbiter:
    rounds = 2 if game.startswith("racing") else 3  # short matches: every record is cut
    arbiter = Arbiter(settings(game, players=players, rounds=rounds, seed=seed, fairness_ms=0,
                             countdown=0, pause=5), now=100.0)
    arbiter.attach_journal(journal, PORTS)
    return arbiter


def play_uncrashed(path: Path, game: str, players: int, seed: int,
                   pauses: random.Random | None = None) -> dict[str, Any]:
    """A whole match by greedy bots on the true table; returns the result. ``pauses``: the
    host pauses the table now and then, for two minutes, the clients beating meanwhile
    (§24), drawn from this generator (not the bots', so that they play the same moves)."""
    writer = JournalWriter(path)
    arbiter = new_arbiter(game, players, seed, writer)
    names = [f"bot{k}" for k in range(players)]
    driver = Driver(arbiter, names, 100.0)
    rng = random.Random(seed)
    strategies = [make_strategy(game, "greedy") for _ in names]
    for _ in range(20_000):
        driver.settle()
        if arbiter.phase == "over":
            break
        round_no = arbiter.match.round_no
        if pauses is not None and pauses.random() < 0.08:
            pause_a_while(driver)
        if arbiter.game.races and rng.random() < 0.02:
            driver.tick(STUCK_TIMEOUT)  # everyone dozes off: RD-13's table move
            continue
        movers = arbiter.game.to_move(arbiter.state)
        rng.shuffle(movers)
        for seat in movers:
            move = strategies[seat].choose(Turn(arbiter.game, arbiter.state, seat, rng))
            if move is not None:
                driver.send(names[seat], "move", round=round_no, move=move.to_data(),
                            ts=driver.now)
                driver.tick(0.5)
                break
        else:
            driver.tick(STUCK_TIMEOUT)  # RD-13: the table moves on by itself
        if arbiter.phase != "playing":
            for s in strategies:
                s.reset()
    writer.close()
    assert arbiter.phase == "over"
    return arbiter.result


def pause_a_while(driver: Driver, minutes: float = 2.0) -> None:
    """The host pauses the table, every client beats every second while it stands, and the
    host resumes it (net/evening.py, as typed in its window)."""
    from lan_demon.net.outbox import Outbox
    from lan_demon.net.table_facts import HOST
    driver.arbiter.evening.pause(HOST, driver.now, Outbox())
    for _ in range(int(minutes * 60)):
        for name in driver.names:
            driver.arbiter.handle(driver.peers[name], encode(make("hb")), driver.now)
        driver.tick(1.0)
    driver.arbiter.evening.resume(HOST, driver.now, Outbox())


def moves_of(path: Path) -> list[tuple[int, int, int, dict]]:
    return [(r["seq"], r["round"], r["seat"], r["move"]) for r in read_journal(path).records
            if r["j"] == "move"]


def finish_from(cut: Path, full_moves: list[tuple[int, int, int, dict]],
                names: list[str], tokens: dict[str, str]) -> Arbiter:
    """Restore from a cut journal; clients come back with their tokens; the committed moves
    after the cut are played again; the match is brought to its end."""
    read = read_journal(cut)
    now = 5000.0
    restored = restore(read, now, cut)
    arbiter = restored.arbiter
    writer = JournalWriter(cut, keep=read.size)
    arbiter.attach_journal(writer, PORTS)
    take_up(restored, now)
    summary(restored)  # says something for every state
    kept = {seq for seq, *_ in moves_of_records(read.records)}
    known = {s.name for s in arbiter.seats}
    driver = Driver(arbiter, names, now, {n: t for n, t in tokens.items() if n in known})
    for seq, round_no, seat, move in full_moves:
        if seq in kept:
            continue
        driver.settle()
        assert arbiter.phase == "playing" and arbiter.match.round_no == round_no, \
            (arbiter.phase, round_no)
        before = arbiter.records.seq
        if seat == -1:
            driver.tick(STUCK_TIMEOUT)  # RD-13 again: the same timeout move
        else:
            refused = [m for m in driver.send(names[seat], "move", round=round_no, move=move,
                                              ts=driver.now) if m["t"] == "error"]
            assert not refused, refused
            driver.tick()
        assert arbiter.records.seq > before
    driver.settle()
    writer.close()
    return arbiter


def tokens_of(path: Path) -> dict[str, str]:
    """Each seat's session token, by name: from the secrets file, by seat record ordinal (the
    journal holds none)."""
    names = [r["name"] for r in read_journal(path).records if r["j"] == "seat"]
    return dict(zip(names, read_secrets(path).tokens))


def moves_of_records(records: list[dict]) -> list[tuple[int, int, int, dict]]:
    return [(r["seq"], r["round"], r["seat"], r["move"]) for r in records if r["j"] == "move"]


def secure_journal(path: Path, keys: KeyPair,
                   code: str | None = CODE) -> dict[str, tuple[Sender, str]]:
    """The journal of a coded, encrypted Rack-O table (the pure arbiter, as the server would
    drive it): ann and bob sit down from keys of their own and the round is dealt. Returns
    each one's sender (key) and session token."""
    writer = JournalWriter(path)
    arbiter = Arbiter(settings("racko", players=2, seed=5, countdown=0), now=100.0, code=code,
                      server_key=keys.public.decode())
    arbiter.attach_journal(writer, PORTS)
    taken = {}
    for name in ("ann", "bob"):
        sender = Sender(new_keypair().public.decode(), "127.0.0.1")
        out = arbiter.handle(name.encode(), encode(make("hello", id=1, name=name,
                                                        role="player", code=code)),
                             100.0, sender)
        taken[name] = (sender, out.private[0][1]["token"])
        arbiter.handle(name.encode(), encode(make("ready", id=2)), 100.0, sender)
    writer.close()
    assert arbiter.phase == "playing"
    return taken



def moves_in_round(path: Path) -> int | None:
    """Committed moves of the round in progress in a journal (None: no round in progress)."""
    try:
        records = read_journal(path).records
    except Exception:  # noqa: BLE001 - being written: not yet a journal
        return None
    played = None
    for record in records:
        if record["j"] == "round":
            played = 0
        elif record["j"] == "move" and played is not None:
            played += 1
        elif record["j"] == "round_end":
            played = None
    return played


# --- editing a journal as an attacker would -----------------------------------------------------


def records_of(path: Path) -> list[dict[str, Any]]:
    unpacker = msgpack.Unpacker(raw=False)
    unpacker.feed(path.read_bytes())
    return list(unpacker)


def with_checksum(packer: msgpack.Packer, record: dict[str, Any]) -> bytes:
    """A record packed as a version 4 writer packs it (PROTOCOL.md §19): ``crc`` last, a
    4-byte bin holding the CRC-32 (big-endian) of every byte before it."""
    fields = {k: v for k, v in record.items() if k != "crc"}
    head = packer.pack({**fields, "crc": b"\0" * 4})[:-4]
    return head + zlib.crc32(head).to_bytes(4, "big")


def write_records(path: Path, records: list[dict[str, Any]], rechain: bool = False,
                  checksum: bool = False) -> None:
    """Write records back as they are (a naive edit: the chain and each record's checksum
    are left as they were), each with its checksum made again (``checksum``: an editor who
    knows a record ends with its checksum), or chained again from the start as well
    (``rechain``: a forger who knows the format)."""
    packer = msgpack.Packer(use_bin_type=True)
    out, prev = b"", GENESIS
    checksums = bool(records) and "crc" in records[0]  # a version 4 journal
    for record in records:
        if rechain:
            record = {**{k: v for k, v in record.items() if k not in ("prev", "crc")},
                      "prev": prev}
        raw = with_checksum(packer, record) if (rechain or checksum) and checksums \
            else packer.pack(record)
        prev = hashlib.sha256(raw).hexdigest()
        out += raw
    path.write_bytes(out)


def edited(path: Path, change: Callable[[list[dict[str, Any]]], Any],
           rechain: bool = False, checksum: bool = False) -> Path:
    records = records_of(path)
    change(records)
    target = path.with_name(path.name + ".edited")
    write_records(target, records, rechain, checksum)
    return target


def first(records: list[dict[str, Any]], kind: str, nth: int = 0) -> int:
    return [i for i, r in enumerate(records) if r["j"] == kind][nth]


def twice(kind: str) -> Callable[[list[dict[str, Any]]], None]:
    """An edit: the first record of ``kind`` written again right after it (a replay)."""
    def again(records: list[dict[str, Any]]) -> None:
        records.insert(first(records, kind) + 1, dict(records[first(records, kind)]))
    return again


def fails(path: Path, change: Callable[[list[dict[str, Any]]], Any], words: str) -> None:
    """``verify`` fails the journal at ``path`` edited by ``change`` (rechained, so only
    what the records say is wrong), saying ``words``."""
    verdict = verify(edited(path, change, rechain=True))
    assert "FAIL" in verdict.line and words in verdict.line, verdict.line
