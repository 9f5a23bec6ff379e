"""The face of a Racing Demon seat in every phase — lobby, countdown, playing, between
(with every part of the scores), over — kept as snapshots (``tests/face_snapshots/``), so any
change of what a page is sent shows in a diff; and the redaction test of test_seat_face.py
shown able to fail: a face that leaks one face-down card is caught.

A snapshot is written again on purpose, after reading its diff:
``LAN_DEMON_WRITE_SNAPSHOTS=1 python -m pytest tests/test_seat_face_phases.py``."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

import lan_demon.seat.face as face_module
from lan_demon.seat.face import face
from seat_faces import check, seat_in, visible

pytestmark = pytest.mark.timeout(20)
SNAPSHOTS = Path(__file__).parent / "face_snapshots"


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
