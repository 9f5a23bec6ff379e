"""The whole human path, as friends at a table meet it: a plain ``lan-demon host`` (no
``--players``), two people who ``lan-demon join`` from their own terminals, a ``lan-demon bot``
and a spectator — every one a real process, the people and the spectator on real
pseudo-terminals read by a terminal emulator (``pyte``), 80×24.

Ann takes the first seat and so is the captain: she starts the match (confirming, as Bob is not
ready). Bob leaves mid-match with ``q`` and ``y``, and comes back by running ``join`` again
with no flag: his stored session token gives him the same seat. Ann and Bob play by
keys until someone goes out (RD-12), the
round-end scores show on every screen, both people say ready, the second round is played, and
the final scoreboard stays on every screen — no "reconnecting…" — after the host has gone.
The spectator's screen never shows a hidden card. Loopback only; every process is stopped.
"""

from __future__ import annotations

import re
import subprocess
import time
from pathlib import Path

import pytest

from child_programs import BANNER, LAN_DEMON, PtyProgram, child_env

pytestmark = pytest.mark.timeout(240)

COLS, ROWS = 80, 24
# What only a seat's own screen shows of its own cards: the Pack's count, the waste, the face-down
# mark (RD-3). (The RD-13 banner "… go back under their Pack, …" is public words, not a card.)
HIDDEN = re.compile(r"░|Pack \d+|waste")


class Terminal(PtyProgram):
    """A pty whose reads also drain every other open terminal of the test: a terminal nobody
    reads fills its pty buffer, and the program behind it blocks on its next write — as no
    real terminal would make it."""

    open: list[Terminal] = []

    def __init__(self, argv: list[str]):
        super().__init__(argv, cols=COLS, rows=ROWS)
        Terminal.open.append(self)

    def read(self, timeout: float) -> bool:
        for other in Terminal.open:
            if other is not self and not other.eof:
                PtyProgram.read(other, 0)
        return super().read(timeout)

    def close(self) -> None:
        if self in Terminal.open:
            Terminal.open.remove(self)
        super().close()


def join(port: int, *args: str) -> Terminal:
    return Terminal(LAN_DEMON + ["join", f"127.0.0.1:{port}", "--no-bell", *args])


def play_until(players: list[Terminal], done: str, timeout: float = 150.0) -> None:
    """The people play by keys as cautious players would — the Pile top, the waste top, a turn
    of the Pack, and a stuck vote (RD-13) — until the first one's screen shows ``done``.
    (Column keys are left out: moving a card from column to column and back is a play each
    time, and would clear everyone's stuck votes for ever; and a person who sits idle holds
    the table to RD-13's 60-second timeout, as at a real table.)"""
    deadline = time.monotonic() + timeout
    keys = [b"p", b"w", b" ", b"s"]
    turn = 0
    while done not in players[0].text():
        assert time.monotonic() < deadline, f"never reached {done!r}:\n{players[0].text()}"
        for prog in players:
            if "Stacks" in prog.text():
                prog.press(keys[turn % len(keys)])
        turn += 1
        players[0].read(0.05)


def fits(prog: Terminal) -> None:
    rows = prog.text().split("\n")
    assert len(rows) == ROWS and all(len(r) <= COLS for r in rows), prog.text()


@pytest.fixture
def table(tmp_path: Path):
    """A plain host on a free loopback port; yields (port, started programs); stops them all."""
    host = subprocess.Popen(LAN_DEMON + ["host", "--port", "0", "--game", "racing-demon",
                                         "--rounds", "2", "--countdown", "1", "--pause",
                                         "none", "--seed", "7"],
                            cwd=tmp_path, env=child_env(), text=True, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    started: list = [host]
    try:
        found = BANNER.match(host.stdout.readline())
        assert found, "the host did not say where it listens"
        yield int(found.group(3)), started
    finally:
        for proc in reversed(started):
            if isinstance(proc, PtyProgram):
                proc.close()
            elif proc.poll() is None:
                proc.kill()
                proc.wait(timeout=10)
        for proc in started:
            if isinstance(proc, subprocess.Popen):
                for stream in (proc.stdout, proc.stderr):
                    if stream is not None:
                        stream.close()


def test_friends_start_leave_come_back_and_keep_the_last_scoreboard(table) -> None:
    port, started = table
    ann = join(port, "--name", "Ann")
    started.append(ann)
    ann.wait_for(lambda s: "captain" in s and "Ann" in s, "Ann seated as the captain")
    bob = join(port, "--name", "Bob")
    started.append(bob)
    bob.wait_for(lambda s: "Bob" in s and "Ann" in s, "Bob in the lobby")
    lobby = bob.text()
    assert "Ann" in lobby and "captain" in lobby, lobby  # Bob sees whom he waits for
    bot = subprocess.Popen(LAN_DEMON + ["bot", f"127.0.0.1:{port}", "--name", "Cy",
                                        "--strategy", "demon", "--speed", "flat-out"],
                           env=child_env(), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE)
    started.append(bot)
    sam = join(port, "--spectate", "--name", "Sam")
    started.append(sam)
    sam.wait_for(lambda s: "Sam watching" in s, "the spectator's own name")
    ann.wait_for(lambda s: "Cy" in s and "Bob" in s, "every seat in Ann's lobby")

    # RD-4: the captain starts; Bob is not ready, so she is asked first.
    ann.press(b"\r")
    ann.wait_for(lambda s: "not ready" in s and "starts anyway" in s, "the confirm question")
    ann.press(b"y")
    ann.wait_for(lambda s: "Stacks" in s, "the table after Go")
    bob.wait_for(lambda s: "Stacks" in s or "is over" in s, "Bob's table after Go")
    fits(ann)

    # RD-12: both play by keys until someone goes out; the round-end scores show everywhere.
    play_until([ann, bob], "Round 1 of 2 is over")
    for prog in (ann, bob, sam):
        prog.wait_for(lambda s: "Round 1 of 2 is over" in s, "the round-end scores",
                      timeout=90)
        fits(prog)
    # (the OUT banner is held a moment before the scores: then the scores, and who waits)
    ann.wait_for(lambda s: "Cy" in s and ("next round" in s or "waiting" in s),
                 "the scores after the OUT banner")

    # q asks before it leaves; y leaves; the seat is kept. (Between rounds, where the table
    # waits for everyone — pause none —: mid-round, the flat-out Cy could end the round between
    # Bob's q and his y, and a round's end clears a question, so that a y meant for it lands
    # nowhere else.)
    bob.press(b"q")
    bob.wait_for(lambda s: "Leave the table?" in s and "5 minutes" in s, "the leave question")
    bob.press(b"y")
    assert bob.wait_exit(timeout=30) == 0, bob.text()
    assert b"Traceback" not in bytes(bob.raw)
    ann.wait_for(lambda s: "away" in s, "Bob shown away")

    # join again, no flag: the same seat, never "Bob (2)", no refusal, the scores still there.
    bob = join(port, "--name", "Bob")
    started.append(bob)
    bob.wait_for(lambda s: "Round 1 of 2 is over" in s, "Bob back at his seat")
    assert "Bob (2)" not in bob.text() and "refused" not in bob.text(), bob.text()
    assert " Bob " in bob.text().split("\n")[0], bob.text()

    # Both people say ready (pause none: the table waits for them), round 2 is played.
    ann.press(b"\r")
    bob.press(b"\r")
    ann.wait_for(lambda s: "Stacks" in s, "round 2 on Ann's screen")
    play_until([ann, bob], "Match over")
    for prog in (ann, bob, sam):
        prog.wait_for(lambda s: "Match over" in s, "the final scoreboard", timeout=60)

    # The host ends the match and goes; the last scoreboard stays, with no reconnecting.
    host = started[0]
    assert host.wait(timeout=60) == 0
    for prog in (ann, bob, sam):
        text = prog.wait_for(lambda s: "closed the table" in s, "the table closed",
                             timeout=30)
        assert "Match over" in text and "reconnecting" not in text, text
        assert "reconnecting" not in bytes(prog.raw).decode("utf-8", "replace")

    # The spectator never saw a hidden card.
    seen = bytes(sam.raw).decode("utf-8", "replace")
    shown = HIDDEN.search(seen)
    assert shown is None, \
        f"the spectator's screen showed {seen[shown.start() - 60:shown.end() + 20]!r}"

    for prog in (ann, bob, sam):
        prog.press(b"q")
        assert prog.wait_exit(timeout=30) == 0, prog.text()
        assert b"Traceback" not in bytes(prog.raw)
    assert bot.wait(timeout=30) == 0, bot.stderr.read().decode()
