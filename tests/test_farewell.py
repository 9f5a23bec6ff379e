"""What `lan-demon join` prints once the table's screen closes, and how a tie reads.

A newcomer who pressed q y saw the terminal come back with nothing said: not whether the seat
was kept, nor how to take it back, and after the match the final scores went with the screen.
"""

from __future__ import annotations

import argparse
from types import SimpleNamespace

import pytest

from lan_demon.commands.join import farewell
from lan_demon.commands.results import format_table, winner_line
from lan_demon.net.score_sheet import ScoreSheet

pytestmark = pytest.mark.timeout(10)


def client(phase: str, result: dict | None = None, server_key: bytes | None = None) \
        -> SimpleNamespace:
    return SimpleNamespace(address="tcp://127.0.0.1:7742", table={"phase": phase, "result": result},
                           server_key=server_key)


def args(name: str = "Ann", spectate: bool = False) -> argparse.Namespace:
    return argparse.Namespace(name=name, spectate=spectate)


def test_leaving_a_match_says_the_seat_is_kept_and_how_to_take_it_back():
    said = farewell(client("playing"), args())
    assert said.startswith("You left the table at 127.0.0.1:7742; ")
    assert "kept for 5 minutes" in said
    assert said.endswith("as you left them:\n  lan-demon join 127.0.0.1:7742 --name Ann")


def test_leaving_while_the_host_does_not_answer_promises_nothing_it_cannot_keep():
    """The host was stopped with Ctrl-C; Ann left while her screen was reconnecting and was told
    her seat was kept, 'with your cards as you left them'."""
    said = farewell(client("playing"), args(), host_silent=True)
    assert said == "You left the table at 127.0.0.1:7742 while its host was not answering: it " \
        "may have been stopped. If it comes back within 5 minutes, this takes your seat back:" \
        "\n  lan-demon join 127.0.0.1:7742 --name Ann"


def test_a_name_with_a_space_is_quoted_so_the_command_can_be_pasted():
    assert "--name 'Aunt May'" in farewell(client("between"), args("Aunt May"))


def test_leaving_the_lobby_says_the_seat_is_given_up():
    said = farewell(client("lobby"), args())
    assert "before the match began" in said and "kept" not in said
    assert said.endswith("To sit down again:\n  lan-demon join 127.0.0.1:7742 --name Ann")


def test_a_spectator_is_told_they_stopped_watching():
    assert farewell(client("playing"), args(spectate=True)) == \
        "You stopped watching the table at 127.0.0.1:7742."


RESULT = {"game": "racing-demon", "seed": None, "totals": {"Ann": 30, "Bob": 30},
          "rounds": [{"scores": {"Ann": 30, "Bob": 30}}], "winner": ["Ann", "Bob"]}


def test_after_the_match_the_final_scores_stay_on_the_terminal():
    said = farewell(client("over", RESULT), args())
    assert said.splitlines()[0] == "The match at 127.0.0.1:7742 is over."
    assert said.endswith(format_table(RESULT))
    assert "total" in said and "30" in said


def test_a_tie_reads_as_a_tie():
    assert winner_line(["Ann"]) == "winner: Ann"
    assert winner_line(["Ann", "Bob"]) == "winners, tied: Ann and Bob"
    assert winner_line(["Ann", "Bob", "Cy"]) == "winners, tied: Ann, Bob and Cy"
    assert format_table(RESULT).splitlines()[-1] == "winners, tied: Ann and Bob"


def test_the_join_again_is_one_this_terminal_can_run_with_the_bell_as_it_was(monkeypatch,
                                                                              tmp_path):
    """A newcomer typed the printed `lan-demon join …` and got "command not found": the venv
    was not activated. The command names the program as it was called unless `lan-demon` on
    the PATH is that same program, and keeps --no-bell."""
    import os
    import sys
    from lan_demon.commands import join
    venv = tmp_path / "venv" / "bin"
    venv.mkdir(parents=True)
    (venv / "lan-demon").write_text("#!/bin/sh\n")
    (venv / "lan-demon").chmod(0o755)
    monkeypatch.setattr(sys, "argv", [str(venv / "lan-demon"), "join"])
    monkeypatch.setenv("PATH", "/nonexistent")
    quiet = argparse.Namespace(name="Ann", spectate=False, no_bell=True)
    assert farewell(client("playing"), quiet).endswith(
        f"\n  {venv}/lan-demon join 127.0.0.1:7742 --name Ann --no-bell")
    monkeypatch.setenv("PATH", f"{venv}{os.pathsep}/nonexistent")
    assert join.program() == "lan-demon"
    monkeypatch.setattr(sys, "argv", [os.path.join("x", "lan_demon", "__main__.py")])
    assert join.program() == f"{sys.executable} -m lan_demon"


def test_join_without_a_name_comes_back_as_the_seat_this_computer_took(state_home, capsys):
    """Without --name a person came back as "you" and was refused; with "ann" for "Ann" the
    same. The name a seat was taken with is kept with its token: it is used."""
    from lan_demon.commands.join import login_name, seat_name
    from lan_demon.net.tokens import TokenStore
    where = "tcp://127.0.0.1:7742"
    assert seat_name(None, where, False) == login_name()  # nothing kept: the login name
    TokenStore(where, "Ann").save("00000000deadbeef")
    assert seat_name(None, where, False) == "Ann"
    assert "back at 127.0.0.1:7742 as Ann" in capsys.readouterr().err
    assert seat_name("ann", where, False) == "Ann"
    assert seat_name("Bob", where, False) == "Bob"  # another name: another person
    assert seat_name(None, "tcp://127.0.0.1:7743", False) == login_name()  # another table
    assert seat_name(None, where, True) == login_name()  # watching takes no seat
    TokenStore(where, "Cy").save("00000000feedbeef")
    assert seat_name(None, where, False) == login_name()  # two: no guess
    assert login_name() and login_name()[0] == login_name()[0].upper()


def test_play_leaves_the_final_scores_in_the_terminal_like_join_and_host():
    """After `play`'s last round and q, the terminal came back empty, while join and host print the
    final table."""
    from lan_demon.commands.play import last_word
    said = last_word({"phase": "over", "result": RESULT}, ScoreSheet())
    assert said.startswith("The match is over.\n") and format_table(RESULT) in said
    two = ScoreSheet(results=[{"scores": [2, 1]}, {"scores": [0, 3]}])
    assert last_word({"phase": "between"}, two) == \
        "You left the table after 2 rounds; the match ended there."
    assert last_word({"phase": "playing"}, ScoreSheet()) == \
        "You left the table during round 1; the match ended there."  # not "after 0 rounds"
    seats = [{"name": "you", "bot": False}, {"name": "Ada L2", "bot": True}]
    one = ScoreSheet(results=[{"scores": [-13, 6]}])
    assert last_word({"phase": "between", "seats": seats}, one) \
        == "You left the table after 1 round; the match ended there. Totals: you -13, " \
           "Ada L2 6."  # (the standings must not go with the screen)
    assert "during round 1" in last_word({"phase": "countdown"}, ScoreSheet())
    assert last_word({"phase": "lobby"}, ScoreSheet()) == \
        "You left the table before the match began."


def test_a_host_stopped_mid_match_says_whether_it_can_be_resumed(tmp_path):
    """Ctrl-C on a plain host printed 'host stopped' while the players' screens waited for it to
    come back; a match without a journal never can."""
    from lan_demon.commands.serve import stopped_how
    plain = SimpleNamespace(arbiter=SimpleNamespace(phase="playing"), journal=None)
    assert stopped_how(plain) == " mid-match; it was not journaled, so it cannot be resumed"
    kept = SimpleNamespace(arbiter=SimpleNamespace(phase="between"),
                           journal=SimpleNamespace(path=tmp_path / "m.journal"))
    assert f"'lan-demon host --resume {tmp_path / 'm.journal'}' brings it back" in \
        stopped_how(kept)
    assert stopped_how(SimpleNamespace(arbiter=SimpleNamespace(phase="lobby"))) == ""


def test_at_an_encrypted_table_the_join_that_takes_the_seat_back_carries_its_key():
    """After leaving a --secure table, the printed join failed as printed ('the encrypted handshake
    failed — wrong key?'): it lacked --key. The key goes in, quoted for the shell (z85 has ')',
    '<', '&' …)."""
    key = b"4AQQ)I@^}[R@AA*a8Z[<gjqJ:&f@h3eL.bIq.Sbi"
    said = farewell(client("playing", server_key=key), args())
    assert said.endswith("\n  lan-demon join 127.0.0.1:7742 --name Ann --key "
                         "'4AQQ)I@^}[R@AA*a8Z[<gjqJ:&f@h3eL.bIq.Sbi'"), said
