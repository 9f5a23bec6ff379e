"""Fixtures shared by the tests that run real sockets on 127.0.0.1."""

from __future__ import annotations

import pytest
import zmq

from table_settings import settings
from lan_demon.net.client import Client
from lan_demon.net.server import ArbiterServer


@pytest.fixture
def context():
    """A ZeroMQ context of the test's own, ended with it."""
    ctx = zmq.Context()
    yield ctx
    ctx.term()


@pytest.fixture
def host(context):
    """Start arbiters on 127.0.0.1 (any free port; no countdown or pause unless asked); every
    one, and every client put in ``host.clients``, is stopped after the test."""
    servers: list[ArbiterServer] = []
    clients: list[Client] = []

    def start(game: str, journal=None, keys=None, code=None, **config) -> ArbiterServer:
        """``journal``: a path the table journals to (closed when the server stops);
        ``keys``: a CURVE table's pair; ``code``: its room code."""
        config.setdefault("countdown", 0)
        config.setdefault("pause", 0)
        server = ArbiterServer(settings(game, **config), port=0, context=context,
                               journal=None if journal is None else str(journal),
                               keys=keys, code=code).start()
        servers.append(server)
        return server

    start.clients = clients
    yield start
    for client in clients:
        client.close()
    for server in servers:
        server.stop()


@pytest.fixture(autouse=True)
def state_home(tmp_path_factory, monkeypatch):
    """Session tokens (lan_demon.net.tokens) go to a directory of the test's own, never the
    user's: XDG_STATE_HOME is set in os.environ, so processes a test starts inherit it."""
    path = tmp_path_factory.mktemp("state")
    monkeypatch.setenv("XDG_STATE_HOME", str(path))
    return path


class HostStopped(Exception):
    """Raised by the stand-in ArbiterServer of :func:`host_configs`: the command got as far as
    making its table, and no socket was bound."""


@pytest.fixture
def host_configs(monkeypatch):
    """The Configs that ``lan-demon host`` hands to its server, which is replaced by a stand-in
    that records them and raises :class:`HostStopped` (no socket is bound)."""
    import lan_demon.net.server as server_mod
    configs = []

    class FakeServer:
        def __init__(self, config, **kw):
            configs.append(config)
            raise HostStopped

    monkeypatch.setattr(server_mod, "ArbiterServer", FakeServer)
    return configs
