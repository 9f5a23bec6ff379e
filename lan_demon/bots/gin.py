"""Gin Solitaire bots. The greedy one keeps what melds and knocks as soon as the rules allow;
the solver weighs every move by the expected points of the round (see :class:`SolverGin`).

Both see only their seat's view (their hand, the Draw pile's size) and the legal moves, and ask
the exact meld solver of :mod:`lan_demon.games.gin_solitaire` which card to let go.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from lan_demon.bots.base import Strategy, Turn
from lan_demon.games.cards import Card, full_pack
from lan_demon.games.gin_moves import BigGin, Discard, Draw, Knock
from lan_demon.games.gin_scoring import BIG_GIN_BONUS, GIN_BONUS, SET_BONUS
from lan_demon.games.gin_solitaire import KNOCK_LIMIT
from lan_demon.games.melds import card_bit, card_value, deadwood_after_discard
from lan_demon.games.melds import mask_deadwood as _dw


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
#: GS-1/GS-2: the cards of a round, the Joker aside.
_PACK = frozenset(full_pack())


@lru_cache(maxsize=None)
def knock_value(deadwood: int, pile: int) -> float:
    """GS-7: the expected player-minus-Joker points of knocking now with ``deadwood`` (0: Gin)
    when the Draw pile holds ``pile`` cards, the Joker among them.

    The player cannot see where the Joker lies, so C, the cards above it, is equally likely to
    be any of 0 … pile − 1: a knock scores C − deadwood, or is set (C < deadwood) and the Joker
    scores 25 + deadwood − C.
    """
    if pile <= 0:
        return 0.0
    if deadwood == 0:
        return GIN_BONUS + (pile - 1) / 2
    total = 0
    for count in range(pile):
        total += count - deadwood if count >= deadwood else -(SET_BONUS + deadwood - count)
    return total / pile


@lru_cache(maxsize=None)
def stop_value(deadwood: int, pile: int) -> float:
    """What a 10-card hand is worth if it never improves: knock now (when GS-6 allows) or wait
    for the Joker, which then scores the deadwood (GS-7) — whichever is better."""
    if deadwood <= KNOCK_LIMIT:
        return max(knock_value(deadwood, pile), -deadwood)
    return -float(deadwood)


class SolverGin(Strategy):
    """Every choice by the expected points of the round, player minus Joker (GS-7).

    Knocking is worth :func:`knock_value`: with the Joker equally likely anywhere in the Draw
    pile, a knock early in a long pile is safe, and a knock with a short pile is likely set.
    Carrying on is worth one more draw: the Joker (1 in ``pile``) scores the deadwood; any other
    card, equally likely among the cards this seat has not seen, is drawn and played best —
    Big Gin, or the discard leaving the least deadwood, valued by :func:`stop_value`. Every
    discard is judged that way too, so among equal deadwood the bot keeps the hand with the
    most outs. The cards not seen are the pack minus every card the seat has held this round,
    remembered from its own views (its discards are face down, GS-3, but it saw them).
    """

    name = "solver"
    games = ("gin-solitaire",)

    def __init__(self) -> None:
        self._held: set[Card] = set()

    def reset(self) -> None:
        self._held = set()

    def choose(self, turn: Turn) -> Any | None:
        legal = turn.legal
        if not legal:
            return None
        if any(isinstance(m, Draw) for m in legal):
            return next(m for m in legal if isinstance(m, Draw))
        view = turn.view
        hand = [Card.from_data(c) for c in view["hand"]]
        if view["phase"] == "first-discard":
            self._held = set()
        self._held.update(hand)
        unseen = sorted(_PACK - self._held)
        pile = view["draw"]
        options = self._options(hand, unseen, pile, legal)
        return max(options, key=lambda o: o[0])[1] if options else legal[0]

    def _options(self, hand: list[Card], unseen: list[Card], pile: int,
                 legal: list[Any]) -> list[tuple[tuple[float, int, int], Any]]:
        """(value, tie-breaks) for every legal move worth weighing."""
        after = deadwood_after_discard(hand)
        bits = {card: card_bit(card) for card in hand}
        full = sum(bits.values())
        unseen_bits = [(card_bit(card), card) for card in unseen]
        discards = sorted((m for m in legal if isinstance(m, Discard)),
                          key=lambda m: (after[m.card], _neighbours(m.card, hand)))
        weighed = set(discards[:_CANDIDATES])
        options: list[tuple[tuple[float, int, int], Any]] = []
        for move in legal:
            if isinstance(move, BigGin):
                options.append(((BIG_GIN_BONUS + (pile - 1) / 2, 0, 0), move))
            elif isinstance(move, Knock):
                options.append(((knock_value(after[move.card], pile), 0, 0), move))
            elif move in weighed:
                value = _carry_on(full & ~bits[move.card], after[move.card], unseen_bits, pile)
                options.append(((value, -_neighbours(move.card, hand), card_value(move.card)),
                                move))
        return options


def _reach(index: int) -> int:
    """The cards that can share a meld with card ``index`` as its direct neighbour: the other
    cards of its rank (a set) and its suit's cards one rank away (a run, aces low, GS-5)."""
    rank, base = index % 13, index - index % 13
    mask = sum(1 << (rank + 13 * s) for s in range(4)) & ~(1 << index)
    if rank > 0:
        mask |= 1 << (base + rank - 1)
    if rank < 12:
        mask |= 1 << (base + rank + 1)
    return mask


_REACH = tuple(_reach(i) for i in range(52))


def _touching(mask: int) -> int:
    """Every card that can share a meld, directly, with a card of ``mask``."""
    out = 0
    while mask:
        low = mask & -mask
        out |= _REACH[low.bit_length() - 1]
        mask ^= low
    return out


def _groups(mask: int) -> list[int]:
    """``mask`` cut into groups no meld crosses (cards linked by rank or by a run step).
    Deadwood adds up over the groups, so a change to one group leaves the others as they are."""
    groups = []
    while mask:
        group = mask & -mask
        while True:
            grown = group | (_touching(group) & mask)
            if grown == group:
                break
            group = grown
        groups.append(group)
        mask &= ~group
    return groups


def _drop_gain(group: int) -> int:
    """The change in a group's least deadwood when its best card to lose is discarded."""
    whole = _dw(group)
    best = None
    m = group
    while m:
        low = m & -m
        m ^= low
        change = _dw(group ^ low) - whole
        best = change if best is None or change < best else best
    return best or 0


def _carry_on(rest: int, deadwood: int, unseen: list[tuple[int, Card]], pile: int) -> float:
    """The value of keeping ``rest`` (a 10-card mask with ``deadwood``) and drawing once more
    from ``pile`` cards: the Joker (1 in ``pile``) scores the deadwood; any other card is
    played best — Big Gin, or the discard leaving the least deadwood, valued by
    :func:`stop_value`.

    A drawn card only changes the groups of ``rest`` it can meld with (see :func:`_groups`):
    those are solved again with it, the others keep their deadwood and their best discard.
    """
    if pile <= 1 or not unseen:
        return -float(deadwood)
    later = pile - 1  # the pile once a card other than the Joker is drawn
    groups = [(g, _dw(g), _drop_gain(g)) for g in _groups(rest)]
    total = 0.0
    for bit, card in unseen:
        reach = _REACH[bit.bit_length() - 1]
        joined, base, gain = bit, deadwood, 10 ** 6
        for group, dw, drop in groups:
            if group & reach:
                joined |= group
                base -= dw
            elif drop < gain:
                gain = drop
        kept = base + _dw(joined)  # all 11 cards
        if kept == 0:
            total += BIG_GIN_BONUS + (later - 1) / 2
            continue
        best = min(deadwood, kept + gain)  # discard the new card, or another group's best
        m = joined & ~bit
        while m:
            low = m & -m
            m ^= low
            best = min(best, base + _dw(joined ^ low))
        total += stop_value(best, later)
    return (-deadwood + (pile - 1) * total / len(unseen)) / pile
