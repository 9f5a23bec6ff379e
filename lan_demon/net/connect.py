"""Reaching an arbiter: what an address means, the host's key, and what a failed CURVE
handshake says — the words a person sees when a join cannot go ahead (:class:`ConnectError`).

Plain functions with no state of their own; :class:`lan_demon.net.client.Client` uses them when
it opens its sockets.
"""

from __future__ import annotations

import zmq
from zmq.utils.monitor import recv_monitor_message

from lan_demon.games import GameError
from lan_demon.net.security import is_public_key

DEFAULT_PORT = 7700  # the port of an address given without one (``host``'s default)
HANDSHAKE_FAILED = (zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL | zmq.EVENT_HANDSHAKE_FAILED_AUTH
                    | zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL)


class ConnectError(GameError):
    """The arbiter could not be reached or refused us; the text says which and why, ``code``
    the arbiter's error code when it refused (e.g. ``bad_code``), else None."""

    def __init__(self, text: str, code: str | None = None, wait: float | None = None):
        super().__init__(text)
        self.code = code
        self.wait = wait


def normalize_address(address: str) -> str:
    """``HOST:PORT``, ``tcp://HOST:PORT`` or ``HOST`` (port 7700) → ``tcp://HOST:PORT``; a
    clear error otherwise. A host without a port is an IPv4 address, ``localhost`` or a
    dotted name (``ann.local``): a bare word is more likely a slip than a machine."""
    text = address.strip()
    if text.startswith("tcp://"):
        text = text[len("tcp://"):]
    host, sep, port = text.rpartition(":")
    if not sep and _looks_like_host(text):
        host, sep, port = text, ":", str(DEFAULT_PORT)  # no port given: the default
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ConnectError(f"not an address: {address!r} (use HOST:PORT, e.g. 127.0.0.1:7700)")
    return f"tcp://{host}:{port}"


def _looks_like_host(text: str) -> bool:
    labels = text.split(".")
    if not all(label and all(ch.isalnum() or ch == "-" for ch in label) for label in labels):
        return False
    return text == "localhost" or len(labels) > 1


def pub_endpoint(pub: str, router: str) -> str:
    """Where to connect the SUB: the welcome's ``pub`` names the host the arbiter bound to,
    which on a LAN host is a wildcard (``0.0.0.0``) — so take the host we reached the ROUTER
    at, with the ``pub`` port (PROTOCOL.md §2)."""
    port = pub.rpartition(":")[2]
    host = router[len("tcp://"):].rpartition(":")[0]
    return f"tcp://{host}:{port}"



def check_server_key(key: str | bytes | None) -> bytes | None:
    """The host's public key as z85 bytes, checked; a clear error for anything else."""
    if key is None:
        return None
    text = key.decode("ascii", errors="replace") if isinstance(key, bytes) else key
    if not is_public_key(text.strip()):
        raise ConnectError(f"not a CURVE public key: {text!r} (40 characters of z85, as the "
                           f"host prints it)")
    return text.strip().encode("ascii")


def handshake_failure(monitor: zmq.Socket | None, secure: bool) -> str | None:
    """What a failed CURVE handshake seen on ``monitor`` means, in words; None if none."""
    while monitor is not None and monitor.poll(0):
        event = recv_monitor_message(monitor)
        if not secure and event["event"] & HANDSHAKE_FAILED:  # (no key given: any failure)
            return ("it is encrypted (CURVE): join with its public key (--key '…', as the "
                    "host's screen shows it), or without an address to find it on the LAN")
        if event["event"] == zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL:
            return "it is not encrypted (leave out --key), or not a lan-demon arbiter"
        if event["event"] & HANDSHAKE_FAILED:
            return ("the encrypted handshake failed — wrong key? check the fingerprint on "
                    "the host's screen")
    return None


def watch_handshake(dealer: zmq.Socket) -> zmq.Socket | None:
    """A monitor of ``dealer``'s handshake, attached before it connects; None without one."""
    try:
        return dealer.get_monitor_socket(HANDSHAKE_FAILED)
    except (zmq.ZMQError, NotImplementedError):
        return None  # no monitor: a failed handshake shows as silence instead


def unwatch(dealer: zmq.Socket | None, monitor: zmq.Socket | None) -> None:
    """Take the monitor off ``dealer`` (if it is still open) and close it."""
    if monitor is None:
        return
    try:
        if dealer is not None and not dealer.closed:
            dealer.disable_monitor()
    except zmq.ZMQError:
        pass
    monitor.close(linger=0)
