"""The gateway's one door to the seat layer (``lan_demon/seat/``): a seat for a client, its
face, an intent or a key done by it. Everything a page is told, every word of a refusal and
every move it may make are the seat layer's (docs/page-protocol.md); this module only names
them for :mod:`.browser_seat` and :mod:`.gateway`.
"""

from __future__ import annotations

from typing import Any, Callable

from lan_demon.net.client import Client
from lan_demon.seat import Seat
from lan_demon.seat.acts import key_map
from lan_demon.seat.face import face


def new_seat(client: Client, coach_for: Callable[[str], Any] | None = None) -> Seat:
    """The seat of a connected client, with its game's coach (handed in by the command, as
    players import no bot) for the round's review and the hints."""
    coach = coach_for(client.game.id) if coach_for is not None and client.game else None
    return Seat(client, coach=coach)


def face_of(seat: Seat) -> dict[str, Any]:
    """What the page is sent to draw: exactly the seat's redacted view."""
    return face(seat)


def pump(seat: Seat) -> list[Any]:
    """Handle whatever reached the seat's client; the seat's new events."""
    return seat.pump()


def changed(seat: Seat) -> bool:
    """Whether the last pump changed anything the face shows (the seat says)."""
    return seat.changed


def perform(seat: Seat, do: str, args: dict[str, Any]) -> None:
    """Do the intent ``do``: sent, or refused — a refusal is the seat's line (its words, the
    rule after them), shown in the next face like any other."""
    seat.act(do, args)


def press(seat: Seat, key: str) -> None:
    """A key from a page's keyboard: the intent the face's key map gives it now, exactly as
    the terminal maps it; a key that means nothing now does nothing (as on the terminal)."""
    meant = key_map(seat).get(key)
    if meant is not None:
        seat.act(meant["do"], {k: v for k, v in meant.items() if k != "do"})


def leaving(seat: Seat) -> bool:
    """The seat said it leaves (a leave in the lobby or at the end, or one confirmed): the
    gateway then gives it up."""
    return seat.quit
