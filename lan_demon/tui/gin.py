"""The Gin Solitaire table (GS-1 … GS-9): your hand, arranged by the meld solver, vs the Joker.

The hand is shown as the engine's exact solver arranges it (GS-5): each meld on a line of its
own, then the deadwood with its points, then — holding 11 cards — the discard that leaves the
least deadwood. The cards carry the letters ``a`` … ``k`` — in displayed order at the deal;
after that a card keeps its letter while it stays in the hand (a drawn card takes the letter
the discard freed), so a key does not change under the player's finger — and a letter is the
key that lets that card go:

* ``n`` draws the top card (GS-4); "You drew 7♥ (its letter: c)" says which came, and where;
* a letter discards that card face down (GS-3, GS-4) at once, and the status line says
  which card went and the deadwood left;
* ``K`` then a letter knocks, discarding that card (GS-6), once ``y`` confirms it — refused
  here, with the deadwood it would leave, when that is more than 10;
* ``B`` calls Big Gin (all 11 cards melded, GS-6);
* ``H`` asks the coach: the solver's own advice (:class:`lan_demon.coach.gin.GinCoach`, handed
  in by the command, as the TUI imports no bot) — the best discard and whether to knock, each
  with its expected points this round — worked out from this seat's view alone: the hand, the
  cards it has held this round, the pile's size.
"""

from __future__ import annotations

from typing import Any

from lan_demon.games.cards import SUITS, Card
from lan_demon.games.gin_moves import BigGin, Discard, Draw, Knock, Move
from lan_demon.games.gin_scoring import TARGET
from lan_demon.games.gin_solitaire import DISCARD, DRAW, FIRST_DISCARD, KNOCK_LIMIT, OVER
from lan_demon.games.melds import HAND_SIZE, best_arrangement, deadwood_after_discard, is_big_gin
from lan_demon.tui.facts import fit_name
from lan_demon.tui.style import Fragments, card_fragments, line
from lan_demon.tui.table import READ_SECONDS, Controller, GameScreen
from lan_demon.tui.text import wrap

LETTERS = "abcdefghijk"
CARD_WIDTH = 6  # " a" + " 10♥" at most


def fit(frags: Fragments, width: int) -> Fragments:
    """Every line of ``frags`` cut to ``width`` characters (the window does not wrap)."""
    out: Fragments = []
    room = width
    for style, text in frags:
        parts = text.split("\n")
        for i, part in enumerate(parts):
            if i:
                out.append(("", "\n"))
                room = width
            if part and room > 0:
                out.append((style, part[:room]))
                room -= len(part)
    return out


def sort_key(card: Card) -> tuple[int, int]:
    return card.rank, SUITS.index(card.suit)


class Layout:
    """The hand as shown: groups of (kind, cards) in display order, and the solver's facts."""

    def __init__(self, cards: list[Card]):
        known = [c for c in cards if not c.hidden]
        self.unknown = len(cards) - len(known)
        self.size = len(cards)
        self.groups: list[tuple[str, list[Card]]] = []
        self.points: int | None = None
        self.discard: Card | None = None
        self.big_gin = False
        self.after: dict[Card, int] = {}
        if self.unknown or not known:
            self.groups = [("hand", sorted(known, key=sort_key))] if known else []
            return
        arrangement = best_arrangement(known)
        melds = sorted((sorted(m, key=sort_key) for m in arrangement.melds),
                       key=lambda m: sort_key(m[0]))
        self.groups = [("meld", m) for m in melds]
        if arrangement.deadwood:
            self.groups.append(("deadwood", sorted(arrangement.deadwood, key=sort_key)))
        if arrangement.discard is not None:
            self.groups.append(("discard", [arrangement.discard]))
        self.points = arrangement.points
        self.discard = arrangement.discard
        if len(known) == HAND_SIZE:
            self.big_gin = is_big_gin(known)
            self.after = deadwood_after_discard(known)

        self.letters: dict[Card, str] = {c: LETTERS[i] for i, c in enumerate(self.order)}

    @property
    def order(self) -> list[Card]:
        """The cards in displayed order."""
        return [c for _, cards in self.groups for c in cards]

    def letter(self, card: Card) -> str:
        """The key of ``card``: it keeps its letter while it stays in the hand."""
        return self.letters[card]

    def card(self, letter: str) -> Card | None:
        return next((c for c, k in self.letters.items() if k == letter), None)

    def keep_letters(self, before: dict[Card, str]) -> None:
        """Cards still in hand keep the letters they had; a new card takes a free one."""
        cards = [c for c in self.order if not c.hidden]
        kept = {c: before[c] for c in cards if c in before}
        free = [k for k in LETTERS if k not in kept.values()]
        for c in cards:
            if c not in kept:
                kept[c] = free.pop(0)
        self.letters = kept


class GinScreen(GameScreen):
    keys = [("n", "draw"), ("a-k", "discard that card"), ("K a-k", "knock, y confirms"),
            ("B", "Big Gin"), ("H", "advice"), ("esc", "cancel")]
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
        self.coach = coach
        self.knocking = False  # "K" was pressed: the next letter knocks
        self.knock_card: Card | None = None  # K and a letter: y (or Enter) knocks with it
        self._layout: tuple[tuple[str, ...], Layout] | None = None
        self.drawn: Card | None = None  # the card the last draw brought, while it is in hand
        self.knocked: Card | None = None  # the card this round's knock went with (GS-6)
        self.advice: tuple[tuple[Any, ...], Any] | None = None  # shown for this position

    def reset(self) -> None:
        self.knocking, self.knock_card, self._layout, self.drawn = False, None, None, None
        self.knocked = None
        self.advice = None
        if self.coach is not None:
            self.coach.reset()  # the cards this seat has held this round: none yet

    # --- facts -----------------------------------------------------------------------------

    def layout(self, view: dict[str, Any] | None) -> Layout:
        hand = tuple(view.get("hand", [])) if view else ()
        if self._layout is None or self._layout[0] != hand:
            lay = Layout([Card.from_data(c) for c in hand])
            if self._layout is not None:
                lay.keep_letters(self._layout[1].letters)
                self.drawn = self._new_card(self._layout[1], lay)
            self._layout = (hand, lay)
            if self.coach is not None and view and hand and not lay.unknown \
                    and "phase" in view:
                self.coach.see(view)  # every hand shown is remembered, for the coach
        return self._layout[1]

    @staticmethod
    def _new_card(before: Layout, lay: Layout) -> Card | None:
        """The card a draw brought (GS-4): the one new card of a full hand, face up; None
        once the hand changes otherwise (a discard), so "You drew" lasts one turn."""
        if lay.unknown or lay.size != HAND_SIZE:
            return None
        new = [c for c in lay.letters if c not in before.letters]
        return new[0] if len(new) == 1 else None

    @staticmethod
    def position(view: dict[str, Any]) -> tuple[Any, ...]:
        """What the advice depends on: the hand, the phase, the pile's size."""
        return tuple(view.get("hand", [])), view.get("phase"), view.get("draw")

    def why_not(self, ctl: Controller, move: Move) -> str:
        """Why ``move`` is not possible now, with the rule id."""
        client = ctl.client
        view = client.view()
        if client.seat is None:
            return "spectators watch; they do not play"
        if view is None or ctl.phase != "playing":
            return "GS-4: no round is in progress"
        if self.layout(view).unknown:
            return "your drawn card is on its way — a moment"
        return ctl.engine_verdict(move) or f"'{move}' is not possible now"

    # --- keys ------------------------------------------------------------------------------

    def _try(self, ctl: Controller, move: Move) -> bool:
        return ctl.try_play(move, self.why_not)

    def _discard(self, ctl: Controller, lay: Layout, card: Card, phase: str | None) -> None:
        """A letter alone discards at once (one key, no question), so the status line says
        which card went face down and the deadwood left — and, when the solver's best
        discard (shown in the hand) would have left less, which card that was and how much."""
        if not self._try(ctl, Discard(card)):
            return
        after = lay.after.get(card)
        said = f"{card.symbol} discarded face down"
        if after is not None:
            said += f": deadwood {after}"
            if lay.discard is not None and lay.points is not None and after > lay.points:
                said += f" ({lay.discard.symbol} would have left {lay.points})"
        ctl.flash(said, rule="GS-3" if phase == FIRST_DISCARD else "GS-4",
                  seconds=READ_SECONDS)

    def key(self, ctl: Controller, key: str) -> bool:
        view = ctl.client.view()
        if self.knock_card is not None:
            card, self.knock_card = self.knock_card, None
            if key in ("y", "enter"):
                if self._try(ctl, Knock(card)):
                    self.knocked = card  # the result holds only the deadwood: the banner asks
            else:
                ctl.flash("no knock — your turn goes on")
            return True
        if key == "escape":
            if self.knocking:
                self.knocking = False
                ctl.flash("cancelled")
            return True
        if key == "n":
            self.knocking = False
            self._try(ctl, Draw())
            return True
        if key == "B":
            self.knocking = False
            self._try(ctl, BigGin())
            return True
        if key == "K":
            return self._knock_key(ctl, view)
        if key == "H":
            self.knocking = False
            self._advise(ctl, view)
            return True
        if len(key) == 1 and key in LETTERS:
            return self._letter(ctl, view, key)
        return False

    def _knock_key(self, ctl: Controller, view: dict[str, Any] | None) -> bool:
        phase = view.get("phase") if view else None
        self.knocking = False
        if view is None or ctl.client.seat is None:
            ctl.flash_refusal(self.why_not(ctl, Knock(Card(1, "S"))))
        elif phase == FIRST_DISCARD:
            ctl.flash_refusal("GS-3: first discard one card face down (its letter); "
                              "knock after a draw")
        elif phase == DRAW:
            ctl.flash_refusal("GS-6: you knock after drawing — press n first")
        elif phase == OVER:
            ctl.flash_refusal("GS-4: the round is over for you")
        elif self.layout(view).unknown:
            ctl.flash_refusal("your drawn card is on its way — a moment")
        else:
            self.knocking = True
            ctl.flash("knock: which card goes face down? its letter — Esc cancels")
        return True

    def _advise(self, ctl: Controller, view: dict[str, Any] | None) -> None:
        """H: the solver's advice for this position, from this seat's view only; H again
        hides it (it goes by itself once the hand changes)."""
        if self.coach is None:
            ctl.flash("there is no coach at this table")
            return
        if view is None or ctl.client.seat is None or "hand" not in view:
            ctl.flash_refusal(self.why_not(ctl, Draw()))
            return
        if view.get("phase") == OVER:
            ctl.flash_refusal("GS-4: the round is over for you — no advice to give")
            return
        if self.layout(view).unknown:
            ctl.flash_refusal("your drawn card is on its way — a moment")
            return
        where = self.position(view)
        if self.advice is not None and self.advice[0] == where:
            self.advice = None
            ctl.flash("advice hidden")
            return
        legal = ctl.client.legal_moves()
        if not legal:
            ctl.flash_refusal(self.why_not(ctl, Draw()))
            return
        self.advice = (where, self.coach.advise(view, legal))

    def _advice_lines(self, view: dict[str, Any], width: int) -> Fragments:
        if self.advice is None or self.advice[0] != self.position(view):
            return []
        return wrap(f"Advice: {self.advice[1].text()}", width, "class:good") + \
            wrap("(the solver's expected points this round, you − Joker, from your own cards "
                 "only; playing on is counted one draw ahead, so if anything too low; H hides)",
                 width, "class:dim")

    def _letter(self, ctl: Controller, view: dict[str, Any] | None, key: str) -> bool:
        knocking, self.knocking = self.knocking, False
        lay = self.layout(view)
        order = lay.order
        if lay.unknown:
            ctl.flash_refusal("your drawn card is on its way — a moment")
            return True
        card = lay.card(key)
        if card is None:
            ctl.flash_refusal(f"there is no card {key}: your cards are "
                              f"{' '.join(sorted(lay.letters.values()))}"
                              if order else f"there is no card {key}")
            return True
        if not knocking:
            self._discard(ctl, lay, card, view.get("phase") if view else None)
            return True
        move = Knock(card)
        if move in ctl.client.legal_moves():
            self.knock_card = card  # a knock ends the round: it is always confirmed
            after = lay.after.get(card)
            ctl.flash(f"knock with {card.symbol} face down" +
                      (f", deadwood {after}" if after is not None else "") +
                      "? y knocks, any other key keeps playing", seconds=30.0)
            return True
        after = lay.after.get(card)
        if view and view.get("phase") == DISCARD and after is not None and after > KNOCK_LIMIT:
            best = ""
            if lay.discard is not None:
                best = (f" (best: {lay.letter(lay.discard)} {lay.discard.symbol} "
                        f"leaves {lay.points})")
            ctl.flash_refusal(f"GS-6: knocking needs deadwood ≤ {KNOCK_LIMIT}; without "
                              f"{card.symbol} your deadwood is {after}{best}")
        else:
            ctl.flash_refusal(self.why_not(ctl, move))
        return True

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
        out += line("") + self._drawn_line(view, lay) + line(*self._prompt(view, lay))
        out += self._advice_lines(view, width)
        out += self._score(ctl)
        out += self._others(ctl, view, width)
        if ctl.client.pending:
            out += line(("class:dim", f" ({len(ctl.client.pending)} on the way)"))
        return out

    @staticmethod
    def _phase_text(phase: str) -> str:
        return {FIRST_DISCARD: "first discard (GS-3)", DRAW: "draw (GS-4)",
                DISCARD: "discard, knock or Big Gin (GS-4, GS-6)",
                OVER: "your round is over (GS-7)"}.get(phase, phase)

    def _hand(self, view: dict[str, Any], lay: Layout, width: int) -> Fragments:
        size = len(view["hand"])
        if lay.points is None:
            facts = "…" if lay.unknown else ""
        elif lay.discard is not None:
            facts = f" · deadwood {lay.points} after the best discard"
        else:
            facts = f" · deadwood {lay.points}"
        out = line(("class:me", f" Your hand ({size} cards{facts})"))
        per_line = max(1, (width - 16) // CARD_WIDTH)
        labels = {"meld": "meld", "deadwood": "deadwood", "discard": "best discard",
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
        card = self.drawn
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
                     f"{lay.discard.symbol}, the best)" if lay.discard else " its letter")]
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
                ("", f" its letter ({lay.letter(lay.discard)} discards {lay.discard.symbol}, "
                 "the best)" if lay.discard else " its letter")]

    @staticmethod
    def _result_text(result: dict[str, Any] | None) -> str:
        if not result:
            return "Your round is over."
        kind = result.get("result")
        if kind == "sat-out":
            return "You sit this round out: your match is over (GS-8)."
        if kind == "joker":
            return f"You drew the Joker: it scores your deadwood, {result.get('deadwood')} (GS-7)."
        name = {"knock": "You knocked", "gin": "Gin", "big-gin": "Big Gin"}.get(kind, kind)
        if result.get("player") is None:
            return f"{name} with deadwood {result.get('deadwood')}; the score comes next."
        joker = result.get("joker") or 0
        told = f"the Joker scores {joker} (set)" if joker else f"you score {result['player']}"
        return f"{name}: deadwood {result.get('deadwood')}, C = {result.get('count')} — {told}."

    @staticmethod
    def _score(ctl: Controller) -> Fragments:
        table = ctl.client.table
        seat = ctl.client.seat or 0
        players = max(1, len(ctl.seats))
        totals = list(table.get("totals") or []) + [0] * (2 * players)
        joker = "Joker" if players == 1 else f"Joker ({ctl.name(seat).replace(' (bot)', '')})"
        played = len(table.get("results", [])) + table.get("results_from", 0)  # (as the title)
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
        for s in seats:
            if s["seat"] == ctl.client.seat:
                continue
            result = s.get("result") or {}
            what = result.get("result") or s["phase"]
            dw = f" deadwood {result['deadwood']}" if "deadwood" in result else ""
            out += line(f"   {fit_name(ctl.name(s['seat']), 16):<16} {what}{dw}"[:width])
        return out

    @staticmethod
    def _watching(ctl: Controller, view: dict[str, Any]) -> Fragments:
        out = line(("class:me", " Watching Gin Solitaire (GS-9: each seat plays alone)"))
        for s in view.get("seats", []):
            result = (s.get("result") or {}).get("result") or s["phase"]
            out += line(f"   {fit_name(ctl.name(s['seat']), 16):<16} draw {s['draw']:>2}  {result}")
        return out

