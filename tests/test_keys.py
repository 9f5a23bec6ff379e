"""No key that bites: one key vocabulary for every game, Gin Solitaire's card letters
that stay put, and the keys listed the same way on the terminal and on the page.

A key that means something in one game is never a card's or a place's letter in another (``h``
was the hint in Racing Demon and Rack-O and, in Gin Solitaire, a card letter that discarded at
once); a Gin card keeps its letter while it stays in the hand, and the drawn card never takes
the letter the discard just freed (``k`` was Q♠, then 10♠: pressed twice, two cards went).
All here is the seat layer and the screens' key lists: no network, no process (GS-3, GS-4)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from lan_demon.games.cards import Card, parse_card
from lan_demon.games.gin_solitaire import DISCARD, DRAW, FIRST_DISCARD
from lan_demon.seat import Seat
from lan_demon.seat.acts import (GAME_KEYS, PICK_LETTERS, SHARED_KEYS, SLOT_KEYS, SOURCE_KEYS,
                                 TABLE_KEYS, key_help, key_map)
from lan_demon.seat.face import face
from lan_demon.seat.gin import LETTERS
from lan_demon.seat.outcomes import Refusal
from lan_demon.tui import demon as tui_demon
from lan_demon.tui.demon import DemonScreen
from lan_demon.tui.gin import GinScreen
from lan_demon.tui.racko import RackOScreen
from tui_fake import FakeClient, seats

pytestmark = pytest.mark.timeout(20)

KINDS = ("DemonSeat", "RackOSeat", "GinSeat")
#: Every single-character key some game gives a meaning of its own (not a card's or place's).
OWN_KEYS = {k for k in SOURCE_KEYS} | {k for k in SLOT_KEYS} | {
    k.key for kind in KINDS for k in key_help(kind) + TABLE_KEYS if len(k.key) == 1}


def test_no_card_or_place_letter_is_a_key_of_its_own_in_any_game():
    """h is the hint in every game, so it is no Gin card's letter; nor is d (Rack-O's Discard),
    n (draw), s (stuck), x (discard) … — and Racing Demon's places after t take the same
    letters (GS-3, GS-4, RD-7)."""
    assert set(LETTERS) <= set(PICK_LETTERS) and len(LETTERS) == 12
    assert tui_demon.LETTERS == PICK_LETTERS
    lowercase = {k for k in OWN_KEYS if k.isalpha() and k.islower()}
    assert lowercase <= set(SHARED_KEYS), lowercase - set(SHARED_KEYS)
    assert not set(PICK_LETTERS) & OWN_KEYS
    assert not set(PICK_LETTERS) & {"h", "d", "n", "s", "x", "q", "y", "p", "w", "t"}


def test_every_game_lists_its_keys_in_one_order_and_one_wording():
    """Each game: its moves, then "h hint", then "esc cancel"; a key two games share has the
    same words in both (n draws in Rack-O and in Gin Solitaire)."""
    words: dict[str, str] = {}
    for kind in KINDS:
        keys = key_help(kind)
        assert [(k.key, k.words) for k in keys[-2:]] == [("h", "hint"), ("esc", "cancel")], kind
        for k in keys:
            assert words.setdefault(k.key, k.words) == k.words, (kind, k.key)
            assert k.words and k.words == k.words.strip(), k


def test_the_terminal_lists_each_games_keys_as_the_seat_layer_does():
    """The status line and the help (?) read the screen's ``keys``: the seat layer's, in its
    order, for all three games."""
    assert RackOScreen.keys == [(k.key, k.words) for k in key_help("RackOSeat")]
    assert GinScreen.keys == [(k.key, k.words) for k in key_help("GinSeat")]
    assert DemonScreen().keys == [(k.key, k.words) for k in key_help("DemonSeat")]


# --- Gin Solitaire: a seat over a hand the test deals ---------------------------------------


@dataclass
class GinClient(FakeClient):
    """A Gin Solitaire seat whose hand and phase the test sets, move by move."""

    game_id: str = "gin-solitaire"
    hand: list[Card] = field(default_factory=list)
    phase: str = FIRST_DISCARD
    played: list[Any] = field(default_factory=list)

    def view(self) -> dict[str, Any] | None:
        return {"game": self.game_id, "seat": 0, "hand": [c.to_data() for c in self.hand],
                "phase": self.phase, "draw": 30, "discards": 1, "round_over": False}

    def legal_moves(self) -> list[Any]:
        from lan_demon.games.gin_moves import Discard, Draw
        if self.phase == DRAW:
            return [Draw()]
        return [Discard(c) for c in self.hand]

    def play(self, move: Any) -> int:
        self.played.append(move)
        return len(self.played)


def gin_seat(codes: str) -> tuple[Seat, GinClient]:
    client = GinClient(table={"phase": "playing", "seats": seats("Tess")})
    client.hand = [parse_card(c, 0) for c in codes.split()]
    seat = Seat(client, clock=client.clock)  # type: ignore[arg-type]
    seat.pump()
    return seat, client


def test_gs3_gs4_a_gin_card_keeps_its_letter_and_a_drawn_card_never_takes_the_one_just_freed():
    """GS-3, GS-4: the letters at the deal go in displayed order; a discard frees a letter and
    the drawn card takes the spare one, so the key just pressed names no card at all until
    the next discard — pressed again it is refused, and nothing is sent."""
    seat, client = gin_seat("AS 2S 3S 7H 7D 7C 9C JD QS KH 4D")
    game = seat.game
    letters = dict(game.layout().letters)
    assert [letters[c] for c in game.layout().order] == list(LETTERS[:11])
    gone: Card | None = None
    for new in ("5C", "8S", "10H", "6D", "2H"):  # five turns: discard, then draw
        gone = game.layout().discard or game.layout().order[0]
        freed = letters[gone]
        client.hand.remove(gone)
        client.phase = DRAW
        seat.pump()
        client.hand.append(parse_card(new, 0))
        client.phase = DISCARD
        seat.pump()
        now = game.layout().letters
        for card, letter in letters.items():
            if card != gone:
                assert now[card] == letter, card  # a card keeps its letter while in hand
        drawn = parse_card(new, 0)
        assert now[drawn] != freed  # never the letter the discard just let go
        assert len(set(now.values())) == 11
        sent = len(client.played)
        refused = game.tap_card(freed)
        assert isinstance(refused, Refusal) and len(client.played) == sent
        assert f"there is no card {freed} now (its card was discarded)" in refused.words
        letters = dict(now)


def test_gs4_h_in_gin_solitaire_asks_for_the_hint_and_discards_nothing():
    """GS-4: h is the hint here too — not a card — on the terminal and on the page's keyboard."""
    seat, client = gin_seat("AS 2S 3S 7H 7D 7C 9C JD QS KH 4D")
    keys = key_map(seat)
    assert keys["h"] == {"do": "hint"} and keys["H"] == {"do": "hint"}
    cards = {k: v for k, v in keys.items() if v.get("do") == "card"}
    assert set(cards) == set(LETTERS[:11])
    seat.game.hint()  # no coach at this table: it says so, and sends nothing
    assert client.played == []


def test_the_page_lists_the_keys_as_the_terminal_does():
    """The face's ``key_help`` is the terminal's list in its order and words, less the keys that
    are the terminal's own (its "choose the place", its knock toggle), then q."""
    seat, _ = gin_seat("AS 2S 3S 7H 7D 7C 9C JD QS KH 4D")
    listed = face(seat)["key_help"]
    want = [[k.key, k.words] for k in GAME_KEYS["GinSeat"] + TABLE_KEYS if k.page]
    assert listed == want
    terminal = [[k, w] for k, w in GinScreen.keys] + [["q", "leave"]]
    assert [x for x in terminal if x in listed] == listed  # the same order
    page_keys = key_map(seat)
    for key, _ in listed:  # each listed key is one the page's keyboard does
        assert key == "letter" or key in page_keys or (key, page_keys.get(" ")) == ("space", None)
