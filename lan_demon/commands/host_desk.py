"""What the person hosting types in the host's own window: ``pause``, ``resume``, ``remove
NAME`` (``remove NAME bot [LEVEL]``: a bot plays the seat on), ``seats``, ``help`` — the host
runs the evening (PROTOCOL.md §24) without a seat.

Why: at a table of twenty the host is the one person everyone looks to when someone goes to the
kitchen or the phone rings, so the window they host from takes commands, not only prints a log.
Each line typed gets one answer, never a traceback. The decisions are the arbiter's own
(:mod:`lan_demon.net.evening`, ``by`` the host), run on the arbiter's loop between two
wake-ups (:class:`lan_demon.net.asks.Asks`), so nothing races a move.
"""

from __future__ import annotations

import threading
from typing import Any, Callable, TextIO

from lan_demon.net import handover
from lan_demon.net.codec import ProtocolError
from lan_demon.net.table_facts import HOST
from lan_demon.net.names import name_key
from lan_demon.net.outbox import Outbox
from lan_demon.seat.evening import away_words, clock

HELP = ("pause — stop every clock (moves wait) · resume — go on · remove NAME (or its number"
        " in seats) — give a seat "
        "up for good (its cards stay and score) · remove NAME bot [LEVEL] — a bot plays the "
        "seat on (level 1-10) · seats — who is here, away or gone · help — this line")


def answer(line: str, arb: Any, now: float, out: Outbox,
           level: int = handover.DEFAULT_LEVEL) -> str:
    """One typed line, done on the arbiter's loop: the host's one answer, in words.
    ``level``: what ``remove NAME bot`` hands the seat to when it names none."""
    word, _, rest = line.strip().partition(" ")
    word, rest = word.lower(), rest.strip()
    if not word:
        return ""
    if word in ("pause", "resume", "remove") and arb.stall is not None:  # (§25)
        return f"not now: {arb.stall.words()} (nothing is journaled, so nothing changes)"
    try:
        if word in ("help", "?"):
            return HELP
        if word == "pause":
            arb.evening.pause(HOST, now, out)
            return "the table is paused: every clock stands still; type resume to go on"
        if word == "resume":
            still = now - arb.paused.since if arb.paused is not None else 0.0
            arb.evening.resume(HOST, now, out)
            return f"the table runs again (it stood {clock(still)})"
        if word == "remove":
            rest, bot = bot_words(rest, level)
            index = seat_named(arb, rest)
            if bot is not None:
                name = arb.seats[index].name
                new = arb.evening.remove(HOST, index, now, out, bot=bot)
                return f"{name}'s seat is handed to a bot, level {bot}: it plays on as {new} " \
                       "(until it connects, the seat is away)"
            name = arb.seats[index].name
            arb.evening.remove(HOST, index, now, out)
            return f"{name} is removed: the seat is given up for good; its cards stay where " \
                   "they lie and still score"
        if word == "seats":
            return seats_line(arb, now)
    except (ProtocolError, LookupError) as err:
        return getattr(err, "reason", None) or str(err).strip("'\"")
    return f"there is no command {word!r} here; type help"


def bot_words(rest: str, level: int) -> tuple[str, int | None]:
    """``remove``'s words after it: the seat's name, and the level of the bot to hand it to
    ("Bob bot 3"; "Bob bot": ``level``), or None for a plain removal."""
    words = rest.split()
    if len(words) >= 3 and words[-2].lower() == "bot" and words[-1].lstrip("-").isdigit():
        return " ".join(words[:-2]), int(words[-1])
    if len(words) >= 2 and words[-1].lower() == "bot":
        return " ".join(words[:-1]), level
    if len(words) >= 2 and words[-2].lower() == "bot":
        raise LookupError(f"a bot's level is a whole number from {handover.LOWEST} to "
                          f"{handover.HIGHEST}, not {words[-1]!r}")
    return rest, None


def seat_named(arb: Any, name: str) -> int:
    """The seat a typed name means: its name as the table reads it (case, spaces and "²" as
    "2" aside: net/names.name_key), else a seat's number (seats lists them), else the one
    whose letters start so or hold it ("bob" for "🃏Bob🎉", which a host cannot type)."""
    if not name:
        raise LookupError("remove whom? type remove and a name or a seat's number (seats "
                          "lists them)")
    live = [s for s in arb.seats if not s.removed]
    key = name_key(name)
    number = name.isdigit() and 1 <= int(name) <= len(arb.seats)
    for found in (lambda s: s.name == name, lambda s: name_key(s.name) == key,
                  lambda s: not number and letters(s.name).startswith(letters(name)),
                  lambda s: not number and letters(name) in letters(s.name)):
        hits = [s.index for s in live if letters(name) and found(s)]
        if len(hits) == 1:
            return hits[0]
        if len(hits) > 1:
            raise LookupError(f"{name!r} could be {' or '.join(arb.seats[i].name for i in hits)}"
                              f": type more of the name, or the seat's number (seats lists "
                              f"them)")
    if number:
        return int(name) - 1
    taken = ", ".join(f"{s.index + 1} {s.name}" for s in live) or "nobody"
    raise LookupError(f"nobody at the table is called {name!r} (seated: {taken}; a seat's "
                      f"number will do)")


def letters(name: str) -> str:
    """A name's letters and digits only, as a host types them (no emoji, no marks)."""
    return "".join(ch for ch in name_key(name) if ch.isalnum())


def seats_line(arb: Any, now: float) -> str:
    parts = []
    for s in arb.seats:
        kept = arb.seating.kept(s, now)
        if s.removed:
            parts.append(f"{s.index + 1} {s.name} removed")
        elif kept is not None:
            parts.append(f"{s.index + 1} " + away_words(s.name, kept))
        else:
            parts.append(f"{s.index + 1} {s.name} {'here' if s.status == 'here' else 'gone'}")
    paused = "" if arb.paused is None else f" · paused by {arb.paused.words()}"
    return ("; ".join(parts) or "no seat is taken yet") + paused


class Desk:
    """Reads the host's window line by line in a thread of its own and hands each line to the
    arbiter's loop (``call``: the server's ``asks.put``), printing its answer to ``out``."""

    def __init__(self, call: Callable[[Callable[[Any, float, Outbox], str]], str],
                 lines: TextIO, out: TextIO, level: int = handover.DEFAULT_LEVEL):
        self.call, self.lines, self.out, self.level = call, lines, out, level
        self.thread = threading.Thread(target=self._run, name="host desk", daemon=True)

    def start(self) -> "Desk":
        print(f"lan-demon: type help for what you can do here ({HELP.split(' · ')[0]} …)",
              file=self.out, flush=True)
        self.thread.start()
        return self

    def _run(self) -> None:
        for line in self.lines:
            if not line.strip():
                continue
            said = self.call(lambda arb, now, out, line=line: answer(line, arb, now, out,
                                                                     self.level))
            self.out.write(f"lan-demon: {said}\n")  # one write: the log's thread prints too
            self.out.flush()
