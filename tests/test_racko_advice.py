"""The Rack-O coach: the planner's advice is its own move, worded from what the seat can see,
and the ``h`` key of the Rack-O screen shows it.

Rule ids: RK-2 (a rack is seen by its owner alone), RK-4 (a turn), RK-5 (Rack-O), RK-8 (nothing
left to draw).
"""

from __future__ import annotations

import random
import re
from typing import Any, Iterator

import pytest

from lan_demon.bots import make_strategy
from lan_demon.bots import racko_words as words
from lan_demon.bots.base import Turn
from lan_demon.bots.racko import Advice, PlannerRackO
from lan_demon.games.base import Match
from lan_demon.games.racko import (DiscardHeld, Draw, Place, RackO, RackOState, TakeDiscard)
from lan_demon.tui.racko import RackOScreen
from lan_demon.tui.style import text_of
from tui_harness import Keys, drive

pytestmark = pytest.mark.timeout(60)

RACKO = RackO()
ONE_OFF = [2, 6, 9, 13, 40, 20, 24, 27, 31, 35]
#: What in a reason is not a card: slot numbers, rule ids and the plan's estimates.
NOT_CARDS = re.compile(r"slots? \d+|RK-\d+|\d+\.\d+")


def client_view(state: RackOState, seat: int) -> dict[str, Any]:
    """The seat's view as its client builds it: from the redacted copy of the round."""
    return RACKO.view(RACKO.redact(state, seat), seat)


def turns(rounds: int) -> Iterator[tuple[RackOState, int, Any]]:
    """Every turn of seeded rounds (2, 3 and 4 players; the planner against threshold bots):
    the state, the seat to move and the move the planner plays there from the full state."""
    planner = PlannerRackO()
    for players in (2, 3, 4):
        for k in range(rounds):
            st = Match(RACKO, ["p"] * players, f"advice:{players}:{k}").deal()
            bots = [planner] + [make_strategy("racko", "threshold") for _ in range(players - 1)]
            while not st.over:
                seat = st.turn
                move = bots[seat].choose(Turn(RACKO, st, seat, random.Random(k)))
                if seat == 0:
                    yield st, seat, move
                RACKO.apply(st, seat, move)


def visible(view: dict[str, Any]) -> set[int]:
    return {*view["rack"], view["discard_top"], view.get("held")} - {None}


def cards_named(reason: str) -> set[int]:
    return {int(n) for n in re.findall(r"\d+", NOT_CARDS.sub("", reason))}


def test_rk4_the_advice_is_the_move_the_planner_plays_from_the_clients_own_view():
    """On every turn of seeded rounds, the advice worked out from the seat's redacted copy
    (all the client has) is the move the bot plays with the whole table in front of it."""
    kinds = set()
    for st, seat, played in turns(8):
        advice = PlannerRackO().advise(client_view(st, seat))
        assert isinstance(advice, Advice)
        assert advice.move == played
        assert advice.move in RACKO.legal_moves(st, seat)
        kinds.add(type(played))
    assert kinds == {TakeDiscard, Draw, Place, DiscardHeld}


def test_rk2_the_reason_names_no_card_the_seat_cannot_see():
    """RK-2: every number in a reason is a slot, an estimate, or a card the seat sees — its
    rack, the Discard top, its drawn card; and it names the card it moves."""
    checked = 0
    for st, seat, _ in turns(8):
        view = client_view(st, seat)
        advice = PlannerRackO().advise(view)
        named = cards_named(advice.reason + " " + advice.numbers())
        assert named <= visible(view), (advice.reason, named - visible(view))
        moved = view.get("held", view["discard_top"])
        assert f"the {moved}" in advice.reason or f"drawn {moved}" in advice.reason
        checked += 1
    assert checked > 200


def test_rk5_the_advice_says_which_slot_and_that_it_completes_the_rack():
    rest = [c for c in range(1, 41) if c not in ONE_OFF and c != 17]
    st = RackOState(racks=[ONE_OFF, rest[:10]], draw=rest[10:], discard=[17], dealer=1, turn=0)
    advice = PlannerRackO().advise(client_view(st, 0))
    assert advice.move == TakeDiscard(25)
    assert str(advice) == ("Coach: Take the 17 from the Discard into slot 25, in place of "
                           "the 40: your rack is then in order — Rack-O!")


def test_rk4_the_advice_to_draw_or_place_gives_the_plan_and_its_measure():
    two_off = [2, 6, 9, 13, 40, 20, 24, 1, 31, 35]  # slots 25 and 40 out of order
    rest = [c for c in range(1, 41) if c not in two_off and c not in (37, 26, 3)]
    st = RackOState(racks=[two_off, rest[:10]], draw=rest[10:], discard=[37], dealer=1, turn=0)
    draw = PlannerRackO().advise(client_view(st, 0))
    assert draw.move == Draw()
    assert draw.reason.startswith("Draw from the Draw pile: the 37 on the Discard")
    st.held = 26
    place = PlannerRackO().advise(client_view(st, 0))
    assert place.move == Place(40)
    assert place.reason == ("Put the drawn 26 into slot 40, in place of the 1: it fits between "
                            "your 24 in slot 35 and your 31 in slot 45 — your rack comes nearer "
                            "Rack-O")  # what to do and why, no figures
    assert place.numbers() == ("work left 0.17, against 0.37 as your rack is now (work left: "
                               "the planner's estimate of how far a rack is from Rack-O, lower "
                               "is nearer)")
    st.held = 3
    useless = PlannerRackO().advise(client_view(st, 0))
    assert useless.move == DiscardHeld()
    assert useless.reason.startswith("Discard the drawn 3: no slot")


def test_rk8_with_nothing_to_draw_the_advice_takes_the_discard_and_says_why():
    rest = [c for c in range(1, 41) if c not in ONE_OFF and c != 37]
    st = RackOState(racks=[ONE_OFF, rest[:10]], draw=[], discard=[37], dealer=1, turn=0)
    advice = PlannerRackO().advise(client_view(st, 0))
    assert isinstance(advice.move, TakeDiscard) and "RK-8" in advice.reason


# --- the key ----------------------------------------------------------------------------------


def shown(keys: Keys) -> str:
    """The screen's text with its line breaks folded, as a sentence can wrap anywhere."""
    return " ".join(text_of(keys.ctl.render(80, 24)).split())


async def start(keys: Keys) -> RackOScreen:
    ctl = keys.ctl
    # Seated is not ready: Enter before the bot says ready only asks "start anyway?"
    await keys.until(lambda: len(ctl.seats) == 2 and all(s.get("ready") for s in ctl.seats
                                                          if s.get("bot")),
                     what="the bot seated and ready")
    await keys.press("enter")
    await keys.until(lambda: ctl.phase == "playing", what="Go")
    return ctl.screen


async def turn_of(keys: Keys, mine: bool) -> dict:
    ctl = keys.ctl
    await keys.until(lambda: (ctl.client.view()["turn"] == ctl.client.seat) == mine
                     and not ctl.client.pending, timeout=30, what="the turn")
    return ctl.client.view()


def test_rk4_h_shows_the_planners_advice_for_this_turn_and_it_is_the_move_played():
    async def script(keys: Keys) -> None:
        ctl = keys.ctl
        screen = await start(keys)
        screen.coach = PlannerRackO().advise  # what `lan-demon play` / `join` hand the screen
        arbiter = keys.table.server.arbiter
        seat = ctl.client.seat
        for _ in range(3):  # three turns of ours, each played as advised
            view = await turn_of(keys, mine=True)
            assert "· h hint" in shown(keys)  # the prompt offers it
            await keys.press("h")
            advice = screen.current_advice(ctl.client.view())
            assert advice is not None and str(advice).startswith("Coach: ")
            assert " ".join(str(advice).split()) in shown(keys)
            if advice.numbers():  # h again: the numbers behind it
                assert "work left" not in shown(keys) and "h again: the numbers" in shown(keys)
                await keys.press("h")
                assert f"Numbers: {advice.numbers()}" in shown(keys)
                assert screen.current_advice(ctl.client.view()) is advice
            for width, height in ((80, 24), (60, 20)):  # the sentence wraps; all still fits
                lines = text_of(ctl.render(width, height)).split("\n")
                assert len(lines) <= height and max(map(len, lines)) <= width
            real = arbiter.state  # the arbiter's table: the bot's move with all in sight
            bot = PlannerRackO().choose(Turn(RACKO, real, seat, random.Random(0)))
            assert advice.move == bot
            assert cards_named(advice.reason + " " + advice.numbers()) <= visible(view)
            before = real.turns
            ctl.play(advice.move)
            if isinstance(advice.move, Draw):  # the drawn card: advice anew for the rest
                await keys.until(lambda: ctl.client.view().get("held") not in (None, 0)
                                 and not ctl.client.pending, what="the drawn card")
                assert screen.current_advice(ctl.client.view()) is None  # a new moment
                await keys.press("h")
                second = screen.current_advice(ctl.client.view())
                assert isinstance(second.move, (Place, DiscardHeld))
                assert second.move == PlannerRackO().choose(
                    Turn(RACKO, arbiter.state, seat, random.Random(0)))
                ctl.play(second.move)
            await keys.until(lambda: arbiter.state.turns > before, what="our move landed")
            if arbiter.state.over:
                return
            await turn_of(keys, mine=False)
            assert screen.current_advice(ctl.client.view()) is None  # gone once we played
            assert "Coach:" not in shown(keys)

    drive("racko", 1, script, seed=3, speed="beginner")


def test_rk4_h_on_their_turn_or_without_a_coach_says_so_and_shows_nothing():
    async def script(keys: Keys) -> None:
        ctl = keys.ctl
        screen = await start(keys)
        await keys.press("h")
        assert ctl.flash_text == "there is no coach at this table"
        screen.coach = PlannerRackO().advise
        if ctl.client.view()["turn"] == ctl.client.seat:
            ctl.play(PlannerRackO().advise(ctl.client.view()).move)
            await keys.settled()
            if "held" in ctl.client.view():
                ctl.play(PlannerRackO().advise(ctl.client.view()).move)
        await turn_of(keys, mine=False)
        bot = ctl.name(ctl.client.view()["turn"])
        await keys.press("h")
        assert ctl.flash_text == f"the coach advises on your turn — it is {bot}'s turn"
        assert screen.current_advice(ctl.client.view()) is None
        assert ctl.flash_text in shown(keys)
        assert "h hint" not in shown(keys)  # offered on our turn only

    drive("racko", 1, script, seed=5, speed="beginner")


def test_h_is_listed_among_the_rack_o_keys():
    assert ("h", "hint") in RackOScreen.keys
    assert len({k for k, _ in RackOScreen.keys}) == len(RackOScreen.keys)


# --- the measure in words ---------------------------------------------------------------------

MEASURE = "work left: the planner's estimate of how far a rack is from Rack-O, lower is nearer"


def test_rk4_every_reason_that_shows_work_left_says_what_it_is():
    """A newcomer met 'work left 1.77' in a draw advice with no word on what it measures."""
    kinds = set()
    for st, seat, _ in turns(4):
        advice = PlannerRackO().advise(client_view(st, seat))
        assert "work left" not in advice.reason, advice.reason  # the plain words: no figures
        if "work left" in advice.numbers():
            assert MEASURE in advice.numbers(), advice.numbers()
            kinds.add(advice.reason.split(":")[0].split(" ")[0])
    assert {"Draw", "Take", "Put"} <= kinds


def test_rk4_a_draw_over_a_discard_that_prints_the_same_reads_as_a_near_tie():
    """The planner draws when taking the Discard leaves more work than a blind draw's mean
    (it takes it when no more); equal at two decimals, the words say 'slightly', not 'but
    1.77 … 1.77'."""
    near = words.draw_beats(37, 35, 1.7712, 1.7698).numbers
    assert "slightly less" in near and "1.77 either way" in near, near
    assert near.count("1.77") == 1, near
    clear = words.draw_beats(37, 35, 2.1, 1.77).numbers
    assert "2.10" in clear and "1.77" in clear and "slightly" not in clear, clear
    change = words.Change("discard", 17, 25, 40, None, None, False)
    tie = words.put(change, 1.7698, 1.7712, "draw").numbers
    assert "no more than a blind draw leaves on average" in tie and tie.count("1.77") == 1, tie
