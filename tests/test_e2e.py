"""End to end: real ``lan-demon host`` and ``lan-demon bot`` processes on loopback.

A host is started on ``--port 0`` and its first line (``lan-demon: hosting GAME at ADDR …``) tells
where it listens; bots are separate processes. Every finished match is re-added from the rule
book (RD-14/RD-15, RG-6/RG-7, RK-6/RK-7, GS-7/GS-8) exactly as ``tests/test_cli.py`` does for
``simulate --json``, and its journal must replay to the same scores. Every process a test starts
is stopped by it, whatever happens.
"""

from __future__ import annotations

import json
import queue
import shutil
import subprocess
import threading
import time
from pathlib import Path
from typing import Any, Callable, Iterator

import msgpack
import pytest

from child_programs import BANNER, LAN_DEMON, child_env
from rule_book import next_piles, readd_demon

pytestmark = pytest.mark.timeout(180)

START_DEADLINE = 30.0  # seconds for a host to say it is listening
MATCH_DEADLINE = 120.0  # seconds for a whole match, every process included
QUICK_DEADLINE = 30.0  # seconds for a command that should fail or finish at once


# --- processes ---------------------------------------------------------------------------------


class Proc:
    """One ``lan-demon`` process; threads collect its stdout and stderr line by line."""

    def __init__(self, argv: list[str], cwd: Path):
        self.argv = argv
        self.popen = subprocess.Popen(LAN_DEMON + argv, cwd=cwd, env=child_env(), text=True,
                                      encoding="utf-8", errors="replace",
                                      stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE)
        self.lines: dict[str, list[str]] = {"stdout": [], "stderr": []}
        self.queues: dict[str, queue.Queue[str | None]] = {"stdout": queue.Queue(),
                                                           "stderr": queue.Queue()}
        self.readers = [threading.Thread(target=self._read, args=(name,), daemon=True)
                        for name in ("stdout", "stderr")]
        for reader in self.readers:
            reader.start()

    def _read(self, name: str) -> None:
        stream = getattr(self.popen, name)
        for line in stream:
            self.lines[name].append(line)
            self.queues[name].put(line)
        self.queues[name].put(None)

    def first_line(self, stream: str, timeout: float = START_DEADLINE) -> str:
        """The first line the process writes on ``stream`` (blocks up to ``timeout``)."""
        try:
            line = self.queues[stream].get(timeout=timeout)
        except queue.Empty:
            self.kill()
            pytest.fail(f"`lan-demon {' '.join(self.argv)}` wrote nothing on {stream} within "
                        f"{timeout:g} s")
        if line is None:
            code, out, err = self.finish(QUICK_DEADLINE)
            pytest.fail(f"`lan-demon {' '.join(self.argv)}` ended (status {code}) before "
                        f"writing a line on {stream}\nstdout:\n{out}\nstderr:\n{err}")
        return line

    def finish(self, timeout: float, context: str = "") -> tuple[int, str, str]:
        """Wait for the process to end; on a hang, kill it and fail, showing its output."""
        try:
            code = self.popen.wait(timeout=max(0.0, timeout))
        except subprocess.TimeoutExpired:
            self.kill()
            pytest.fail(f"`lan-demon {' '.join(self.argv)}` did not end within {timeout:g} s"
                        f"\nstdout:\n{self.out}\nstderr:\n{self.err}\n{context}")
        for reader in self.readers:
            reader.join(timeout=10)
        return code, self.out, self.err

    @property
    def out(self) -> str:
        return "".join(self.lines["stdout"])

    @property
    def err(self) -> str:
        return "".join(self.lines["stderr"])

    def running(self) -> bool:
        return self.popen.poll() is None

    def kill(self) -> None:
        if self.popen.poll() is None:
            self.popen.kill()
        try:
            self.popen.wait(timeout=10)
        except subprocess.TimeoutExpired:  # pragma: no cover - a process that ignores SIGKILL
            pass
        for reader in self.readers:
            reader.join(timeout=5)


Spawner = Callable[..., Proc]


def _spawner(cwd: Path, started: list[Proc]) -> Spawner:
    def spawn(*argv: str) -> Proc:
        proc = Proc(list(argv), cwd)
        started.append(proc)
        return proc
    return spawn


@pytest.fixture
def spawn(tmp_path: Path) -> Iterator[Spawner]:
    """Start ``lan-demon`` processes; any still running when the test ends are killed."""
    started: list[Proc] = []
    try:
        yield _spawner(tmp_path, started)
    finally:
        for proc in started:
            proc.kill()


def start_host(spawn: Spawner, *argv: str, json_out: bool = False) -> tuple[Proc, str, int]:
    """Start ``host --port 0 …`` and learn its address from the first line it writes."""
    host = spawn("host", "--port", "0", *argv, *(["--json"] if json_out else []))
    line = host.first_line("stderr" if json_out else "stdout")
    found = BANNER.match(line)
    assert found, f"the host's first line is not the hosting banner: {line!r}"
    game = argv[argv.index("--game") + 1] if "--game" in argv else "racing-demon"
    assert found.group(1) == game
    port = int(found.group(3))
    assert 0 < port < 65536 and int(found.group(4)) != port
    return host, f"{found.group(2)}:{port}", port


def run_quick(spawn: Spawner, *argv: str) -> tuple[int, str, str]:
    return spawn(*argv).finish(QUICK_DEADLINE)


def assert_one_clear_line(code: int, out: str, err: str) -> None:
    """Bad input: exit status 2, nothing on stdout, one ``lan-demon: …`` line on stderr."""
    assert "Traceback" not in err, err
    assert code == 2, (code, out, err)
    assert out == "", out
    assert err.count("\n") == 1 and err.endswith("\n"), err
    assert err.startswith("lan-demon: "), err


# --- playing whole matches ---------------------------------------------------------------------


GAMES: dict[str, dict[str, Any]] = {
    "racing-demon": {"players": 6, "rounds": 3, "seed": 11},
    "racing-demon-german": {"players": 4, "rounds": 5, "seed": 5},
    "racko": {"players": 3, "rounds": None, "seed": 2},  # RK-7: to 500
    "gin-solitaire": {"players": 1, "rounds": None, "seed": 4},  # GS-8: to 100
}


class Played:
    """One finished networked match: the host's document, its journal and every output."""

    def __init__(self, game: str, doc: dict[str, Any], journal: Path, host_err: str,
                 bots: list[tuple[str, int, str, str]]):
        self.game, self.doc, self.journal, self.host_err, self.bots = \
            game, doc, journal, host_err, bots


def play_match(spawn: Spawner, workdir: Path, game: str,
               setup: dict[str, Any] | None = None) -> Played:
    """Host ``game`` with its set-up from GAMES (or ``setup``: a seed None deals secretly, and
    ``countdown`` gives the bots time to reveal their nonces), seat greedy flat-out bots, wait
    for the end."""
    setup = setup or GAMES[game]
    journal = workdir / f"{game}.journal"
    seed = ["--seed", str(setup["seed"])] if setup["seed"] is not None else []
    argv = ["--game", game, "--players", str(setup["players"]), *seed,
            "--journal", str(journal), "--countdown", str(setup.get("countdown", 0)),
            "--pause", "0"]
    if setup["rounds"]:
        argv += ["--rounds", str(setup["rounds"])]
    deadline = time.monotonic() + MATCH_DEADLINE
    host, address, _ = start_host(spawn, *argv, json_out=True)
    names = [f"bot{k}" for k in range(1, setup["players"] + 1)]
    bots = {name: spawn("bot", address, "--strategy", "greedy", "--speed", "flat-out",
                        "--name", name, "--seed", str(k))
            for k, name in enumerate(names, 1)}
    finished = {name: bot.finish(deadline - time.monotonic(), f"host stderr:\n{host.err}")
                for name, bot in bots.items()}
    report = "\n".join(f"{name}: status {c}\nstdout:\n{o}\nstderr:\n{e}"
                       for name, (c, o, e) in finished.items())
    code, out, err = host.finish(deadline - time.monotonic(), report)
    assert "Traceback" not in err and "Traceback" not in report, err + report
    assert code == 0, f"host status {code}\nstderr:\n{err}\n{report}"
    for name, (c, o, e) in finished.items():
        assert c == 0, f"{name} status {c}\n{report}"
    try:
        doc = json.loads(out)  # exactly one JSON document, nothing else on stdout
    except json.JSONDecodeError as error:
        pytest.fail(f"the host's stdout is not one JSON document ({error}):\n{out}")
    assert BANNER.match(err), err
    return Played(game, doc, journal, err,
                  [(name, *finished[name]) for name in names])


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[str], Played]]:
    """Each game's match is played once per module and shared; leftovers are killed at the end."""
    workdir = tmp_path_factory.mktemp("matches")
    started: list[Proc] = []
    cache: dict[str, Played] = {}

    def get(game: str) -> Played:
        if game not in cache:
            try:
                cache[game] = play_match(_spawner(workdir, started), workdir, game)
            finally:
                for proc in started:
                    proc.kill()
        return cache[game]

    try:
        yield get
    finally:
        for proc in started:
            proc.kill()


# --- re-adding the JSON document from the rule book (tests/rule_book.py) ----------------------


def check_racing_demon(doc: dict[str, Any], players: int, rounds: int) -> None:
    """RD-14 round scores, RD-15 pile sizes from 13, RD-17 highest total wins."""
    names = doc["players"]
    assert len(names) == players and len(doc["rounds"]) == rounds
    piles, totals = [13] * players, [0] * players
    for k, rnd in enumerate(doc["rounds"]):
        for n in names:
            assert rnd["scores"][n] == readd_demon(rnd["detail"][n]), (k, n)
        assert [rnd["detail"][n]["pile_size"] for n in names] == piles, k
        scores = [rnd["scores"][n] for n in names]
        totals = [t + s for t, s in zip(totals, scores)]
        piles = next_piles(piles, scores, totals, first=k == 0)
    assert [doc["totals"][n] for n in names] == totals
    assert doc["winner"] == [n for n in names if doc["totals"][n] == max(totals)]


def check_german(doc: dict[str, Any], players: int, rounds: int) -> None:
    """RG-6 penalty = cards left in the Pile, RG-2 piles of 11 from deal to deal (no RD-15
    handicap by default), RG-7 lowest wins."""
    names = doc["players"]
    assert len(names) == players and len(doc["rounds"]) == rounds
    piles, totals = [11] * players, [0] * players
    for k, rnd in enumerate(doc["rounds"]):
        for n in names:
            d = rnd["detail"][n]
            assert set(d) == {"pile_size", "pile_left", "out"}, d  # RG-6: no bonuses
            assert rnd["scores"][n] == d["pile_left"], (k, n)
        assert [rnd["detail"][n]["pile_size"] for n in names] == piles, k
        scores = [rnd["scores"][n] for n in names]
        totals = [t + s for t, s in zip(totals, scores)]
    assert [doc["totals"][n] for n in names] == totals
    assert doc["winner"] == [n for n in names if doc["totals"][n] == min(totals)]


def check_racko(doc: dict[str, Any], players: int, rounds: None) -> None:
    """RK-6: Rack-O 75, else 5 a card ascending from slot 5; RK-7: played to 500."""
    names = doc["players"]
    assert len(names) == players
    for k, rnd in enumerate(doc["rounds"]):
        assert sum(rnd["detail"][n]["racko"] for n in names) == 1, k
        for n in names:
            d = rnd["detail"][n]
            prefix = 1
            while prefix < 10 and d["rack"][prefix] > d["rack"][prefix - 1]:
                prefix += 1
            assert rnd["scores"][n] == 25 * d["racko"] + 5 * prefix, (k, n)
    totals = doc["totals"]
    assert totals == {n: sum(r["scores"][n] for r in doc["rounds"]) for n in names}
    assert max(totals.values()) >= 500
    before = {n: totals[n] - doc["rounds"][-1]["scores"][n] for n in names}
    assert max(before.values()) < 500
    assert doc["winner"] == [n for n in names if totals[n] == max(totals.values())]


def check_gin(doc: dict[str, Any], players: int, rounds: None) -> None:
    """GS-7 scoring from the Draw pile count and deadwood; GS-8: first side to 100 wins."""
    (name,) = doc["players"]
    assert players == 1
    for k, rnd in enumerate(doc["rounds"]):
        d = rnd["detail"][name]
        c, dw = d["count"], d["deadwood"]
        expect = {"gin": (25 + c, 0), "big-gin": (31 + c, 0), "joker": (0, dw),
                  "knock": (c - dw, 0) if c >= dw else (0, 25 + dw - c)}[d["result"]]
        assert (d["player"], d["joker"]) == expect, k
        assert rnd["scores"] == {name: d["player"], "Joker": d["joker"]}, k
    totals = doc["totals"]
    assert totals == {side: sum(r["scores"][side] for r in doc["rounds"])
                      for side in (name, "Joker")}
    assert max(totals.values()) >= 100
    before = {side: totals[side] - doc["rounds"][-1]["scores"][side] for side in totals}
    assert max(before.values()) < 100
    assert doc["winner"] == [max(totals, key=totals.get)] and len(doc["winner"]) == 1


CHECKS = {"racing-demon": check_racing_demon, "racing-demon-german": check_german,
          "racko": check_racko, "gin-solitaire": check_gin}


def check_match(match: Played) -> None:
    setup = GAMES[match.game]
    doc = match.doc
    assert {"game", "seed", "players", "rounds", "totals", "winner"} <= set(doc)
    assert doc["game"] == match.game and doc["seed"] == setup["seed"]
    assert sorted(doc["players"]) == sorted(name for name, *_ in match.bots)
    assert doc["rounds"] and all({"scores", "detail"} <= set(r) for r in doc["rounds"])
    CHECKS[match.game](doc, setup["players"], setup["rounds"])
    winner = ", ".join(doc["winner"])
    for name, _, out, _ in match.bots:
        assert out == f"{name}: match over, winner: {winner}\n", out


def replay_json(spawn: Spawner, journal: Path) -> tuple[dict[str, Any], str]:
    code, out, err = run_quick(spawn, "replay", str(journal), "--json")
    assert "Traceback" not in err, err
    assert code == 0, (code, out, err)
    return json.loads(out), err


def check_same_scores(replayed: dict[str, Any], doc: dict[str, Any]) -> None:
    for key in ("game", "seed", "players", "totals", "winner"):
        assert replayed[key] == doc[key], key
    assert [r["scores"] for r in replayed["rounds"]] == [r["scores"] for r in doc["rounds"]]


# --- 1. whole matches over the network ---------------------------------------------------------


def test_rd14_rd15_racing_demon_6_bots_3_rounds_over_the_network(played, spawn):
    """RD-14 scores and RD-15 pile sizes re-add; the journal replays to the same scores."""
    match = played("racing-demon")
    check_match(match)
    replayed, err = replay_json(spawn, match.journal)
    assert err == ""
    check_same_scores(replayed, match.doc)


def test_rg6_rg7_german_4_bots_5_rounds_over_the_network(played, spawn):
    """RG-6 penalties and RG-7 lowest total wins re-add; the journal replays the same."""
    match = played("racing-demon-german")
    check_match(match)
    replayed, err = replay_json(spawn, match.journal)
    assert err == ""
    check_same_scores(replayed, match.doc)


def test_rk6_rk7_racko_3_bots_to_500_over_the_network(played, spawn):
    """RK-6 rack scores and RK-7 play to 500 re-add; the journal replays the same."""
    match = played("racko")
    check_match(match)
    replayed, err = replay_json(spawn, match.journal)
    assert err == ""
    check_same_scores(replayed, match.doc)


def test_gs7_gs8_gin_solitaire_1_bot_to_100_over_the_network(played, spawn):
    """GS-7 scores and GS-8 play to 100 re-add; the journal replays the same."""
    match = played("gin-solitaire")
    check_match(match)
    replayed, err = replay_json(spawn, match.journal)
    assert err == ""
    check_same_scores(replayed, match.doc)


@pytest.mark.parametrize("game", list(GAMES))
def test_a_real_hosted_match_journal_verifies_and_holds_no_token(played, spawn,
                                                                             game):
    """The journal of a match hosted for real (bots over 127.0.0.1) verifies OK with ``lan-demon
    verify``, and it is 0600 and holds none of the seats' tokens, which are in its 0600 secrets
    file."""
    from lan_demon.net.journal import read_journal, secret_path
    from lan_demon.net.secrets_file import read_secrets
    match = played(game)
    code, out, err = run_quick(spawn, "verify", str(match.journal))
    assert (code, err) == (0, ""), (code, out, err)
    records = read_journal(match.journal).records
    seats, rounds = GAMES[game]["players"], len(match.doc["rounds"])
    assert out == f"OK: {game}, {seats} seat{'s' * (seats != 1)}, {rounds} " \
        f"round{'s' * (rounds != 1)}, {sum(r['j'] == 'move' for r in records)} moves, " \
        f"{sum(r['j'] == 'refused' for r in records)} refused, {len(records)} records " \
        f"chained\n", out
    tokens = read_secrets(match.journal).tokens
    assert len(tokens) == GAMES[game]["players"] and all(tokens)
    data = match.journal.read_bytes()
    assert not any(token.encode() in data for token in tokens)
    for path in (match.journal, secret_path(match.journal)):
        assert path.stat().st_mode & 0o777 == 0o600, path


def test_a_secret_hosted_match_mixes_every_bots_nonce_and_verifies(spawn, tmp_path):
    """A host without --seed deals every round from a committed secret mixed with each bot's nonce
    (the bots reveal during a short countdown), and its journal verifies."""
    from lan_demon.net.journal import read_journal
    match = play_match(spawn, tmp_path, "racing-demon",
                       {"players": 3, "rounds": 2, "seed": None, "countdown": 0.75})
    assert match.doc["seed"] is None
    rounds = [r for r in read_journal(match.journal).records if r["j"] == "round"]
    assert len(rounds) == 2 and not any(r["seeded"] for r in rounds)
    for r in rounds:
        assert [seat for seat, _ in r["nonces"]] == [0, 1, 2], r["nonces"]
    code, out, err = run_quick(spawn, "verify", str(match.journal))
    assert (code, err) == (0, "") and out.startswith("OK: racing-demon, 3 seats, 2 rounds"), out


# --- 2. bad input: one line on stderr, status 2, no traceback ----------------------------------


def test_bot_with_nobody_listening_says_is_the_host_running(spawn):
    code, out, err = run_quick(spawn, "bot", "127.0.0.1:1", "--timeout", "0.5")
    assert_one_clear_line(code, out, err)
    assert "no answer" in err and "is the host running?" in err and "127.0.0.1:1" in err


@pytest.mark.parametrize("argv, words", [
    (["bot", "not-an-address"], "not an address: 'not-an-address'"),
    (["host", "--game", "snap", "--port", "0"], "unknown game 'snap'"),
    (["host", "--players", "1", "--game", "racko", "--port", "0"], "RK-1"),
    (["host", "--fairness-ms", "999", "--port", "0"], "fairness window"),
    (["host", "--port", "70000"], "--port"),
    (["replay", "/nonexistent"], "/nonexistent"),
], ids=["bot-not-an-address", "host-unknown-game", "host-rk1-one-racko-player",
        "host-fairness-999", "host-port-70000", "replay-missing-file"])
def test_bad_input_gets_one_clear_line(spawn, argv, words):
    code, out, err = run_quick(spawn, *argv)
    assert_one_clear_line(code, out, err)
    assert words in err, err


def _records(*records: Any) -> bytes:
    return b"".join(msgpack.packb(r, use_bin_type=True) for r in records)


@pytest.mark.parametrize("content", [
    pytest.param(b"hello, this is not a journal\n", id="text"),
    pytest.param(b"", id="empty"),
    pytest.param(b"\xc1\xc1\xc1", id="not-msgpack"),
    pytest.param(_records({"game": "racko"}), id="map-without-j"),
    pytest.param(_records({"j": "round", "round": 0}), id="no-match-record-first"),
    pytest.param(_records({"j": "match"}), id="match-record-without-fields"),
    pytest.param(_records({"j": "match", "game": "racko", "seed": 1, "players": 5,
                           "options": {}, "rounds": None}), id="players-not-a-list"),
    pytest.param(_records({"j": "match", "game": "racko", "seed": 1, "players": ["a", "b"],
                           "options": {}, "rounds": "x"}), id="rounds-not-a-number"),
    pytest.param(_records({"j": "match", "game": "racko", "seed": 1, "players": ["a", "b"],
                           "options": {}, "rounds": None}, {"j": "round", "round": 0},
                          {"j": "move", "round": 0, "move": {"t": "draw"}}),
                 id="move-without-seat"),
])
def test_replay_of_a_file_that_is_not_a_journal_gets_one_clear_line(spawn, tmp_path, content):
    bogus = tmp_path / "bogus.journal"
    bogus.write_bytes(content)
    code, out, err = run_quick(spawn, "replay", str(bogus))
    assert_one_clear_line(code, out, err)
    assert "bogus.journal" in err, err


def test_replay_of_a_journal_cut_off_mid_record_says_so_and_exits_0(played, spawn, tmp_path):
    """A torn last record is left out with a notice; every whole round still replays."""
    match = played("gin-solitaire")
    torn = tmp_path / "torn.journal"
    shutil.copyfile(match.journal, torn)
    data = torn.read_bytes()
    torn.write_bytes(data[:-3])
    replayed, err = replay_json(spawn, torn)
    assert err.count("\n") == 1 and err.startswith("lan-demon: "), err
    assert "cut off" in err, err
    check_same_scores(replayed, match.doc)  # only the match_end record was torn
    code, out, err = run_quick(spawn, "replay", str(torn))  # the table, too
    assert code == 0 and "Traceback" not in err and "cut off" in err
    assert out.startswith(f"gin-solitaire · seed {GAMES['gin-solitaire']['seed']}\n"), out


# --- 3. a port already taken -------------------------------------------------------------------


def test_host_on_a_port_already_taken_fails_with_one_clear_line(spawn):
    first, _, port = start_host(spawn, "--game", "racko", "--players", "2", "--seed", "1")
    try:
        code, out, err = run_quick(spawn, "host", "--game", "racko", "--players", "2",
                                   "--port", str(port))
        assert_one_clear_line(code, out, err)
        assert f"127.0.0.1:{port}" in err and "in use" in err.lower(), err
        assert first.running(), "the first host must not be disturbed by the second"
    finally:
        first.kill()
