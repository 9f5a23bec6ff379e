"""A full disk mid-match loses nothing and hangs nothing (PROTOCOL.md §25).

The pure arbiter, real clients' table copies (``loop_table``), a clock the test moves, and a
journal whose disk the test fills: while "full", a write puts down part of what it was given,
then fails ENOSPC, as a real full disk does. The disk fills at the first write of a chosen record
— in the lobby, at a countdown, at Go, at a move, at the move that ends a round, at the round's
end, between rounds and at the match's end — and then:

* **freed again**: the table went on by itself; every client saw every update number once, in
  order (no gap); no client was shown a move before its record was on disk; the round ended,
  the match ended, no client raised an alarm, and ``verify`` passes the journal;
* **killed while full**: the host is resumed from what the disk held; not one move any client
  was shown is missing from it, and the resumed table plays the match to its end.
"""

from __future__ import annotations

import errno
import os
import random
from pathlib import Path
from typing import Any, Callable

import msgpack
import pytest

from loop_table import Loop, LoopClient
from seeded_secrets import SeededSecrets
from table_settings import settings
from lan_demon.bots import make_strategy
from lan_demon.bots.base import Turn
from lan_demon.net import journal
from lan_demon.net.audit import verify
from lan_demon.net.codec import make
from lan_demon.net.journal import read_journal

pytestmark = pytest.mark.usefixtures("seeded_secrets")  # a secret table's course repeats

NAMES = ["ann", "bob"]
Record = dict[str, Any]


class Disk:
    """The journal's disk. ``fill_at(predicate)``: full from the first record the predicate
    takes (and everything after it, the secrets file too) until :meth:`free`."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch):
        self.full = False
        self.trigger: Callable[[Record], bool] | None = None
        self.refused = 0  # writes that failed
        real = journal._write_all

        def write_all(fd: int, data: bytes) -> None:
            if not self.full and self.trigger is not None and self._takes(data):
                self.full, self.trigger = True, None
            if self.full:
                self.refused += 1
                if len(data) > 1:  # part of it goes down, then the disk is full
                    os.write(fd, bytes(data[:len(data) // 2]))
                raise OSError(errno.ENOSPC, "No space left on device")
            real(fd, data)

        monkeypatch.setattr(journal, "_write_all", write_all)

    def _takes(self, data: bytes) -> bool:
        try:
            record = msgpack.unpackb(bytes(data), raw=False)
        except Exception:
            return False  # the secrets file (JSON)
        return isinstance(record, dict) and self.trigger(record)

    def fill_at(self, trigger: Callable[[Record], bool]) -> None:
        self.trigger = trigger

    def free(self) -> None:
        self.full = False


class Seen(LoopClient):
    """A table copy that keeps every update it was shown: (seq, kind, the update)."""

    def __init__(self, loop: Loop, name: str):
        super().__init__(loop, name)
        self.updates: list[tuple[int, str, dict[str, Any]]] = []
        self.stalls: list[dict[str, Any]] = []

    def on_update(self, msg: dict[str, Any]) -> None:
        self.updates.append((msg["seq"], msg["k"], msg))
        super().on_update(msg)

    def on_stall(self, msg: dict[str, Any]) -> None:
        self.stalls.append(msg)
        super().on_stall(msg)


def table(seed: int | None) -> Any:
    return settings("racing-demon", seed=seed, players=2, rounds=2, countdown=1.0, pause=2.0,
                    fairness_ms=0, options={"handicap": False})


def new_loop(path: Path, seed: int | None) -> Loop:
    loop = Loop(path, table(seed), [])
    loop.clients = [Seen(loop, name) for name in NAMES]
    loop.join()
    return loop


def step(loop: Loop, strategies: list[Any], rng: random.Random) -> None:
    """One step of the match: a ready, a little time, or one greedy move."""
    a = loop.arbiter
    if a.phase in ("lobby", "between"):
        for client in loop.clients:
            if client.seat is not None and not a.seats[client.seat].ready:
                client.ready()
                break
        loop.deliver()
        loop.tick(0.05)
    elif a.phase == "countdown":
        loop.tick(0.25)
    elif a.phase == "playing" and a.stall is None:
        movers = a.game.to_move(a.state)
        rng.shuffle(movers)
        for seat in movers:
            move = strategies[seat].choose(Turn(a.game, a.state, seat, rng))
            if move is not None:
                client = next(c for c in loop.clients if c.seat == seat)
                client.send(make("move", id=client.next_id(), round=a.match.round_no,
                                  move=move.to_data(), ts=loop.now))
                loop.deliver()
                loop.tick(0.05)
                return
        loop.tick(61.0)  # RD-13: nobody can move; the table moves on by itself
    else:
        loop.tick(0.25)


def run(loop: Loop, until: Callable[[], bool], limit: int = 20_000, seed: int = 3) -> None:
    strategies = [make_strategy("racing-demon", "greedy") for _ in NAMES]
    rng = random.Random(seed)
    for _ in range(limit):
        if until():
            return
        if loop.arbiter.phase == "over":
            loop.tick(1.0)
            continue
        step(loop, strategies, rng)
    raise AssertionError(f"never got there: {loop.arbiter.phase}")


def out_move_seq(tmp_path: Path, seed: int | None) -> int:
    """The update number of the move that ends round 0, from the same match on a good disk
    (the course is the same up to wherever the disk fills)."""
    loop = new_loop(tmp_path / "good.journal", seed)
    run(loop, lambda: loop.arbiter.phase == "between")
    loop.close()
    from lan_demon.net import fairdeal, witness
    fairdeal.secrets, witness.secrets = SeededSecrets("host"), SeededSecrets("clients")
    records = read_journal(tmp_path / "good.journal").records
    return [r["seq"] for r in records if r["j"] == "move" and r["round"] == 0][-1]


#: where the disk fills: the first write of a record the predicate takes
TRIGGERS: dict[str, Callable[[Record, int], bool]] = {
    "lobby": lambda r, _: r["j"] == "ready",
    "countdown": lambda r, _: r["j"] == "countdown",
    "go": lambda r, _: r["j"] == "round",
    "move": lambda r, _: r["j"] == "move" and r["seq"] % 5 == 0,
    "out-move": lambda r, out: r["j"] == "move" and r["seq"] == out,
    "round-end": lambda r, _: r["j"] == "round_end",
    "between": lambda r, _: r["j"] in ("ready", "commit"),  # (once round 0 has ended)
    "match-end": lambda r, _: r["j"] == "match_end",
}


def moves_shown(loop: Loop) -> dict[int, dict[str, Any]]:
    """Every move update any client was shown, by update number."""
    return {seq: u for client in loop.clients for seq, k, u in client.updates if k == "move"}


def journaled_moves(path: Path) -> dict[int, Record]:
    return {r["seq"]: r for r in read_journal(path).records if r["j"] == "move"}


def fill(loop: Loop, disk: Disk, where: str, out: int) -> None:
    """Play until the disk has filled at ``where``; check nobody was shown what it lacks."""
    if where == "between":
        run(loop, lambda: loop.arbiter.phase == "between")
    disk.fill_at(lambda r: TRIGGERS[where](r, out))
    run(loop, lambda: loop.arbiter.stall is not None)
    assert disk.full and loop.arbiter.stall.why == "disk_full"
    for _ in range(40):  # the table stands: the players try, time passes (10 s)
        step_while_full(loop)
    assert loop.arbiter.stall is not None
    on_disk = journaled_moves(loop.path)
    shown = moves_shown(loop)
    assert set(shown) <= set(on_disk), sorted(set(shown) - set(on_disk))
    for client in loop.clients:  # every screen says why (§25), once a second
        assert [s["on"] for s in client.stalls] == [True] * len(client.stalls)
        assert len(client.stalls) >= 9
        assert client.table["stall"]["why"] == "disk_full"


def step_while_full(loop: Loop) -> None:
    """While the disk is full: each player tries something (a ready, a move), 0.25 s pass."""
    a = loop.arbiter
    for client in loop.clients:
        if a.phase == "playing" and a.state is not None:
            client.send(make("move", id=client.next_id(), round=a.match.round_no,
                              move={"from": "pile"}, ts=loop.now))
        else:
            client.send(make("ready", id=client.next_id()))
    loop.deliver()
    loop.tick(0.25)


def gapless(loop: Loop) -> None:
    for client in loop.clients:
        seqs = [seq for seq, _, _ in client.updates]
        assert seqs == sorted(set(seqs)), f"{client.name} saw updates out of order"
        assert seqs == list(range(seqs[0], seqs[0] + len(seqs))), \
            f"{client.name} saw a gap in the update numbers"


WHERE = list(TRIGGERS)


@pytest.mark.timeout(120)
@pytest.mark.parametrize("seed", [None, 17], ids=["secret", "seeded"])
@pytest.mark.parametrize("where", WHERE)
def test_a_disk_that_fills_and_frees_loses_nothing_and_the_table_goes_on(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str, seed: int | None) -> None:
    out = out_move_seq(tmp_path, seed)
    disk = Disk(monkeypatch)
    loop = new_loop(tmp_path / "match.journal", seed)
    try:
        fill(loop, disk, where, out)
        held = len(loop.arbiter.stall.held)
        disk.free()
        loop.tick(0.25)
        loop.deliver()
        assert loop.arbiter.stall is None, "the table did not go on by itself"
        assert held >= 1
        for client in loop.clients:
            assert client.stalls[-1]["on"] is False
            assert client.table.get("stall") is None
        run(loop, lambda: loop.arbiter.phase == "over" and all(
            c.table.get("phase") == "over" for c in loop.clients))
    finally:
        loop.close()
    gapless(loop)
    shown, on_disk = moves_shown(loop), journaled_moves(loop.path)
    assert set(shown) == set(on_disk)
    for seq, update in shown.items():
        assert update["seat"] == on_disk[seq]["seat"]
    records = read_journal(loop.path).records
    assert [r["round"] for r in records if r["j"] == "round_end"] == [0, 1]
    for client in loop.clients:
        assert client.alarms() == [], [n.text for n in client.alarms()]
        assert client.notes() == [], [n.text for n in client.notes()]
        assert client.table["result"] == loop.arbiter.result
    verdict = verify(loop.path)
    assert verdict.ok, verdict.line


@pytest.mark.timeout(120)
@pytest.mark.parametrize("where", WHERE)
def test_a_host_killed_while_its_disk_is_full_is_resumed_with_every_move_anyone_saw(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str) -> None:
    out = out_move_seq(tmp_path, None)
    disk = Disk(monkeypatch)
    loop = new_loop(tmp_path / "match.journal", None)
    try:
        fill(loop, disk, where, out)
        shown = moves_shown(loop)
        disk.free()  # (the space came back with the host's restart)
        loop.crash()
        assert set(shown) <= set(journaled_moves(loop.path))
        run(loop, lambda: loop.arbiter.phase == "over" and all(
            c.table.get("phase") == "over" for c in loop.clients))
    finally:
        loop.close()
    records = read_journal(loop.path).records
    assert [r["round"] for r in records if r["j"] == "round_end"] == [0, 1]
    for client in loop.clients:
        assert client.alarms() == [], [n.text for n in client.alarms()]
    verdict = verify(loop.path)
    assert verdict.ok, verdict.line


@pytest.mark.timeout(60)
def test_over_real_sockets_a_full_disk_stands_the_table_and_the_host_is_told_what_to_do(
        host, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A real arbiter on 127.0.0.1, two real clients and the host's log: the disk fills at a
    move; the mover's update waits, the other's move is refused ``stalled``, both screens hear
    ``stall`` (no reconnect: the beat stops, the notice stands in), the host's terminal names
    the file and what to do; the disk is freed and the update comes, then the table goes on."""
    import io

    from lan_demon.commands.host_log import HostLog
    from lan_demon.games.demon_moves import TurnPack
    from lan_demon.net.client import Client
    from net_harness import pump_until

    disk = Disk(monkeypatch)
    path = tmp_path / "real.journal"
    server = host("racing-demon", journal=path, rounds=1, seed=5)
    log = io.StringIO()
    server.watch = HostLog(log)
    ann = Client(server.address, name="Ann", context=server.context).connect()
    bob = Client(server.address, name="Bob", context=server.context).connect()
    host.clients += [ann, bob]
    ann.start()
    pump_until(lambda: all(c.table["phase"] == "playing" and c.mirror for c in (ann, bob)),
               [ann, bob])
    seen: list[dict[str, Any]] = []
    bob.watchers.append(lambda channel, msg, size: seen.append(msg))
    heard: list[Any] = []

    def told(kind: str, words: str = "") -> bool:
        for client in (ann, bob):
            heard.extend(client.take_notices())
        return any(n.kind == kind and words in n.text for n in heard)

    disk.fill_at(lambda r: r["j"] == "move")
    ann.play(TurnPack())
    pump_until(lambda: bob.table.get("stall") is not None, [ann, bob])
    bob.play(TurnPack())
    pump_until(lambda: told("refused", "disk is full"), [ann, bob])
    # past a client's 3.5 s silence: the notices, not the beats, keep it here
    pump_until(lambda: sum(m.get("t") == "stall" for m in seen) >= 5, [ann, bob])
    assert not [m for m in seen if m.get("t") in ("update", "beat")]
    text = log.getvalue()
    assert "the journal cannot be written (No space left on device)" in text
    assert str(path) in text and "Free some space on that disk" in text
    disk.free()
    pump_until(lambda: bob.table.get("stall") is None and any(
        m.get("t") == "update" and m.get("k") == "move" for m in seen), [ann, bob])
    pump_until(lambda: "the journal is written again" in log.getvalue(), [ann, bob])
    moves = {r["seq"] for r in read_journal(path).records if r["j"] == "move"}
    shown = {m["seq"] for m in seen if m.get("t") == "update" and m.get("k") == "move"}
    assert shown and shown <= moves
    told("stall_over")
    assert not [n for n in heard if n.kind == "reconnecting"]  # the notice kept them here
    assert [n.kind for n in heard if n.kind.startswith("stall")].count("stall") == 2


def test_a_host_whose_disk_cannot_take_its_first_record_does_not_start(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A disk full at the start is refused in one line (a JournalError), and the journal
    left empty: a table that stood still from its first second would help nobody."""
    from lan_demon.net.arbiter import Arbiter
    from lan_demon.net.journal import JournalError, JournalWriter
    disk = Disk(monkeypatch)
    path = tmp_path / "start.journal"
    writer = JournalWriter(path)
    disk.fill_at(lambda r: r["j"] == "host")
    with pytest.raises(JournalError, match="No space left on device"):
        Arbiter(table(None)).attach_journal(writer, {"port": 1, "pub_port": 2})
    writer.close()
    assert path.read_bytes() == b"" and not writer.pending


def test_verify_says_not_finished_of_a_secret_round_in_play_not_fail(tmp_path: Path) -> None:
    """A host stopped mid-round at a table with secret deals (after a full disk, say): verify
    cannot check the round's deal before its end reveals the secret, which is no accusation —
    NOT FINISHED, as for any match in play, never FAIL."""
    loop = new_loop(tmp_path / "mid.journal", None)
    run(loop, lambda: loop.arbiter.phase == "playing" and loop.arbiter.match.round_no == 1)
    loop.close()
    verdict = verify(loop.path)
    assert not verdict.ok and verdict.line.startswith("NOT FINISHED at record "), verdict.line
    assert "round 2" in verdict.line and "reveals the host secret" in verdict.line
