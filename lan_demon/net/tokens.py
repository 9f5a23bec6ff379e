"""Session tokens kept on disk, so a restarted ``lan-demon join`` or ``lan-demon bot`` takes
its seat back (the arbiter keeps a seat away for 5 minutes, TOKEN_LIFE) with no extra flag.

One small file per table (its normalized address) and name, under
``$XDG_STATE_HOME/lan_demon/tokens/`` (default ``~/.local/state/lan_demon/tokens/``): the
directories are 0700, the files 0600 — a token is a seat. A process holds the file's lock
(``flock``) while it uses the token, so a second process with the same name at the same table
takes a seat of its own instead of the first one's; the lock goes with the process.

At an encrypted table the seat is bound to the connection's CURVE key (a token alone is not
enough), so the client's key pair is kept beside the token: a restart speaks with the same key.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: no locks, a token is still kept
    fcntl = None  # type: ignore[assignment]


KEEP_SECONDS = 86400.0  # a stored token older than this is pruned (the arbiter's is 5 min)


def state_dir() -> Path:
    """Where lan_demon keeps per-user state (XDG base directory spec)."""
    base = os.environ.get("XDG_STATE_HOME") or ""
    root = Path(base) if os.path.isabs(base) else Path.home() / ".local" / "state"
    return root / "lan_demon"


def private_dir(path: Path) -> Path:
    """Make ``path`` a directory only its owner may enter (0700): every missing directory on
    the way — ``$XDG_STATE_HOME`` and its parents too — is made 0700 whatever the umask
    (``mkdir``'s mode is masked by it, so each is chmod-ed as it is made), and ``path`` itself
    is chmod-ed 0700 (it is lan_demon's own). Directories that already existed above it keep
    their mode: they are the user's. Raises OSError."""
    missing = []
    here = path
    while not os.path.lexists(here) and here != here.parent:
        missing.append(here)
        here = here.parent
    for folder in reversed(missing):
        try:
            os.mkdir(folder, 0o700)
        except FileExistsError:  # another process made it meanwhile
            continue
        os.chmod(folder, 0o700)
    os.chmod(path, 0o700)
    return path


def names_at(address: str, root: Path | None = None) -> list[str]:
    """The names this user holds a seat's token under at ``address`` (a normalized
    ``tcp://host:port``), sorted: a ``join`` that came back without its ``--name``, or with
    another case of it, is told the one its seat was taken with."""
    try:
        paths = list(((root or state_dir()) / "tokens").glob("*.json"))
    except OSError:
        return []
    entries = (_read_entry(path) for path in paths)
    return sorted({e["name"] for e in entries if e and e.get("address") == address
                   and isinstance(e.get("name"), str)})


def _read_entry(path: Path) -> dict:
    """A token file's entry: a map with a non-empty ``token``, else {} (missing, torn, not
    ours to read)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    token = data.get("token") if isinstance(data, dict) else None
    return data if isinstance(token, str) and token else {}


class TokenStore:
    """The token of one name at one table, read, saved and forgotten on disk."""

    def __init__(self, address: str, name: str, root: Path | None = None):
        self.address, self.name = address, name
        digest = hashlib.sha256(f"{address}\n{name}".encode()).hexdigest()[:32]
        self.dir = (root or state_dir()) / "tokens"
        self.path = self.dir / f"{digest}.json"
        self._lock: int | None = None

    def claim(self) -> tuple[bool, str | None]:
        """Lock the entry for this process: (False, None) when another process holds it
        (then this one should neither use nor save a token), else (True, the stored token or
        None)."""
        try:
            private_dir(self.dir.parent)
            private_dir(self.dir)
            fd = os.open(self.dir / f"{self.path.stem}.lock", os.O_RDWR | os.O_CREAT, 0o600)
        except OSError:
            return True, None  # no state directory to be had: play on without one
        if fcntl is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                return False, None
        self._lock = fd
        self._prune()
        return True, self.load()

    def _prune(self) -> None:
        """Tokens older than a day are of no table any more (a seat waits 5 minutes)."""
        cutoff = time.time() - KEEP_SECONDS
        try:
            for path in self.dir.glob("*.json"):
                if path.stat().st_mtime < cutoff:
                    path.unlink()
        except OSError:
            pass

    def load(self) -> str | None:
        return self._entry().get("token")

    def keys(self) -> tuple[str, str] | None:
        """The (public, secret) z85 CURVE key pair saved with the token, if any."""
        entry = self._entry()
        pair = entry.get("public"), entry.get("secret")
        return pair if all(isinstance(k, str) and len(k) == 40 for k in pair) \
            and entry.get("token") else None  # type: ignore[return-value]

    def _entry(self) -> dict:
        data = _read_entry(self.path)
        ours = data.get("address") == self.address and data.get("name") == self.name
        return data if ours else {}

    def save(self, token: str, keys: tuple[str, str] | None = None) -> None:
        """Write the token, and the connection's key pair at an encrypted table (0600,
        replaced whole so a reader never sees half of it)."""
        if not token:
            return
        entry = {"address": self.address, "name": self.name, "token": token}
        if keys is not None:
            entry["public"], entry["secret"] = keys
        try:
            private_dir(self.dir)
            tmp = self.dir / f"{self.path.stem}.{os.getpid()}.tmp"
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(entry, f)
            os.replace(tmp, self.path)
        except OSError:
            pass  # a seat still works; only a restart will not find it

    def forget(self) -> None:
        try:
            self.path.unlink()
        except OSError:
            pass

    def release(self) -> None:
        """Let another process (or a new client of this one) use the entry."""
        if self._lock is not None:
            os.close(self._lock)  # closing the descriptor drops its flock
            self._lock = None
