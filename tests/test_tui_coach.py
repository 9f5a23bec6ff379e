"""The coach on the Racing Demon round-end screen: fed what this seat's screen drew
during the round and the races the arbiter said it lost, it shows a short review under the
scores — never instead of them — that fits the terminal."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from lan_demon.coach.demon import DemonCoach
from lan_demon.games.demon_moves import Play, VoteStuck
from lan_demon.net.table_copy import Notice
from lan_demon.tui.style import text_of
from hand_tables import KINGS, cs, seat, table
from tui_fake import FakeClient, controller, seats

pytestmark = pytest.mark.timeout(30)


@dataclass
class HandMadeClient(FakeClient):
    """A fake client whose table is a real (hand-made) engine table, seen as seat 0 sees it."""

    state: Any = None

    def view(self) -> dict[str, Any] | None:
        if self.state is None:
            return None
        return self.game.view(self.game.redact(self.state, self.seat), self.seat)

    def legal_moves(self) -> list[Any]:
        return self.game.legal_moves(self.game.redact(self.state, self.seat), self.seat)


def dealt(client: HandMadeClient) -> None:
    """Tess's lone 5♥ (column 1) fits Bob's 4♥ stack; Bob's Pile top is his own 5♥."""
    client.state = table(seat(pile="9C 2C", columns=("5H", "KH", "KD", "KC"), pack="6C"),
                         seat(pile="9D 5H", columns=KINGS, pack="6D", owner=1),
                         stacks=(cs("AH 2H 3H 4H", 1),))


def play_round(seat: int | None = 0) -> tuple[Any, HandMadeClient]:
    """A round seen on Tess's screen: 7 s with her 5♥ unplayed, then Bob's 5♥ takes the
    stack; her own 5♥ sent too late is beaten by 12 ms (RD-11); Bob goes out."""
    client = HandMadeClient("racing-demon", seat=seat, table={"seats": seats("Tess", "Bob")})
    if seat is None:
        client.role = "spectator"
    dealt(client)
    client.table.update(phase="playing", round=0, go=client.clock.now)
    ctl, _ = controller(client, coach=DemonCoach)
    client.notices.append(Notice("round", data={"round": 0}))
    ctl.pump()
    ctl.pump()  # the seat sees the table, as the screen\'s loop does
    ctl.render(100, 30)
    client.clock.now += 3
    ctl.pump()  # the seat sees the table, as the screen\'s loop does
    ctl.render(100, 30)
    client.clock.now += 4
    client.game.apply(client.state, 1, Play("pile", "s1"))
    ctl.pump()  # the seat sees the table, as the screen\'s loop does
    ctl.render(100, 30)
    client.notices.append(Notice("beaten", "RD-11: Bob got to the 4♥ stack first, by 12 ms",
                                 {"code": "beaten", "by": 1, "stack": 1, "top": "4H",
                                  "ms": 12, "rule": "RD-11", "reason": "Bob got there"}))
    ctl.pump()
    result = {"scores": [-9, 14], "detail": [
        {"stacked": 0, "kings": 0, "out": False, "pile_left": 9},
        {"stacked": 6, "kings": 0, "out": True, "pile_left": 0}]}
    client.scores.restart([result])
    client.table.update(phase="between", next_at=None, setup={"pile_sizes": [12, 14]})
    client.notices.append(Notice("round_end", data={"result": result, "next_at": None}))
    ctl.pump()
    client.clock.now += 5  # past the OUT banner
    return ctl, client


def test_rd5_rd11_the_round_end_screen_shows_the_review_under_the_scores():
    ctl, _ = play_round()
    lines = text_of(ctl.render(100, 30)).split("\n")
    text = "\n".join(lines)
    head = next(i for i, x in enumerate(lines) if "Coach: your round in review" in x)
    scores = [i for i, x in enumerate(lines) if x.startswith(("  1 ", "  2 "))]
    assert scores and max(scores) < head  # the scores first, all of them
    assert "5♥ from column 1 to the 4♥ stack: waited 7\u00a0s before Bob took it" in text
    assert "Races lost (1): Bob beat you to the 4♥ stack by 12\u00a0ms" in text
    assert "Best missed move: at 0:00, 5♥ from column 1 to the 4♥ stack" in text
    assert "running total by round" in text  # the chart stays on the page at 100×30
    assert len(lines) <= 30 and max(len(x) for x in lines) <= 100


def test_the_review_fits_60x20_without_pushing_the_scores_off_the_first_page():
    ctl, _ = play_round()
    lines = text_of(ctl.render(60, 20)).split("\n")
    assert len(lines) <= 20 and max(len(x) for x in lines) <= 60
    text = "\n".join(lines)
    assert "Tess" in text and "Bob" in text and "Coach: your round in review" in text
    review = [x for x in lines if x.startswith("  ") and ("Missed" in x or "Races" in x)]
    assert review  # wrapped to the width, no line cut


def test_a_spectator_sees_the_scores_and_no_review():
    ctl, _ = play_round(seat=None)
    text = text_of(ctl.render(100, 30))
    assert "Bob" in text and "Coach" not in text


def quick_round(since_go: float | None) -> Any:
    """A round whose first screen comes ``since_go`` s after Go (None: it does not know when
    Go was, as after a rejoin's snapshot): Tess plays her 5♥ at once and the round ends; the
    controller, past the OUT banner."""
    client = HandMadeClient("racing-demon", table={"seats": seats("Tess", "Bob")})
    dealt(client)
    client.table.update(phase="playing", round=0)
    if since_go is not None:
        client.table["go"] = client.clock.now - since_go
    ctl, _ = controller(client, coach=DemonCoach)
    ctl.pump()  # the seat sees the table, as the screen\'s loop does
    ctl.render(100, 30)
    client.clock.now += 1
    client.game.apply(client.state, 0, Play("c1", "s1"))
    ctl.pump()  # the seat sees the table, as the screen\'s loop does
    ctl.render(100, 30)
    result = {"scores": [1, -2], "detail": [{"stacked": 1, "out": False, "pile_left": 1},
                                             {"stacked": 0, "out": False, "pile_left": 2}]}
    client.scores.restart([result])
    client.table.update(phase="between", next_at=None, setup={"pile_sizes": [13, 13]})
    client.notices.append(Notice("round_end", data={"result": result, "next_at": None}))
    ctl.pump()
    client.clock.now += 5
    return ctl


def test_a_round_with_nothing_missed_says_so_in_one_line():
    """Tess plays her 5♥ at once: no missed play, no race: one line, then the next Piles."""
    lines = text_of(quick_round(since_go=0).render(100, 30)).split("\n")
    at = next(i for i, x in enumerate(lines) if "Coach" in x)
    assert lines[at] == " Coach: your round — nothing missed, no race lost"
    assert "next Piles" in lines[at + 1]


def test_a_new_round_starts_a_new_review():
    ctl, client = play_round()
    old = ctl.screen.coach
    assert old is not None
    client.table.update(phase="playing", round=1, go=client.clock.now)
    client.notices.append(Notice("round", data={"round": 1}))
    ctl.pump()
    assert ctl.screen.coach is not old  # the seat starts the new round's review at once


def test_a_screen_that_came_back_mid_round_says_its_review_starts_there():
    """A rejoin opens a new screen after Go: its review must not pass for the whole round's
    (a newcomer read "nothing missed" after leaving and coming back)."""
    text = " ".join(text_of(quick_round(since_go=75).render(100, 30)).split())  # Go: 1:15 ago
    assert "nothing missed, no race lost" in text
    assert "This screen joined the round 1:15 after Go (you came back)" in text


def test_rd13_a_stuck_vote_the_table_cast_while_you_were_away_says_so():
    """Back at the table, a newcomer saw "stuck ✓" for a vote they never cast: the table
    votes for an absent seat (RD-13), so the screen says it was that."""
    client = HandMadeClient("racing-demon", table={"seats": seats("Tess", "Bob")})
    dealt(client)
    client.table.update(phase="playing", round=0, go=client.clock.now)
    client.state.seats[0].voted = True  # cast by the table while Tess was away
    ctl, _ = controller(client)
    text = " ".join(text_of(ctl.render(100, 30)).split())
    assert "stuck ✓ (the table voted for you while you were away)" in text
    ctl.screen.voted_here = True  # Tess pressed s herself
    text = " ".join(text_of(ctl.render(100, 30)).split())
    assert "stuck ✓" in text and "while you were away" not in text


@dataclass
class Playing(HandMadeClient):
    """A table client whose table applies each move at once (no network in between)."""

    def play(self, move: Any) -> int:
        self.game.apply(self.state, self.seat, move)
        return 1


def test_rd7_t_lists_even_a_lone_place_and_waits_for_its_letter():
    """A "t" then a key played the card without listing where, when it had one place only.
    "t" asks to see the places: a lone one is listed too."""
    client = Playing("racing-demon", table={"seats": seats("Tess", "Bob")})
    dealt(client)
    client.table.update(phase="playing", round=0, go=client.clock.now)
    ctl, _ = controller(client)
    ctl.key("t")
    ctl.key("1")  # her 5♥: onto the 4♥ stack, nowhere else
    assert "to where? a: the 4♥ stack (the only place)" in " ".join(
        text_of(ctl.render(100, 30)).split())
    assert client.state.stacks[1].cards[-1].code == "4H"  # nothing played yet
    ctl.key("a")
    assert client.state.stacks[1].cards[-1].code == "5H"


def test_rd7_esc_after_t_cancels_the_choice_and_the_next_key_plays_as_usual():
    """After "t", Esc said it did nothing, and the next key still went to the chooser."""
    client = Playing("racing-demon", table={"seats": seats("Tess", "Bob")})
    dealt(client)
    client.table.update(phase="playing", round=0, go=client.clock.now)
    ctl, _ = controller(client)
    ctl.key("t")
    assert "Esc cancels" in " ".join(text_of(ctl.render(100, 30)).split())
    ctl.key("escape")
    assert "cancelled" in " ".join(text_of(ctl.render(100, 30)).split())
    ctl.key("1")  # played at once, to its one place: no chooser
    assert client.state.stacks[1].cards[-1].code == "5H"


def test_rd13_a_play_that_clears_your_stuck_vote_says_so_and_a_rotation_does_not():
    """A card played anywhere clears every stuck vote (RD-13), and Tess's "stuck ✓" vanished
    without a word (an old "you have already voted" line could even stay on screen). A rotation
    clears the votes too, but is announced itself."""
    client = Playing("racing-demon", table={"seats": seats("Tess", "Bob")})
    dealt(client)
    client.mirror = client.state  # the table's copy, as the client keeps it
    client.table.update(phase="playing", round=0, go=client.clock.now)
    ctl, _ = controller(client)
    ctl.key("s")
    ctl.key("s")  # a second time: the engine says she has voted already
    assert "already voted" in " ".join(text_of(ctl.render(100, 30)).split())
    client.game.apply(client.state, 1, Play("pile", "s1"))  # Bob's 5♥ onto the 4♥ stack
    ctl.pump()  # the seat sees it (drawing changes nothing)
    text = " ".join(text_of(ctl.render(100, 30)).split())
    assert "a card was played, so your stuck vote is cleared" in text and "(RD-13)" in text
    assert "stuck ✓" not in text and "already voted" not in text

    client.clock.now += 10  # the line has been read; now both vote and the Packs rotate
    ctl.key("s")
    client.game.apply(client.state, 1, VoteStuck())
    assert client.state.rotations == 1
    ctl.pump()
    text = " ".join(text_of(ctl.render(100, 30)).split())
    assert "Everyone is stuck" in text and "your stuck vote is cleared" not in text


def test_a_screen_that_came_back_without_knowing_go_says_so_too():
    """A rejoin's snapshot does not carry Go's time (only the countdown does): the review
    still says it starts at the rejoin, and counts its times from there."""
    text = " ".join(text_of(quick_round(since_go=None).render(100, 30)).split())
    assert "This screen joined the round after Go (you came back)" in text
