"""``ArbiterServer.stop()`` asks the socket loop to end: from a signal handler on the thread that
serves, from inside the loop, or from another thread (127.0.0.1 only)."""

from __future__ import annotations

import os
import signal
import threading

from table_settings import settings
from lan_demon.net.server import ArbiterServer


def _server(context, on_seats=None) -> ArbiterServer:
    return ArbiterServer(settings("racko", players=2, countdown=0, pause=0), port=0,
                         context=context, on_seats=on_seats)


def test_stop_from_a_signal_handler_ends_serve_and_leaves_closing_to_its_caller(context):
    server = _server(context, on_seats=lambda taken, free: os.kill(os.getpid(),
                                                                    signal.SIGUSR1))
    before = signal.signal(signal.SIGUSR1, lambda *_: server.stop())
    try:
        assert server.serve(exit_when_over=False) is None  # the handler's stop ended it
        assert not server.router.closed  # only asked: the sockets are still the caller's
    finally:
        signal.signal(signal.SIGUSR1, before)
        server.close()
    assert server.router.closed and server.pub.closed


def test_stop_from_inside_the_loop_only_asks(context):
    server = _server(context, on_seats=lambda taken, free: server.stop())
    try:
        assert server.serve(exit_when_over=False) is None
        assert not server.router.closed
    finally:
        server.close()
    assert server.router.closed and server.pub.closed


def test_stop_from_another_thread_waits_for_a_started_server(context):
    started = threading.Event()
    server = _server(context, on_seats=lambda taken, free: started.set()).start()
    assert started.wait(10)  # the loop is running in its thread
    server.stop()
    assert server._thread is None and server.router.closed and server.pub.closed
    server.stop()  # twice is harmless


def test_stop_of_a_server_that_never_served_closes_it(context):
    server = _server(context)
    server.stop()
    assert server.router.closed and server.pub.closed
