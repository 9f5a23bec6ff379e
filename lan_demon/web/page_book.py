"""The browser seats a host holds, written down so that a host stopped and resumed
(``host --resume``) gives each page its seat back, as a terminal gets its own by the token it
keeps on disk.

A page keeps the gateway's token (localStorage); the gateway's client holds the arbiter's
session token. When the host process ends, the gateway and its clients end with it, and a
page coming back with its token found nobody who knew it: the phones of a resumed table were
sent to the lobby, their seats kept for people who could no longer take them. The book maps
each page's token to its seat's session token, name and role, in a file beside the journal
(mode 0600: a session token takes a seat, as the secrets file's own). On resume the gateway
reads it; a page with a token in it is seated again by that session token.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class PageBook:
    """page token -> {"session": arbiter token, "name": str, "role": "player"|"spectator"}."""

    path: Path
    entries: dict[str, dict[str, Any]] = field(default_factory=dict)

    @classmethod
    def open(cls, path: str | Path) -> PageBook:
        """The book at ``path``: what it holds, or empty (none yet, or unreadable — a page
        whose seat is not found is asked its name, as after 5 minutes away)."""
        book = cls(Path(path))
        try:
            data = json.loads(book.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return book
        if isinstance(data, dict):
            book.entries = {k: v for k, v in data.items() if isinstance(k, str) and
                            isinstance(v, dict) and isinstance(v.get("session"), str)}
        return book

    def get(self, token: str) -> dict[str, Any] | None:
        return self.entries.get(token)

    def put(self, token: str, session: str, name: str, role: str) -> None:
        self.entries[token] = {"session": session, "name": name, "role": role}
        self._write()

    def drop(self, token: str) -> None:
        if self.entries.pop(token, None) is not None:
            self._write()

    def _write(self) -> None:
        """Whole or not at all: a new file, 0600, renamed over the old one."""
        temp = self.path.with_name(self.path.name + ".new")
        try:
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump(self.entries, out)
            os.replace(temp, self.path)
        except OSError:
            pass  # a full disk: the seats still work; only a resume would not find them


def book_path(journal_path: str | Path) -> Path:
    """The book of a journaled match: beside its journal (``…journal.pages``)."""
    return Path(str(journal_path) + ".pages")
