"""The frames a slow wake-up of the socket loop has read ahead (``ArbiterServer._read_ahead``),
each stamped as it was read, handed out one peer at a time in turn.

Why in turn: a peer that floods at the brake's rate — its legal moves, the widest frames the
codec reads — has hundreds of frames waiting whenever the loop reads, and in the order they
were read a ping or a move read behind them would wait for all of them to be handled (60 ms
and more, docs/benchmarks.md, "Bursts"). Handed out in turn, every peer's next frame comes after
at most one frame of each other peer's, so one peer's backlog holds back no one else's. Each
peer's own frames keep their order, and every frame keeps the time it was read at (RD-11
judges a move by its arrival, not by when its turn came). Frames read when the queue is empty
of others — a wake-up of one peer, or of one frame from each of many — come out as they were
read.
"""

from __future__ import annotations

from collections import deque
from typing import Any

#: (routing id, the message's parts, its sender, the time it was read)
Read = tuple[bytes, list[bytes], Any, float]


class Inbox:
    """Frames read and not yet handled, queued per peer; :meth:`take` goes round the peers."""

    def __init__(self) -> None:
        self.queues: dict[bytes, deque[Read]] = {}
        self.turns: deque[bytes] = deque()  # peers with frames waiting, whose turn is next first
        self.waiting = 0

    def append(self, read: Read) -> None:
        queue = self.queues.get(read[0])
        if queue is None:
            queue = self.queues[read[0]] = deque()
            self.turns.append(read[0])
        queue.append(read)
        self.waiting += 1

    def take(self, most: int) -> list[Read]:
        """Up to ``most`` frames, one from each peer in turn: each goes to the back of the
        line after one frame, and leaves it when it has none left."""
        taken: list[Read] = []
        turns, queues = self.turns, self.queues
        while turns and len(taken) < most:
            peer = turns.popleft()
            queue = queues[peer]
            taken.append(queue.popleft())
            if queue:
                turns.append(peer)
            else:
                del queues[peer]
        self.waiting -= len(taken)
        return taken

    def __len__(self) -> int:
        return self.waiting
