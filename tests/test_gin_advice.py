"""The Gin Solitaire coach: the solver's own advice (GS-4, GS-6, GS-7), from the seat's view only.

The advice is :meth:`SolverGin.advise`; the bot plays its ``move``, the Gin screen shows its
``text()`` under the ``H`` key. Rule ids: GS-2 (the Draw pile is face down), GS-3 (discards
face down), GS-6 (knock with deadwood ≤ 10), GS-7 (the knock's expected score).
"""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from lan_demon.coach import coach_for
from lan_demon.bots.gin import Advice, Seen, SolverGin
from lan_demon.bots.gin_value import Belief, knock_value, knock_worth
from lan_demon.games.base import Match
from lan_demon.games.cards import Card, parse_card
from lan_demon.games.gin_moves import Discard, Draw, Knock
from lan_demon.games.melds import deadwood_after_discard
from lan_demon.tui.gin import GinScreen
from lan_demon.tui.style import text_of
from hand_tables import GIN, gin_state
from sealed_turns import SealedTurn, sealed_turn
from tui_harness import Keys, drive

pytestmark = pytest.mark.timeout(60)

#: A card as the advice writes it: rank then suit symbol (``10♦``, ``Q♠``).
SYMBOL = re.compile(r"(?:10|[2-9AJQK])[♠♥♦♣]")


def decisions(seeds: range):
    """Every decision of the solver playing seeded rounds, each on a sealed turn (the raw
    state unreadable): (the bot's move, a coach's advice on the same views, the view)."""
    for k in seeds:
        state = Match(GIN, ["s"], f"advice:{k}").deal()
        bot, coach = SolverGin(), SolverGin()
        while not GIN.round_over(state):
            turn = sealed_turn(GIN, state, 0)
            advice = coach.advise(turn.view, turn.legal)
            move = bot.choose(turn)
            yield move, advice, turn.view
            GIN.apply(state, 0, move)


def test_gs6_advice_is_the_move_the_solver_plays_on_seeded_views():
    """Over whole seeded rounds, the coach (fed the same views) advises exactly the bot's move,
    and its verdict follows its own figures: knock when E[knock] ≥ E[play on]."""
    seen = knocks = 0
    for move, advice, _ in decisions(range(12)):
        assert advice.move == move
        seen += 1
        if advice.knock is not None and advice.discard is not None:
            knocks += 1
            if isinstance(move, Knock):
                assert advice.knock.value >= advice.discard.value
            elif isinstance(move, Discard):
                assert advice.discard.value > advice.knock.value
                assert "→ play on" in advice.numbers()
                assert advice.text().startswith("Don't ")
    assert seen > 100 and knocks > 3  # the knock decision was really met


def test_gs2_gs3_advice_never_names_a_card_the_seat_cannot_see():
    """Every card the advice names is in the seat's hand; the Draw pile and the face-down
    discards never appear (the seat cannot see them)."""
    for _, advice, view in decisions(range(8)):
        hand = {Card.from_data(c).symbol for c in view["hand"]}
        named = set(SYMBOL.findall(advice.text() + advice.numbers()))
        assert named <= hand, (named - hand, advice.text(), advice.numbers())


def test_gs2_advice_does_not_change_with_the_hidden_order_of_the_draw_pile():
    hand = "AS 2S 3S 7H 7D 7C 9H TD JC QS KH"
    texts = set()
    for seed in range(4):
        state = gin_state(hand, "", phase="first-discard")
        random.Random(seed).shuffle(state.seats[0].draw)
        turn = sealed_turn(GIN, state, 0)
        advice = SolverGin().advise(turn.view, turn.legal)
        texts.add(advice.text() + advice.numbers())
    assert len(texts) == 1


def knowing(state: Any) -> SolverGin:
    """A solver that has seen what the seat of a made-up ``state`` would have: its hand and
    its face-down discards (it held them), so its unseen cards are the Draw pile's."""
    seen = Seen()
    seen.cards = set(state.seats[0].hand) | set(state.seats[0].discarded)
    return SolverGin(seen=seen)


def test_gs7_advice_shows_the_knock_rule_figures():
    """GS-7: 9 deadwood with 3 cards left (the Joker among them) is surely set: E[knock] is
    the formula's, below playing on, so the advice says play on — and the bot plays on."""
    state = gin_state("AS 2S 3S 7H 7D 7C 9H TH JH 9C QD", "4D 5D", long_pile=False)
    turn = sealed_turn(GIN, state, 0)
    advice = knowing(state).advise(turn.view, turn.legal)
    assert advice.knock is not None and advice.knock.move == Knock(parse_card("QD"))
    assert advice.knock.value == pytest.approx(knock_value(9, 3))
    assert advice.knock.value == pytest.approx((-(25 + 9) - (25 + 8) - (25 + 7)) / 3)
    assert isinstance(advice.move, Discard) and advice.discard is not None
    assert advice.move == SolverGin().choose(turn)
    text = advice.numbers()
    assert advice.text().startswith("Don't knock yet: discard ")
    assert f"knock with Q♦ now: expected {advice.knock.value:+.1f}" in text
    assert f"vs play on {advice.discard.value:+.1f} → play on" in text


ABOVE = "2H 3H 4H 5H 6H 2D 3D 4D 5D 6D 8D".split()


def test_gs7_knock_or_play_on_turns_with_the_cards_left_above_the_joker():
    """Deadwood 1 (A♣) after K♣ goes: with 6 places for the Joker a knock is likely set
    (E[knock] −2.7) and the advice is to play on; with 12 it is E[knock] = knock_value(1, 12)
    and the advice is to knock — C's expectation grows with the cards still unseen."""
    hand = "AS 2S 3S 7H 7D 7C 9H TH JH AC KC"
    short = gin_state(hand, " ".join(ABOVE[:5]), long_pile=False)
    turn = sealed_turn(GIN, short, 0)
    advice = knowing(short).advise(turn.view, turn.legal)
    assert turn.view["draw"] == 6 and isinstance(advice.move, Discard)
    assert advice.knock is not None
    assert advice.knock.value == pytest.approx(knock_value(1, 6)) == pytest.approx(-16 / 6)
    longer = gin_state(hand, " ".join(ABOVE), long_pile=False)
    turn = sealed_turn(GIN, longer, 0)
    advice = knowing(longer).advise(turn.view, turn.legal)
    assert turn.view["draw"] == 12 and advice.move == Knock(parse_card("KC"))
    assert advice.knock is not None and advice.discard is not None
    assert advice.knock.value == pytest.approx(knock_worth(1, Belief.unseen(12)))
    assert advice.knock.value == pytest.approx((-26 + sum(range(11))) / 12)
    assert f"knock with K♣ now: expected {advice.knock.value:+.1f} vs play on " \
           f"{advice.discard.value:+.1f} → knock" in advice.numbers()
    assert advice.text() == ("Knock now, with K♣ face down: on average that scores more than "
                             "drawing on")


def test_gs4_advice_before_a_draw_is_to_draw():
    state = gin_state("AS 2S 3S 7H 7D 7C 9H TH JH 2C", "4D", phase="draw")
    turn = sealed_turn(GIN, state, 0)
    advice = SolverGin().advise(turn.view, turn.legal)
    assert advice.move == Draw() and advice.text().startswith("Draw a card")
    assert advice.numbers().startswith("your 10 cards are worth ")


def test_seen_forgets_another_rounds_cards():
    """A memory holding more cards than the round has shown (hand + discards) is stale."""
    seen = Seen()
    seen.cards = {parse_card(c) for c in "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH".split()}
    view = {"hand": [c for c in "AS 2S 3S 7C 7D 7S 9C TC JC QC".split()], "phase": "draw",
            "discards": 1}
    unseen = seen.see(view)
    assert len(unseen) == 42 and parse_card("2H") in unseen


# --- the key on the Gin screen ---------------------------------------------------------------

SEED = 40  # as tests/test_tui_gin.py: a hand with a meld; its first draw leaves > 10 deadwood


async def start(keys: Keys) -> None:
    ctl = keys.ctl
    await keys.until(lambda: len(ctl.seats) == 1)
    await keys.press("enter")
    await keys.until(lambda: ctl.phase == "playing", what="Go")


def coach_advice(ctl: Any) -> Advice:
    """What a solver fed this seat's views alone advises now (the screen's memory)."""
    turn = SealedTurn(ctl.client.game, ctl.client.seat, ctl.client.legal_moves(),
                      ctl.client.view())
    return SolverGin(seen=ctl.screen.coach.seen).advise(turn.view, turn.legal)


def test_gs6_the_h_key_shows_the_best_discard_and_whether_to_knock():
    """GS-6: h — the hint key of every game — shows the advice; H (what it was before)
    still does."""
    async def script(keys: Keys) -> None:
        ctl = keys.ctl
        await start(keys)
        screen: GinScreen = ctl.screen
        await keys.press("?")
        assert "h  hint" in text_of(ctl.render(100, 40))  # the help lists the key
        await keys.press("escape")
        await keys.press("h")
        shown = text_of(ctl.render(100, 30))
        first = coach_advice(ctl)
        assert isinstance(first.move, Discard)
        folded = " ".join(shown.split())
        assert f"Coach: Discard {first.move.card.symbol}: it leaves" in folded  # plain words
        assert "(expected" not in folded and "h again: the numbers behind it" in folded
        await keys.press("h")  # h again: the numbers behind it
        folded = " ".join(text_of(ctl.render(100, 30)).split())
        assert f"Numbers: discard {first.move.card.symbol} (expected" in folded
        assert "the cards you have not seen" in folded and "h again hides it" in folded
        await keys.press("h")  # a third time hides it
        assert "Coach:" not in text_of(ctl.render(100, 30))
        await keys.press(screen.layout(ctl.client.view()).letter(first.move.card))
        await keys.settled()
        await keys.press("n")
        await keys.until(lambda: ctl.client.view()["phase"] == "discard"
                         and not ctl.client.pending
                         and not screen.layout(ctl.client.view()).unknown, what="the draw")
        hand = [Card.from_data(c) for c in ctl.client.view()["hand"]]
        assert min(deadwood_after_discard(hand).values()) > 10
        await keys.press("H")  # (the old key does the same)
        shown = text_of(ctl.render(100, 30))
        advice = coach_advice(ctl)
        assert "no knock yet" in shown and "GS-6" in shown
        assert advice.discard is not None
        assert f"Discard {advice.discard.move.card.symbol}" in shown
        named = set(SYMBOL.findall(shown.split("Coach:")[1].split("\n")[0]))
        assert named <= {c.symbol for c in hand}
        lines = text_of(ctl.render(80, 24)).split("\n")
        assert len(lines) <= 24 and max(len(x) for x in lines) <= 80
        await keys.press(screen.layout(ctl.client.view()).letter(advice.discard.move.card))
        await keys.settled()
        assert "Coach:" not in text_of(ctl.render(100, 30))  # gone once the hand changed

    drive("gin-solitaire", 0, script, seed=SEED, rounds=1, coach=coach_for("gin-solitaire"))


def test_without_a_coach_h_says_so_and_shows_nothing():
    async def script(keys: Keys) -> None:
        ctl = keys.ctl
        await start(keys)
        await keys.press("h")
        assert ctl.flash_text == "there is no coach at this table"
        assert "Coach:" not in text_of(ctl.render(100, 30))

    drive("gin-solitaire", 0, script, seed=SEED, rounds=1)

