"""Every match can come back: a host journals by default into the user's state folder
(0700 folders, 0600 files, named after the table and the time), ``host --resume`` alone takes up
the latest unfinished match and says which, old finished journals are kept to a bound, and
``--no-journal`` opts out. The folder's rules are :mod:`lan_demon.net.journals`."""

from __future__ import annotations

import os
import re
import signal
import stat
import threading
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from child_programs import Host
from journal_harness import moves_in_round
from net_harness import BotThread, stop_all
from lan_demon.cli import main
from lan_demon.net import journals
from lan_demon.net.journal import VERSION, JournalWriter, read_journal, secret_path
from lan_demon.net.replay import replay
from lan_demon.net.settings import Settings
from lan_demon.net.tokens import TokenStore

pytestmark = pytest.mark.timeout(60)

HOST = {"j": "host", "v": VERSION, "config": Settings("racko", players=2).to_data(),
        "port": 7700, "pub_port": 7701}
MATCH = {"j": "match", "game": "racko", "seed": 1, "players": ["Ann", "Bob"], "options": {},
         "rounds": None}
END = {"j": "match_end", "result": {}}


def seat(n: int, name: str) -> dict[str, Any]:
    return {"j": "seat", "seat": n, "name": name, "bot": False}


def write(path: Path, *records: dict[str, Any], mtime: float | None = None) -> Path:
    """A small journal of these records (chained, 0600, with its secrets file)."""
    writer = JournalWriter(path)
    for record in records:
        writer.write(record)
    writer.close()
    if mtime is not None:
        os.utime(path, (mtime, mtime))
    return path


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


# --- the state folder: 0700 from $XDG_STATE_HOME down, whatever the umask ----------------------


@pytest.mark.parametrize("umask", [0o022, 0o000])
def test_missing_state_folders_are_made_0700_whatever_the_umask(tmp_path, monkeypatch, umask):
    """A missing $XDG_STATE_HOME and its missing parents are the user's private state too; the
    folder above them that already existed keeps its mode."""
    tmp_path.chmod(0o755)
    state = tmp_path / "a" / "b"
    monkeypatch.setenv("XDG_STATE_HOME", str(state))
    old = os.umask(umask)
    try:
        store = TokenStore("tcp://127.0.0.1:7700", "Ann")
        claimed, _ = store.claim()
        store.release()
        held = journals.new_journal("racko")
        held.release()
    finally:
        os.umask(old)
    assert claimed
    for folder in (tmp_path / "a", state, state / "lan_demon", state / "lan_demon" / "tokens",
                   state / "lan_demon" / "journals"):
        assert mode(folder) == 0o700, folder
    assert mode(tmp_path) == 0o755  # it existed: not ours to change
    assert mode(held.path) == 0o600


def test_without_xdg_state_home_the_missing_local_state_folders_are_0700(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir(mode=0o751)
    home.chmod(0o751)
    monkeypatch.delenv("XDG_STATE_HOME")
    monkeypatch.setenv("HOME", str(home))
    old = os.umask(0o000)
    try:
        journals.new_journal("racko").release()
    finally:
        os.umask(old)
    assert [mode(home / p) for p in (".local", ".local/state", ".local/state/lan_demon",
                                     ".local/state/lan_demon/journals")] == [0o700] * 4
    assert mode(home) == 0o751


# --- names, unfinished, latest, the bound -----------------------------------------------------


def test_journal_names_say_the_table_and_time_and_two_in_one_second_differ(state_home):
    when = time.mktime((2025, 5, 14, 14, 2, 5, 0, 0, -1))
    first = journals.new_journal("racko", now=when)
    second = journals.new_journal("racko", now=when)
    lan = journals.new_journal("Kitchen table / Ann's", now=when)
    for held in (first, second, lan):
        held.release()
    folder = state_home / "lan_demon" / "journals"
    assert first.path == folder / "racko-2025-05-14-140205.journal"
    assert second.path == folder / "racko-2025-05-14-140205-2.journal"
    assert lan.path.name == "kitchen-table-ann-s-2025-05-14-140205.journal"


def test_unfinished_means_a_match_started_or_a_lobby_with_seats_and_no_match_end(state_home):
    folder = journals.folder()
    folder.mkdir(parents=True)
    write(folder / "empty-lobby.journal", HOST)
    write(folder / "lobby.journal", HOST, seat(0, "Ann"))
    write(folder / "lobby-left.journal", HOST, seat(0, "Ann"), {"j": "leave", "seat": 0})
    write(folder / "started.journal", HOST, seat(0, "Ann"), seat(1, "Bob"), MATCH)
    write(folder / "over.journal", HOST, seat(0, "Ann"), seat(1, "Bob"), MATCH, END)
    (folder / "damaged.journal").write_bytes(b"\xc1 not a journal")
    busy = journals.hold(write(folder / "busy.journal", HOST, seat(0, "Ann")))
    try:
        states = {f.path.stem: f.state for f in journals.survey()}
    finally:
        busy.release()
    assert states == {"empty-lobby": "finished", "lobby": "unfinished",
                      "lobby-left": "finished", "started": "unfinished", "over": "finished",
                      "damaged": "unreadable", "busy": "in use"}


def test_the_latest_unfinished_is_the_one_written_last(state_home):
    folder = journals.folder()
    folder.mkdir(parents=True)
    write(folder / "a.journal", HOST, seat(0, "Ann"), seat(1, "Bob"), MATCH, mtime=1000)
    write(folder / "b.journal", HOST, seat(0, "Cy"), mtime=3000)
    write(folder / "c.journal", HOST, seat(0, "Ann"), MATCH, END, mtime=4000)  # finished
    write(folder / "d.journal", HOST, seat(0, "Ann"), seat(1, "Bob"), MATCH,
          {"j": "round", "round": 0}, mtime=2000)
    latest = journals.latest_unfinished(journals.survey())
    assert latest.path == folder / "b.journal"
    assert journals.describe(latest.read) == "Rack-O, in the lobby (seated: Cy)"
    assert journals.describe(read_journal(folder / "d.journal")) == \
        "Rack-O (Ann, Bob), round 1 under way"


def test_old_finished_journals_are_kept_to_the_bound_never_an_unfinished_one(state_home):
    """The newest KEEP_FINISHED journals with nothing to resume stay, with their secrets files;
    older ones go; an unfinished, an unreadable or an in-use journal is never deleted."""
    folder = journals.folder()
    folder.mkdir(parents=True)
    keep = journals.KEEP_FINISHED
    finished = [write(folder / f"f{k:02}.journal", HOST, seat(0, "Ann"), MATCH, END,
                      mtime=10_000 + k) for k in range(keep + 3)]
    unfinished = write(folder / "old-unfinished.journal", HOST, seat(0, "Ann"), MATCH, mtime=1)
    damaged = folder / "damaged.journal"
    damaged.write_bytes(b"\xc1")
    os.utime(damaged, (1, 1))
    busy = journals.hold(write(folder / "busy.journal", HOST, mtime=2))
    for path in finished + [unfinished]:  # the browser seats' book beside each
        Path(str(path) + ".pages").write_text("{}")
    try:
        gone = journals.prune()
    finally:
        busy.release()
    assert sorted(gone) == finished[:3]
    for path in finished[:3]:
        assert not path.exists() and not secret_path(path).exists()
        assert not Path(str(path) + ".pages").exists()
    for path in finished[3:] + [unfinished, busy.path]:
        assert path.exists() and secret_path(path).exists(), path
    for path in finished[3:] + [unfinished]:
        assert Path(str(path) + ".pages").exists(), path
    assert damaged.exists()


# --- the command: host, host --resume, --no-journal -------------------------------------------


@pytest.fixture
def served(monkeypatch):
    """``lan-demon host`` in this process, its table 'served' at once (no match is played)."""
    from lan_demon.net import server as server_module
    monkeypatch.setattr(server_module.ArbiterServer, "serve",
                        lambda self, exit_when_over=True: {"game": "racko"})


def test_a_host_journals_to_the_state_folder_and_prunes_it_to_the_bound(state_home, served,
                                                                        capsys):
    folder = journals.folder()
    folder.mkdir(parents=True)
    keep = journals.KEEP_FINISHED
    old = [write(folder / f"old{k:02}.journal", HOST, MATCH, END, mtime=10_000 + k)
           for k in range(keep + 2)]
    assert main(["host", "--game", "racko", "--port", "0", "--json"]) == 0
    err = capsys.readouterr().err
    made = re.search(r"journaling the match to (\S+); if this host stops, 'lan-demon host "
                     r"--resume' takes it up again", err)
    assert made, err
    path = Path(made.group(1))
    assert path.parent == folder and re.fullmatch(r"racko-\d{4}-\d\d-\d\d-\d{6}\.journal",
                                                  path.name)
    assert mode(path) == 0o600 and mode(secret_path(path)) == 0o600
    assert read_journal(path).records[0]["j"] == "host"
    assert not old[0].exists() and not old[1].exists()
    assert all(p.exists() for p in old[2:])


def test_no_journal_writes_nothing_and_says_so(state_home, served, capsys):
    assert main(["host", "--game", "racko", "--port", "0", "--no-journal", "--json"]) == 0
    err = capsys.readouterr().err
    assert "this match is not journaled (--no-journal), so a host stopped mid-match cannot " \
        "take it up again" in err
    assert not journals.folder().exists() or not list(journals.folder().iterdir())


def test_an_explicit_journal_still_goes_where_it_is_told(tmp_path, state_home, served, capsys):
    journal = tmp_path / "tonight.journal"
    assert main(["host", "--game", "racko", "--port", "0", "--journal", str(journal),
                 "--json"]) == 0
    assert f"'lan-demon host --resume {journal}' takes it up again" in capsys.readouterr().err
    assert read_journal(journal).records[0]["j"] == "host" and mode(journal) == 0o600
    assert not journals.folder().exists() or not list(journals.folder().iterdir())


@pytest.mark.parametrize("argv, words", [
    (["--journal", "j", "--no-journal"], "--journal and --no-journal say opposite things"),
    (["--resume", "--no-journal"], "--no-journal conflicts with --resume"),
])
def test_journal_flags_that_contradict_get_one_line(state_home, capsys, argv, words):
    assert main(["host", "--port", "0", *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and words in err, err


def test_resume_alone_with_nothing_unfinished_is_one_line(state_home, capsys):
    assert main(["host", "--resume"]) == 2
    err = capsys.readouterr().err
    assert err == f"lan-demon: no unfinished match to resume in {journals.folder()} (it holds " \
        "no journal); give a journal elsewhere as --resume JOURNAL\n"
    folder = journals.folder()
    folder.mkdir(parents=True, exist_ok=True)
    write(folder / "over.journal", HOST, seat(0, "Ann"), MATCH, END)
    (folder / "damaged.journal").write_bytes(b"\xc1")
    assert main(["host", "--resume"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "(1 with nothing left to resume; 1 that cannot be read " \
        "(lan-demon verify FILE says why))" in err, err


def test_resume_refuses_a_journal_a_running_host_writes(state_home, capsys):
    from arbiter_harness import racko_journal
    folder = journals.folder()
    folder.mkdir(parents=True)
    path = racko_journal(folder / "live.journal")
    busy = journals.hold(path)
    try:
        before = path.read_bytes()
        assert main(["host", "--resume", str(path), "--port", "0"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "is the journal of a host that is still running" in err
        assert main(["host", "--resume"]) == 2  # alone: it is not taken either
        assert "(1 in use by a running host)" in capsys.readouterr().err
        assert path.read_bytes() == before
    finally:
        busy.release()


def test_the_stop_line_says_resume_alone_for_the_latest_unfinished_journal(state_home):
    """A host stopped mid-match with its journal in the folder: plain --resume takes it up when
    it is the latest unfinished one; otherwise the line names the journal."""
    from arbiter_harness import racko_journal
    from lan_demon.commands.serve import stopped_how
    folder = journals.folder()
    folder.mkdir(parents=True)
    mine = racko_journal(folder / "mine.journal")
    os.utime(mine, (5000, 5000))
    server = SimpleNamespace(arbiter=SimpleNamespace(phase="playing", seats=[1, 2]),
                             journal=SimpleNamespace(path=mine))
    held = journals.hold(mine)
    try:
        assert stopped_how(server) == " mid-match; 'lan-demon host --resume' brings it back, " \
            f"the players' seats with it, for 5 minutes (the latest unfinished match: {mine})"
        racko_journal(folder / "newer.journal")  # a crashed host's, written later
        assert stopped_how(server).startswith(f" mid-match; 'lan-demon host --resume {mine}' "
                                              "brings it back")
        lobby = SimpleNamespace(arbiter=SimpleNamespace(phase="lobby", seats=[1]), journal=None)
        assert stopped_how(lobby) == " with 1 seated in its lobby; it was not journaled, so " \
            "it cannot be resumed"
    finally:
        held.release()


# --- a real host, Ctrl-C mid-round, then `host --resume` alone --------------------------------

DEADLINE = 30.0


@pytest.mark.timeout(100)
def test_a_plain_host_stopped_with_ctrl_c_comes_back_with_resume_alone(tmp_path, state_home):
    """RK-4..RK-7 over a host stopped mid-round: a plain `lan-demon host` (no --journal)
    journals to the state folder (0600) and says where; Ctrl-C says `host --resume` brings it
    back; `host --resume` alone says which match it takes up, the bots come back by themselves,
    and the match's result is the journal's replay."""
    from lan_demon.bots.runner import make_bot, run_pool
    argv = ["host", "--port", "0", "--game", "racko", "--players", "2", "--seed", "8",
            "--countdown", "0", "--pause", "0", "--json"]
    hosts = [Host(tmp_path, argv, 0)]
    bots: list[Any] = []
    pool = None
    try:
        first = hosts[0].first_lines(2)
        port = re.match(r"lan-demon: hosting racko at 127\.0\.0\.1:(\d+) ", first[0]).group(1)
        journal = Path(re.match(r"lan-demon: journaling the match to (\S+); ", first[1])
                       .group(1))
        assert journal.parent == state_home / "lan_demon" / "journals"
        assert mode(journal) == 0o600 and mode(journal.parent) == 0o700
        bots = [make_bot(f"127.0.0.1:{port}", "greedy", f"bot{k}", k, "flat-out")
                for k in range(2)]

        # The bots themselves stop once 4 moves of a round are journaled (flat-out bots in
        # this process would otherwise race a starved test thread to the match's end), and
        # play on from the resumed host until the match ends.
        held = threading.Event()

        def play(stop: threading.Event) -> None:
            try:
                run_pool(bots, until=lambda: stop.is_set() or (moves_in_round(journal) or 0)
                         >= 4, timeout=80)
            finally:
                held.set()  # (on a failure too: the test thread stops waiting)
            run_pool(bots, until=stop.is_set, timeout=80)
        pool = BotThread(play)
        assert held.wait(timeout=DEADLINE) and not pool.failure, pool.failure
        assert hosts[0].popen.poll() is None
        hosts[0].popen.send_signal(signal.SIGINT)
        assert hosts[0].popen.wait(timeout=20) == 130
        said = hosts[0].err.read_text(encoding="utf-8")
        assert "lan-demon: host stopped mid-match; 'lan-demon host --resume' brings it back, " \
            f"the players' seats with it, for 5 minutes (the latest unfinished match: " \
            f"{journal})" in said, said
        hosts.append(Host(tmp_path, ["host", "--resume", "--json"], 1))
        again = hosts[1].first_lines(3)
        assert re.fullmatch(rf"lan-demon: resuming the match journaled until \d\d:\d\d in "
                            rf"{re.escape(str(journal))}: Rack-O \(bot0, bot1\), round \d+ "
                            r"under way", again[0]), again
        assert again[1].startswith(f"lan-demon: resumed racko at 127.0.0.1:{port} "), again
        assert again[2] == f"lan-demon: journaling the match to {journal}; if this host " \
            "stops, 'lan-demon host --resume' takes it up again"
        pool.finish(timeout=80)
        result = hosts[1].result()
    finally:
        stop_all(pool, hosts, bots)
    assert replay(journal).result == result
    assert [r["j"] for r in read_journal(journal).records].count("resumed") == 1
    assert journals.latest_unfinished(journals.survey()) is None  # it is finished now

