"""Words a family reads: what the seat says is grammatical for "you" and for others,
and a King claimed is announced, on the terminal and on the page alike (both draw the seat's
words: the terminal's status line and the page's ``line``/``banner`` are the same sentence)."""

from __future__ import annotations

import re

import pytest

from lan_demon.games.cards import Card
from lan_demon.games.demon_moves import Play
from lan_demon.games.demon_table import Stack
from lan_demon.seat.face import face
from lan_demon.seat.seat import Seat
from lan_demon.seat.person import clause, group_clause, possessive
from lan_demon.net.table_copy import Notice
from lan_demon.tui.style import text_of
from demon_client import TableClient, demon_controller
from seat_faces import strings
from tui_fake import FakeClient, controller, ended, seats

pytestmark = pytest.mark.timeout(60)


def king_table(german: bool, by: int) -> TableClient:
    """A Q♥ stack out, and seat ``by`` holding the K♥ on its Pile."""
    client = TableClient(3, german=german, steps=0)
    truth = client.truth
    truth.seats[by].pile[-1] = Card(13, "H", by)
    truth.stacks = {7: Stack(7, [Card(r, "H", 2) for r in range(1, 13)])}
    truth.next_stack = 8
    truth.wants = {(13 if german else (13, "H")): [7]}
    client.sync()
    return client


@pytest.mark.parametrize("german", [False, True], ids=["classic", "german"])
@pytest.mark.parametrize("by", [0, 1], ids=["you", "another"])
def test_rd6_rd14_a_king_claimed_is_announced_with_what_it_scores(german, by):
    """RD-6: the King claims its stack, which leaves the middle; RD-14: +5 for the King and +1
    for the card. Today the stack vanished and a score jumped: now the table says why, to
    every seat, in the second person to the one who took it."""
    client = king_table(german, by)
    ctl = demon_controller(client)
    ctl.pump()
    client.game.apply(client.truth, by, Play("pile", "s7"))
    client.sync()
    events = ctl.seat.pump()  # (the Controller's pump answers only "redraw?")
    kings = [e for e in events if e.kind == "king"]
    assert len(kings) == 1 and kings[0].seat == by and kings[0].card == "KH@%d" % by
    who = "You" if by == 0 else "Ada"
    expect = f"{who} took the ♥ King: " + ("its stack leaves the middle" if german
                                           else "+6 (+5 King, +1 card)")
    assert ctl.flash_text == expect
    assert ctl.flash_rule == ("RD-6" if german else "RD-6, RD-14")
    line = face(ctl)["line"]  # the page's words: the same sentence and rule
    assert line["words"] == expect and line["rule"] == ctl.flash_rule
    assert not [e for e in ctl.seat.pump() if e.kind == "king"]  # said once


def test_rd6_anothers_king_is_not_said_over_the_refusal_you_are_reading():
    """At a table of twenty Kings come every few seconds: another's is an event with its
    words (the page, the line-mode table), but the status line keeps the refusal just said."""
    client = king_table(False, 1)
    ctl = demon_controller(client)  # (its clock stands still: the refusal is always fresh)
    ctl.pump()
    ctl.say("5♥ fits no stack (needs a 4♥)", rule="RD-5", kind="refusal")
    client.game.apply(client.truth, 1, Play("pile", "s7"))
    client.sync()
    kings = [e for e in ctl.seat.pump() if e.kind == "king"]
    assert kings[0].words == "Ada took the ♥ King: +6 (+5 King, +1 card)"
    assert ctl.flash_text == "5♥ fits no stack (needs a 4♥)" and ctl.flash_rule == "RD-5"


def test_rd6_a_screen_that_comes_in_mid_round_does_not_announce_old_kings():
    client = king_table(False, 1)
    client.game.apply(client.truth, 1, Play("pile", "s7"))
    client.sync()
    ctl = demon_controller(client)
    assert not [e for e in ctl.seat.pump() if e.kind == "king"]


def test_sentences_take_the_verb_their_subject_takes():
    assert clause("Cy", False, "is", "OUT!") == "Cy is OUT!"
    assert clause("Cy", True, "is", "OUT!") == "You are OUT!"
    assert clause("you", False, "has", "left") == "you have left"  # a name read as "you"
    assert clause("Ann", True, "took", "the ♥ King") == "You took the ♥ King"
    assert group_clause([("Cy", False), ("you", True)], "is", "OUT!") == "You and Cy are OUT!"
    assert group_clause([("Cy", False)], "wins") == "Cy wins"
    assert possessive("you", False) == "your" and possessive("Ann", False) == "Ann's"


# --- every banner and notice, for your own seat and for another's ----------------------------

#: What no sentence may say: a verb written for "Cy" after "you" (``lan-demon play`` seats you
#: as "you": "you is OUT!" stood on the banner and the scoreboard), or "you's".
BAD = re.compile(r"\byou\s+(is|has|was|wins|does|goes|leads|draws|takes|plays|knocks)\b"
                 r"|\byou's\b|\bYou's\b", re.IGNORECASE)


def said(ctl) -> str:
    """Everything this seat is shown: the terminal's screen (at a size with room for all of
    it) and its status line, the banner, and the page's face (every string in it)."""
    texts = [text_of(ctl.render(120, 50)), ctl.banner_text, ctl.flash_text]
    texts += strings(face(ctl))
    return "\n".join(t for t in texts if t)


def check(text: str) -> None:
    bad = BAD.search(text)
    assert bad is None, f"{bad.group(0)!r} in:\n{text}"


ME = ["you", "Ann"]  # your own name: play's default, and a person's


def demon_detail(out: set[int], count: int) -> list[dict]:
    return [{"pile_left": 0 if i in out else 3, "out": i in out, "stacked": 4, "kings": 1}
            for i in range(count)]


@pytest.mark.parametrize("me", ME)
@pytest.mark.parametrize("game", ["racing-demon", "racing-demon-german"])
@pytest.mark.parametrize("out,banner", [({0}, "You are OUT!"), ({1}, "Cy is OUT!"),
                                        ({0, 1}, "You and Cy are OUT!"),
                                        ({1, 2}, "Cy and Bo are OUT!"),
                                        (set(), "Everyone stuck three times: the round ends "
                                                "with nobody out — RD-13")],
                         ids=["you", "another", "you-and-another", "two-others", "nobody"])
def test_rd12_rd16_the_out_banner_is_grammatical_for_you_and_for_others(me, game, out, banner):
    """RD-12 (and RD-16's several out at Go): "You are OUT!", never "you is OUT!" — on the
    banner, the scoreboard and the page."""
    ctl, _ = ended(game, [me, "Cy", "Bo"], [[5, 3, 1]], detail=demon_detail(out, 3))
    assert ctl.banner_text == banner
    check(said(ctl))
    ctl.client.table["phase"] = "over"
    ctl.client.table["result"] = {"winner": [me if 0 in out else "Cy"]}
    check(said(ctl))


@pytest.mark.parametrize("me", ME)
@pytest.mark.parametrize("racko,banner", [(0, "You: Rack-O!"), (1, "Cy: Rack-O!")])
def test_rk5_the_rack_o_banner_and_prompt_name_you_as_you(me, racko, banner):
    detail = [{"rack": list(range(1, 11)) if i == racko else [3, 1, 2, 4, 5, 6, 7, 8, 9, 10],
               "racko": i == racko} for i in range(2)]
    ctl, _ = ended("racko", [me, "Cy"], [[75, 15]], detail=detail)
    assert ctl.banner_text == banner
    check(said(ctl))
    seat = ctl.game
    view = {"over": True, "racko": racko, "turn": racko}
    rack = "Your" if racko == 0 else "Cy's"
    assert seat.prompt(view) == f"Rack-O! {rack} rack is in order — the round is over"
    ctl.client.table["phase"] = "playing"
    seat.view = lambda: view
    who = "you" if racko == 0 else "Cy"
    assert seat.why_not(None) == f"RK-5: the round is over — {who} went Rack-O"


@pytest.mark.parametrize("me", ME)
@pytest.mark.parametrize("result,banner", [
    ("knock", "You knocked, deadwood 5 (20 cards left above the Joker: 20 − 5 = 15 points, "
              "GS-7)"), ("gin", "You: Gin!"), ("big-gin", "You: Big Gin!"),
    ("joker", "You drew the Joker")])
def test_gs6_gs7_the_gin_banner_names_you_as_you(me, result, banner):
    """A knock's score worked out: one scoring 0 says why, not nothing."""
    detail = [{"result": result, "deadwood": 5, "count": 20, "player": 15, "joker": 0}, {}]
    ctl, _ = ended("gin-solitaire", [me], [[15, 0]], detail=detail)
    assert ctl.banner_text == banner
    check(said(ctl))


@pytest.mark.parametrize("me", ME)
@pytest.mark.parametrize("status,words", [
    ("away", "Cy stepped away — their seat is kept 5 minutes"), ("left", "Cy has left the table"),
    ("here", "Cy is back")])
def test_presence_is_said_of_others_and_never_of_yourself(me, status, words):
    client = FakeClient(table={"seats": seats(me, "Cy"), "phase": "playing"})
    ctl, _ = controller(client)
    client.notices.append(Notice("presence", data={"seat": 0, "name": me, "status": status}))
    ctl.pump()
    assert ctl.flash_text == ""  # your own seat: your screen knows
    client.notices.append(Notice("presence", data={"seat": 1, "name": "Cy", "status": status}))
    ctl.pump()
    assert ctl.flash_text == words
    check(said(ctl))


@pytest.mark.parametrize("me", ME)
def test_the_lobby_and_its_questions_are_grammatical_for_you_and_for_others(me):
    client = FakeClient(table={"seats": seats(me, "Cy", "Bo")})
    ctl, _ = controller(client)
    check(said(ctl))
    ctl.key("enter")  # the captain starts: "Cy and Bo are not ready yet"
    assert "Cy and Bo are not ready yet" in said(ctl)
    ctl.key("escape")
    assert ctl.flash_text == "waiting: Cy and Bo are not ready yet"
    check(said(ctl))
    other = FakeClient(seat=1, table={"seats": seats(me, "Cy"), "captain": 0})
    ctl, _ = controller(other)
    ctl.key("enter")
    assert ctl.flash_text == f"ready — waiting for {me} (captain) to start"
    check(said(ctl))


def test_the_coachs_review_of_a_seat_named_you_is_your_round():
    from lan_demon.coach.review import Review
    assert Review("you").lines(brief=True)[0].startswith("Coach: your round")
    assert Review("Ann").lines()[0] == "Coach: Ann's round in review"


# --- the coach's advice: plain words, the numbers behind the key --------------------------------

class Said:
    """An advice as the bots make one: plain words, and the figures behind them."""

    def __init__(self, words: str, numbers: str = "") -> None:
        self.words, self.figures = words, numbers

    def text(self) -> str:
        return self.words

    def numbers(self) -> str:
        return self.figures


def test_rk4_gs6_the_advice_key_goes_round_words_then_numbers_then_hidden():
    """The advice key (no new key: the game's own) shows the plain words, then the numbers
    behind them, then nothing; "why? numbers" toggles the numbers alone; a new moment is a
    new advice, words first."""
    from lan_demon.seat.advice import AdviceShown
    shown = AdviceShown()
    how = lambda keys, taps: keys  # noqa: E731 (a keyed screen)
    made = Said("Take the 23 from the Discard into slot 25: it fits between your 20 in slot 20 "
                "and your 31 in slot 30", "work left 1.50, against 1.51 on average")
    assert shown.press((1,), lambda: made) is None
    first = shown.shown((1,), "h", how)
    assert first.words.startswith("Coach: Take the 23") and first.numbers is None
    assert first.has_numbers and first.more == "h again: the numbers behind it"
    assert shown.press((1,), lambda: made) is None
    second = shown.shown((1,), "h", how)
    assert second.numbers == "work left 1.50, against 1.51 on average"
    assert second.more == "h again hides it"
    assert shown.press((1,), lambda: made) == "advice hidden"
    assert shown.shown((1,), "h", how) is None
    shown.press((1,), lambda: made)
    assert shown.why((1,)) is None and shown.shown((1,), "h", how).numbers is not None
    assert shown.why((1,)) is None and shown.shown((1,), "h", how).numbers is None
    assert shown.shown((2,), "h", how) is None  # the table moved on
    assert shown.why((2,)) == "ask for advice first"
    shown.press((2,), lambda: Said("Draw from the Draw pile: the Discard pile is empty"))
    bare = shown.shown((2,), "h", how)
    assert not bare.has_numbers and bare.more == "h again hides it"
    assert shown.why((2,)) == "this advice has no numbers behind it"
    assert shown.press((2,), lambda: None) == "advice hidden"  # no numbers: straight to hidden


def test_the_pages_wait_at_start_anyway_names_the_late_and_then_says_all_are_ready():
    """The page's captain answers "Wait" (the seat's dismiss): the same words as the terminal,
    with the page's way to start."""
    client = FakeClient(table={"seats": seats("Ann", "Cy")})
    seat = Seat(client, clock=client.clock)
    seat.act("start")
    assert face(seat)["question"]["words"] == "Cy is not ready yet"
    seat.act("dismiss")
    assert face(seat)["line"]["words"] == "waiting: Cy is not ready yet"
    client.table["seats"][1]["ready"] = True
    seat.pump()
    assert face(seat)["line"]["words"] == "everyone is ready now: Start the match when you like"


@pytest.mark.parametrize("game", ["racko", "gin-solitaire"])
def test_rk4_gs6_why_is_an_act_of_both_games_with_advice(game):
    """The page's "why? numbers" is the ``why`` act; before any advice it says so, nothing
    changed (and no game without advice knows it)."""
    client = FakeClient(game, table={"seats": seats("Ann", "Cy"), "phase": "playing"})
    seat = Seat(client, clock=client.clock)
    assert seat.act("why") is None
    assert seat.line.words == "ask for advice first"
    demon = Seat(FakeClient(table={"seats": seats("Ann"), "phase": "playing"}))
    assert demon.act("why").words == "'why' is not something this table does"


def test_gs7_a_knock_that_is_set_says_what_the_joker_scores():
    from lan_demon.seat.scores import knock_sum
    assert knock_sum({"deadwood": 9, "count": 2}) == \
        " (only 2 cards left above the Joker: set — the Joker scores 25 + 7, GS-7)"
    assert knock_sum({"deadwood": 5, "count": 5}) == \
        " (5 cards left above the Joker: 5 − 5 = 0 points, GS-7)"
    assert knock_sum({"deadwood": 1, "count": 1}).startswith(" (1 card left above")
