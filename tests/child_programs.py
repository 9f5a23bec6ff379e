"""The real ``lan-demon`` program run as a child process: its command line and environment, the
banner a host prints first, a host whose output goes to files read while it runs, and a
pseudo-terminal whose screen a terminal emulator (``pyte``) reads. Both are read against a
deadline: the pty is polled with ``select``, the files looked at again every 10 ms."""

from __future__ import annotations

import fcntl
import json
import os
import re
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path
from typing import Any, Callable

import pyte
import pytest

LAN_DEMON = [sys.executable, "-m", "lan_demon"]
BANNER = re.compile(r"^lan-demon: hosting (\S+) at (127\.0\.0\.1):(\d+) \(updates on port (\d+)\)")
COLS, ROWS = 100, 30  # a pty's size unless a test asks for another
HOST_DEADLINE = 30.0  # seconds for a host to say where it listens


def child_env() -> dict[str, str]:
    """The environment of a child program: this process's as it is now — so the test's own
    state folder (conftest's state_home, set after import) is the child's too — and output in
    UTF-8, line by line."""
    return {**os.environ, "PYTHONIOENCODING": "utf-8", "PYTHONUNBUFFERED": "1"}


class Host:
    """One ``lan-demon host`` process, its output in files (read while it runs)."""

    def __init__(self, workdir: Path, argv: list[str], number: int):
        self.out = workdir / f"host{number}.out"
        self.err = workdir / f"host{number}.err"
        with open(self.out, "w") as out, open(self.err, "w") as err:
            self.popen = subprocess.Popen(LAN_DEMON + argv, cwd=workdir, env=child_env(),
                                          stdin=subprocess.DEVNULL, stdout=out, stderr=err)

    def first_line(self) -> str:
        return self.first_lines(1)[0]

    def first_lines(self, count: int) -> list[str]:
        deadline = time.monotonic() + HOST_DEADLINE
        while time.monotonic() < deadline:
            text = self.err.read_text(encoding="utf-8")
            if text.count("\n") >= count:
                return text.split("\n")[:count]
            if self.popen.poll() is not None:
                break
            time.sleep(0.01)  # polling the file, with a deadline
        self.kill()
        pytest.fail(f"the host wrote no {count} lines:\n{self.err.read_text(encoding='utf-8')}")

    def kill(self) -> None:
        if self.popen.poll() is None:
            self.popen.kill()  # SIGKILL
        self.popen.wait(timeout=10)

    def result(self) -> Any:
        """The match's result the host printed (``--json``), once it has ended with exit 0."""
        assert self.popen.wait(timeout=30) == 0, self.err.read_text()
        return json.loads(self.out.read_text(encoding="utf-8"))


class PtyProgram:
    """A child process whose stdin, stdout and stderr are one pseudo-terminal."""

    def __init__(self, argv: list[str], cols: int = COLS, rows: int = ROWS):
        self.screen = pyte.Screen(cols, rows)
        self.stream = pyte.ByteStream(self.screen)
        self.raw = bytearray()  # every byte the program wrote, for the escape-sequence checks
        self.eof = False
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        env = dict(os.environ, TERM="xterm-256color", COLUMNS=str(cols), LINES=str(rows))
        env.pop("NO_COLOR", None)
        try:
            self.proc = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave,
                                         env=env, start_new_session=True, close_fds=True)
        finally:
            os.close(slave)  # the child holds it now; reading the master ends when it exits
        self.master = master

    # --- reading ---------------------------------------------------------------------------

    def read(self, timeout: float) -> bool:
        """Feed what the program wrote within ``timeout`` to the screen; False at end of output."""
        if self.eof:
            return False
        ready, _, _ = select.select([self.master], [], [], max(0.0, timeout))
        if not ready:
            return True
        try:
            data = os.read(self.master, 65536)
        except OSError:  # EIO: the child closed its end of the pty
            data = b""
        if not data:
            self.eof = True
            return False
        self.raw += data
        self.stream.feed(data)
        return True

    def text(self) -> str:
        return "\n".join(row.rstrip() for row in self.screen.display)

    def wait_for(self, condition: Callable[[str], bool], what: str,
                 timeout: float = 30.0) -> str:
        """Read until the screen's text satisfies ``condition``; the text then."""
        deadline = time.monotonic() + timeout
        while True:
            text = self.text()
            if condition(text):
                return text
            left = deadline - time.monotonic()
            if left <= 0 or not self.read(min(0.2, left)):
                raise AssertionError(f"the screen never showed {what} (status "
                                     f"{self.proc.poll()}); it shows:\n{text}\n"
                                     f"raw tail: {bytes(self.raw[-400:])!r}")

    def wait_exit(self, timeout: float = 20.0) -> int:
        """Drain the output until the program has exited; its exit status."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not self.read(min(0.2, deadline - time.monotonic())):
                break
        left = max(0.1, deadline - time.monotonic())
        return self.proc.wait(timeout=left)

    # --- writing and ending ----------------------------------------------------------------

    def press(self, data: bytes) -> None:
        os.write(self.master, data)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)
        os.close(self.master)
