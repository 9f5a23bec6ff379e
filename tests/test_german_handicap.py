"""RG-2: the German Pile stays 11 from deal to deal — RD-15 handicapping is off by
default in the German variant, and a host option turns it on (the Piles then move from 11, the
round's lowest penalty counting as its top scorer, the lowest running total as the leader)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from host_stand_in import HostStopped
from lan_demon.cli import main
from lan_demon.games import Match, RoundResult, get_game

pytestmark = pytest.mark.timeout(120)

RG = get_game("racing-demon-german")
RD = get_game("racing-demon")


def test_rg2_the_german_pile_stays_eleven_from_deal_to_deal():
    match = Match(RG, ["a", "b", "c"], seed=3)
    assert RG.default_options() == {"handicap": False}
    assert match.setup == {"pile_sizes": [11, 11, 11], "handicap": False}
    for scores in ([0, 4, 9], [7, 0, 2], [3, 3, 0]):
        match.record(RoundResult(scores, [{}] * 3))
        assert match.setup["pile_sizes"] == [11, 11, 11]
    assert [len(s.pile) for s in match.deal().seats] == [11, 11, 11]


def test_rg2_a_host_may_turn_german_handicapping_on_and_the_piles_move_from_eleven():
    match = Match(RG, ["a", "b", "c", "d"], seed=3, options={"handicap": True})
    assert match.setup["pile_sizes"] == [11] * 4 and match.setup["handicap"]
    match.record(RoundResult([0, 5, 9, 5], [{}] * 4))  # penalties: a lowest, c highest
    assert match.setup["pile_sizes"] == [12, 11, 10, 11]  # a is the round's top scorer
    match.record(RoundResult([6, 0, 1, 2], [{}] * 4))  # totals 6 5 10 7
    # round: b lowest (+1), a highest (−1); overall: b leads (+1), c last (−1)
    assert match.setup["pile_sizes"] == [11, 13, 9, 11]


def test_rg2_classic_racing_demon_still_handicaps_by_default():
    assert RD.default_options() == {"handicap": True}


def _simulate(capsys, *argv: str) -> dict[str, Any]:
    assert main(["simulate", "--json", "--players", "3", "--seed", "4", "--rounds", "5",
                 *argv]) == 0
    return json.loads(capsys.readouterr().out)


def _piles(doc: dict[str, Any]) -> list[list[int]]:
    return [[r["detail"][n]["pile_size"] for n in doc["players"]] for r in doc["rounds"]]


def test_rg2_simulate_deals_german_piles_of_eleven_unless_handicapping_is_asked(capsys):
    plain = _simulate(capsys, "--game", "racing-demon-german")
    assert _piles(plain) == [[11, 11, 11]] * 5
    assert all(not r["setup"]["handicap"] for r in plain["rounds"])
    moved = _simulate(capsys, "--game", "racing-demon-german", "--handicap")
    assert _piles(moved)[0] == [11, 11, 11] and _piles(moved) != [[11, 11, 11]] * 5
    classic = _simulate(capsys, "--game", "racing-demon", "--no-handicap")
    assert _piles(classic) == [[13, 13, 13]] * 5


def test_rg2_host_passes_handicap_to_the_match_and_refuses_it_elsewhere(host_configs, capsys):
    configs = host_configs
    for argv, want in ((["--handicap"], True), ([], False), (["--no-handicap"], False)):
        with pytest.raises(HostStopped):
            main(["host", "--port", "0", "--game", "racing-demon-german", *argv])
        assert configs[-1].options == {"handicap": want}  # the options in force, all of them
    capsys.readouterr()
    assert main(["host", "--port", "0", "--game", "racko", "--handicap"]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert "--handicap is a Racing Demon option (RD-15, RG-2)" in line
