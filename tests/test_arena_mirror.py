"""``lan-demon arena --mirror`` and the score difference: a seed replays the same report, the
rotations of a mirrored deal really play the same cards from every seat, the interval
arithmetic on numbers worked by hand, and one-line refusals."""

from __future__ import annotations

import copy
import math
import statistics

import pytest

from lan_demon.bots import arena, arena_report
from lan_demon.bots.arena import ArenaError, chunks, deal_of, run_arena
from lan_demon.bots.arena_report import (RoundOutcome, deal_differences, format_report,
                                         mean_interval, t975, t_within, table_differences,
                                         tally)
from lan_demon.games import get_game
from arena_cli import arena_json, run

pytestmark = pytest.mark.timeout(60)


# --- a seed replays the report ------------------------------------------------------------------


@pytest.mark.parametrize("mirror", [(), ("--mirror",)], ids=["plain", "mirrored"])
def test_a_seed_replays_the_same_report_byte_for_byte(capsys, mirror):
    argv = ("--game", "racing-demon", "--seats", "demon,greedy,greedy", "--rounds", "6",
            "--seed", "1130", "--jobs", "1", *mirror)
    code, first, err = run(capsys, *argv)
    assert code == 0 and err == ""
    assert run(capsys, *argv)[1] == first
    assert "score diff" in first and "diff 95% CI" in first
    code, other, _ = run(capsys, *argv[:7], "--seed", "1131", "--jobs", "1", *mirror)
    assert other != first  # the seed matters: the replay above could have failed


def test_jobs_1_and_jobs_2_give_the_same_mirrored_report(capsys, monkeypatch):
    """The pool shares the rounds out in chunks that cut through deals (chunks of 2 rounds,
    deals of 3); the report is the same all the same."""
    argv = ("--game", "racko", "--seats", "planner,greedy,random", "--rounds", "15",
            "--seed", "mirror-seed", "--mirror")
    assert any(a % 3 for a, _ in chunks(15, 2))  # some chunk starts in the middle of a deal
    pooled = []
    real_pool = arena._in_pool
    monkeypatch.setattr(arena, "_in_pool", lambda *a: pooled.append(a) or real_pool(*a))
    code, one, err = run(capsys, *argv, "--jobs", "1")
    assert code == 0 and not pooled
    code, two, err = run(capsys, *argv, "--jobs", "2")
    assert code == 0 and len(pooled) == 1
    assert one == two
    assert "over the 5 deals" in one


# --- the rotations of a deal --------------------------------------------------------------------


def spy_rounds(monkeypatch) -> list[dict]:
    """Every round the arena plays: its dealt state (copied before play), the round number the
    simulator's per-seat generators are drawn from, and the strategy in each seat."""
    seen: list[dict] = []
    real = arena.play_round

    def play_round(game, state, bots, seed, round_no, speeds=None):
        seen.append({"state": copy.deepcopy(state), "generators": round_no,
                     "seats": [b.name for b in bots]})
        return real(game, state, bots, seed, round_no, speeds)

    monkeypatch.setattr(arena, "play_round", play_round)
    return seen


@pytest.mark.parametrize("game", ["racing-demon", "racko"])
def test_mirrored_rotations_play_the_same_deal_with_each_strategy_in_each_seat(monkeypatch,
                                                                               game):
    seats = ["demon", "greedy", "random"] if game == "racing-demon" \
        else ["planner", "greedy", "random"]
    seen = spy_rounds(monkeypatch)
    report = run_arena(game, seats, 9, seed=5, jobs=1, mirror=True)
    assert report.deals == 3 and len(seen) == 9
    for deal in range(3):
        rotations = seen[3 * deal:3 * deal + 3]
        assert all(r["state"] == rotations[0]["state"] for r in rotations)  # the same cards
        assert {r["generators"] for r in rotations} == {deal}  # the same seat generators
        for s in range(3):  # each strategy sits at each position once in the deal
            assert sorted(r["seats"][s] for r in rotations) == sorted(seats)
    assert seen[0]["state"] != seen[3]["state"]  # the deals themselves differ


def test_plain_rounds_are_each_a_fresh_deal(monkeypatch):
    seen = spy_rounds(monkeypatch)
    report = run_arena("racing-demon", ["greedy", "random"], 4, seed=5, jobs=1)
    assert report.deals == 4
    assert [r["generators"] for r in seen] == [0, 1, 2, 3]
    assert seen[0]["state"] != seen[1]["state"]


def test_deal_numbers():
    assert [deal_of(r, 4, True) for r in range(9)] == [0, 0, 0, 0, 1, 1, 1, 1, 2]
    assert [deal_of(r, 4, False) for r in range(3)] == [0, 1, 2]


# --- the score difference and its interval ------------------------------------------------------


def rnd(round_no: int, deal: int, strategies: list[str], scores: list[int],
        played: list[bool] | None = None) -> RoundOutcome:
    n = len(strategies)
    return RoundOutcome(round_no=round_no, deal=deal, strategies=strategies, scores=scores,
                        wins=[s == max(scores) for s in scores], shared=False,
                        played=played or [True] * n, pile_left=[None] * n, stacked=[None] * n)


def test_table_difference_is_own_seats_minus_the_other_strategies_seats():
    assert table_differences(rnd(0, 0, ["a", "b", "b"], [10, 4, 6])) == {"a": 5.0, "b": -5.0}
    assert table_differences(rnd(0, 0, ["a", "b", "c"], [9, 3, 0])) == {
        "a": 9 - 1.5, "b": 3 - 4.5, "c": 0 - 6.0}
    assert table_differences(rnd(0, 0, ["a", "a"], [3, 7])) == {}  # no one else at the table
    # a seat that sat out counts for no one
    assert table_differences(rnd(0, 0, ["a", "b", "b"], [10, 4, 99],
                                 [True, True, False])) == {"a": 6.0, "b": -6.0}


def test_a_deals_rotations_are_averaged_before_the_interval():
    outcomes = [rnd(0, 0, ["a", "b"], [10, 4]), rnd(1, 0, ["b", "a"], [6, 8]),  # +6, +2
                rnd(2, 1, ["a", "b"], [1, 2]), rnd(3, 1, ["b", "a"], [5, 2]),   # -1, -3
                rnd(4, 2, ["a", "b"], [7, 7]), rnd(5, 2, ["b", "a"], [0, 4])]   # 0, +4
    units = deal_differences(reversed(outcomes))  # the order the pool hands them in is no matter
    assert units == {"a": [4.0, -2.0, 2.0], "b": [-4.0, 2.0, -2.0]}
    got = mean_interval(units["a"])
    # by hand: mean 4/3, s = sqrt(((8/3)² + (10/3)² + (2/3)²) / 2) = sqrt(28/3), t(2) = 4.303
    half = 4.302653 * math.sqrt(28 / 3) / math.sqrt(3)
    assert got.mean == pytest.approx(4 / 3) and got.units == 3
    assert got.low == pytest.approx(4 / 3 - half, abs=1e-5)
    assert got.high == pytest.approx(4 / 3 + half, abs=1e-5)
    report = tally(get_game("racko"), ["a", "b"], 0, outcomes, "engine", "x", mirror=True)
    assert report.deals == 3
    assert report.stats["a"].score_diff == got
    assert report.stats["b"].score_diff.mean == pytest.approx(-4 / 3)
    text = format_report(report)
    assert "+1.33" in text and "-1.33" in text
    assert "averaged over each deal's 2 rotations first" in text and "over the 3 deals" in text


def test_one_unit_has_a_mean_but_no_interval():
    assert mean_interval([]) is None
    one = mean_interval([2.5])
    assert (one.mean, one.low, one.high, one.units) == (2.5, None, None, 1)


@pytest.mark.parametrize("df, table", [(1, 12.7062), (2, 4.3027), (3, 3.1824), (4, 2.7764),
                                       (5, 2.5706), (7, 2.3646), (10, 2.2281), (30, 2.0423),
                                       (100, 1.9840), (1000, 1.9623)])
def test_t_quantile_against_the_printed_table(df, table):
    """Student's t, 0.975 quantile, from the usual printed table (4 places)."""
    assert t975(df) == pytest.approx(table, abs=6e-5)


def test_t_quantile_series_meets_the_exact_sum():
    """Above T_SERIES_FROM the quantile comes from a series; at the seam it agrees with the
    bisection of the exact P(|T| < t), and that bisection gives back 0.95."""
    df = arena_report.T_SERIES_FROM
    series = t975(df)
    assert t_within(series, df) == pytest.approx(0.95, abs=1e-10)
    assert t975(df - 1) > series > t975(df + 1) > 1.96


def test_t_distribution_on_known_values():
    """P(|T| < 1) is 1/2 with one degree of freedom (Cauchy), and 1/√2 with two
    (P(|T| < t) = t/√(2 + t²)); the normal's 0.95 as the degrees of freedom grow."""
    assert t_within(1.0, 1) == pytest.approx(0.5)
    assert t_within(1.0, 2) == pytest.approx(1 / math.sqrt(3))
    assert t_within(2.0, 2) == pytest.approx(2 / math.sqrt(6))
    assert t_within(1.959963984540054, 100_000) == pytest.approx(0.95, abs=1e-5)


def test_interval_is_mean_plus_minus_t_times_standard_error():
    values = [3.0, -1.0, 4.0, 1.0, 5.0, -9.0, 2.0, 6.0]
    got = mean_interval(values)
    half = t975(7) * statistics.stdev(values) / math.sqrt(8)
    assert (got.low, got.high) == (statistics.fmean(values) - half,
                                   statistics.fmean(values) + half)


def test_rg6_german_report_says_a_negative_difference_is_better(capsys):
    doc = arena_json(capsys, "--game", "racing-demon-german", "--seats", "greedy,random",
                     "--rounds", "4", "--seed", "2", "--jobs", "1", "--mirror")
    assert "penalties (RG-6): negative is better" in doc["score_diff_definition"]
    assert doc["mirror"] is True and doc["deals"] == 2
    diffs = {name: row["score_diff"]["mean"] for name, row in doc["strategies"].items()}
    assert diffs["greedy"] == pytest.approx(-diffs["random"])  # two strategies: opposite
    # with one seat each and one round per rotation, the difference re-adds from the means
    means = {name: row["mean_score"] for name, row in doc["strategies"].items()}
    assert diffs["greedy"] == pytest.approx(means["greedy"] - means["random"])


def test_plain_json_has_one_unit_per_round(capsys):
    doc = arena_json(capsys, "--game", "racko", "--seats", "greedy,random,greedy", "--rounds",
                     "5", "--seed", "3", "--jobs", "1")
    assert doc["mirror"] is False and doc["deals"] == 5
    assert "over the 5 rounds" in doc["score_diff_definition"]
    for row in doc["strategies"].values():
        assert row["score_diff"]["units"] == 5
        low, high = row["score_diff"]["ci95"]
        assert low <= row["score_diff"]["mean"] <= high


def test_a_table_of_one_strategy_has_no_difference(capsys):
    code, out, _ = run(capsys, "--game", "racko", "--seats", "greedy,greedy", "--rounds", "2",
                       "--seed", "1", "--jobs", "1", "--mirror")
    row = next(line for line in out.splitlines() if line.startswith("greedy"))
    assert code == 0 and row.split()[-2:] == ["–", "–"]
    doc = arena_json(capsys, "--game", "racko", "--seats", "greedy,greedy", "--rounds", "2",
                     "--seed", "1", "--jobs", "1", "--mirror")
    assert doc["strategies"]["greedy"]["score_diff"] is None


# --- refusals -----------------------------------------------------------------------------------


@pytest.mark.parametrize("argv, words", [
    (["--game", "racing-demon", "--seats", "demon,greedy,greedy,greedy", "--rounds", "10",
      "--mirror"], "--rounds must be a multiple of 4, not 10 (try 8 or 12)"),
    (["--game", "racko", "--seats", "planner,greedy,random", "--rounds", "2", "--mirror"],
     "a multiple of 3, not 2 (try 3)"),
    (["--game", "gin-solitaire", "--seats", "solver", "--rounds", "4", "--mirror"],
     "--mirror needs two seats or more"),
    (["--game", "racko", "--seats", "greedy,random", "--rounds", "2", "--mirror",
      "--network"], "--mirror is for the engine-only arena"),
], ids=["not-a-multiple", "fewer-than-the-seats", "one-seat", "network"])
def test_mirror_refusals_are_one_line_and_exit_2(capsys, argv, words):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.startswith("lan-demon: ") and err.count("\n") == 1, err
    assert "Traceback" not in err
    assert words in err, err


def test_library_refuses_a_mirror_it_cannot_play():
    with pytest.raises(ArenaError, match="multiple of 2"):
        run_arena("racko", ["greedy", "random"], 3, jobs=1, mirror=True)
    with pytest.raises(ArenaError, match="two seats"):
        run_arena("gin-solitaire", ["greedy"], 2, jobs=1, mirror=True)
