"""Fixtures shared by the test modules: a ZeroMQ context; arbiters, web servers and browsers on
127.0.0.1; a state folder of the test's own; the host command's stand-in server; the LAN
tests' network namespaces and zeroconf ban; one Chromium a module for the sample-face pages."""

from __future__ import annotations

from typing import Any, Iterator

import pytest
import zmq

from host_stand_in import stand_in_server
from lan_harness import netns_pair_made
from table_settings import settings
from lan_demon.net.client import Client
from seeded_secrets import SeededSecrets
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


@pytest.fixture
def host_configs(monkeypatch):
    """The Configs that ``lan-demon host`` hands to its server, which is replaced by a stand-in
    that records them and raises :class:`HostStopped` (tests/host_stand_in.py; no socket is
    bound)."""
    import lan_demon.net.server as server_mod
    configs: list = []
    monkeypatch.setattr(server_mod, "ArbiterServer", stand_in_server(configs))
    return configs


@pytest.fixture
def web(host):
    """Start the web server (lan_demon.web) of an arbiter the ``host`` fixture started, on
    127.0.0.1 and any free port: ``web(server)`` → a started WebServer (``.url``); every one
    is stopped after the test (its browser seats' clients with it), before the arbiters."""
    from lan_demon.coach import coach_for
    from lan_demon.web.server import WebServer
    started: list[WebServer] = []

    def start(server: ArbiterServer, **config) -> WebServer:
        keys = server.keys
        config.setdefault("server_key", keys.public.decode() if keys is not None else None)
        config.setdefault("code", server.arbiter.code)
        config.setdefault("coach_for", coach_for)
        web_server = WebServer(server.port, server.arbiter.settings.game, port=0,
                               **config).start()
        started.append(web_server)
        return web_server

    yield start
    for web_server in started:
        web_server.stop()


@pytest.fixture
def browser(web):
    """Headless Chromium (tests/browser.py): ``browser.open("phone")`` → a Selenium driver.
    Skipped, saying why, only when Chromium or its driver is not installed. Any error in a
    browser's console fails the test; every driver is quit — before the web servers stop
    (hence ``web``), so that no page sees its server go."""
    from browser import MISSING, Browsers
    if MISSING:
        pytest.skip(MISSING)
    browsers = Browsers()
    try:
        yield browsers
        browsers.check_consoles()
    finally:
        browsers.quit_all()


@pytest.fixture
def no_zeroconf(monkeypatch):
    """Zeroconf in this process would multicast from the machine's own namespace: forbid it
    (the LAN tests' modules use it for every test)."""
    import zeroconf

    def refuse(*args, **kwargs):
        raise AssertionError("zeroconf may only run inside a test's network namespace")
    monkeypatch.setattr(zeroconf.Zeroconf, "__init__", refuse)


@pytest.fixture
def netns_pair():
    """Two network namespaces joined by a veth pair made inside them (never in the machine's
    own namespace; tests/lan_harness.py); both removed afterwards, whatever happened. Skipped,
    saying why, where namespaces cannot be made."""
    with netns_pair_made() as pair:
        yield pair


@pytest.fixture(scope="module")
def driver() -> Iterator[Any]:
    """One Chromium for the module (tests/browser.py's, at laptop size; each test sets its
    viewport: tests/sample_faces.py), quit at the end. Console errors are read by each test."""
    from browser import MISSING, Browsers
    if MISSING:
        pytest.skip(MISSING)
    browsers = Browsers()
    try:
        yield browsers.open("laptop")
    finally:
        browsers.quit_all()


@pytest.fixture
def seeded_secrets(monkeypatch):
    """The host's secrets and the clients' nonces the same every run (tests/seeded_secrets.py)."""
    from lan_demon.net import fairdeal, witness
    monkeypatch.setattr(fairdeal, "secrets", SeededSecrets("host"))
    monkeypatch.setattr(witness, "secrets", SeededSecrets("clients"))
