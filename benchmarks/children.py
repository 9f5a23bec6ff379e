"""What the benchmarks that start processes share: stopping a child by its own handle, reading
its first line with a deadline and dropping the rest, the quantiles they print, and reading an
arbiter's frames (net_latency.py, floor.py)."""

from __future__ import annotations

import contextlib
import select
import signal
import statistics
import subprocess
import threading
from typing import Any

import msgpack


def quantiles(samples: list[float]) -> tuple[float, float]:
    """p50 and p99 (in the units given)."""
    if len(samples) < 2:
        return (samples[0], samples[0]) if samples else (float("nan"), float("nan"))
    q = statistics.quantiles(samples, n=100, method="inclusive")
    return statistics.median(samples), q[98]


def stop(proc: subprocess.Popen | None, sig: int = signal.SIGTERM, timeout: float = 10.0
         ) -> str:
    """Stop one process we started (by its own pid) and return what it printed."""
    if proc is None:
        return ""
    if proc.poll() is None:
        proc.send_signal(sig)
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, _ = proc.communicate()
    return out or ""


def stop_all(client: Any, procs: list[subprocess.Popen], ctx: Any) -> None:
    """The end of a run: its measuring client closed (if it got one), every child stopped,
    the last started first, and the ZeroMQ context ended."""
    if client is not None:
        client.close()
    for proc in reversed(procs):
        stop(proc)
    ctx.term()


def read_line(proc: subprocess.Popen, timeout: float = 15.0) -> str:
    """The next line a child prints, within ``timeout`` seconds (else RuntimeError)."""
    ready, _, _ = select.select([proc.stdout], [], [], timeout)
    if not ready:
        raise RuntimeError("a child process said nothing in time")
    line = proc.stdout.readline()
    if not line:
        raise RuntimeError(f"a child process ended early (status {proc.wait()})")
    return line.strip()


def drain_rest(proc: subprocess.Popen) -> None:
    """Read and drop what a child prints after the lines read so far, in a thread: a host
    logs a line a round (and a flat-out table ends a round every few hundredths of a second),
    so an unread pipe would fill and stop it mid-run. :func:`stop` leaves the pipe to it."""
    pipe, proc.stdout = proc.stdout, None

    def run() -> None:
        with contextlib.suppress(ValueError, OSError):
            for _ in pipe:
                pass
            pipe.close()

    threading.Thread(target=run, name="drain", daemon=True).start()


def messages(frame: bytes) -> list[Any]:
    """The messages of one frame from an arbiter: one map, or (protocol 3) an array of maps."""
    obj = msgpack.unpackb(frame, raw=False)
    return obj if isinstance(obj, list) else [obj]
