"""A table copy's public face on whatever holds one: what a screen or a bot reads of the table.

:class:`~lan_demon.net.client.Client` holds its :class:`~lan_demon.net.table_copy.TableCopy` as
``copy``, and screens, bots and tests read ``client.table``, ``client.seat``, ``client.mirror``…
and say ``client.ready()``: each of these is the copy's, read through here, so the client's
own code is about its sockets alone.
"""

from __future__ import annotations

from collections import deque
from typing import Any, Callable

from lan_demon.net.forwarded import Fact, Forwarded
from lan_demon.net.notices import Notice
from lan_demon.net.score_sheet import ScoreSheet
from lan_demon.net.table_copy import TableCopy
from lan_demon.net.witness import DealWitness

class CopyFacade:
    """The copy's facts and requests under the names every screen and bot uses (see
    :class:`~lan_demon.net.table_copy.TableCopy` for what each is)."""

    copy: TableCopy

    seat = Fact[int | None]("copy")
    role = Fact[str]("copy")
    game = Fact[Any]("copy")
    table = Fact[dict[str, Any]]("copy")
    seq = Fact[int]("copy")
    mirror = Fact[Any]("copy")
    predicted = Fact[Any]("copy")
    seal_key = Fact[bytes | None]("copy")
    pending = Fact[dict[int, Any]]("copy")
    notices = Fact[list[Notice]]("copy")
    tell_moves = Fact[bool]("copy", writable=True)
    stood_in = Fact[deque[tuple[int, int, str, list[dict[str, Any]]]]]("copy")
    paused_since = Fact[float | None]("copy")
    witness = Fact[DealWitness]("copy")
    scores = Fact[ScoreSheet]("copy")
    buffered = Fact[int]("copy")
    catching_up = Fact[bool]("copy")

    kept = Forwarded[Callable[[int], float | None]]("copy")
    take_notices = Forwarded[Callable[[], list[Notice]]]("copy")
    ready = Forwarded[Callable[[], None]]("copy")
    start = Forwarded[Callable[[], None]]("copy")
    pause = Forwarded[Callable[[], None]]("copy")
    resume = Forwarded[Callable[[], None]]("copy")
    remove = Forwarded[Callable[..., None]]("copy")
    resync = Forwarded[Callable[[], None]]("copy")
