"""Crash recovery: an arbiter killed at any moment is taken up again from its journal.

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

import os
import random
import re
import time
from pathlib import Path
from typing import Any

import msgpack
import pytest

from child_programs import Host
from net_harness import BotThread, stop_all
from journal_harness import (CODE, PORTS, Driver, finish_from, moves_in_round, moves_of,
                             moves_of_records, new_arbiter, play_uncrashed, secure_journal,
                             tokens_of)
from table_settings import settings
from lan_demon.net.arbiter import Arbiter
from lan_demon.net.codec import decode, encode, make
from lan_demon.net.journal import JournalError, JournalWriter, read_journal, secret_path
from lan_demon.net.recovery import RESUME_QUIET, restore, summary, take_up
from lan_demon.net.secrets_file import read_secrets
from lan_demon.net.replay import replay

# --- (a) the pure arbiter, a fake clock, the journal cut everywhere -----------------------------


def boundaries(data: bytes) -> list[int]:
    """The byte offsets where each record ends."""
    unpacker = msgpack.Unpacker(raw=False)
    unpacker.feed(data)
    ends = []
    for _ in unpacker:
        ends.append(unpacker.tell())
    return ends


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
    names = [f"bot{k}" for k in range(players)]
    tokens = tokens_of(full)
    assert result == replay(full).match.result_data()
    cuts = [(end, False) for end in ends[:-1]]
    cuts += [((a + b) // 2, True) for a, b in zip(ends[:-1], ends[1:])][::7]
    for cut_at, torn in cuts:
        cut = tmp_path / f"cut-{cut_at}.journal"
        cut.write_bytes(data[:cut_at])
        secret_path(cut).write_bytes(secret_path(full).read_bytes())
        assert read_journal(cut).torn == torn
        arbiter = finish_from(cut, full_moves, names, tokens)
        assert arbiter.phase == "over" and arbiter.result == result, cut_at
        after = read_journal(cut)
        assert not after.torn  # the torn tail was cut away before appending
        assert [m[1:] for m in moves_of_records(after.records)] == \
            [m[1:] for m in full_moves], cut_at
        assert replay(cut).match.result_data() == result, cut_at
        cut.unlink()
        secret_path(cut).unlink()
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
    highest = arbiter.records.seq
    writer.close()
    restored = restore(read_journal(path), 9.0, path)
    assert restored.arbiter.records.seq >= highest
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
    arbiter = Arbiter(settings("racko", players=3, seed=4, countdown=0), now=100.0)
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
    driver = Driver(a, ["bot0", "bot1"], 10.0, tokens_of(path))
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
PROGRESS_DEADLINE = 60.0  # seconds for the journal to grow to the next kill point


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
    def noted(update: dict[str, Any]) -> None:
        seen.append((update["seq"], update["round"], update["seat"], update["move"]))
    client.copy.move_listeners.append(noted)


#: game: (host flags, players, about how many records its match journals)
CRASH_GAMES = {
    # Flat-out bots' races make 440-820 records (measured): the first kill point must come
    # before the shortest match's end.
    # Racing Demon without a seed: secret deals, committed, revealed and checked by every bot's
    # client across the crashes (a resumed host must not deal from seed 0).
    # (A countdown long enough to reveal in.)
    "racing-demon": (["--players", "3", "--rounds", "3", "--countdown", "0.5"], 3, 400),
    "racko": (["--players", "2", "--seed", "8", "--countdown", "0"], 2, 350),
}


@pytest.mark.timeout(120 + 30 * CRASH_RUNS)
@pytest.mark.parametrize("game", list(CRASH_GAMES))
def test_a_host_killed_at_seeded_moments_resumes_and_loses_no_committed_move(tmp_path, game):
    """RD-4..RD-17 / RK-4..RK-7 over a crashing host: kill -9 at seeded moments, resume on the
    same port, bots come back with their tokens; the printed result is the journal's replay and
    every committed move a client saw is in the journal."""
    from lan_demon.bots.runner import make_bot, run_pool
    flags, players, records = CRASH_GAMES[game]
    span = max(4, 2 * records // (CRASH_RUNS + 1))  # kill points spread over the whole match
    journal = tmp_path / "match.journal"
    argv = ["host", "--port", "0", "--game", game, *flags, "--journal", str(journal),
            "--pause", "0", "--json"]
    rng = random.Random(f"crash:{game}")
    hosts = [Host(tmp_path, argv, 0)]
    bots: list[Any] = []
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

        pool = BotThread(lambda stop: run_pool(bots, until=stop.is_set,
                                               timeout=60 + 30 * CRASH_RUNS))
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
        pool.finish(timeout=60 + 30 * CRASH_RUNS)
        result = hosts[-1].result()
    finally:
        stop_all(pool, hosts, bots)
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
    records = read_journal(journal).records
    assert not [r for r in records if r["j"] == "dispute"]  # no client's deal check failed
    if "--seed" not in flags:
        assert all(r["j"] != "round" or r["seeded"] is False for r in records)
    from lan_demon.net.audit import verify
    verdict = verify(journal)
    assert verdict.ok, verdict.line


# --- (c) a coded, encrypted table: its secrets file, and seats bound to their keys again --------

from lan_demon.cli import main  # noqa: E402 - the command line, for this part only
from lan_demon.net.seated import Sender  # noqa: E402
from lan_demon.net.secrets_file import HostSecrets, write_secrets  # noqa: E402
from lan_demon.net.security import KeyPair, new_keypair  # noqa: E402

@pytest.fixture
def no_lan(monkeypatch):
    """Nothing here may announce or multicast: any try fails the test."""
    import zeroconf

    from lan_demon.net import discovery

    def refuse(*args, **kwargs):
        raise AssertionError("a loopback test reached for the LAN")
    monkeypatch.setattr(discovery, "announce", refuse)
    monkeypatch.setattr(discovery, "lan_addresses", refuse)
    monkeypatch.setattr(zeroconf.Zeroconf, "__init__", refuse)


def test_a_resumed_seat_speaks_only_with_the_key_that_took_it(tmp_path):
    """The seat record names the key that took the seat: restored, each seat is bound to it
    again at once — its token from another key is refused wrong_key even before its owner is
    back, and the owner's key takes it. The journal says there was a code and which public
    key, never the code or the secret key."""
    path = tmp_path / "j"
    keys = new_keypair()
    taken = secure_journal(path, keys)
    data = path.read_bytes()
    assert CODE.encode() not in data and keys.secret not in data
    read = read_journal(path)
    assert (read.records[0]["coded"], read.records[0]["key"]) == (True, keys.public.decode())
    assert [r["key"] for r in read.records if r["j"] == "seat"] == \
        [taken[n][0].key for n in ("ann", "bob")]
    a = restore(read, 50.0, path).arbiter
    assert [s.key for s in a.seats] == [taken[n][0].key for n in ("ann", "bob")]

    def hello(peer: bytes, token: str, sender: Sender) -> dict[str, Any]:
        out = a.handle(peer, encode(make("hello", id=3, name="x", role="player", token=token)),
                       50.0, sender)
        return decode(encode(out.private[0][1]), "private")

    thief = Sender(new_keypair().public.decode(), "127.0.0.1")
    refusal = hello(b"mal", taken["ann"][1], thief)
    assert refusal["t"] == "error" and refusal["code"] == "wrong_key"
    assert a.seats[0].status == "away" and a.seats[0].peer is None
    assert hello(b"ann2", taken["ann"][1], taken["ann"][0])["t"] == "welcome"
    assert a.seats[0].status == "here" and a.seats[0].peer == b"ann2"


def test_the_secrets_file_is_the_owners_only_and_reads_back(tmp_path):
    keys = new_keypair()
    kept = HostSecrets("KQZR", keys, "Kitchen table", True)
    old = os.umask(0)  # even with nothing masked, the file is 0600
    try:
        path = write_secrets(tmp_path / "j", kept)
    finally:
        os.umask(old)
    assert path == secret_path(tmp_path / "j") == tmp_path / "j.secret"
    assert path.stat().st_mode & 0o777 == 0o600
    assert read_secrets(tmp_path / "j") == kept
    assert read_secrets(tmp_path / "other") is None
    assert not list(tmp_path.glob("*.new"))


def test_host_keeps_the_code_and_keys_beside_the_journal_not_in_it(tmp_path, no_lan,
                                                                  monkeypatch, capsys):
    """`host --secure --code C --journal J` (loopback): J.secret (mode 0600) holds the code and
    the key pair the host serves with; J names the public key and that a code is needed."""
    from lan_demon.net import server as server_module
    seen = {}

    def serve(self, exit_when_over=True):
        seen.update(keys=self.keys, code=self.arbiter.code, host=self.host)
        return {"game": "racko"}

    monkeypatch.setattr(server_module.ArbiterServer, "serve", serve)
    journal = tmp_path / "t.journal"
    assert main(["host", "--game", "racko", "--port", "0", "--secure", "--code", "ab cd ef-gh",
                 "--journal", str(journal), "--json"]) == 0
    assert seen["host"] == "127.0.0.1" and seen["code"] == "ABCDEFGH"
    sidecar = secret_path(journal)
    assert sidecar.stat().st_mode & 0o777 == 0o600
    assert read_secrets(journal) == HostSecrets("ABCDEFGH", seen["keys"], None, False)
    head = read_journal(journal).records[0]
    assert head["coded"] is True and head["key"] == seen["keys"].public.decode()
    assert seen["keys"].secret not in journal.read_bytes()
    assert f"key fingerprint {seen['keys'].fingerprint}" in capsys.readouterr().err


def test_a_plain_journaled_host_keeps_a_secrets_file_too(tmp_path, no_lan, monkeypatch):
    """Every journaled table has its secrets file (0600) — the tokens go there — and a stale one
    from another match at the same path is replaced, not reused."""
    from lan_demon.net import server as server_module
    monkeypatch.setattr(server_module.ArbiterServer, "serve",
                        lambda self, exit_when_over=True: {"game": "racko"})
    journal = tmp_path / "t.journal"
    write_secrets(journal, HostSecrets("ZZZZ", None, None, False, ("stale-token",)))
    assert main(["host", "--game", "racko", "--port", "0", "--journal", str(journal),
                 "--json"]) == 0
    assert secret_path(journal).stat().st_mode & 0o777 == 0o600
    assert journal.stat().st_mode & 0o777 == 0o600
    assert read_secrets(journal) == HostSecrets()
    head = read_journal(journal).records[0]
    assert head["coded"] is False and "key" not in head


def test_resume_takes_the_code_and_keys_back_and_shows_them_again(tmp_path, no_lan,
                                                                 monkeypatch, capsys):
    """Flags that repeat the table's own settings are welcome; the host shows the same room
    code and fingerprint lines as when it started, and serves with the same key pair."""
    from lan_demon.net import server as server_module
    seen = {}

    def serve(self, exit_when_over=True):
        seen.update(keys=self.keys, code=self.arbiter.code, host=self.host,
                    seat_keys=[s.key for s in self.arbiter.seats])
        return {"game": "racko"}

    monkeypatch.setattr(server_module.ArbiterServer, "serve", serve)
    journal = tmp_path / "t.journal"
    keys = new_keypair()
    taken = secure_journal(journal, keys)
    write_secrets(journal, HostSecrets(CODE, keys))
    assert main(["host", "--resume", str(journal), "--port", "0", "--secure", "--code",
                 CODE.lower(), "--json"]) == 0
    assert seen == {"keys": keys, "code": CODE, "host": "127.0.0.1",
                    "seat_keys": [taken[n][0].key for n in ("ann", "bob")]}
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].startswith("lan-demon: resumed racko at 127.0.0.1:") and \
        "round 1 in progress" in lines[0]
    assert lines[1:4] == [f"lan-demon: room code {CODE} — tell it to the players",
                          f"lan-demon: encrypted; key fingerprint {keys.fingerprint}",
                          f"lan-demon: who joins by address adds --key "
                          f"'{keys.public.decode()}'"]


@pytest.mark.parametrize("flags, words", [
    (["--no-secure"], "--no-secure conflicts with the resumed table, which was encrypted"),
    (["--code", "ABCD"], "--code conflicts with the resumed table, which had another room "
                         "code"),
    (["--name", "Kitchen"], "--name conflicts with the resumed table, which was not on the "
                            "LAN"),
    (["--game", "racing-demon"], "--game racing-demon conflicts with the journal's 'racko'"),
])
def test_resume_flags_that_disagree_with_the_table_get_one_line(tmp_path, no_lan, capsys,
                                                               flags, words):
    journal = tmp_path / "t.journal"
    keys = new_keypair()
    secure_journal(journal, keys)
    write_secrets(journal, HostSecrets(CODE, keys))
    before = journal.read_bytes()
    assert main(["host", "--resume", str(journal), "--port", "0", *flags]) == 2
    err = capsys.readouterr().err
    assert err.startswith("lan-demon: ") and err.count("\n") == 1 and words in err, err
    assert CODE not in err  # the code is not told in a refusal
    assert journal.read_bytes() == before  # nothing appended: the table never started


@pytest.mark.parametrize("flags, words", [
    (["--secure"], "--secure conflicts with the resumed table, which was not encrypted (kept "
                   "in "),
    (["--code", "ABCD"], "--code conflicts with the resumed table, which needed no room "
                         "code"),
])
def test_resume_of_a_plain_table_refuses_secure_flags(tmp_path, no_lan, capsys, flags, words):
    journal = tmp_path / "t.journal"
    play_uncrashed(journal, "racko", 2, 3)
    assert main(["host", "--resume", str(journal), "--port", "0", *flags]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and words in err, err


@pytest.mark.parametrize("damage, words", [
    pytest.param("missing", "the table had a room code and was encrypted, but its secrets "
                            "file", id="missing"),
    pytest.param("other table", "is not the secrets file of", id="other-table"),
    pytest.param("no code", "is not the secrets file of", id="no-code"),
    pytest.param("garbled", "not a lan-demon secrets file", id="garbled"),
    pytest.param("bad pair", "key pair is not a CURVE key pair", id="bad-pair"),
])
def test_a_secure_journal_without_its_own_secrets_file_is_not_resumed(tmp_path, no_lan,
                                                                      capsys, damage, words):
    """The host cannot prove it is the same table: its clients hold a key and a code it no
    longer has. One line, exit 2, the journal untouched."""
    journal = tmp_path / "t.journal"
    keys = new_keypair()
    secure_journal(journal, keys)
    if damage == "missing":
        secret_path(journal).unlink()
    elif damage == "other table":
        write_secrets(journal, HostSecrets(CODE, new_keypair()))
    elif damage == "no code":
        write_secrets(journal, HostSecrets(None, keys))
    elif damage == "garbled":
        secret_path(journal).write_text("{not json")
    elif damage == "bad pair":
        write_secrets(journal, HostSecrets(CODE, KeyPair(keys.public,
                                                         new_keypair().secret)))
    before = journal.read_bytes()
    assert main(["host", "--resume", str(journal), "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("lan-demon: ") and err.count("\n") == 1 and words in err, err
    assert journal.read_bytes() == before


def resume_args(**given) -> Any:
    """What the parser makes of ``host --resume j`` plus the given options (the LAN options are
    checked here as values: no test outside a network namespace runs a LAN host)."""
    import argparse
    fields = dict(resume="j", lan=False, secure=None, code=None, table_name=None)
    return argparse.Namespace(**{**fields, **given})


def test_a_resumed_table_serves_where_it_served():
    """A LAN table's resume repeats its own options or leaves them out; a loopback table's
    resume cannot be moved to the LAN, and a LAN table keeps its name."""
    from lan_demon.commands.errors import UsageError
    from lan_demon.commands.resume import agree_with_secrets
    kept = HostSecrets("KQZR", new_keypair(), "Kitchen table", True)
    agree_with_secrets(resume_args(lan=True, secure=True, table_name="Kitchen table",
                                   code="kqzr"), kept)
    agree_with_secrets(resume_args(), kept)
    with pytest.raises(UsageError, match="which was called 'Kitchen table'"):
        agree_with_secrets(resume_args(table_name="Attic"), kept)
    with pytest.raises(UsageError, match="served on loopback only"):
        agree_with_secrets(resume_args(lan=True), None)


def secure_bot(address: str, name: str, server_key: str, code: str, seed: int) -> Any:
    """A greedy flat-out bot at a coded, encrypted table (its key pair lasts its whole life)."""
    from lan_demon.bots.runner import make_bot
    return make_bot(address, "greedy", name, seed=f"secure-bot:{seed}", speed="flat-out",
                    connect_timeout=10.0, server_key=server_key, code=code)


def wait_mid_round(path: Path, moves: int, host: Host) -> None:
    """Poll the journal until the round in progress has ``moves`` committed moves."""
    deadline = time.monotonic() + PROGRESS_DEADLINE
    while time.monotonic() < deadline:
        played = moves_in_round(path)
        if played is not None and played >= moves:
            return
        assert host.popen.poll() is None, host.err.read_text()
        time.sleep(0.005)  # polling the journal, with a deadline
    pytest.fail(f"no round reached {moves} moves within {PROGRESS_DEADLINE:g} s")


@pytest.mark.timeout(150)
def test_a_secure_coded_host_killed_mid_round_resumes_as_the_same_table(tmp_path):
    """RK-4..RK-7 over a crashing encrypted table with a room code (loopback, no --lan):
    `host --secure --code` is SIGKILLed mid-round; `host --resume J` alone serves again with
    the same code and key (same fingerprint, from J.secret, mode 0600); the bots come back with
    their tokens and their own keys by themselves; a seat's token from another key is refused
    wrong_key; the match ends, and its result is the journal's replay."""
    from lan_demon.bots.runner import run_pool
    from lan_demon.net.client import Client
    from lan_demon.net.connect import ConnectError
    journal = tmp_path / "secure.journal"
    argv = ["host", "--port", "0", "--game", "racko", "--players", "2", "--seed", "8",
            "--secure", "--code", CODE, "--journal", str(journal), "--countdown", "0",
            "--pause", "0", "--json"]
    hosts = [Host(tmp_path, argv, 0)]
    bots: list[Any] = []
    pool = None
    try:
        first = hosts[0].first_lines(4)
        found = re.match(r"lan-demon: hosting racko at 127\.0\.0\.1:(\d+) ", first[0])
        assert found, first
        address = f"127.0.0.1:{found.group(1)}"
        assert first[1] == f"lan-demon: room code {CODE} — tell it to the players"
        assert re.fullmatch(r"lan-demon: encrypted; key fingerprint [0-9A-F-]{19}", first[2])
        # the key quoted for a shell, on a line of its own (a newcomer copied the ')' of
        # '(public key …)' with it)
        public = re.fullmatch(r"lan-demon: who joins by address adds --key '(\S{40})'",
                              first[3]).group(1)
        assert secret_path(journal).stat().st_mode & 0o777 == 0o600
        for k in range(2):
            bots.append(secure_bot(address, f"bot{k}", public, CODE.lower(), k))
        pool = BotThread(lambda stop: run_pool(bots, until=stop.is_set, timeout=120))
        wait_mid_round(journal, 4, hosts[0])
        hosts[0].kill()
        hosts.append(Host(tmp_path, ["host", "--resume", str(journal), "--json"], 1))
        again = hosts[1].first_lines(4)
        assert again[0].startswith(f"lan-demon: resumed racko at {address} "), again
        assert "in progress" in again[0], again  # killed mid-round
        assert again[1:] == first[1:]  # the same code, the same key and fingerprint
        thief = Client(address, name="mal", token=bots[0].client.token, server_key=public)
        with pytest.raises(ConnectError) as refused:
            thief.connect(timeout=10.0)
        assert refused.value.code == "wrong_key", refused.value
        pool.finish(timeout=120)
        result = hosts[1].result()
    finally:
        stop_all(pool, hosts, bots)
    replayed = replay(journal)
    assert not replayed.torn and replayed.result == result
    assert replayed.match.result_data() == result
    records = read_journal(journal).records
    assert [r["key"] for r in records if r["j"] == "seat"] == \
        [bot.client.keys.public.decode() for bot in bots]
    assert [r["j"] for r in records].count("resumed") == 1
    data = journal.read_bytes()
    assert CODE.encode() not in data and read_secrets(journal).keys.secret not in data
    for bot in bots:
        assert bot.client.table.get("result") == result
