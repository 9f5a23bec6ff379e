"""The Racing Demon table driven by key presses through the real application (RD-4 … RD-13)."""

from __future__ import annotations

import pytest

from lan_demon.tui.demon import SOURCE_KEYS, DemonScreen
from lan_demon.tui.style import text_of
from tui_harness import Keys, drive

pytestmark = pytest.mark.timeout(120)


def best_key(keys: Keys) -> str:
    """The key a quick player presses: a card that reaches a stack, else one that ladders,
    else Space (turn the Pack)."""
    screen: DemonScreen = keys.ctl.screen
    ladders = []
    for key, source in SOURCE_KEYS.items():
        places = screen.places(keys.ctl, source)
        if places and not places[0].target.startswith("c"):
            return key
        if places and source in ("pile", "waste"):
            ladders.append(key)
    return ladders[0] if ladders else "space"


def test_rd4_rd12_a_whole_round_played_by_key_presses_against_bots():
    played = {"keys": 0, "cards": 0}

    async def script(keys: Keys) -> None:
        ctl = keys.ctl
        await keys.seated(4)
        assert "Lobby" in text_of(ctl.render(80, 24))
        await keys.press("enter")  # the host starts the match
        await keys.until(lambda: ctl.phase == "playing", what="Go")
        server = keys.table.server.arbiter
        while ctl.phase == "playing":
            await keys.settled()
            if ctl.phase != "playing":
                break
            before = server.state.seats[0].stacked + server.state.plays
            await keys.press(best_key(keys))
            played["keys"] += 1
            await keys.until(lambda: not ctl.client.pending or ctl.phase != "playing")
            played["cards"] += server.state.seats[0].stacked + server.state.plays > before
        await keys.until(lambda: ctl.phase in ("between", "over"), what="the round end")
        board = text_of(ctl.render(100, 30))
        assert "stacked" in board and "pile left" in board and "Tess" in board

    # flat-out bots (a reaction of 1 ms) end the round in about a second, not 40 at expert
    # pace; the person still presses keys and stacks cards in it (14 to 33 keys over 5 runs)
    ctl = drive("racing-demon", 3, script, seed=21, rounds=1, speed="flat-out")
    assert played["keys"] > 5 and played["cards"] > 0
    results = ctl.client.scores.results
    assert len(results) == 1 and len(results[0]["scores"]) == 4


def test_rd7_choosing_another_place_with_t_and_a_letter():
    async def script(keys: Keys) -> None:
        ctl = keys.ctl
        await keys.seated(2)
        await keys.press("enter")
        await keys.until(lambda: ctl.phase == "playing")
        screen: DemonScreen = ctl.screen
        for _ in range(200):  # turn the Pack until some card has two places
            await keys.settled()
            choice = next((k for k, s in SOURCE_KEYS.items()
                           if len(screen.places(ctl, s)) > 1), None)
            if choice or ctl.phase != "playing":
                break
            await keys.press("space")
        if choice is None:
            pytest.skip("no card had two places in this deal")
        second = screen.places(ctl, SOURCE_KEYS[choice])[1]
        sent = []
        play = ctl.client.play
        ctl.client.play = lambda move: (sent.append(move), play(move))[1]
        await keys.press("t", choice)
        await keys.until(lambda: bool(screen.options))
        assert "to where?" in ctl.flash_text
        await keys.press("b")
        await keys.until(lambda: bool(sent))
        assert sent == [second]  # the second place, not the best one

    drive("racing-demon", 1, script, seed=3, rounds=1, speed="beginner")


def test_rd5_a_card_with_no_place_is_flashed_not_sent_and_help_shows_the_rules():
    async def script(keys: Keys) -> None:
        ctl = keys.ctl
        await keys.seated(2)
        await keys.press("enter")
        await keys.until(lambda: ctl.phase == "playing")
        screen: DemonScreen = ctl.screen
        stuck = next((k for k, s in SOURCE_KEYS.items() if s.startswith("c")
                      and not screen.places(ctl, s)), None)
        if stuck is not None:
            seq = ctl.client.seq
            await keys.press(stuck)
            await keys.until(lambda: "fits no stack" in ctl.flash_text
                             or "beat you" in ctl.flash_text)
            assert ctl.flash_rule in ("RD-5, RD-7", "RD-11")
            assert ctl.client.seq == seq and not ctl.client.pending
        await keys.press("?")
        await keys.until(lambda: ctl.help)
        help_text = text_of(ctl.render(100, 40))
        assert "RD-11" in help_text and "turn the Pack" in help_text
        await keys.press("escape")
        await keys.until(lambda: not ctl.help)
        await keys.press("x")
        await keys.until(lambda: "does nothing" in ctl.flash_text)

    drive("racing-demon", 1, script, seed=8, rounds=1, speed="beginner")


def test_a_terminal_too_small_gets_a_clear_message():
    async def script(keys: Keys) -> None:
        text = text_of(keys.ctl.render(40, 12))
        assert "needs at least" in text and "40×12" in text

    drive("racing-demon", 1, script, seed=2, rounds=1)


def test_rd3_twenty_players_fit_80_by_24():
    async def script(keys: Keys) -> None:
        ctl = keys.ctl
        await keys.seated(20, timeout=30)
        await keys.press("enter")
        await keys.until(lambda: ctl.phase == "playing")
        text = text_of(ctl.render(80, 24))
        lines = text.split("\n")
        assert len(lines) <= 24 and max(len(x) for x in lines) <= 80
        for name in ("Ada", "Sal"):
            assert name in text
        assert "Pile" in text and "Stacks" in text

    drive("racing-demon", 19, script, seed=3, rounds=1, speed="beginner")


def test_a_lost_connection_shows_reconnecting_and_resumes_the_same_seat():
    async def script(keys: Keys) -> None:
        ctl = keys.ctl
        await keys.seated(2)
        await keys.press("enter")
        await keys.until(lambda: ctl.phase == "playing")
        seat = ctl.client.seat

        def deafened() -> bool:  # as if the arbiter had gone quiet: whatever arrives is unheard
            ctl.client.heard = ctl.client.clock() - 60
            return False
        await keys.until(lambda: ctl.reconnecting or deafened(), what="the reconnecting screen")
        assert "reconnecting…" in text_of(ctl.render(80, 24))
        await keys.until(lambda: not ctl.reconnecting and ctl.client.mirror is not None,
                         what="the table back")
        assert ctl.client.seat == seat and "reconnected" in ctl.flash_text
        assert "Pile" in text_of(ctl.render(80, 24))

    drive("racing-demon", 1, script, seed=6, rounds=1, speed="beginner")
