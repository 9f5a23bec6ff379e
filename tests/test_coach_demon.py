"""The Racing Demon coach on hand-made rounds: a card that fitted a stack for a known
time is a missed play with those seconds (RD-5), a lost race names the winner and the ms
(RD-11), and the best missed move is the one that frees the most Pile (RD-8), worked out with
the strong bot's own play from what the seat could see."""

from __future__ import annotations

from functools import partial

import pytest

from lan_demon.coach.demon import DemonCoach
from lan_demon.coach.knowledge import known_table, pile_freed, strong_bot
from lan_demon.coach.review import MISSED_AFTER
from lan_demon.games.demon_moves import Play
from lan_demon.games.demon_table import DemonState
from hand_tables import KINGS, RD, RG, cs, table
from hand_tables import seat as any_seat

pytestmark = pytest.mark.timeout(30)

NAMES = ["Tess", "Bob"]
#: A hand-made seat: the 2♣ on the Pile, kings in the columns, 5♣ 6♣ in the Pack.
seat = partial(any_seat, pile="9C 2C", columns=KINGS, pack="5C 6C")


def seen(state: DemonState, who: int = 0) -> dict:
    """What seat ``who`` is shown: the engine's own view of its redacted copy."""
    game = RG if state.german else RD
    return game.view(game.redact(state, who), who)


def test_rd5_a_card_that_fitted_a_stack_for_7_5_seconds_is_a_missed_play_of_7_5_s():
    """Tess's 5♥ (column 1) fits Bob's 4♥ stack from Go; Bob plays his own 5♥ there 7.5 s
    later: one missed play, 7.5 s, Bob took it."""
    state = table(seat(columns=("5H", "KH", "KD", "KC")),
                  seat(pile="9D 5H", owner=1), stacks=(cs("AH 2H 3H 4H", 1),))
    coach = DemonCoach("racing-demon", 0, NAMES, start=100.0)
    coach.see(100.0, seen(state))
    coach.see(103.0, seen(state))  # the same table, looked at again
    RD.apply(state, 1, Play("pile", "s1"))
    coach.see(107.5, seen(state))  # (7.5 s is written 8 s: whole seconds)
    review = coach.review()
    assert len(review.missed) == 1
    missed = review.missed[0]
    assert (missed.card, missed.source, missed.target) == ("5H@0", "c1", "the 4♥ stack")
    assert missed.seconds == pytest.approx(7.5) and missed.since == pytest.approx(0.0)
    assert (missed.ended, missed.by) == ("taken", "Bob")
    assert "5♥ from column 1 to the 4♥ stack: waited 8\u00a0s before Bob took it" \
        in review.lines()[1]
    assert review.best == missed and missed.pile == 1  # RD-8: column 1 refills from the Pile


def test_rd5_a_card_played_within_two_seconds_is_no_missed_play_and_one_played_late_is():
    state = table(seat(columns=("5H", "KH", "KD", "KC")), seat(owner=1),
                  stacks=(cs("AH 2H 3H 4H", 1),))
    quick = DemonCoach("racing-demon", 0, NAMES, start=0.0)
    quick.see(0.0, seen(state))
    late = DemonCoach("racing-demon", 0, NAMES, start=0.0)
    late.see(0.0, seen(state))
    RD.apply(state, 0, Play("c1", "s1"))
    quick.see(MISSED_AFTER - 0.1, seen(state))
    late.see(MISSED_AFTER + 1.0, seen(state))
    assert quick.review().missed == []
    assert "none" in quick.review().lines()[1]
    assert quick.review().lines(brief=True) == ["Coach: Tess's round — nothing missed, "
                                                "no race lost"]
    (missed,) = late.review().missed
    assert missed.ended == "played" and missed.seconds == pytest.approx(MISSED_AFTER + 1.0)


def test_rd9_a_waste_top_turned_under_while_it_fitted_says_so():
    state = table(seat(columns=("KS", "KH", "KD", "KC"), pack="7C 8C 9C", waste="5H"),
                  seat(owner=1), stacks=(cs("AH 2H 3H 4H", 1),))
    coach = DemonCoach("racing-demon", 0, NAMES, start=0.0)
    coach.see(0.0, seen(state))
    RD.apply(state, 0, RD.parse_move("turn"))
    coach.see(4.0, seen(state))
    (missed,) = coach.review().missed
    assert (missed.card, missed.ended) == ("5H@0", "turned")
    assert "you turned the Pack over it" in missed.words()


def test_rd7_a_column_card_covered_while_it_fitted_says_so():
    state = table(seat(columns=("5H", "KH", "KD", "KC"), waste="4S"), seat(owner=1),
                  stacks=(cs("AH 2H 3H 4H", 1),))
    coach = DemonCoach("racing-demon", 0, NAMES, start=0.0)
    coach.see(0.0, seen(state))
    RD.apply(state, 0, Play("waste", "c1"))  # the 4♠ goes on the 5♥ (RD-7)
    coach.see(3.0, seen(state))
    assert [(m.card, m.ended) for m in coach.review().missed] == [("5H@0", "covered")]


def test_rd12_a_card_still_fitting_when_the_round_ends_counts_to_the_end():
    state = table(seat(columns=("5H", "KH", "KD", "KC")), seat(owner=1),
                  stacks=(cs("AH 2H 3H 4H", 1),))
    coach = DemonCoach("racing-demon", 0, NAMES, start=10.0)
    coach.see(10.0, seen(state))
    coach.see(19.0, seen(state))
    (missed,) = coach.review().missed
    assert missed.ended == "end" and missed.seconds == pytest.approx(9.0)
    assert coach.review().missed == [missed]  # asking again changes nothing


def test_rd11_a_lost_race_names_the_winner_and_the_ms():
    state = table(seat(columns=("5H", "KH", "KD", "KC")), seat(owner=1),
                  stacks=(cs("AH 2H 3H 4H", 1),))
    coach = DemonCoach("racing-demon", 0, NAMES, start=0.0)
    coach.see(0.0, seen(state))
    coach.lost(1.25, 1, 12, "4H")  # the arbiter's beaten error: by Bob, 12 ms, onto 4♥
    (race,) = coach.review().races
    assert (race.by, race.ms, race.top, race.at) == ("Bob", 12, "4H", 1.25)
    assert "Races lost (1): Bob beat you to the 4♥ stack by 12\u00a0ms" in coach.review().lines()


def test_rd11_a_race_onto_a_top_the_seat_never_saw_does_not_name_it():
    state = table(seat(), seat(owner=1), stacks=(cs("AH 2H 3H 4H", 1),))
    coach = DemonCoach("racing-demon", 0, NAMES, start=0.0)
    coach.see(0.0, seen(state))
    coach.lost(2.0, 1, 3, "9C")
    coach.lost(3.0, 1, None, None)
    first, second = coach.review().races
    assert first.top is None and first.words() == "Bob beat you to a stack by 3\u00a0ms"
    assert second.words() == "Bob beat you to a stack"


def test_rd8_the_best_missed_move_frees_the_most_pile_not_the_longest_missed():
    """Two misses: the waste 5♥ onto the 4♥ stack for 10 s frees no Pile card (the play
    after it was there anyway); the lone 3♠ of column 2 onto the 2♠ stack, played after 4 s,
    empties the column, which the Pile refills (RD-8): that is the best missed move."""
    state = table(seat(columns=("KS", "3S", "KD", "KC"), waste="5H", pack="7C"),
                  seat(owner=1), stacks=(cs("AH 2H 3H 4H", 1), cs("AS 2S", 1)))
    coach = DemonCoach("racing-demon", 0, NAMES, start=0.0)
    coach.see(0.0, seen(state))
    RD.apply(state, 0, Play("c2", "s2"))
    coach.see(4.0, seen(state))
    coach.see(10.0, seen(state))
    review = coach.review()
    by_card = {m.card: m for m in review.missed}
    assert by_card["5H@0"].pile == 0 and by_card["5H@0"].seconds == pytest.approx(10)
    assert by_card["3S@0"].pile == 1 and by_card["3S@0"].ended == "played"
    assert review.best == by_card["3S@0"]
    assert review.best.how == "it empties column 2 for your Pile (RD-8)"
    line = review.lines()[3]
    assert line.startswith("Best missed move: at 0:00, 3♠ from column 2 to the 2♠ stack")
    assert "it would have freed a Pile card, and it waited 4\u00a0s" in line


def test_rd7_a_waste_card_the_pile_top_can_follow_is_a_missed_play_to_a_column():
    """The waste 8♥ fits the 9♠ of column 1, and then the Pile top 7♣ fits the 8♥ (RD-7):
    the strong bot's play after the move frees a Pile card, so it is a play that was missed."""
    state = table(seat(pile="9D 7C", columns=("9S", "KH", "KD", "KC"), waste="8H"),
                  seat(owner=1))
    view = seen(state)
    freed = pile_freed(RD, known_table(view), 0, Play("waste", "c1"), strong_bot(RD.id))
    assert freed.pile == 1 and freed.how == "then your Pile top 7♣ can follow it"
    coach = DemonCoach("racing-demon", 0, NAMES, start=0.0)
    coach.see(0.0, view)
    coach.see(5.0, view)
    review = coach.review()
    assert {m.card: m.target for m in review.missed} == {"8H@0": "column 1"}
    assert review.best.how_card == "7C@0"


def test_rd7_part_of_a_column_moved_is_no_missed_play():
    """The 8♦ under the top of column 2 could go onto column 1's 9♠ with the 7♣ on it, but
    a partial run frees nothing: not a card that fits."""
    state = table(seat(pile="9D 2D", columns=("9S", "KH 8D 7C", "KD", "KC")), seat(owner=1))
    coach = DemonCoach("racing-demon", 0, NAMES, start=0.0)
    coach.see(0.0, seen(state))
    coach.see(9.0, seen(state))
    assert coach.review().missed == []


def test_rd7_rd8_a_whole_column_that_could_move_is_a_missed_play_that_frees_the_pile():
    """Column 2 (8♥ with the 7♣ on it) goes whole onto column 1's 9♠ (RD-7), and the Pile
    refills column 2 (RD-8): a missed play of a run, by its base card."""
    state = table(seat(pile="9D 2D", columns=("9S", "8H 7C", "KD", "KC")), seat(owner=1))
    coach = DemonCoach("racing-demon", 0, NAMES, start=0.0)
    coach.see(0.0, seen(state))
    RD.apply(state, 0, Play("c2", "c1", 2))
    coach.see(6.0, seen(state))
    (missed,) = coach.review().missed
    assert (missed.card, missed.run, missed.pile, missed.ended) == ("8H@0", 2, 1, "played")
    assert missed.words() == ("8♥ and the card on it from column 2 to column 1: "
                              "waited 6\u00a0s before you played it")


def test_rg3_german_a_line_card_that_fits_any_suit_is_a_missed_play():
    """RG-3: a German stack takes the next rank in any suit; RG-4: no column plays."""
    state = table(seat(pile="9D 5C", columns=("5S", "KH", "KD", "KC")),
                  seat(owner=1), stacks=(cs("AH 2D 3H 4C", 1),), german=True)
    coach = DemonCoach("racing-demon-german", 0, NAMES, start=0.0)
    coach.see(0.0, seen(state))
    coach.see(3.0, seen(state))
    review = coach.review()
    assert {m.card for m in review.missed} == {"5S@0", "5C@0"}
    assert review.best.pile == 1


def test_the_known_table_holds_only_what_the_view_shows():
    """The coach's table from a view: the Pile under its top, the Pack, the waste under its
    top and the other seat's waste top are placeholders; the counts are kept."""
    state = table(seat(pile="9D 8D 7D", pack="2C 3C 4C", waste="5C 6C"),
                  seat(pile="JD QD", pack="2H", waste="3H 4H", owner=1))
    known = known_table(seen(state))
    me, other = known.seats
    assert [c.to_data() for c in me.pile] == ["??@0", "??@0", "7D@0"]
    assert all(c.hidden for c in me.pack) and len(me.pack) == 3
    assert [c.to_data() for c in me.waste] == ["??@0", "6C@0"]
    assert all(c.hidden for c in other.waste + other.pack) and other.pile[-1].code == "QD"


def test_rd5_the_same_card_missed_twice_alike_says_when_each_was():
    """The review said "8♣ from column 2 to the 7♣ stack: 6 s before you covered it" twice in a
    row, which read as a mistake. It was missed twice — covered, freed, covered again: each says
    when it began. A miss said once stays as it was."""
    from lan_demon.coach.review import Missed, Review
    twice = [Missed("8C@0", "c2", "the 7♣ stack", since, 6.0, "covered", "7C@1")
             for since in (21.0, 75.0)]
    once = Missed("5H@0", "pile", "the 4♥ stack", 30.0, 9.0, "played", "4H@1")
    line = Review("Ann", twice + [once]).lines()[1]
    for at in ("0:21", "1:15"):
        assert f"8♣ from column 2 to the 7♣ stack at {at}: waited 6\u00a0s before you " \
            "covered it" in line
    assert "5♥ from your Pile to the 4♥ stack: waited 9\u00a0s before you played it" in line
