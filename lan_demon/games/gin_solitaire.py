"""Gin Solitaire (rule book ``GS-1`` … ``GS-9``): one player against the Joker.

The player is dealt 11 cards (GS-2), discards one face down (GS-3), then draws and discards until
they can knock, go Gin or Big Gin (GS-6) — or until they draw the Joker, which ends the round and
scores for the Joker (GS-7). The first side to 100 wins the match (GS-8).

GS-9: with several players, each seat plays alone against a Joker of its own. Seats never
interact, so they all move whenever they like (the game is :attr:`~GinSolitaire.simultaneous`).
Match side ``i`` is seat ``i``'s player and side ``i + n`` is that seat's Joker. The option
``deals`` says what each seat is dealt (PROTOCOL.md §21.6): ``duplicate`` (the default, GS-9's
"the same deal side by side") gives every seat an identical copy of one deal — the fairest
comparison, at a price: a seat that is ahead has drawn the cards the others will draw next;
``independent`` deals every seat its own cards from the same round secret.

The meld solver (GS-5) is :mod:`lan_demon.games.melds`; the moves and their parsing are
:mod:`lan_demon.games.gin_moves`; the GS-7 scores are :mod:`lan_demon.games.gin_scoring`.

Over the network each client keeps a *redacted* copy of the round (:meth:`GinSolitaire.redact`):
the Draw piles, the face-down discards and every other seat's hand are placeholders ``??``, and
other seats' results stay unknown until the whole round is over (GS-9).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from lan_demon.games.base import BadConfig, BadMove, Game, IllegalMove, Match, RoundResult
from lan_demon.games.cards import HIDDEN, JOKER, Card, full_pack
from lan_demon.games.gin_moves import BigGin, Discard, Draw, Knock, Move, move_from_data, parse_move
from lan_demon.games.gin_scoring import (SAT_OUT, TARGET, score_big_gin, score_ending,
                                         score_joker, score_knock)
from lan_demon.games.melds import (HAND_SIZE, deadwood_after_discard, hand_mask, is_big_gin,
                                   mask_deadwood, mask_deadwood_discard)

#: GS-6: the most deadwood a knock may carry.
KNOCK_LIMIT = 10

FIRST_DISCARD = "first-discard"
DRAW = "draw"
DISCARD = "discard"
OVER = "over"
PHASES = (FIRST_DISCARD, DRAW, DISCARD, OVER)

#: GS-9: the ``deals`` option. Duplicate: every seat the same cards (the default: the same
#: cards for everyone is the fairest contest, and what GS-9 describes); independent: each seat
#: its own deal from the same round secret, so no seat's cards tell another's.
DUPLICATE = "duplicate"
INDEPENDENT = "independent"
DEALS = (DUPLICATE, INDEPENDENT)


def deals_mode(value: Any) -> str:
    """The ``deals`` option or set-up value, checked; absent (a journal from before the option)
    is duplicate, as every deal then was."""
    mode = DUPLICATE if value is None else value
    if mode not in DEALS:
        raise BadConfig(f"GS-9: deals are {DUPLICATE!r} or {INDEPENDENT!r}, not {value!r}")
    return mode


def least_deadwood(hand: list[Card]) -> int:
    """The deadwood a view shows (GS-5): holding 11 cards, what is left after the best
    discard; holding 10, the hand's own; holding none, 0."""
    if not hand:
        return 0
    if len(hand) == HAND_SIZE:
        return mask_deadwood_discard(hand_mask(hand))
    return mask_deadwood(hand_mask(hand))


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
    """A round: one :class:`SeatState` per seat, each dealt as ``deals`` says (GS-9)."""

    seats: list[SeatState]

    @property
    def players(self) -> int:
        return len(self.seats)


# --- the game ----------------------------------------------------------------------------------


class GinSolitaire(Game):
    id = "gin-solitaire"
    moves_rule = "GS-4"  # draw, then discard (GS-4)
    title = "Gin Solitaire"
    min_players = 1
    max_players = 8
    players_rule = "GS-1"
    #: GS-9: seats never wait for each other.
    simultaneous = True
    hides_moves = True  # GS-3: a discard goes face down

    # --- the match ---------------------------------------------------------------------------

    def default_rounds(self) -> int | None:
        return None  # GS-8: play to 100

    def sides(self, players: list[str]) -> list[str]:
        """GS-1: the player and the Joker; GS-9: every player, then each one's Joker."""
        if len(players) == 1:
            return [players[0], "Joker"]
        return list(players) + [f"Joker ({name})" for name in players]

    def default_options(self) -> dict[str, Any]:
        """GS-9: duplicate deals unless the host asks for independent ones."""
        return {"deals": DUPLICATE}

    def first_setup(self, players: int, options: dict[str, Any]) -> dict[str, Any]:
        self.check_players(players)
        return {"players": players, "sat_out": [], "deals": deals_mode(options.get("deals"))}

    def next_setup(self, match: Match) -> dict[str, Any]:
        """GS-8/GS-9: a seat whose own match is over sits the next rounds out; the deals stay
        as the match began."""
        n = len(match.players)
        return {"players": n, "sat_out": [i for i in range(n) if self._seat_over(match, i)],
                "deals": deals_mode(match.options.get("deals"))}

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
        GS-9, ``setup["deals"]`` (PROTOCOL.md §21.6): duplicate, every seat gets a copy of one
        deal; independent, seat 0 is dealt, then seat 1, … each from the same stream — a seat
        sitting the round out too, so a seat's cards never depend on who else plays."""
        n = int(setup.get("players", 1))
        self.check_players(n)
        sat_out = set(setup.get("sat_out", []))
        if deals_mode(setup.get("deals")) == DUPLICATE:
            deals = [self._deal_one(rng)] * n
        else:
            deals = [self._deal_one(rng) for _ in range(n)]
        seats = []
        for i, (hand, rest) in enumerate(deals):
            seat = SeatState(hand=list(hand), draw=list(rest))
            if i in sat_out:
                seat.phase = OVER
                seat.result = dict(SAT_OUT)
            seats.append(seat)
        return GinState(seats)

    @staticmethod
    def _deal_one(rng: random.Random) -> tuple[list[Card], list[Card]]:
        """GS-2, one seat's cards: the hand (the shuffled pack's first 11) and the Draw pile
        (the other 41 and the Joker, shuffled; top last)."""
        pack = full_pack()
        rng.shuffle(pack)
        hand, rest = pack[:HAND_SIZE], pack[HAND_SIZE:]
        rest.append(JOKER)
        rng.shuffle(rest)
        return hand, rest

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
            dw = mask_deadwood(hand_mask(rest))
            if dw > KNOCK_LIMIT:
                raise IllegalMove("GS-6", f"you may knock with {KNOCK_LIMIT} deadwood or less; "
                                  f"without {move.card.code} your deadwood is {dw}", move)
        if isinstance(move, BigGin) and not is_big_gin(s.hand):
            raise IllegalMove("GS-6", "Big Gin needs all 11 cards melded; your least deadwood "
                              f"with all 11 is {mask_deadwood(hand_mask(s.hand))}", move)
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
                self._end(s, seat, score_joker(mask_deadwood(hand_mask(s.hand))), events)
            else:
                s.hand.append(card)
                s.phase = DISCARD
                events.append({"e": "draw", "seat": seat, "joker": False,
                               "private": {"card": card.to_data()}})
        elif isinstance(move, Knock):
            s.hand.remove(move.card)
            s.discarded.append(move.card)
            dw = mask_deadwood(hand_mask(s.hand))
            detail = score_ending(s.draw, score_knock, dw)
            events.append({"e": detail["result"], "seat": seat,
                           "private": {"card": move.card.to_data()}})
            self._end(s, seat, detail, events)
        else:  # BigGin
            events.append({"e": "big-gin", "seat": seat})
            self._end(s, seat, score_ending(s.draw, score_big_gin), events)
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
                s.joker_drawn = True
                s.phase = OVER
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
                  "deadwood": None if blind else least_deadwood(hand)})
        if s.done and len(state.seats) > 1:
            v["seats"] = [self._public(x, i) for i, x in enumerate(state.seats)]
        return v

    # --- plain data --------------------------------------------------------------------------

    #: The moves' text and wire forms live with the moves (:mod:`.gin_moves`); bound here as
    #: they are, with no call in between (every client parses every move).
    parse_move = staticmethod(parse_move)
    move_from_data = staticmethod(move_from_data)

    def public_move(self, move: Any) -> dict[str, Any]:
        """GS-3: a discard is face down, so others learn only that a card went."""
        data = move.to_data()
        if "card" in data:
            data["card"] = "??"
        return data

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
        """53 cards per seat (each seat has its own pack: a copy of the one deal, or a deal of
        its own, GS-9): hand, Draw pile, face-down discards and the Joker once drawn."""
        return [c for s in state.seats for c in s.cards()]


__all__ = ["DEALS", "DUPLICATE", "INDEPENDENT", "GinSolitaire", "GinState", "SeatState",
           "deals_mode"]
