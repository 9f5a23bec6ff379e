"""One translation, not four: the SDK's events are made from the seat layer's
(``lan_demon.seat.events.from_notice``), which the terminal and the page are told too; the bot
author's event types and fields stay as they were (a public API), and the SDK still imports no
socket library until a bot is run."""

from __future__ import annotations

import subprocess
import sys

import pytest

from lan_demon.bots.sdk import (Beaten, MatchEnd, Played, Refused, RoundEnd, RoundStart,
                                from_seat, to_event)
from lan_demon.games import get_game
from lan_demon.games.demon_moves import Play
from lan_demon.net.table_copy import Notice
from lan_demon.seat import events as ev

pytestmark = pytest.mark.timeout(30)

GAME = get_game("racing-demon")
RESULT = {"scores": [3, -1], "detail": [], "totals": {"Ann": 3, "Bob": -1}, "winner": ["Ann"]}
NOTICES = [
    (Notice("round", data={"round": 2}), RoundStart(2)),
    (Notice("move", data={"seat": 1, "move": {"t": "play", "from": "pile", "to": "s3"},
                          "events": [{"e": "play"}]}),
     Played(1, Play("pile", "s3"), False, [{"e": "play"}])),
    (Notice("move", data={"seat": 0, "move": {"t": "play", "from": "??", "to": "s3"}}),
     Played(0, {"t": "play", "from": "??", "to": "s3"}, True, [])),
    (Notice("beaten", "RD-11: Bob got there first", {"move": "pile s3", "by": 1, "ms": 12}),
     Beaten("pile s3", 1, "RD-11: Bob got there first")),
    (Notice("refused", "no", {"move": "turn", "rule": "RD-9", "reason": "the Pack is empty",
                              "code": "illegal"}), Refused("turn", "RD-9", "the Pack is empty",
                                                           "illegal")),
    (Notice("refused", "too fast", {"move": "turn", "code": "rate_limited"}),
     Refused("turn", "", "too fast", "rate_limited")),
    (Notice("round_end", data={"round": 0, "result": RESULT, "totals": [3, -1]}),
     RoundEnd(0, [3, -1], [3, -1])),
    (Notice("match_end", data={"result": RESULT}), MatchEnd({"Ann": 3, "Bob": -1}, ["Ann"])),
    (Notice("presence", data={"seat": 1, "status": "away", "name": "Bob"}), None),
    (Notice("resync"), None)]


@pytest.mark.parametrize("notice, event", NOTICES,
                         ids=[f"{n.kind}-{i}" for i, (n, _) in enumerate(NOTICES)])
def test_each_notice_becomes_the_same_sdk_event_as_before_by_way_of_the_seats(notice, event):
    assert to_event(notice, GAME, 0) == event
    seat_event = ev.from_notice(notice, 0)
    assert from_seat(seat_event, GAME) == event if seat_event is not None else event is None


def test_the_seat_tells_its_events_with_words_on_top_of_the_same_translation():
    """Seat._notice adds its words and rule to ``from_notice``'s event; nothing else."""
    from lan_demon.seat import Seat
    from tui_fake import FakeClient, seats

    client = FakeClient(table={"phase": "playing", "round": 0, "seats": seats("Ann", "Bob")})
    seat = Seat(client)  # type: ignore[arg-type]
    for notice, _ in NOTICES[:6]:
        told = seat._notice(notice)
        bare = ev.from_notice(notice, 0)
        assert [type(e) for e in told] == [type(bare)]
        assert told[0].__dict__ | {"words": "", "rule": None} == \
            bare.__dict__ | {"words": "", "rule": None}


def test_the_sdk_imports_no_socket_library():
    code = "import sys, lan_demon.bots.sdk; sys.exit('zmq' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], timeout=20).returncode == 0
