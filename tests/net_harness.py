"""Helpers for tests at a live table: pumping clients (or looking again) until something holds,
running a program of ours as a process beside lan_demon bots, and bots of this process playing
on a thread of their own beside host processes."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from typing import Any, Callable

import zmq

from lan_demon.bots.runner import leave_and_close, make_bot, run_pool


def pump_until(condition, clients, timeout: float = 10.0) -> None:
    """Poll every client until ``condition()`` holds (no sleeps: the sockets wake us)."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting"
        poller = zmq.Poller()
        for client in clients:
            for sock in client.sockets():
                poller.register(sock, zmq.POLLIN)
        poller.poll(20)
        for client in clients:
            client.pump()


def until(condition, timeout: float = 10.0, what: str = "") -> None:
    """Look every 10 ms until ``condition()`` holds, for a table whose own threads move it (a
    host's bots, a server's loop): nothing here to poll on, so the test looks again."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what or condition}"
        time.sleep(0.01)


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


class BotThread:
    """Bots of this process playing on a thread of their own while the test stops and starts
    host processes: ``play(stop)`` runs there (``run_pool`` until ``stop`` is set, say), and
    whatever it raises is kept for the test thread to report."""

    def __init__(self, play: Callable[[threading.Event], None]) -> None:
        self.stop = threading.Event()
        self.failure: list[BaseException] = []
        self.thread = threading.Thread(target=self._run, args=(play,), name="bots", daemon=True)
        self.thread.start()

    def _run(self, play: Callable[[threading.Event], None]) -> None:
        try:
            play(self.stop)
        except BaseException as err:  # noqa: BLE001 - handed to the test thread
            self.failure.append(err)

    def finish(self, timeout: float) -> None:
        """Wait for the bots' match to end on its own, and fail with what went wrong if not."""
        self.thread.join(timeout=timeout)
        assert not self.thread.is_alive(), "the bots' match did not end"
        assert not self.failure, self.failure

    def close(self) -> None:
        """Tell the bots to stop, and wait a little for them."""
        self.stop.set()
        self.thread.join(timeout=10)


def stop_all(pool: BotThread | None, hosts: list[Any], bots: list[Any]) -> None:
    """The end of a test of bots beside host processes, whatever happened: the bots told to
    stop, every host killed, every bot's client closed."""
    if pool is not None:
        pool.close()
    for host in hosts:
        host.kill()
    for bot in bots:
        bot.client.close()
