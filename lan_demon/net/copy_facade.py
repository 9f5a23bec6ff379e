"""A table copy's public face on whatever holds one: what a screen or a bot reads of the table.

:class:`~lan_demon.net.client.Client` holds its :class:`~lan_demon.net.table_copy.TableCopy` as
``copy``, and screens, bots and tests read ``client.table``, ``client.seat``, ``client.mirror``…
and say ``client.ready()``: each of these is the copy's, read through here, so the client's
own code is about its sockets alone.
"""

from __future__ import annotations

from collections import deque
from typing import Any, Callable, Generic, TypeVar

from lan_demon.net.notices import Notice
from lan_demon.net.score_sheet import ScoreSheet
from lan_demon.net.table_copy import TableCopy
from lan_demon.net.witness import DealWitness

T = TypeVar("T")


class FromCopy(Generic[T]):
    """A name on the holder that is its table copy's attribute of the same name. Used for the
    copy's methods: read, it is bound to the copy; set on a holder, it shadows it there, as
    any method may be (a test's spy)."""

    def __init__(self) -> None:
        self.name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, holder: Any, owner: type | None = None) -> T:
        if holder is None:  # read on the class (help, introspection): the descriptor itself
            return self  # type: ignore[return-value]
        return getattr(holder.copy, self.name)


class CopyFact(FromCopy[T]):
    """One of the copy's facts. Set only when ``writable``: a fact the copy keeps is changed
    by what the arbiter says, and a value set on the holder instead would hide it."""

    def __init__(self, writable: bool = False):
        super().__init__()
        self.writable = writable

    def __set__(self, holder: Any, value: T) -> None:
        if not self.writable:
            raise AttributeError(f"{self.name} is the table copy's: set it on .copy")
        setattr(holder.copy, self.name, value)


class CopyFacade:
    """The copy's facts and requests under the names every screen and bot uses (see
    :class:`~lan_demon.net.table_copy.TableCopy` for what each is)."""

    copy: TableCopy

    seat = CopyFact[int | None]()
    role = CopyFact[str]()
    game = CopyFact[Any]()
    table = CopyFact[dict[str, Any]]()
    seq = CopyFact[int]()
    mirror = CopyFact[Any]()
    predicted = CopyFact[Any]()
    seal_key = CopyFact[bytes | None]()
    pending = CopyFact[dict[int, Any]]()
    notices = CopyFact[list[Notice]]()
    tell_moves = CopyFact[bool](writable=True)
    stood_in = CopyFact[deque[tuple[int, int, str, list[dict[str, Any]]]]]()
    paused_since = CopyFact[float | None]()
    witness = CopyFact[DealWitness]()
    scores = CopyFact[ScoreSheet]()
    buffered = CopyFact[int]()
    catching_up = CopyFact[bool]()

    kept = FromCopy[Callable[[int], float | None]]()
    take_notices = FromCopy[Callable[[], list[Notice]]]()
    ready = FromCopy[Callable[[], None]]()
    start = FromCopy[Callable[[], None]]()
    pause = FromCopy[Callable[[], None]]()
    resume = FromCopy[Callable[[], None]]()
    remove = FromCopy[Callable[..., None]]()
    resync = FromCopy[Callable[[], None]]()
