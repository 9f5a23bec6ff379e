"""Racing Demon in words: the keys, the rules in short (classic and German), a lost race as a
player would say it, and the names of ranks — what the table (``demon.py``) says, apart from
how it lays the cards out."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from lan_demon.games.base import GameError
from lan_demon.tui.style import code_card

PLAYER_KEYS = [("1-4", "play a column"), ("p", "play the Pile top"),
               ("w", "play the waste top"), ("space", "turn the Pack"), ("s", "vote stuck"),
               ("t", "choose the place"), ("h", "highlight what fits"),
               ("esc", "cancel a choice")]

CLASSIC_RULES = """
Everybody plays at once. Empty your Pile: first OUT
  ends the round (RD-12).
Stacks start on aces, build up in suit (RD-5); the King
  claims the stack (RD-6). Anyone plays on any stack.
Columns build down, red on black (RD-7); an empty one
  refills from your Pile (RD-8). Only tops play (RD-10).
The Pack turns three at a time (RD-9).
Two cards for one place: the first counts (RD-11).
Stuck: all vote or have turned through their Pack, or
  a minute passes with no card played: Packs rotate;
  three in a row end the round (RD-13).
Score: +1 a card on a stack, +5 a King, +10 OUT, −1 a
  card left in your Pile (RD-14).
A letter marks each player's pack (yours is beside
  "You"); on a stack it says whose card is on top."""

GERMAN_RULES = """
Everybody plays at once. Empty your Pile of 11 (RG-2):
  the first OUT ends the round (RG-6).
Stacks start on aces and build up in rank, whatever
  the suit (RG-3). The King claims the stack (RD-6).
No laddering: a Line card (keys 1-4) goes to a stack
  only; the Pile refills its place (RG-4).
The Pack turns one card at a time (RG-5).
Two cards for one place: the first counts (RD-11).
Stuck: all vote or have turned through their Pack, or
  a minute passes with no card played: Packs rotate;
  three in a row end the round (RD-13).
Penalty: the cards left in your Pile; the lowest total
  wins the match (RG-6, RG-7).
A letter marks each player's pack (yours is beside
  "You"); on a stack it says whose card is on top."""


def short_name(name: str, width: int) -> str:
    """A name in ``width`` characters at most, without its " (bot)"."""
    return name.removesuffix(" (bot)")[:width]


#: Seconds a stack's top, once another card covers it, still counts as what the player saw: a
#: person takes about a second to see a card land, so a key pressed that soon after was aimed
#: at the old top — a race lost (RD-11), not a card that "fits no stack".
RACE_GRACE = 1.5


class SeenTops:
    """The stacks' tops as the screen last drew them, with each top covered in the last
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


def race_text(names: Sequence[str], data: Mapping[str, Any]) -> str:
    """A lost race in a player's words, from the arbiter's ``beaten`` fields (``by`` the
    winner's seat, ``top`` the stack's top card before the winner's card, ``ms`` how much
    earlier the winner was): "Ann beat you to the A♥ stack, by 12 ms". The stack is named by
    the card it showed, as the screen showed it. Without those fields: the arbiter's reason."""
    by = data.get("by")
    if not isinstance(by, int) or not ("top" in data or "stack" in data):
        return str(data.get("reason") or "another player got there first (RD-11)")
    who = short_name(names[by], 40) if 0 <= by < len(names) else "another player"
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
