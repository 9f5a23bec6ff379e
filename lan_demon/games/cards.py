"""Playing cards: a small exact model shared by Racing Demon and Gin Solitaire.

A card has a rank (1 = ace … 13 = king), a suit (``S H D C``) and, in Racing Demon, an owner:
every player has a pack of their own (RD-2), so two five of hearts on the table are different
cards. Cards are frozen and hashable so they can sit in sets and serve as keys.

Text codes are short and typeable: rank ``A 2-9 T J Q K`` then suit ``S H D C`` (``TD``,
``AS``). The parser is generous — ``10D``, ``10♦``, ``td`` all mean the same card — while
:meth:`Card.code` always prints the canonical form. An owned card travels as ``TD@2``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lan_demon.games.base import GameError

RANKS = "A23456789TJQK"
SUITS = "SHDC"
SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
_SYMBOL_TO_SUIT = {v: k for k, v in SUIT_SYMBOLS.items()} | {"♤": "S", "♡": "H", "♢": "D", "♧": "C"}
RED_SUITS = frozenset("HD")
JOKER_CODE = "JK"
HIDDEN_CODE = "??"


class CardError(GameError):
    """A card code that does not parse."""


@dataclass(frozen=True, slots=True, order=True)
class Card:
    """One card. ``owner`` is the seat whose pack it belongs to (-1 when packs are not told apart)."""

    rank: int
    suit: str
    owner: int = -1
    # the wire form, worked out once: cards travel by the thousand in every redacted state
    _data: str = field(init=False, repr=False, compare=False, default="")

    def __post_init__(self) -> None:
        code = self.code
        object.__setattr__(self, "_data", code if self.owner < 0 else f"{code}@{self.owner}")

    @property
    def is_joker(self) -> bool:
        return self.rank == 0 and self.suit == "*"

    @property
    def hidden(self) -> bool:
        """A stand-in for a face-down card in a redacted state (see ``Game.redact``)."""
        return self.suit == "?"

    @property
    def red(self) -> bool:
        return self.suit in RED_SUITS

    @property
    def code(self) -> str:
        """The canonical two-character code, without the owner (``TD``)."""
        if self.rank == 0:
            return HIDDEN_CODE if self.suit == "?" else JOKER_CODE
        return RANKS[self.rank - 1] + self.suit

    @property
    def symbol(self) -> str:
        """A code for people, with a suit symbol (``10♦``)."""
        if self.rank == 0:
            return "??" if self.suit == "?" else "Joker"
        rank = "10" if self.rank == 10 else RANKS[self.rank - 1]
        return rank + SUIT_SYMBOLS[self.suit]

    def to_data(self) -> str:
        """The wire form: the code, then ``@owner`` when the card has one."""
        return self._data

    @classmethod
    def from_data(cls, data: str) -> Card:
        card = _FROM_DATA.get(data) if type(data) is str else None
        if card is not None:
            return card
        code, _, owner = data.partition("@")
        card = parse_card(code)
        if owner:
            if not owner.isdigit():
                raise CardError(f"bad card owner in {data!r}")
            card = Card(card.rank, card.suit, int(owner))
        if type(data) is str and len(_FROM_DATA) < _FROM_DATA_LIMIT:
            _FROM_DATA[data] = card  # cards are immutable, so one object serves every copy
        return card

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        return f"Card.from_data({self.to_data()!r})"


JOKER = Card(0, "*")
HIDDEN = Card(0, "?")
_FROM_DATA: dict[str, Card] = {}  # wire form -> card, for the codes seen so far
_FROM_DATA_LIMIT = 20_000  # every card of 100 packs, twice over; beyond it codes are parsed
_HIDDEN: dict[int, Card] = {}


def hidden(owner: int = -1) -> Card:
    """A face-down card whose face this viewer may not know; only its owner (pack) is public."""
    card = _HIDDEN.get(owner)
    if card is None:
        card = Card(0, "?", owner)
        if type(owner) is int and -1 <= owner < 1000:
            _HIDDEN[owner] = card
    return card


def parse_card(text: str, owner: int = -1) -> Card:
    """Parse a card code: ``TD``, ``10D``, ``10♦``, ``as``, ``JK`` (the Joker).

    Raises :class:`CardError` with the input quoted when it is not a card.
    """
    raw = text
    text = text.strip()
    if text.upper() in (JOKER_CODE, "JOKER"):
        return JOKER
    if text == HIDDEN_CODE:
        return Card(0, "?", owner)
    if len(text) < 2:
        raise CardError(f"not a card: {raw!r} (try a code like 'TD', '10D' or 'A♠')")
    rank_part, suit_part = text[:-1].upper(), text[-1]
    suit = _SYMBOL_TO_SUIT.get(suit_part, suit_part.upper())
    if suit not in SUITS:
        raise CardError(f"not a card: {raw!r} (suit must be one of S H D C or ♠ ♥ ♦ ♣)")
    if rank_part == "10":
        rank_part = "T"
    if len(rank_part) != 1 or rank_part not in RANKS:
        raise CardError(f"not a card: {raw!r} (rank must be one of A 2-9 T/10 J Q K)")
    return Card(RANKS.index(rank_part) + 1, suit, owner)


def full_pack(owner: int = -1) -> list[Card]:
    """The 52 cards of one pack in a fixed order (suit by suit, ace to king): a new list of
    the same (frozen) cards each time — every deal at the table and every client's check of
    it starts from one per seat."""
    pack = _PACKS.get(owner)
    if pack is None:
        pack = _PACKS[owner] = tuple(Card(rank, suit, owner) for suit in SUITS
                                     for rank in range(1, 14))
    return list(pack)


_PACKS: dict[int, tuple[Card, ...]] = {}
