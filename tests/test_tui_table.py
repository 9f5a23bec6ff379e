"""The shared table screens: lobby and captain, leaving, pacing, endings, sizes, spectators.

Most tests drive the :class:`Controller` over a hand-filled fake client on a fake clock; one
starts a real match on loopback with a second person who is not ready."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from lan_demon.bots.speed import PROFILES
from lan_demon.net.client import Client
from lan_demon.net.table_copy import Notice
from lan_demon.tui.style import text_of
from lan_demon.tui.table import GameScreen
from copy_link import RecordingLink
from tui_fake import FakeClient, Levels, controller, seats
from tui_harness import Keys, drive

pytestmark = pytest.mark.timeout(120)
SIZES = [(60, 20), (80, 24), (120, 40)]


def lobby(captain: int | None = 0, **kw: object) -> FakeClient:
    table = {"phase": "lobby", "seats": seats("Tess", "Bob", "Ada (bot)", ready=(2,),
                                              bots=(2,))}
    if captain is not None:
        table["captain"] = captain
    return FakeClient(table=table, **kw)  # type: ignore[arg-type]


def shown(ctl, width: int = 80, height: int = 24) -> str:
    text = text_of(ctl.render(width, height))
    rows = text.split("\n")
    assert len(rows) <= height and max(len(r) for r in rows) <= width, text
    return text


def round_end(client: FakeClient, scores: list[int], out: int | None, next_at=None,
              phase: str = "between") -> Notice:
    detail = [{"pile_size": 13, "stacked": 5, "kings": 0, "out": i == out,
               "pile_left": 0 if i == out else 3} for i in range(len(scores))]
    result = {"scores": scores, "detail": detail}
    client.scores.restart([result])
    client.table.update(phase=phase, setup={"pile_sizes": [13] * len(scores)}, next_at=next_at)
    return Notice("round_end", data={"result": result, "next_at": next_at})


# --- starting ----------------------------------------------------------------------------------

def test_the_captain_starts_and_is_asked_to_confirm_when_someone_is_not_ready():
    client = lobby()
    ctl, _ = controller(client, host=True)
    assert ctl.captain and not ctl.spectator
    text = shown(ctl)
    assert "You are the captain: Enter starts — Bob is not ready yet" in text
    assert "captain" in text and "bot · ready" in text
    ctl.key("enter")
    assert "start" not in client.sent
    assert "Bob is not ready yet — Enter again or y starts anyway, Esc waits" in shown(ctl)
    ctl.key("escape")
    assert "start" not in client.sent and ctl.confirm is None
    ctl.key("enter")
    ctl.key("y")
    assert client.sent[-1] == "start"
    client.sent.clear()
    ctl.key("enter")
    ctl.key("enter")  # Enter again starts anyway
    assert client.sent[-1] == "start"


def test_someone_ready_while_the_captain_is_asked_does_not_break_the_screen():
    """Asked "Bob is not ready yet — start anyway?", Bob says ready: the question drew an empty
    list of names and the screen failed (IndexError in the event loop, seen in CI)."""
    client = lobby()
    ctl, _ = controller(client, host=True)
    ctl.key("enter")
    assert "Bob is not ready yet" in shown(ctl)
    client.table["seats"][1]["ready"] = True
    assert "Everyone is ready now — Enter starts the match, Esc waits" in shown(ctl)
    ctl.key("enter")
    assert client.sent[-1] == "start"


def test_esc_at_start_anyway_says_whom_the_table_waits_for_and_never_that_it_waits_for_all():
    """Esc at the captain's "not ready" question said "waiting for everyone to be ready" — and said
    it when Bob had become ready while the question was up. It names who is not ready, or says
    everyone is and how to start."""
    client = lobby()
    ctl, _ = controller(client, host=True)
    ctl.key("enter")
    ctl.key("escape")
    assert "waiting: Bob is not ready yet" in shown(ctl)
    client.table["seats"][1]["ready"] = True
    ctl.pump()  # Bob says ready: the line that said the table waits for him says so
    text = shown(ctl)
    assert "everyone is ready now: Enter starts the match" in text and "Bob is not" not in text
    ctl.key("enter")
    assert client.sent[-1] == "start"


def test_esc_after_everyone_became_ready_at_the_question_says_so():
    """Bob says ready while "start anyway?" is up, the captain answers Esc — the footer said
    "waiting for everyone to be ready" to a table all ready."""
    client = lobby()
    ctl, _ = controller(client, host=True)
    ctl.key("enter")
    client.table["seats"][1]["ready"] = True
    assert "Enter starts  Esc waits" in shown(ctl)  # not "starts anyway": nobody is left
    ctl.key("escape")
    text = shown(ctl)
    assert "everyone is ready now: Enter starts the match" in text
    assert "waiting for everyone" not in text and "start" not in client.sent


def test_everyone_ready_the_captains_enter_starts_at_once():
    client = lobby()
    client.table["seats"][1]["ready"] = True
    ctl, _ = controller(client)
    assert "You are the captain: Enter starts the match" in shown(ctl)
    ctl.key("enter")
    assert client.sent == ["start"] and ctl.confirm is None


def test_a_non_captain_says_ready_and_is_told_who_starts():
    client = lobby(captain=1, seat=0)
    ctl, _ = controller(client)
    assert not ctl.captain
    assert "Waiting for Bob (captain) to start" in shown(ctl)
    ctl.key("enter")
    assert client.sent == ["ready"] and "start" not in client.sent


def test_without_a_captain_field_seat_0_is_the_captain():
    client = lobby(captain=None)
    ctl, _ = controller(client)
    assert ctl.captain_seat == 0 and ctl.captain
    other, _ = controller(lobby(captain=None, seat=1))
    assert not other.captain and "Waiting for Tess (captain) to start" in shown(other)


def test_the_lobby_offers_the_levels_the_controller_is_given():
    """Controller(speeds=...): the labels v steps through, shown in the lobby with what the
    level plays; with none given (no bots at the table), v does nothing and nothing is shown."""
    from lan_demon.tui.table import Controller
    labels = [f"level {n}" for n in range(1, 11)]
    local = Levels(9)
    ctl = Controller(lobby(), GameScreen(), local=local,  # type: ignore[arg-type]
                     speeds=labels)
    assert "v/V bots' level: 9 of 10 — strategy9, 9 s a card" in shown(ctl)
    ctl.key("v")
    assert local.level == 10 and "bots' level: 10 of 10" in shown(ctl)
    ctl.key("v")
    assert local.level == 1 and "bots' level: 1 of 10" in shown(ctl)
    bare = Controller(lobby(), GameScreen(), local=local)  # type: ignore[arg-type]
    bare.key("v")
    assert local.level == 1 and "bots' level" not in shown(bare)


def test_a_full_lobby_in_two_columns_still_shows_each_bots_level_within_80_columns():
    """20 seats in 80×24 go in two columns, every name whole ("Bot19 L10": a bot's level is
    in its name, as on every screen), each bot's seat marked "bot"."""
    from lan_demon.bots.levels import bot_name
    names = ["Tess"] + [bot_name(f"Bot{i}", 10) for i in range(1, 20)]
    client = FakeClient(table={"phase": "lobby", "captain": 0, "seats": seats(
        *names, bots=tuple(range(1, 20)), ready=tuple(range(1, 20)))})
    ctl, _ = controller(client)
    text = shown(ctl, 80, 24)  # shown() checks every row fits
    assert text.count(" L10     bot · ready") == 9 and text.count(" L10    bot · ready") == 10
    assert "Bot19 L10" in text


def test_the_lobby_gives_the_games_real_number_of_rounds():
    ctl, _ = controller(lobby())
    text = shown(ctl)
    assert "5 rounds" in text and "default" not in text
    racko, _ = controller(FakeClient("racko", table={"seats": seats("Tess")}))
    assert "500 (RK-7)" in shown(racko)
    gin, _ = controller(FakeClient("gin-solitaire", table={"seats": seats("Tess")}))
    assert "rounds until you or the Joker reach 100 (GS-8)" in shown(gin)  # not "a side"


def test_in_play_every_bot_shows_its_level_and_v_changes_it():
    local = Levels(2)
    ctl, _ = controller(lobby(), local=local, speeds=[f"level {n}" for n in range(1, 11)])
    assert "Ada (bot)    bot, level 2 · ready" in shown(ctl)  # play's bots: the table's level
    ctl.key("v")
    assert local.level == 3 and "Ada (bot)    bot, level 3 · ready" in shown(ctl)
    assert "Bob          not ready" in shown(ctl)  # a person has no level
    ctl.key("V")  # back down: not round all ten
    ctl.key("V")
    assert local.level == 1 and ctl.flash_text == "the bots now play at level 1"
    ctl.key("V")
    assert local.level == 10


def test_a_bot_whose_name_carries_its_level_shows_it_in_every_lobby():
    """host --bots and bot --level: the level travels in the name ("Cy L7", made by
    levels.bot_name), and the name is the seat's label on every screen: a joiner's lobby
    shows "Cy L7" and marks the seat "bot"; a person's name that looks like it is a name."""
    from lan_demon.bots.levels import bot_name
    client = FakeClient(table={"phase": "lobby", "captain": 0, "seats": seats(
        "Tess", bot_name("Cy", 7), bot_name("Robo", 10), "Al L3", bots=(1, 2),
        ready=(1, 2))})
    ctl, _ = controller(client)
    text = shown(ctl)
    assert "Cy L7        bot · ready" in text and "level" not in text
    assert "Robo L10     bot · ready" in text
    assert "Al L3        not ready" in text


def test_a_real_match_started_by_the_captain_with_someone_not_ready():
    async def script(keys: Keys) -> None:
        ctl = keys.ctl
        other = Client(keys.table.address, name="Bob", context=ctl.client.context).connect()
        try:
            await keys.until(lambda: len(ctl.seats) == 2, what="Bob seated")
            await keys.press("enter")
            assert ctl.confirm == "start" and "Bob is not ready yet" in shown(ctl)
            assert ctl.phase == "lobby"
            await keys.press("y")
            await keys.until(lambda: ctl.phase == "playing", what="the match started")
        finally:
            other.close()

    drive("racko", 0, script, seed=3, speed="beginner")


# --- leaving -----------------------------------------------------------------------------------

def test_q_asks_during_a_match_and_leaves_at_once_in_the_lobby_and_after_the_match():
    client = lobby()
    ctl, _ = controller(client)
    ctl.key("q")
    assert ctl.quit  # the lobby: at once
    client = lobby()
    client.table["phase"] = "playing"
    ctl, _ = controller(client)
    ctl.key("q")
    assert not ctl.quit
    assert "Leave the table? Your seat is kept for 5 minutes — y leaves" in shown(ctl)
    ctl.key("n")
    assert not ctl.quit and ctl.confirm is None
    ctl.key("q")
    ctl.key("y")
    assert ctl.quit
    client.table["phase"] = "over"
    ctl, _ = controller(client)
    ctl.key("q")
    assert ctl.quit


# --- pacing ------------------------------------------------------------------------------------

def test_between_rounds_a_countdown_from_next_at_and_who_is_ready():
    client = lobby()
    client.table["seats"][1]["ready"] = True
    ctl, _ = controller(client)
    client.notices.append(round_end(client, [3, 5, 1], out=1,
                                    next_at=client.clock.now + 42.2))
    ctl.pump()
    client.clock.now += 3.2  # past the banner
    text = shown(ctl)
    assert "next round in 39 s — Enter when you are ready" in text
    assert "ready: Bob · not yet: Tess" in text and "Lobby" not in text
    client.table["next_at"] = None
    assert "waiting until everyone is ready" in shown(ctl)
    ctl.key("x")  # a key with no meaning here says what does (it said nothing)
    assert ctl.flash_text == "the round is over: Enter when you are ready for the next — q leaves"
    assert not client.sent or client.sent[-1] != "ready"
    ctl.key("enter")
    assert client.sent[-1] == "ready"
    # the next round's countdown is not the lobby either
    client.table.update(phase="countdown", go=client.clock.now + 2, round=1)
    text = shown(ctl)
    assert "Round 2 starts in 2" in text and "Lobby" not in text
    client.table["go"] = client.clock.now + 0.3  # not "in 0…"
    assert "Round 2 starts in 1…" in shown(ctl)
    client.table["go"] = client.clock.now - 1.5  # Go has passed; the deal is on its way
    assert "Round 2 starts now: the cards are being dealt…" in shown(ctl)


# --- endings -----------------------------------------------------------------------------------

def test_rd12_going_out_shows_a_banner_and_rings_the_bell_then_the_scores():
    client = lobby()
    ctl, out = controller(client)
    client.notices.append(round_end(client, [3, 5, 1], out=1))
    ctl.pump()
    text = shown(ctl)
    assert "Bob is OUT!" in text and "total" not in text
    assert out.rings == 1
    client.clock.now += 3.1
    assert "total" in shown(ctl)


def test_the_bell_is_off_with_bell_false():
    client = lobby()
    ctl, out = controller(client, bell=False)
    client.notices.append(round_end(client, [3, 5, 1], out=1))
    ctl.pump()
    assert out.rings == 0 and "Bob is OUT!" in shown(ctl)


def playing_with_rotations() -> tuple:
    """A table in play whose client's mirror counts RD-13 rotations (none yet)."""
    client = lobby()
    client.table["phase"] = "playing"
    client.mirror = SimpleNamespace(rotations=0)
    ctl, _ = controller(client)
    ctl.pump()
    return client, ctl


def test_rd13_a_rotation_is_announced_in_words_and_a_stuck_round_end_too():
    client, ctl = playing_with_rotations()
    assert not ctl.flash_text
    client.mirror.rotations = 1
    ctl.pump()
    assert ctl.flash_text == "Everyone is stuck: everyone's turned cards go back under their " \
        "Pack, and its top card to the bottom — RD-13"
    client.notices.append(round_end(client, [-3, -5, -1], out=None))
    ctl.pump()
    assert "nobody out — RD-13" in shown(ctl)


def test_rd13_a_rotation_by_the_tables_minute_says_so_not_everyone_is_stuck():
    """'Everyone is stuck' came while they still had an ace to play — the table's own minute
    without a card played had rotated the Packs (RD-13)."""
    client, ctl = playing_with_rotations()
    client.mirror.rotations = 2
    client.table["minute_rotation"] = 2  # (the client's copy: the table's move made it)
    ctl.pump()
    assert ctl.flash_text == "No card played for a minute: everyone's turned cards go back " \
        "under their Pack, and its top card to the bottom — RD-13 (rotation 2 of 3)"
    client.mirror.rotations = 3  # the next one by votes
    ctl.pump()
    assert ctl.flash_text.startswith("Everyone is stuck: everyone's turned cards go back")


def test_a_tied_match_reads_as_a_tie_not_as_one_winner_with_two_names():
    client = lobby()
    ctl, _ = controller(client)
    client.notices.append(round_end(client, [5, 5, 1], out=None, phase="over"))
    client.table["result"] = {"winner": ["Ann", "Bob"]}
    ctl.pump()
    client.clock.now += 5  # past the round's banner
    ctl.pump()
    text = shown(ctl, width=100)
    assert "Match over — a tie: Ann and Bob share the win" in text
    assert "the winner: Ann, Bob" not in text


def test_a_bot_winner_is_named_as_every_screen_names_it_with_its_level():
    """One rule for a bot's name: "Ada L10" in the lobby, the rows, the scores and the result alike
    — not "Ada" here and "Ada L10" in the match's result."""
    client = FakeClient(table={"phase": "lobby", "captain": 0,
                               "seats": seats("Tess", "Bob", "Ada L10", bots=(2,))})
    ctl, _ = controller(client)
    client.notices.append(round_end(client, [1, 2, 9], out=2, phase="over"))
    client.table["result"] = {"winner": ["Ada L10"]}
    ctl.pump()
    client.clock.now += 5  # past the round's banner
    ctl.pump()
    text = shown(ctl, width=100)
    assert "Match over — the winner: Ada L10" in text and "1 Ada L10 9" in text


def test_the_final_scoreboard_stays_with_a_closed_line_and_no_reconnecting():
    client = lobby()
    ctl, _ = controller(client)
    client.notices.append(round_end(client, [3, 5, 1], out=1, phase="over"))
    client.table["result"] = {"winner": ["Bob"]}
    ctl.pump()
    client.clock.now += 5
    client.notices += [Notice("reconnecting"), Notice("closed", "the host has closed the table")]
    ctl.pump()
    text = shown(ctl)
    assert "reconnecting" not in text and "Match over" in text and "Bob" in text
    assert "the host has closed the table — q leaves" in text


def test_old_messages_do_not_linger_on_the_round_end_screen():
    client = lobby()
    client.table["phase"] = "playing"
    ctl, _ = controller(client)
    ctl.flash("4♠ has no place to go now", seconds=60)
    client.notices.append(round_end(client, [3, 5, 1], out=1))
    ctl.pump()
    client.clock.now += 3.1
    assert "no place to go" not in shown(ctl)


# --- sizes -------------------------------------------------------------------------------------

@pytest.mark.parametrize("width,height", SIZES)
def test_every_screen_fits_every_size_and_keeps_its_key_lines(width, height):
    client = lobby()
    client.table["seats"] = seats(*[f"Player{i:02d}" for i in range(20)])
    ctl, _ = controller(client)
    text = shown(ctl, width, height)
    assert "You are the captain: Enter starts" in text and "? help" in text
    ctl.key("?")
    assert "Keys" in shown(ctl, width, height)
    ctl.key("escape")
    client.notices.append(round_end(client, list(range(20)), out=3, next_at=None))
    ctl.pump()
    client.clock.now += 3.1
    text = shown(ctl, width, height)
    assert "waiting until everyone is ready" in text and "q leave" in text


def test_too_small_fits_40_by_12_and_enter_behind_it_does_nothing():
    client = lobby()
    client.table["seats"][1]["ready"] = True
    ctl, _ = controller(client)
    text = shown(ctl, 40, 12)
    assert "Too small: 40×12" in text and "60×20" in text
    ctl.size = (40, 12)  # the terminal's size, as the application gives it with each key
    ctl.key("enter")
    ctl.key("y")
    assert client.sent == [] and ctl.confirm is None
    ctl.key("q")
    assert ctl.quit


# --- spectators and notices --------------------------------------------------------------------

def test_a_spectator_sees_their_name_watching_and_no_play_keys():
    client = lobby(seat=None, name="Sam", role="spectator")
    ctl, _ = controller(client)
    text = shown(ctl)
    assert "Sam watching" in text and "Enter says you are ready" not in text
    assert "Enter start" not in text and "Enter ready" not in text
    ctl.key("enter")
    assert client.sent == []
    client.table["phase"] = "playing"
    ctl.key("p")
    assert "watching" in ctl.flash_text
    ctl.key("?")
    assert "play the Pile" not in shown(ctl)


def test_rd11_the_seat_words_a_beaten_notice_for_every_screen():
    """The words of a lost race are the seat's (one place for the terminal and the page): the
    winner named, the stack by the top it showed, the margin; the rule after."""
    client = lobby()
    ctl, _ = controller(client)
    client.notices.append(Notice("beaten", data={"reason": "raw", "rule": "RD-11", "ms": 12,
                                                 "by": 1, "top": "AH"}))
    [event] = [e for e in ctl.seat.pump() if e.kind == "beaten"]  # (the Controller's says redraw)
    assert ctl.flash_text == event.words == "Bob beat you to the A♥ stack, by 12 ms"
    assert ctl.flash_rule == event.rule == "RD-11"
    assert ctl.line is not None and ctl.line.kind == "race"


# --- what a first evening at the table needs ---------------------------------------------------

def test_someone_stepping_away_is_said_in_words_and_nothing_is_said_at_the_match_end():
    client = lobby()
    client.table["phase"] = "playing"
    ctl, _ = controller(client)
    client.notices.append(Notice("presence", data={"seat": 1, "status": "away"}))
    ctl.pump()
    assert ctl.flash_text == "Bob stepped away — their seat is kept 5 minutes"
    client.notices.append(Notice("presence", data={"seat": 1, "status": "left"}))
    ctl.pump()
    assert ctl.flash_text == "Bob has left the table"
    client.table["phase"], ctl.flash_text = "over", ""
    client.notices.append(Notice("presence", data={"seat": 2, "status": "left"}))
    ctl.pump()
    assert ctl.flash_text == ""  # at the end everyone goes: no news


def test_the_help_wraps_the_rules_to_the_terminal_not_to_the_source_lines():
    from lan_demon.tui.text import paragraphs
    text = """
        RK-2 The highest cut deals ten cards each, into slots 50 down to 5. A rack is never
        rearranged, and only its owner sees it.
        RK-4 On your turn take the Discard top or draw.
    """
    assert paragraphs(text) == [
        "RK-2 The highest cut deals ten cards each, into slots 50 down to 5. A rack is never "
        "rearranged, and only its owner sees it.", "RK-4 On your turn take the Discard top or draw."]


def test_leaving_a_play_table_says_the_match_ends_there():
    client = lobby()
    client.table["phase"] = "playing"
    ctl, _ = controller(client, host=True, local=object())
    ctl.key("q")
    assert "The match ends here" in shown(ctl) and "kept" not in shown(ctl)


def test_a_host_that_stays_silent_is_said_to_be_maybe_stopped_after_a_while():
    client = lobby()
    client.table["phase"] = "playing"
    ctl, _ = controller(client)
    client.notices.append(Notice("reconnecting", "reconnecting…"))
    ctl.pump()
    assert "may have been stopped" not in shown(ctl)
    client.clock.now += 20
    client.notices.append(Notice("reconnecting", "reconnecting…"))  # tried again
    ctl.pump()
    assert "has not answered for 20 s" in shown(ctl) and "q leaves" in shown(ctl)
    assert "within 5 minutes, the same join takes your seat again" in shown(ctl)
    watcher = lobby()  # a spectator has no seat to be promised
    watcher.table["phase"], watcher.seat, watcher.role = "playing", None, "spectator"
    ctl, _ = controller(watcher)
    watcher.notices.append(Notice("reconnecting", "reconnecting…"))
    ctl.pump()
    watcher.clock.now += 20
    watcher.notices.append(Notice("reconnecting", "reconnecting…"))
    ctl.pump()
    assert "the same join lets you watch again" in shown(ctl) and "seat" not in shown(ctl)


def test_a_lobby_whose_host_went_silent_offers_no_start_and_says_why_keys_do_nothing():
    """With the host gone, the lobby still said "Enter start", and Enter said "starting the match…"
    — to nobody."""
    client = lobby()
    ctl, _ = controller(client, host=True)
    assert "Enter start" in shown(ctl)
    client.notices.append(Notice("reconnecting", "reconnecting…"))
    ctl.pump()
    assert "Enter start" not in shown(ctl) and "reconnecting" in shown(ctl)
    for key in ("enter", "s", "v"):
        ctl.key(key)
        assert client.sent == [], key
        assert "the host is not answering" in shown(ctl) and "q leaves" in shown(ctl)
        assert "starting the match" not in shown(ctl)
    ctl.key("q")
    assert ctl.quit  # leaving still works


def test_a_seat_refused_back_by_a_new_host_says_the_table_is_gone_and_q_leaves_at_once():
    """The screen after a reconnect was refused (the client's ``gone`` notice): no lobby,
    no keys but q, and q leaves without asking (there is no seat to keep)."""
    client = lobby()
    ctl, _ = controller(client, host=True)
    ctl.key("enter")  # Bob is not ready: the captain is asked whether to start anyway
    assert ctl.confirm == "start"
    client.notices.append(Notice("reconnecting", "reconnecting…"))
    ctl.pump()
    assert ctl.confirm is None  # (nobody would hear its answer)
    client.table["gone"] = "that session token is unknown or has expired"
    client.notices.append(Notice("gone", "the host refused this seat back: …"))
    ctl.pump()
    text = " ".join(shown(ctl).split())
    assert "This table is gone" in text and "reconnecting" not in text
    assert "unknown or has expired" in text and "q leaves" in text
    assert "captain" not in text and "starts anyway" not in text  # no lobby under it
    ctl.key("1")
    assert client.sent == [] and "this table is gone — q leaves" in shown(ctl)
    ctl.key("q")
    assert ctl.quit and ctl.confirm is None


def test_the_leave_question_s_keys_are_on_the_status_line_too():
    """After q the question was at the top, and the status line at the bottom still offered "q
    leave" (q there would have kept the seat)."""
    client = lobby()
    client.table["phase"] = "playing"
    ctl, _ = controller(client)
    ctl.flash("7♣ fits no stack")  # the last refusal, still on show
    ctl.key("q")
    bottom = shown(ctl).split("\n")[-1]
    assert "y leaves" in bottom and "any other key stays" in bottom and "q leave" not in bottom
    ctl.key("x")
    assert not ctl.quit and ctl.confirm is None


def test_a_key_during_the_countdown_says_when_keys_play():
    """Keys pressed during "Starting in 2…" gave no word."""
    client = lobby()
    client.table.update(phase="countdown", go=client.clock.now + 2)
    ctl, _ = controller(client)
    ctl.key("1")
    assert "the keys play from Go" in shown(ctl) and client.sent == []


def test_a_lobby_leave_names_who_left_not_the_seat_number_after_the_list_moved_up():
    """Carl (third in the lobby) left and everyone read "seat 2 has left the table": the lobby's
    next update had dropped his seat before the screen looked his name up. The table's copy keeps
    the name in the notice."""
    from lan_demon.net.table_copy import TableCopy
    copy = TableCopy(RecordingLink())
    copy.table["seats"] = seats("Tess", "Bob", "Carl")
    copy._k_presence({"seat": 2, "status": "left"}, None)
    copy._k_lobby({"seats": seats("Tess", "Bob"), "captain": 0}, None)
    notice = [n for n in copy.notices if n.kind == "presence"][0]
    client = lobby()
    client.table["seats"] = seats("Tess", "Bob")
    ctl, _ = controller(client)
    client.notices.append(notice)
    ctl.pump()
    assert "Carl has left the table" in shown(ctl)


def test_the_start_countdown_shows_no_stale_not_ready():
    client = lobby()
    client.table.update(phase="countdown", go=client.clock.now + 2)
    ctl, _ = controller(client)
    assert "not ready" not in shown(ctl) and "Starting in 2" in shown(ctl)


def test_a_self_starting_table_s_enter_says_ready_even_for_the_captain():
    client = lobby(config={"players": 3})
    ctl, _ = controller(client, host=True)
    assert "Enter start" not in shown(ctl)
    ctl.key("enter")
    assert client.sent == ["ready"]


def test_a_new_key_clears_the_last_refusal():
    client = lobby()
    client.table["phase"] = "playing"
    ctl, _ = controller(client)
    ctl.flash("K♣ fits no stack", rule="RD-5")
    ctl.key("z")
    assert "K♣" not in ctl.flash_text and ctl.flash_rule is None


def test_a_seeded_table_says_in_the_lobby_that_its_deals_are_not_secret():
    client = lobby()
    client.config["seeded"] = True
    ctl, _ = controller(client)
    assert "not secret" in shown(ctl)
    client.config["seeded"] = False
    assert "not secret" not in shown(ctl)


def test_a_failed_deal_check_stays_at_the_top_of_every_screen_with_the_bell():
    client = lobby()
    ctl, out = controller(client)
    client.table["seats"] = seats("Tess", "Bob")
    client.notices.append(Notice("dishonest", "round 1: the host's revealed secret does not "
                                 "match the commitment it published before the round"))
    client.notices.append(Notice("dispute", "Tess's client says …", {"seat": 0, "round": 0}))
    client.notices.append(Notice("dispute", "Bob's client says round 1's deal was not the one",
                                 {"seat": 1, "round": 0}))
    ctl.pump()
    assert out.rings == 2  # our own check, and Bob's dispute (ours is not said twice)
    round_end(client, [3, -5], out=0)
    for phase in ("between", "playing", "over"):
        client.table["phase"] = phase
        client.clock.now += 10
        text = shown(ctl)
        assert "DEAL CHECK FAILED" in text and "DEAL DISPUTED" in text, phase
        assert "checked: the cards are the ones" not in text


def test_rd12_rk4_a_refusal_names_seats_by_name_not_index():
    """Seen in a run of the friends' path: 'the round is over: seat 2 went out; nothing is
    played after OUT (RD-12)' — the engine counts seats from 0 and knows no names; a screen
    says 'Cy went out' (and 'it is Bob's turn', RK-4)."""
    from lan_demon.tui.facts import named_seats
    seats = [{"name": "Ann", "bot": False}, {"name": "Bob", "bot": False},
             {"name": "Cy L7", "bot": True}]
    assert named_seats("the round is over: seat 2 went out; nothing is played after OUT",
                       seats) == "the round is over: Cy L7 went out; nothing is played after OUT"
    assert named_seats("it is seat 1's turn, not seat 0's", seats) == \
        "it is Bob's turn, not Ann's"
    assert named_seats("there is no seat 7 at this table", seats) == \
        "there is no seat 7 at this table"
    client = lobby()
    ctl, _ = controller(client)
    client.notices.append(Notice("refused", "RD-12: the round is over: seat 1 went out",
                                 {"code": "illegal", "rule": "RD-12",
                                  "reason": "the round is over: seat 1 went out; nothing is "
                                            "played after OUT"}))
    ctl.pump()
    assert "the round is over: Bob went out; nothing is played after OUT" in shown(ctl)


def test_plays_lobby_shows_where_a_browser_sits_down():
    """`play` serves its table to browsers too; the address it printed went under the full screen
    at once, so the lobby says it (and how phones get in: host --lan)."""
    local = Levels(2)
    ctl, _ = controller(lobby(), local=local, speeds=[f"level {n}" for n in range(1, 11)])
    assert "browser" not in shown(ctl)  # (no page: --no-web)
    local.page_url = "http://127.0.0.1:8700/"
    text = " ".join(shown(ctl).split())
    assert "A browser on this computer can sit down too: http://127.0.0.1:8700/" in text
    assert "lan-demon host --lan" in text
