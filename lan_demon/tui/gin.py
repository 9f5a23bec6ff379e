"""The Gin Solitaire table (GS-1 … GS-9): your hand, arranged by the meld solver, vs the Joker.

The hand is shown as the engine's exact solver arranges it (GS-5): each meld on a line of its
own, then the deadwood with its points, then — holding 11 cards — the discard that leaves the
least deadwood. The cards carry letters that mean nothing else in any game (``a b c e f g i j
k l m o``: never ``h``, the hint in every game, nor ``d``, ``n``, ``s``…) — in displayed order
at the deal; after that a card keeps its letter while it stays in the hand, and a drawn card
never takes the letter the discard just freed (:mod:`lan_demon.seat.gin`), so a key does not
change under the player's finger — and a letter is the key that lets that card go:

* ``n`` draws the top card (GS-4); "You drew 7♥ (its letter: c)" says which came, and where;
* a letter discards that card face down (GS-3, GS-4) at once, and the status line says
  which card went and the deadwood left;
* ``K`` then a letter knocks, discarding that card (GS-6), once ``y`` confirms it — refused
  here, with the deadwood it would leave, when that is more than 10;
* ``B`` calls Big Gin (all 11 cards melded, GS-6);
* ``h`` (as in every game; ``H`` too) asks the coach: the solver's own advice
  (:class:`lan_demon.coach.gin.GinCoach`, handed in by the command, as the TUI imports no
  bot) — the best discard and whether to knock, each with its expected points this round —
  worked out from this seat's view alone: the hand, the cards it has held this round, the
  pile's size.

The keys are listed as every game lists them (:func:`lan_demon.seat.acts.key_help`).
"""

from __future__ import annotations

from typing import Any

from lan_demon.games.gin_scoring import TARGET
from lan_demon.games.gin_solitaire import DISCARD, DRAW, FIRST_DISCARD, KNOCK_LIMIT, OVER
from lan_demon.seat.acts import key_help
from lan_demon.seat.gin import LETTERS, GinSeat, Layout, phase_text, result_text
from lan_demon.net.cells import pad
from lan_demon.tui.facts import name_column
from lan_demon.tui.style import Fragments, card_fragments, card_margin, clip_line, line
from lan_demon.tui.table import Controller, GameScreen
from lan_demon.tui.text import advice_lines, fold, join_lines, lines_of

__all__ = ["GinScreen", "LETTERS", "Layout"]
CARD_WIDTH = 6  # " a" + " 10♥" at most


def fit(frags: Fragments, width: int) -> Fragments:
    """Every line of ``frags`` within ``width`` cells (the window does not wrap; a line is
    laid out to fit, this is the safety net)."""
    return join_lines([clip_line(row, width) for row in lines_of(frags)])


class GinScreen(GameScreen):
    keys = [(k.key, k.words) for k in key_help("GinSeat")]
    brief = {k.key: k.brief for k in key_help("GinSeat")}
    rules = """
GS-1 You against the Joker: 52 cards and one Joker. A = 1, 2–10 as numbered, J Q K = 10.
GS-2 You get 11 cards; the Joker is shuffled into the other 41, the Draw pile.
GS-3 First discard one card face down (its letter). Discards are never seen again.
GS-4 Then each turn: draw the top card (n), then discard one card (its letter) — or end.
GS-5 Melds: a run of 3+ in one suit (aces low only), a set of 3 or 4 of a rank. A card is in
     one meld at most; deadwood is the value of the rest, arranged for the least (shown).
GS-6 With deadwood ≤ 10 after a discard you may knock (K, the card's letter, then y); all
     10 melded is Gin; all 11 melded after a draw is Big Gin (B), with no discard.
GS-7 C = the cards left above the Joker. Knock: you score C − deadwood, or if C is less the
     Joker scores 25 + (deadwood − C). Gin 25 + C, Big Gin 31 + C. Drawing the Joker ends
     the round and the Joker scores your deadwood.
GS-8 Rounds go on until one side reaches 100; you win if you get there first.
GS-9 Several players play side by side, each alone against a Joker of their own; the
     results are compared. Duplicate deals (the host's default): everyone gets the same
     cards, so a player ahead of you has drawn your next cards. Independent deals (host
     --deals independent): each seat gets its own cards. The lobby says which."""

    def __init__(self, coach: Any = None) -> None:
        """``coach``: an object with ``see(view)``, ``advise(view, legal)`` and ``reset()``
        (:class:`lan_demon.coach.gin.GinCoach`); None: no coach at this table."""
        self.game = GinSeat(coach)  # the hand's letters, the knock asked: the seat's
        self.knocking = False  # "K" was pressed: the next letter knocks

    @property
    def coach(self) -> Any:
        return self.game.coach

    @property
    def knocked(self) -> Any:
        return self.game.knocked

    @property
    def knock_card(self) -> Any:
        return self.game.knock_card

    @property
    def advice(self) -> Any:
        return self.game.advice

    def reset(self) -> None:
        self.knocking = False

    def layout(self, view: dict[str, Any] | None) -> Layout:
        return self.game.layout(view)

    # --- keys ------------------------------------------------------------------------------

    def key(self, ctl: Controller, key: str) -> bool:
        game = self.game
        if game.knock_card is not None:
            if key in ("y", "enter"):
                game.knock(game.knock_card, sure=True)
            else:
                game.dismiss()
            return True
        if key == "escape":
            if self.knocking:
                self.knocking = False
                ctl.flash("cancelled")
            return True
        simple = {"n": game.draw, "B": game.big_gin, "h": game.hint, "H": game.hint}
        if key in simple:
            self.knocking = False
            simple[key]()
            return True
        if key == "K":
            self.knocking = False
            refusal = game.knock_refusal(ctl.client.view())
            if refusal is not None:
                ctl.flash_refusal(refusal)
            else:
                self.knocking = True
                ctl.flash("knock: which card goes face down? its letter — Esc cancels")
            return True
        if len(key) == 1 and key in LETTERS:
            knocking, self.knocking = self.knocking, False
            if knocking and not game.layout().unknown and game.card_of(key) is not None:
                game.knock(key)
                if game.knock_card is not None:  # asked: the question stays up a while
                    ctl.flash_until = ctl.clock() + 30.0
            else:
                game.tap_card(key)
            return True
        return False

    def _advice_lines(self, view: dict[str, Any], width: int) -> Fragments:
        return advice_lines(self.game.advice_shown(view), width)

    # --- drawing ---------------------------------------------------------------------------

    def render(self, ctl: Controller, width: int, height: int) -> Fragments:
        return fit(self._render(ctl, width), width)

    def _render(self, ctl: Controller, width: int) -> Fragments:
        view = ctl.client.view()
        if view is None:
            return line("waiting for the deal…")
        if ctl.client.seat is None or "hand" not in view:
            return self._watching(ctl, view)
        lay = self.layout(view)
        phase = view["phase"]
        out = line(("class:me", " vs the Joker"), f" · Draw pile {view['draw']} (Joker inside)",
                   ("class:dim", f" · {view['discards']} discarded"))
        out += line(("class:dim", " phase "), ("", self._phase_text(phase)))
        out += self._hand(view, lay, width)
        out += line("") + self._drawn_line(view, lay) + fold(self._prompt(view, lay), width)
        out += self._advice_lines(view, width)
        out += fold(self._score(ctl)[:-1], width)
        out += self._others(ctl, view, width)
        if ctl.client.pending:
            out += line(("class:dim", f" ({len(ctl.client.pending)} on the way)"))
        return out

    @staticmethod
    def _phase_text(phase: str) -> str:
        return phase_text(phase)

    def _hand(self, view: dict[str, Any], lay: Layout, width: int) -> Fragments:
        size = len(view["hand"])
        if lay.points is None:
            facts = "…" if lay.unknown else ""
        elif lay.discard is not None:
            facts = f" · deadwood {lay.points} without {lay.discard.symbol}"
        else:
            facts = f" · deadwood {lay.points}"
        out = line(("class:me", f" Your hand ({size} cards{facts})"))
        per_line = max(1, (width - 16) // (CARD_WIDTH + 2 * len(card_margin())))
        labels = {"meld": "meld", "deadwood": "deadwood", "discard": "spare card",
                  "hand": "hand"}
        for kind, cards in lay.groups:
            for start in range(0, len(cards), per_line):
                chunk = cards[start:start + per_line]
                label = labels[kind] if start == 0 else ""
                frags: Fragments = [("class:good" if kind == "meld" else "class:dim",
                                     f"   {label:<12}")]
                for card in chunk:
                    frags += [("class:key", f" {lay.letters.get(card, '?')}")] + \
                        card_fragments(card)
                if kind == "deadwood" and start + per_line >= len(cards):
                    frags.append(("class:warn", f"   = {lay.points}"))
                out += line(frags)
        if lay.unknown:
            out += line(("class:dim", "   drawing…  "), ("class:card.hidden", " ░░"))
        return out

    def _drawn_line(self, view: dict[str, Any], lay: Layout) -> Fragments:
        """What n brought, with the letter it took: the hand is sorted by the solver, so
        the new card could be anywhere in it."""
        card = self.game.drawn
        if card is None or view["phase"] != DISCARD or card not in lay.letters:
            return []
        return line(" You drew", *card_fragments(card, width=len(card.symbol)),
                    f" (its letter: {lay.letter(card)})")

    def _prompt(self, view: dict[str, Any], lay: Layout) -> list[tuple[str, str]]:
        phase = view["phase"]
        if phase == OVER:
            return [("class:good", " " + self._result_text(view.get("result")))]
        if lay.unknown:
            return [("class:dim", " drawing…")]
        if self.knock_card is not None:
            return [("class:key", f" Knock with {self.knock_card.symbol}?"),
                    ("", " y knocks — any other key keeps playing")]
        if phase == FIRST_DISCARD:
            return [("class:key", " Discard one card face down to begin:"),
                    ("", f" its letter ({lay.letter(lay.discard)} discards "
                     f"{lay.discard.symbol}: the least deadwood left)" if lay.discard else
                     " its letter")]
        if phase == DRAW:
            return [("class:key", " n"), ("", " draws the top card")]
        if self.knocking:
            return [("class:key", " Knock: which card goes face down?"),
                    ("", " its letter — Esc cancels")]
        if lay.big_gin:
            return [("class:good", " Big Gin! press B"), ("", " (31 + C)")]
        best = lay.points
        if best is not None and best <= KNOCK_LIMIT and lay.discard is not None:
            what = "Gin!" if best == 0 else f"You can knock with {best} deadwood:"
            return [("class:good", f" {what}"),
                    ("", f" K {lay.letter(lay.discard)} knocks with {lay.discard.symbol}; "
                     f"a letter alone discards")]
        return [("class:key", " Discard a card:"),
                ("", f" its letter ({lay.letter(lay.discard)} discards {lay.discard.symbol}: "
                 "the least deadwood left)" if lay.discard else " its letter")]

    @staticmethod
    def _result_text(result: dict[str, Any] | None) -> str:
        return result_text(result)

    @staticmethod
    def _score(ctl: Controller) -> Fragments:
        seat = ctl.client.seat or 0
        players = max(1, len(ctl.seats))
        sheet = ctl.client.scores
        totals = sheet.totals() + [0] * (2 * players)  # (none before a round ends)
        joker = "Joker" if players == 1 else f"Joker ({ctl.name(seat)})"
        played = sheet.played
        rounds = "1 round" if played == 1 else f"{played} rounds"
        return line(("class:me", " Score "), ("class:me", f"{ctl.name(seat)} "),
                    ("class:good", f"{totals[seat]}"), ("", f" · {joker} "),
                    ("class:warn", f"{totals[players + seat]}"),
                    ("class:dim", f"   first to {TARGET} (GS-8) · {rounds} played"))

    @staticmethod
    def _others(ctl: Controller, view: dict[str, Any], width: int) -> Fragments:
        """GS-9: the other seats, once this seat's round is over — on the same deal, or each
        on its own (the table's ``deals``)."""
        seats = view.get("seats")
        if not seats or len(seats) < 2:
            return []
        own = (ctl.client.config.get("options") or {}).get("deals") == "independent"
        out = line(("class:dim", " the other seats, each on its own deal (GS-9):" if own
                    else " the same deal at the other seats (GS-9):"))
        name_w = name_column([ctl.name(s["seat"]) for s in seats])
        for s in seats:
            if s["seat"] == ctl.client.seat:
                continue
            result = s.get("result") or {}
            what = result.get("result") or s["phase"]
            dw = f" deadwood {result['deadwood']}" if "deadwood" in result else ""
            out += line(f"   {pad(ctl.name(s['seat']), name_w)} {what}{dw}")
        return out

    @staticmethod
    def _watching(ctl: Controller, view: dict[str, Any]) -> Fragments:
        out = line(("class:me", " Watching Gin Solitaire (GS-9: each seat plays alone)"))
        name_w = name_column([ctl.name(s["seat"]) for s in view.get("seats", [])])
        for s in view.get("seats", []):
            result = (s.get("result") or {}).get("result") or s["phase"]
            out += line(f"   {pad(ctl.name(s['seat']), name_w)} draw {s['draw']:>2}  {result}")
        return out

