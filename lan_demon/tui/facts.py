"""The facts about a table that every screen reads — the lobby, the scores, each game's table.

They are the seat's (:class:`lan_demon.seat.seat.Seat`, decided once for the terminal, the page
and the SDK) and the terminal's: its size, the game's screen. :class:`TableFacts` says which
the drawing modules read; :class:`lan_demon.tui.table.Controller`, which holds the seat and
adds the keys and the frame around them, is one. The drawing modules take a TableFacts, so
none of them needs the Controller's module.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from lan_demon.net.cells import cells
from lan_demon.net.names import NAME_CELLS  # (a column this wide shows every name whole)
from lan_demon.seat.outcomes import Question
from lan_demon.seat.seat import Seat
from lan_demon.seat.words import (fit_name, named_seats, rotation_words, shown, split_level,
                                  starting)

__all__ = ["MIN_HEIGHT", "MIN_WIDTH", "NAME_CELLS", "TableFacts", "name_column", "fit_name",
           "key_hints", "named_seats", "rotation_words", "shown", "split_level", "starting",
           "too_small"]

MIN_WIDTH, MIN_HEIGHT = 60, 20


def name_column(names: Sequence[str]) -> int:
    """The cells a column of ``names`` needs: the widest, at most :data:`NAME_CELLS`."""
    return min(NAME_CELLS, max([cells(n) for n in names] or [1]))


class TableFacts(Protocol):
    """What the drawing modules read of a table: the seat's facts, and the terminal's (the
    game's screen, the bots' levels, the terminal's size). The
    :class:`~lan_demon.tui.table.Controller` is one."""

    client: Any
    seat: Seat
    screen: Any  # the game's own screen (its ``keys``)
    speeds: Sequence[str]  # the bots' levels the lobby offers (their labels), lowest first
    size: tuple[int, int]  # the terminal at the last key
    local: Any  # the in-process table of ``lan-demon play``, or None
    confirm: str | None
    reconnecting: bool
    reconnect_since: float  # when the host went quiet (:attr:`clock`)
    removed_by: dict[str, Any] | None  # the removed notice of our own seat
    alarms: list[str]
    deal_notes: list[tuple[int, str]]
    next_at: float | None

    @property
    def phase(self) -> str: ...

    @property
    def seats(self) -> list[dict[str, Any]]: ...

    @property
    def gone(self) -> str | None: ...

    @property
    def spectator(self) -> bool: ...

    @property
    def captain_seat(self) -> int | None: ...

    @property
    def captain(self) -> bool: ...

    @property
    def self_starting(self) -> bool: ...

    @property
    def banner_text(self) -> str: ...

    def clock(self) -> float: ...

    def name(self, seat: int, as_was: dict[str, Any] | None = None) -> str: ...

    def not_ready(self) -> list[str]: ...

    def question(self) -> Question | None: ...

    def too_small(self, width: int | None = None, height: int | None = None) -> bool: ...


def too_small(width: int, height: int) -> bool:
    """A terminal too small to draw the table in."""
    return width < MIN_WIDTH or height < MIN_HEIGHT


def key_hints(facts: TableFacts) -> list[str]:
    """The keys the status line offers now, before "? help" and "q leave": none while the
    host does not answer (nothing would reach it)."""
    phase = facts.phase
    if facts.confirm == "leave":  # the question is at the top; its keys are here too
        return ["y leaves", "any other key stays"]
    if facts.confirm == "start":  # (they may have said ready while the question was up)
        return ["Enter or y starts anyway" if facts.not_ready() else "Enter starts",
                "Esc waits"]
    if (facts.confirm or "").startswith("remove:"):
        question = facts.question()
        bot = [f"b a bot plays on at level {question.other['bot']}"] \
            if question is not None and question.other else []
        return ["y removes", *bot, "any other key keeps them"]
    if facts.spectator:
        return ["watching"]
    if facts.reconnecting or facts.gone:
        return []
    from lan_demon.tui.evening_rows import evening_hints  # (the captain's P and R, §24)
    if facts.client.table.get("stall"):  # §25: nothing moves until the host's disk does
        return []
    if phase == "playing" and facts.client.table.get("paused"):
        return evening_hints(facts)  # nothing else moves while paused
    if phase == "playing":
        return [f"{k} {what}" for k, what in facts.screen.keys] + evening_hints(facts)
    if phase == "lobby":
        hints = ["Enter start" if facts.captain and not facts.self_starting else "Enter ready"]
        if facts.local is not None and facts.speeds:  # (no bots, no level to change)
            hints.append("v/V bots' level")
        return hints
    return (["Enter ready"] if phase == "between" else []) + evening_hints(facts)
