"""A seat at a table, decided once for every screen: the terminal, the page, the SDK.

Imports only :mod:`lan_demon.games` and :mod:`lan_demon.net`. See :mod:`lan_demon.seat.seat`
(facts, events, intents), the games' own seats (``demon``, ``racko``, ``gin``), the words
(``words``), the scores as data (``scores``) and the face a page draws (``face``).
"""

from lan_demon.seat.outcomes import Refusal, Sent
from lan_demon.seat.seat import Seat

__all__ = ["Refusal", "Seat", "Sent"]
