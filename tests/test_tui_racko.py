"""The Rack-O table driven by key presses through the real application (RK-2 … RK-9)."""

from __future__ import annotations

import re

import pytest
import zmq

from lan_demon.games.racko import SLOTS, ascending_prefix
from lan_demon.net.client import Client
from lan_demon.tui.racko import SLOT_KEYS, RackOScreen
from lan_demon.tui.style import text_of
from tui_harness import Keys, drive

pytestmark = pytest.mark.timeout(120)

ROW = re.compile(r"^ (\d) +(\d+) ┃[·\s]*(\d+)")


async def start(keys: Keys, players: int = 2) -> None:
    ctl = keys.ctl
    await keys.seated(players)
    await keys.press("enter")  # the host starts the match
    await keys.until(lambda: ctl.phase == "playing", what="Go")


async def my_turn(keys: Keys) -> dict:
    """Wait until it is our turn, with nothing of ours in flight; the view then."""
    ctl = keys.ctl
    await keys.settled()
    await keys.until(lambda: ctl.client.view()["turn"] == ctl.client.seat
                     and not ctl.client.pending, timeout=30, what="our turn")
    return ctl.client.view()


async def their_turn(keys: Keys) -> None:
    ctl = keys.ctl
    await keys.until(lambda: ctl.client.view()["turn"] != ctl.client.seat
                     and not ctl.client.pending, timeout=30, what="the bot's turn")


def test_rk4_draw_with_n_then_a_slot_key_d_then_a_slot_key_and_n_then_x():
    async def script(keys: Keys) -> None:
        ctl = keys.ctl
        await start(keys)
        seat = ctl.client.seat
        arbiter = keys.table.server.arbiter
        screen: RackOScreen = ctl.screen

        # n, then 3: the drawn card goes into slot 15, the card it replaces onto the Discard
        await my_turn(keys)
        drawn = arbiter.state.draw[-1]
        before = list(arbiter.state.racks[seat])
        await keys.press("n")
        await keys.until(lambda: ctl.client.view().get("held") == drawn, what="the drawn card")
        await keys.settled()
        assert f"You drew {drawn}" in text_of(ctl.render(80, 24))
        await keys.press("3")
        assert SLOT_KEYS["3"] == 15
        await keys.until(lambda: arbiter.state.racks[seat][SLOTS.index(15)] == drawn,
                         what="the drawn card in slot 15")
        assert arbiter.state.discard[-1] == before[SLOTS.index(15)]
        assert arbiter.state.racks[seat][:2] == before[:2]

        # d, then 0: the Discard top goes into slot 50
        await my_turn(keys)
        top = arbiter.state.discard[-1]
        before = list(arbiter.state.racks[seat])
        await keys.press("d")
        assert screen.awaiting_slot(ctl)
        assert "which slot?" in text_of(ctl.render(80, 24))
        await keys.press("0")
        await keys.until(lambda: arbiter.state.racks[seat][9] == top, what="slot 50 taken")
        assert arbiter.state.discard[-1] == before[9]
        assert not screen.awaiting_slot(ctl)

        # d, Escape cancels; then n and x: the drawn card goes onto the Discard, the rack stays
        await my_turn(keys)
        await keys.press("d", "escape")
        assert not screen.awaiting_slot(ctl) and ctl.flash_text == "cancelled"
        before = list(arbiter.state.racks[seat])
        drawn = arbiter.state.draw[-1]
        await keys.press("n")
        await keys.until(lambda: ctl.client.view().get("held") == drawn)
        await keys.settled()
        await keys.press("x")
        await keys.until(lambda: arbiter.state.turn != seat, what="the turn passed")
        assert arbiter.state.discard[-1] == drawn
        assert arbiter.state.racks[seat] == before

    drive("racko", 1, script, seed=1, speed="club")


def test_rk4_keys_when_it_is_not_your_turn_are_refused_naming_whose_turn():
    async def script(keys: Keys) -> None:
        ctl = keys.ctl
        await start(keys)
        if ctl.client.view()["turn"] == ctl.client.seat:
            # a slot key before picking a card says what to press first
            await keys.press("5")
            assert ctl.flash_rule == "RK-4" and "d takes the Discard" in \
                ctl.flash_text
            await keys.press("n")
            await keys.until(lambda: "held" in ctl.client.view())
            await keys.settled()
            await keys.press("x")
        await their_turn(keys)
        bot = ctl.name(ctl.client.view()["turn"])
        for key in ("n", "d", "7", "x"):
            await keys.press(key)
            assert ctl.flash_rule == "RK-4", (key, ctl.flash_text)
            assert ctl.flash_text.startswith(f"it is {bot}'s turn"), (key, ctl.flash_text)
            assert not ctl.client.pending  # refused here, nothing sent
            assert ctl.flash_text in text_of(ctl.render(80, 24))

    drive("racko", 1, script, seed=1, speed="beginner")


def test_rk2_rk6_the_rack_shows_ten_slots_5_to_50_at_80x24_and_help_shows_rk1_to_rk9():
    async def script(keys: Keys) -> None:
        ctl = keys.ctl
        await start(keys, players=3)
        view = ctl.client.view()
        text = text_of(ctl.render(80, 24))
        lines = text.split("\n")
        assert len(lines) <= 24 and max(len(x) for x in lines) <= 80
        rows = [ROW.match(x) for x in lines]
        rows = [m for m in rows if m]
        # ten slots, slot 50 at the top, slot 5 at the bottom, each with its key and its card
        assert [int(m.group(2)) for m in rows] == list(reversed(SLOTS))
        assert [m.group(1) for m in rows] == list("0987654321")
        assert [int(m.group(3)) for m in rows] == list(reversed(view["rack"]))
        # RK-6: the cards in order from slot 5 are the "good" ones
        good = [t for style, t in ctl.render(80, 24) if style == "class:good reverse"]
        assert len(good) == ascending_prefix(view["rack"])
        assert f"Discard {view['discard_top']:>3}" in text
        assert f"Draw pile {view['draw_size']} cards" in text
        assert "Scores to 500" in text
        for i in range(3):
            assert ctl.name(i)[:11] in text
        small = text_of(ctl.render(60, 20)).split("\n")
        assert len(small) <= 20 and max(len(x) for x in small) <= 60
        help_text = await keys.read_help()
        for n in range(1, 10):
            assert f"RK-{n}" in help_text
        await keys.until(lambda: not ctl.help)

    drive("racko", 2, script, seed=4, speed="beginner")


def test_a_name_is_fitted_in_terminal_cells_not_characters():
    """A column fits a name by the cells a terminal draws it in: an emoji takes two, a
    combining accent none (a name cut by characters shifted the rest of its row)."""
    from lan_demon.tui.facts import fit_name
    assert fit_name("Bartholomew Jones", 11) == "Bartholome…"
    assert fit_name("🃏Bob🎉", 7) == "🃏Bob🎉" and fit_name("🃏Bob🎉", 6) == "🃏Bob…"
    assert fit_name("Zoë" + "\u0301", 3) == "Zoë\u0301"  # (3 cells, 4 characters)


def shown(ctl) -> str:
    """The screen's text with its line breaks folded, as a sentence can wrap anywhere."""
    return " ".join(text_of(ctl.render(80, 24)).split())


def test_rk4_turns_played_for_absent_seats_say_whose_why_and_the_discard_even_back_to_back():
    """RK-4: a seat that left has its turns played for it by the arbiter (draw, then discard).
    Bob and Cy leave at Go; their two turns come one straight after the other, and each
    stays on the screen with the card it discarded (a newcomer saw 'Discard 13 → 34' and
    nothing else)."""
    others: list[Client] = []
    context = zmq.Context()

    async def script(keys: Keys) -> None:
        ctl = keys.ctl

        def pumped(condition) -> bool:
            for other in others:
                other.pump()
            return condition()

        for name in ("Bob", "Cy"):
            others.append(Client(keys.table.address, name=name, context=context).connect())
        await keys.until(lambda: pumped(lambda: len(ctl.seats) == 3), what="Bob and Cy in")
        for other in others:
            other.ready()
        await keys.until(lambda: pumped(lambda: all(s.get("ready") for s in ctl.seats[1:])),
                         what="Bob and Cy ready")
        await keys.press("enter")
        await keys.until(lambda: pumped(lambda: ctl.phase == "playing"), what="Go")
        for other in others:
            other.leave()
        assert [ctl.name(i) for i in (1, 2)] == ["Bob", "Cy"]
        while True:
            view = await my_turn(keys)
            if view["turns"] >= 2:  # seats 1 and 2 moved last, in that order
                break
            await keys.press("n")
            await keys.until(lambda: "held" in ctl.client.view(), what="the drawn card")
            await keys.settled()
            await keys.press("x")
            await keys.until(lambda: ctl.client.view()["turns"] > view["turns"])
        bob, cy = keys.table.server.arbiter.state.discard[-2:]
        text = shown(ctl)
        for who, card in (("Bob", bob), ("Cy", cy)):
            assert (f"{who} (away): their turn was played for them — drew and discarded "
                    f"{card} (RK-4)") in text, text

    try:
        drive("racko", 0, script, seed=2, speed="beginner")
    finally:
        for other in others:
            other.close()
        context.term()


def test_rk4_a_slot_key_or_x_before_drawing_says_draw_first_and_how():
    async def script(keys: Keys) -> None:
        ctl = keys.ctl
        await start(keys)
        view = await my_turn(keys)
        await keys.press("5")
        assert ctl.flash_rule == "RK-4", ctl.flash_text
        assert ctl.flash_text == (f"draw first: n from the Draw pile, or d takes the Discard "
                                  f"{view['discard_top']} — then 5 puts it into slot 25")
        await keys.press("x")
        assert ctl.flash_rule == "RK-4", ctl.flash_text
        assert ctl.flash_text.startswith("x discards a drawn card — draw first: n from the "
                                         "Draw pile"), ctl.flash_text
        assert not ctl.client.pending
        assert ctl.flash_text in text_of(ctl.render(100, 34))

    drive("racko", 1, script, seed=1, speed="beginner")


def test_a_key_that_does_nothing_in_the_lobby_or_at_the_rack_o_table_says_so():
    async def script(keys: Keys) -> None:
        ctl = keys.ctl
        await keys.seated(2)
        await keys.press("z")
        assert ctl.flash_text == "'z' does nothing here — press ? for the keys"
        await keys.press("enter")
        await keys.until(lambda: ctl.phase == "playing", what="Go")
        await keys.press("z")
        assert ctl.flash_text == "'z' does nothing here — press ? for the keys"

    drive("racko", 1, script, seed=1, speed="beginner")


def test_a_draw_pile_of_one_card_reads_1_card():
    async def script(keys: Keys) -> None:
        ctl = keys.ctl
        await start(keys)
        view = ctl.client.view()
        ctl.client.mirror.draw = ctl.client.mirror.draw[:1]
        ctl.client.copy.predicted = ctl.client.mirror
        assert ctl.client.view()["draw_size"] == 1, view
        text = text_of(ctl.render(80, 24))
        assert "Draw pile 1 card" in text and "Draw pile 1 cards" not in text

    drive("racko", 1, script, seed=1, speed="beginner")
