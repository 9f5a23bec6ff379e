"""Gin Solitaire bots. The greedy one keeps what melds and knocks as soon as the rules allow;
the solver weighs every move by the expected points of the round (see :class:`SolverGin`), and
its :meth:`SolverGin.advise` is also the coach's advice on the Gin screen.

Both see only their seat's view (their hand, the Draw pile's size) and the legal moves, and ask
the exact meld solver of :mod:`lan_demon.games.melds` which card to let go. The arithmetic of
expected points is :mod:`lan_demon.bots.gin_value`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from lan_demon.bots.base import Strategy, Turn
from lan_demon.games.cards import Card, full_pack
from lan_demon.games.gin_moves import BigGin, Discard, Draw, Knock
from lan_demon.bots.gin_value import (Belief, Unseen, big_gin_worth, carry_on, carry_on_deep,
                                      knock_value, knock_worth, stop_value)
from lan_demon.games.gin_solitaire import FIRST_DISCARD, KNOCK_LIMIT
from lan_demon.games.melds import card_bit, card_value, deadwood_after_discard, min_deadwood


def _neighbours(card: Card, hand: list[Card]) -> int:
    """How many cards of the hand could one day meld with ``card`` (same rank, or same suit
    within two ranks): a tie-break that keeps the better-connected card."""
    return sum(1 for c in hand if c != card and
               (c.rank == card.rank or (c.suit == card.suit and abs(c.rank - card.rank) <= 2)))


class GreedyGin(Strategy):
    """First discard and every discard: the card whose removal leaves the least deadwood.
    After a draw: Big Gin if possible, else knock if allowed (with the discard that leaves the
    least deadwood), else discard."""

    name = "greedy"
    games = ("gin-solitaire",)

    def choose(self, turn: Turn) -> Any | None:
        legal = turn.legal
        if not legal:
            return None
        for move in legal:
            if isinstance(move, BigGin):
                return move
        if any(isinstance(m, Draw) for m in legal):
            return next(m for m in legal if isinstance(m, Draw))
        hand = [Card.from_data(c) for c in turn.view["hand"]]
        after = deadwood_after_discard(hand)

        def key(card: Card) -> tuple[int, int, int, int]:
            return (after[card], _neighbours(card, hand), -card_value(card), -card.rank)

        knocks = [m for m in legal if isinstance(m, Knock)]
        if knocks:
            return min(knocks, key=lambda m: key(m.card))
        discards = [m for m in legal if isinstance(m, Discard)]
        if discards:
            return min(discards, key=lambda m: key(m.card))
        return legal[0]


# --- the solver bot ----------------------------------------------------------------------------

#: How many discards (those leaving the least deadwood) the look-ahead weighs.
_CANDIDATES = 5
#: With a knock allowed, how many of them are weighed one draw further (carry_on_deep).
_DEEP = 3
#: GS-1/GS-2: the cards of a round, the Joker aside.
_PACK = frozenset(full_pack())


class Seen:
    """The cards a seat has held this round (its face-down discards too: it saw them), kept
    from its own views. Every other card is in the Draw pile, the Joker's place unknown."""

    def __init__(self) -> None:
        self.cards: set[Card] = set()

    def see(self, view: dict[str, Any]) -> list[Card]:
        """Remember the view's hand; the cards not seen yet, sorted. A round of ``discards``
        discards has shown exactly ``hand + discards`` cards, so a memory holding more is of
        another round (a reset missed, a seat taken over mid-round) and starts again."""
        hand = [Card.from_data(c) for c in view["hand"]]
        if view["phase"] == FIRST_DISCARD:
            self.cards = set()
        self.cards.update(hand)
        if len(self.cards) > len(hand) + view.get("discards", 0):
            self.cards = set(hand)
        return sorted(_PACK - self.cards)


@dataclass(frozen=True)
class Choice:
    """A move and its expected points of the round, player minus Joker (GS-7)."""

    move: Any
    value: float
    deadwood: int  # what the move leaves (a discard, a knock; 0 for Big Gin)


@dataclass(frozen=True)
class Advice:
    """What the solver would play now, and why: the best plain discard (playing on), the best
    knock when GS-6 allows one, Big Gin when the hand has it. Every card named is in the hand."""

    move: Any
    value: float
    discard: Choice | None = None
    knock: Choice | None = None
    big_gin: Choice | None = None

    def text(self) -> str:
        """What to do and why, in plain words a family reads (the figures alone, "expected +0.9
        vs play on +2.1", are true and unreadable), e.g. ``Don't knock yet: discard 9♠ and draw
        on — drawing on scores more, on average, than knocking now``. The figures behind it
        are :meth:`numbers`."""
        if isinstance(self.move, Draw):
            return "Draw a card: every turn starts with one"
        knock, discard = self.knock, self.discard
        if isinstance(self.move, BigGin):
            return "Big Gin: lay down all eleven cards now — nothing scores more"
        if isinstance(self.move, Knock):
            word = "Go Gin" if self.move_deadwood == 0 else "Knock"
            why = "on average that scores more than drawing on" if discard is not None else \
                "it ends the round on your terms"
            return f"{word} now, with {self.move.card.symbol} face down: {why}"
        if isinstance(self.move, Discard):
            said = f"Discard {self.move.card.symbol}: it leaves the hand with the best chances " \
                "to make sets and runs"
            if knock is not None:
                word = "go Gin" if knock.deadwood == 0 else "knock"
                said = (f"Don't {word} yet: discard {self.move.card.symbol} and draw on — on "
                        f"average that scores more than to {word} now, though drawing the "
                        "Joker would end the round with your deadwood going to the Joker")
            elif discard is not None and discard.deadwood > KNOCK_LIMIT:
                said += f" (no knock yet: more than {KNOCK_LIMIT} deadwood, GS-6)"
            return said
        return "No advice for this move"

    @property
    def move_deadwood(self) -> int:
        """The deadwood the advised knock leaves (0: Gin)."""
        knock = self.knock
        return knock.deadwood if knock is not None and knock.move == self.move else -1

    def numbers(self) -> str:
        """The figures behind :meth:`text`, each choice's expected points this round (you
        minus the Joker, GS-7), e.g. ``knock with Q♦ now: expected +11.0 vs play on +13.5 →
        play on``."""
        if isinstance(self.move, Draw):
            return f"your 10 cards are worth {_signed(self.value)} expected ({EXPECTED})"
        parts = []
        if self.big_gin is not None:
            parts.append(f"Big Gin: expected {_signed(self.big_gin.value)}")
        knock, discard = self.knock, self.discard
        if discard is not None and (knock is None or self.big_gin is not None):
            parts.append(f"discard {discard.move.card.symbol} "
                         f"(expected {_signed(discard.value)})")
        if knock is not None:
            word = "Gin" if knock.deadwood == 0 else "knock"
            said = f"{word} with {knock.move.card.symbol} now: expected {_signed(knock.value)}"
            if discard is not None:
                said += f" vs play on {_signed(discard.value)} → {self._verdict}"
            parts.append(said)
        elif discard is not None and discard.deadwood > KNOCK_LIMIT:
            parts.append(f"no knock yet (deadwood {discard.deadwood} > {KNOCK_LIMIT}, GS-6)")
        return (", ".join(parts) + f" ({EXPECTED})") if parts else ""

    @property
    def _verdict(self) -> str:
        if isinstance(self.move, Knock):
            return "knock"
        return "Big Gin" if isinstance(self.move, BigGin) else "play on"


#: A weighed move: (its value and tie-breaks, the move, the deadwood it leaves).
Option = tuple[tuple[float, int, int], Any, int]


#: What "expected" means in the figures, said with them.
EXPECTED = "expected: this round's points, yours minus the Joker's, on average over the cards " \
    "you have not seen; playing on is counted only one draw ahead, so its figure is, if " \
    "anything, a little too low (GS-7)"


def _signed(value: float) -> str:
    return f"{value:+.1f}"


class SolverGin(Strategy):
    """Every choice by the expected points of the round, player minus Joker (GS-7).

    Knocking is worth :func:`~lan_demon.bots.gin_value.knock_worth`: with the Joker equally
    likely at any place of the Draw pile (the cards still unseen, and one more), a knock early in
    a long pile is safe, and a knock with a short pile is likely set. Carrying on is worth one
    more draw (:func:`~lan_demon.bots.gin_value.carry_on`): the Joker scores the deadwood; any
    other card, equally likely among the cards this seat has not seen, is drawn and played best.
    Every discard is judged that way, so among equal deadwood the bot keeps the hand with the
    most outs. The bot knocks when E[knock] is at least the best E[play on]; but before it
    ends the round that way, the best few discards are weighed one draw further
    (:func:`~lan_demon.bots.gin_value.carry_on_deep`: after that draw it may knock too, or
    carry on once more) — the one-draw look undervalues playing on, since it assumes the
    hand never improves after the next card. The cards not seen are the pack minus every
    card the seat has held this round (:class:`Seen`).
    """

    name = "solver"
    games = ("gin-solitaire",)

    def __init__(self, seen: Seen | None = None) -> None:
        self._seen = seen if seen is not None else Seen()

    def reset(self) -> None:
        self._seen.cards = set()

    def choose(self, turn: Turn) -> Any | None:
        legal = turn.legal
        if not legal:
            return None
        if any(isinstance(m, Draw) for m in legal):  # GS-4: the one move; nothing to weigh
            return next(m for m in legal if isinstance(m, Draw))
        return self.advise(turn.view, legal).move

    def belief(self, view: dict[str, Any]) -> Belief:
        """Where the Joker may be: any place of the Draw pile alike (the seat cannot see)."""
        return Belief.unseen(view["draw"])

    #: E[play on] of a 10-card mask: one draw ahead (:func:`carry_on`) …
    play_on: Callable[[int, int, Unseen, Belief], float] = staticmethod(carry_on)
    #: … and, before a knock, one draw further (None: no second look).
    play_on_deep: Callable[[int, int, Unseen, Belief], float] | None = \
        staticmethod(carry_on_deep)

    def advise(self, view: dict[str, Any], legal: list[Any]) -> Advice:
        """The move this solver plays on ``view`` (the seat's own) among ``legal``, with the
        expected points of the choices it weighed. ``choose`` plays exactly this move."""
        unseen = self._seen.see(view)
        hand = [Card.from_data(c) for c in view["hand"]]
        belief = self.belief(view)
        unseen_bits = [(card_bit(card), card) for card in unseen]
        if any(isinstance(m, Draw) for m in legal):
            move = next(m for m in legal if isinstance(m, Draw))
            rest = sum(card_bit(c) for c in hand)
            return Advice(move, self.play_on(rest, min_deadwood(hand), unseen_bits, belief))
        options = _options(hand, unseen_bits, belief, legal, self.play_on, self.play_on_deep)
        if not options:
            return Advice(legal[0], float("nan"))
        value, move, _ = max(options, key=lambda o: o[0])
        return _advice(move, value[0], options)


def _options(hand: list[Card], unseen: Unseen, belief: Belief, legal: list[Any],
             play_on: Callable[[int, int, Unseen, Belief], float],
             deep: Callable[[int, int, Unseen, Belief], float] | None) -> list[Option]:
    """(value and tie-breaks, move, deadwood left) for every legal move worth weighing."""
    after = deadwood_after_discard(hand)
    bits = {card: card_bit(card) for card in hand}
    full = sum(bits.values())
    discards = sorted((m for m in legal if isinstance(m, Discard)),
                      key=lambda m: (after[m.card], _neighbours(m.card, hand)))
    weighed = discards[:_CANDIDATES]
    knocks = [m for m in legal if isinstance(m, Knock)]
    options: list[Option] = []
    for move in legal:
        if isinstance(move, BigGin):
            options.append(((big_gin_worth(belief), 0, 0), move, 0))
        elif isinstance(move, Knock):
            options.append(((knock_worth(after[move.card], belief), 0, 0), move,
                            after[move.card]))
    plays = []
    for move in weighed:
        value = play_on(full & ~bits[move.card], after[move.card], unseen, belief)
        plays.append(((value, -_neighbours(move.card, hand), card_value(move.card)), move,
                      after[move.card]))
    if deep is not None and knocks and plays and \
            max(o[0][0] for o in options) >= max(o[0][0] for o in plays):
        # one draw ahead says knock (or Big Gin): before ending the round, the best few
        # discards are weighed one draw further (deeper never values playing on less)
        plays.sort(key=lambda o: o[0], reverse=True)
        for i, (key, m, dw) in enumerate(plays[:_DEEP]):
            further = deep(full & ~bits[m.card], dw, unseen, belief)
            plays[i] = ((further,) + key[1:], m, dw)
    return options + plays


def _advice(move: Any, value: float, options: list[Option]) -> Advice:
    def best(kind: type) -> Choice | None:
        of = [o for o in options if isinstance(o[1], kind)]
        if not of:
            return None
        key, m, dw = max(of, key=lambda o: o[0])
        return Choice(m, key[0], dw)
    return Advice(move, value, discard=best(Discard), knock=best(Knock), big_gin=best(BigGin))


__all__ = ["Advice", "Choice", "GreedyGin", "Seen", "SolverGin", "knock_value", "stop_value"]
