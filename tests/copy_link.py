"""A table copy's link in a test: no socket, a clock the test sets, and what is sent kept."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any


@dataclass
class RecordingLink:
    """What :class:`~lan_demon.net.table_copy.TableCopy` asks of its connection
    (:class:`~lan_demon.net.link.Link`): ``sent`` holds every message, ``now`` is the time."""

    now: float = 0.0
    connected: bool = False
    sent: list[dict[str, Any]] = field(default_factory=list)
    hung_up: bool = False
    ids: Any = field(default_factory=lambda: itertools.count(1))

    def clock(self) -> float:
        return self.now

    def send(self, msg: dict[str, Any]) -> bool:
        self.sent.append(msg)
        return True

    def next_id(self) -> int:
        return next(self.ids)

    def hang_up(self) -> None:
        self.hung_up = True

    def match_over(self) -> None:
        pass
