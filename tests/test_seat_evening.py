"""The evening on every screen (seat/evening.py, PROTOCOL.md §24): who paused and who resumes,
each away seat's time counted out loud, the captain's pause, resume and remove — the same
words and intents on the page (``face``) and on the terminal (its keys and rows). A fake
client on a fake clock: no sockets."""

from __future__ import annotations

import pytest

from lan_demon.net.evening import PAUSE_LIMIT
from lan_demon.net.table_copy import Notice
from lan_demon.seat import Seat
from lan_demon.seat import evening
from lan_demon.seat.face import face
from lan_demon.tui.style import text_of
from seat_faces import seat_in
from tui_fake import FakeClient, controller, seats

pytestmark = pytest.mark.timeout(20)


def playing(seat_no: int = 0) -> FakeClient:
    """Tess (the captain), Bob and Cy at a round in play, seen from ``seat_no``."""
    return FakeClient(seat=seat_no, table={"phase": "playing", "round": 0, "captain": 0,
                                           "seats": seats("Tess", "Bob", "Cy")})


def pause(client: FakeClient, by: int, name: str) -> None:
    client.table["paused"] = {"by": by, "name": name}
    client.paused_since = client.clock()
    client.notices.append(Notice("pause", data={"by": by, "name": name, "at": 0.0}))


def test_every_screen_says_who_paused_and_who_resumes_it():
    captain, bob = playing(0), playing(1)
    for client in (captain, bob):
        pause(client, 0, "Tess")
    tess, other = Seat(captain, clock=captain.clock), Seat(bob, clock=bob.clock)
    tess.pump(), other.pump()
    assert other.line.words == "Tess paused the table: nothing moves until it resumes"
    assert tess.line.words == "You paused the table: nothing moves until it resumes"
    captain.clock.now += 83
    assert face(tess)["paused"] == "You paused the table 1:23 ago — every clock stands " \
                                   "still; press Resume the table to go on"
    assert face(other)["paused"].endswith("the captain or the host resumes it (anyone may "
                                          "after 10 minutes)")
    assert {"do": "resume", "label": "Resume the table", "key": "P"} in face(tess)["acts"]
    assert not [a for a in face(other)["acts"] if a["do"] in ("pause", "resume")]
    bob.clock.now += PAUSE_LIMIT  # ten minutes paused: anyone seated may resume
    assert face(other)["keys"]["P"] == {"do": "resume"}


def test_a_move_at_a_paused_table_is_refused_at_once_in_the_pause_words():
    client = playing(1)
    pause(client, -1, "the host")
    seat = Seat(client, clock=client.clock)
    seat.pump()
    refusal = seat.act("turn")
    # no clock in a line that stays on the screen: it stopped ticking beside the banner's
    assert refusal.words == "The host paused the table: nothing moves until it resumes"
    assert client.sent == []


def test_away_seats_are_counted_out_loud_and_stand_still_while_paused():
    client = playing(0)
    client.kept_until = {1: client.clock() + 300, 2: client.clock() + 120}
    seat = Seat(client, clock=client.clock)
    client.clock.now += 83
    assert face(seat)["away"] == ["Cy away 4:23 — seat kept 0:37 more",
                                  "Bob away 1:23 — seat kept 3:37 more"]
    pause(client, 0, "Tess")
    client.clock.now += 600
    assert face(seat)["away"][1] == "Bob away 1:23 — seat kept 3:37 more"


def test_the_captain_removes_the_seat_away_longest_after_one_question():
    client = playing(0)
    client.kept_until = {1: client.clock() + 200, 2: client.clock() + 290}
    seat = Seat(client, clock=client.clock)
    assert face(seat)["keys"]["R"] == {"do": "remove", "seat": 1}
    assert {"do": "remove", "seat": 1, "label": "Remove Bob", "key": "R"} in face(seat)["acts"]
    seat.act("remove", {"seat": 1})
    question = face(seat)["question"]
    assert question["words"] == "Bob, away 1:40: remove them (their cards stay and score), " \
        "or let a bot play on for them as Bob L2? Either way they cannot come back to this match"
    assert question["other"] == {"do": "remove", "seat": 1, "sure": True, "bot": 2}
    assert question["other_label"] == "A bot plays on (level 2)"
    assert client.sent == []
    seat.act("dismiss")
    assert seat.line.words == "Bob keeps their seat" and client.sent == []
    seat.act("remove", {"seat": 1, "sure": True})
    assert client.sent == ["remove 1"]
    assert seat.act("remove", {"seat": 0, "sure": True}).words.startswith("remove which seat")
    bob = Seat(playing(1))
    assert "R" not in face(bob)["keys"]
    assert bob.act("remove", {"seat": 2, "sure": True}).words.startswith("only the captain")


def test_the_captain_hands_a_seat_to_a_bot_from_the_question_and_never_at_level_0_or_11():
    client = playing(0)
    client.kept_until = {1: client.clock() + 200}
    seat = Seat(client, clock=client.clock)
    seat.act("remove", {"seat": 1})
    assert seat.act("remove", {"seat": 1, "sure": True, "bot": 11}).words.startswith(
        "a bot's level is a whole number from 1 to 10")
    assert seat.act("remove", {"seat": 1, "sure": True, "bot": 0}) is not None
    assert client.sent == []
    other = face(seat)["question"]["other"]  # the page's third button (the terminal's b)
    seat.act(other["do"], other)
    assert client.sent == ["remove 1 bot 2"]
    assert seat.line.words == "handing Bob's seat to a bot, level 2…"


def test_a_seat_handed_to_a_bot_is_said_on_every_screen_and_to_its_player():
    handed = {"seat": 1, "name": "Bob", "by": 0, "by_name": "Tess", "bot": 3,
              "new_name": "Bob L3"}
    bob = playing(1)
    bob.notices.append(Notice("removed", data=handed))
    mine = Seat(bob, clock=bob.clock)
    mine.pump()
    assert face(mine)["removed"].startswith("Tess handed your seat to a bot, level 3: it plays "
                                            "on as Bob L3")
    cy_client = playing(2)
    cy_client.table["seats"][1].update(name="Bob L3", bot=True)  # (as the real copy does)
    cy_client.notices.append(Notice("removed", data=handed))
    cy = Seat(cy_client, clock=cy_client.clock)
    cy.pump()
    assert cy.line.words == "Tess handed Bob's seat to a bot, level 3: it plays on as Bob L3"
    cy_client.notices += [Notice("presence", data={"seat": 1, "status": "away"}),
                          Notice("presence", data={"seat": 1, "status": "here"})]
    cy.pump()  # (the bot sitting down does not cover the handover with "Bob L3 is back")
    assert cy.line.words == "Tess handed Bob's seat to a bot, level 3: it plays on as Bob L3"
    cy_client.notices.append(Notice("presence", data={"seat": 1, "status": "away"}))
    cy.pump()  # (but the bot's own going away later is said)
    assert cy.line.words.startswith("Bob L3 stepped away")


def test_a_removed_player_is_told_who_removed_them_and_how_to_watch():
    client = playing(1)
    client.notices.append(Notice("removed", data={"seat": 1, "name": "Bob", "by": 0,
                                                  "by_name": "Tess"}))
    seat = Seat(client, clock=client.clock)
    seat.pump()
    assert face(seat)["removed"].startswith("Tess removed you from the table: the match goes "
                                            "on without your seat")
    assert "--spectate" in face(seat)["removed"]
    others = playing(2)
    others.table["seats"][1]["removed"] = True
    others.notices += [Notice("removed", data={"seat": 1, "name": "Bob", "by": -1,
                                               "by_name": "the host"}),
                       Notice("presence", data={"seat": 1, "status": "left"})]
    cy = Seat(others, clock=others.clock)
    cy.pump()
    assert cy.line.words == "The host removed Bob from the table: their cards stay and " \
                            "score, and they cannot come back"  # (not "Bob has left")


@pytest.mark.parametrize("size", [(60, 20), (80, 24)])
def test_the_terminal_shows_the_pause_and_the_away_time_and_its_p_and_r_keys_act(size):
    client = playing(0)
    client.kept_until = {1: client.clock() + 217}
    ctl, _ = controller(client)
    ctl.key("P")
    assert client.sent == ["pause"]
    pause(client, 0, "Tess")
    ctl.pump()
    text = text_of(ctl.render(*size))
    assert "⏸ You paused the table" in text and "Bob away 1:23" in text
    ctl.key("P")
    assert client.sent[-1] == "resume"
    ctl.key("R")
    shown = text_of(ctl.render(*size))
    assert "Bob, away 1:23:" in shown and "b a bot" in shown
    ctl.key("y")
    assert client.sent[-1] == "remove 1"
    ctl.key("R")
    ctl.key("b")  # (§24: a bot of level 2 plays the seat on)
    assert client.sent[-1] == "remove 1 bot 2"


def test_the_lobby_offers_no_pause_and_a_spectator_nothing():
    assert "P" not in face(seat_in("lobby"))["keys"]
    assert "P" in face(seat_in("playing"))["keys"]  # Tess is the captain there
    watcher = FakeClient(seat=None, role="spectator", table={"phase": "playing",
                                                             "seats": seats("Tess", "Bob")})
    assert not [a for a in face(Seat(watcher))["acts"] if a["do"] in ("pause", "remove")]


def test_the_plain_table_offers_the_bot_answer_and_b_gives_it():
    """The line-mode table (join --plain) says the captain's third answer and takes ``b`` (or
    ``bot``) for it while the question waits; with no question, ``b`` is not an answer."""
    import io

    from lan_demon.tui.plain import PlainTable
    client = playing(0)
    client.kept_until = {1: client.clock() + 200}
    out = io.StringIO()
    table = PlainTable(client, out)
    table.command("bot")
    assert client.sent == []  # no question waits
    table.act("remove", {"seat": 1})
    table.tell_state()
    assert "bot: A bot plays on (level 2)" in out.getvalue()
    table.command("b")
    assert client.sent == ["remove 1 bot 2"]


def stall(client: FakeClient, why: str = "disk_full", stood: float = 0.0) -> None:
    """§25: the host's journal cannot be written; the table stands (as the client hears it)."""
    client.table["stall"] = {"why": why, "since": client.clock() - stood}
    client.notices.append(Notice("stall", data={"on": True, "why": why, "stood": stood}))


@pytest.mark.parametrize("size", [(60, 20), (80, 24)])
def test_a_full_disk_is_said_on_every_screen_and_nothing_is_sent_meanwhile(size):
    """§25: every screen says the host's disk is full and that the table waits; a key or an
    act sends nothing; the end is said with how long it stood."""
    client = playing(1)
    stall(client)
    seat = Seat(client, clock=client.clock)
    seat.pump()
    assert seat.line.words == "The host's disk is full: the table waits until there is room"
    client.clock.now += 12
    assert face(seat)["paused"] == ("The host's disk is full: the table waits until there is "
                                    "room (0:12) — no move is taken and every clock stands "
                                    "still; the table goes on by itself once it can")
    refusal = seat.act("turn")
    assert refusal.words == "The host's disk is full: the table waits until there is room"
    assert client.sent == []
    captain = Seat(playing(0), clock=client.clock)
    stall(captain.client)
    assert not [a for a in face(captain)["acts"] if a["do"] in ("pause", "resume")]
    ctl, _ = controller(playing(0))
    stall(ctl.client, "read_only", stood=3)
    ctl.pump()
    text = text_of(ctl.render(*size))
    assert "will not take the journal" in text and "(0:03)" in text
    ctl.key("t")
    assert ctl.client.sent == []
    client.table["stall"] = None
    client.notices.append(Notice("stall_over", data={"on": False, "why": "disk_full",
                                                     "stood": 75.0}))
    seat.pump()
    assert seat.line.words == "The host's disk takes the journal again after 1:15: play on"
    assert face(seat)["paused"] is None


def test_away_seats_stand_still_while_the_hosts_disk_is_full():
    """§25: every clock stands still while the table stands for the host's disk — the away
    seats' counts too, never ticking under a banner that says every clock stands."""
    client = playing(0)
    client.kept_until = {1: client.clock() + 217}
    stall(client)
    seat = Seat(client, clock=client.clock)
    client.clock.now += 40
    assert evening.away_lines(seat) == ["Bob away 1:23 — seat kept 3:37 more"]
