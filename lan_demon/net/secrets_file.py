"""The secrets file beside a journal, ``<journal>.secret`` (mode 0600): what makes a resumed host
the *same* table and must never be in a journal that may be shared — the room code, the CURVE key
pair, the LAN name — and what only a resumed arbiter may have: the seats' session tokens and the
host secret of the round in progress (PROTOCOL.md §19, "No secrets in it"). The journal's writer
keeps it up to date (:class:`lan_demon.net.journal.JournalWriter`); crash recovery
(:mod:`lan_demon.net.recovery`) reads it back and checks it is the journal's own.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import zmq

from lan_demon.net.journal import JournalError, JournalRead, secret_path, write_private
from lan_demon.net.security import KeyPair, fingerprint, is_public_key


_SECRET_FIELDS = ("v", "code", "public", "secret", "name", "lan", "tokens", "round_secret")


@dataclass(frozen=True)
class HostSecrets:
    """What makes a resumed host the *same* table and must not be in a journal that may be
    shared: the room code, the CURVE key pair (the clients hold its public half and would not
    talk to another), on the LAN the table's announced name; and what a resumed arbiter needs
    and nobody else may have: the session tokens, by the ordinal of the records that give one
    (``seat`` records, and a ``remove`` that handed a seat to a bot; written by
    :meth:`~lan_demon.net.journal.JournalWriter.keep_token`), and the host secret of the round
    in progress, ``{round, secret}`` (:func:`keep_round_secret`)."""

    code: str | None = None
    keys: KeyPair | None = None
    name: str | None = None  # the table's name on the LAN (None: not announced)
    lan: bool = False  # bound every interface and announced with mDNS
    tokens: tuple[str | None, ...] = ()
    round_secret: dict[str, Any] | None = field(default=None, compare=False, hash=False)

    def to_data(self) -> dict[str, Any]:
        keys = self.keys
        return {"v": 1, "code": self.code, "public": keys.public.decode() if keys else None,
                "secret": keys.secret.decode() if keys else None, "name": self.name,
                "lan": self.lan, "tokens": list(self.tokens), "round_secret": self.round_secret}

    @classmethod
    def from_data(cls, data: Any, where: Any) -> HostSecrets:
        """Read back :meth:`to_data`, refusing anything else with a :class:`JournalError`."""
        if not isinstance(data, dict) or data.get("v") != 1 or set(data) - set(_SECRET_FIELDS):
            raise JournalError(f"{where}: not a lan-demon secrets file")
        code, public, secret, name = (data.get(k) for k in ("code", "public", "secret", "name"))
        if not (code is None or (isinstance(code, str) and code.isalnum())) \
                or not (name is None or isinstance(name, str)) \
                or not isinstance(data.get("lan", False), bool) \
                or (public is None) != (secret is None) \
                or not _tokens(data.get("tokens", [])) \
                or not _round_secret(data.get("round_secret")):
            raise JournalError(f"{where}: a secrets file with a bad field")
        keys = None
        if public is not None:
            keys = KeyPair(public.encode(), secret.encode()) \
                if isinstance(public, str) and isinstance(secret, str) else None
            if keys is None or not _pair(keys):
                raise JournalError(f"{where}: the secrets file's key pair is not a CURVE key "
                                   "pair")
        return cls(code, keys, name, bool(data.get("lan", False)),
                   tuple(data.get("tokens") or ()), data.get("round_secret"))


def _tokens(value: Any) -> bool:
    return isinstance(value, list) and all(t is None or isinstance(t, str) for t in value)


def _round_secret(value: Any) -> bool:
    if value is None:
        return True
    if not isinstance(value, dict) or set(value) != {"round", "secret"} \
            or not isinstance(value["round"], int) or not isinstance(value["secret"], str):
        return False
    try:
        return bool(bytes.fromhex(value["secret"]))
    except ValueError:
        return False


def _pair(keys: KeyPair) -> bool:
    """True when the secret key is the public key's other half."""
    if not is_public_key(keys.public.decode()) or len(keys.secret) != 40:
        return False
    try:
        return zmq.curve_public(keys.secret) == keys.public
    except (zmq.ZMQError, ValueError):
        return False


def write_secrets(journal: str | Path, secrets: HostSecrets) -> Path:
    """Write the secrets file of ``journal``, readable by its owner only (0600) from its first
    byte on: written to a new file made with that mode, flushed to disk, then renamed over any
    older one (:func:`lan_demon.net.journal.write_private`)."""
    path = secret_path(journal)
    write_private(path, json.dumps(secrets.to_data(), indent=1).encode("utf-8"))
    return path


def keep_round_secret(journal: str | Path, round_no: int, secret_hex: str) -> Path:
    """Keep the host secret of round ``round_no`` (hex) in the secrets file beside ``journal``
    (atomically, 0600), for a resumed arbiter to deal that round again while it is in progress.
    An arbiter with its journal attached does the same with ``Arbiter.keep_round_secret``,
    which goes through its :class:`~lan_demon.net.journal.JournalWriter` (and must be used
    while that writer is open, which keeps its own copy of the file)."""
    old = read_secrets(journal) or HostSecrets()
    data = {**old.to_data(), "round_secret": {"round": round_no, "secret": secret_hex}}
    path = secret_path(journal)
    write_private(path, json.dumps(data, indent=1).encode("utf-8"))
    return path


def read_secrets(journal: str | Path) -> HostSecrets | None:
    """The secrets kept beside ``journal``; None when there is no secrets file."""
    path = secret_path(journal)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as err:
        raise JournalError(f"cannot read the secrets file {str(path)!r}: "
                           f"{getattr(err, 'strerror', None) or err}") from None
    try:
        data = json.loads(text)
    except ValueError:
        raise JournalError(f"{path}: not a lan-demon secrets file") from None
    return HostSecrets.from_data(data, path)


def check_secrets(read: JournalRead, secrets: HostSecrets | None, path: Any) -> None:
    """Refuse to resume a table that cannot be the same one: a journal of a coded or encrypted
    table with no secrets file (its clients hold a code and a key nobody has any more), or a
    secrets file that is not this table's (another key, a code where none was, or none where
    one was)."""
    head = read.records[0]
    coded, key = bool(head.get("coded")), head.get("key")
    where = secret_path(path)
    if secrets is None:
        if coded or key:
            what = " and ".join(w for w, on in (("had a room code", coded),
                                                ("was encrypted", key)) if on)
            raise JournalError(f"{path}: the table {what}, but its secrets file {where} is "
                               "missing: a resumed host could not prove it is the same table")
        return
    public = secrets.keys.public.decode() if secrets.keys else None
    if public != key or coded != (secrets.code is not None):
        raise JournalError(f"{where} is not the secrets file of {path} (the journal's table "
                           f"{'had a' if coded else 'had no'} room code and "
                           f"{'key ' + fingerprint(key) if key else 'no key'}): remove it, or "
                           "resume the journal it belongs to")
