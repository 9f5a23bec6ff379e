"""The Rack-O table (RK-1 … RK-9): your rack as ten slots, the piles, whose turn, the scores.

The rack reads like the real one standing in front of you: slot 50 at the top, slot 5 at the
bottom, nearest you. Each card sits along its slot at a place set by its number, so a rack in
order climbs as a staircase from bottom left to top right; the cards already in order from
slot 5 (what RK-6 scores) are in the "good" colour.

One key picks the card, one key the slot: ``d`` takes the Discard top and waits for a slot key;
``n`` draws from the Draw pile at once, and the drawn card then goes into a slot (slot key) or
back on the Discard pile (``x``). Slot keys are ``1`` … ``9``, ``0`` for slots 5 … 50. What is
possible comes from the client's legal moves; anything else is flashed with its reason and rule.

``h`` asks the coach: the strong bot's advice for this turn with its reason, from the bot's own
``advise(view)`` (``lan_demon.bots.racko.PlannerRackO.advise``) on this seat's own view — the
very move the bot would play, worked out from nothing the seat cannot see. It stays under the
prompt until the turn moves on. The TUI never imports a bot (the layers: players never import
each other), so whoever builds the table hands the screen its :attr:`RackOScreen.coach`.
"""

from __future__ import annotations

from typing import Any, Callable

from lan_demon.games.racko import CARD_POINTS, SLOTS, TARGET, ascending_prefix
from lan_demon.seat.acts import SLOT_KEYS, key_help
from lan_demon.seat.person import subject
from lan_demon.seat.racko import RackOSeat, held_text
from lan_demon.net.cells import cells, pad
from lan_demon.tui.facts import name_column
from lan_demon.tui.style import Fragments, card_margin, clip_line, line, text_of
from lan_demon.tui.table import Controller, GameScreen
from lan_demon.tui.text import advice_lines, fold, lines_of, wrap

#: The coach: the seat's view in, the advice out (``move``, ``reason``; ``str`` to show it).
Coach = Callable[[dict[str, Any]], Any]
__all__ = ["RackOScreen", "SLOT_KEYS", "held_text"]
KEY_OF_SLOT: dict[int, str] = {slot: key for key, slot in SLOT_KEYS.items()}
RIGHT = 30  # the width of the panel beside the rack
CARD = 4  # a card on the rack: " 17 "


def width_of(frags: Fragments) -> int:
    return cells(text_of(frags))


def beside(left: list[Fragments], right: list[Fragments], left_width: int,
           width: int) -> Fragments:
    """Two columns of lines side by side, the left one padded to ``left_width``, every line
    cut to ``width``."""
    out: Fragments = []
    for i in range(max(len(left), len(right))):
        a = left[i] if i < len(left) else []
        b = right[i] if i < len(right) else []
        row = a + [("", " " * max(0, left_width - width_of(a)))] + b
        out += clip_line(row, width) + [("", "\n")]
    return out


class RackOScreen(GameScreen):
    keys = [(k.key, k.words) for k in key_help("RackOSeat")]
    brief = {k.key: k.brief for k in key_help("RackOSeat")}
    rules = """
RK-1 2–4 players. Cards 1–40 for two players, 1–50 for three, 1–60 for four.
RK-2 The highest cut deals ten cards each, into slots 50 down to 5. A rack is never
     rearranged, and only its owner sees it.
RK-3 The rest is the Draw pile, face down; its top card starts the Discard pile.
RK-4 Turns go round from the dealer's left. On your turn either take the Discard top into
     a slot (d, then a slot key), or draw (n) and put the card into a slot (a slot key) or
     discard it (x). The card a new one replaces goes on the Discard pile.
RK-5 Ten cards rising from slot 5 to slot 50: Rack-O! The round ends at once.
RK-6 Rack-O scores 75; everyone else 5 for each card in order from slot 5 up to where the
     order breaks (those cards are shown in green).
RK-7 The first to 500 wins; if several pass 500 in a round the highest wins (ties share).
RK-8 The Draw pile used up: the Discard pile is turned over to become the Draw pile.
RK-9 Bonus Rack-O (a host option, off by default): the longest run of consecutive numbers
     also scores — 3 → 50, 4 → 100, 5 → 200, 6 or more → 400."""

    def __init__(self, coach: Coach | None = None) -> None:
        #: what the seat may do and is told, and the "Discard, then a slot" state: the seat's
        self.game = RackOSeat(coach)

    @property
    def coach(self) -> Coach | None:
        """The strong bot's advice from a view (``PlannerRackO().advise``); None: no coach."""
        return self.game.coach

    @coach.setter
    def coach(self, value: Coach | None) -> None:
        self.game.coach = value

    def awaiting_slot(self, ctl: Controller, view: dict[str, Any] | None = None) -> bool:
        """``d`` was pressed and the Discard top may still be taken: a slot key is awaited."""
        return self.game.awaiting_slot(view)

    def current_advice(self, view: dict[str, Any] | None) -> Any | None:
        """The advice ``h`` gave, while the table is still as it was when it was asked."""
        return self.game.current_advice(view)

    # --- keys ------------------------------------------------------------------------------

    def key(self, ctl: Controller, key: str) -> bool:
        game = self.game
        actions = {"escape": game.cancel, "d": game.tap_discard, "h": game.hint,
                   "n": game.draw, "x": game.discard}
        if key in actions:
            actions[key]()
        elif key in SLOT_KEYS:
            game.tap_slot(SLOT_KEYS[key], key=key)
        else:
            return False
        return True

    # --- drawing ---------------------------------------------------------------------------

    def render(self, ctl: Controller, width: int, height: int) -> Fragments:
        view = ctl.client.view()
        if view is None:
            return line("waiting for the deal…")
        left_width = max(30, min(48, width - RIGHT - 1))
        rack = view.get("rack")
        left = self._rack(rack, view["deck_size"], left_width) if rack else \
            lines_of(wrap("(watching: racks are seen by their owners only)", left_width - 1,
                          "class:dim"))
        right = self._panel(ctl, view, width - left_width)
        out = beside(left, right, left_width, width)
        out += fold(self._prompt(ctl, view), width)
        out += advice_lines(self.game.advice_shown(view), width)
        for note in self.game.stood_in.values():
            out += wrap(note, width, "class:away")
        if ctl.client.pending:
            out += line(("class:dim", f" ({len(ctl.client.pending)} on the way)"))
        return out

    def _rack(self, rack: list[int], deck: int, width: int) -> list[Fragments]:
        """The rack, slot 50 at the top and slot 5 at the bottom, as lines."""
        in_order = ascending_prefix(rack)
        strip = width - 10  # " k ss ┃" (7) + strip + "┃ ✓" (3)
        head: Fragments = [("class:me", " Your rack"),
                           ("class:dim", "  in order from 5: "),
                           ("class:good" if in_order else "", f"{in_order}"),
                           ("class:dim", f" ({CARD_POINTS * in_order} pts, RK-6)")]
        rows: list[Fragments] = [head]
        for index in range(len(rack) - 1, -1, -1):
            slot, card = SLOTS[index], rack[index]
            good = index < in_order
            size = CARD + 2 * len(card_margin())
            offset = round((card - 1) * (strip - size) / max(1, deck - 1)) if card else 0
            face = card_margin() + (f"{card:>3} " if card else "  ? ") + card_margin()
            rows.append([("class:key", f" {KEY_OF_SLOT[slot]}"), ("", f" {slot:>2} "),
                         ("class:dim", "┃"), ("class:dim", "·" * offset),
                         ("class:good reverse" if good else "class:card", face),
                         ("class:dim", "·" * (strip - size - offset) + "┃"),
                         ("class:good", " ✓") if good else ("", "  ")])
        return rows

    def _panel(self, ctl: Controller, view: dict[str, Any], width: int) -> list[Fragments]:
        """Whose turn, the piles, the drawn card, and everyone's totals toward 500."""
        seat = ctl.client.seat
        turn = view["turn"]
        if view["over"]:
            won = subject(ctl.name(view["racko"]), view["racko"] == seat)
            whose: Fragments = [("class:good", f" Rack-O! {won}")]
        elif turn == seat:
            whose = [("class:good", " ▶ Your turn")]
        else:
            whose = [("", f" {ctl.name(turn)}'s turn")]
        top, draw = view["discard_top"], view["draw_size"]
        rows: list[Fragments] = [
            whose,
            [("", " Discard "), ("class:card", card_margin() + (f"{top:>3} " if top else
                                                                 "  — ") + card_margin())],
            [("", f" Draw pile {draw} card{'' if draw == 1 else 's'}")],
        ]
        if "held" in view:
            rows.append([("", " You drew "), ("class:key", f"{held_text(view['held']):>3} ")])
        elif view["holding"]:
            rows.append([("class:dim", f" {ctl.name(turn)} drew a card")])
        else:
            rows.append([])
        table = ctl.client.table
        players = view["players"]
        totals = ctl.client.scores.totals() + [0] * players  # (none before a round ends)
        rounds = len(ctl.client.scores.results)
        rows.append([("class:me", f" Scores to {TARGET}"),
                     ("class:dim", f" · round {table.get('round', rounds) + 1}")])
        name_w = name_column([ctl.name(i) for i in range(players)])
        bar = max(0, width - 11 - name_w)
        for i in range(players):
            mark = "▶" if i == turn and not view["over"] else " "
            filled = min(bar, totals[i] * bar // TARGET)
            style = "class:me" if i == seat else ""
            seats = ctl.seats
            status = seats[i].get("status", "here") if i < len(seats) else "here"
            gone = "" if status == "here" else f" {status}"  # turns played for them (RK-4)
            dots = max(0, bar - filled - len(gone))
            rows.append([("", f" {mark} "), (style, pad(ctl.name(i), name_w)),
                         ("", f"{totals[i]:>5} "), ("class:chart", "█" * filled),
                         ("class:dim", "·" * dots), ("class:away", gone)])
        return rows

    def _prompt(self, ctl: Controller, view: dict[str, Any]) -> list[tuple[str, str]]:
        """What the table waits for, as one line; on your turn, with a coach, ``h`` too."""
        words = self._waiting_for(ctl, view)
        if self.coach is not None and self.game.mine(view) and \
                self.current_advice(view) is None:
            words.append(("class:dim", " · h hint"))
        return words

    def _waiting_for(self, ctl: Controller, view: dict[str, Any]) -> list[tuple[str, str]]:
        """The seat's prompt, its first part (up to the colon or arrow) as a key's colour."""
        words = self.game.prompt(view)
        if ctl.client.seat is None:
            return [("class:dim", f" {words}")]
        if view["over"]:
            return [("class:good", f" {words}")]
        if not self.game.mine(view):
            return [("class:dim", f" {words}")]
        cut = words.find("?") + 1 if self.game.awaiting_slot(view) else words.find(":") + 1
        return [("class:key", f" {words[:cut]}"), ("", words[cut:])]
