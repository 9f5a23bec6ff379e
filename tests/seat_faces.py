"""The faces of a seat (what a page is sent, ``lan_demon.seat.face``): the check that a face
holds only cards its seat may see, is plain JSON and changes nothing; and a Racing Demon seat
on a fake client over a real deal, brought to any phase."""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass
from typing import Any

from lan_demon.games.cards import Card
from lan_demon.net.table_copy import Notice
from lan_demon.seat import Seat
from lan_demon.seat.face import face
from tui_fake import FakeClient, seats

CARD = re.compile(r"^(?:[A2-9TJQK][SHDC]|\?\?)$")


def strings(data: Any) -> list[str]:
    """Every string in a face (or any JSON-like data), depth first."""
    if isinstance(data, dict):
        return [s for v in data.values() for s in strings(v)]
    if isinstance(data, list):
        return [s for v in data for s in strings(v)]
    return [data] if isinstance(data, str) else []


def visible(view: Any) -> set[str]:
    """Every card code in the seat's own redacted view, without owners."""
    out = set()
    for text in strings(view):
        try:
            out.add(Card.from_data(text).code)
        except Exception:  # not a card: a name, a phase
            continue
    return out


def check(seat: Seat, faces: list[dict[str, Any]]) -> None:
    """Face ``seat``: plain JSON, the same twice, nothing in the seat changed by it, and no card
    in it the seat's own view does not hold; the face is added to ``faces``."""
    before = (seat.client.seq, len(seat.client.pending), seat.said, seat.confirm)
    made = face(seat)
    assert json.loads(json.dumps(made)) == made  # plain JSON, and back
    assert face(seat) == made and before == (seat.client.seq, len(seat.client.pending),
                                             seat.said, seat.confirm)  # changes nothing
    view = seat.client.view()
    table = made["table"]
    if table is not None and view is not None:
        if made["game"] == "racko":
            assert table["rack"] == view.get("rack")
            assert table["held"] in (None, view.get("held"))
        else:
            cards = {s for s in strings(table) if CARD.match(s)}
            assert cards <= visible(view), cards - visible(view)
    faces.append(made)


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
    """Tess's seat (seat 0; Bob L4 a bot beside her) at a Racing Demon table in ``phase``, as
    its events would have brought it there."""
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
        client.scores.restart([RESULT])
        table.update(phase="between", setup={"pile_sizes": [13, 13]})
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
