"""Bot levels: ``--level 1..10`` for ``play``, ``host --bots`` and ``bot`` — each level a
registered strategy and a pace in every game, 1 slow and plain, 10 expert and strongest; bad
values one line and exit 2; the level seen in the lobby (tests/test_tui_table.py drives the
lobby's drawing; here a real table's bots)."""

from __future__ import annotations

import threading
from dataclasses import replace

import pytest

from net_harness import until
from table_settings import settings
from lan_demon.bots.levels import (DEFAULT_LEVEL, HIGHEST, LEVELS, LOWEST, Choice, bot_name,
                                   level)
from lan_demon.bots.registry import strategy_names, strongest
from lan_demon.bots.speed import PROFILES
from lan_demon.cli import main
from lan_demon.commands.local_table import LEVEL_LABELS, TableBots, start_local_table
from lan_demon.games import GAME_IDS, get_game
from lan_demon.net.client import Client
from lan_demon.net.server import ArbiterServer
from lan_demon.net.cells import cells
from lan_demon.tui.facts import split_level

pytestmark = pytest.mark.timeout(30)

FLAT_OUT = PROFILES["flat-out"]


# --- the table of levels -----------------------------------------------------------------------

def test_there_are_ten_levels_and_each_plays_a_registered_strategy_at_a_profile_in_every_game():
    assert sorted(LEVELS) == list(range(LOWEST, HIGHEST + 1)) == list(range(1, 11))
    for n, lv in LEVELS.items():
        assert lv.number == n and lv.words
        for game in GAME_IDS:
            assert lv.strategy(game) in strategy_names(game), (n, game)
            pace = lv.profile(game)
            assert pace.median > 0 and 0 <= pace.miss < 1
            if not get_game(game).races:  # turn-based: only a pause to think
                assert pace.notice == pace.miss == 0 and pace.median == lv.pace.median


def test_level_1_is_slower_and_plainer_than_level_10_in_every_game():
    one, ten = level(1), level(10)
    for game in GAME_IDS:
        slow, fast = one.profile(game), ten.profile(game)
        assert slow.median >= 5 * fast.median and slow.miss >= fast.miss
        assert one.strategy(game) == "greedy" and ten.strategy(game) == strongest(game) \
            and strongest(game) != "greedy"
    assert one.pace == PROFILES["newcomer"] and ten.pace == PROFILES["expert"]


def test_each_level_is_at_least_as_quick_and_as_attentive_as_the_one_below():
    paces = [LEVELS[n].pace for n in sorted(LEVELS)]
    for low, high in zip(paces, paces[1:]):
        assert high.median <= low.median and high.notice <= low.notice and high.miss <= low.miss
    assert len({(p.median, p.miss) for p in paces}) == 9  # 1 and 2 differ by strategy alone
    assert LEVELS[1].pace == LEVELS[2].pace and LEVELS[1].demon != LEVELS[2].demon


def test_the_strongest_is_asked_of_the_registry_when_the_level_is_used(monkeypatch):
    import lan_demon.bots.levels as levels
    monkeypatch.setattr(levels, "strongest", lambda game: "random")
    assert level(10).strategy("racko") == "random" and level(1).strategy("racko") == "greedy"


def test_rack_o_threshold_falls_back_to_greedy_until_it_is_registered(monkeypatch):
    import lan_demon.bots.levels as levels
    monkeypatch.setattr(levels, "strategy_names", lambda game: ["greedy", "planner", "random"])
    assert [level(n).strategy("racko") for n in (3, 4, 5)] == ["greedy"] * 3
    monkeypatch.setattr(levels, "strategy_names",
                        lambda game: ["greedy", "planner", "random", "threshold"])
    assert [level(n).strategy("racko") for n in (3, 4, 5)] == ["threshold"] * 3


def test_an_explicit_strategy_or_speed_wins_over_the_level():
    assert Choice(10, strategy="greedy").strategy_for("racko") == "greedy"
    assert Choice(10, strategy="greedy").pace_for("racing-demon") == PROFILES["expert"]
    assert Choice(1, speed="club").pace_for("racing-demon") == PROFILES["club"]
    assert Choice(1, speed="club").strategy_for("racing-demon") == "greedy"
    assert Choice().strategy_for("racko") == "greedy" and \
        Choice().pace_for("racko") == PROFILES["club"]  # no level: what `bot` always played


def test_a_level_in_a_name_survives_the_arbiters_name_limit_and_reads_back():
    """A bot's name is "Ada L7" on every screen: the mark always fits the arbiter's limit."""
    from lan_demon.net.names import NAME_CELLS, seat_name
    for n in LEVELS:
        name = bot_name("Bartholomew the Great", n)
        assert seat_name(name) == name and name.endswith(f" L{n}")
        assert cells(name) <= NAME_CELLS
        assert split_level(name) == (name.replace(f" L{n}", ""), n)
        assert split_level(name + " ²")[1] == n  # the arbiter's mark for a name taken
    assert bot_name("Ada", 7) == "Ada L7" and bot_name("🃏Bob🎉", 10) == "🃏Bob🎉 L10"
    assert split_level("Ada") == ("Ada", None)
    assert split_level("L7") == ("L7", None) and split_level("Al L11")[1] is None


# --- bad values: one line, exit 2 --------------------------------------------------------------

@pytest.mark.parametrize("command", ["play", "host", "bot"])
@pytest.mark.parametrize("value", ["0", "11", "x", "2.5", "-3", ""])
def test_a_bad_level_is_one_line_and_exit_2(capsys, command, value):
    assert main([command, "--level", value]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1, err
    assert err.startswith(f"lan-demon: argument --level: must be a whole number from 1 to 10, "
                          f"not {value!r}"), err


@pytest.mark.parametrize("argv, words", [
    (["--level", "3"], "--level sets the host's own bots; it goes with --bots N"),
    (["--bots", "2", "--resume", "nowhere.journal"], "--bots goes with a fresh table"),
    (["--bots", "5", "--players", "4"], "--bots 5 is more than the table's 4 seats"),
    (["--bots", "0"], "argument --bots: must be 1 or more, not 0"),
])
def test_host_refuses_a_level_or_bots_it_cannot_seat_in_one_line(capsys, argv, words):
    assert main(["host", "--port", "0", *argv]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and words in err, err


# --- bots at a real table -----------------------------------------------------------------------

def test_play_table_bots_play_their_level_and_v_changes_strategy_and_pace():
    """A real LocalTable: its bots sit down at level 3 with their names plain (the level can
    change), the lobby's ``v`` label moves them all to level 9 — pace and strategy."""
    table = start_local_table("racko", 5, speed=None, strategy=None, level=3, countdown=0)
    try:
        person = Client(table.address, name="Tess").connect()
        table.add_bots(2)
        until(lambda: len(table.bots) == 2, what="two bots seated")
        names = [b.client.name for b in table.bots]
        assert names == ["Ada", "Bea"]  # play's level changes with v: not in the name
        assert table.speed == "level 3" and table.speed in LEVEL_LABELS
        assert all(b.speed == level(3).profile("racko") for b in table.bots)
        assert table.level_of("Ada") == 3 and table.level_of("Tess") is None
        table.set_speed("level 9")
        assert table.level == 9 and table.describe() == \
            f"{level(9).words} — {strongest('racko')}, {level(9).pace.median:g} s to think"
        for bot in table.bots:
            assert bot.speed == level(9).profile("racko") and bot.speed.miss == 0
            assert bot.strategy.name == strongest("racko")
        person.close()
    finally:
        table.close()


def test_an_explicit_speed_at_play_holds_until_v_chooses_a_level():
    table = start_local_table("racing-demon", 5, speed="club", strategy=None, level=1,
                              countdown=0)
    try:
        person = Client(table.address, name="Tess").connect()
        table.add_bots(1)
        until(lambda: len(table.bots) == 1, what="a bot seated")
        (bot,) = table.bots
        assert bot.speed == PROFILES["club"] and bot.strategy.name == "greedy"
        table.set_speed("level 2")
        assert bot.speed == PROFILES["newcomer"] and bot.strategy.name == strongest(
            "racing-demon")
        person.close()
    finally:
        table.close()


def test_the_lobby_of_a_real_play_table_shows_each_bots_level():
    from lan_demon.tui.app import table_for
    from lan_demon.tui.style import text_of
    table = start_local_table("racing-demon", 5, speed=None, strategy=None, level=7,
                              countdown=0)
    try:
        person = Client(table.address, name="Tess").connect()
        table.add_bots(2)
        ctl = table_for(person, host=True, local=table, speeds=LEVEL_LABELS)
        until(lambda: (person.poll(0.01) or True) and len(ctl.seats) == 3, what="3 seats")
        text = text_of(ctl.render(80, 24))
        assert text.count("   bot, level 7 · ") == 2 and "Ada          bot" in text, text
        assert f"v/V bots' level: 7 of 10 — {level(7).words} — {strongest('racing-demon')}, " \
               f"a card every {level(7).pace.median:g} s" in text, text
        person.close()
    finally:
        table.close()


def test_host_bots_are_named_with_their_level_and_play_it(monkeypatch):
    """``host --bots``' helper at a real arbiter: every seat's name says its level, so a
    joiner's lobby shows it (tests/test_tui_table.py), and each bot plays that level."""
    import lan_demon.bots.levels as levels
    monkeypatch.setitem(levels.LEVELS, 6, replace(LEVELS[6], pace=FLAT_OUT))
    server = ArbiterServer(settings("racing-demon", players=2, rounds=1, seed=3,
                                  countdown=0), port=0).start()
    bots = TableBots(server.address, "t", Choice(6), mark=True)
    try:
        bots.add(2)
        until(lambda: len(bots.bots) == 2, what="two bots seated")
        assert [b.client.name for b in bots.bots] == ["Ada L6", "Bea L6"]
        assert all(b.speed is FLAT_OUT and b.strategy.name == level(6).strategy("racing-demon")
                   for b in bots.bots)
        until(lambda: all(b.done for b in bots.bots), what="the bots' match to end")
        seats = server.arbiter.seats
        assert [s.name for s in seats] == ["Ada L6", "Bea L6"]
    finally:
        bots.close()
        server.stop()


@pytest.mark.parametrize("secure", [[], ["--secure", "--code", "ABCD2345"]])
def test_host_with_bots_plays_a_whole_match_and_prints_the_level_in_the_result(
        monkeypatch, capsys, secure):
    """A bot-only match from start to result; on a --secure table with a room code the bots
    sit down with the host's key and the code like anyone."""
    import lan_demon.bots.levels as levels
    monkeypatch.setitem(levels.LEVELS, 10, replace(LEVELS[10], pace=FLAT_OUT))
    code = main(["host", "--port", "0", "--players", "2", "--bots", "2", "--level", "10",
                 "--rounds", "1", "--seed", "9", "--game", "racing-demon", "--countdown", "0",
                 *secure])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "Ada L10 (bot) took seat 1" in out and "winner: " in out, out  # the log marks bots
    assert "Ada L10 +" in out and " Ada L10 Bea L10" in out, out  # the same name everywhere
    assert f"seating 2 bots at level 10: {level(10).words} — {strongest('racing-demon')}, " \
           "a card every 0.001 s" in out


def test_the_bot_command_marks_its_name_with_its_level(monkeypatch, capsys):
    import lan_demon.bots.levels as levels
    monkeypatch.setitem(levels.LEVELS, 4, replace(LEVELS[4], pace=FLAT_OUT))
    server = ArbiterServer(settings("racing-demon", players=1, rounds=1, seed=2, countdown=0),
                           port=0).start()
    done: dict[str, int] = {}
    runner = threading.Thread(target=lambda: done.update(code=main(
        ["bot", server.address, "--level", "4", "--name", "Robo"])), daemon=True)
    try:
        runner.start()
        runner.join(timeout=20)
        assert done.get("code") == 0
        assert [s.name for s in server.arbiter.seats] == ["Robo L4"]
        assert "Robo L4: match over" in capsys.readouterr().out
    finally:
        server.stop()


def test_play_and_host_default_to_the_same_level():
    from lan_demon.commands.play import PLAY_LEVEL, PLAY_SPEED
    assert PLAY_LEVEL == DEFAULT_LEVEL and level(DEFAULT_LEVEL).pace.name == PLAY_SPEED


def test_the_table_shows_a_bots_name_whole_with_its_level_mark():
    """One rule on every screen: a bot's name with its level, "Ada L10", whole — the arbiter seats
    at most 12 cells, so no column cuts it to "Ada L1"."""
    from types import SimpleNamespace

    from lan_demon.seat.facts import SeatFacts
    facts = SimpleNamespace(seats=[{"name": "Ada L10", "bot": True},
                                   {"name": "Cal L7", "bot": False}])
    assert SeatFacts.name(facts, 0) == "Ada L10"
    assert SeatFacts.name(facts, 1) == "Cal L7"  # a person's name is theirs, mark or not
    assert SeatFacts.name(facts, 5) == "seat 5"
