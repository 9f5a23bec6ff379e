"""Finding a table on the LAN (mDNS browsing, multicast) for ``join`` and ``bot`` without an
address: only here, and only then, does a player's command ask the LAN."""

from __future__ import annotations

from typing import Any

from lan_demon.commands.errors import LanError, UsageError
from lan_demon.commands.prompts import ask


def browse(seconds: float) -> list[Any]:
    """The compatible tables on the LAN (multicast: only when no address was given)."""
    from lan_demon.net import discovery
    try:
        tables = discovery.browse(seconds)
    except OSError as err:
        raise LanError(f"cannot ask the LAN for tables: {err}") from None
    found = [t for t in tables if t.compatible]
    if not found:
        other = f" ({len(tables)} of another protocol version)" if tables else ""
        raise LanError(f"no table answered within {seconds:g} s{other}; a host must run "
                       f"'lan-demon host --lan' — or join by address (HOST:PORT)")
    return found


def only_table(seconds: float) -> Any:
    """For a bot: the one table on the LAN; more than one must be named by address."""
    tables = browse(seconds)
    if len(tables) > 1:
        names = "; ".join(f"{t.name} at {t.endpoint}" for t in tables)
        raise UsageError(f"{len(tables)} tables answered ({names}): name one by its address")
    return tables[0]


def choose_table(seconds: float) -> Any:
    """For a person: list the tables, numbered, and ask which."""
    print(f"lan-demon: looking for tables on the LAN ({seconds:g} s)…", flush=True)
    tables = browse(seconds)
    for number, table in enumerate(tables, 1):
        print(f"{number:>3}. {table.line()}")
    answer = ask(f"table (1-{len(tables)}): ") if len(tables) > 1 else "1"
    if not answer.isdigit() or not 1 <= int(answer) <= len(tables):
        raise UsageError(f"not a table number: {answer!r}")
    table = tables[int(answer) - 1]
    if table.server_key:
        print(f"lan-demon: joining {table.name!r} at {table.endpoint}; its key fingerprint is "
              f"{table.fingerprint} — check it matches the host's screen", flush=True)
    else:
        print(f"lan-demon: joining {table.name!r} at {table.endpoint} (not encrypted)",
              flush=True)
    return table


def table_key(table: Any, given: str | None) -> str | None:
    """The key to join ``table`` with: the announced one, unless --key says otherwise — then
    the announcement is not the table the user meant (an impostor, or another table)."""
    if given is not None and given != table.server_key:
        raise UsageError(f"the table {table.name!r} announces another key than --key "
                         f"(fingerprint {table.fingerprint or 'none'}): not joining it")
    return table.server_key
