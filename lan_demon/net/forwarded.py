"""Names a holder shows of a part it holds: composition, read under the names callers know.

The arbiter holds its rooms and the table's facts (``arb.phase`` is ``arb.facts.phase``), a
client holds its table copy (``client.table`` is ``client.copy.table``), a terminal screen
holds its seat (``ctl.phase`` is ``ctl.seat.phase``). Each such name is declared once on the
holder's class as one of these, instead of a property written out per name, and says whether
it may be set through the holder: a fact the part keeps (and its rooms read) is set on the
part, where everyone reads it, unless the holder's class says the holder may set it.
"""

from __future__ import annotations

from typing import Any, Generic, TypeVar

T = TypeVar("T")


class Forwarded(Generic[T]):
    """Read: the same-named attribute of the holder's ``part``. Not settable through the
    holder, and nothing else is declared, so an instance may shadow it (a test's spy on a
    method, as on any method)."""

    def __init__(self, part: str):
        self.part = part
        self.name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, holder: Any, owner: type | None = None) -> T:
        if holder is None:  # read on the class (help, introspection): the descriptor itself
            return self  # type: ignore[return-value]
        return getattr(getattr(holder, self.part), self.name)


class Fact(Forwarded[T]):
    """A fact the part keeps: read through the holder; set through it only when
    ``writable`` (then it is set on the part), else refused with where to set it — a value
    set on the holder instead would hide the part's from whoever reads the holder."""

    def __init__(self, part: str, writable: bool = False):
        super().__init__(part)
        self.writable = writable

    def __set__(self, holder: Any, value: T) -> None:
        if not self.writable:
            raise AttributeError(f"{self.name} is held by {self.part}: set "
                                 f"{self.part}.{self.name}")
        setattr(getattr(holder, self.part), self.name, value)
