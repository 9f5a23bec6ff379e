"""The real ``lan-demon`` program in a real pseudo-terminal, its screen read by a terminal emulator.

``tui_harness`` drives the prompt_toolkit application in this process with a dummy output; here
the whole command runs as a child process on a pty (100×30, ``TERM=xterm-256color``), and
everything it writes is fed to a ``pyte`` screen. The tests wait on what that screen shows —
polling the pty with ``select`` against a deadline, never sleeping — press keys by writing bytes,
and check that quitting leaves the terminal as it was found (alternate screen left, cursor shown).
"""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from child_programs import COLS, ROWS, PtyProgram

pytestmark = pytest.mark.timeout(120)

ALT_SCREEN_ON, ALT_SCREEN_OFF = b"\x1b[?1049h", b"\x1b[?1049l"
CURSOR_HIDE, CURSOR_SHOW = b"\x1b[?25l", b"\x1b[?25h"
PLAY = [sys.executable, "-m", "lan_demon", "play", "--game", "racing-demon", "--bots", "3",
        "--seed", "4", "--rounds", "1", "--speed", "beginner"]


def pack_of(text: str) -> int:
    found = re.search(r"Pack (\d+)", text)
    assert found, f"no 'Pack NN' on the table:\n{text}"
    return int(found.group(1))


def test_play_lobby_table_keys_and_quit_restores_the_terminal() -> None:
    prog = PtyProgram(PLAY)
    try:
        lobby = prog.wait_for(lambda s: "Lobby" in s and s.count(" bot, level ") >= 3,
                              "the lobby with three bots")
        assert "Enter starts the match" in lobby
        assert "racing-demon" in lobby

        prog.press(b"\r")
        table = prog.wait_for(lambda s: "Stacks" in s and "Pile" in s and "Pack" in s,
                              "the table after Go")
        for bot in ("Ada", "Bea", "Cy"):
            assert bot in table, f"{bot} missing from the strip of other players:\n{table}"
        rows = table.split("\n")
        assert len(rows) == ROWS and all(len(r) <= COLS for r in rows)

        before = pack_of(table)
        prog.press(b" ")  # space turns the Pack three cards at a time (RD-9)
        prog.wait_for(lambda s: "Pack" in s and pack_of(s) != before,
                      f"the Pack figure change from {before}")

        prog.press(b"?")
        help_text = prog.wait_for(lambda s: "The rules in short" in s, "the help")
        assert "turn the Pack" in help_text and "vote stuck" in help_text
        prog.press(b"?")  # ? again closes it
        prog.wait_for(lambda s: "The rules in short" not in s and "Stacks" in s,
                      "the table again after closing the help")

        prog.press(b"q")  # during a match q asks first; any other key stays
        prog.wait_for(lambda s: "Leave the table?" in s, "the leave question")
        prog.press(b"n")
        prog.wait_for(lambda s: "Leave the table?" not in s and "Stacks" in s,
                      "the table again after staying")
        prog.press(b"q")
        prog.wait_for(lambda s: "Leave the table?" in s, "the leave question again")
        prog.press(b"y")
        status = prog.wait_exit()
        assert status == 0, f"exit status {status}; screen:\n{prog.text()}"
        raw = bytes(prog.raw)
        assert b"Traceback" not in raw
        entered = raw.rfind(ALT_SCREEN_ON)
        assert entered >= 0, "the table never entered the alternate screen"
        assert raw.rfind(ALT_SCREEN_OFF) > entered, "the alternate screen was not left"
        assert raw.rfind(CURSOR_SHOW) > raw.rfind(CURSOR_HIDE), "the cursor was left hidden"
    finally:
        prog.close()


def test_play_without_a_terminal_refuses_in_one_line() -> None:
    done = subprocess.run(PLAY, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("lan-demon: ") and "needs a terminal" in lines[0]
    assert "Traceback" not in done.stderr


def test_join_with_nobody_hosting_says_so_in_one_line() -> None:
    prog = PtyProgram([sys.executable, "-m", "lan_demon", "join", "127.0.0.1:1",
                       "--tries", "1"])
    try:
        status = prog.wait_exit(timeout=30)
        out = bytes(prog.raw).decode("utf-8", "replace")
        assert status == 2, out
        assert "Traceback" not in out
        lines = [ln for ln in out.replace("\r", "").splitlines() if ln.strip()]
        assert len(lines) == 1, out
        assert lines[0].startswith("lan-demon: no answer")
        assert "is the host running?" in lines[0]
        assert ALT_SCREEN_ON not in prog.raw  # it never opened the table
    finally:
        prog.close()
