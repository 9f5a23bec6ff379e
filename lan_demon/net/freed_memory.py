"""Giving the operating system back the memory a crowd of connections left behind.

Each connection costs libzmq some tens of kilobytes (its pipes' message queues, its engine's
buffers), allocated and freed by its I/O thread. glibc keeps what is freed in that thread's
malloc arena for reuse and returns it only from the arena's top, so after 2,000 watchers leave a
table the host keeps ~110 MB it no longer uses (benchmarks/watchers.py), however long it
waits. ``malloc_trim(0)`` hands every free page of every arena back; it costs ~20 µs when
there is nothing to give and a few milliseconds when a crowd has just left, and ctypes lets go
of the GIL while it runs. So a :class:`Trimmer` thread calls it every :data:`TRIM_EVERY`
seconds, off the arbiter's thread: the table never waits for it.

On a C library without ``malloc_trim`` (musl, macOS) nothing is trimmed and the memory stays
as the allocator leaves it.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import threading
from typing import Callable

TRIM_EVERY = 5.0  # seconds between two trims: memory is back within this after a crowd left


def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, or None where there is none."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        trim = libc.malloc_trim
    except (OSError, AttributeError):
        return None
    trim.argtypes, trim.restype = [ctypes.c_size_t], ctypes.c_int
    return trim


MALLOC_TRIM = _malloc_trim()


def give_back() -> bool:
    """Return every free page of the C heap to the system now; False if none was returned
    (or this C library cannot)."""
    return bool(MALLOC_TRIM(0)) if MALLOC_TRIM is not None else False


class Trimmer:
    """A daemon thread calling :func:`give_back` every ``every`` seconds until stopped."""

    def __init__(self, every: float = TRIM_EVERY, trim: Callable[[], object] = give_back):
        self.every, self.trim = every, trim
        self.trims = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> Trimmer:
        if MALLOC_TRIM is not None or self.trim is not give_back:
            self._thread = threading.Thread(target=self._run, name="trimmer", daemon=True)
            self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            self.trim()
            self.trims += 1

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)
        self._thread = None
