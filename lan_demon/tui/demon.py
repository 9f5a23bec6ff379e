"""The Racing Demon table (both variants): your cards, the stacks, everyone else in a strip.

Playing fast: one key picks a source — ``1``–``4`` the columns, ``p`` the Pile top, ``w`` the
waste top — and the card goes at once to the best legal place the local engine offers: a stack
first, else a column. To choose another place, press ``t`` before the source key: the places
are listed with letters, and the letter plays it. Space turns the Pack, ``s`` says "stuck".
"""

from __future__ import annotations

from typing import Any

from lan_demon.games.racing_demon import COLUMN_NAMES, Play, TurnPack, VoteStuck
from lan_demon.tui.style import Fragments, card_fragments, code_card, line
from lan_demon.tui.table import Controller, GameScreen

SOURCE_KEYS = {"1": "c1", "2": "c2", "3": "c3", "4": "c4", "p": "pile", "w": "waste"}
STRIP = 26  # characters per player in the strip of other players
LETTERS = "abcdefghijklmnopqrstuvwxyz"


def score_so_far(p: dict[str, Any], german: bool) -> int:
    """What the round would score now (RD-14; RG-6 counts the Pile only)."""
    if german:
        return p["pile"]
    return p["stacked"] + 5 * p["kings"] + 10 * p["out"] - p["pile"]


def rank_target(move: Play, column_size: int) -> int:
    """Where a card is best played: a stack, then a whole column moved (a Pile card refills
    it), then any other column; a partial run last."""
    if not move.target.startswith("c"):
        return 0
    if move.source.startswith("c"):
        return 1 if move.count == column_size else 3
    return 2


class DemonScreen(GameScreen):
    keys = [("1-4", "play a column"), ("p", "play the Pile top"), ("w", "play the waste top"),
            ("space", "turn the Pack"), ("s", "vote stuck"), ("t", "choose the place")]
    rules = """
Everybody plays at once. Empty your Pile (RD-12): the first OUT ends the round.
Stacks start on aces and build up in suit (RD-5); the King claims the stack (RD-6).
Columns build down, alternating red and black (RD-7); an empty column refills from the
Pile (RD-8). Only top cards may be played (RD-10). The Pack turns three at a time (RD-9).
Two cards for one place: the first counts, the other goes back (RD-11).
Stuck: everyone votes or turns through their Pack → Packs rotate; three in a row end it (RD-13).
Score: +1 a card on a stack, +5 a King, +10 OUT, −1 a card left in your Pile (RD-14).
German variant: Pile of 11, stacks up in rank whatever the suit, no laddering, the Pack turns
one at a time; score = cards left in your Pile, lowest total wins (RG-1…RG-7)."""

    def __init__(self) -> None:
        self.choosing = False  # "t" was pressed: the next source key lists its places
        self.options: list[Play] = []

    def reset(self) -> None:
        self.choosing, self.options = False, []

    # --- keys ------------------------------------------------------------------------------

    def key(self, ctl: Controller, key: str) -> bool:
        if self.options:
            return self._pick(ctl, key)
        if key == "t":
            self.choosing = True
            ctl.flash("choose: which card? (1-4, p, w)")
            return True
        if key in SOURCE_KEYS:
            return self._source(ctl, SOURCE_KEYS[key])
        if key in (" ", "space"):
            ctl.play(TurnPack())
            return True
        if key == "s":
            ctl.play(VoteStuck())
            return True
        return False

    def _source(self, ctl: Controller, source: str) -> bool:
        moves = self.places(ctl, source)
        if not moves:
            card = self._card(ctl, source)
            what = card.symbol if card else f"your {source}"
            ctl.flash(f"{what} has no place to go now (RD-5, RD-7, RD-10)")
            self.choosing = False
            return True
        if self.choosing and len(moves) > 1:
            self.choosing, self.options = False, moves
            listing = "  ".join(f"{LETTERS[i]}: {self._place(ctl, m)}"
                                for i, m in enumerate(moves))
            ctl.flash(f"to where? {listing}")
            return True
        self.choosing = False
        ctl.play(moves[0])
        return True

    def _pick(self, ctl: Controller, key: str) -> bool:
        options, self.options = self.options, []
        if len(key) == 1 and key in LETTERS[: len(options)]:
            ctl.play(options[LETTERS.index(key)])
        else:
            ctl.flash("cancelled")
        return True

    def places(self, ctl: Controller, source: str) -> list[Play]:
        """The legal places for a source's card, best first (the engine's moves, ordered)."""
        view = ctl.client.view()
        me = view["players"][ctl.client.seat] if view else None
        moves = [m for m in ctl.client.legal_moves()
                 if isinstance(m, Play) and m.source == source]
        size = len(me["columns"][COLUMN_NAMES.index(source)]) if me and source.startswith(
            "c") else 0
        return sorted(moves, key=lambda m: (rank_target(m, size), m.target, -m.count))

    def _card(self, ctl: Controller, source: str) -> Any:
        view = ctl.client.view()
        if not view:
            return None
        me = view["players"][ctl.client.seat]
        if source == "pile":
            return code_card(me["pile_top"])
        if source == "waste":
            return code_card(me.get("waste_top"))
        col = me["columns"][COLUMN_NAMES.index(source)]
        return code_card(col[-1]) if col else None

    def _place(self, ctl: Controller, move: Play) -> str:
        if move.target == "middle":
            return "a new stack"
        if move.target.startswith("s"):
            return f"stack {move.target[1:]}"
        run = f"{move.count} cards " if move.count > 1 else ""
        return f"{run}column {move.target[1:]}"

    # --- drawing ---------------------------------------------------------------------------

    def render(self, ctl: Controller, width: int, height: int) -> Fragments:
        view = ctl.client.view()
        if view is None:
            return line("waiting for the deal…")
        german = view["game"] == "racing-demon-german"
        seat = ctl.client.seat
        mine = self._mine(ctl, view["players"][seat], german) if seat is not None else []
        others = self._others(ctl, view, seat, german, width)
        room = max(2, height - mine.count(("", "\n")) - others.count(("", "\n")) - 3)
        stacks = self._stacks(view["stacks"], width, room)
        return stacks + line(("class:dim", "─" * width)) + others + \
            line(("class:dim", "─" * width)) + mine

    def _stacks(self, stacks: list[dict[str, Any]], width: int, rows: int) -> Fragments:
        per_row = max(1, (width - 10) // 5)
        out: Fragments = [("class:me", f" Stacks {len(stacks):<3}")]
        shown = stacks[: per_row * rows]
        for i, st in enumerate(shown):
            if i and i % per_row == 0:
                out += [("", "\n"), ("", " " * 11)]
            out += card_fragments(code_card(st["top"]), owner_edge=True) + [("", " ")]
        if len(stacks) > len(shown):
            out.append(("class:dim", f" +{len(stacks) - len(shown)} more"))
        if not stacks:
            out.append(("class:dim", "none yet — aces found them"))
        return out + [("", "\n")]

    def _others(self, ctl: Controller, view: dict[str, Any], seat: int | None, german: bool,
                width: int) -> Fragments:
        per_row = max(1, width // STRIP)
        out: Fragments = []
        entries = [(i, p) for i, p in enumerate(view["players"]) if i != seat]
        for n, (i, p) in enumerate(entries):
            status = ctl.seats[i].get("status", "here") if i < len(ctl.seats) else "here"
            mark = "OUT" if p["out"] else ("·" if status == "here" else status[:4])
            is_bot = i < len(ctl.seats) and ctl.seats[i].get("bot")
            name = ctl.name(i).removesuffix(" (bot)")[:8]
            score = score_so_far(p, german)
            cell = f"{name:<8}{'*' if is_bot else ' '}p{p['pile']:>2} {score:+4d} {mark:<4}"
            out += [(f"class:back{i % 8}", " "), ("class:away" if status != "here" else "",
                                                   cell.ljust(STRIP - 1))]
            if (n + 1) % per_row == 0:
                out.append(("", "\n"))
        if entries and len(entries) % per_row:
            out.append(("", "\n"))
        return out

    def _mine(self, ctl: Controller, me: dict[str, Any], german: bool) -> Fragments:
        pile = code_card(me["pile_top"])
        waste = code_card(me.get("waste_top"))
        head = line(("class:me", " You "), ("class:key", "p"), " Pile",
                    card_fragments(pile, True), f" {me['pile']:>2} left   ",
                    ("class:key", "w"), " waste", card_fragments(waste, True),
                    f" ({me['waste']})  Pack {me['pack']}   "
                    f"score {score_so_far(me, german):+d}" + ("   stuck ✓" if me["voted"]
                                                            else ""))
        cols: Fragments = []
        for i, col in enumerate(me["columns"]):
            cards: Fragments = []
            for code in col[-12:]:
                cards += card_fragments(code_card(code), True)
            more = f" …{len(col) - 12}" if len(col) > 12 else ""
            cols += line(("class:key", f"   {i + 1}"), cards, ("class:dim", more))
        pending = f"   ({len(ctl.client.pending)} on the way)" if ctl.client.pending else ""
        return head + cols + line(("class:dim", pending))
