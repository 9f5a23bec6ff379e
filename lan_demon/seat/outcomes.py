"""What an intent comes to (:class:`Sent`, :class:`Refusal`), what a seat was last told
(:class:`Line`, :class:`Banner`) and a question waiting for its answer (:class:`Question`):
plain data that the seat, the games' seats and the screens share."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Line:
    """The latest thing said to this seat: ``kind`` is said, refusal or race; ``id`` grows."""

    words: str
    rule: str | None
    kind: str
    id: int


@dataclass(frozen=True)
class Banner:
    """A round's end ("Cy is OUT!"); ``id`` grows, so a screen sounds it once."""

    words: str
    id: int


@dataclass(frozen=True)
class Sent:
    """An intent that went to the table as ``move`` (it may still lose a race)."""

    move: Any


@dataclass(frozen=True)
class Refusal:
    """An intent refused before anything was sent: the words, then the rule id."""

    words: str
    rule: str | None = None


Outcome = Sent | Refusal | None


@dataclass(frozen=True)
class Question:
    """A question waiting for its answer: ``words`` without any key; the yes and no acts, and
    perhaps a third answer (``other``: the captain's "a bot plays the seat on", §24)."""

    words: str
    yes: dict[str, Any]
    no: dict[str, Any]
    yes_label: str
    no_label: str
    other: dict[str, Any] | None = None
    other_label: str = ""
