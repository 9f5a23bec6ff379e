"""The user's journal folder: where a host journals a match when it is not told where, what the
files are called, which match ``host --resume`` takes up when given no journal, and how many
old ones are kept.

* **The folder** is ``$XDG_STATE_HOME/lan_demon/journals/`` (default
  ``~/.local/state/lan_demon/journals/``), 0700 like every folder lan_demon makes
  (:func:`lan_demon.net.tokens.private_dir`); each journal is 0600 (the writer,
  :mod:`lan_demon.net.journal`), and so is its secrets file, ``<journal>.secret``, beside it.
* **A journal's name** is the table's (its game, or its LAN name) and the local time the host
  started, in letters, digits and ``-`` only: ``racko-2025-05-14-140205.journal``. The file is
  made with ``O_EXCL``; a second host started in the same second gets ``…-140205-2.journal``.
* **In use.** A host holds an exclusive ``flock`` on its journal while it runs (:func:`hold`,
  :func:`new_journal`): a journal another running host writes is never resumed, nor pruned. The
  lock goes with the process, so a crashed host's journal is free at once.
* **Unfinished** means: something to come back to — the journal has no ``match_end`` record,
  and its match started or its lobby has seats (:func:`unfinished`). ``host --resume`` with no
  journal takes up the unfinished one written last (the file's modification time: the last
  record), skipping journals that cannot be read (:class:`Found` says why) or are in use.
* **The bound.** Journals with nothing to resume (the match ended, or nobody sat down) are
  kept up to the newest :data:`KEEP_FINISHED`; older ones are deleted with their secrets files
  when a host starts a new journal here (:func:`prune`). An unfinished journal, one that cannot
  be read, and one in use are never deleted; a journal elsewhere (``--journal PATH``) is never
  touched.
"""

from __future__ import annotations

import glob
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lan_demon.net.journal import JournalError, JournalRead, read_journal, secret_path
from lan_demon.net.tokens import private_dir, state_dir

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: no locks; a journal is still written
    fcntl = None  # type: ignore[assignment]

#: Journals with nothing left to resume kept in the folder (the newest; older ones are pruned).
KEEP_FINISHED = 20
SUFFIX = ".journal"
_UNSAFE = re.compile(r"[^a-z0-9]+")


def folder(root: Path | None = None) -> Path:
    """Where a host journals when not told where (``root``: the state folder, for tests)."""
    return (root or state_dir()) / "journals"


def in_folder(path: str | Path, root: Path | None = None) -> bool:
    """Whether ``path`` is a journal of the folder (``--resume`` alone may find it)."""
    try:
        return Path(path).resolve().parent == folder(root).resolve()
    except OSError:
        return False


def file_name(table: str, when: float, number: int = 1) -> str:
    """``<table>-<YYYY-MM-DD-HHMMSS>[-N].journal``: the table's name in lower-case letters,
    digits and ``-`` (at most 40), the local time ``when`` (seconds since the epoch), and a
    number from the second file of the same second on."""
    safe = _UNSAFE.sub("-", table.lower()).strip("-")[:40].strip("-") or "table"
    stamp = time.strftime("%Y-%m-%d-%H%M%S", time.localtime(when))
    return f"{safe}-{stamp}{'' if number == 1 else f'-{number}'}{SUFFIX}"


class Held:
    """A journal this process writes, locked (``flock``) so that no other host resumes or
    prunes it while this one runs. ``made``: this process created the file (so a host that
    never served removes it again, :meth:`discard`)."""

    def __init__(self, path: Path, fd: int, made: bool):
        self.path, self.fd, self.made = path, fd, made

    def release(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)  # closing the descriptor drops the lock
            self.fd = -1

    def discard(self) -> None:
        """A host that never served: unlock, and remove the (empty) journal it made."""
        self.release()
        if self.made:
            for path in (self.path, secret_path(self.path)):
                try:
                    path.unlink()
                except OSError:
                    pass


def _lock(fd: int) -> bool:
    if fcntl is None:
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    return True


def _in_use_words(path: Path) -> str:
    return (f"{path} is the journal of a host that is still running: stop that host first "
            f"(Ctrl-C in its window), or resume another journal")


def new_journal(table: str, root: Path | None = None, now: float | None = None) -> Held:
    """A new, empty journal in the folder (0600, locked), named after ``table`` and the time.
    Raises :class:`JournalError` when the folder cannot be made or written."""
    where = folder(root)
    when = time.time() if now is None else now
    try:
        private_dir(where.parent)
        private_dir(where)
        for number in range(1, 1000):
            path = where / file_name(table, when, number)
            try:
                fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
            except FileExistsError:
                continue
            os.fchmod(fd, 0o600)  # whatever the umask
            _lock(fd)  # a file just made: nobody else holds it
            return Held(path, fd, made=True)
    except OSError as err:
        raise JournalError(f"cannot write a journal in {where}: {err.strerror}") from None
    raise JournalError(f"cannot write a journal in {where}: 999 journals of this second")


def hold(path: str | Path, create: bool = False) -> Held:
    """Lock the journal at ``path`` for this process (``create``: make it, 0600, if it is not
    there — a fresh host's ``--journal PATH``). A journal another running host holds is refused
    with a :class:`JournalError`."""
    path = Path(path)
    made = create and not os.path.lexists(path)
    try:
        fd = os.open(path, (os.O_RDWR | os.O_CREAT) if create else os.O_RDONLY, 0o600)
    except OSError as err:
        verb = "write" if create else "read"
        raise JournalError(f"cannot {verb} the journal {str(path)!r}: {err.strerror}") from None
    if not _lock(fd):
        os.close(fd)
        raise JournalError(_in_use_words(path))
    return Held(path, fd, made)


def in_use(path: Path) -> bool:
    """Whether a running host holds the journal at ``path``."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        return not _lock(fd)
    finally:
        os.close(fd)  # and with it the lock this look took


def unfinished(records: list[dict[str, Any]]) -> bool:
    """Something to come back to: no ``match_end``, and a match started or a lobby with seats
    (a ``seat`` record not undone by a ``leave`` in the lobby)."""
    started, seated = False, 0
    for record in records:
        kind = record["j"]
        if kind == "match_end":
            return False
        if kind == "match":
            started = True
        elif not started and kind == "seat":
            seated += 1
        elif not started and kind == "leave" and not record.get("away"):
            seated -= 1
    return started or seated > 0


@dataclass
class Found:
    """One journal of the folder as :func:`survey` found it. ``state``: ``unfinished``,
    ``finished`` (nothing to resume: its match ended, or nobody sat down), ``unreadable``
    (``words`` says why) or ``in use`` (a running host writes it)."""

    path: Path
    mtime: float
    state: str
    read: JournalRead | None = None
    words: str = ""

    @property
    def order(self) -> tuple[float, str]:
        """Newest last: the last write, then the name (which holds the start time)."""
        return self.mtime, self.path.name


def survey(root: Path | None = None, mine: str | Path | None = None) -> list[Found]:
    """Every journal of the folder, oldest first. ``mine``: the journal this process holds
    (not "in use" for its own questions)."""
    mine_path = Path(mine).resolve() if mine is not None else None
    try:
        paths = list(folder(root).glob(f"*{SUFFIX}"))
    except OSError:
        return []
    found = []
    for path in paths:
        try:
            mtime = path.stat().st_mtime
        except OSError:
            continue  # pruned or moved meanwhile
        if path.resolve() != mine_path and in_use(path):
            found.append(Found(path, mtime, "in use"))
            continue
        try:
            read = read_journal(path)
        except JournalError as err:
            found.append(Found(path, mtime, "unreadable", words=err.words))
            continue
        if read.records[0]["j"] != "host" or read.unchained:
            found.append(Found(path, mtime, "unreadable", read, "written by an older "
                               "lan-demon, it cannot be resumed"))
            continue
        state = "unfinished" if unfinished(read.records) else "finished"
        found.append(Found(path, mtime, state, read))
    return sorted(found, key=lambda f: f.order)


def latest_unfinished(found: list[Found]) -> Found | None:
    """The unfinished journal written last, of a :func:`survey`."""
    candidates = [f for f in found if f.state == "unfinished"]
    return candidates[-1] if candidates else None


def prune(root: Path | None = None, keep: int = KEEP_FINISHED) -> list[Path]:
    """Delete the journals with nothing to resume beyond the newest ``keep``, each with its
    companion files (``<journal>.secret``, ``<journal>.pages``); returns those deleted. Unfinished, unreadable and in-use journals stay."""
    finished = [f for f in survey(root) if f.state == "finished"]
    gone = []
    for old in finished[:max(0, len(finished) - keep)]:
        if in_use(old.path):  # resumed (to tell its result) since the survey
            continue
        try:
            old.path.unlink()
        except OSError:
            continue
        gone.append(old.path)
        # Its companions beside it: the secrets file, and the browser seats' book (web).
        for companion in [secret_path(old.path), *old.path.parent.glob(
                glob.escape(old.path.name) + ".*")]:
            try:
                companion.unlink()
            except OSError:
                pass
    return gone


def describe(read: JournalRead) -> str:
    """A journal's match in a few words: ``Rack-O (Ann, Bob), round 3 of 5 under way``."""
    from lan_demon.games import GameError, get_game
    records = read.records
    game = records[0]["config"].get("game", "?")
    try:
        title = get_game(game).title
    except GameError:
        title = str(game)
    match = next((r for r in records if r["j"] == "match"), None)
    if match is None:
        seated: list[str] = []
        for record in records:
            if record["j"] == "seat":
                seated.append(record["name"])
            elif record["j"] == "leave" and not record.get("away") and \
                    0 <= record["seat"] < len(seated):
                del seated[record["seat"]]
        return f"{title}, in the lobby (seated: {', '.join(seated) or 'nobody'})"
    names = ", ".join(str(p) for p in match["players"])
    of = f" of {match['rounds']}" if match.get("rounds") else ""
    dealt = max((r["round"] + 1 for r in records if r["j"] == "round"), default=0)
    ended = max((r["round"] + 1 for r in records if r["j"] == "round_end"), default=0)
    if dealt > ended:
        where = f"round {dealt}{of} under way"
    else:
        where = f"{ended} round{'' if ended == 1 else 's'} played{of}"
    return f"{title} ({names}), {where}"


def when_words(mtime: float, now: float | None = None) -> str:
    """``14:02`` today, else ``14:02 on Mon 12 May``."""
    then, today = time.localtime(mtime), time.localtime(time.time() if now is None else now)
    clock = time.strftime("%H:%M", then)
    if then[:3] == today[:3]:
        return clock
    return f"{clock} on {time.strftime('%a %d %b', then)}"
