"""The coach's advice as a seat shows it, in the same way in every game that has one (Rack-O,
Gin Solitaire): what to do and why in plain words first, the numbers behind it only for those
who ask.

Figures such as "work left 1.50, against 1.51 on average after a blind draw" (Rack-O) and
"expected +0.9 vs play on +2.1" (Gin) are true and unreadable for a family, so they come
second. An advice object (the bots' ``Advice``) has ``text()`` — the plain words — and
``numbers()`` — the figures, "" when none.

The advice key (whatever key the game's key map gives ``hint``; no key is added) goes round:
the advice, then the advice with its numbers, then nothing. The page has the advice's own
button and a "why? numbers" toggle (the ``why`` act), which shows or hides the numbers alone.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from lan_demon.seat.acts import key_map


@dataclass(frozen=True)
class Shown:
    """Advice as a screen draws it: ``words`` (the plain advice), ``numbers`` (the figures, or
    None while they are not asked for), ``has_numbers`` (there are figures to ask for) and
    ``more`` (how to see them, or how to hide the advice)."""

    words: str
    numbers: str | None
    has_numbers: bool
    more: str


def plain(advice: Any) -> str:
    text = getattr(advice, "text", None)
    return text() if callable(text) else str(advice)


def figures(advice: Any) -> str:
    numbers = getattr(advice, "numbers", None)
    return numbers() if callable(numbers) else ""


def advice_key(seat: Any) -> str | None:
    """The key that asks for advice on a keyed screen (the game's key map's ``hint``), else
    None: the words name the key the keyboard really has."""
    if seat is None or not getattr(seat, "keyed", False):
        return None
    keys = [key for key, intent in key_map(seat).items() if intent.get("do") == "hint"]
    return min(keys, key=lambda k: (k != k.lower(), k)) if keys else None  # h before H


class AdviceShown:
    """What one game's seat shows of its coach's advice: which advice, for which moment (the
    position it was asked at: once the table moves on, it is for another moment), and whether
    its numbers were asked for."""

    def __init__(self) -> None:
        self.advice: tuple[tuple[Any, ...], Any] | None = None
        self.numbers = False

    def clear(self) -> None:
        self.advice = None
        self.numbers = False

    def current(self, moment: tuple[Any, ...] | None) -> Any | None:
        """The advice, while the table is still at the moment it was asked at."""
        if self.advice is None or moment is None or self.advice[0] != moment:
            return None
        return self.advice[1]

    def press(self, moment: tuple[Any, ...], make: Callable[[], Any]) -> str | None:
        """The advice key: the advice (made now), then its numbers, then hidden. Returns
        what to say, if anything."""
        advice = self.current(moment)
        if advice is None:
            self.advice = (moment, make())
            self.numbers = False
            return None
        if not self.numbers and figures(advice):
            self.numbers = True
            return None
        self.clear()
        return "advice hidden"

    def why(self, moment: tuple[Any, ...] | None) -> str | None:
        """The page's "why? numbers": the numbers shown or hidden, the advice kept."""
        advice = self.current(moment)
        if advice is None:
            return "ask for advice first"
        if not figures(advice):
            return "this advice has no numbers behind it"
        self.numbers = not self.numbers
        return None

    def shown(self, moment: tuple[Any, ...] | None, key: str | None,
              how: Callable[[str, str], str]) -> Shown | None:
        """The advice as a screen draws it, or None. ``key``: the advice key (None: none)."""
        advice = self.current(moment)
        if advice is None:
            return None
        numbers = figures(advice)
        if numbers and not self.numbers:
            more = how(f"{key} again: the numbers behind it" if key else "", "")
        else:
            more = how(f"{key} again hides it" if key else "", "")
        return Shown(f"Coach: {plain(advice)}", numbers if self.numbers and numbers else None,
                     bool(numbers), more)
