"""Gin Solitaire (rule book ``GS-1`` … ``GS-9``): one player against the Joker.

The player is dealt 11 cards (GS-2), discards one face down (GS-3), then draws and discards until
they can knock, go Gin or Big Gin (GS-6) — or until they draw the Joker, which ends the round and
scores for the Joker (GS-7). The first side to 100 wins the match (GS-8).

GS-9 "duplicate": with several players, every seat gets an identical copy of the same deal and
plays it alone against a Joker of its own. Seats never interact, so they all move whenever they
like (the game is :attr:`~GinSolitaire.simultaneous`). Match side ``i`` is seat ``i``'s player and
side ``i + n`` is that seat's Joker.

The meld solver (:func:`min_deadwood`, :func:`best_arrangement`, :func:`best_melds`) is exact: it
searches every meld arrangement (GS-5), with a memo keyed on the hand as a 52-bit mask.

Over the network each client keeps a *redacted* copy of the round (:meth:`GinSolitaire.redact`):
the Draw piles, the face-down discards and every other seat's hand are placeholders ``??``, and
other seats' results stay unknown until the whole round is over (GS-9).
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, ClassVar, Iterable

from lan_demon.games.base import BadConfig, BadMove, Game, IllegalMove, Match, RoundResult
from lan_demon.games.cards import HIDDEN, JOKER, SUITS, Card, CardError, full_pack, parse_card

#: GS-8: the total that ends a seat's match.
TARGET = 100
#: GS-6: the most deadwood a knock may carry.
KNOCK_LIMIT = 10
#: GS-7 bonuses.
GIN_BONUS = 25
BIG_GIN_BONUS = 31
SET_BONUS = 25

HAND_SIZE = 11

FIRST_DISCARD = "first-discard"
DRAW = "draw"
DISCARD = "discard"
OVER = "over"
PHASES = (FIRST_DISCARD, DRAW, DISCARD, OVER)

#: ``detail["result"]`` values of a player side (GS-7), plus ``sat-out`` (GS-8/GS-9, see
#: :meth:`GinSolitaire.next_setup`).
RESULTS = ("knock", "gin", "big-gin", "joker", "sat-out")


# --- GS-1 values and the GS-5 meld solver ----------------------------------------------------

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


def _mask_of(cards: list[Card]) -> int:
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
    mask = _mask_of(hand)
    return _dw_discard(mask) if len(hand) == HAND_SIZE else _dw(mask)


def card_bit(card: Card) -> int:
    """The card's bit in a hand mask (suit by suit, ace to king): the solver's own encoding,
    for callers that ask :func:`mask_deadwood` many times (a bot's look-ahead)."""
    return 1 << _index(card)


def mask_deadwood(mask: int) -> int:
    """GS-5's least deadwood of a hand given as a mask of :func:`card_bit`, every card kept;
    exact and memoised, so thousands of look-ahead questions cost little."""
    return _dw(mask)


def deadwood_all_kept(cards: Iterable[Card | str]) -> int:
    """The least deadwood with every card kept, whatever the count (11 cards: 0 is Big Gin)."""
    hand = _to_cards(cards)
    _check_size(len(hand))
    return _dw(_mask_of(hand))


def is_big_gin(cards: Iterable[Card | str]) -> bool:
    """GS-6: all 11 cards melded."""
    hand = _to_cards(cards)
    return len(hand) == HAND_SIZE and _dw(_mask_of(hand)) == 0


def deadwood_after_discard(cards: Iterable[Card | str]) -> dict[Card, int]:
    """For every card of the hand, the least deadwood of the hand without it."""
    hand = _to_cards(cards)
    _check_size(len(hand))
    mask = _mask_of(hand)
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
    mask = _mask_of(hand)
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


# --- moves -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Discard:
    """GS-3 (the first discard) and GS-4 (the end-of-turn discard): ``discard QS``."""

    card: Card
    kind: ClassVar[str] = "discard"

    def to_data(self) -> dict[str, Any]:
        return {"t": self.kind, "card": self.card.to_data()}

    def __str__(self) -> str:
        return f"discard {self.card.code}"


@dataclass(frozen=True)
class Draw:
    """GS-4: draw the top card of the Draw pile: ``draw``."""

    kind: ClassVar[str] = "draw"

    def to_data(self) -> dict[str, Any]:
        return {"t": self.kind}

    def __str__(self) -> str:
        return "draw"


@dataclass(frozen=True)
class Knock:
    """GS-6: after a draw, discard ``card`` face down and end the round with deadwood ≤ 10
    (0 is Gin): ``knock QS``."""

    card: Card
    kind: ClassVar[str] = "knock"

    def to_data(self) -> dict[str, Any]:
        return {"t": self.kind, "card": self.card.to_data()}

    def __str__(self) -> str:
        return f"knock {self.card.code}"


@dataclass(frozen=True)
class BigGin:
    """GS-6: after a draw, all 11 cards melded; no discard: ``big-gin``."""

    kind: ClassVar[str] = "big-gin"

    def to_data(self) -> dict[str, Any]:
        return {"t": self.kind}

    def __str__(self) -> str:
        return "big-gin"


Move = Discard | Draw | Knock | BigGin


def _card_arg(text: Any, what: str) -> Card:
    if not isinstance(text, str):
        raise BadMove(f"{what} needs a card code like 'QS', not {text!r}")
    try:
        card = Card.from_data(text)
    except CardError as exc:
        raise BadMove(str(exc)) from exc
    if card.is_joker:
        raise BadMove(f"{what}: the Joker is never in your hand")
    return card


# --- state -------------------------------------------------------------------------------------

@dataclass
class SeatState:
    """One seat's own game (GS-9: each seat plays the deal alone).

    ``draw``: top = last element. ``discarded``: the face-down discards, kept only so no card is
    lost (GS-3: never shown). ``joker_drawn``: the Joker left the Draw pile (GS-7).
    ``result``: the seat's detail dict once it has ended (``phase == "over"``).
    """

    hand: list[Card]
    draw: list[Card]
    discarded: list[Card] = field(default_factory=list)
    phase: str = FIRST_DISCARD
    joker_drawn: bool = False
    result: dict[str, Any] | None = None

    @property
    def done(self) -> bool:
        return self.phase == OVER

    def cards(self) -> list[Card]:
        return self.hand + self.draw + self.discarded + ([JOKER] if self.joker_drawn else [])

    def to_data(self) -> dict[str, Any]:
        return {"hand": [c.to_data() for c in self.hand],
                "draw": [c.to_data() for c in self.draw],
                "discarded": [c.to_data() for c in self.discarded],
                "phase": self.phase,
                "joker_drawn": self.joker_drawn,
                "result": dict(self.result) if self.result is not None else None}

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> SeatState:
        phase = data["phase"]
        if phase not in PHASES:
            raise ValueError(f"unknown phase {phase!r}")
        return cls(hand=[Card.from_data(c) for c in data["hand"]],
                   draw=[Card.from_data(c) for c in data["draw"]],
                   discarded=[Card.from_data(c) for c in data.get("discarded", [])],
                   phase=phase,
                   joker_drawn=bool(data.get("joker_drawn", False)),
                   result=dict(data["result"]) if data.get("result") is not None else None)


@dataclass
class GinState:
    """A round: one :class:`SeatState` per seat, all dealt the same cards (GS-9)."""

    seats: list[SeatState]

    @property
    def players(self) -> int:
        return len(self.seats)


def _detail(result: str, deadwood: int, count: int, player: int, joker: int) -> dict[str, Any]:
    return {"result": result, "deadwood": deadwood, "count": count, "player": player,
            "joker": joker}


def score_knock(deadwood: int, count: int) -> dict[str, Any]:
    """GS-7 for a knock (deadwood 0: Gin): the detail dict of the player's side."""
    if deadwood == 0:
        return _detail("gin", 0, count, GIN_BONUS + count, 0)
    if count >= deadwood:
        return _detail("knock", deadwood, count, count - deadwood, 0)
    return _detail("knock", deadwood, count, 0, SET_BONUS + deadwood - count)


def score_big_gin(count: int) -> dict[str, Any]:
    """GS-7: Big Gin scores 31 + C."""
    return _detail("big-gin", 0, count, BIG_GIN_BONUS + count, 0)


def score_joker(deadwood: int) -> dict[str, Any]:
    """GS-7: the Joker drawn scores the deadwood of the player's 10 cards for the Joker."""
    return _detail("joker", deadwood, 0, 0, deadwood)


SAT_OUT = _detail("sat-out", 0, 0, 0, 0)


def _count_above_joker(draw: list[Card]) -> int:
    """GS-7: C, the cards above the Joker in the Draw pile (top = last)."""
    return len(draw) - 1 - draw.index(JOKER)


def _score_ending(draw: list[Card], score: Any, *args: int) -> dict[str, Any]:
    """The detail of a knock or Big Gin; on a redacted Draw pile (the Joker's place unknown)
    C and the points are left open (``None``) until the table's own result arrives."""
    if JOKER in draw:
        return score(*args, _count_above_joker(draw))
    detail = score(*args, 0)
    detail.update(count=None, player=None, joker=None)
    return detail


# --- the game ----------------------------------------------------------------------------------

_MOVE_TEXT = re.compile(r"\s+")


class GinSolitaire(Game):
    id = "gin-solitaire"
    title = "Gin Solitaire"
    min_players = 1
    max_players = 8
    players_rule = "GS-1"
    #: GS-9: seats never wait for each other.
    simultaneous = True

    # --- the match ---------------------------------------------------------------------------

    def default_rounds(self) -> int | None:
        return None  # GS-8: play to 100

    def sides(self, players: list[str]) -> list[str]:
        """GS-1: the player and the Joker; GS-9: every player, then each one's Joker."""
        if len(players) == 1:
            return [players[0], "Joker"]
        return list(players) + [f"Joker ({name})" for name in players]

    def first_setup(self, players: int, options: dict[str, Any]) -> dict[str, Any]:
        self.check_players(players)
        return {"players": players, "sat_out": []}

    def next_setup(self, match: Match) -> dict[str, Any]:
        """GS-8/GS-9: a seat whose own match is over sits the next rounds out."""
        n = len(match.players)
        return {"players": n, "sat_out": [i for i in range(n) if self._seat_over(match, i)]}

    @staticmethod
    def _seat_over(match: Match, seat: int) -> bool:
        n = len(match.players)
        return match.totals[seat] >= TARGET or match.totals[n + seat] >= TARGET

    @staticmethod
    def _seat_outcome(match: Match, seat: int) -> str:
        """GS-8: "player" or "joker", whoever reached 100 first; if neither did (a match cut
        short by a round count), the higher total; "tie" when equal."""
        n = len(match.players)
        p = j = 0
        for r in match.rounds:
            p += r.scores[seat]
            j += r.scores[n + seat]
            if p >= TARGET or j >= TARGET:
                # the player and the Joker never both score in one round
                return "player" if p >= TARGET and p >= j else "joker"
        if p != j:
            return "player" if p > j else "joker"
        return "tie"

    def match_over(self, match: Match) -> bool:
        """GS-8: when every seat's player or Joker has reached 100."""
        return all(self._seat_over(match, i) for i in range(len(match.players)))

    def winners(self, match: Match) -> list[int]:
        """GS-8: solo: the player (side 0) or the Joker (side 1), whoever got to 100 first.
        GS-9: the players who beat their Joker; if none did, the Jokers that won."""
        n = len(match.players)
        outcomes = [self._seat_outcome(match, i) for i in range(n)]
        if n == 1:
            return {"player": [0], "joker": [1], "tie": [0, 1]}[outcomes[0]]
        players = [i for i, o in enumerate(outcomes) if o == "player"]
        if players:
            return players
        jokers = [n + i for i, o in enumerate(outcomes) if o == "joker"]
        return jokers or list(range(2 * n))

    # --- one round ---------------------------------------------------------------------------

    def deal(self, setup: dict[str, Any], rng: random.Random) -> GinState:
        """GS-2: shuffle the 52, deal 11; shuffle the Joker into the other 41 (the Draw pile).
        GS-9: every seat gets a copy of the same deal."""
        n = int(setup.get("players", 1))
        self.check_players(n)
        sat_out = set(setup.get("sat_out", []))
        pack = full_pack()
        rng.shuffle(pack)
        hand, rest = pack[:HAND_SIZE], pack[HAND_SIZE:]
        rest.append(JOKER)
        rng.shuffle(rest)
        seats = []
        for i in range(n):
            seat = SeatState(hand=list(hand), draw=list(rest))
            if i in sat_out:
                seat.phase = OVER
                seat.result = dict(SAT_OUT)
            seats.append(seat)
        return GinState(seats)

    def to_move(self, state: GinState) -> list[int]:
        return [i for i, s in enumerate(state.seats) if not s.done]

    def round_over(self, state: GinState) -> bool:
        return all(s.done for s in state.seats)

    def legal_moves(self, state: GinState, seat: int) -> list[Move]:
        if not 0 <= seat < len(state.seats):
            return []
        s = state.seats[seat]
        if any(c.hidden for c in s.hand):  # a redacted hand: its drawn card is not known yet
            return []
        hand = sorted(s.hand)
        if s.phase == FIRST_DISCARD:
            return [Discard(c) for c in hand]
        if s.phase == DRAW:
            return [Draw()]
        if s.phase == DISCARD:
            after = deadwood_after_discard(hand)
            moves: list[Move] = [Discard(c) for c in hand]
            moves += [Knock(c) for c in hand if after[c] <= KNOCK_LIMIT]
            if is_big_gin(hand):
                moves.append(BigGin())
            return moves
        return []

    def _check(self, state: GinState, seat: int, move: Any) -> SeatState:
        """Validate ``move`` completely; raise IllegalMove/BadMove; touch nothing."""
        if not isinstance(move, (Discard, Draw, Knock, BigGin)):
            raise BadMove(f"not a Gin Solitaire move: {move!r}")
        if not isinstance(seat, int) or not 0 <= seat < len(state.seats):
            raise IllegalMove("GS-1", f"there is no seat {seat} at this table", move)
        s = state.seats[seat]
        if s.phase == OVER:
            if s.result is not None and s.result.get("result") == "sat-out":
                raise IllegalMove("GS-8", "your match is over (100 reached): you sit this "
                                  "round out", move)
            raise IllegalMove("GS-4", "the round is over for you", move)
        card = getattr(move, "card", None)
        if (card is not None and card.hidden) or any(c.hidden for c in s.hand):
            raise BadMove("that card is not known yet")
        if s.phase == FIRST_DISCARD:
            if not isinstance(move, Discard):
                raise IllegalMove("GS-3", "first discard one card face down, before drawing",
                                  move)
            if move.card not in s.hand:
                raise IllegalMove("GS-3", f"{move.card.code} is not in your hand", move)
            return s
        if s.phase == DRAW:
            if not isinstance(move, Draw):
                raise IllegalMove("GS-4", "draw the top card of the Draw pile first", move)
            return s
        # DISCARD: the hand holds 11 cards
        if isinstance(move, Draw):
            raise IllegalMove("GS-4", "you have drawn this turn: discard a card, knock, or "
                              "call Big Gin", move)
        if isinstance(move, (Discard, Knock)) and move.card not in s.hand:
            raise IllegalMove("GS-4", f"{move.card.code} is not in your hand", move)
        if isinstance(move, Knock):
            rest = [c for c in s.hand if c != move.card]
            dw = _dw(_mask_of(rest))
            if dw > KNOCK_LIMIT:
                raise IllegalMove("GS-6", f"you may knock with {KNOCK_LIMIT} deadwood or less; "
                                  f"without {move.card.code} your deadwood is {dw}", move)
        if isinstance(move, BigGin) and not is_big_gin(s.hand):
            raise IllegalMove("GS-6", "Big Gin needs all 11 cards melded; your least deadwood "
                              f"with all 11 is {_dw(_mask_of(s.hand))}", move)
        return s

    def apply(self, state: GinState, seat: int, move: Any) -> list[dict[str, Any]]:
        s = self._check(state, seat, move)
        events: list[dict[str, Any]] = []
        if isinstance(move, Discard):
            first = s.phase == FIRST_DISCARD
            s.hand.remove(move.card)
            s.discarded.append(move.card)
            s.phase = DRAW
            events.append({"e": "discard", "seat": seat, "first": first,
                           "private": {"card": move.card.to_data()}})
        elif isinstance(move, Draw):
            card = s.draw.pop()
            if card.is_joker:
                # GS-7: the round ends at once; the Joker scores the deadwood of the 10 cards
                s.joker_drawn = True
                events.append({"e": "draw", "seat": seat, "joker": True,
                               "private": {"card": card.to_data()}})
                self._end(s, seat, score_joker(_dw(_mask_of(s.hand))), events)
            else:
                s.hand.append(card)
                s.phase = DISCARD
                events.append({"e": "draw", "seat": seat, "joker": False,
                               "private": {"card": card.to_data()}})
        elif isinstance(move, Knock):
            s.hand.remove(move.card)
            s.discarded.append(move.card)
            dw = _dw(_mask_of(s.hand))
            detail = _score_ending(s.draw, score_knock, dw)
            events.append({"e": detail["result"], "seat": seat,
                           "private": {"card": move.card.to_data()}})
            self._end(s, seat, detail, events)
        else:  # BigGin
            events.append({"e": "big-gin", "seat": seat})
            self._end(s, seat, _score_ending(s.draw, score_big_gin), events)
        if self.round_over(state):
            events.append({"e": "round-over",
                           "results": [dict(x.result or {}) for x in state.seats]})
        return events

    @staticmethod
    def _end(s: SeatState, seat: int, detail: dict[str, Any], events: list[dict[str, Any]]) -> None:
        s.phase = OVER
        s.result = detail
        # GS-9: the count C tells where the Joker lies in the shared deal, so the result stays
        # private to the seat until the round is over (the round-over event).
        events.append({"e": "seat-over", "seat": seat, "private": {"result": dict(detail)}})

    # --- what travels to one seat ------------------------------------------------------------

    def copy_state(self, state: GinState) -> GinState:
        """An independent copy: every list is new, the (immutable) cards are shared."""
        return GinState([SeatState(hand=list(s.hand), draw=list(s.draw),
                                   discarded=list(s.discarded), phase=s.phase,
                                   joker_drawn=s.joker_drawn,
                                   result=dict(s.result) if s.result is not None else None)
                         for s in state.seats])

    def redact(self, state: GinState, seat: int | None) -> GinState:
        """The round as ``seat`` may know it (``None``: a spectator): its own hand, every
        phase and size, whether a seat drew its Joker; no Draw pile card, no discard (GS-3), no
        other seat's hand. Other seats' results are known once the whole round is over (GS-9),
        or from the start for a seat sitting the round out."""
        over = self.round_over(state)
        seats = []
        for i, s in enumerate(state.seats):
            mine = i == seat
            result = s.result
            if not (mine or over or (result or {}).get("result") == "sat-out"):
                result = None
            seats.append(SeatState(hand=list(s.hand) if mine else [HIDDEN] * len(s.hand),
                                   draw=[HIDDEN] * len(s.draw),
                                   discarded=[HIDDEN] * len(s.discarded), phase=s.phase,
                                   joker_drawn=s.joker_drawn,
                                   result=dict(result) if result is not None else None))
        return GinState(seats)

    def replay(self, mirror: GinState, seat: int, move: Any,
               events: list[dict[str, Any]]) -> None:
        """Play a committed move on a redacted round. The mirror's own seat plays it through
        :meth:`apply`, its drawn card revealed first from the event's ``private`` part; another
        seat's hand is all placeholders, so only its sizes and phase move (seats never meet,
        GS-9). Results come from the events: the seat's own, then everyone's at round-over."""
        s = mirror.seats[seat]
        drawn = next((e for e in events if e.get("e") == "draw"), None)
        if any(not c.hidden for c in s.hand):  # the mirror's own seat
            if drawn is not None and "private" in drawn:
                s.draw[-1] = Card.from_data(drawn["private"]["card"])
            self.apply(mirror, seat, move)
        elif isinstance(move, (Discard, Knock)):
            s.hand.pop()
            s.discarded.append(HIDDEN)
            s.phase = DRAW if isinstance(move, Discard) else OVER
        elif isinstance(move, Draw):
            s.draw.pop()
            if drawn is not None and drawn.get("joker"):
                s.joker_drawn, s.phase = True, OVER
            else:
                s.hand.append(HIDDEN)
                s.phase = DISCARD
        elif isinstance(move, BigGin):
            s.phase = OVER
        s.draw = [HIDDEN] * len(s.draw)
        s.discarded = [HIDDEN] * len(s.discarded)
        for e in events:
            if e.get("e") == "seat-over":
                result = (e.get("private") or {}).get("result")
                mirror.seats[e["seat"]].result = dict(result) if result is not None else None
            elif e.get("e") == "round-over":
                for x, result in zip(mirror.seats, e["results"]):
                    x.result = dict(result)

    def round_result(self, state: GinState) -> RoundResult:
        """GS-7: side i = seat i's player, side i + n = seat i's Joker."""
        if not self.round_over(state):
            raise ValueError("the round is not over yet")
        n = len(state.seats)
        details = [dict(s.result or SAT_OUT) for s in state.seats]
        scores = [d["player"] for d in details] + [d["joker"] for d in details]
        return RoundResult(scores, details + [{} for _ in range(n)])

    # --- views -------------------------------------------------------------------------------

    @staticmethod
    def _public(s: SeatState, seat: int) -> dict[str, Any]:
        return {"seat": seat, "phase": s.phase, "over": s.done, "hand_size": len(s.hand),
                "draw": len(s.draw), "discards": len(s.discarded),
                "result": dict(s.result) if s.result is not None else None}

    def view(self, state: GinState, seat: int | None) -> dict[str, Any]:
        """Own hand (sorted), phase, the Draw pile's size and the discard count only (GS-3: the
        discards are never shown; the Draw pile is face down). Other seats' progress (GS-9) is
        shown only once this seat has ended, and only sizes and results."""
        over = self.round_over(state)
        if seat is None:
            return {"game": self.id, "seat": None, "round_over": over,
                    "seats": [self._public(s, i) for i, s in enumerate(state.seats)]}
        s = state.seats[seat]
        hand = sorted(s.hand)
        v = self._public(s, seat)
        blind = any(c.hidden for c in hand)  # a redacted hand: its drawn card not known yet
        v.update({"game": self.id, "round_over": over, "hand": [c.to_data() for c in hand],
                  "deadwood": None if blind else
                  (_dw_discard(_mask_of(hand)) if len(hand) == HAND_SIZE
                   else _dw(_mask_of(hand))) if hand else 0})
        if s.done and len(state.seats) > 1:
            v["seats"] = [self._public(x, i) for i, x in enumerate(state.seats)]
        return v

    # --- plain data --------------------------------------------------------------------------

    def parse_move(self, text: str) -> Move:
        """``discard QS``, ``draw``, ``knock QS`` (also ``gin QS``), ``big-gin``."""
        if not isinstance(text, str):
            raise BadMove(f"a move is text, not {text!r}")
        words = _MOVE_TEXT.split(text.strip().lower())
        if words == [""]:
            raise BadMove("empty move; try: discard QS, draw, knock QS, big-gin")
        verb, args = words[0], words[1:]
        if " ".join(words) in ("big-gin", "biggin", "big gin"):
            return BigGin()
        if verb == "draw" and not args:
            return Draw()
        if verb in ("discard", "knock", "gin") and len(args) == 1:
            card = _card_arg(args[0], verb)
            return Discard(card) if verb == "discard" else Knock(card)
        raise BadMove(f"not a Gin Solitaire move: {text!r}; "
                      "try: discard QS, draw, knock QS, big-gin")

    def public_move(self, move: Any) -> dict[str, Any]:
        """GS-3: a discard is face down, so others learn only that a card went."""
        data = move.to_data()
        if "card" in data:
            data["card"] = "??"
        return data

    def move_from_data(self, data: Any) -> Move:
        if isinstance(data, (Discard, Draw, Knock, BigGin)):
            return data
        if isinstance(data, str):
            return self.parse_move(data)
        if not isinstance(data, dict) or "t" not in data:
            raise BadMove(f"not a Gin Solitaire move: {data!r}")
        kind = data["t"]
        extra = set(data) - {"t", "card"}
        if extra:
            raise BadMove(f"unexpected field(s) {sorted(extra)} in {data!r}")
        if kind in ("draw", "big-gin"):
            if "card" in data:
                raise BadMove(f"{kind} takes no card")
            return Draw() if kind == "draw" else BigGin()
        if kind in ("discard", "knock"):
            if "card" not in data:
                raise BadMove(f"{kind} needs a card")
            card = _card_arg(data["card"], kind)
            return Discard(card) if kind == "discard" else Knock(card)
        raise BadMove(f"unknown Gin Solitaire move kind {kind!r}")

    def state_to_data(self, state: GinState) -> dict[str, Any]:
        return {"players": len(state.seats), "seats": [s.to_data() for s in state.seats]}

    def state_from_data(self, data: dict[str, Any]) -> GinState:
        try:
            seats = [SeatState.from_data(s) for s in data["seats"]]
        except (KeyError, TypeError, ValueError) as exc:
            raise BadConfig(f"not a Gin Solitaire state: {exc}") from exc
        if not seats:
            raise BadConfig("not a Gin Solitaire state: no seats")
        return GinState(seats)

    def cards_in_play(self, state: GinState) -> list[Card]:
        """53 cards per seat (each seat has its own copy of the deal, GS-9): hand, Draw pile,
        face-down discards and the Joker once drawn."""
        return [c for s in state.seats for c in s.cards()]


__all__ = ["Arrangement", "BigGin", "Discard", "Draw", "GinSolitaire", "GinState", "Knock",
           "SeatState", "best_arrangement", "best_melds", "card_value", "deadwood_after_discard",
           "deadwood_all_kept", "is_big_gin", "min_deadwood", "score_big_gin", "score_joker",
           "score_knock"]
