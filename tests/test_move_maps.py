"""A move map holds exactly its move's fields, in every game (PROTOCOL.md §10, §14–§16).

The four games once disagreed: Racing Demon ignored a field it did not know, Rack-O and Gin
Solitaire refused it. Now all four refuse it (``bad_move``): a move is an instruction, and a
field the arbiter does not know may be one that changes what the sender meant (a misspelt
``"N": 2`` would otherwise move one card of a run of two). A field whose value is nil is a field
left out, as everywhere on the wire (§2).
"""

from __future__ import annotations

from typing import Any

import pytest
from arbiter_harness import dealt_table

from lan_demon.games import BadMove, get_game

pytestmark = pytest.mark.timeout(30)

#: Every move form of every game, as a client sends it.
FORMS: dict[str, list[dict[str, Any]]] = {
    "racing-demon": [{"t": "play", "from": "pile", "to": "middle"},
                     {"t": "play", "from": "c1", "to": "c3", "n": 2},
                     {"t": "turn"}, {"t": "stuck"}, {"t": "out"}],
    "racing-demon-german": [{"t": "play", "from": "waste", "to": "s1"}, {"t": "turn"}],
    "racko": [{"t": "take", "slot": 25}, {"t": "draw"}, {"t": "place", "slot": 5},
              {"t": "discard"}],
    "gin-solitaire": [{"t": "discard", "card": "QS"}, {"t": "draw"},
                      {"t": "knock", "card": "2H"}, {"t": "big-gin"}],
}
CASES = [(game, form) for game, forms in FORMS.items() for form in forms]


@pytest.mark.parametrize(("game", "form"), CASES)
def test_a_move_map_with_a_field_its_move_does_not_have_is_bad_move(game, form):
    engine = get_game(game)
    assert engine.move_from_data(form).to_data() == form  # the form itself is a move
    with pytest.raises(BadMove, match="'x'"):
        engine.move_from_data({**form, "x": 1})


@pytest.mark.parametrize(("game", "form"), CASES)
def test_a_nil_field_in_a_move_map_is_a_field_left_out(game, form):
    engine = get_game(game)
    assert engine.move_from_data({**form, "x": None}) == engine.move_from_data(form)


def test_a_nil_run_length_is_one_card():
    rd = get_game("racing-demon")
    assert rd.move_from_data({"t": "play", "from": "c1", "to": "c2", "n": None}) == \
        rd.move_from_data({"t": "play", "from": "c1", "to": "c2"})


def test_a_field_of_another_move_is_refused_too():
    """``slot`` belongs to Rack-O's take and place, not to its draw; ``card`` to Gin's discard
    and knock, not to its draw; ``n`` to a Racing Demon play, not to a turn."""
    for game, move in (("racko", {"t": "draw", "slot": 25}),
                       ("gin-solitaire", {"t": "draw", "card": "QS"}),
                       ("racing-demon", {"t": "turn", "n": 3})):
        with pytest.raises(BadMove):
            get_game(game).move_from_data(move)


@pytest.mark.parametrize("game", list(FORMS))
def test_the_arbiter_answers_bad_move_and_plays_nothing(game):
    """Over the arbiter, in each game: a legal move with one field too many is refused
    ``bad_move`` (saying which field), nothing is published; without it, it is played."""
    t = dealt_table(game)
    engine, state = t.arbiter.game, t.arbiter.state
    seat = engine.to_move(state)[0]
    peer = (b"A", b"B")[seat]
    move = engine.legal_moves(state, seat)[0].to_data()
    published = len(t.published)
    (error,) = t.send(peer, "move", round=0, move={**move, "extra": True}, ts=t.now)
    assert error["code"] == "bad_move" and "'extra'" in error["reason"], error
    assert len(t.published) == published
    assert t.send(peer, "move", round=0, move=move, ts=t.now) == []
    assert t.committed([])
