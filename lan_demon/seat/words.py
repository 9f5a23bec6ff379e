"""The words a seat is told, decided once for every screen (the terminal, the page, the SDK).

Names as the table shows them (whole, measured in terminal cells; seats named rather than numbered),
a lost race as a player would say it ("Ann beat you to the A♥ stack, by 12 ms"), an RD-13
rotation, the countdown, someone stepping away, a rule's words split from its id. How long a
sentence shows, its colour and its width are each screen's.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from lan_demon.games.base import GameError
from lan_demon.games.cards import SUIT_SYMBOLS, Card
from lan_demon.net.cells import cells, fit
from lan_demon.net.names import NAME_CELLS
from lan_demon.seat.person import clause

#: A level's mark at the end of a bot's name (levels.bot_name): "Ada L7".
_LEVEL_MARK = re.compile(r"^(?P<name>.*\S) L(?P<level>10|[1-9])(?P<taken> [⁰¹²³⁴⁵⁶⁷⁸⁹]+)?$")
_SEAT_INDEX = re.compile(r"\bseat (\d+)\b")
#: The arbiter's mark on a name someone already had (net/names.py): "Ann ²".
_TAKEN_MARK = re.compile(r"^(?P<base>.*\S) (?P<mark>[⁰¹²³⁴⁵⁶⁷⁸⁹]+)$")
#: Seconds a stack's top, once another card covers it, still counts as what the player saw: a
#: person takes about a second to see a card land, so a key pressed that soon after was aimed
#: at the old top — a race lost (RD-11), not a card that "fits no stack".
RACE_GRACE = 1.5


def split_level(name: str) -> tuple[str, int | None]:
    """A bot's name without its level mark, and the level (None when it carries none): what
    the mark means is said where names are listed for people who may not know it (the
    match's result table); a screen shows the name whole."""
    found = _LEVEL_MARK.match(name)
    if found is None:
        return name, None
    return found["name"] + (found["taken"] or ""), int(found["level"])


def shown(seat: Mapping[str, Any]) -> str:
    """A seat's label (a ``seats`` entry, or anything with its ``name``): its name, whole and
    the same on every screen — the arbiter seats it cleaned, unique and at most NAME_CELLS
    terminal cells wide (net/names.py), a bot's with its level mark, "Ada L7"."""
    return seat["name"]


def named_seats(text: str, seats: Sequence[Mapping[str, Any]]) -> str:
    """A rule's words name seats as the engines know them, by index ("the round is over: seat 2
    went out", "it is seat 1's turn"): a player knows names, and counts seats from 1."""
    def name(found: re.Match[str]) -> str:
        index = int(found[1])
        return shown(seats[index]) if 0 <= index < len(seats) else found[0]
    return _SEAT_INDEX.sub(name, text)


def rotation_words(count: int, minute: bool) -> str:
    """An RD-13 rotation as the table announces it, in what it does ("each Pack moves one card"
    reads as Packs swapped between players): why it came — every player stuck (votes,
    or each turned through their Pack), or the table's own minute without a card played, which
    a player who still had a card to play must not read as "everyone is stuck" — and which in
    a row of three it is."""
    why = "No card played for a minute" if minute else "Everyone is stuck"
    return f"{why}: everyone's turned cards go back under their Pack, and its top card to " \
        "the bottom — RD-13" + (f" (rotation {count} of 3)" if count > 1 else "")


def starting(left: float) -> str:
    """The countdown to Go in words: whole seconds rounded up ("in 3…", never "in 0…", which
    would stand for seconds while the deal is on its way), then the deal coming."""
    if left <= 0:
        return "now: the cards are being dealt…"
    return f"in {max(1, math.ceil(left - 0.05))}…"  # (2.0001 s is "2": clocks are not exact)


def fit_name(name: str, width: int) -> str:
    """A name in ``width`` terminal cells: whole if it fits (a seated name always fits
    NAME_CELLS), else cut with an ellipsis — keeping the arbiter's mark of a name taken, so
    that "Ann" and "Ann ²" cut to a narrow column still differ ("Ann", "Ann²", "An…²")."""
    if cells(name) <= width:
        return name
    found = _TAKEN_MARK.match(name)
    if found is None or width < cells(found["mark"]) + 2:
        return fit(name, width)
    base, mark = found["base"], found["mark"]
    if cells(base + mark) <= width:
        return base + mark
    return fit(base, width - cells(mark)) + mark


def pad_name(name: str, width: int = NAME_CELLS) -> str:
    """A name fitted and padded to exactly ``width`` terminal cells, so that a column after
    it starts in the same place on every row, whatever the name's letters or pictures."""
    name = fit_name(name, width)
    return name + " " * (width - cells(name))


def short_name(name: str, width: int) -> str:
    """A name in ``width`` terminal cells at most: a seated name (NAME_CELLS at most) whole
    in a column as wide as a name may be (tests/test_small_screens.py watches every cut)."""
    return fit_name(name, width)


def names_list(names: list[str], most: int = 3) -> str:
    """``Ann``, ``Ann and Bob``, ``Ann, Bob, Cy and 2 more``; ``nobody`` for none."""
    if not names:
        return "nobody"
    if len(names) > most:
        return ", ".join(names[:most]) + f" and {len(names) - most} more"
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def is_rule_id(text: str) -> bool:
    """A rule book id: ``RD-7``, ``RG-6``, ``RK-4``, ``GS-9``."""
    prefix, _, number = text.partition("-")
    return prefix in ("RD", "RG", "RK", "GS") and number.isdigit()


def split_rule(text: str) -> tuple[str, str | None]:
    """A refusal worded ``RULE: words`` as (words, rule); other text as (text, None)."""
    rule, sep, words = text.partition(": ")
    return (words, rule) if sep and is_rule_id(rule) else (text, None)


def watching(how: Any) -> str:
    """What a spectator is told when it tries a move — in every game, on every screen (one
    wording); ``how`` is the seat's (:meth:`~lan_demon.seat.seat.Seat.how`): a keyed screen
    adds how to leave by its key."""
    return "you are watching: there are no moves to make" + how(" — q leaves", "")


def code_card(code: str | None) -> Card | None:
    """A card from its wire code in a view (``5H@2``, ``??@1``), or None."""
    if not code:
        return None
    return Card.from_data(code)


def race_text(names: Sequence[str], data: Mapping[str, Any]) -> str:
    """A lost race in a player's words, from the arbiter's ``beaten`` fields (``by`` the
    winner's seat, ``top`` the stack's top card before the winner's card, ``ms`` how much
    earlier the winner was): "Ann beat you to the A♥ stack, by 12 ms". The stack is named by
    the card it showed, as the screen showed it. Without those fields: the arbiter's reason."""
    by = data.get("by")
    if not isinstance(by, int) or not ("top" in data or "stack" in data):
        return str(data.get("reason") or "another player got there first (RD-11)")
    who = names[by] if 0 <= by < len(names) else "another player"
    try:
        top = code_card(data.get("top"))
    except GameError:
        top = None
    text = f"{who} beat you to the {top.symbol} stack" if top else f"{who} beat you to it"
    ms = data.get("ms")
    if isinstance(ms, (int, float)) and not isinstance(ms, bool):
        text += f", by {ms:.0f} ms" if ms >= 1 else ", by under 1 ms"
    return text


def with_article(word: str) -> str:
    """``an ace``, ``a red``: the word with its article."""
    return ("an " if word[0] in "a8" else "a ") + word


def rank_name(rank: int) -> str:
    """A rank as a player says it: ace, 2 … 10, Jack, Queen, King."""
    return {1: "ace", 11: "Jack", 12: "Queen", 13: "King"}.get(rank, str(rank))


def king_words(who: str, you: bool, king: Card, german: bool) -> tuple[str, str]:
    """A King claimed (RD-6), as the table announces it, and its rule: the stack leaves the
    middle and a score jumps, which a player who did not see the King cannot tell apart from
    a fault. The classic score says the figure RD-14 gives it: +5 for the King and +1 for the
    card, as for any card on a stack; German Racing Demon counts only the Pile (RG-6)."""
    took = clause(who, you, "took", f"the {SUIT_SYMBOLS.get(king.suit, king.suit)} King")
    if german:
        return f"{took}: its stack leaves the middle", "RD-6"
    return f"{took}: +6 (+5 King, +1 card)", "RD-6, RD-14"


def presence_words(who: str, status: Any, kept_minutes: int) -> str | None:
    """Someone stepped away, left or came back, in words."""
    return {"away": f"{who} stepped away — their seat is kept {kept_minutes} minutes",
            "left": f"{who} has left the table",
            "here": f"{who} is back"}.get(status)


class SeenTops:
    """The stacks' tops as the seat last saw them, with each top covered in the last
    :data:`RACE_GRACE` seconds."""

    def __init__(self) -> None:
        self.drawn: dict[int, str] = {}  # stack id -> top card code
        self.covered: dict[int, tuple[str, float]] = {}  # stack id -> (old top, until)

    def draw(self, tops: dict[int, str], now: float) -> None:
        for sid, top in tops.items():
            old = self.drawn.get(sid)
            if old is not None and old != top:
                self.covered[sid] = (old, now + RACE_GRACE)
        self.drawn = tops

    def tops(self, now: float) -> list[tuple[int, str]]:
        """The tops a key pressed ``now`` may have been aimed at: each as drawn, then the
        recently covered ones."""
        recent = [(sid, old) for sid, (old, until) in self.covered.items() if now < until]
        return list(self.drawn.items()) + recent
