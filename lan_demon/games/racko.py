"""Rack-O (rules RK-1 … RK-9 of ``RULES.md``): ten numbered cards per rack, put them in order.

Cards are plain ints. A rack is a list of ten cards, index 0 being slot 5 and index 9 slot 50;
players name slots by their printed number (``take 25``), the engine stores indexes. Piles are
lists whose top is the last element. A turn is one move (take the Discard) or two (draw, then
place or discard the drawn card); between the two the drawn card is ``held``, seen by its
drawer only.

Over the network each client keeps a *redacted* copy of the round (:meth:`RackO.redact`): every
card its seat may not see — other racks, the Draw pile, the Discard cards under the top, another
player's drawn card — is the placeholder :data:`HIDDEN_CARD` (0, a number no card bears).

The moves and their text and wire forms are :mod:`.racko_moves`'s.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, ClassVar

from lan_demon.games.base import BadConfig, BadMove, Game, IllegalMove, Match, RoundResult
from lan_demon.games.racko_moves import (MOVE_FORMS, DiscardHeld, Draw, Move, Place,
                                         TakeDiscard, move_from_data, parse_move)

#: Slot numbers as printed on a rack, slot 5 first (RK-2).
SLOTS: tuple[int, ...] = tuple(range(5, 55, 5))
RACK_SIZE = len(SLOTS)
#: Deck size by player count (RK-1).
DECK_SIZES: dict[int, int] = {2: 40, 3: 50, 4: 60}
#: Points (RK-6) and the match target (RK-7).
RACKO_POINTS = 25
CARD_POINTS = 5
TARGET = 500
#: RK-9 bonus by the length of the longest run of consecutive numbers (6 or more: 400).
RUN_BONUS: dict[int, int] = {3: 50, 4: 100, 5: 200, 6: 400}
#: A card a redacted state does not know (cards are numbered from 1, RK-1).
HIDDEN_CARD = 0


def deck_size(players: int) -> int:
    """The highest card in play: fewer players use fewer cards (RK-1)."""
    if players not in DECK_SIZES:
        raise BadConfig(f"RK-1: Rack-O is for 2 to 4 players, not {players}")
    return DECK_SIZES[players]


def slot_index(slot: int) -> int:
    """The rack index of a printed slot number (5 → 0, 50 → 9)."""
    return SLOTS.index(slot)


def ascending_prefix(rack: list[int]) -> int:
    """How many cards from slot 5 on are in ascending order before it breaks (RK-6).

    The slot-5 card always counts: a lone card is in order.
    """
    count = min(1, len(rack))
    while count < len(rack) and rack[count] > rack[count - 1]:
        count += 1
    return count


def longest_run(rack: list[int]) -> int:
    """The longest stretch of neighbouring slots holding consecutive numbers (RK-9)."""
    best = run = min(1, len(rack))
    for left, right in zip(rack, rack[1:]):
        run = run + 1 if right == left + 1 else 1
        best = max(best, run)
    return best


def run_bonus(rack: list[int]) -> int:
    """The RK-9 bonus for a rack: 3 → 50, 4 → 100, 5 → 200, 6 or more → 400."""
    run = min(longest_run(rack), 6)
    return RUN_BONUS.get(run, 0)


# --- state -------------------------------------------------------------------------------------


@dataclass
class RackOState:
    """One round of Rack-O as plain mutable data."""

    racks: list[list[int]]
    draw: list[int]
    discard: list[int]
    dealer: int
    turn: int
    held: int | None = None
    over: bool = False
    racko: int | None = None
    turns: int = 0
    options: dict[str, Any] = field(default_factory=lambda: {"bonus": False})

    @property
    def players(self) -> int:
        return len(self.racks)


class RackO(Game):
    """The rules of Rack-O; holds no state of its own."""

    id: ClassVar[str] = "racko"
    moves_rule: ClassVar[str] = "RK-4"  # turns go round (RK-4)
    title: ClassVar[str] = "Rack-O"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 4
    players_rule: ClassVar[str] = "RK-1"
    simultaneous: ClassVar[bool] = False

    # --- the match -----------------------------------------------------------------------------

    def default_options(self) -> dict[str, Any]:
        """RK-9's bonus Rack-O is outside the source, so it is off unless the host asks."""
        return {"bonus": False}

    def default_rounds(self) -> int | None:
        """A match runs to 500 points (RK-7), not to a number of rounds."""
        return None

    def first_setup(self, players: int, options: dict[str, Any]) -> dict[str, Any]:
        self.check_players(players)
        bonus = options.get("bonus", False)
        if not isinstance(bonus, bool):
            raise BadConfig(f"RK-9: the bonus option is true or false, not {bonus!r}")
        return {"players": players, "bonus": bonus}

    def match_over(self, match: Match) -> bool:
        """The match ends when someone has reached 500 (RK-7)."""
        return any(total >= TARGET for total in match.totals)

    def winners(self, match: Match) -> list[int]:
        """The highest totals share the win (RK-7).

        Once over, the highest total is necessarily one of those at 500 or more; before the end
        (a host's round cap) the leaders win.
        """
        best = max(match.totals)
        return [i for i, total in enumerate(match.totals) if total == best]

    # --- the deal ------------------------------------------------------------------------------

    def deal(self, setup: dict[str, Any], rng: random.Random) -> RackOState:
        """Deal a round as the rule book does (RK-2, RK-3, RK-4).

        ``rng.shuffle`` is the only chance used, so a seed replays the deal exactly.
        """
        players = setup["players"]
        deck = list(range(1, deck_size(players) + 1))
        dealer = self._cut_for_dealer(deck, players, rng)
        rng.shuffle(deck)
        racks = [[0] * RACK_SIZE for _ in range(players)]
        for k in range(RACK_SIZE * players):
            racks[(dealer + 1 + k) % players][RACK_SIZE - 1 - k // players] = deck.pop()
        discard = [deck.pop()]
        return RackOState(racks=racks, draw=deck, discard=discard, dealer=dealer,
                          turn=(dealer + 1) % players, options={"bonus": setup.get("bonus", False)})

    @staticmethod
    def _cut_for_dealer(deck: list[int], players: int, rng: random.Random) -> int:
        """Each seat in turn draws a card from the shuffled deck; the highest deals (RK-2).

        The drawn cards go back on top in their old order, ready for the dealer's shuffle.
        """
        rng.shuffle(deck)
        cut = [deck.pop() for _ in range(players)]
        deck.extend(reversed(cut))
        return cut.index(max(cut))

    # --- play ----------------------------------------------------------------------------------

    def to_move(self, state: RackOState) -> list[int]:
        return [] if state.over else [state.turn]

    def legal_moves(self, state: RackOState, seat: int) -> list[Move]:
        """Every move ``seat`` may make now: none unless it is their turn in a live round."""
        if state.over or seat != state.turn:
            return []
        if state.held is not None:
            return [Place(slot) for slot in SLOTS] + [DiscardHeld()]
        known = state.discard and state.discard[-1] != HIDDEN_CARD
        moves: list[Move] = [TakeDiscard(slot) for slot in SLOTS] if known else []
        if self._can_draw(state):
            moves.append(Draw())
        return moves

    @staticmethod
    def _can_draw(state: RackOState) -> bool:
        """A Draw card exists, possibly after turning the Discard pile over (RK-8)."""
        return bool(state.draw) or len(state.discard) >= 2

    def apply(self, state: RackOState, seat: int, move: Any) -> list[dict[str, Any]]:
        """Check the whole move, then play it; the state is untouched when it is refused."""
        self._check(state, seat, move)
        if isinstance(move, Draw):
            return self._draw(state, seat)
        if isinstance(move, TakeDiscard):
            card = state.discard.pop()
            events = [{"e": "take", "seat": seat, "slot": move.slot, "card": card,
                       "out": self._swap(state, seat, move.slot, card)}]
        elif isinstance(move, Place):
            card, state.held = state.held, None
            events = [{"e": "place", "seat": seat, "slot": move.slot,
                       "out": self._swap(state, seat, move.slot, card), "private": {"card": card}}]
        else:
            card, state.held = state.held, None
            state.discard.append(card)
            events = [{"e": "discard", "seat": seat, "card": card}]
        return events + self._end_turn(state, seat)

    def _check(self, state: RackOState, seat: int, move: Any) -> None:
        """Raise for anything wrong with ``move`` now, touching nothing."""
        if not isinstance(move, (TakeDiscard, Draw, Place, DiscardHeld)):
            raise BadMove(f"not a Rack-O move: {move!r}; the moves are {MOVE_FORMS}")
        if state.over:
            raise IllegalMove("RK-5", f"the round is over: seat {state.racko} went Rack-O", move)
        if seat != state.turn:
            raise IllegalMove("RK-4", f"it is seat {state.turn}'s turn, not seat {seat}'s", move)
        holding = state.held is not None
        if holding and isinstance(move, (TakeDiscard, Draw)):
            raise IllegalMove("RK-4", "you have drawn a card: place it into a slot or discard it",
                              move)
        if not holding and isinstance(move, (Place, DiscardHeld)):
            raise IllegalMove("RK-4", f"'{move}' needs a drawn card: draw first, "
                              "or take the top Discard", move)
        if isinstance(move, Draw) and not self._can_draw(state):
            raise IllegalMove("RK-8", "there is no card left to draw", move)
        if isinstance(move, TakeDiscard) and not state.discard:
            raise IllegalMove("RK-4", "the Discard pile is empty", move)
        slot = getattr(move, "slot", SLOTS[0])
        if isinstance(slot, bool) or not isinstance(slot, int) or slot not in SLOTS:
            raise IllegalMove("RK-2", f"there is no slot {slot}: the slots are 5, 10, … 50", move)
        if isinstance(move, TakeDiscard) and state.discard[-1] == HIDDEN_CARD:
            raise BadMove("that card is not known yet")

    def _draw(self, state: RackOState, seat: int) -> list[dict[str, Any]]:
        """Take the top Draw card into the hand, turning the Discard pile over first if need be."""
        events = self._turn_over_discard(state) if not state.draw else []
        state.held = state.draw.pop()
        return events + [{"e": "draw", "seat": seat, "private": {"card": state.held}}]

    @staticmethod
    def _turn_over_discard(state: RackOState) -> list[dict[str, Any]]:
        """RK-8: the face-up Discard pile, turned over unshuffled, is the new Draw pile.

        Turning a pile over reverses it: the old top card ends at the bottom and the old bottom
        card comes on top; that top card is then turned up to start the new Discard pile.
        """
        state.draw = state.discard[::-1]
        state.discard = [state.draw.pop()]
        return [{"e": "reshuffle", "discard_top": state.discard[-1], "draw_size": len(state.draw)}]

    @staticmethod
    def _swap(state: RackOState, seat: int, slot: int, card: int) -> int:
        """Put ``card`` into ``slot`` and the card it replaces face up on the Discard pile."""
        rack = state.racks[seat]
        index = slot_index(slot)
        out, rack[index] = rack[index], card
        state.discard.append(out)
        return out

    def _end_turn(self, state: RackOState, seat: int) -> list[dict[str, Any]]:
        """Close the mover's turn: Rack-O if their rack ascends (RK-5), else the next seat."""
        state.turns += 1
        rack = state.racks[seat]
        # a redacted rack (a card not known yet) never calls Rack-O: the table's events tell
        if HIDDEN_CARD not in rack and ascending_prefix(rack) == RACK_SIZE:
            state.over = True
            state.racko = seat
            return [{"e": "racko", "seat": seat}]
        state.turn = (seat + 1) % state.players
        return [{"e": "turn", "seat": state.turn}]

    # --- what a seat sees ----------------------------------------------------------------------

    def view(self, state: RackOState, seat: int | None) -> dict[str, Any]:
        """The table as ``seat`` sees it: their own rack and drawn card, nobody else's (RK-2)."""
        seen: dict[str, Any] = {
            "game": self.id,
            "seat": seat,
            "players": state.players,
            "deck_size": deck_size(state.players),
            "bonus": bool(state.options.get("bonus", False)),
            "dealer": state.dealer,
            "turn": state.turn,
            "turns": state.turns,
            "holding": state.held is not None,
            "discard_top": state.discard[-1] if state.discard else None,
            "draw_size": len(state.draw),
            "discard_size": len(state.discard),
            "over": state.over,
            "racko": state.racko,
            "seats": [{"seat": i, "rack_size": len(rack)} for i, rack in enumerate(state.racks)],
        }
        if seat is not None and 0 <= seat < state.players:
            seen["rack"] = list(state.racks[seat])
            if state.held is not None and seat == state.turn:
                seen["held"] = state.held
        return seen

    # --- what travels to one seat --------------------------------------------------------------

    def copy_state(self, state: RackOState) -> RackOState:
        """An independent copy, without a round trip through plain data."""
        return RackOState(racks=[list(rack) for rack in state.racks], draw=list(state.draw),
                          discard=list(state.discard), dealer=state.dealer, turn=state.turn,
                          held=state.held, over=state.over, racko=state.racko,
                          turns=state.turns, options=dict(state.options))

    def redact(self, state: RackOState, seat: int | None) -> RackOState:
        """The round as ``seat`` may know it (``None``: a spectator): its own rack, the Discard
        top, every size, whose turn, and the drawn card only to the player who drew it (RK-2).
        Every other card is :data:`HIDDEN_CARD`."""
        hide = HIDDEN_CARD
        held = state.held
        if held is not None and seat != state.turn:
            held = hide
        return RackOState(
            racks=[list(rack) if i == seat else [hide] * len(rack)
                   for i, rack in enumerate(state.racks)],
            draw=[hide] * len(state.draw),
            discard=[hide] * (len(state.discard) - 1) + state.discard[-1:],
            dealer=state.dealer, turn=state.turn, held=held, over=state.over,
            racko=state.racko, turns=state.turns, options=dict(state.options))

    def replay(self, mirror: RackOState, seat: int, move: Any,
               events: list[dict[str, Any]]) -> None:
        """Play a committed move on a redacted round: the move itself through :meth:`apply`,
        then what the events reveal — the new Discard top (a replaced card, a discarded one,
        the top turned up by RK-8), the drawn card for its drawer (the ``private`` part), and a
        Rack-O the mirror could not see in a hidden rack."""
        mine = any(card != HIDDEN_CARD for card in mirror.racks[seat])
        self.apply(mirror, seat, move)
        hide = HIDDEN_CARD
        if not mine:
            mirror.racks[seat] = [hide] * len(mirror.racks[seat])
        mirror.draw = [hide] * len(mirror.draw)
        mirror.discard[:-1] = [hide] * (len(mirror.discard) - 1)
        for e in events:
            kind = e.get("e")
            if kind in ("take", "place"):
                mirror.discard[-1] = e["out"]
            elif kind == "discard":
                mirror.discard[-1] = e["card"]
            elif kind == "reshuffle":
                mirror.discard[-1] = e["discard_top"]
            elif kind == "draw":
                mirror.held = (e.get("private") or {}).get("card", hide)
            elif kind == "racko":
                mirror.over = True
                mirror.racko = e["seat"]
                mirror.turn = e["seat"]

    # --- the end of a round --------------------------------------------------------------------

    def round_over(self, state: RackOState) -> bool:
        return state.over

    def round_result(self, state: RackOState) -> RoundResult:
        """RK-6 scores (and RK-9 bonus when on), each with the parts it re-adds from."""
        bonus_on = bool(state.options.get("bonus", False))
        scores, detail = [], []
        for seat, rack in enumerate(state.racks):
            racko = seat == state.racko
            part: dict[str, Any] = {"rack": list(rack), "racko": racko}
            bonus = run_bonus(rack) if racko and bonus_on else 0
            if bonus_on:
                part["bonus"] = bonus
            scores.append(RACKO_POINTS * racko + CARD_POINTS * ascending_prefix(rack) + bonus)
            detail.append(part)
        return RoundResult(scores, detail)

    # --- plain data ----------------------------------------------------------------------------

    def parse_move(self, text: str) -> Move:
        """A move from ``take 25``, ``draw``, ``place 25`` or ``discard`` (any case or spacing)."""
        return parse_move(text)

    def move_from_data(self, data: Any) -> Move:
        """A move from its ``to_data()`` dict; anything else is a :class:`BadMove`."""
        return move_from_data(data)

    def state_to_data(self, state: RackOState) -> dict[str, Any]:
        return {
            "racks": [list(rack) for rack in state.racks],
            "draw": list(state.draw),
            "discard": list(state.discard),
            "dealer": state.dealer,
            "turn": state.turn,
            "held": state.held,
            "over": state.over,
            "racko": state.racko,
            "turns": state.turns,
            "options": dict(state.options),
        }

    def state_from_data(self, data: dict[str, Any]) -> RackOState:
        return RackOState(
            racks=[list(rack) for rack in data["racks"]],
            draw=list(data["draw"]),
            discard=list(data["discard"]),
            dealer=data["dealer"],
            turn=data["turn"],
            held=data["held"],
            over=data["over"],
            racko=data["racko"],
            turns=data["turns"],
            options=dict(data["options"]),
        )

    def cards_in_play(self, state: RackOState) -> list[int]:
        """Every card of the round: racks, both piles and the drawn card."""
        cards = [card for rack in state.racks for card in rack] + state.draw + state.discard
        return cards + ([state.held] if state.held is not None else [])
