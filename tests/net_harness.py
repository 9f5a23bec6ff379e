"""Running a program of ours as a process at a live table, beside lan_demon bots."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

from lan_demon.net.bots import leave_and_close, make_bot, run_pool


def play_beside_bots(argv: list[str], server: Any, context: Any, bots: int = 2,
                     timeout: float = 60) -> tuple[int, str, str]:
    """Start ``python argv…`` (it joins the table by itself), seat ``bots`` greedy flat-out
    bots beside it, play the match out, and return the program's exit code, stdout, stderr.
    The process is killed and the bots leave, whatever happens."""
    proc = subprocess.Popen([sys.executable, *argv], env={**os.environ, "PYTHONUNBUFFERED": "1"},
                            text=True, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    seated = []
    try:
        seated = [make_bot(server.address, "greedy", f"bot{i}", seed=i, speed="flat-out",
                           context=context) for i in range(bots)]
        run_pool(seated, timeout=timeout)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
        for bot in seated:
            leave_and_close(bot.client)
    return proc.returncode, out, err
