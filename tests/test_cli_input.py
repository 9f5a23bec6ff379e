"""The command line as a person meets it: bad input is one line and a non-zero exit, output
piped into a reader that leaves early ends quietly, and the flags and help a person at the
table needs."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from host_stand_in import HostStopped
from table_settings import settings
from lan_demon.coach.demon import DemonCoach
from lan_demon.bots import strategy_names, strongest
from lan_demon.bots.speed import PROFILES
from lan_demon.cli import build_parser, main
from lan_demon.commands.play import PLAY_LEVEL, PLAY_SPEED
from lan_demon.games import GAME_IDS
from lan_demon.net.settings import PAUSE

pytestmark = pytest.mark.timeout(120)

HAND = ["2S", "3S", "4S", "5H", "6H", "7H", "8C", "9C", "KD"]  # nine cards, all different


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def one_line(capsys, *argv: str) -> str:
    """The command failed with exit 2 and said exactly one line on stderr, nothing on stdout."""
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == "", (code, out, err)
    assert err.count("\n") == 1 and err.startswith("lan-demon: "), err
    return err.strip()


def lan_demon(*argv: str, **kw: Any) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "lan_demon", *argv], text=True,
                          timeout=60, **kw)


# --- deadwood: GS-2/GS-3 hand sizes, one card once ----------------------------------------------


def test_gs5_the_same_card_written_two_ways_is_named_in_the_users_words(capsys):
    err = one_line(capsys, "deadwood", "10♦", *HAND[:8], "10D")
    assert err == "lan-demon: 10♦ and 10D are the same card"


def test_gs5_a_card_given_twice_is_named(capsys):
    assert one_line(capsys, "deadwood", "3S", *HAND) == "lan-demon: 3S is given twice"


@pytest.mark.parametrize("count", [3, 9, 12])
def test_gs2_a_hand_is_10_or_11_cards(capsys, count):
    cards = (HAND + ["QD", "JD", "TD", "AH"])[:count]
    err = one_line(capsys, "deadwood", *cards)
    assert f"10 cards, or 11 before its discard (GS-2, GS-3), not {count}" in err


def test_gs2_the_joker_is_never_in_a_hand(capsys):
    assert "JK is the Joker" in one_line(capsys, "deadwood", "JK", *HAND)


@pytest.mark.parametrize("hand", [HAND + ["QD"], HAND + ["QD", "JD"]])
def test_gs5_ten_and_eleven_cards_are_still_answered(capsys, hand):
    code, out, _ = run(capsys, "deadwood", *hand)
    assert code == 0 and "points:" in out


def test_deadwood_mistakes_are_one_line_without_a_traceback_from_the_real_command():
    for cards in (["10♦", *HAND[:8], "10D"], ["3S", *HAND], HAND + ["QD", "JD", "TD"]):
        done = lan_demon("deadwood", *cards, capture_output=True)
        assert done.returncode == 2 and done.stdout == ""
        assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr


# --- a reader that leaves early --------------------------------------------------------------------


@pytest.fixture
def journal(tmp_path: Path) -> Path:
    """A small real journal: a Rack-O table (fake clock, no sockets) whose first round began."""
    sys.path.insert(0, str(Path(__file__).parent))
    from arbiter_harness import racko_journal
    return racko_journal(tmp_path / "match.journal")


def piped_commands(journal: Path) -> list[list[str]]:
    return [["simulate", "--game", "racko", "--json"], ["replay", str(journal), "--json"],
            ["simulate", "--game", "racing-demon", "--rounds", "2"]]


def test_output_into_a_pipe_closed_before_it_is_written_ends_quietly(journal):
    """The reader is gone before the first byte (as `| head -0`, or head done early): every
    write fails with EPIPE, deterministically. No traceback, no message, exit 141 (SIGPIPE)."""
    for argv in piped_commands(journal):
        read_end, write_end = os.pipe()
        os.close(read_end)
        try:
            done = lan_demon(*argv, stdout=write_end, stderr=subprocess.PIPE)
        finally:
            os.close(write_end)
        assert done.stderr == "", (argv, done.stderr)
        assert done.returncode == 141, argv


def test_output_into_head_ends_quietly(journal):
    """As `lan-demon … --json | head -3`: read three lines, close the pipe, and the command
    ends either way it can (it wrote all before the close: 0; after: 141), silently."""
    for argv in piped_commands(journal):
        proc = subprocess.Popen([sys.executable, "-m", "lan_demon", *argv], text=True,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            assert proc.stdout is not None and proc.stderr is not None
            lines = [proc.stdout.readline() for _ in range(3)]
            proc.stdout.close()
            err = proc.stderr.read()
            code = proc.wait(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait(timeout=10)
        assert all(lines) and err == "" and code in (0, 141), (argv, code, err)


# --- bot --help: the real strategies and speeds -------------------------------------------------


def test_bot_help_lists_every_games_strategies_and_the_speeds(capsys):
    with pytest.raises(SystemExit) as done:
        main(["bot", "--help"])
    assert done.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    for game in GAME_IDS:
        names = [f"{n} (strongest)" if n == strongest(game) else n
                 for n in strategy_names(game)]
        assert f"{game}: {', '.join(names)}" in text
    for name in ("demon", "planner", "solver", "greedy", "random"):
        assert name in text
    assert ", ".join(PROFILES) in text


# --- play and host: --pause, --no-bell, --speed ------------------------------------------------


def parse(*argv: str) -> argparse.Namespace:
    return build_parser().parse_args(list(argv))


@pytest.mark.parametrize("command", ["play", "host"])
def test_pause_takes_seconds_or_none_and_defaults_to_60(command):
    from lan_demon.commands.options import pause_value
    assert PAUSE == 60
    assert pause_value(parse(command).pause) == 60.0
    assert pause_value(parse(command, "--pause", "12.5").pause) == 12.5
    assert pause_value(parse(command, "--pause", "0").pause) == 0.0
    assert pause_value(parse(command, "--pause", "none").pause) is None
    assert pause_value(parse(command, "--pause", "None").pause) is None


@pytest.mark.parametrize("command", ["play", "host"])
@pytest.mark.parametrize("value, words", [("-1", "0 seconds or more"), ("soon", "not a number"),
                                          ("inf", "0 seconds or more"),
                                          ("nan", "0 seconds or more")])
def test_a_bad_pause_is_one_line(capsys, command, value, words):
    assert words in one_line(capsys, command, "--pause", value)


def test_no_bell_for_play_and_join():
    assert parse("play", "--no-bell").no_bell and not parse("play").no_bell
    assert parse("join", "127.0.0.1:7700", "--no-bell").no_bell
    assert not parse("join", "127.0.0.1:7700").no_bell


def test_play_seats_newcomer_paced_bots_by_default_and_says_the_choices(capsys):
    """No --level: level 2, whose pace is newcomer's; --speed, unset, wins if given."""
    from lan_demon.bots.levels import DEFAULT_LEVEL, level
    args = parse("play")
    assert args.level is None and args.speed is None and PLAY_LEVEL == DEFAULT_LEVEL == 2
    assert level(PLAY_LEVEL).profile("racing-demon") == PROFILES[PLAY_SPEED] and \
        PLAY_SPEED == "newcomer"
    with pytest.raises(SystemExit):
        main(["play", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert ", ".join(PROFILES) in text and "level 2 is newcomer" in text and "default 2" in text
    err = one_line(capsys, "play", "--speed", "warp")
    assert err == f"lan-demon: unknown speed profile 'warp'; choose one of: {', '.join(PROFILES)}"


def test_newcomer_bots_are_slower_than_every_other_profile():
    slowest = max(PROFILES.values(), key=lambda p: p.median)
    assert slowest.name == "newcomer" and 2.0 <= slowest.median <= 4.0


class _Stop(Exception):
    """Raised by a stand-in where the real command would open the terminal table."""


def test_play_hands_pause_bell_and_its_local_table_on(monkeypatch):
    """The wiring only (the TUI is not run): start_local_table gets the pause and the speed,
    table_for gets bell=, local= and the speed names."""
    import lan_demon.commands.local_table as local_table
    import lan_demon.commands.prompts as prompts
    import lan_demon.net.client as client_mod
    import lan_demon.tui.app as app
    from lan_demon.commands.local_table import LEVEL_LABELS
    seen: dict[str, Any] = {}

    class FakeTable:
        address = "tcp://127.0.0.1:1"

        def add_bots(self, count: int) -> None:
            seen["bots"] = count

        def close(self) -> None:
            seen["closed"] = True

    class FakeClient:
        def __init__(self, address: str, name: str) -> None:
            seen["name"] = name

        def connect(self) -> FakeClient:
            return self

    def fake_start(game: str, seed: Any, rounds: Any, speed: str | None,
                   **kw: Any) -> FakeTable:
        seen.update(game=game, speed=speed, **kw)
        return table

    def fake_table_for(client: Any, **kw: Any) -> None:
        seen["table_for"] = kw
        raise _Stop

    table = FakeTable()
    monkeypatch.setattr(prompts, "need_terminal", lambda: None)
    monkeypatch.setattr(local_table, "start_local_table", fake_start)
    monkeypatch.setattr(app, "table_for", fake_table_for)
    monkeypatch.setattr(client_mod, "Client", FakeClient)
    with pytest.raises(_Stop):
        main(["play", "--pause", "none", "--no-bell", "--seed", "1", "--name", "Ann",
              "--no-web"])  # (no arbiter here to serve a page beside)
    assert seen["pause"] is None and seen["bots"] == 3
    assert (seen["level"], seen["speed"], seen["strategy"]) == (PLAY_LEVEL, None, None)
    assert seen["table_for"] == {"host": True, "bell": False, "local": table,
                                 "speeds": LEVEL_LABELS, "coach": DemonCoach,
                                 "big": False}  # --big not given
    assert seen["closed"]
    seen.clear()
    with pytest.raises(_Stop):
        main(["play", "--seed", "1", "--speed", "club", "--level", "9", "--no-web"])
    assert seen["pause"] == 60.0 and seen["speed"] == "club" and seen["level"] == 9
    assert seen["table_for"]["bell"] is True
    seen.clear()
    with pytest.raises(_Stop):  # Gin Solitaire seats no bots by default: v has nothing to set
        main(["play", "--seed", "1", "--game", "gin-solitaire", "--no-web"])
    assert seen["bots"] == 0 and seen["table_for"]["speeds"] == []


def test_host_hands_its_pause_to_the_arbiter(host_configs):
    """``host --pause none`` is the settings' pause None (no limit); no socket is bound here."""
    configs = host_configs
    for argv, want in ((["--pause", "none"], None), ([], 60.0), (["--pause", "5"], 5.0)):
        with pytest.raises(HostStopped):
            main(["host", "--port", "0", *argv])
        assert configs[-1].pause == want


def test_host_hands_its_rate_limit_to_the_arbiter(host_configs, capsys):
    """``host --rate-limit N``: N messages a second per connection, bursts of 2N; 0 turns the
    brake off; left out, the settings' own (which the help text names). A bad value is one line."""
    configs = host_configs
    default = settings("racing-demon")
    with pytest.raises(HostStopped):
        main(["host", "--port", "0"])
    assert (configs[-1].rate_limit, configs[-1].rate_burst) == \
        (default.rate_limit, default.rate_burst)
    help_text = " ".join(build_parser()._subparsers._group_actions[0].choices["host"]
                         .format_help().split())
    assert f"default {default.rate_limit:g}, bursts of {default.rate_burst:g}" in help_text
    for argv, want in ((["--rate-limit", "0"], (0.0, 0.0)),
                       (["--rate-limit", "100"], (100.0, 200.0))):
        with pytest.raises(HostStopped):
            main(["host", "--port", "0", *argv])
        assert (configs[-1].rate_limit, configs[-1].rate_burst) == want
    for bad in ("-1", "fast", "inf", "nan", "5", "99.9"):
        assert main(["host", "--port", "0", "--rate-limit", bad]) == 2
        (line,) = capsys.readouterr().err.splitlines()
        assert line.startswith("lan-demon: argument --rate-limit: "), line


def test_the_least_rate_limit_host_takes_still_seats_a_person_and_lets_them_play():
    """A brake so tight that a client's first second (hello, five clock-sync pings, ready) is
    refused looked to the player like "no answer — is the host running?": ``--rate-limit``
    takes 0 or at least MIN_RATE_LIMIT, and at that least a client connects at once, readies
    and plays a round's first moves without one ``rate_limited``."""
    from arbiter_harness import Table
    from lan_demon.commands.options import MIN_RATE_LIMIT
    table = Table(players=1, rate_limit=MIN_RATE_LIMIT, rate_burst=2 * MIN_RATE_LIMIT)
    table.seat(b"ann", "Ann")
    for _ in range(5):
        table.send(b"ann", "ping", c=table.now)
    table.send(b"ann", "ready")
    table.tick(table.now + 0.01)
    assert table.arbiter.phase == "playing"
    for _ in range(20):
        table.send(b"ann", "move", round=table.arbiter.match.round_no, move={"t": "turn"},
                   ts=table.now)
    errors = [m for m in table.inbox[b"ann"] if m.get("t") == "error"]
    assert not errors, errors  # no rate_limited, and the messages were right
    assert sum(m.get("t") == "ok" for m in table.inbox[b"ann"]) == 1  # ready
    assert len(table.updates("move")) == 20  # each move answered by its update (protocol 3)


def test_host_takes_a_flat_out_benchmark_table(host_configs):
    """What benchmarks/ needs from ``host``, as options: a match that outlasts any run, no
    fairness hold, no countdown, no pause, any free port, no RD-15 handicaps, no brake."""
    with pytest.raises(HostStopped):
        main(["host", "--port", "0", "--players", "4", "--rounds", "1000000", "--seed", "1",
              "--fairness-ms", "0", "--countdown", "0", "--pause", "0", "--no-handicap",
              "--rate-limit", "0"])
    config = host_configs[-1]
    assert (config.rounds, config.fairness_ms, config.countdown, config.pause) == \
        (1_000_000, 0.0, 0.0, 0.0)
    assert dict(config.options) == {"handicap": False} and config.rate_limit == 0
    assert config.players == 4 and config.seed == 1


def test_a_flat_out_benchmark_host_serves_on_any_free_port():
    """The same flags bind a real server on 127.0.0.1 (port 0: any free one) that takes
    seats; the arbiter is built with them (no error at construction)."""
    import subprocess
    import sys
    proc = subprocess.Popen([sys.executable, "-m", "lan_demon", "host", "--port", "0",
                             "--players", "2", "--rounds", "1000000", "--fairness-ms", "0",
                             "--countdown", "0", "--pause", "0", "--no-handicap",
                             "--rate-limit", "0", "--seed", "1"],
                            text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        assert first.startswith("lan-demon: hosting racing-demon at 127.0.0.1:"), first
        port = int(first.split("127.0.0.1:")[1].split()[0])
        assert port > 0
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_a_resumed_host_keeps_its_rate_limit(tmp_path, capsys):
    """The journal keeps the brake with every other setting (net/settings.py), so ``--resume``
    with another ``--rate-limit`` is a mistake said in one line, before anything is bound."""
    from lan_demon.net.arbiter import Arbiter
    from lan_demon.net.journal import JournalWriter
    path = tmp_path / "t.journal"
    writer = JournalWriter(path)
    Arbiter(settings("racko", rate_limit=200, rate_burst=400)).attach_journal(
        writer, {"port": 7700, "pub_port": 7701})
    writer.close()
    assert main(["host", "--resume", str(path), "--rate-limit", "0"]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line == "lan-demon: --rate-limit 0 conflicts with the journal's 200: a resumed " \
        "match keeps its settings; leave --rate-limit out", line
