"""Names a holder shows of the part it holds (lan_demon.net.forwarded): read through, set only
where the holder's class allows it, and never a second copy on the holder."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from lan_demon.net.arbiter import Arbiter
from lan_demon.net.forwarded import Fact, Forwarded
from lan_demon.net.settings import Settings

pytestmark = pytest.mark.timeout(10)


class Holder:
    phase = Fact[str]("part")
    note = Fact[str]("part", writable=True)
    ready = Forwarded[object]("part")

    def __init__(self) -> None:
        self.part = SimpleNamespace(phase="lobby", note="", ready=lambda: "the part's")


def test_a_fact_reads_through_and_refuses_a_write_naming_where_it_is_set() -> None:
    holder = Holder()
    assert holder.phase == "lobby"
    holder.part.phase = "playing"
    assert holder.phase == "playing"
    with pytest.raises(AttributeError, match=r"phase is held by part: set part\.phase"):
        holder.phase = "over"
    assert holder.part.phase == "playing" and "phase" not in vars(holder)


def test_a_writable_fact_is_set_on_the_part_never_beside_it() -> None:
    holder = Holder()
    holder.note = "said"
    assert holder.part.note == "said" and "note" not in vars(holder)


def test_a_forwarded_method_may_be_shadowed_on_one_holder_as_any_method() -> None:
    holder, other = Holder(), Holder()
    assert holder.ready() == "the part's"
    holder.ready = lambda: "a spy"
    assert holder.ready() == "a spy" and other.ready() == "the part's"
    assert isinstance(Holder.ready, Forwarded)  # on the class: the declaration itself


def test_the_arbiter_shows_its_facts_and_rooms_hold_them() -> None:
    arb = Arbiter(Settings(game="racko"))
    assert arb.phase == arb.facts.phase == "lobby"
    with pytest.raises(AttributeError, match=r"set facts\.state"):
        arb.state = {}
