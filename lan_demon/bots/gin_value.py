"""What a Gin Solitaire hand is worth: the expected points of the round, player minus Joker
(GS-7), given what is believed about C, the count of cards above the Joker.

A seat cannot see where the Joker lies. Every card it has not seen (the pack less the cards it
has held this round, GS-3's face-down discards included: it saw them) is in the Draw pile, and
the Joker is equally likely to be at any of its ``N`` places (``N`` = the pile's size = the
unseen cards + 1), so C is uniform on 0 … N − 1 and its expectation is (N − 1) / 2. The Joker's
sighted oracle (:mod:`lan_demon.bots.gin_oracle`) knows C, a belief of one value. Both are a
:class:`Belief`: C uniform on ``lo`` … ``hi``.

The knock rule, for a knock leaving deadwood ``d`` (GS-7)::

    E[knock] = 1/N · Σ_{C=0}^{N-1} ( C − d            if C ≥ d
                                    −(25 + d − C)     if C < d, "set" )
    E[Gin]   = 25 + E[C],   E[Big Gin] = 31 + E[C]

Playing on is worth one more draw: the Joker (1 in N) scores the deadwood, −d; any other card,
equally likely among the unseen, is drawn and played best — Big Gin, a knock, or the discard
leaving the least deadwood held until the Joker comes (see :func:`carry_on`). The solver knocks
when E[knock] is at least the best discard's E[play on] — and when that one-draw look says
knock, it looks one draw further first (:func:`carry_on_deep`) and knocks only if that agrees.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from lan_demon.games.cards import Card
from lan_demon.games.gin_scoring import BIG_GIN_BONUS, GIN_BONUS, SET_BONUS
from lan_demon.games.gin_solitaire import KNOCK_LIMIT
from lan_demon.games.melds import mask_deadwood as _dw


@dataclass(frozen=True)
class Belief:
    """C, the cards above the Joker, believed uniform on ``lo`` … ``hi``."""

    lo: int
    hi: int

    @classmethod
    def unseen(cls, pile: int) -> Belief:
        """A seat's belief: the Joker at any of the ``pile`` places alike (C = 0 … pile − 1)."""
        return cls(0, max(0, pile - 1))

    @classmethod
    def known(cls, count: int) -> Belief:
        """The oracle's: C is ``count``."""
        return cls(count, count)

    @property
    def joker_next(self) -> float:
        """The chance that the next card drawn is the Joker (C = 0)."""
        return 1.0 / (self.hi - self.lo + 1) if self.lo == 0 else 0.0

    def after_draw(self) -> Belief:
        """The belief once a card other than the Joker has been drawn: C ≥ 1 then, one less."""
        return Belief(max(self.lo, 1) - 1, max(self.hi - 1, 0))

    @property
    def mean(self) -> float:
        return (self.lo + self.hi) / 2


@lru_cache(maxsize=None)
def _knock(deadwood: int, lo: int, hi: int) -> float:
    if deadwood == 0:
        return GIN_BONUS + (lo + hi) / 2
    total = 0
    for count in range(lo, hi + 1):
        total += count - deadwood if count >= deadwood else -(SET_BONUS + deadwood - count)
    return total / (hi - lo + 1)


def knock_worth(deadwood: int, belief: Belief) -> float:
    """GS-7: E[knock now with ``deadwood``] (0: Gin) — the formula in the module docstring."""
    return _knock(deadwood, belief.lo, belief.hi)


def big_gin_worth(belief: Belief) -> float:
    """GS-7: Big Gin scores 31 + C."""
    return BIG_GIN_BONUS + belief.mean


@lru_cache(maxsize=None)
def _stop(deadwood: int, lo: int, hi: int) -> float:
    if deadwood <= KNOCK_LIMIT:
        return max(_knock(deadwood, lo, hi), -deadwood)
    return -float(deadwood)


def stop_worth(deadwood: int, belief: Belief) -> float:
    """A 10-card hand that never improves: knock now (when GS-6 allows) or hold it until the
    Joker comes and scores the deadwood — whichever is worth more."""
    return _stop(deadwood, belief.lo, belief.hi)


def knock_value(deadwood: int, pile: int) -> float:
    """E[knock] for a seat that sees a Draw pile of ``pile`` cards (the Joker among them)."""
    return knock_worth(deadwood, Belief.unseen(pile)) if pile > 0 else 0.0


def stop_value(deadwood: int, pile: int) -> float:
    """:func:`stop_worth` for a seat that sees a Draw pile of ``pile`` cards."""
    return stop_worth(deadwood, Belief.unseen(pile))


# --- groups of a hand: cards a drawn card can meld with --------------------------------------

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


def _drop(group: int) -> tuple[int, int]:
    """The group's best card to lose: (the change in its least deadwood, that card's bit)."""
    whole = _dw(group)
    best, best_bit = 10 ** 6, 0
    for low in _bits(group):
        change = _dw(group ^ low) - whole
        if change < best:
            best, best_bit = change, low
    return best, best_bit


def _split(rest: int) -> list[tuple[int, int, int, int]]:
    """(group, its deadwood, its best drop's change, that card) for each group of ``rest``."""
    out = []
    for g in _groups(rest):
        gain, bit = _drop(g)
        out.append((g, _dw(g), gain, bit))
    return out


def _bits(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low)
        mask ^= low
    return out


Unseen = list[tuple[int, Card]]  # (card bit, card) of every card the seat has not seen


def _drawn(deadwood: int, bit: int, groups: list[tuple[int, int, int, int]]) \
        -> tuple[int, int, int]:
    """A 10-card hand of ``deadwood``, cut into ``groups`` (:func:`_split`), with card ``bit``
    drawn: (the deadwood of all 11, the least deadwood after the best discard, that
    discard's bit — the drawn card itself when keeping the hand as it was is best)."""
    reach = _REACH[bit.bit_length() - 1]
    joined, base, gain, gain_bit = bit, deadwood, 10 ** 6, 0
    for group, dw, change, drop in groups:
        if group & reach:
            joined |= group
            base -= dw
        elif change < gain:
            gain, gain_bit = change, drop
    kept = base + _dw(joined)  # all 11 cards
    best, best_bit = deadwood, bit  # discard the new card
    if kept + gain < best:
        best, best_bit = kept + gain, gain_bit  # the best card of a group it does not touch
    m = joined & ~bit
    while m:
        low = m & -m
        m ^= low
        d = base + _dw(joined ^ low)
        if d < best:
            best, best_bit = d, low
    return kept, best, best_bit


def _after_each(rest: int, deadwood: int, unseen: Unseen, belief: Belief) -> list[float]:
    """For each card of ``unseen``: what ``rest`` is worth once that card is drawn (and the
    Joker was not): Big Gin, or the least deadwood after a discard, by :func:`stop_worth`."""
    later = belief.after_draw()
    groups = _split(rest)
    out = []
    for bit, _ in unseen:
        kept, best, _ = _drawn(deadwood, bit, groups)
        out.append(big_gin_worth(later) if kept == 0 else stop_worth(best, later))
    return out


def carry_on(rest: int, deadwood: int, unseen: Unseen, belief: Belief) -> float:
    """E[play on] holding ``rest`` (a 10-card mask with ``deadwood``): the Joker next (C = 0)
    scores −deadwood; any other card, equally likely among ``unseen``, is played best — Big
    Gin, or the discard leaving the least deadwood, valued by :func:`stop_worth`.

    A drawn card only changes the groups of ``rest`` it can meld with (see :func:`_groups`):
    those are solved again with it, the others keep their deadwood and their best discard.
    """
    joker = belief.joker_next
    if joker >= 1.0 or not unseen:
        return -float(deadwood)
    each = _after_each(rest, deadwood, unseen, belief)
    return joker * -deadwood + (1 - joker) * sum(each) / len(each)


def carry_on_deep(rest: int, deadwood: int, unseen: Unseen, belief: Belief) -> float:
    """:func:`carry_on` one draw further: after the next card, the 11 cards are played by the
    same rule the solver plays now — Big Gin, a knock (:func:`knock_worth`), or the discard
    leaving the least deadwood followed by :func:`carry_on` — whichever is worth most.

    A drawn card that is itself the best discard leaves ``rest`` as it was, one card fewer
    unseen: its :func:`carry_on` is the sum over the other cards, worked out once."""
    joker = belief.joker_next
    if joker >= 1.0 or not unseen:
        return -float(deadwood)
    later = belief.after_draw()
    groups = _split(rest)
    same: list[float] | None = None  # rest kept: what each next card is worth, one draw on
    total = 0.0
    for i, (bit, _) in enumerate(unseen):
        kept, best, drop = _drawn(deadwood, bit, groups)
        if kept == 0:
            total += big_gin_worth(later)
            continue
        others = unseen[:i] + unseen[i + 1:]
        if drop == bit and later.joker_next < 1.0 and others:
            if same is None:
                same = _after_each(rest, deadwood, unseen, later)
            rest_sum = sum(same) - same[i]
            value = later.joker_next * -deadwood + \
                (1 - later.joker_next) * rest_sum / len(others)
        else:
            value = carry_on((rest | bit) ^ drop, best, others, later)
        if best <= KNOCK_LIMIT:
            value = max(value, knock_worth(best, later))
        total += value
    return joker * -deadwood + (1 - joker) * total / len(unseen)


def _exact_knock(deadwood: int, count: int) -> float:
    return _knock(deadwood, count, count)


def run_to_the_joker(rest: int, deadwood: int, unseen: Unseen, count: int) -> float:
    """E[play on] for a player who *knows* C = ``count`` (the oracle): it may draw ``count``
    more cards safely, then the Joker. Each draw is taken to bring a deadwood drawn from the
    same spread as the next card's (the least deadwood after a discard, for each unseen card
    alike), kept only when better than the hand's — a chain over the known draws to the Joker,
    knocking at the best moment of it (C − d, Gin 25 + C) or holding the hand to the Joker
    (−d). This sees the whole run, where :func:`carry_on` sees one draw: told C, one draw
    would knock too soon, C − d now against C − 1 − d' next — never the Gin a few draws on."""
    if count <= 0 or not unseen:
        return -float(deadwood)
    groups = _split(rest)
    spread: dict[int, int] = {}
    for bit, _ in unseen:
        kept, best, _ = _drawn(deadwood, bit, groups)
        best = 0 if kept == 0 else best
        spread[best] = spread.get(best, 0) + 1
    n = len(unseen)
    states = sorted(set(spread) | {deadwood})
    # worth[d] at k safe draws left; with none left the Joker is next: Gin, or hold (−d)
    worth = {d: (GIN_BONUS if d == 0 else -float(d)) for d in states}
    for k in range(1, count):
        worth = {d: max(_exact_knock(d, k) if d <= KNOCK_LIMIT else -float(d),
                        sum(c * worth[min(d, x)] for x, c in spread.items()) / n)
                 for d in states}
    return sum(c * worth[min(deadwood, x)] for x, c in spread.items()) / n
