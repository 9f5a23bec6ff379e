"""A Gin Solitaire seat (GS-1 … GS-9): the hand as the solver arranges it, with its letters.

The hand is arranged by the engine's exact solver (GS-5): each meld, then the deadwood, then —
holding 11 cards — the discard that leaves the least deadwood (:class:`Layout`). The cards
carry twelve letters that mean nothing else in any game (``a b c e f g i j k l m o``: no ``h``,
which is the hint everywhere, no ``d``, ``n``, ``s``…; :data:`lan_demon.seat.acts.PICK_LETTERS`),
in displayed order at the deal. After that a card keeps its letter while it stays in the
hand, and a drawn card never takes the letter the discard just freed (there are twelve
letters for eleven cards), so a key does not change under the player's finger: ``k`` pressed
twice never throws away two different cards — the second time there is no card ``k``.
Tapping a card (``tap_card``; the terminal's letter) discards it face down at once, as its
key is its own; a knock (GS-6) is asked first, as it ends the round.

The coach (:class:`lan_demon.coach.gin.GinCoach`, handed in by the command) sees every hand
this seat is shown and gives the solver's advice for the position from this seat's view alone.
"""

from __future__ import annotations

from typing import Any

from lan_demon.games.cards import SUITS, Card
from lan_demon.games.gin_moves import BigGin, Discard, Draw, Knock, Move
from lan_demon.games.gin_solitaire import DISCARD, DRAW, FIRST_DISCARD, KNOCK_LIMIT, OVER
from lan_demon.games.melds import HAND_SIZE, best_arrangement, deadwood_after_discard, is_big_gin
from lan_demon.seat import events as ev
from lan_demon.seat.acts import PICK_LETTERS
from lan_demon.seat.advice import AdviceShown, Shown, advice_key
from lan_demon.seat.outcomes import Question, Refusal, Sent
from lan_demon.seat.words import watching

LETTERS = PICK_LETTERS[:HAND_SIZE + 1]  # eleven cards at most, and one letter to spare
ON_ITS_WAY = "your drawn card is on its way — a moment"


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
        else:
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

    def keep_letters(self, before: dict[Card, str],
                     freed: set[str] | frozenset[str] = frozenset()) -> None:
        """Cards still in hand keep the letters they had; a new card takes a free one, but
        not one ``freed`` (the letter the last discard let go) or one a card of ``before``
        that is gone held, while another is free — so a letter never names a second card
        straight after it named the one thrown away."""
        cards = [c for c in self.order if not c.hidden]
        kept = {c: before[c] for c in cards if c in before}
        gone = {k for c, k in before.items() if c not in kept}
        free = [k for k in LETTERS if k not in kept.values()]
        free.sort(key=lambda k: k in freed or k in gone)  # (stable: otherwise in order)
        for c in cards:
            if c not in kept:
                kept[c] = free.pop(0)
        self.letters = kept


def phase_text(phase: str) -> str:
    return {FIRST_DISCARD: "first discard (GS-3)", DRAW: "draw (GS-4)",
            DISCARD: "discard, knock or Big Gin (GS-4, GS-6)",
            OVER: "your round is over (GS-7)"}.get(phase, phase)


def result_text(result: dict[str, Any] | None) -> str:
    """This seat's round, once over, in words (GS-7)."""
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


class GinSeat:
    """The Gin Solitaire half of a :class:`~lan_demon.seat.seat.Seat`."""

    def __init__(self, coach: Any = None) -> None:
        """``coach``: an object with ``see(view)``, ``advise(view, legal)`` and ``reset()``;
        None: no coach at this table."""
        self.coach = coach
        self.seat: Any = None
        self._layout: tuple[tuple[str, ...], Layout] | None = None
        self.drawn: Card | None = None  # the card the last draw brought, while it is in hand
        self.knocked: Card | None = None  # the card this round's knock went with (GS-6)
        self.knock_card: Card | None = None  # a knock asked for, waiting for yes
        self.advice = AdviceShown()  # shown for this position, with its numbers or not
        self.freed: set[str] = set()  # the letters the last discard let go (not given again)

    def bind(self, seat: Any) -> None:
        self.seat = seat

    def reset(self) -> None:
        self._layout = None
        self.drawn = None
        self.knocked = None
        self.knock_card = None
        self.advice.clear()
        self.freed = set()
        if self.coach is not None:
            self.coach.reset()  # the cards this seat has held this round: none yet

    def explain(self, data: dict[str, Any]) -> str | None:
        return None

    # --- facts ------------------------------------------------------------------------------

    def view(self) -> dict[str, Any] | None:
        return self.seat.client.view()

    def prompt(self, view: dict[str, Any], lay: Layout) -> str:
        """What the hand waits for, in one line, by keys or by taps: the phase alone ("discard,
        knock or Big Gin") does not say that a tap on a card discards it."""
        how, phase = self.seat.how, view["phase"]
        if phase == OVER or lay.unknown:
            return ""
        if phase == DRAW:
            return "Your turn: " + how("n draws the top card", "Draw takes the top card")
        spare = f" ({lay.discard.symbol}: the least deadwood left)" if lay.discard else ""
        if phase == FIRST_DISCARD:
            return "Discard one card face down to begin: " + how("its letter", "tap it") + spare
        if lay.big_gin:
            return "Big Gin! " + how("press B", "tap Big Gin")
        if lay.points is not None and lay.points <= KNOCK_LIMIT and lay.discard is not None:
            what = "Gin!" if lay.points == 0 else f"You can knock with {lay.points} deadwood:"
            return f"{what} " + how("K and a letter knocks; a letter alone discards",
                                    "tap Knock, then the card to lay down; or tap a card to "
                                    "discard it")
        return "Discard a card: " + how("its letter", "tap it") + spare

    def layout(self, view: dict[str, Any] | None = None) -> Layout:
        """The hand of ``view`` as laid out, its letters kept from the last hand the pump saw.
        Reading it changes nothing: a hand the pump has not seen yet (a move just sent) is
        laid out afresh each time; :meth:`watch` keeps it."""
        view = view if view is not None else self.view()
        hand = tuple(view.get("hand", [])) if view else ()
        if self._layout is not None and self._layout[0] == hand:
            return self._layout[1]
        return self._lay_out(hand)

    def _lay_out(self, hand: tuple[str, ...]) -> Layout:
        lay = Layout([Card.from_data(c) for c in hand])
        if self._layout is not None:
            lay.keep_letters(self._layout[1].letters, self.freed)
        return lay

    def watch(self) -> list[ev.Event]:
        """After a pump: a new hand laid out and kept (its letters kept, the card a draw
        brought noted, the coach shown it)."""
        if self.seat.client.seat is None:
            return []
        view = self.view()
        hand = tuple(view.get("hand", [])) if view else ()
        if self._layout is not None and self._layout[0] == hand:
            return []
        lay = self._lay_out(hand)
        if self._layout is not None:
            self.drawn = self._new_card(self._layout[1], lay)
            gone = set(self._layout[1].letters.values()) - set(lay.letters.values())
            if gone:
                self.freed = gone
        self._layout = (hand, lay)
        if self.coach is not None and view and hand and not lay.unknown and "phase" in view:
            self.coach.see(view)  # every hand shown is remembered, for the coach
        return []

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

    def advice_shown(self, view: dict[str, Any] | None) -> Shown | None:
        """The advice as a screen draws it: plain words, the numbers if asked for."""
        moment = None if view is None else self.position(view)
        if self.advice.current(moment) is None:  # (no advice up: no key map built per face)
            return None
        return self.advice.shown(moment, advice_key(self.seat), self.seat.how)

    def why(self) -> Any:
        """The page's "why? numbers": the advice's numbers shown or hidden."""
        view = self.view()
        said = self.advice.why(None if view is None else self.position(view))
        if said:
            self.seat.say(said)
        return None

    def why_not(self, move: Move) -> str:
        """Why ``move`` is not possible now, with the rule id."""
        seat = self.seat
        view = self.view()
        if seat.client.seat is None:
            return watching(seat.how)
        if view is None or seat.phase != "playing":
            return "GS-4: no round is in progress"
        if self.layout(view).unknown:
            return ON_ITS_WAY
        return seat.engine_verdict(move) or f"'{move}' is not possible now"

    def knock_refusal(self, view: dict[str, Any] | None) -> str | None:
        """Why no knock can be chosen now (its phase), or None."""
        phase = view.get("phase") if view else None
        if view is None or self.seat.client.seat is None:
            return self.why_not(Knock(Card(1, "S")))
        if phase == FIRST_DISCARD:
            return "GS-3: first discard one card face down" + self.seat.how(
                " (its letter)", "") + "; knock after a draw"
        if phase == DRAW:
            return "GS-6: you knock after drawing — " + self.seat.how("press n first",
                                                                     "draw first")
        if phase == OVER:
            return "GS-4: the round is over for you"
        if self.layout(view).unknown:
            return ON_ITS_WAY
        return None

    # --- intents ----------------------------------------------------------------------------

    def _try(self, move: Move) -> Any:
        return self.seat.try_play(move, self.why_not)

    def draw(self) -> Any:
        self.knock_card = None
        return self._try(Draw())

    def big_gin(self) -> Any:
        self.knock_card = None
        return self._try(BigGin())

    def card_of(self, code: Any) -> Card | None:
        """A card of the hand from its code ("QS") or its letter ("c"), or None."""
        lay = self.layout()
        if isinstance(code, str) and len(code) == 1 and code in LETTERS:
            return lay.card(code)
        try:
            card = code if isinstance(code, Card) else Card.from_data(code)
        except Exception:  # (any bad code from a page: "no such card", said below)
            return None
        return card if card in lay.letters else None

    def tap_card(self, code: Any) -> Any:
        """Discard that card face down at once (GS-3, GS-4), saying which went and the
        deadwood left — and, when the best discard would have left less, which and how much."""
        self.knock_card = None
        view, lay = self.view(), self.layout()
        if lay.unknown:
            return self.seat.refuse(ON_ITS_WAY)
        card = self.card_of(code)
        if card is None:
            mine = " ".join(sorted(lay.letters.values())) if self.seat.keyed else \
                " ".join(c.symbol for c in lay.order)
            gone = " now (its card was discarded)" if code in self.freed else ""
            return self.seat.refuse(f"there is no card {code}{gone}: your cards are {mine}"
                                    if lay.order else f"there is no card {code}")
        phase = view.get("phase") if view else None
        outcome = self._try(Discard(card))
        if isinstance(outcome, Refusal) or outcome is None:
            return outcome
        after = lay.after.get(card)
        said = f"{card.symbol} discarded face down"
        if after is not None:
            said += f": deadwood {after}"
            if lay.discard is not None and lay.points is not None and after > lay.points:
                said += f" ({lay.discard.symbol} would have left {lay.points})"
        self.seat.say(said, rule="GS-3" if phase == FIRST_DISCARD else "GS-4", read=True)
        return outcome

    def knock(self, code: Any, sure: bool = False) -> Any:
        """Knock, discarding that card (GS-6); asked first unless ``sure`` (it ends the round)."""
        view = self.view()
        refusal = self.knock_refusal(view)
        if refusal is not None:
            self.knock_card = None
            return self.seat.refuse(refusal)
        lay = self.layout(view)
        card = self.card_of(code)
        if card is None:
            self.knock_card = None
            return self.seat.refuse(f"there is no card {code} to knock with")
        move = Knock(card)
        after = lay.after.get(card)
        if move not in self.seat.client.legal_moves():
            self.knock_card = None
            if view and view.get("phase") == DISCARD and after is not None and \
                    after > KNOCK_LIMIT:
                best = ""
                if lay.discard is not None:
                    letter = f"{lay.letter(lay.discard)} " if self.seat.keyed else ""
                    best = f" (best: {letter}{lay.discard.symbol} leaves {lay.points})"
                return self.seat.refuse(f"GS-6: knocking needs deadwood ≤ {KNOCK_LIMIT}; "
                                        f"without {card.symbol} your deadwood is {after}{best}")
            return self.seat.refuse(self.why_not(move))
        if not sure:
            self.knock_card = card
            self.seat.say(self.knock_words() + "?" + self.seat.how(
                " y knocks, any other key keeps playing", ""), read=True)
            return None
        self.knock_card = None
        outcome = self._try(move)
        if isinstance(outcome, Sent):
            self.knocked = card  # the result holds only the deadwood: the banner says it
        return outcome

    def knock_words(self) -> str:
        card = self.knock_card
        if card is None:
            return ""
        after = self.layout().after.get(card)
        return f"knock with {card.symbol} face down" + \
            (f", deadwood {after}" if after is not None else "")

    def question(self) -> Any:
        """The knock waiting for its yes, as a question (see :class:`Seat.question`)."""
        if self.knock_card is None:
            return None
        words = self.knock_words()
        return Question(words[0].upper() + words[1:] + "?",
                        {"do": "knock", "card": self.knock_card.to_data(), "sure": True},
                        {"do": "dismiss"}, "Knock", "Keep playing")

    def dismiss(self) -> None:
        if self.knock_card is not None:
            self.knock_card = None
            self.seat.say("no knock — your turn goes on")

    def hint(self) -> Any:
        """The solver's advice for this position, from this seat's view only; asked again,
        its numbers; a third time, it is hidden (it goes by itself once the hand changes)."""
        seat, view = self.seat, self.view()
        if self.coach is None:
            seat.say("there is no coach at this table")
            return None
        if view is None or seat.client.seat is None or "hand" not in view:
            return seat.refuse(self.why_not(Draw()))
        if view.get("phase") == OVER:
            return seat.refuse("GS-4: the round is over for you — no advice to give")
        if self.layout(view).unknown:
            return seat.refuse(ON_ITS_WAY)
        where = self.position(view)
        if self.advice.current(where) is not None:  # asked again: its numbers, then hidden
            said = self.advice.press(where, lambda: None)
            if said:
                seat.say(said)
            return None
        legal = seat.client.legal_moves()
        if not legal:
            return seat.refuse(self.why_not(Draw()))
        self.advice.press(where, lambda: self.coach.advise(view, legal))
        return None
