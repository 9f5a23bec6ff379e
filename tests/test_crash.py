"""Crash recovery (issue 6): an arbiter killed at any moment is taken up again from its journal.

(a) Unit level, no sockets: a seeded match is played by greedy bots through the pure
:class:`Arbiter` with a fake clock. Its journal is then cut at every record boundary (and in the
middle of records), an arbiter is restored from each cut, the clients come back with their
tokens and the rest of the match is played with the same committed moves: the result must be the
uncrashed run's, and the journal must hold the same moves.

(b) Process level: ``lan-demon host --journal J`` with bots in this process (their clients
reconnect by themselves); the host is killed with SIGKILL at seeded moments, ``host --resume J``
takes over on the same port each time, and at the end the host's result must equal the replay of
the journal, and every committed move any client saw must be in the journal. Runs: 3 kills per
match by default, ``LAN_DEMON_CRASH_RUNS=N`` for more.
"""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import msgpack
import pytest

from lan_demon.bots import make_strategy
from lan_demon.bots.base import Turn
from lan_demon.net.arbiter import STUCK_TIMEOUT, Arbiter, Config
from lan_demon.net.codec import decode, encode, make
from lan_demon.net.journal import JournalError, JournalWriter, read_journal, replay
from lan_demon.net.recovery import RESUME_QUIET, restore, summary, take_up

PORTS = {"port": 7700, "pub_port": 7701}


# --- (a) the pure arbiter, a fake clock, the journal cut everywhere -----------------------------


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
            self.tick()
        raise AssertionError(f"the table did not get to a round: {a.phase}")


def new_arbiter(game: str, players: int, seed: int, journal: JournalWriter) -> Arbiter:
    rounds = 2 if game.startswith("racing") else 3  # short matches: every record is cut
    arbiter = Arbiter(Config(game, players=players, rounds=rounds, seed=seed, fairness_ms=0,
                             countdown=0, pause=5), now=100.0)
    arbiter.attach_journal(journal, PORTS)
    return arbiter


def play_uncrashed(path: Path, game: str, players: int, seed: int) -> dict[str, Any]:
    """A whole match by greedy bots on the true table; returns the result."""
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


def boundaries(data: bytes) -> list[int]:
    """The byte offsets where each record ends."""
    unpacker = msgpack.Unpacker(raw=False)
    unpacker.feed(data)
    ends = []
    for _ in unpacker:
        ends.append(unpacker.tell())
    return ends


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
        before = arbiter.seq
        if seat == -1:
            driver.tick(STUCK_TIMEOUT)  # RD-13 again: the same timeout move
        else:
            refused = [m for m in driver.send(names[seat], "move", round=round_no, move=move,
                                              ts=driver.now) if m["t"] == "error"]
            assert not refused, refused
            driver.tick()
        assert arbiter.seq > before
    driver.settle()
    writer.close()
    return arbiter


def moves_of_records(records: list[dict]) -> list[tuple[int, int, int, dict]]:
    return [(r["seq"], r["round"], r["seat"], r["move"]) for r in records if r["j"] == "move"]


@pytest.mark.timeout(120)
@pytest.mark.parametrize("game, players, seed", [
    pytest.param("racing-demon", 2, 7, id="racing-demon"),
    pytest.param("racko", 2, 3, id="racko"),
])
def test_rd15_a_journal_cut_at_every_record_resumes_to_the_uncrashed_result(
        tmp_path, game, players, seed):
    """Cut after every whole record, and in the middle of records (torn): restored, finished
    with the same moves, every cut gives the uncrashed result — rounds, totals and the RD-15
    pile sizes of each round (in the result's set-ups) alike."""
    full = tmp_path / "full.journal"
    result = play_uncrashed(full, game, players, seed)
    data = full.read_bytes()
    ends = boundaries(data)
    full_moves = moves_of(full)
    records = read_journal(full).records
    names = [f"bot{k}" for k in range(players)]
    tokens = {r["name"]: r["token"] for r in records if r["j"] == "seat"}
    assert result == replay(full).match.result_data()
    cuts = [(end, False) for end in ends[:-1]]
    cuts += [((a + b) // 2, True) for a, b in zip(ends[:-1], ends[1:])][::7]
    for cut_at, torn in cuts:
        cut = tmp_path / f"cut-{cut_at}.journal"
        cut.write_bytes(data[:cut_at])
        assert read_journal(cut).torn == torn
        arbiter = finish_from(cut, full_moves, names, tokens)
        assert arbiter.phase == "over" and arbiter.result == result, cut_at
        after = read_journal(cut)
        assert not after.torn  # the torn tail was cut away before appending
        assert [m[1:] for m in moves_of_records(after.records)] == \
            [m[1:] for m in full_moves], cut_at
        assert replay(cut).match.result_data() == result, cut_at
        cut.unlink()
    assert len(cuts) > 50


def test_a_resumed_arbiter_numbers_updates_above_anything_sent_before(tmp_path):
    """Clone: the sequence never goes back, even across a crash — the journal's seq mark is
    above every update number handed out, including presence and lobby updates it does not
    record one by one."""
    path = tmp_path / "j"
    writer = JournalWriter(path)
    arbiter = new_arbiter("racko", 2, 1, writer)
    driver = Driver(arbiter, ["a", "b"], 100.0)
    driver.settle()
    for _ in range(30):
        driver.tick(2.0)  # presence updates: everyone goes away
    highest = arbiter.seq
    writer.close()
    restored = restore(read_journal(path), 9.0, path)
    assert restored.arbiter.seq >= highest
    assert restored.arbiter.phase == "playing" and restored.arbiter.state is not None


def test_seats_come_back_away_and_reclaim_them_with_their_tokens(tmp_path):
    path = tmp_path / "j"
    writer = JournalWriter(path)
    arbiter = new_arbiter("racko", 2, 1, writer)
    driver = Driver(arbiter, ["a", "b"], 100.0)
    driver.settle()
    writer.close()
    restored = restore(read_journal(path), 50.0, path)
    a = restored.arbiter
    assert [(s.name, s.status, s.peer, s.bot) for s in a.seats] == \
        [("a", "away", None, True), ("b", "away", None, True)]
    assert [s.token for s in a.seats] == [driver.tokens["a"], driver.tokens["b"]]
    again = Driver(a, ["a", "b"], 50.0, driver.tokens)
    again.connect("b")
    assert a.seats[1].status == "here" and a.seats[1].peer == again.peers["b"]
    out = a.handle(b"x", encode(make("hello", id=1, name="z", role="player", token="f" * 16)),
                   50.0)
    assert decode(encode(out.private[0][1]), "private")["code"] == "bad_token"


def test_after_a_resume_strangers_are_answered_only_when_they_say_hello(tmp_path):
    """The crashed arbiter's clients must hear silence on their old connections (which
    reconnect to the same port by themselves), or they would never come back with a token."""
    path = tmp_path / "j"
    writer = JournalWriter(path)
    arbiter = new_arbiter("racko", 2, 1, writer)
    Driver(arbiter, ["a", "b"], 100.0).settle()
    writer.close()
    read = read_journal(path)
    restored = restore(read, 50.0, path)
    a = restored.arbiter
    a.attach_journal(JournalWriter(path, keep=read.size), PORTS)
    take_up(restored, 50.0)
    ping = encode(make("ping", id=7, c=1.0))
    assert a.handle(b"old", ping, 51.0).private == []
    assert a.handle(b"old", encode(make("snapshot", id=8)), 51.0).private == []
    assert a.handle(b"old", ping, 50.0 + RESUME_QUIET + 0.1).private  # answered again later
    out = a.handle(b"new", encode(make("hello", id=9, name="s", role="spectator")), 51.0)
    assert out.private[0][1]["t"] == "welcome"
    assert a.handle(b"new", ping, 51.0).private  # a spectator that said hello is answered
    a.journal.close()


def test_a_resumed_lobby_keeps_its_seats_readiness_and_leavers_and_starts_when_full(tmp_path):
    path = tmp_path / "j"
    writer = JournalWriter(path)
    arbiter = Arbiter(Config("racko", players=3, seed=4, countdown=0), now=100.0)
    arbiter.attach_journal(writer, PORTS)
    driver = Driver(arbiter, ["a", "x", "b"], 100.0)
    for name in ("a", "x", "b"):
        driver.connect(name)
    driver.send("a", "ready")
    driver.send("x", "leave")  # b moves up to seat 1
    writer.close()
    read = read_journal(path)
    restored = restore(read, 7.0, path)
    a = restored.arbiter
    assert [(s.index, s.name, s.ready) for s in a.seats] == [(0, "a", True), (1, "b", False)]
    assert "in the lobby" in summary(restored)
    a.attach_journal(JournalWriter(path, keep=read.size), PORTS)
    take_up(restored, 7.0)
    again = Driver(a, ["a", "b", "c"], 7.0, driver.tokens)
    again.settle()
    assert a.phase == "playing" and a.match.players == ["a", "b", "c"]
    assert [s.token for s in a.seats[:2]] == [driver.tokens["a"], driver.tokens["b"]]
    a.journal.close()
    assert replay(path).moves == [0]


def test_a_match_resumed_after_its_end_tells_returning_clients_the_result(tmp_path):
    """Killed just after match_end was journaled, maybe before it went out: the resumed host
    publishes match_end on every beat until every seat has been back a few seconds."""
    path = tmp_path / "j"
    result = play_uncrashed(path, "racko", 2, 3)
    read = read_journal(path)
    restored = restore(read, 10.0, path)
    a = restored.arbiter
    a.attach_journal(JournalWriter(path, keep=read.size), PORTS)
    take_up(restored, 10.0)
    assert a.phase == "over" and not a.finished(10.0)
    tokens = {r["name"]: r["token"] for r in read.records if r["j"] == "seat"}
    driver = Driver(a, ["bot0", "bot1"], 10.0, tokens)
    driver.connect("bot0")
    driver.connect("bot1")
    ends = []
    for _ in range(5):
        driver.now += 1.0
        ends += [m for m in a.tick(driver.now).public if m.get("k") == "match_end"]
    assert ends and all(m["result"] == result for m in ends)
    assert a.finished(driver.now)
    a.journal.close()


@pytest.mark.parametrize("content, words", [
    pytest.param(b"", "not a lan_demon journal", id="empty"),
    pytest.param(b"\xc1garbage", "not a lan_demon journal", id="garbled"),
])
def test_a_missing_or_garbled_journal_is_refused_clearly(tmp_path, content, words):
    path = tmp_path / "j"
    path.write_bytes(content)
    with pytest.raises(JournalError, match=words):
        restore(read_journal(path), 0.0, path)


def test_an_old_journal_without_seats_replays_but_cannot_be_resumed(tmp_path):
    path = tmp_path / "old"
    packer = msgpack.Packer(use_bin_type=True)
    path.write_bytes(packer.pack({"j": "match", "game": "racko", "seed": 1,
                                  "players": ["a", "b"], "options": {}, "rounds": None})
                     + packer.pack({"j": "round", "round": 0, "setup": {}}))
    assert replay(path).moves == [0]
    with pytest.raises(JournalError, match="older lan-demon"):
        restore(read_journal(path), 0.0, path)


# --- (b) a real host process, SIGKILLed and resumed, with bots that reconnect by themselves ----

CRASH_RUNS = int(os.environ.get("LAN_DEMON_CRASH_RUNS", "3"))
LAN_DEMON = [sys.executable, "-m", "lan_demon"]
ENV = {**os.environ, "PYTHONIOENCODING": "utf-8", "PYTHONUNBUFFERED": "1"}
LINE_DEADLINE = 30.0  # seconds for a host to say where it listens
PROGRESS_DEADLINE = 60.0  # seconds for the journal to grow to the next kill point


class Host:
    """One ``lan-demon host`` process, its output in files (read while it runs)."""

    def __init__(self, workdir: Path, argv: list[str], number: int):
        self.out = workdir / f"host{number}.out"
        self.err = workdir / f"host{number}.err"
        with open(self.out, "w") as out, open(self.err, "w") as err:
            self.popen = subprocess.Popen(LAN_DEMON + argv, cwd=workdir, env=ENV,
                                          stdin=subprocess.DEVNULL, stdout=out, stderr=err)

    def first_line(self) -> str:
        deadline = time.monotonic() + LINE_DEADLINE
        while time.monotonic() < deadline:
            text = self.err.read_text(encoding="utf-8")
            if "\n" in text:
                return text.split("\n", 1)[0]
            if self.popen.poll() is not None:
                break
            time.sleep(0.01)  # polling the file, with a deadline
        self.kill()
        pytest.fail(f"the host wrote no first line:\n{self.err.read_text(encoding='utf-8')}")

    def kill(self) -> None:
        if self.popen.poll() is None:
            self.popen.kill()  # SIGKILL
        self.popen.wait(timeout=10)


def journal_count(path: Path) -> int:
    try:
        return len(read_journal(path).records)
    except JournalError:
        return 0


def wait_for_records(path: Path, count: int, host: Host) -> bool:
    """Poll the journal until it holds ``count`` records (True) or the host has ended."""
    deadline = time.monotonic() + PROGRESS_DEADLINE
    while time.monotonic() < deadline:
        if journal_count(path) >= count:
            return True
        if host.popen.poll() is not None:
            return False
        time.sleep(0.005)  # polling the journal, with a deadline
    pytest.fail(f"the journal did not reach {count} records within {PROGRESS_DEADLINE:g} s")


def spy_on_moves(client: Any, seen: list[tuple[int, int, int, dict]]) -> None:
    """Note every committed move the client applies (its update), as the client sees it."""
    apply_move = client._k_move

    def noted(update: dict[str, Any], private: Any) -> None:
        seen.append((update["seq"], update["round"], update["seat"], update["move"]))
        apply_move(update, private)
    client._k_move = noted


#: game: (host flags, players, about how many records its match journals)
CRASH_GAMES = {
    "racing-demon": (["--players", "3", "--rounds", "3", "--seed", "21"], 3, 1000),
    "racko": (["--players", "2", "--seed", "8"], 2, 350),
}


@pytest.mark.timeout(120 + 30 * CRASH_RUNS)
@pytest.mark.parametrize("game", list(CRASH_GAMES))
def test_a_host_killed_at_seeded_moments_resumes_and_loses_no_committed_move(tmp_path, game):
    """RD-4..RD-17 / RK-4..RK-7 over a crashing host: kill -9 at seeded moments, resume on the
    same port, bots come back with their tokens; the printed result is the journal's replay and
    every committed move a client saw is in the journal."""
    from lan_demon.net.bots import make_bot, run_pool
    flags, players, records = CRASH_GAMES[game]
    span = max(4, 2 * records // (CRASH_RUNS + 1))  # kill points spread over the whole match
    journal = tmp_path / "match.journal"
    argv = ["host", "--port", "0", "--game", game, *flags, "--journal", str(journal),
            "--countdown", "0", "--pause", "0", "--json"]
    rng = random.Random(f"crash:{game}")
    hosts = [Host(tmp_path, argv, 0)]
    stop = threading.Event()
    bots: list[Any] = []
    failure: list[BaseException] = []
    seen: list[tuple[int, int, int, dict]] = []
    pool = None
    try:
        found = re.match(r"lan-demon: hosting \S+ at 127\.0\.0\.1:(\d+) ", hosts[0].first_line())
        assert found, hosts[0].err.read_text()
        port = found.group(1)
        for k in range(players):
            bot = make_bot(f"127.0.0.1:{port}", "greedy", f"bot{k}", k, "flat-out")
            spy_on_moves(bot.client, seen)
            bots.append(bot)

        def run() -> None:
            try:
                run_pool(bots, until=stop.is_set, timeout=60 + 30 * CRASH_RUNS)
            except BaseException as err:  # noqa: BLE001 - handed to the test thread
                failure.append(err)
        pool = threading.Thread(target=run, name="bots", daemon=True)
        pool.start()
        kills = 0
        for _ in range(CRASH_RUNS):
            target = journal_count(journal) + rng.randint(2, span)
            if not wait_for_records(journal, target, hosts[-1]):
                break  # the match ended first
            hosts[-1].kill()
            kills += 1
            hosts.append(Host(tmp_path, ["host", "--resume", str(journal), "--json"],
                              len(hosts)))
            line = hosts[-1].first_line()
            assert line.startswith(f"lan-demon: resumed {game} at 127.0.0.1:{port} "), line
        pool.join(timeout=60 + 30 * CRASH_RUNS)
        assert not pool.is_alive(), "the bots' match did not end"
        assert not failure, failure
        last = hosts[-1]
        assert last.popen.wait(timeout=30) == 0, last.err.read_text()
        result = json.loads(last.out.read_text(encoding="utf-8"))
    finally:
        stop.set()
        if pool is not None:
            pool.join(timeout=10)
        for host in hosts:
            host.kill()
        for bot in bots:
            bot.client.close()
    assert kills >= 1, "no crash happened: the match ended before the first kill point"
    replayed = replay(journal)
    assert not replayed.torn and replayed.result == result
    assert replayed.match.result_data() == result
    committed = {seq: (round_no, seat, move) for seq, round_no, seat, move
                 in moves_of(journal)}
    assert len(committed) == sum(replayed.moves)  # every move number is used once
    for seq, round_no, seat, move in seen:
        assert committed.get(seq) == (round_no, seat, move), f"move {seq} was lost"
    for bot in bots:
        assert bot.client.table.get("result") == result
