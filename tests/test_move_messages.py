"""A committed move's messages are the codec's: the update and the private half the hot path
writes out (``codec.move_update``, ``codec.move_private``) are, key for key and byte for byte,
what ``codec.make`` makes of the same fields."""

from __future__ import annotations

import pytest

from lan_demon.net.codec import encode, make, move_private, move_update

pytestmark = pytest.mark.timeout(10)

EVENTS = [{"t": "turned", "seat": 1, "cards": ["5C@1"]}]


@pytest.mark.parametrize("secret", [False, True])
def test_a_moves_update_is_the_one_make_makes(secret: bool) -> None:
    fast = move_update(41, 2, 1, {"t": "turn"}, 17, EVENTS, secret)
    made = make("update", seq=41, k="move", round=2, seat=1, move={"t": "turn"}, rid=17,
                events=EVENTS, p=secret)
    assert list(fast.items()) == list(made.items()) and encode(fast) == encode(made)


@pytest.mark.parametrize("move", [None, {"t": "draw", "card": 12}])
def test_a_moves_private_half_is_the_one_make_makes(move: dict | None) -> None:
    fast = move_private(41, EVENTS, move)
    made = make("private", seq=41, k="move", events=EVENTS, move=move)
    assert list(fast.items()) == list(made.items()) and encode(fast) == encode(made)
