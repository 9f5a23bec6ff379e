"""What a spectator is told when it tries a move is worded once — by the seat layer —
in every game and on every screen: the page's intents, the terminal's keys and each game's own
"why not" say the same words (the terminal adds how to leave, by its key)."""

from __future__ import annotations

import pytest

from lan_demon.games.gin_moves import Draw as GinDraw
from lan_demon.games.racko import Draw as RackODraw
from lan_demon.seat import Refusal, Seat
from lan_demon.seat.words import watching
from tui_fake import FakeClient, controller, seats

pytestmark = pytest.mark.timeout(10)

ACTS = {"racing-demon": [("play", {"from": "pile"}), ("turn", {}), ("stuck", {})],
        "racko": [("draw", {}), ("take", {"slot": 5}), ("slot", {"slot": 5})],
        "gin-solitaire": [("draw", {}), ("card", {"card": "QS"}), ("big_gin", {})]}
KEYS = {"racing-demon": ["p", " ", "s"], "racko": ["n", "d", "1"], "gin-solitaire": ["n", "a"]}
WHY_NOT = {"racko": RackODraw(), "gin-solitaire": GinDraw()}


def watcher(game_id: str) -> FakeClient:
    return FakeClient(game_id, seat=None, role="spectator",
                      table={"phase": "playing", "round": 0, "seats": seats("Tess", "Bob")})


@pytest.mark.parametrize("game_id", sorted(ACTS))
def test_a_spectators_move_is_refused_in_the_same_words_everywhere(game_id):
    said = set()
    seat = Seat(watcher(game_id))  # type: ignore[arg-type]
    for do, args in ACTS[game_id]:
        refusal = seat.act(do, args)
        assert isinstance(refusal, Refusal) and refusal.rule is None
        said.add(refusal.words)
    if game_id in WHY_NOT:
        said.add(seat.game.why_not(WHY_NOT[game_id]))
    assert said == {watching(seat.how)}
    ctl, _ = controller(watcher(game_id))
    for key in KEYS[game_id]:
        ctl.key(key)
        assert ctl.flash_text == watching(ctl.how), key
    assert watching(ctl.how) != watching(seat.how) and "q leaves" in watching(ctl.how)
