"""The score sheet keeps per-round results only; the totals now and after any kept round are
worked out from them, whole even when the oldest rounds were let go."""

from __future__ import annotations

import pytest

from copy_link import RecordingLink
from lan_demon.net.score_sheet import ScoreSheet
from lan_demon.net.table_copy import TableCopy

pytestmark = pytest.mark.timeout(10)

ROUNDS = [{"scores": [3, -2]}, {"scores": [1, 4]}, {"scores": [0, 5]}, {"scores": [2, 2]}]


def test_totals_after_each_round_are_the_sums_of_the_rounds_so_far():
    sheet = ScoreSheet()
    assert sheet.totals() == []
    for result in ROUNDS:
        sheet.add(result)
    assert [sheet.totals_after(k) for k in sheet.rounds] == [[3, -2], [4, 2], [4, 7], [6, 9]]
    assert sheet.totals() == [6, 9]


def test_a_short_sheet_carries_the_rounds_it_let_go():
    short, whole = ScoreSheet(keep=2), ScoreSheet()
    for result in ROUNDS:
        short.add(result)
        whole.add(result)
        assert short.totals() == whole.totals()
    assert short.rounds == range(2, 4) and short.carried == [4, 2]
    assert short.totals_after(2) == [4, 7] and short.result(3) == {"scores": [2, 2]}


def test_a_snapshot_s_results_start_the_sheet_again():
    sheet = ScoreSheet(keep=1)
    sheet.add({"scores": [9, 9]})
    sheet.restart(ROUNDS)
    assert sheet.first == 3 and sheet.totals() == [6, 9] and sheet.totals_after(2) == [4, 7]


def test_played_counts_the_rounds_let_go():
    short = ScoreSheet(keep=2)
    assert short.played == 0
    for result in ROUNDS:
        short.add(result)
    assert short.played == 4 and len(short.results) == 2


def test_a_table_copy_keeps_the_results_in_its_sheet_only():
    """The snapshot's results and totals go to the sheet, and a round's end adds to it: the
    table dict holds no second list that could fall behind the sheet."""
    copy = TableCopy(RecordingLink())  # type: ignore[arg-type]
    copy.on_snap({"table": {"phase": "between", "results": ROUNDS[:2], "totals": [4, 2]},
                  "seq": 1})
    assert copy.scores.totals() == [4, 2]
    copy.apply({"seq": 2, "k": "round_end", "result": ROUNDS[2], "totals": [4, 7], "next": None,
                "round": 2}, None)
    assert copy.scores.totals() == [4, 7] and copy.scores.played == 3
    assert not {"results", "results_from", "totals"} & set(copy.table)
