"""What keeps a LAN table to the people in the room: a room code, a brake on guessing it, and
ZeroMQ CURVE encryption with the connection key as the player's identity.

* **Room code.** Eight letters from an alphabet without look-alikes (no I, L or O, which read as
  1 and 0), shown on the host's screen in two groups (``KQZR-MWTB``) and said aloud; typed with
  or without the hyphen, spaces, in any case. 23**8 = 7.8e10 codes, and :class:`CodeThrottle`
  holds the whole table to a few wrong codes a second (its docstring has the sum).
* **CURVE.** The host has one key pair; its public key travels in the mDNS TXT record and its
  :func:`fingerprint` is shown on the host's screen, so a joiner can check they found the real
  table and not an impostor. The ROUTER and the PUB are CURVE servers; a client's DEALER and SUB
  are CURVE clients with a key pair of their own.
* **Identity.** With a ZAP handler running (:func:`start_authenticator`), every frame the ROUTER
  receives carries the sender's public key as its ``User-Id`` (:func:`peer_key`), so the arbiter
  can bind a seat to a key: a frame that claims a seat must come from the key that took it.
* **Watching.** A coded table's PUB lets in only those who gave the code: its ZAP domain is
  gated (:class:`TableAuthenticator`) by a :class:`WatchGate` the arbiter fills — with keys on a
  CURVE table, with IP addresses on a plain one.

No sockets are opened here: the helpers configure sockets the caller made, and everything else is
pure (the throttle takes the time as an argument), so tests need neither a network nor a clock.
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import secrets
import threading
from dataclasses import dataclass, field
from typing import Protocol

import zmq
import zmq.auth
from zmq.auth.thread import ThreadAuthenticator
from zmq.utils import z85

#: Letters that cannot be misread for one another or for digits (no I, L, O).
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ"
CODE_LENGTH = 8
CODE_GROUP = 4  # letters shown together: "KQZR-MWTB"
KEY_BYTES = 32  # a CURVE public key; its z85 text is 40 characters


class Chooser(Protocol):
    """Anything with ``choice``: :class:`random.Random` (seeded, in tests), the
    :mod:`secrets` module or :class:`secrets.SystemRandom` (for real tables)."""

    def choice(self, seq: str) -> str: ...


# --- the room code ---------------------------------------------------------------------------

def new_code(rng: Chooser | None = None, length: int = CODE_LENGTH) -> str:
    """A fresh room code such as ``"KQZRMWTB"`` (shown as :func:`format_code` writes it); from
    ``secrets`` unless a chooser is passed."""
    source = rng if rng is not None else secrets.SystemRandom()
    return "".join(source.choice(CODE_ALPHABET) for _ in range(length))


def normalize_code(text: str) -> str:
    """What the player typed, as the arbiter compares it: no spaces or hyphens, upper case
    (``"kqzr mwtb"``, ``"KQZR-MWTB"`` and ``"kqzrmwtb"`` are one code)."""
    return "".join(text.replace("-", " ").split()).upper()


def format_code(code: str) -> str:
    """A code as the host's screen shows it: a code of :data:`CODE_LENGTH` letters in two
    groups of four (``"KQZR-MWTB"``); a code of another length (a host's own ``--code``) as
    it is, upper case."""
    clean = normalize_code(code)
    if len(clean) != CODE_LENGTH:
        return clean
    return "-".join(clean[i:i + CODE_GROUP] for i in range(0, len(clean), CODE_GROUP))


def codes_match(given: str | None, expected: str) -> bool:
    """True when ``given`` is the room code, compared in constant time (hmac) so the time an
    answer takes says nothing about how many letters were right."""
    if given is None:
        return False
    return hmac.compare_digest(normalize_code(given).encode("utf-8"),
                               normalize_code(expected).encode("utf-8"))


@dataclass
class _Record:
    fails: int = 0
    last: float = 0.0  # the last wrong code
    until: float = 0.0  # the address's own wait ends
    reserved: int = 0  # wrong codes its own allowance paid for (the table's bucket was empty)


@dataclass
class CodeThrottle:
    """A brake on wrong room codes, per address and over the whole table; pure, the caller
    passes the time. An address is keyed by its IP address (frame ``Peer-Address``) rather
    than its routing id or CURVE key, which a guesser can change at will.

    **Per address.** The first ``free`` wrong codes cost nothing (a typo happens). After that,
    the k-th further wrong code makes the address wait ``base * 2**(k-1)`` seconds, at most
    ``cap``, before a new try is even looked at. A right code forgets the address; so does
    ``forget`` seconds without a wrong one.

    **Over the table.** Wrong codes from all addresses together draw on one token bucket of
    ``table_rate`` a second (bursts of ``table_burst``), so many addresses cannot each take
    their typos and their waits side by side. While the bucket is empty, an address's try is
    still looked at (once its own wait is over) if it has had fewer than ``reserve`` wrong
    codes paid that way: each address keeps that small allowance of its own, which other
    addresses cannot take away. So someone who keeps the table's bucket empty from other
    addresses delays the right code from a slowed address by its own wait only — at most
    ``cap`` seconds — unless that address itself has made more than ``reserve`` mistakes while
    the table was under attack; then it waits for the bucket (``1/table_rate`` seconds a
    token, shared with the guessers).

    **The sum.** A record lives until its address has been quiet for ``forget`` seconds, so over
    T seconds A addresses get at most ``table_rate*T + table_burst + A*reserve*ceil(T/forget)``
    wrong codes looked at. With the defaults, 200 addresses over a 4-hour evening (T = 14,400
    s): 2*14,400 + 20 + 200*10*24 = 76,820 tries of 23**8 = 7.8e10 codes (:data:`CODE_LENGTH`):
    a chance of 1.0e-6 of finding the code, under 1 in 10,000 even for 20,000 addresses. (The
    four-letter code of old, 279,841 codes, would be found that evening with a chance of 27%.)
    Once the allowances are spent the whole table is held to ``table_rate`` wrong codes a
    second.
    """

    free: int = 3
    base: float = 1.0
    cap: float = 5.0
    forget: float = 600.0
    table_rate: float = 2.0
    table_burst: float = 20.0
    reserve: int = 10
    _peers: dict[str, _Record] = field(default_factory=dict, repr=False)
    _tokens: float | None = field(default=None, repr=False)  # the table's bucket (None: full)
    _at: float = field(default=0.0, repr=False)

    def wait(self, peer: str, now: float) -> float:
        """Seconds ``peer`` must still wait before a try counts; 0.0 when it may try now."""
        record = self._peers.get(peer)
        if record is not None and now - record.last >= self.forget:
            del self._peers[peer]
            record = None
        if record is not None and record.until > now:
            return record.until - now
        tokens = self._table(now)
        if tokens >= 1 or record is None or record.reserved < self.reserve:
            return 0.0
        return (1 - tokens) / self.table_rate if self.table_rate > 0 else self.cap

    def failed(self, peer: str, now: float) -> float:
        """Record a wrong code from ``peer`` (one looked at: :meth:`wait` said 0); returns the
        wait its address has earned (0.0 if none)."""
        self.wait(peer, now)  # drops a record that has gone quiet for long enough
        record = self._peers.setdefault(peer, _Record())
        record.fails += 1
        record.last = now
        tokens = self._table(now)
        if tokens >= 1:
            self._tokens = tokens - 1
        else:  # the address's own allowance pays
            record.reserved += 1
        over = record.fails - self.free
        delay = min(self.cap, self.base * 2 ** (over - 1)) if over > 0 else 0.0
        record.until = now + delay
        return delay

    def succeeded(self, peer: str) -> None:
        """The right code: the address starts afresh."""
        self._peers.pop(peer, None)

    def prune(self, now: float) -> None:
        """Drop addresses quiet for ``forget`` seconds, so the table stays small."""
        for peer in [p for p, r in self._peers.items() if now - r.last >= self.forget]:
            del self._peers[peer]

    def _table(self, now: float) -> float:
        """The table's bucket at ``now``, refilled since it was last looked at."""
        if self._tokens is None:
            self._tokens, self._at = self.table_burst, now
        elif now > self._at:
            self._tokens = min(self.table_burst,
                               self._tokens + (now - self._at) * self.table_rate)
            self._at = now
        return self._tokens

    def __len__(self) -> int:
        return len(self._peers)


# --- CURVE keys ----------------------------------------------------------------------------

@dataclass(frozen=True)
class KeyPair:
    """A CURVE key pair as z85 text (40 ASCII characters each), the form ZeroMQ takes."""

    public: bytes
    secret: bytes = field(repr=False)

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.public)


def new_keypair() -> KeyPair:
    """A fresh CURVE key pair (``zmq.curve_keypair``); needs libzmq built with CURVE."""
    if not zmq.has("curve"):
        raise RuntimeError("this libzmq has no CURVE support; --secure is not available")
    public, secret = zmq.curve_keypair()
    return KeyPair(public, secret)


def _key_bytes(public_key: bytes | str) -> bytes:
    """The raw 32 bytes of a key given as z85 (text or bytes) or already raw (bytes)."""
    if isinstance(public_key, bytes) and len(public_key) == KEY_BYTES:
        return public_key
    try:
        text = public_key.encode("ascii") if isinstance(public_key, str) else public_key
        raw = z85.decode(text)
    except (ValueError, KeyError, TypeError, UnicodeEncodeError):
        raise ValueError(f"not a CURVE public key: {public_key!r}") from None
    if len(raw) != KEY_BYTES:
        raise ValueError(f"not a CURVE public key: {public_key!r}")
    return raw


def is_public_key(text: str) -> bool:
    """True when ``text`` is a z85 CURVE public key (40 characters decoding to 32 bytes)."""
    try:
        return isinstance(text, str) and len(text) == 40 and len(_key_bytes(text)) == KEY_BYTES
    except ValueError:
        return False


def fingerprint(public_key: bytes | str) -> str:
    """A short, speakable fingerprint of a CURVE public key: ``"3F2A-91BC-07DE-55A1"``.

    It is the first 8 bytes of the SHA-256 of the raw 32-byte key (z85 text is decoded
    first), as 16 upper-case hex digits in four groups of four. 64 bits: plenty for a person
    comparing it with the host's screen, where an attacker has one try, not a search.
    """
    digest = hashlib.sha256(_key_bytes(public_key)).hexdigest()[:16].upper()
    return "-".join(digest[i:i + 4] for i in range(0, 16, 4))


# --- configuring sockets -------------------------------------------------------------------

def make_curve_server(sock: zmq.Socket, keys: KeyPair) -> zmq.Socket:
    """Make a ROUTER or PUB a CURVE server; call before bind. Returns the socket."""
    sock.curve_secretkey = keys.secret
    sock.curve_publickey = keys.public
    sock.curve_server = True
    return sock


def make_curve_client(sock: zmq.Socket, server_key: bytes | str, keys: KeyPair) -> zmq.Socket:
    """Make a DEALER or SUB a CURVE client of the server whose public key is ``server_key``
    (z85); call before connect. A wrong server key means no handshake, so no messages."""
    sock.curve_serverkey = server_key.encode("ascii") if isinstance(server_key, str) \
        else server_key
    sock.curve_publickey = keys.public
    sock.curve_secretkey = keys.secret
    return sock


#: The ZAP domains of gated PUB sockets start with this (one domain per table: one ZAP handler
#: serves every table of a ZeroMQ context). A domain with this prefix and no gate lets nobody in.
WATCH_DOMAIN = "lan-demon-watch-"
_NO_WAY_IN = b"only those who gave the room code may watch this table"


class WatchGate:
    """Who may watch a coded table's updates: the CURVE keys, and the IP addresses, of the
    connections that gave its room code (a seat, a spectator) or came back to a seat by its
    token (they gave it before). What a watcher leaves behind does not close it again: whoever
    heard the code may come back as a spectator with it anyway.

    The arbiter's thread adds (:mod:`lan_demon.net.seats`), the ZAP thread asks at each PUB
    handshake (:class:`TableAuthenticator`); a lock keeps the two apart. It grows only by a
    right code or a seat's token, so by the people in the room."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._keys: set[str] = set()
        self._addresses: set[str] = set()

    def admit(self, key: str | None, address: str | None) -> None:
        with self._lock:
            if key:
                self._keys.add(key)
            if address:
                self._addresses.add(address)

    def lets_in_key(self, key: str | None) -> bool:
        """A CURVE table: the client's public key (z85) gave the code."""
        with self._lock:
            return key in self._keys

    def lets_in_address(self, address: str | None) -> bool:
        """A plain table: someone at this IP address gave the code. An address is a laptop,
        not a person (everyone on it, or behind one NAT, shares it): the weaker gate a table
        without CURVE can have."""
        with self._lock:
            return address in self._addresses

    def __len__(self) -> int:
        with self._lock:
            return len(self._keys) + len(self._addresses)


class TableAuthenticator(ThreadAuthenticator):
    """pyzmq's ZAP handler, plus gates: a domain of :data:`WATCH_DOMAIN` answers from its
    :class:`WatchGate` — a CURVE handshake by the client's key, a plain (NULL) one by its
    address, anything else refused — and every other domain (the ROUTER's) as configured."""

    def __init__(self, context: zmq.Context):
        super().__init__(context)
        self.gates: dict[str, WatchGate] = {}

    async def handle_zap_message(self, msg: list[bytes]) -> None:
        domain = msg[2].decode("utf-8", "replace") if len(msg) >= 6 else ""
        if not domain.startswith(WATCH_DOMAIN) or msg[0] != b"1.0":
            await super().handle_zap_message(msg)
            return
        gate, mechanism = self.gates.get(domain), msg[5]
        user = "anonymous"
        if gate is None:
            allowed = False
        elif mechanism == b"CURVE" and len(msg) == 7 and len(msg[6]) == KEY_BYTES:
            user = z85.encode(msg[6]).decode("ascii")
            allowed = gate.lets_in_key(user)
        elif mechanism == b"NULL":
            allowed = gate.lets_in_address(msg[3].decode("utf-8", "replace"))
        else:
            allowed = False
        if allowed:
            self.reply(msg[1], b"200", b"OK", user)
        else:
            self.reply(msg[1], b"400", _NO_WAY_IN)

    def reply(self, request_id: bytes, status: bytes, text: bytes,
              user: str = "") -> None:
        """A ZAP reply (RFC 27: version, request id, status code and text, user id, metadata)
        on the handler's public socket: pyzmq's own reply is private to its class."""
        self.zap_socket.send_multipart([b"1.0", request_id, status, text,
                                        user.encode("utf-8"), b""])


def start_authenticator(context: zmq.Context) -> TableAuthenticator:
    """Install a ZAP handler on ``context`` that lets any CURVE client in on the ROUTER (the
    room code is the gate, not a key list), stamps each received frame with its key as
    ``User-Id``, and answers each gated PUB's domain from its gate (``auth.gates[domain]``).
    Stop it with ``.stop()`` after the sockets are closed."""
    auth = TableAuthenticator(context)
    auth.start()
    auth.configure_curve(domain="*", location=zmq.auth.CURVE_ALLOW_ANY)
    return auth


class SharedZap:
    """The ZAP handlers in use, one per ZeroMQ context (a second would find the ZAP endpoint
    taken), shared by the servers of that context that need one (CURVE, or a gated PUB) and
    stopped when the last one closes; and each gated PUB's own domain."""

    _lock = threading.Lock()
    _handlers: dict[int, tuple[TableAuthenticator, int]] = {}
    _domains = itertools.count(1)

    @classmethod
    def take(cls, context: zmq.Context) -> TableAuthenticator:
        with cls._lock:
            auth, users = cls._handlers.get(id(context), (None, 0))
            if auth is None:
                auth = start_authenticator(context)
            cls._handlers[id(context)] = (auth, users + 1)
            return auth

    @classmethod
    def give_back(cls, context: zmq.Context) -> None:
        with cls._lock:
            auth, users = cls._handlers.pop(id(context), (None, 0))
            if users > 1:
                cls._handlers[id(context)] = (auth, users - 1)
            elif auth is not None:
                auth.stop()

    @classmethod
    def domain(cls) -> str:
        """A ZAP domain of its own for one table's PUB: nobody is let in until its gate is
        hung there (``auth.gates[domain]``), and nobody once it is taken down."""
        with cls._lock:
            return f"{WATCH_DOMAIN}{next(cls._domains)}"


def peer_key(frame: zmq.Frame) -> str | None:
    """The sender's CURVE public key (z85 text) of a frame received with ``copy=False`` on a
    CURVE server socket with a ZAP handler; None without CURVE (plain loopback play)."""
    return _frame_property(frame, "User-Id")


def peer_address(frame: zmq.Frame) -> str | None:
    """The sender's IP address of a frame received with ``copy=False`` (throttle key)."""
    return _frame_property(frame, "Peer-Address")


def _frame_property(frame: zmq.Frame, name: str) -> str | None:
    try:
        value = frame.get(name)
    except (zmq.ZMQError, KeyError):
        return None
    return value or None
