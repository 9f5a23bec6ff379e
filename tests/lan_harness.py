"""Pieces the LAN tests share: a fixed CURVE key pair, and zeroconf for real between two network
namespaces a test makes itself (never the machine's own): the pair, a command run in one of
them, its output read line by line against a deadline."""

from __future__ import annotations

import os
import queue
import shutil
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import pytest

from lan_demon.net.security import KeyPair

ROOT = Path(__file__).resolve().parent.parent
HELPER = ROOT / "tests" / "netns_helper.py"
# A fixed CURVE key pair (z85), so fingerprints and announced keys never change.
FIXED = KeyPair(b"b(867Ga{TJxU{%xY3%lZ>Y{LNtBM)?HfeoEdLnOC",
                b"tU4*ui/uQ79PK(F?NnZ8*%tdJz-1bvifo^>=Miui")


@dataclass
class NetnsPair:
    host_ns: str
    join_ns: str
    host_ip: str = "10.77.0.1"
    join_ip: str = "10.77.0.2"


def ip(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["ip", *args], capture_output=True, text=True, timeout=15)


@contextmanager
def netns_pair_made() -> Iterator[NetnsPair]:
    """Two namespaces joined by a veth pair made inside them (never in the machine's own
    namespace); both removed afterwards, whatever happened."""
    if shutil.which("ip") is None:
        pytest.skip("no 'ip' command (iproute2): cannot make network namespaces")
    if os.geteuid() != 0:
        pytest.skip("making network namespaces (ip netns add) needs root")
    pair = NetnsPair(f"ldF{os.getpid()}a", f"ldF{os.getpid()}b")
    created: list[str] = []
    try:
        for ns in (pair.host_ns, pair.join_ns):
            done = ip("netns", "add", ns)
            if done.returncode:
                pytest.skip(f"cannot create a network namespace: {done.stderr.strip()}")
            created.append(ns)
        steps = [
            ("link", "add", "ld0", "netns", pair.host_ns, "type", "veth",
             "peer", "name", "ld1", "netns", pair.join_ns),
            ("-n", pair.host_ns, "addr", "add", f"{pair.host_ip}/24", "dev", "ld0"),
            ("-n", pair.join_ns, "addr", "add", f"{pair.join_ip}/24", "dev", "ld1"),
            ("-n", pair.host_ns, "link", "set", "ld0", "up"),
            ("-n", pair.join_ns, "link", "set", "ld1", "up"),
            ("-n", pair.host_ns, "link", "set", "lo", "up"),
            ("-n", pair.join_ns, "link", "set", "lo", "up"),
        ]
        for step in steps:
            done = ip(*step)
            if done.returncode:
                pytest.skip(f"cannot set up the veth pair: ip {' '.join(step)}: "
                            f"{done.stderr.strip()}")
        yield pair
    finally:
        for ns in created:
            ip("netns", "del", ns)


def in_ns(ns: str, *argv: str) -> list[str]:
    return ["ip", "netns", "exec", ns, sys.executable, *argv]


def netns_env() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=str(ROOT), PYTHONUNBUFFERED="1")


class Lines:
    """A command running in a namespace, its stdout read line by line; stopped by the test."""

    def __init__(self, argv: list[str], stdin: int = subprocess.DEVNULL):
        self.proc = subprocess.Popen(argv, cwd=ROOT, env=netns_env(), stdin=stdin,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.lines: queue.SimpleQueue[str] = queue.SimpleQueue()
        self.seen: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put("")  # end of output

    def expect(self, words: str, timeout: float = 30.0, at_start: bool = False) -> str:
        """The first line from here on that holds ``words`` (that starts with them, when
        ``at_start``); failing the test if the command ends or the time passes first."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"never said {words!r}; said {self.seen}") from None
            self.seen.append(line)
            found = line.startswith(words) if at_start else words in line
            if found:
                return line
            if line == "" and self.proc.poll() is not None:
                raise AssertionError(f"ended ({self.proc.returncode}) without saying "
                                     f"{words!r}: {self.seen} {self.proc.stderr.read()}")

    def finish(self, timeout: float) -> tuple[int, str, str]:
        """Wait for the end; the exit status, the rest of stdout, and stderr."""
        code = self.proc.wait(timeout=timeout)
        rest = []
        while True:
            line = self.lines.get(timeout=10)
            if line == "":
                break
            rest.append(line)
        self.seen += rest
        return code, "\n".join(rest), self.proc.stderr.read()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)


def hosts(pair: NetnsPair, timeout: float) -> subprocess.CompletedProcess:
    return subprocess.run(in_ns(pair.join_ns, "-m", "lan_demon", "hosts", "--timeout",
                                 str(timeout)), cwd=ROOT, env=netns_env(), capture_output=True,
                          text=True, timeout=timeout + 20)
