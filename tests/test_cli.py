"""The ``lan-demon`` command: simulate, deal, deadwood, and one clear line for every mistake."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from lan_demon import __version__
from lan_demon.cli import main
from rule_book import next_piles, readd_demon

pytestmark = pytest.mark.timeout(120)


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def simulate_json(capsys, *argv: str) -> dict:
    code, out, err = run(capsys, "simulate", "--json", *argv)
    assert code == 0, err
    return json.loads(out)


# --- re-adding the JSON document from the rule book (tests/rule_book.py) ---------------------------


@pytest.mark.parametrize("players", [4, 7])
def test_rd14_rd15_simulated_racing_demon_re_adds(capsys, players):
    doc = simulate_json(capsys, "--game", "racing-demon", "--players", str(players),
                        "--seed", "11")
    names = doc["players"]
    assert doc["game"] == "racing-demon" and doc["seed"] == 11 and len(doc["rounds"]) == 5
    piles = [13] * players
    totals = [0] * players
    for k, rnd in enumerate(doc["rounds"]):
        scores = [rnd["scores"][n] for n in names]
        for n in names:
            assert rnd["scores"][n] == readd_demon(rnd["detail"][n])
        assert [rnd["detail"][n]["pile_size"] for n in names] == piles
        totals = [t + s for t, s in zip(totals, scores)]
        piles = next_piles(piles, scores, totals, first=k == 0)
    assert [doc["totals"][n] for n in names] == totals
    assert doc["winner"] == [n for n in names if doc["totals"][n] == max(totals)]


def test_rg6_rg7_simulated_german_re_adds(capsys):
    doc = simulate_json(capsys, "--game", "racing-demon-german", "--players", "4", "--seed", "5",
                        "--rounds", "6")
    names = doc["players"]
    assert len(doc["rounds"]) == 6
    piles = [11] * 4  # RG-2: 11, and it stays 11 (no handicap unless the host asks)
    totals = [0] * 4
    for k, rnd in enumerate(doc["rounds"]):
        for n in names:
            d = rnd["detail"][n]
            assert rnd["scores"][n] == d["pile_left"] and set(d) == {"pile_size", "pile_left",
                                                                     "out"}
        assert [rnd["detail"][n]["pile_size"] for n in names] == piles
        scores = [rnd["scores"][n] for n in names]
        totals = [t + s for t, s in zip(totals, scores)]
    assert doc["winner"] == [n for n in names if doc["totals"][n] == min(totals)]  # RG-7


def test_rk6_rk7_simulated_racko_re_adds_and_ends_at_500(capsys):
    doc = simulate_json(capsys, "--game", "racko", "--players", "3", "--seed", "2")
    names = doc["players"]
    for rnd in doc["rounds"]:
        assert sum(rnd["detail"][n]["racko"] for n in names) == 1
        for n in names:
            d = rnd["detail"][n]
            prefix = 1
            while prefix < 10 and d["rack"][prefix] > d["rack"][prefix - 1]:
                prefix += 1
            assert rnd["scores"][n] == 25 * d["racko"] + 5 * prefix
    totals = doc["totals"]
    assert max(totals.values()) >= 500  # RK-7: played to its natural end
    before = {n: totals[n] - doc["rounds"][-1]["scores"][n] for n in names}
    assert max(before.values()) < 500
    assert doc["winner"] == [n for n in names if totals[n] == max(totals.values())]


def test_gs7_gs8_simulated_gin_solitaire_re_adds_and_ends_at_100(capsys):
    doc = simulate_json(capsys, "--game", "gin-solitaire", "--seed", "4")
    (name,) = doc["players"]
    for rnd in doc["rounds"]:
        d = rnd["detail"][name]
        c, dw = d["count"], d["deadwood"]
        expect = {"gin": (25 + c, 0), "big-gin": (31 + c, 0), "joker": (0, dw),
                  "knock": (c - dw, 0) if c >= dw else (0, 25 + dw - c)}[d["result"]]
        assert (d["player"], d["joker"]) == expect
        assert rnd["scores"] == {name: d["player"], "Joker": d["joker"]}
    assert max(doc["totals"].values()) >= 100  # GS-8
    assert len(doc["winner"]) == 1


def test_simulate_prints_a_readable_table(capsys):
    code, out, _ = run(capsys, "simulate", "--game", "racing-demon", "--players", "3",
                       "--rounds", "2", "--seed", "1")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "racing-demon · seed 1"
    assert lines[1].split() == ["round", "greedy-1", "greedy-2", "greedy-3"]
    assert lines[3].split()[0] == "1" and lines[-2].startswith("total")
    assert lines[-1].startswith("winner: ")


# --- deal and deadwood -----------------------------------------------------------------------------


def test_deal_applies_moves_and_shows_the_view_and_legal_moves(capsys):
    code, out, err = run(capsys, "deal", "--game", "racko", "--players", "2", "--seed", "3",
                         "--moves", "draw; discard")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["view"]["game"] == "racko" and isinstance(doc["legal"], list)


def test_deadwood_prints_melds_and_points(capsys):
    code, out, _ = run(capsys, "deadwood", "AS", "2S", "3S", "7H", "7D", "7C", "KD", "QD",
                       "JD", "5C")
    assert code == 0
    assert "points:   5" in out and out.count("meld:") == 3


# --- bad input: one line, non-zero, no traceback ---------------------------------------------------


@pytest.mark.parametrize("argv, words", [
    (["simulate", "--game", "snap"], "unknown game 'snap'"),
    (["simulate", "--game", "racko", "--players", "7"], "RK-1"),
    (["simulate", "--game", "racing-demon-german", "--players", "1"], "RG-1"),
    (["simulate", "--game", "racing-demon-german", "--rounds", "3"], "RG-7"),
    (["simulate", "--game", "racko", "--strategy", "genius"], "unknown strategy 'genius'"),
    (["simulate", "--game", "racko", "--players", "0"], "must be 1 or more"),
    (["simulate", "--game", "racko", "--strategy", "random"], "seat at least one greedy"),
    (["simulate", "--game", "racko", "--strategy", "greedy,random,greedy"], "3 strategies"),
    (["simulate", "--game", "racko", "--speed", "warp"], "unknown speed profile"),
    (["simulate", "--game", "racko", "--bogus"], "unrecognized arguments"),
    (["join", "127.0.0.1:7700", "--nmae", "Ann"], "(see 'lan-demon join --help')"),
    (["play", "--bogus"], "unrecognized arguments: --bogus (see 'lan-demon play --help')"),
    (["simulate"], "required: --game"),
    (["deadwood", "QS", "1X"], "not a card: '1X'"),
    (["deal", "--game", "racing-demon", "--moves", "pile to the moon"], "not a move"),
    (["deal", "--game", "racing-demon", "--moves", "c1 s99"], "RD-5"),
    (["deal", "--game", "racing-demon", "--moves", "turn; c1 s99"],  # which one failed
     "move 2, 'c1 s99' by seat 0: RD-5"),
    (["deal", "--game", "racko", "--seat", "9"], "--seat"),
])
def test_bad_input_gets_one_clear_line(capsys, argv, words):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("lan-demon: ")
    assert words in err


def test_version_help_and_module_entry_point():
    out = subprocess.run([sys.executable, "-m", "lan_demon", "--version"], capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0 and out.stdout.strip() == f"lan-demon {__version__}"
    helped = subprocess.run([sys.executable, "-m", "lan_demon", "--help"], capture_output=True,
                            text=True, timeout=60)
    assert helped.returncode == 0 and "simulate" in helped.stdout
    bad = subprocess.run([sys.executable, "-m", "lan_demon", "simulate", "--game", "snap"],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr


def test_play_names_the_strategies_when_asked_for_an_unknown_one(capsys):
    """Checked before anything starts (no terminal needed to be told)."""
    assert main(["play", "--game", "racko", "--strategy", "demon"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["lan-demon: unknown strategy 'demon' for racko; choose one of: greedy, "
                   "planner, random, threshold"]


def test_play_seats_the_strongest_bots_by_default():
    from lan_demon.bots import make_strategy, strongest
    for game in ("racing-demon", "racing-demon-german", "racko", "gin-solitaire"):
        assert make_strategy(game, strongest(game)).name != "greedy"


def test_a_pasted_key_that_begins_with_a_dash_is_read_as_the_key(capsys):
    """A z85 key begins with '-' about one time in 85; pasted after --key, argparse took it
    for an option ("argument --key: expected one argument"). It is the key: here `join`
    gets past the key's check to the next one (a terminal), in one line."""
    from zmq.utils import z85
    key = z85.encode((63 * 85**4 + 12345678).to_bytes(4, "big") + bytes(range(100, 128)))
    key = key.decode()  # "-k8-nwmY…": not a negative number, which argparse lets through
    assert key.startswith("-k") and len(key) == 40
    code, out, err = run(capsys, "join", "127.0.0.1:9", "--key", key)
    assert code == 2 and "expected one argument" not in err and "--key" not in err, err
    assert len(err.strip().splitlines()) == 1
    code, out, err = run(capsys, "join", "127.0.0.1:9", "--key", "-" + key[1:-1])  # 39
    assert code == 2 and "--key" in err and len(err.strip().splitlines()) == 1
