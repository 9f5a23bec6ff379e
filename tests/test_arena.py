"""``lan-demon arena``: seeded rounds, figures that re-add from the rounds, clear refusals, and a
short ``--network`` run that leaves nothing running.

Only the ``greedy`` and ``random`` strategies are used: they exist for every game.
"""

from __future__ import annotations

import io
import math
import threading
from functools import partial

import pytest

from lan_demon.bots import arena
from lan_demon.bots.arena import (ArenaError, Progress, chunks, play_one, round_winners, run_arena,
                             run_network, seating)
from lan_demon.bots.arena_report import Z95, wilson
from lan_demon.games import RoundResult, get_game
from lan_demon.bots.simulator import simulate
from arena_cli import arena_json as any_arena_json
from arena_cli import run

pytestmark = pytest.mark.timeout(60)

#: The arena's JSON document, and nothing on stderr (no progress bar, nothing else).
arena_json = partial(any_arena_json, quiet=True)


# --- reproducible -------------------------------------------------------------------------------


def test_the_same_seed_gives_the_same_report(capsys):
    argv = ("--game", "racing-demon", "--seats", "greedy,random,greedy", "--rounds", "6",
            "--seed", "21", "--jobs", "1")
    first = arena_json(capsys, *argv)
    assert arena_json(capsys, *argv) == first
    assert first["seed"] == 21 and first["rounds"] == 6 and first["mode"] == "engine"
    assert first["seats"] == ["greedy", "random", "greedy"]
    assert list(first["strategies"]) == ["greedy", "random"]
    other = arena_json(capsys, *argv[:-4], "--seed", "22", "--jobs", "1")
    assert other["strategies"] != first["strategies"]


@pytest.mark.parametrize("game, seats", [("racing-demon", "greedy,random,greedy,random"),
                                         ("racko", "greedy,random,greedy")])
def test_jobs_1_and_jobs_2_give_identical_reports(capsys, monkeypatch, game, seats):
    """Round i depends on (seed, i, seats) only, never on the workers or their order."""
    argv = ("--game", game, "--seats", seats, "--rounds", "16", "--seed", "string-seed")
    assert len(chunks(16, 2)) > 2  # the pool really shares the rounds out
    pooled = []
    real_pool = arena._in_pool
    monkeypatch.setattr(arena, "_in_pool", lambda *a: pooled.append(a) or real_pool(*a))
    one = arena_json(capsys, *argv, "--jobs", "1")
    assert not pooled
    two = arena_json(capsys, *argv, "--jobs", "2")
    assert len(pooled) == 1
    assert one == two
    assert sum(s["seat_rounds"] for s in one["strategies"].values()) == 16 * len(seats.split(","))


def test_chunks_cover_every_round_once():
    for rounds, jobs in [(1, 1), (7, 2), (100, 3), (1000, 2)]:
        covered = [r for a, b in chunks(rounds, jobs) for r in range(a, b)]
        assert covered == list(range(rounds))


# --- figures ------------------------------------------------------------------------------------


@pytest.mark.parametrize("wins, n, low, high", [
    # Newcombe (1998), "Two-sided confidence intervals for the single proportion", Table I,
    # method 3 (Wilson score, no continuity correction), to 4 places
    (81, 263, 0.2553, 0.3662),
    (15, 148, 0.0624, 0.1605),
    (0, 20, 0.0, 0.1611),  # not [0, 0], as the textbook (Wald) interval says
    (1, 29, 0.0061, 0.1718),
    (29, 29, 0.8830, 1.0),
])
def test_wilson_interval_on_known_numbers(wins, n, low, high):
    got = wilson(wins, n)
    assert got[0] == pytest.approx(low, abs=5e-5) and got[1] == pytest.approx(high, abs=5e-5)


def test_wilson_interval_is_its_defining_equation():
    """The Wilson bounds are the p for which |p̂ − p| = z·sqrt(p(1 − p)/n)."""
    z = Z95
    for wins, n in [(3, 17), (40, 41), (500, 1000)]:
        for p in wilson(wins, n):
            assert abs(wins / n - p) == pytest.approx(z * math.sqrt(p * (1 - p) / n))
    assert wilson(0, 0) == (0.0, 1.0)


def test_rd14_round_zero_agrees_with_simulate_and_the_means_re_add(capsys):
    """Round 0 of an arena is round 0 of a simulated match with the same seed and seats (no
    rotation yet): its Pile left, stacked and RD-14 scores are that round's, averaged."""
    seats = ["greedy", "random", "greedy"]
    doc = arena_json(capsys, "--game", "racing-demon", "--seats", ",".join(seats),
                     "--rounds", "1", "--seed", "7")
    rnd = simulate("racing-demon", 3, 7, 1, seats).match.rounds[0]
    for name in ("greedy", "random"):
        mine = [k for k, s in enumerate(seats) if s == name]
        row = doc["strategies"][name]
        assert row["seat_rounds"] == len(mine)
        for key, part in (("mean_pile_left", "pile_left"), ("mean_stacked", "stacked")):
            assert row[key] == pytest.approx(sum(rnd.detail[k][part] for k in mine) / len(mine))
        readd = [d["stacked"] + 5 * d["kings"] + 10 * d["out"] - d["pile_left"]
                 for d in (rnd.detail[k] for k in mine)]
        assert row["mean_score"] == pytest.approx(sum(readd) / len(mine))
        top = max(rnd.scores)  # RD-17: the highest score wins the round
        assert row["wins"] == sum(rnd.scores[k] == top for k in mine)


def test_rd14_means_re_add_over_many_rounds():
    """Mean score = mean stacked + 5·kings + 10·out − mean Pile left, per strategy."""
    game = get_game("racing-demon")
    seats = ["greedy", "random"]
    outcomes = [play_one(game, seats, 3, i) for i in range(8)]
    report = run_arena("racing-demon", seats, 8, seed=3, jobs=1)
    for name, stats in report.stats.items():
        rows = [(o.scores[s], o.pile_left[s], o.stacked[s], o.wins[s])
                for o in outcomes for s in range(2) if o.strategies[s] == name]
        assert stats.seat_rounds == len(rows) == 8
        assert stats.score_sum == sum(r[0] for r in rows)
        assert stats.pile_left_sum == sum(r[1] for r in rows)
        assert stats.stacked_sum == sum(r[2] for r in rows)
        assert stats.wins == sum(r[3] for r in rows)


def test_rg6_german_penalty_is_the_pile_left_and_there_is_no_stacked(capsys):
    doc = arena_json(capsys, "--game", "racing-demon-german", "--seats", "greedy,random",
                     "--rounds", "6", "--seed", "1")
    for row in doc["strategies"].values():
        assert row["mean_score"] == pytest.approx(row["mean_pile_left"])  # RG-6
        assert "mean_stacked" not in row
    assert sum(r["wins"] for r in doc["strategies"].values()) >= 6  # a winner every round


def test_rotation_puts_every_strategy_in_every_seat():
    seats = ["greedy", "random", "random"]
    assert seating(seats, 0) == seats
    assert seating(seats, 1) == ["random", "random", "greedy"]
    where = {(s, name) for turn in range(3) for s, name in enumerate(seating(seats, turn))}
    assert {s for s, name in where if name == "greedy"} == {0, 1, 2}


def test_rd17_rk7_rg7_a_shared_round_win_counts_for_each():
    flat = [{}, {}, {}]
    rd = round_winners(get_game("racing-demon"), RoundResult([10, 10, 3], flat), 3)
    assert rd == [True, True, False]  # RD-17: highest wins; ties share
    rk = round_winners(get_game("racko"), RoundResult([75, 20, 75], flat), 3)
    assert rk == [True, False, True]  # RK-7 Decision: equal highest share the win
    rg = round_winners(get_game("racing-demon-german"), RoundResult([0, 4, 0], flat), 3)
    assert rg == [True, False, True]  # RG-7: lowest penalty wins


def test_gs7_beating_the_joker_means_more_points_than_it():
    """GS-7: a seat beats its Joker with more points than it; a 0–0 knock (C = deadwood) is
    no win; GS-9: two seats, sides [player 0, player 1, Joker 0, Joker 1]."""
    game = get_game("gin-solitaire")
    assert round_winners(game, RoundResult([12, 0], [{}, {}]), 1) == [True]
    assert round_winners(game, RoundResult([0, 32], [{}, {}]), 1) == [False]
    assert round_winners(game, RoundResult([0, 0], [{}, {}]), 1) == [False]
    assert round_winners(game, RoundResult([25, 0, 0, 9], [{}] * 4), 2) == [True, False]


def test_gs7_gin_arena_counts_rounds_won_against_the_joker(capsys):
    doc = arena_json(capsys, "--game", "gin-solitaire", "--seats", "greedy,random",
                     "--rounds", "5", "--seed", "4")
    assert doc["win"] == "beat the Joker"
    game = get_game("gin-solitaire")
    rounds = [play_one(game, ["greedy", "random"], 4, i) for i in range(5)]
    for name, row in doc["strategies"].items():
        assert row["seat_rounds"] == 5
        assert row["wins"] == sum(o.wins[s] for o in rounds for s in range(2)
                                  if o.strategies[s] == name)


def test_human_table_has_one_row_per_strategy(capsys):
    code, out, err = run(capsys, "--game", "racing-demon", "--seats", "greedy,random,greedy",
                         "--rounds", "3", "--jobs", "1")
    assert code == 0 and err == ""
    lines = out.splitlines()
    head = next(line for line in lines if line.startswith("strategy"))
    assert "pile left" in head and "stacked" in head and "95% CI" in head
    assert [line.split()[0] for line in lines[lines.index(head) + 2:]
            if line.split()[0] in ("greedy", "random")] == ["greedy", "random"]


# --- the progress bar ---------------------------------------------------------------------------


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar_redraws_one_line_on_a_terminal_and_is_silent_elsewhere():
    tty = Tty()
    bar = Progress(4, "arena racko", tty)
    for done in (0, 2, 2, 4):
        bar.update(done)
    bar.close()
    text = tty.getvalue()
    assert text.count("\r") == 3 and text.endswith("4/4 rounds\n") and text.count("\n") == 1
    piped = io.StringIO()
    quiet = Progress(4, "arena racko", piped)
    quiet.update(2)
    quiet.close()
    assert piped.getvalue() == ""


# --- bad input ----------------------------------------------------------------------------------


@pytest.mark.parametrize("argv, words", [
    (["--game", "snap", "--seats", "greedy", "--rounds", "1"], "unknown game 'snap'"),
    (["--game", "racko", "--seats", "greedy,wizard", "--rounds", "1"],
     "unknown strategy 'wizard' for racko; choose one of: "),
    (["--game", "racko", "--seats", "greedy", "--rounds", "1"], "RK-1: Rack-O is for 2 to 4"),
    (["--game", "racing-demon-german", "--seats", "greedy", "--rounds", "1"], "2 to 8"),
    (["--game", "gin-solitaire", "--seats", ",".join(["greedy"] * 9), "--rounds", "1"],
     "GS-1: Gin Solitaire is for 1 to 8 players, not 9"),
    (["--game", "racko", "--seats", "greedy,random", "--rounds", "0"], "--rounds"),
    (["--game", "racko", "--seats", "greedy,random", "--rounds", "2", "--jobs", "0"],
     "--jobs: must be 1 or more, not 0"),
    (["--game", "racko", "--seats", "greedy,random", "--rounds", "x"], "not a whole number"),
    (["--game", "racko", "--seats", "greedy,,random", "--rounds", "2"], "--seats"),
    (["--game", "racko", "--seats", "random,random", "--rounds", "2"], "RK-5"),
    (["--game", "racko", "--seats", "greedy,random", "--rounds", "2", "--network",
      "--jobs", "2"], "--jobs"),
    (["--game", "racko", "--rounds", "2"], "--seats"),
], ids=["unknown-game", "unknown-strategy", "rk1-one-seat", "rg1-one-seat", "gs1-nine-seats",
        "rounds-0", "jobs-0", "rounds-not-a-number", "empty-seat", "rk5-all-random",
        "network-with-jobs", "no-seats"])
def test_bad_input_gets_one_clear_line_and_exit_2(capsys, argv, words):
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert err.startswith("lan-demon: ") and err.count("\n") == 1, err
    assert "Traceback" not in err
    assert words in err, err


def test_unknown_strategy_lists_the_games_strategies(capsys):
    code, _, err = run(capsys, "--game", "gin-solitaire", "--seats", "wizard", "--rounds", "1")
    assert code == 2
    from lan_demon.bots import strategy_names
    assert ", ".join(strategy_names("gin-solitaire")) in err


def test_library_refuses_jobs_0_and_rounds_0():
    with pytest.raises(ArenaError, match="--jobs"):
        run_arena("racko", ["greedy", "random"], 2, jobs=0)
    with pytest.raises(ArenaError, match="--rounds"):
        run_arena("racko", ["greedy", "random"], 0)


# --- through a real arbiter ---------------------------------------------------------------------


@pytest.fixture
def started(monkeypatch):
    """Every arbiter and bot process the network arena starts, to check afterwards that they
    are stopped."""
    from lan_demon.bots import arena
    from lan_demon.net import server as net_server
    seen: dict[str, list] = {"servers": [], "bots": []}
    real_start, real_spawn = net_server.ArbiterServer.start, arena.spawn_bot

    def start(self):
        seen["servers"].append(self)
        return real_start(self)

    def spawn_bot(*args, **kwargs):
        proc = real_spawn(*args, **kwargs)
        seen["bots"].append(proc)
        return proc

    monkeypatch.setattr(net_server.ArbiterServer, "start", start)
    monkeypatch.setattr(arena, "spawn_bot", spawn_bot)
    return seen


def assert_all_stopped(seen: dict[str, list], threads_before: set[threading.Thread]) -> None:
    assert seen["servers"], "no arbiter was started"
    for server in seen["servers"]:
        assert server._thread is None and server.router.closed and server.pub.closed
        assert server.context.closed
    for proc in seen["bots"]:
        assert proc.returncode is not None  # ended and reaped
    assert {t for t in threading.enumerate() if t.is_alive()} <= threads_before


@pytest.mark.timeout(90)
def test_rk6_network_arena_plays_racko_through_an_arbiter_and_stops_it(capsys, started):
    """Two greedy bots, two rounds of Rack-O through a real arbiter on 127.0.0.1: RK-6 gives
    the one Rack-O of a round 75, so each round has exactly one winner."""
    before = set(threading.enumerate())
    doc = arena_json(capsys, "--game", "racko", "--seats", "greedy,greedy", "--rounds", "2",
                     "--network", "--seed", "3")
    assert doc["mode"] == "network" and doc["rounds"] == 2 and doc["matches"] >= 1
    row = doc["strategies"]["greedy"]
    assert row["seat_rounds"] == 4 and row["wins"] == 2
    assert all(server.address.startswith("tcp://127.0.0.1:") for server in started["servers"])
    assert len(started["bots"]) == 2 * doc["matches"]
    assert_all_stopped(started, before)


@pytest.mark.timeout(90)
def test_network_arena_stops_everything_on_an_error(started, monkeypatch):
    """The second bot process cannot start: the arbiter and the first bot are stopped all the
    same, and the error is one clear GameError."""
    from lan_demon.bots import arena
    before = set(threading.enumerate())
    recording = arena.spawn_bot

    def second_fails(*args, **kwargs):
        if started["bots"]:
            raise ArenaError("no bot process (made up by the test)")
        return recording(*args, **kwargs)

    monkeypatch.setattr(arena, "spawn_bot", second_fails)
    with pytest.raises(ArenaError):
        run_network("racko", ["greedy", "random"], 2, seed=1)
    assert len(started["bots"]) == 1
    assert_all_stopped(started, before)


@pytest.mark.timeout(90)
def test_network_arena_says_so_when_a_bot_process_dies(started, monkeypatch):
    """A bot process that ends before its match (here: it is given a strategy it does not
    know) is one line naming what it said, and the rest is stopped."""
    from lan_demon.bots import arena
    before = set(threading.enumerate())
    recording = arena.spawn_bot
    monkeypatch.setattr(arena, "spawn_bot",
                        lambda port, strategy, name, seed: recording(port, "nope", name, seed))
    with pytest.raises(ArenaError, match="a bot process ended before its Rack-O match did: "
                                         "lan-demon: unknown strategy 'nope'"):
        run_network("racko", ["greedy", "random"], 2, seed=1)
    assert_all_stopped(started, before)


@pytest.mark.timeout(90)
def test_network_arena_stops_everything_on_ctrl_c(started):
    """Ctrl-C in the middle of the match (here: from the progress callback) stops it all."""
    before = set(threading.enumerate())

    class Interrupting(Progress):
        def update(self, done: int) -> None:
            if done >= 1:
                raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_network("racing-demon", ["greedy", "greedy"], 3, seed=2,
                    progress=Interrupting(3, "x", io.StringIO()))
    assert_all_stopped(started, before)


MY_BOT = '''
from lan_demon.bots import Bot


class PileFirst(Bot):
    game = ("racing-demon", "racing-demon-german")

    def next_move(self, view, legal):
        plays = [m for m in legal if str(m).startswith("pile s")]
        return plays[0] if plays else ("turn" if any(str(m) == "turn" for m in legal) else None)


class Broken(Bot):
    game = "racing-demon"

    def next_move(self, view, legal):
        return 1 / 0
'''


def test_rd5_a_bot_authors_own_file_takes_a_seat_in_the_arena(capsys, tmp_path):
    """Found by a bot author: `arena --seats mybot.py,greedy` was refused ('unknown strategy')
    and nothing said how to measure a bot of one's own. A file names its bot class after a
    colon; its errors are one line saying where the author's code raised."""
    path = tmp_path / "mybot.py"
    path.write_text(MY_BOT)
    argv = ("--game", "racing-demon", "--rounds", "6", "--seed", "2", "--jobs", "1")
    report = arena_json(capsys, "--seats", f"{path}:PileFirst,greedy", *argv)
    assert report["strategies"][f"{path}:PileFirst"]["seat_rounds"] == 6, report
    assert report["note"].endswith("; every seat at the club speed")  # (speed decides races)
    code, out, err = run(capsys, "--seats", f"{path},greedy", *argv)  # two classes: which?
    assert code == 2 and "name the class after a colon (its bot classes: Broken, PileFirst)" \
        in err and "Traceback" not in err
    code, out, err = run(capsys, "--seats", f"{path}:Broken,greedy", *argv)
    assert code == 2 and "raised ZeroDivisionError: division by zero (at " in err, err
    assert f"{path}:" in err and "in next_move)" in err and "Traceback" not in err
    code, out, err = run(capsys, "--seats", "nobot.py,greedy", *argv)
    assert code == 2 and "no bot file 'nobot.py'" in err
    code, out, err = run(capsys, "--seats", "mybot,greedy", *argv)
    assert code == 2 and "or a bot of your own: mybot.py[:Class]" in err
