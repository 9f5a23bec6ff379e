"""Bots never stall a person: RD-13 counts a card moved between columns as a play —
it clears every stuck vote — so a bot makes no column move that puts back the run it just moved,
or that changes nothing a player could use, at any level. The rule stays as it is
(docs/rules.md, RD-13); the bots' choice changes (lan_demon/bots/racing_demon.py).

Hand-made tables and seeded simulated ones, no network: each test names RD-13."""

from __future__ import annotations

import random
from functools import partial
from typing import Any

import pytest

from lan_demon.bots import make_strategy
from lan_demon.bots.base import Strategy, Turn
from lan_demon.bots.levels import HIGHEST, LOWEST, level
from lan_demon.bots.racing_demon import DemonBot, GreedyDemon, RandomDemon, Sight, StrongDemon
from lan_demon.bots.simulator import play_round
from lan_demon.games import Match, get_game
from lan_demon.games.demon_moves import COLUMN_NAMES, Play, TurnPack, VoteStuck
from hand_tables import KINGS, RD, cs, table
from hand_tables import seat as any_seat
from sealed_turns import SealedTurn, redacted_turn

pytestmark = pytest.mark.timeout(60)

seat = partial(any_seat, columns=KINGS)
CLUBS_TO_7 = cs("AC 2C 3C 4C 5C 6C 7C", 1)
SPADES_TO_7 = cs("AS 2S 3S 4S 5S 6S 7S", 1)


def overlooking(state: Any, seat_no: int = 0) -> SealedTurn:
    """A turn in which every card a stack would take is overlooked (a newcomer misses one play
    in five; here all of them), so only the column moves and the Pack are left to choose."""
    turn = redacted_turn(RD, state, seat_no, random.Random(0))
    turn.moves = [m for m in turn.moves if not (isinstance(m, Play) and m.target.startswith("s"))]
    return turn


def dig_table() -> Any:
    """Seat 0: 7♥ on 8♣ in column 1, a lone 8♠ in column 2; the clubs and spades stacks both
    want an 8 (RD-5), so moving 7♥ either way uncovers a card a stack takes."""
    return table(seat(pile="9C JH", columns=("8C 7H", "8S", "KH", "KD"), pack="5D 4H"),
                 seat(owner=1), stacks=(CLUBS_TO_7, SPADES_TO_7))


def test_rd13_a_bot_never_puts_back_the_run_it_just_moved():
    """RD-13, RD-7: 7♥ went from 8♣ onto 8♠ to dig out 8♣; with the stack plays overlooked,
    moving it straight back onto 8♣ (to dig out 8♠) restores the table as it was — a play for
    RD-13 that nobody can use, again and again. The bot turns its Pack instead."""
    bot = StrongDemon()
    state = dig_table()
    first = bot.choose(overlooking(state))
    assert first == Play("c1", "c2")
    RD.apply(state, 0, first)
    back = Play("c2", "c1")
    assert back in RD.legal_moves(state, 0)
    assert bot.choose(overlooking(state)) == TurnPack()
    fresh = StrongDemon()  # a bot that did not just move it sees a dig, and makes it
    assert fresh.choose(overlooking(state)) == back


def test_rd13_rd11_no_part_of_a_column_moves_for_a_stack_the_bot_was_just_beaten_to():
    """RD-13, RD-11: 8♣ lost its race to the clubs stack at 7♣ (someone's 8♣ got there first,
    the bot has not seen it yet): digging it out again for that stack is no use."""
    state = table(seat(pile="9C JH", columns=("8C 7H", "8S", "KH", "KD"), pack="5D 4H"),
                  seat(owner=1), stacks=(CLUBS_TO_7,))
    bot = StrongDemon()
    turn = overlooking(state)
    sight = Sight.read(turn)
    eight = sight.columns[0][0]
    assert bot.choose(overlooking(state)) == Play("c1", "c2")  # before the race was lost
    bot = StrongDemon()
    bot._beaten.add(("s1", eight, sight.stacks["s1"]))
    assert bot.choose(overlooking(state)) == TurnPack()


@pytest.mark.parametrize("bot", [GreedyDemon, RandomDemon, StrongDemon])
def test_rd13_no_bot_moves_part_of_a_column_that_uncovers_nothing_a_stack_takes(bot):
    """RD-13, RD-7: 7♥ may go from 8♣ onto 8♠ and back, but no stack wants either 8: no bot of
    any level moves it, over many seeded looks."""
    state = table(seat(pile="9C JH", columns=("8C 7H", "8S", "KH", "KD"), pack="5D 4H"),
                  seat(owner=1))
    assert Play("c1", "c2") in RD.legal_moves(state, 0)
    for n in range(40):
        strategy = bot()
        move = strategy.choose(redacted_turn(RD, state, 0, random.Random(n)))
        assert not (isinstance(move, Play) and move.source in COLUMN_NAMES
                    and move.target in COLUMN_NAMES), (bot.name, move)


# --- a blocked table, a person who only votes stuck -------------------------------------------


class Voter(Strategy):
    """The person: blocked, presses s whenever a vote is open, and plays nothing."""

    name = "voter"
    games = ("racing-demon",)

    def choose(self, turn: Turn) -> Any | None:
        return next((m for m in turn.legal if isinstance(m, VoteStuck)), None)


class Shuffler(DemonBot):
    """What the bots must not be: moves a run to another column whenever it can (the control
    that shows the test below can fail)."""

    name = "shuffler"

    def choose(self, turn: Turn) -> Any | None:
        moves = [m for m in turn.legal if isinstance(m, Play) and m.target in COLUMN_NAMES
                 and m.source in COLUMN_NAMES]
        return moves[0] if moves else next((m for m in turn.legal
                                            if isinstance(m, TurnPack)), None)


def blocked_table() -> Any:
    """Four seats, nothing a stack takes anywhere (no aces out, no stack): the person (seat 0)
    and three bots, each bot with 7♥ on 8♣ beside a lone 8♠ — a run that may go to and fro."""
    person = seat(pile="9C JH", columns=("KS", "KH", "KD", "KC"), pack="5D 4H 3S", owner=0)
    bots = [seat(pile="9D QH", columns=("8C 7H", "8S", "KH", "KD"), pack="5D 4H 3S 2H 6C",
                 owner=i) for i in (1, 2, 3)]
    return table(person, *bots)


LIMIT = 200  # moves landed: far more than a blocked table needs to rotate


def rotation_after(bots: list[Strategy], profile: Any) -> tuple[int, int]:
    """Play the blocked table (seeded, simulated time) until RD-13 rotates the Packs; the
    plays made before it, and the moves landed."""
    state = blocked_table()
    game = get_game("racing-demon")
    plays = []
    original = game.apply

    landed = [0]

    def apply(st: Any, who: int, move: Any) -> list[dict[str, Any]]:
        events = original(st, who, move)
        landed[0] += 1
        if st.rotations == 0:
            plays.extend(e for e in events if e["e"] == "play")
        if st.rotations or landed[0] >= LIMIT:
            st.over = True  # the first rotation is what this test waits for
        return events

    game.apply = apply  # type: ignore[method-assign]
    try:
        stats = play_round(game, state, [Voter(), *bots], seed=29, round_no=1,
                           speeds=[profile] * 4)
    finally:
        del game.apply
    assert state.rotations == 1 or landed[0] >= LIMIT, "the round ended some other way"
    return len(plays), landed[0] if state.rotations == 1 else -1


@pytest.mark.parametrize("number", range(LOWEST, HIGHEST + 1))
def test_rd13_a_blocked_person_gets_the_rotation_at_every_level(number):
    """RD-13: at a level-1 table (and every other) with a person who only votes stuck, the
    bots turn through their Packs and the rotation comes within twenty moves — no card
    shuffled between columns clears the vote on the way."""
    lv = level(number)
    bots = [make_strategy("racing-demon", lv.strategy("racing-demon")) for _ in range(3)]
    plays, moves = rotation_after(bots, lv.profile("racing-demon"))
    assert plays == 0 and 0 < moves <= 20, (number, plays, moves)


def test_rd13_the_blocked_table_catches_a_bot_that_shuffles():
    """The control: bots that move a run between columns whenever they can clear the person's
    vote at every move, and no rotation comes in LIMIT (200) moves."""
    plays, moves = rotation_after([Shuffler() for _ in range(3)], level(1).profile("racing-demon"))
    assert moves == -1 and plays > 50
