"""A host's secrets: its CURVE key pair, and the secrets file written beside its journal (room
code, keys, LAN name; the seats' tokens and round secrets follow) so a crash can be resumed as
the same table."""

from __future__ import annotations

from typing import Any

from lan_demon.commands.errors import UsageError


def host_keys() -> Any:
    from lan_demon.net.security import new_keypair
    try:
        return new_keypair()
    except RuntimeError as err:  # a libzmq without CURVE
        raise UsageError(f"{err} (use --no-secure)") from None


def keep_secrets(journal: str | None, code: str | None, keys: Any, name: str | None,
                 lan: bool) -> Any:
    """A journaled table: write its secrets file beside the journal (0600) before the journal's
    first record — its code and keys, if any; the seats' tokens and the round secrets follow
    as they come — so a crash at any moment can be resumed as the same table, and a stale file
    of another match is never taken for this one's. Returns the secrets file's path, or None
    without a journal."""
    from lan_demon.net.secrets_file import HostSecrets, write_secrets
    if journal is None:
        return None
    return write_secrets(journal, HostSecrets(code, keys, name, lan))
