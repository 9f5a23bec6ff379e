"""Issue 28: the face of a Racing Demon seat in every phase — lobby, countdown, playing, between
(with every part of the scores), over — kept as snapshots (``tests/face_snapshots/``), so any
change of what a page is sent shows in a diff; and the redaction test of test_seat_face.py
shown able to fail: a face that leaks one face-down card is caught.

A snapshot is written again on purpose, after reading its diff:
``LAN_DEMON_WRITE_SNAPSHOTS=1 python -m pytest tests/test_seat_face_phases.py``."""

from __future__ import annotations

import json
import os
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import lan_demon.seat.face as face_module
from lan_demon.net.table_copy import Notice
from lan_demon.seat import Seat
from lan_demon.seat.face import face
from test_seat_face import check, visible
from tui_fake import FakeClient, seats

pytestmark = pytest.mark.timeout(20)
SNAPSHOTS = Path(__file__).parent / "face_snapshots"
RESULT = {"scores": [7, -3], "detail": [
    {"pile_size": 13, "stacked": 6, "kings": 0, "out": True, "pile_left": 0},
    {"pile_size": 13, "stacked": 4, "kings": 1, "out": False, "pile_left": 12}]}


@dataclass
class DealtClient(FakeClient):
    """A fake client over a real Racing Demon deal (seed 5), played a few seeded moves in,
    seen as seat 0 (or a spectator) sees it."""

    state: Any = None

    def deal(self) -> None:
        game = self.game
        self.state = game.deal(game.first_setup(2, game.default_options()), random.Random(5))
        rng = random.Random(5)
        for _ in range(12):
            for s in (0, 1):
                moves = game.legal_moves(self.state, s)
                stacks = [m for m in moves if getattr(m, "target", "c")[:1] != "c"]
                game.apply(self.state, s, rng.choice(stacks or moves))
        self.mirror = self.predicted = game.redact(self.state, self.seat)

    def view(self) -> dict[str, Any] | None:
        return None if self.state is None else self.game.view(self.predicted, self.seat)

    def legal_moves(self) -> list[Any]:
        return [] if self.seat is None or self.state is None else \
            self.game.legal_moves(self.predicted, self.seat)


def seat_in(phase: str) -> Seat:
    client = DealtClient(table={"phase": "lobby", "captain": 0,
                                "seats": seats("Tess", "Bob L4", ready=(1,), bots=(1,))},
                         config={"rounds": 3})
    seat = Seat(client, clock=client.clock)  # type: ignore[arg-type]
    table = client.table
    if phase in ("countdown", "playing", "between", "over"):
        table.update(phase="countdown", go=client.clock.now + 3.5, round=0)
    if phase in ("playing", "between", "over"):
        table.update(phase="playing")
        client.deal()
        client.notices.append(Notice("round", data={"round": 0}))
        seat.pump()
    if phase in ("between", "over"):
        table.update(phase="between", results=[RESULT], totals=[7, -3],
                     setup={"pile_sizes": [13, 13]})
        client.notices.append(Notice("round_end", data={"round": 0, "result": RESULT,
                                                        "totals": [7, -3],
                                                        "next_at": client.clock.now + 30}))
        seat.pump()
    if phase == "over":
        result = {"totals": {"Tess": 7, "Bob L4": -3}, "winner": ["Tess"]}
        table.update(phase="over", result=result)
        client.notices.append(Notice("match_end", data={"result": result}))
        seat.pump()
    return seat


@pytest.mark.parametrize("phase", ["lobby", "countdown", "playing", "between", "over"])
def test_the_face_of_each_phase_is_its_snapshot(phase):
    made = face(seat_in(phase))
    assert made["phase"] == phase
    path = SNAPSHOTS / f"racing-demon-{phase}.json"
    text = json.dumps(made, indent=1, ensure_ascii=False, sort_keys=True) + "\n"
    if os.environ.get("LAN_DEMON_WRITE_SNAPSHOTS"):
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8"), f"{path.name} differs: read the diff"
    if phase == "between":  # the scores, every part of each
        assert made["scores"]["rows"] and made["banner"]["words"]


def test_the_redaction_check_catches_a_face_that_shows_one_face_down_card(monkeypatch):
    """A broken face on purpose: the seat's table plus one card of its own face-down Pack."""
    seat = seat_in("playing")
    check(seat, [])  # the honest face passes
    view = seat.client.view()
    hidden = next(c.code for c in seat.client.state.seats[0].pack
                  if c.code not in visible(view))
    honest = face_module.demon_table

    def leaky(seat: Any, view: dict[str, Any]) -> dict[str, Any]:
        made = honest(seat, view)
        made["me"]["columns"][0].insert(0, hidden)
        return made

    monkeypatch.setattr(face_module, "demon_table", leaky)
    with pytest.raises(AssertionError, match=hidden):
        check(seat, [])
