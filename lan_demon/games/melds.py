"""The Gin Solitaire meld solver (GS-1 values, GS-5 melds and deadwood), exact.

It searches every meld arrangement (GS-5), with a memo keyed on the hand as a 52-bit mask (one bit
per card, suit by suit, ace to king, so a run is a row of neighbouring bits). The public questions
take cards (:class:`Card` objects or codes like ``"QS"``): :func:`min_deadwood`,
:func:`deadwood_after_discard`, :func:`is_big_gin`, :func:`best_arrangement`, :func:`best_melds`;
callers that ask many times (the engine on a knock, a bot's look-ahead) use the masks directly:
:func:`hand_mask`, :func:`card_bit`, :func:`mask_deadwood`, :func:`mask_deadwood_discard`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Iterable

from lan_demon.games.cards import SUITS, Card, parse_card

#: GS-2: the hand a player holds after a draw (10 between turns); the most the solver takes.
HAND_SIZE = 11


def card_value(card: Card | str) -> int:
    """GS-1: A = 1, 2–10 as numbered, J Q K = 10."""
    if isinstance(card, str):
        card = parse_card(card)
    if card.is_joker:
        raise ValueError("the Joker has no deadwood value (it never sits in a hand)")
    return min(card.rank, 10)


def _index(card: Card) -> int:
    """A card's bit: suit by suit, ace to king, so a run is a row of neighbouring bits."""
    return SUITS.index(card.suit) * 13 + card.rank - 1


_VALUE = tuple(min(i % 13 + 1, 10) for i in range(52))


@lru_cache(maxsize=1 << 17)
def _dw(mask: int) -> int:
    """The least deadwood of the cards in ``mask``, every card kept (GS-5), exact.

    The lowest card of the mask is either deadwood or in exactly one meld; being the lowest, a run
    holding it starts at it and a set holding it takes its other cards from higher bits.
    """
    if not mask:
        return 0
    low = mask & -mask
    b = low.bit_length() - 1
    best = _VALUE[b] + _dw(mask ^ low)
    # runs starting at b (aces low only: a run never wraps from K to A, GS-5)
    r = b % 13
    run = low
    nxt = low << 1
    length = 1
    while r + length < 13 and mask & nxt:
        run |= nxt
        length += 1
        nxt <<= 1
        if length >= 3:
            v = _dw(mask & ~run)
            if v < best:
                best = v
                if not best:
                    return 0
    # sets of 3 or 4 holding b
    mates = [1 << j for j in (b + 13, b + 26, b + 39) if j < 52 and mask >> j & 1]
    if len(mates) >= 2:
        for i in range(len(mates)):
            for k in range(i + 1, len(mates)):
                v = _dw(mask & ~(low | mates[i] | mates[k]))
                if v < best:
                    best = v
        if len(mates) == 3:
            v = _dw(mask & ~(low | mates[0] | mates[1] | mates[2]))
            if v < best:
                best = v
    return best


@lru_cache(maxsize=1 << 15)
def _dw_discard(mask: int) -> int:
    """The least deadwood over every possible discard of one card (GS-5, 11 cards)."""
    best = 10 ** 9
    m = mask
    while m:
        low = m & -m
        m ^= low
        v = _dw(mask ^ low)
        if v < best:
            best = v
            if not best:
                break
    return best


def _to_cards(cards: Iterable[Card | str]) -> list[Card]:
    out = []
    for c in cards:
        card = parse_card(c) if isinstance(c, str) else c
        if not isinstance(card, Card):
            raise TypeError(f"not a card: {c!r}")
        if card.is_joker:
            raise ValueError("the Joker cannot be melded or counted as deadwood")
        out.append(card)
    return out


def hand_mask(cards: list[Card]) -> int:
    """The hand as a mask of :func:`card_bit`; a card twice is a ValueError."""
    mask = 0
    for card in cards:
        bit = 1 << _index(card)
        if mask & bit:
            raise ValueError(f"card {card.code} appears twice")
        mask |= bit
    return mask


def _check_size(n: int) -> None:
    if n > HAND_SIZE:
        raise ValueError(f"a Gin Solitaire hand holds at most {HAND_SIZE} cards, not {n}")


def min_deadwood(cards: Iterable[Card | str]) -> int:
    """GS-5: the least deadwood of a hand.

    Up to 10 cards: over every arrangement of melds. 11 cards: the least over every possible
    discard. Cards are :class:`Card` objects or codes (``"QS"``, ``"10D"``).
    """
    hand = _to_cards(cards)
    _check_size(len(hand))
    mask = hand_mask(hand)
    return _dw_discard(mask) if len(hand) == HAND_SIZE else _dw(mask)


def card_bit(card: Card) -> int:
    """The card's bit in a hand mask (suit by suit, ace to king): the solver's own encoding,
    for callers that ask :func:`mask_deadwood` many times (a bot's look-ahead)."""
    return 1 << _index(card)


#: GS-5's least deadwood of a hand given as a mask of :func:`card_bit` (see :func:`hand_mask`),
#: every card kept; exact and memoised, so thousands of look-ahead questions cost little. It is
#: the solver's core itself, not a wrapper: the engine asks it on every knock.
mask_deadwood = _dw
#: The least deadwood of an 11-card mask over every possible discard (GS-5), memoised.
mask_deadwood_discard = _dw_discard


def deadwood_all_kept(cards: Iterable[Card | str]) -> int:
    """The least deadwood with every card kept, whatever the count (11 cards: 0 is Big Gin)."""
    hand = _to_cards(cards)
    _check_size(len(hand))
    return _dw(hand_mask(hand))


def is_big_gin(cards: Iterable[Card | str]) -> bool:
    """GS-6: all 11 cards melded."""
    hand = _to_cards(cards)
    return len(hand) == HAND_SIZE and _dw(hand_mask(hand)) == 0


def deadwood_after_discard(cards: Iterable[Card | str]) -> dict[Card, int]:
    """For every card of the hand, the least deadwood of the hand without it."""
    hand = _to_cards(cards)
    _check_size(len(hand))
    mask = hand_mask(hand)
    return {c: _dw(mask & ~(1 << _index(c))) for c in hand}


@dataclass(frozen=True)
class Arrangement:
    """A least-deadwood arrangement: the melds, the deadwood cards, the discard (11 cards only)
    and the deadwood points."""

    melds: list[list[Card]]
    deadwood: list[Card]
    discard: Card | None
    points: int

    def to_data(self) -> dict[str, Any]:
        return {"melds": [[c.to_data() for c in m] for m in self.melds],
                "deadwood": [c.to_data() for c in self.deadwood],
                "discard": self.discard.to_data() if self.discard else None,
                "points": self.points}


def _melds_of(mask: int) -> tuple[list[int], int]:
    """Rebuild one optimal arrangement of ``mask``: (meld masks, deadwood mask)."""
    melds: list[int] = []
    dead = 0
    while mask:
        target = _dw(mask)
        low = mask & -mask
        b = low.bit_length() - 1
        options: list[int] = []
        r = b % 13
        run, nxt, length = low, low << 1, 1
        runs = []
        while r + length < 13 and mask & nxt:
            run |= nxt
            length += 1
            nxt <<= 1
            if length >= 3:
                runs.append(run)
        options.extend(reversed(runs))  # longest run first
        mates = [1 << j for j in (b + 13, b + 26, b + 39) if j < 52 and mask >> j & 1]
        if len(mates) == 3:
            options.append(low | mates[0] | mates[1] | mates[2])
        for i in range(len(mates)):
            for k in range(i + 1, len(mates)):
                options.append(low | mates[i] | mates[k])
        for meld in options:
            if _dw(mask & ~meld) == target:
                melds.append(meld)
                mask &= ~meld
                break
        else:
            dead |= low
            mask ^= low
    return melds, dead


def best_arrangement(cards: Iterable[Card | str]) -> Arrangement:
    """GS-5: the melds and deadwood of a least-deadwood arrangement.

    With 11 cards one card is discarded first (the best discard; among equal ones the highest
    value, then the highest rank, then the suit order S H D C): it is in ``discard`` and in
    neither ``melds`` nor ``deadwood``. Cards come back as the objects passed in.
    """
    hand = _to_cards(cards)
    _check_size(len(hand))
    mask = hand_mask(hand)
    by_index = {_index(c): c for c in hand}
    discard = None
    if len(hand) == HAND_SIZE:
        points = _dw_discard(mask)
        ties = [c for c in hand if _dw(mask & ~(1 << _index(c))) == points]
        discard = max(ties, key=lambda c: (card_value(c), c.rank, -SUITS.index(c.suit)))
        mask &= ~(1 << _index(discard))
    melds, dead = _melds_of(mask)

    def cards_of(m: int) -> list[Card]:
        return [by_index[i] for i in range(52) if m >> i & 1]

    dead_cards = cards_of(dead)
    arrangement = Arrangement([cards_of(m) for m in melds], dead_cards, discard,
                              sum(card_value(c) for c in dead_cards))
    assert arrangement.points == _dw(mask)
    return arrangement


def best_melds(cards: Iterable[Card | str]) -> tuple[list[list[Card]], list[Card]]:
    """GS-5: (melds, deadwood cards) of a least-deadwood arrangement (see :func:`best_arrangement`
    for 11 cards: the best discard is left out of both)."""
    a = best_arrangement(cards)
    return a.melds, a.deadwood
