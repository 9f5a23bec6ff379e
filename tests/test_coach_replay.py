"""``lan-demon replay JOURNAL --coach --seat NAME``: the coach's review of each Racing
Demon round from a journal a short in-process match wrote, the race it lost named with the ms
the arbiter told it (RD-11), and one line with exit 2 for a seat or journal it cannot review."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from coach_match import host_match
from lan_demon.cli import main
from lan_demon.coach.journal import journal_reviews
from lan_demon.net.journal import JournalWriter, read_journal

pytestmark = pytest.mark.timeout(60)


@pytest.fixture(scope="module")
def hosted(tmp_path_factory):
    path = tmp_path_factory.mktemp("coach") / "match.journal"
    match = host_match(path, seed=14)
    assert match.table.arbiter.phase == "over"  # the one round was played to its end
    return path, match


def test_rd11_replay_coach_prints_the_review_and_the_race_lost_with_its_ms(hosted, capsys):
    path, match = hosted
    (beaten,) = match.beaten  # what Ann's screen was told during the match
    assert beaten["ms"] == 4 and beaten["by"] == 1
    assert main(["replay", str(path), "--coach", "--seat", "Ann"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Round 1\n  Coach: Ann's round in review\n")
    top = beaten["top"][0].replace("T", "10") + {"S": "♠", "H": "♥", "D": "♦",
                                                  "C": "♣"}[beaten["top"][1]]
    assert f"Races lost (1): Bob beat you to the {top} stack by 4\u00a0ms" in out  # journaled
    assert "Plays missed or made late (" in out and "Best missed move: at " in out
    assert "From the journal:" in out  # what the journal could not tell is said


def test_replay_coach_json_holds_the_same_review(hosted, capsys):
    path, _ = hosted
    assert main(["replay", str(path), "--coach", "--seat", "ann", "--json"]) == 0
    (doc,) = json.loads(capsys.readouterr().out)
    assert doc["round"] == 1 and doc["finished"] and doc["seat"] == "Ann"
    assert doc["races"][0]["by"] == "Bob" and doc["races"][0]["ms"] == 4
    assert doc["races"][0]["exact"]  # the arbiter's own figure, journaled with the refusal
    assert len(doc["missed"]) == len(journal_reviews(path, "Ann")[0].review.missed) > 0


def test_the_journal_and_the_live_views_give_the_same_missed_plays(hosted):
    """The journal's review sees what the seat saw: fed the views the table showed Ann during
    the match, the coach finds the same missed cards, within a tenth of a second."""
    from lan_demon.coach.demon import DemonCoach
    path, match = hosted
    live = DemonCoach("racing-demon", 0, ["Ann", "Bob"], start=match.go)
    for at, view in match.views:
        live.see(at, view)
    mine = {(m.card, m.target): m.seconds for m in live.review().missed}
    journal = {(m.card, m.target): m.seconds
               for m in journal_reviews(path, "Ann")[0].review.missed}
    assert mine.keys() == journal.keys() and mine
    assert all(abs(mine[k] - journal[k]) <= 0.11 for k in mine)


@pytest.mark.parametrize("argv, words", [
    (["--coach", "--seat", "Zed"], "no seat called 'Zed' in this journal; its players: Ann, Bob"),
    (["--coach"], "--coach needs --seat NAME"),
    (["--seat", "Ann"], "add --coach"),
])
def test_a_seat_the_coach_cannot_review_gets_one_line_and_exit_2(hosted, capsys, argv, words):
    path, _ = hosted
    assert main(["replay", str(path), *argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    assert words in captured.err and "Traceback" not in captured.err


def test_a_journal_of_another_game_gets_one_line_and_exit_2(tmp_path, capsys):
    from arbiter_harness import racko_journal
    path = racko_journal(tmp_path / "racko.journal")
    assert main(["replay", str(path), "--coach", "--seat", "Ann"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "the coach reviews Racing Demon rounds" in err


def test_replay_without_coach_is_as_before(hosted, capsys):
    path, _ = hosted
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    assert "round 1:" in out and "Coach" not in out


def test_the_german_variant_is_reviewed_too(tmp_path, capsys):
    path = Path(tmp_path) / "german.journal"
    match = host_match(path, seed=1, game="racing-demon-german", steps=400)
    assert match.beaten and main(["replay", str(path), "--coach", "--seat", "Ann"]) == 0
    out = capsys.readouterr().out
    assert "Round 1" in out and "Races lost (1): Bob beat you to the A♠ stack by 4" in out


def test_rd11_an_older_journal_without_the_races_ms_gets_it_worked_out_again(hosted, tmp_path,
                                                                               capsys):
    """Journals written before a beaten move's record held ``ms`` and ``top``: the review
    works the figure out again from the claimed times, and marks it ~."""
    path, match = hosted
    old = Path(tmp_path) / "old.journal"
    records = read_journal(path).records
    for record in records:
        if record.get("j") == "refused":
            record.pop("ms", None)
            record.pop("top", None)
    writer = JournalWriter(old)
    for record in records:
        record.pop("prev", None)
        writer.write(record)  # chained anew, as an older host wrote it
    writer.close()
    assert main(["replay", str(old), "--coach", "--seat", "Ann"]) == 0
    assert "stack by ~4\u00a0ms" in capsys.readouterr().out
