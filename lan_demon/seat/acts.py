"""Intents by name — the page's ``act`` frames — and the terminal's keys as intents.

:func:`act` turns ``{"do": "play", "from": "c2"}`` into a call on the seat (or its game's
seat), checking every argument: a name or argument a seat does not know is refused in words,
nothing changed. :func:`key_map` is the terminal's key map as intents (``face["keys"]``), so
a keyboard on the page does exactly what the terminal's does; keys whose meaning is the
terminal's own (its help, its pages, "choose the place") are not in it.

The keys are one vocabulary for every game ("no key that bites"): a key that means
something in one game (``h`` a hint, ``n`` draw, ``d`` the Discard, ``x`` discard, ``s`` stuck,
``q`` leave, ``y`` yes…) is never a card's or a place's letter in another, so a habit from
Racing Demon never throws a Gin card away. Cards and places take :data:`PICK_LETTERS`.
:func:`key_help` lists each game's keys in one order and one wording — its moves, then
``h hint``, then ``esc cancel`` — for the terminal's status line and help and the page alike.
"""

from __future__ import annotations

import string
from dataclasses import dataclass
from typing import Any

from lan_demon.games.racko import SLOTS
from lan_demon.seat import evening
from lan_demon.seat.words import watching

#: Rack-O slot keys: ``1`` → slot 5 … ``9`` → slot 45, ``0`` → slot 50.
SLOT_KEYS: dict[str, int] = {str((i + 1) % 10): slot for i, slot in enumerate(SLOTS)}
#: Racing Demon's one-key play: the source each key names.
SOURCE_KEYS = {"1": "c1", "2": "c2", "3": "c3", "4": "c4", "p": "pile", "w": "waste"}
#: Keys with one meaning wherever they mean anything: the lobby's and the questions' (q, s, v,
#: y), Racing Demon's (p, s, t, w), Rack-O's (d, n, x), and the hint (h) in every game.
SHARED_KEYS = "dhnpqstvwxy"
#: The letters a card (Gin Solitaire) or a place (Racing Demon's "choose the place") is given:
#: none of them means anything else in any game.
PICK_LETTERS = "".join(k for k in string.ascii_lowercase if k not in SHARED_KEYS)
PLACES = {"middle"} | {f"c{i}" for i in range(1, 5)}


def _place(to: Any) -> bool:
    return isinstance(to, str) and (to in PLACES or (to[:1] == "s" and to[1:].isdigit()))


def act(seat: Any, do: Any, args: dict[str, Any]) -> Any:
    """Do the intent ``do`` with ``args``; a Sent, a Refusal, or None (nothing to send)."""
    game = seat.game
    if do == "ready":
        return seat.ready()
    if do == "start":
        return seat.start()
    if do == "start_anyway":
        return seat.start_anyway() if seat.captain else seat.refuse(
            "only the captain starts the match")
    if do == "leave":
        return seat.leave(sure=args.get("sure") is True)
    if do == "dismiss":
        return seat.dismiss()
    if seat.spectator:
        return seat.refuse(watching(seat.how))
    if do in ("pause", "resume"):  # the evening (§24): the captain's
        return evening.pause(seat) if do == "pause" else evening.resume(seat)
    if do == "remove":
        return evening.remove(seat, args.get("seat"), sure=args.get("sure") is True,
                              bot=args.get("bot"))
    if seat.phase != "playing":
        return seat.refuse("no round is being played now")
    if evening.paused(seat) or evening.stalled(seat):  # nothing moves: the arbiter refuses it
        return seat.refuse(evening.paused_refusal(seat))
    kind = type(game).__name__
    if kind == "DemonSeat":
        if do == "play":
            source, to = args.get("from"), args.get("to")
            if not isinstance(source, str) or (to is not None and not _place(to)):
                return seat.refuse("play needs a card to play from: the Pile, the waste or "
                                   "a column, and maybe where to")
            return game.play_from(source, to)
        if do == "turn":
            return game.turn()
        if do == "stuck":
            return game.stuck()
    elif kind == "RackOSeat":
        slot = args.get("slot")
        if do in ("take", "slot") and (isinstance(slot, bool) or slot not in SLOTS):
            return seat.refuse(f"there is no slot {slot!r}: the slots are 5, 10, … 50")
        simple = {"draw": game.draw, "discard_pile": game.tap_discard, "discard": game.discard,
                  "hint": game.hint, "why": game.why, "cancel": game.cancel}
        if do in simple:
            return simple[do]()
        if do == "take":
            return game.take_discard(slot)
        if do == "slot":
            return game.tap_slot(slot)
    elif kind == "GinSeat":
        card = args.get("card")
        if do in ("card", "knock") and not isinstance(card, str):
            return seat.refuse("which card? its code, such as QS")
        if do == "card":
            return game.tap_card(card)
        if do == "knock":
            return game.knock(card, sure=args.get("sure") is True)
        simple = {"draw": game.draw, "big_gin": game.big_gin, "hint": game.hint,
                  "why": game.why}
        if do in simple:
            return simple[do]()
    return seat.refuse(f"'{do}' is not something this table does")


def key_map(seat: Any) -> dict[str, dict[str, Any]]:
    """The terminal's keys, each as the intent it means now (``enter``, ``escape``,
    ``space`` by name; letters as typed)."""
    keys: dict[str, dict[str, Any]] = {}
    phase = seat.phase
    question = seat.question()
    if question is not None:
        return {"y": question.yes, "enter": question.yes, "escape": question.no}
    keys["q"] = {"do": "leave"}
    if seat.spectator:
        return keys
    keys.update(evening.keys(seat))  # P pauses or resumes, R removes (the captain's)
    if phase == "lobby":
        keys["enter"] = {"do": "start" if seat.captain and not seat.self_starting else "ready"}
        keys["s"] = keys["enter"]
    elif phase == "between":
        keys["enter"] = {"do": "ready"}
    if phase != "playing":
        return keys
    kind = type(seat.game).__name__
    if kind == "DemonSeat":
        for key, source in SOURCE_KEYS.items():
            keys[key] = {"do": "play", "from": source}
        keys["space"] = keys[" "] = {"do": "turn"}
        keys["s"] = {"do": "stuck"}
    elif kind == "RackOSeat":
        keys.update({"d": {"do": "discard_pile"}, "n": {"do": "draw"}, "x": {"do": "discard"},
                     "h": {"do": "hint"}, "escape": {"do": "cancel"}})
        for key, slot in SLOT_KEYS.items():
            keys[key] = {"do": "slot", "slot": slot}
    elif kind == "GinSeat":
        keys.update({"n": {"do": "draw"}, "B": {"do": "big_gin"}, "h": {"do": "hint"},
                     "H": {"do": "hint"}})  # (H: what it was before every game's h)
        lay = seat.game.layout() if seat.client.view() else None
        for card, letter in (lay.letters.items() if lay is not None else ()):
            keys[letter] = {"do": "card", "card": card.to_data()}
    return keys


@dataclass(frozen=True)
class KeyHelp:
    """One line of a game's keys: the key as written (``1-4``, ``space``, ``letter``), what
    it does, and whether a keyboard on the page does it too (some are the terminal's own:
    its "choose the place", the page's long press); ``short``: the words in one, for a
    status line too narrow for them all (60 columns), when ``words`` are longer."""

    key: str
    words: str
    page: bool = True
    short: str = ""

    @property
    def brief(self) -> str:
        """The words in the fewest: ``short`` if it has one."""
        return self.short or self.words


HINT = KeyHelp("h", "hint")
CANCEL = KeyHelp("esc", "cancel")
#: Each game's keys in the one order: its moves, then the hint, then cancel.
GAME_KEYS: dict[str, list[KeyHelp]] = {
    "DemonSeat": [KeyHelp("1-4", "play a column", short="column"),
                  KeyHelp("p", "play the Pile top", short="Pile"),
                  KeyHelp("w", "play the waste top", short="waste"),
                  KeyHelp("space", "turn the Pack", short="Pack"),
                  KeyHelp("s", "vote stuck", short="stuck"),
                  KeyHelp("t", "choose the place", page=False, short="choose"),
                  KeyHelp("h", "hint", page=False), KeyHelp("esc", "cancel", page=False)],
    "RackOSeat": [KeyHelp("n", "draw"), KeyHelp("d", "take the Discard", short="Discard"),
                  KeyHelp("1-9,0", "slot 5…50"), KeyHelp("x", "discard drawn"),
                  HINT, CANCEL],
    "GinSeat": [KeyHelp("n", "draw"), KeyHelp("letter", "discard that card", short="discard"),
                KeyHelp("K letter", "knock, y confirms", page=False, short="knock"),
                KeyHelp("B", "Big Gin"), HINT, KeyHelp("esc", "cancel", page=False)],
}
#: The keys every table has, after its game's.
TABLE_KEYS = [KeyHelp("?", "help", page=False), KeyHelp("q", "leave")]


def key_help(kind: str) -> list[KeyHelp]:
    """The keys of a game's seat (``type(seat.game).__name__``), in the one order."""
    return list(GAME_KEYS.get(kind, []))
