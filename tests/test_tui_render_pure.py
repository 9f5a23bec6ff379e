"""Drawing a terminal screen changes nothing: the same state drawn twice gives the same
screen, and no attribute of the controller, its seat, its game's screen or the client moved.

Flashes, votes, the coach's feed and what the seat says happen where a key or a notice is
handled; a render that changed any of them would make what a player sees depend on how often
the terminal happened to redraw. Every scene of tests/small_scenes.py is drawn (the lobby and
its question, the countdown, play with a line said, each key's result, the leave and remove
questions, the help, the paused table, a spectator's table, the banner, the scores, the
match end), plus the moments the scenes lack: Racing Demon's stuck vote (your own, and the
table's for a seat away), its coach fed and reviewing, and Rack-O's turn played for a seat
away. The seat's face (what a browser is sent) is checked the same way.
"""

from __future__ import annotations

import types
from collections.abc import Iterator
from typing import Any

import pytest

from lan_demon.coach import coach_for
from lan_demon.net.table_copy import Notice
from lan_demon.seat.face import face
from lan_demon.tui.style import text_of
from small_scenes import GAMES, SIZES, SceneClient, Scene, controller, scenes

pytestmark = pytest.mark.timeout(120)
PLAIN = (str, bytes, int, float, bool, complex, type(None))
OPAQUE = (types.FunctionType, types.BuiltinFunctionType, types.MethodType, type,
          types.ModuleType)


def snapshot(value: Any) -> dict[str, Any]:
    """Everything reachable from ``value``'s attributes, flat, by its path (``.screen.game.
    voted_here``): plain values as they are, containers and objects walked (an object by its
    class and ``vars``), a function or class by its identity, an object met again by the path
    it was first met at."""
    out: dict[str, Any] = {}
    walk(value, "", out, {})
    return out


def walk(value: Any, path: str, out: dict[str, Any], seen: dict[int, str]) -> None:
    if isinstance(value, PLAIN):
        out[path] = value
        return
    if isinstance(value, OPAQUE):
        out[path] = ("identity", id(value))
        return
    if id(value) in seen:
        out[path] = ("same as", seen[id(value)])
        return
    seen[id(value)] = path
    if isinstance(value, dict):
        out[path] = ("dict", len(value))
        for key, item in value.items():
            walk(item, f"{path}[{key!r}]", out, seen)
        return
    if isinstance(value, (list, tuple)):
        out[path] = (type(value).__name__, len(value))
        for i, item in enumerate(value):
            walk(item, f"{path}[{i}]", out, seen)
        return
    if isinstance(value, (set, frozenset)):
        out[path] = ("set", sorted(repr(v) for v in value))
        return
    fields = getattr(value, "__dict__", None)
    if fields is None and hasattr(value, "__slots__"):
        fields = {name: getattr(value, name, None) for name in value.__slots__}
    if fields is None:
        out[path] = ("repr", type(value).__name__, repr(value))
        return
    out[path] = type(value).__qualname__
    for name, item in fields.items():
        walk(item, f"{path}.{name}", out, seen)


def changed(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """The paths whose values differ, appeared or went."""
    return sorted(p for p in before.keys() | after.keys() if before.get(p) != after.get(p))


def every_scene(game_id: str) -> Iterator[Scene]:
    players = 2 if game_id != "gin-solitaire" else 1
    yield from scenes(game_id, players)
    if game_id != "gin-solitaire":
        yield from scenes(game_id, 4)
    yield from extra_scenes(game_id)


def extra_scenes(game_id: str) -> Iterator[Scene]:
    """The moments the size scenes do not walk: a vote, a turn played for a seat away."""
    if game_id.startswith("racing-demon"):
        client = SceneClient(game_id, 3)
        ctl = controller(client)
        ctl.key("s")  # this seat votes stuck: the vote is its own
        client.mirror.seats[0].voted = True
        yield Scene("playing, voted stuck here", ctl)
        client = SceneClient(game_id, 3)
        client.mirror.seats[0].voted = True  # the table voted while this seat was away
        yield Scene("playing, voted stuck by the table", controller(client))
        client = SceneClient(game_id, 3)
        ctl = controller(client, coach=coach_for(game_id))
        ctl.pump()  # the coach is fed the view this seat is shown
        yield Scene("playing, with the coach", ctl)
        client.ended("between")
        client.notices.append(Notice("round_end", data={
            "result": client.scores.results[-1], "next_at": client.table["next_at"]}))
        ctl.pump()
        ctl.banner_until = 0.0  # the scores, and the coach's review under them
        yield Scene("between, the coach's review", ctl)
    if game_id == "racko":
        client = SceneClient(game_id, 3)
        ctl = controller(client)
        away = 2  # another seat than this screen's
        client.table["seats"][away]["status"] = "away"
        client.stood_in = [(1, away, "away", [{"e": "draw"}, {"e": "discard", "card": 44}])]
        ctl.pump()
        yield Scene("playing, a turn played for a seat away", ctl)


@pytest.mark.parametrize("game_id", GAMES)
def test_drawing_twice_draws_the_same_and_changes_nothing(game_id: str) -> None:
    for scene in every_scene(game_id):
        ctl = scene.ctl
        for width, height in SIZES:
            ctl.size = (width, height)  # the terminal's size is the key handler's to set
            before = snapshot(ctl)
            first = text_of(ctl.render(width, height))
            assert not changed(before, snapshot(ctl)), f"{scene.what} at {width}×{height}"
            second = text_of(ctl.render(width, height))
            assert second == first, f"{scene.what} at {width}×{height}: drawn twice, not the same"
            assert not changed(before, snapshot(ctl)), f"{scene.what} at {width}×{height}"


@pytest.mark.parametrize("game_id", GAMES)
def test_the_seats_face_is_made_twice_the_same_and_changes_nothing(game_id: str) -> None:
    """The seat layer's drawing (the face a browser is sent) is as pure as the terminal's."""
    for scene in every_scene(game_id):
        before = snapshot(scene.ctl)
        first = face(scene.ctl.seat)
        assert not changed(before, snapshot(scene.ctl)), scene.what
        assert face(scene.ctl.seat) == first, f"{scene.what}: made twice, not the same"
        assert not changed(before, snapshot(scene.ctl)), scene.what
