"""Stand-ins for the parts of ``lan-demon host``: for its ArbiterServer, which records the
Configs the command hands it and raises :class:`HostStopped`, so the command runs as far as
making its table and no socket is bound (the ``host_configs`` fixture of tests/conftest.py
puts it in place); and for its arbiter, as the host's log and window read it."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any


class HostStopped(Exception):
    """Raised by the stand-in server: the command got as far as making its table, and no
    socket was bound."""


def stand_in_server(configs: list[Any]) -> type:
    """A class to put where ``lan_demon.net.server.ArbiterServer`` is: making one appends its
    Config to ``configs`` and raises :class:`HostStopped`."""

    class StandInServer:
        def __init__(self, config: Any, **kw: Any) -> None:
            configs.append(config)
            raise HostStopped

    return StandInServer


def stand_in_arbiter(seats, phase="lobby", captain=None, players=None, rounds=0, races=True):
    """A stand-in arbiter with only what the log reads."""
    seat_objects = [SimpleNamespace(name=n, bot=b, status=s, removed=False, away_since=None,
                                    removed_by="")
                    for n, b, s in seats]
    return SimpleNamespace(seats=seat_objects, phase=phase, captain=lambda: captain,
                           settings=SimpleNamespace(players=players),
                           match=SimpleNamespace(rounds=[None] * rounds),
                           game=SimpleNamespace(races=races), paused=None, now=0.0,
                           resumed_by="")
