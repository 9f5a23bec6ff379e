"""Game states made by hand, card by card, for the engine, bot and coach tests: a Racing Demon
table (every list written bottom to top) and a Gin Solitaire seat whose Draw pile is laid out
around the Joker."""

from __future__ import annotations

from typing import Any

from lan_demon.games.cards import JOKER, Card, full_pack, parse_card
from lan_demon.games.demon_table import DemonSeat, DemonState
from lan_demon.games.gin_solitaire import GinSolitaire
from lan_demon.games.racing_demon import RacingDemon

RD = RacingDemon()
RG = RacingDemon(german=True)
GIN = GinSolitaire()
#: Columns no card of a low test plays on (the default of :func:`seat`).
NINES = ("9S", "9H", "9D", "9C")
#: Columns that take nothing but a queen.
KINGS = ("KS", "KH", "KD", "KC")


def c(code: str, owner: int = 0) -> Card:
    return parse_card(code, owner)


def cs(codes: str, owner: int = 0) -> list[Card]:
    return [c(x, owner) for x in codes.split()]


def seat(pile: str = "2C", columns: tuple[str, ...] = NINES, pack: str = "", waste: str = "",
         owner: int = 0) -> DemonSeat:
    """A hand-made Racing Demon seat; every list is written bottom to top."""
    return DemonSeat(pile=cs(pile, owner), columns=[cs(col, owner) for col in columns],
                     pack=cs(pack, owner), waste=cs(waste, owner), pile_size=13)


def table(*seats: DemonSeat, german: bool = False,
          stacks: tuple[list[Card], ...] = ()) -> DemonState:
    """A Racing Demon table of ``seats`` and the ``stacks`` in the middle (ids from 1)."""
    game = RG if german else RD
    data = game.state_to_data(DemonState(german=german, seats=list(seats)))
    data["stacks"] = [{"id": i + 1, "cards": [x.to_data() for x in st]}
                      for i, st in enumerate(stacks)]
    data["next_stack"] = len(stacks) + 1
    return game.state_from_data(data)


def gin_state(hand: str, draw_above_joker: str, phase: str = "discard",
              long_pile: bool = True) -> Any:
    """One seat holding ``hand``, the Draw pile ``rest + Joker + above`` (top = last code);
    with ``long_pile`` off, the rest lies among the face-down discards instead."""
    held = [parse_card(code) for code in hand.split()]
    above = [parse_card(code) for code in draw_above_joker.split()]
    rest = [card for card in full_pack() if card not in held and card not in above]
    below = rest if long_pile else []
    one = {"hand": [card.to_data() for card in held],
           "draw": [card.to_data() for card in below + [JOKER] + above],
           "discarded": [] if long_pile else [card.to_data() for card in rest],
           "phase": phase, "joker_drawn": False, "result": None}
    return GIN.state_from_data({"players": 1, "seats": [one]})
