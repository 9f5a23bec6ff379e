"""Drawing a screen changes no state. A real table on 127.0.0.1 (flat-out bots, a
round of each game): stopped mid-round, the terminal's screen of a seat is drawn twice and its
face made twice, and the Seat, its game's seat and the client are as they were (deep copies of
their ``__dict__``s, the sockets left out, and the mirror's table as data)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from lan_demon.bots.runner import make_bot, run_pool
from lan_demon.seat.face import face
from lan_demon.tui.app import screen_for
from lan_demon.tui.table import Controller

pytestmark = pytest.mark.timeout(60)

#: what cannot be copied or compared (sockets, clocks, hooks); the rest must not move
LEFT_OUT = {"context", "dealer", "sub", "_polling", "_polled", "clock", "store", "output",
            "seat", "screen", "client", "_game", "coach", "make_coach", "on_notice",
            "size", "pages",  # (the terminal's measure of its last draw, for paging)
            "socket",  # (the send queue's: the dealer)
            "link", "holder",  # (the table copy's and its parts' back references)
            "_view", "_view_key", "_legal", "_legal_key"}  # (the client's memo of its view and
#  legal moves, worked out once per change of the table: a cache filled by reading, not state)


def state(obj: Any, depth: int = 0) -> Any:
    """``obj`` as plain data, taken now: an object as its ``__dict__``, recursively (objects
    without ``__eq__`` compare as their contents, not their identity)."""
    assert depth < 16, "a cycle: leave its back reference out"
    if isinstance(obj, dict):
        return {repr(k): state(v, depth + 1) for k, v in obj.items() if k not in LEFT_OUT}
    if isinstance(obj, (list, tuple)):
        return [state(v, depth + 1) for v in obj]
    if isinstance(obj, (set, frozenset)):
        return sorted(repr(v) for v in obj)
    if hasattr(obj, "__dict__") and not callable(obj):
        return {type(obj).__name__: state(vars(obj), depth + 1)}
    return copy.deepcopy(obj) if isinstance(obj, (int, float, str, bool, type(None))) \
        else repr(obj)


def everything(ctl: Controller) -> list[Any]:
    client = ctl.client
    mirror = client.game.state_to_data(client.mirror) if client.mirror is not None else None
    return [state(ctl), state(ctl.game), state(ctl.screen), state(client), mirror]


@pytest.mark.parametrize("game", ["racing-demon", "racing-demon-german", "racko",
                                  "gin-solitaire"])
def test_drawing_a_screen_or_making_a_face_twice_mid_round_changes_nothing(host, game):
    players = 2
    server = host(game, players=players, rounds=5 if game == "racing-demon-german" else 1,
                  seed=3)  # (RG-7: 5 deals at least)
    bots = [make_bot(server.address, "greedy", f"bot{i}", seed=i, speed="flat-out",
                     context=server.context) for i in range(players)]
    host.clients.extend(b.client for b in bots)
    ctl = Controller(bots[0].client, screen_for(game))
    moves = {"n": 0}

    def mid_round() -> bool:
        if ctl.phase == "playing" and bots[0].client.view() is not None:
            moves["n"] += 1
        return moves["n"] >= 3  # a few moves into the round: hands and stacks have moved

    run_pool(bots, until=mid_round, timeout=45)
    assert ctl.phase == "playing" and ctl.client.view() is not None
    before = everything(ctl)
    first = [ctl.render(80, 24), face(ctl)]
    assert [ctl.render(80, 24), face(ctl)] == first
    after = everything(ctl)
    for name, was, now in zip(("seat", "game seat", "screen", "client", "mirror"), before,
                              after):
        assert was == now, f"drawing changed the {name}"
