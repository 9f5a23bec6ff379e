"""Finding tables on the home network with zeroconf (mDNS / DNS-SD, what Bonjour and Avahi speak).

A host started with ``--lan`` registers one service of type :data:`SERVICE_TYPE`; its TXT record
says what a joiner needs before connecting (see :func:`encode_txt`):

====== =========================================================================
key    value
====== =========================================================================
v      the wire protocol version (:data:`lan_demon.net.codec.VERSION`)
game   the game id, e.g. ``racing-demon``
taken  seats taken
free   seats still free
code   ``1`` when a room code is needed to take a seat, else ``0``
key    the host's CURVE public key, z85 (only with ``--secure``)
pub    the PUB port for updates (the ROUTER port is the service's own port)
====== =========================================================================

Multicast leaves the machine, so nothing here runs unless a host asked for ``--lan`` (or a test
created its own network namespaces). The TXT helpers are pure and tested without a network;
:func:`announce` and :func:`browse` are the only functions that open zeroconf.
"""

from __future__ import annotations

import ipaddress
import logging
import queue
import secrets
import threading
import time
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from lan_demon.net.codec import VERSION
from lan_demon.net.security import fingerprint, is_public_key

SERVICE_TYPE = "_lan-demon._tcp.local."
NAME_LIMIT = 63  # bytes in a DNS label, the instance name's limit
RESOLVE_MS = 1000  # time allowed to resolve a table seen just before the browse ends
BROWSE_SECONDS = 3.0  # how long a browse listens when told no time (``hosts``, ``join``, ``bot``)
MOST_BROWSE_SECONDS = 60.0  # the longest browse those commands take

log = logging.getLogger(__name__)


class TxtError(ValueError):
    """A TXT record that is not a lan-demon table's (missing or malformed field)."""


@dataclass(frozen=True)
class TableInfo:
    """One table found on the network: where it is and what its TXT record says."""

    name: str
    address: str
    port: int
    game: str
    taken: int
    free: int
    code_needed: bool
    server_key: str | None = None  # z85 CURVE public key; None: the table is not encrypted
    pub_port: int | None = None
    version: int = VERSION

    @property
    def endpoint(self) -> str:
        return f"{self.address}:{self.port}"

    @property
    def seats(self) -> str:
        """``taken/total``, e.g. ``2/4``."""
        return f"{self.taken}/{self.taken + self.free}"

    @property
    def fingerprint(self) -> str | None:
        return fingerprint(self.server_key) if self.server_key else None

    @property
    def compatible(self) -> bool:
        """True when the table speaks our protocol version."""
        return self.version == VERSION

    def line(self) -> str:
        """One line for ``lan-demon hosts``."""
        parts = [self.name, self.endpoint, self.game, f"seats {self.seats}",
                 "code needed" if self.code_needed else "no code",
                 f"key {self.fingerprint}" if self.server_key else "not encrypted"]
        if not self.compatible:
            parts.append(f"protocol v{self.version}, not ours (v{VERSION})")
        return "  ".join(parts)


# --- TXT record: pure ----------------------------------------------------------------------

def encode_txt(game: str, taken: int, free: int, code_needed: bool,
               server_key: str | bytes | None = None, pub_port: int | None = None,
               version: int = VERSION) -> dict[str, str]:
    """The TXT properties of a table (all text, as DNS-SD wants ``key=value`` strings)."""
    if taken < 0 or free < 0:
        raise ValueError(f"seats cannot be negative: taken {taken}, free {free}")
    txt = {"v": str(version), "game": game, "taken": str(taken), "free": str(free),
           "code": "1" if code_needed else "0"}
    if server_key is not None:
        key = server_key.decode("ascii") if isinstance(server_key, bytes) else server_key
        if not is_public_key(key):
            raise ValueError(f"not a z85 CURVE public key: {key!r}")
        txt["key"] = key
    if pub_port is not None:
        txt["pub"] = str(pub_port)
    return txt


def decode_txt(properties: Mapping[Any, Any]) -> dict[str, Any]:
    """The TXT properties of a table, checked and typed; :class:`TxtError` when they are not a
    lan-demon table's. Takes zeroconf's ``{bytes: bytes | None}`` or plain ``{str: str}``."""
    text = {_text(k): _text(v) for k, v in properties.items()}
    fields = {"version": _number(text, "v"), "game": _required(text, "game"),
              "taken": _number(text, "taken"), "free": _number(text, "free"),
              "code_needed": _flag(text, "code")}
    key = text.get("key")
    if key is not None and not is_public_key(key):
        raise TxtError(f"key is not a z85 CURVE public key: {key!r}")
    fields["server_key"] = key
    fields["pub_port"] = _number(text, "pub") if text.get("pub") is not None else None
    if fields["pub_port"] is not None and not 0 < fields["pub_port"] < 65536:
        raise TxtError(f"pub is not a port: {fields['pub_port']}")
    return fields


def _text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            raise TxtError(f"not UTF-8: {value!r}") from None
    return str(value)


def _required(text: dict[str, str | None], key: str) -> str:
    value = text.get(key)
    if not value:
        raise TxtError(f"the TXT record has no {key!r}")
    return value


def _number(text: dict[str, str | None], key: str) -> int:
    value = _required(text, key)
    if not value.isdigit():
        raise TxtError(f"{key} is not a whole number: {value!r}")
    return int(value)


def _flag(text: dict[str, str | None], key: str) -> bool:
    value = _required(text, key)
    if value not in ("0", "1"):
        raise TxtError(f"{key} must be 0 or 1, not {value!r}")
    return value == "1"


def instance_name(text: str) -> str:
    """A table's name as a DNS-SD instance name: no dots or control characters, at most 63
    bytes of UTF-8 (cut at a character boundary), never empty."""
    clean = "".join(" " if ord(c) < 32 or ord(c) == 127 else c for c in text)
    clean = " ".join(clean.replace(".", "-").split())
    raw = clean.encode("utf-8")[:NAME_LIMIT]
    return raw.decode("utf-8", errors="ignore").strip() or "lan-demon table"


def table_from_service(full_name: str, addresses: Sequence[str], port: int | None,
                       properties: Mapping[Any, Any]) -> TableInfo:
    """A :class:`TableInfo` from what zeroconf resolved; TxtError when it is not a table."""
    if not addresses or port is None:
        raise TxtError(f"{full_name!r} has no IPv4 address or port")
    suffix = "." + SERVICE_TYPE
    name = full_name[:-len(suffix)] if full_name.endswith(suffix) else full_name
    return TableInfo(name=name, address=addresses[0], port=port, **decode_txt(properties))


def lan_addresses() -> list[str]:
    """This machine's IPv4 addresses a LAN can reach (not loopback, not link-local), read
    from the interfaces (no packet is sent). For ``host --lan``."""
    import ifaddr  # a dependency of zeroconf
    found: list[str] = []
    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            if not ip.is_IPv4:
                continue
            addr = ipaddress.IPv4Address(ip.ip)
            if not (addr.is_loopback or addr.is_link_local) and str(addr) not in found:
                found.append(str(addr))
    return found


# --- on the network: zeroconf ------------------------------------------------------------

class Announcer:
    """A registered table; :meth:`update` re-publishes the TXT as seats fill, :meth:`close`
    says goodbye (so browsers drop it at once) and closes zeroconf.

    Publishing blocks for a while (about half a second), too long for the arbiter's loop, so
    the loop calls :meth:`update_later`: a worker thread publishes the latest counts, skipping
    any that were overtaken while it was busy.
    """

    def __init__(self, zc: Any, info: Any, txt: dict[str, str]):
        self.zc, self.info, self.txt = zc, info, txt
        self._cond = threading.Condition()
        self._wanted: tuple[int, int] | None = None
        self._closing = False
        self._worker: threading.Thread | None = None

    @property
    def name(self) -> str:
        """The instance name as registered (zeroconf appends -2, -3… on a clash)."""
        return self.info.name[:-len("." + SERVICE_TYPE)]

    def update(self, taken: int, free: int) -> None:
        """Publish new seat counts now (blocking); everything else in the record stays."""
        txt = dict(self.txt, taken=str(taken), free=str(free))
        if txt == self.txt:
            return
        from zeroconf import ServiceInfo
        info = ServiceInfo(SERVICE_TYPE, self.info.name, port=self.info.port, properties=txt,
                           server=self.info.server, addresses=self.info.addresses)
        self.zc.update_service(info)
        self.info, self.txt = info, txt

    def update_later(self, taken: int, free: int) -> None:
        """Publish new seat counts from a worker thread; returns at once."""
        with self._cond:
            if self._closing:
                return
            self._wanted = (taken, free)
            if self._worker is None:
                self._worker = threading.Thread(target=self._publish, name="announce",
                                                daemon=True)
                self._worker.start()
            self._cond.notify()

    def _publish(self) -> None:
        while True:
            with self._cond:
                while self._wanted is None and not self._closing:
                    self._cond.wait()
                if self._closing:
                    return
                wanted, self._wanted = self._wanted, None
            try:
                self.update(*wanted)
            except Exception as err:  # a failed TXT update must not take the table down
                log.warning("could not update the announced seats: %s", err)

    def close(self) -> None:
        with self._cond:
            self._closing = True
            self._cond.notify()
        if self._worker is not None:
            self._worker.join(timeout=5)
        try:
            self.zc.unregister_service(self.info)
        finally:
            self.zc.close()

    def __enter__(self) -> Announcer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def announce(name: str, port: int, game: str, taken: int, free: int, code_needed: bool,
             addresses: Sequence[str], server_key: str | bytes | None = None,
             pub_port: int | None = None, interfaces: Sequence[str] | None = None) -> Announcer:
    """Register a table as :data:`SERVICE_TYPE` on the LAN: multicast, so only for ``--lan``.

    ``addresses`` are the IPv4 addresses published for the table (see :func:`lan_addresses`);
    zeroconf listens and sends only on ``interfaces`` (default: those same addresses). Blocks
    for the probing and first announcement (about 1.5 s). Raises ValueError for bad fields.
    """
    from zeroconf import IPVersion, ServiceInfo, Zeroconf
    if not addresses:
        raise ValueError("no address to announce: this machine has no LAN address")
    txt = encode_txt(game, taken, free, code_needed, server_key, pub_port)
    server = f"lan-demon-{secrets.token_hex(4)}.local."  # never clashes with the host's name
    info = ServiceInfo(SERVICE_TYPE, f"{instance_name(name)}.{SERVICE_TYPE}", port=port,
                       properties=txt, server=server, parsed_addresses=list(addresses))
    zc = Zeroconf(interfaces=list(interfaces or addresses), ip_version=IPVersion.V4Only)
    try:
        zc.register_service(info, allow_name_change=True)
    except BaseException:
        zc.close()
        raise
    return Announcer(zc, info, txt)


class _Collector:
    """A ServiceListener that hands (event, name) pairs to the browsing thread."""

    def __init__(self) -> None:
        self.events: queue.SimpleQueue[tuple[str, str]] = queue.SimpleQueue()

    def add_service(self, zc: Any, type_: str, name: str) -> None:
        self.events.put(("seen", name))

    def update_service(self, zc: Any, type_: str, name: str) -> None:
        self.events.put(("seen", name))

    def remove_service(self, zc: Any, type_: str, name: str) -> None:
        self.events.put(("gone", name))


def browse(timeout: float = BROWSE_SECONDS, interfaces: Sequence[str] | None = None,
           enough: int | None = None) -> list[TableInfo]:
    """The tables that answer within ``timeout`` seconds, sorted by name: multicast, so only
    where the user asked for it (``lan-demon hosts``, ``join`` without an address).

    ``interfaces`` pins zeroconf to those IPv4 addresses (default: every interface). With
    ``enough``, return as soon as that many tables are resolved. A service of our type whose
    TXT record is not a table's is left out. A table seen at the last moment may take up to
    :data:`RESOLVE_MS` more to resolve.
    """
    from zeroconf import InterfaceChoice, IPVersion, ServiceBrowser, Zeroconf
    zc = Zeroconf(interfaces=list(interfaces) if interfaces else InterfaceChoice.All,
                  ip_version=IPVersion.V4Only)
    collector = _Collector()
    tables: dict[str, TableInfo] = {}
    try:
        browser = ServiceBrowser(zc, SERVICE_TYPE, collector)
        deadline = time.monotonic() + timeout
        try:
            while enough is None or len(tables) < enough:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                try:
                    event, name = collector.events.get(timeout=left)
                except queue.Empty:
                    break
                if event == "gone":
                    tables.pop(name, None)
                    continue
                table = _resolve(zc, name, max(left * 1000, RESOLVE_MS))
                if table is not None:
                    tables[name] = table
        finally:
            browser.cancel()
    finally:
        zc.close()
    return sorted(tables.values(), key=lambda t: (t.name, t.endpoint))


def _resolve(zc: Any, name: str, timeout_ms: float) -> TableInfo | None:
    from zeroconf import IPVersion, ServiceInfo
    info = ServiceInfo(SERVICE_TYPE, name)
    if not info.load_from_cache(zc) and not info.request(zc, timeout_ms):
        return None
    try:
        return table_from_service(name, info.parsed_addresses(IPVersion.V4Only), info.port,
                                  info.properties)
    except TxtError:
        return None
