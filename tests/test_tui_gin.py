"""The Gin Solitaire table driven by key presses through the real application (GS-3 … GS-9)."""

from __future__ import annotations

import random

import pytest

from lan_demon.bots.base import Turn
from lan_demon.bots.gin import GreedyGin
from lan_demon.games.cards import Card
from lan_demon.games.gin_moves import BigGin, Discard, Draw, Knock
from lan_demon.games.melds import best_arrangement, deadwood_after_discard
from lan_demon.tui.gin import LETTERS, GinScreen
from lan_demon.tui.style import text_of
from tui_harness import Keys, drive

pytestmark = pytest.mark.timeout(120)

# Seed 40, played greedily (the bot's choice each time), knocks after three draws, before the
# Joker comes; its first hand holds a meld and its first draw leaves more than 10 deadwood.
# Found by playing seeds 0, 1, … offline with the engine and lan_demon.bots.gin.GreedyGin.
SEED = 40


async def start(keys: Keys, players: int = 1) -> None:
    ctl = keys.ctl
    await keys.seated(players)
    await keys.press("enter")
    await keys.until(lambda: ctl.phase == "playing", what="Go")


def hand(keys: Keys) -> list[Card]:
    return [Card.from_data(c) for c in keys.ctl.client.view()["hand"]]


def keys_for(keys: Keys, move: object) -> list[str]:
    """The key presses that play ``move`` on this screen."""
    screen: GinScreen = keys.ctl.screen
    layout = screen.layout(keys.ctl.client.view())
    if isinstance(move, Draw):
        return ["n"]
    if isinstance(move, BigGin):
        return ["B"]
    if isinstance(move, Knock):
        return ["K", layout.letter(move.card), "y"]  # a knock is always confirmed
    assert isinstance(move, Discard)
    return [layout.letter(move.card)]


async def play_greedily(keys: Keys, moves: list[object]) -> list[str]:
    """Play this round by key presses, each move the greedy bot's choice (seed 40: a knock
    after three draws); ``moves`` gets the moves played. Returns the keys pressed."""
    ctl, pressed = keys.ctl, []
    bot, rng = GreedyGin(), random.Random(0)
    while ctl.phase == "playing":
        await keys.settled()
        if ctl.phase != "playing":
            break
        move = bot.choose(Turn(ctl.client.game, ctl.client.predicted, ctl.client.seat, rng))
        assert move is not None
        if isinstance(move, Knock):
            shown = text_of(ctl.render(80, 24))
            assert "You can knock" in shown or "Gin!" in shown
        presses = keys_for(keys, move)
        pressed.extend(presses)
        moves.append(move)
        await keys.press(*presses)
        await keys.until(lambda: not ctl.client.pending or ctl.phase != "playing")
    await keys.until(lambda: ctl.phase in ("between", "over"), what="the round end")
    return pressed


def test_gs6_a_knock_by_key_presses_ends_the_round_with_a_knock():
    """GS-6: K, a letter, y knocks; the round-end banner names the card knocked with (this
    screen pressed it) and the deadwood left."""
    pressed: list[str] = []
    moves: list[object] = []

    async def script(keys: Keys) -> None:
        await start(keys)
        pressed.extend(await play_greedily(keys, moves))
        board = text_of(keys.ctl.render(100, 30))
        assert "Tess" in board and "Joker" in board

    ctl = drive("gin-solitaire", 0, script, seed=SEED, rounds=1)
    draws = [m for m in moves if isinstance(m, Draw)]
    knocked = [m.card for m in moves if isinstance(m, Knock)]
    assert "K" in pressed and draws and pressed[-3] == "K"  # the knock ended it, by keys
    result = ctl.client.scores.results[-1]
    assert result["detail"][0]["result"] == "knock"  # seed 40: a knock, not Gin
    deadwood = result["detail"][0]["deadwood"]
    assert deadwood <= 10
    assert ctl.banner_text.startswith(f"You knocked with {knocked[0].symbol}, deadwood "
                                      f"{deadwood} (")
    assert ctl.banner_text.endswith(" points, GS-7)")


def test_gs6_a_knock_with_more_than_10_deadwood_is_refused_locally_with_the_deadwood():
    async def script(keys: Keys) -> None:
        ctl = keys.ctl
        await start(keys)
        screen: GinScreen = ctl.screen
        arbiter = keys.table.server.arbiter
        # GS-3: no knock before the first discard
        await keys.press("K")
        assert ctl.flash_rule == "GS-3" and not screen.knocking
        best = best_arrangement(hand(keys)).discard
        await keys.press(screen.layout(ctl.client.view()).letter(best))
        await keys.settled()
        # GS-6: no knock before the draw either
        await keys.press("K")
        assert ctl.flash_rule == "GS-6" and not screen.knocking
        await keys.press("n")
        await keys.until(lambda: ctl.client.view()["phase"] == "discard"
                         and not ctl.client.pending)
        after = deadwood_after_discard(hand(keys))
        assert min(after.values()) > 10
        card = max(after, key=lambda c: after[c])
        seq = ctl.client.seq
        await keys.press("K")
        assert screen.knocking and "Knock" in text_of(ctl.render(80, 24))
        await keys.press(screen.layout(ctl.client.view()).letter(card))
        assert ctl.flash_rule == "GS-6"
        assert f"without {card.symbol} your deadwood is {after[card]}" in ctl.flash_text
        assert not ctl.client.pending and ctl.client.seq == seq  # nothing was sent
        assert arbiter.state.seats[0].phase == "discard" and len(arbiter.state.seats[0].hand) == 11
        # K then Escape cancels; B without all 11 melded is refused too (GS-6)
        await keys.press("K", "escape")
        assert not screen.knocking and ctl.flash_text == "cancelled"
        await keys.press("B")
        assert ctl.flash_rule == "GS-6" and "Big Gin" in ctl.flash_text
        assert not ctl.client.pending

    drive("gin-solitaire", 0, script, seed=SEED, rounds=1)


def test_gs5_the_hand_shows_its_melds_and_deadwood_with_letters_and_help_shows_gs1_to_gs9():
    async def script(keys: Keys) -> None:
        ctl = keys.ctl
        await start(keys)
        cards = hand(keys)
        arrangement = best_arrangement(cards)
        text = text_of(ctl.render(80, 24))
        lines = text.split("\n")
        assert len(lines) <= 24 and max(len(x) for x in lines) <= 80
        meld_lines = [x for x in lines if x.strip().startswith("meld")]
        assert len(meld_lines) == len(arrangement.melds) > 0
        for meld in arrangement.melds:
            assert any(all(c.symbol in x for c in meld) for x in meld_lines)
        dead_line = next(x for x in lines if x.strip().startswith("deadwood"))
        assert all(c.symbol in dead_line for c in arrangement.deadwood)
        assert dead_line.rstrip().endswith(f"= {arrangement.points}")
        assert arrangement.discard is not None
        assert f"deadwood {arrangement.points} without {arrangement.discard.symbol}" in text
        # the card whose discard leaves the least deadwood is the "spare", not "the best": the
        # coach (h) may say another, with better chances of melds
        assert f"spare card   {LETTERS[10]} {arrangement.discard.symbol}" in text
        # the letters label the cards in the displayed order: none of them is a key of its
        # own in any game (h is the hint everywhere, d, n, s … keys too)
        order = ctl.screen.layout(ctl.client.view()).order
        assert sorted(order) == sorted(cards) and len(order) == 11
        assert LETTERS[:11] == "abcefgijklm"
        for letter, card in zip(LETTERS, order):
            assert f"{letter} {card.symbol}" in text
        assert "Draw pile 42" in text and "first discard" in text
        assert "Score Tess 0 · Joker 0" in text
        small = text_of(ctl.render(60, 20)).split("\n")
        assert len(small) <= 20 and max(len(x) for x in small) <= 60
        help_text = await keys.read_help()
        for n in range(1, 10):
            assert f"GS-{n}" in help_text

    drive("gin-solitaire", 0, script, seed=SEED, rounds=1)


def test_gs9_duplicate_play_shows_a_joker_of_your_own():
    async def script(keys: Keys) -> None:
        ctl = keys.ctl
        await start(keys, players=2)
        assert "Joker (Tess)" in text_of(ctl.render(80, 24))

    drive("gin-solitaire", 1, script, seed=SEED, rounds=1, speed="beginner")


def test_gs4_card_letters_stay_put_after_a_draw_and_a_knock_asks_first():
    async def script(keys: Keys) -> None:
        ctl = keys.ctl
        await start(keys)
        screen: GinScreen = ctl.screen
        best = best_arrangement(hand(keys)).discard
        await keys.press(screen.layout(ctl.client.view()).letter(best))
        await keys.settled()
        before = dict(screen.layout(ctl.client.view()).letters)
        assert len(before) == 10
        await keys.press("n")
        await keys.until(lambda: ctl.client.view()["phase"] == "discard"
                         and not ctl.client.pending and not screen.layout(
                             ctl.client.view()).unknown, what="the drawn card")
        after = screen.layout(ctl.client.view()).letters
        assert len(after) == 11
        for card, letter in before.items():
            assert after[card] == letter, card  # a card keeps its letter while in hand
        new = [c for c in after if c not in before]
        assert len(new) == 1 and after[new[0]] not in before.values()
        text = text_of(ctl.render(80, 24))
        for card, letter in after.items():
            assert f"{letter} {card.symbol}" in text

    drive("gin-solitaire", 0, script, seed=SEED, rounds=1)


async def drawn(keys: Keys) -> None:
    """Press n and wait until the drawn card is in the hand, face up (GS-4)."""
    ctl = keys.ctl
    await keys.press("n")
    await keys.until(lambda: ctl.client.view()["phase"] == "discard" and not ctl.client.pending
                     and not ctl.screen.layout(ctl.client.view()).unknown, what="the drawn card")


def test_gs3_gs4_a_discard_by_letter_says_which_card_went_face_down_and_the_deadwood_now():
    """GS-3, GS-4: a letter alone discards (one key, no question), so the status line says
    which card went face down and the deadwood left; a card that leaves more than the best
    discard would also names the best and what it would have left."""
    async def script(keys: Keys) -> None:
        ctl = keys.ctl
        await start(keys)
        screen: GinScreen = ctl.screen
        cards = hand(keys)
        best, after = best_arrangement(cards), deadwood_after_discard(cards)
        worse = max(after, key=lambda c: after[c])
        assert after[worse] > best.points
        await keys.press(screen.layout(ctl.client.view()).letter(worse))
        assert ctl.flash_rule == "GS-3"
        assert ctl.flash_text == (f"{worse.symbol} discarded face down: deadwood "
                                  f"{after[worse]} ({best.discard.symbol} would have left "
                                  f"{best.points})")
        status = text_of(ctl.render(80, 24)).split("\n")[-1]
        assert f"{worse.symbol} discarded face down: deadwood {after[worse]}" in status
        assert status.rstrip().endswith("(GS-3)")
        await keys.settled()
        assert worse not in hand(keys) and len(hand(keys)) == 10  # it went, nothing asked
        await drawn(keys)
        best = best_arrangement(hand(keys))
        await keys.press(screen.layout(ctl.client.view()).letter(best.discard))
        assert ctl.flash_rule == "GS-4"
        assert ctl.flash_text == f"{best.discard.symbol} discarded face down: deadwood " \
                                 f"{best.points}"

    drive("gin-solitaire", 0, script, seed=SEED, rounds=1)


def test_gs4_after_a_draw_the_screen_says_which_card_was_drawn_and_its_letter():
    """GS-4: n draws the top card; the screen says which card came and the letter it took
    (it takes the letter the discard freed, not always k), until the next discard."""
    async def script(keys: Keys) -> None:
        ctl = keys.ctl
        await start(keys)
        screen: GinScreen = ctl.screen
        assert "You drew" not in text_of(ctl.render(80, 24))  # nothing drawn at the deal
        await keys.press(screen.layout(ctl.client.view()).letter(hand(keys)[0]))
        await keys.settled()
        before = set(hand(keys))
        await drawn(keys)
        new = [c for c in hand(keys) if c not in before]
        assert len(new) == 1
        letter = screen.layout(ctl.client.view()).letter(new[0])
        text = text_of(ctl.render(80, 24))
        assert f"You drew {new[0].symbol} (its letter: {letter})" in text
        await keys.press(letter)
        await keys.settled()
        assert "You drew" not in text_of(ctl.render(80, 24))

    drive("gin-solitaire", 0, script, seed=SEED, rounds=1)


def test_gs6_the_help_says_a_knock_asks_before_it_knocks():
    """GS-6: K and a letter ask "knock with 4♠ face down, deadwood 9? y knocks…" before
    the round ends; the help (?) says so, and so does the status line's hint (at 100
    columns and at 80, every key on the status line's two rows)."""
    async def script(keys: Keys) -> None:
        ctl = keys.ctl
        await start(keys)
        ctl.flash_until = 0.0  # "Go!" is over: the status line shows the keys
        status = "\n".join(text_of(ctl.render(80, 24)).split("\n")[-2:])
        assert "K letter knock, y confirms" in status and "B Big Gin" in status
        status = "\n".join(text_of(ctl.render(100, 30)).split("\n")[-2:])
        assert "K letter knock, y confirms" in status and "B Big Gin  h hint" in status
        await keys.press("?")
        await keys.until(lambda: ctl.help)
        lines = text_of(ctl.render(100, 40)).split("\n")
        key_line = next(x for x in lines if x.strip().startswith("K letter"))
        assert "knock, y confirms" in key_line
        gs6 = next(x for x in lines if "GS-6" in x)
        assert "then y" in gs6
        await keys.press("escape")

    drive("gin-solitaire", 0, script, seed=SEED, rounds=1)


def test_gs8_the_score_line_counts_rounds_played_in_words():
    """GS-8: rounds go on to 100; the score line counts them — "1 round played", never
    "1 rounds played"."""
    async def script(keys: Keys) -> None:
        ctl = keys.ctl
        await start(keys)
        assert "0 rounds played" in text_of(ctl.render(80, 24))
        await play_greedily(keys, [])
        await keys.press("enter")  # ready: the next round starts
        await keys.until(lambda: ctl.phase == "playing" and ctl.client.view() is not None
                         and ctl.client.table.get("round") == 1, what="round 2")
        text = text_of(ctl.render(80, 24))
        assert "· 1 round played" in text and "rounds played" not in text

    drive("gin-solitaire", 0, script, seed=SEED, rounds=2)
