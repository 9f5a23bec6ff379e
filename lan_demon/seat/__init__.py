"""A seat at a table, decided once for every screen: the terminal, the page, the SDK.

Imports only :mod:`lan_demon.games` and :mod:`lan_demon.net`. See :mod:`lan_demon.seat.seat`
(facts, events, intents), the games' own seats (``demon``, ``racko``, ``gin``), the words
(``words``), the scores as data (``scores``) and the face a page draws (``face``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lan_demon.seat.outcomes import Refusal, Sent

if TYPE_CHECKING:
    from lan_demon.seat.seat import Seat

__all__ = ["Refusal", "Seat", "Sent"]


def __getattr__(name: str) -> Any:
    """``Seat`` is imported when first asked for: it brings the network layer (a client's
    sockets), which the SDK's strategies, importing only the events, must not."""
    if name == "Seat":
        from lan_demon.seat.seat import Seat
        return Seat
    raise AttributeError(f"module 'lan_demon.seat' has no attribute {name!r}")
