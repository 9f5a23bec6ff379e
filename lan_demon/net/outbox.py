"""What one step of the arbiter sends: the one type every piece of the arbiter writes into.

:meth:`lan_demon.net.arbiter.Arbiter.handle` and ``tick`` each return one :class:`Outbox`; the
socket loop (:mod:`lan_demon.net.server`) publishes its updates, then sends its replies.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Outbox:
    """What one step of the arbiter sends: (peer, message) pairs and public updates."""

    private: list[tuple[bytes, dict[str, Any]]] = field(default_factory=list)
    public: list[dict[str, Any]] = field(default_factory=list)
    #: only what a table whose journal cannot be written says itself (refusals, pongs, its
    #: notices): it may go while what waits for the journal is held (net/stall.py)
    stalled: bool = False

    def extend(self, other: Outbox) -> None:
        self.private += other.private
        self.public += other.public
