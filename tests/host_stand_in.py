"""``lan-demon host`` run as far as making its table and no further: a stand-in for its
ArbiterServer records the Configs the command hands it and raises :class:`HostStopped`, so no
socket is bound (the ``host_configs`` fixture of tests/conftest.py puts it in place)."""

from __future__ import annotations

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
