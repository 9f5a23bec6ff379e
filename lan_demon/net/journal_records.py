"""The kinds of record a match journal holds (:mod:`lan_demon.net.journal`), the fields each
must have, and the one error for a journal that cannot be read: what a record *says*, apart
from how records are written to and read from the file.

Records, by ``j``:

* ``host`` — first: ``config``, every setting of the table in its one written form
  (:meth:`lan_demon.net.settings.Settings.to_data`: version 3; version 2 wrote ``seed`` where
  3 writes ``dealing``, and no brake, which :data:`lan_demon.net.settings.MIGRATIONS` supplies),
  ``port`` and ``pub_port`` bound, ``v`` the journal version (4: each record ends with its
  checksum, :mod:`lan_demon.net.journal_frames`),
  ``coded`` whether a room code was needed and, on an encrypted table, ``key`` its CURVE public
  key — never the code or the secret key: a journal may be shared to replay a match, so those
  stay in the secrets file beside it (:class:`lan_demon.net.secrets_file.HostSecrets`);
* ``seat`` ``{seat, name, bot, key?}`` — a seat taken in the lobby, ``key`` the CURVE
  public key that took it (encrypted tables only), which a resumed arbiter binds the seat to
  again. Its session token is not here (version 1 had it): it is kept in the secrets file, by
  the seat record's ordinal (:meth:`JournalWriter.keep_token`); ``leave`` ``{seat, away?}`` —
  a seat said leave (in the lobby the seats after it move up one; ``away`` during the match,
  written the first time the seat steps out in the match only: all a resume needs);
  ``ready`` ``{seat}`` — a seat that was not ready said so (ready again writes nothing);
* ``seq`` ``{upto}`` — every update number handed out so far is at most ``upto`` (written
  before the first number above the last mark is used), so a resumed arbiter numbers on above
  anything a client has seen;
* ``match`` ``{game, seed, players, options, rounds}`` — the match started;
* ``countdown`` ``{round, commit, commits, words, seeded}`` — the countdown to a round's Go
  began, under that host commitment and those players' commitments and check words (a second
  one for the same round under another ``commit`` is a host giving itself a second chance:
  ``verify`` fails it);
* ``commit`` ``{seat, round, hash, ok?, fail?}`` — a seat's nonce commitment for a round (with
  its check words' hashes) was acknowledged (``ok``), when it differs from the one the seat
  had (at most 8 a seat and round); ``reveal`` ``{seat, round, nonce}`` — its
  nonce was taken in the countdown (so a host that crashes in a countdown deals the round with
  it, and a resumed one lists the commitments acknowledged before the crash; ``verify`` finds
  a countdown that leaves out one acknowledged since the last ``resumed`` record);
* ``round`` ``{round, setup, commit?, commits?, words?, nonces?, seeded?, hash?}`` — a round
  was dealt: from the seed when ``seeded`` is true or there is no ``commit``, otherwise from
  the host secret the ``round_end`` record reveals and the players' ``nonces`` ([[seat, hex],
  …]); ``hash`` the deal's fingerprint published at Go (PROTOCOL.md §22.4);
* ``move`` ``{seq, round, seat, move, at, ts?}`` — a committed move (seat -1: the table), ``at``
  its arrival on the arbiter's clock, ``ts`` the time its client claimed, as sent;
* ``refused`` ``{round, seat, move, at, ts, code, rule?, by?, ms?, top?}`` — a move refused in
  play (``illegal``, ``beaten``, ``bad_move``); a race lost (RD-11) names the winner ``by``
  and, when it was a race in time, ``ms`` earlier and the stack's ``top`` card before. At
  most :data:`lan_demon.net.race.REFUSED_PER_ROUND` (256) of each seat in each round: the
  rest are answered as ever and not journaled (PROTOCOL.md §2, Bounds), so a seat sending
  refused moves as fast as the brake lets it cannot fill the disk; ``verify`` checks each one
  written, and the coach's review reads the races lost among them;
* ``round_end`` ``{round, result, secret?}`` and ``match_end`` ``{result}``;
* ``resumed`` ``{port, pub_port, torn, at?}`` — an arbiter took the match up again from here.
* ``dispute`` ``{seat, round, reason}`` — a seat's client found a round's deal not the one
  committed to (PROTOCOL.md §22); ``verify`` re-derives the deal itself either way;
* ``check`` ``{seat, round, word, reason?}`` — a seat's check of a finished round, published:
  one of the two words its commitment promised (§22.6).
* ``pause`` ``{by, at}`` and ``resume`` ``{by, at, paused}`` — the host (``by`` -1) or the
  captain stopped every clock of the table, and started them again ``paused`` seconds later
  (PROTOCOL.md §24); no move is committed between them, and RD-13's minute does not count
  the pause; ``remove`` ``{seat, by, at}`` — the seat was given up for good: its token no
  longer takes it back (a resumed host keeps it removed, and a pause paused); with ``bot``
  (a level) and ``name`` the seat was handed to a bot instead, renamed ``name``: its new
  token is kept in the secrets file by the ordinal of the records that give tokens (``seat``
  records and these), the person's old one no longer takes it back.
"""

from __future__ import annotations

from typing import Any

from lan_demon.games import GameError
from lan_demon.net.security import is_public_key


class JournalError(GameError):
    """A journal that cannot be read or does not replay. ``number`` and ``kind``: the record
    it is about, when it is about one; ``words``: the problem without the journal's name."""

    def __init__(self, message: str, number: int | None = None, kind: str | None = None,
                 words: str | None = None):
        super().__init__(message)
        self.number, self.kind, self.words = number, kind, words or message


def fail(path: Any, number: int, record: dict[str, Any], words: str) -> None:
    raise JournalError(f"{path}: record {number} ({record.get('j')}): {words}", number,
                       record.get("j"), words)



_CONFIG = (dict,)
_INT = (int,)

#: The fields each record must have, with their types.
_FIELDS: dict[str, dict[str, tuple[type, ...]]] = {
    "host": {"config": _CONFIG, "port": _INT, "pub_port": _INT},
    "seat": {"seat": _INT, "name": (str,), "bot": (bool,)},
    "leave": {"seat": _INT},
    "ready": {"seat": _INT},
    "seq": {"upto": _INT},
    "match": {"game": (str,), "seed": (int, str, type(None)), "players": (list,),
              "options": (dict, type(None)), "rounds": (int, type(None))},
    "countdown": {"round": _INT},
    "commit": {"seat": _INT, "round": _INT, "hash": (str,)},
    "reveal": {"seat": _INT, "round": _INT, "nonce": (str,)},
    "round": {"round": _INT},
    "move": {"round": _INT, "seat": _INT, "move": (dict,)},
    "refused": {"round": _INT, "seat": _INT, "move": (dict,), "code": (str,)},
    "round_end": {"round": _INT, "result": (dict,)},
    "match_end": {"result": (dict,)},
    "resumed": {"port": _INT, "pub_port": _INT},
    "dispute": {"seat": _INT, "round": _INT, "reason": (str,)},  # a client's failed check
    "check": {"seat": _INT, "round": _INT},  # a seat's check, published: word or lost
    "pause": {"by": _INT, "at": (int, float)},  # §24: the host (-1) or the captain paused
    "resume": {"by": _INT, "at": (int, float), "paused": (int, float)},
    "remove": {"seat": _INT, "by": _INT, "at": (int, float)},
}

KINDS = frozenset(_FIELDS)  # every kind of record a journal may hold

#: Fields a record may leave out (journals of plain tables, older journals), with their types
#: when present. A ``key`` must be a z85 CURVE public key.
_TIME = (int, float)
_OPTIONAL: dict[str, dict[str, tuple[type, ...]]] = {
    "host": {"coded": (bool,), "key": (str,)},
    "seat": {"key": (str,), "token": (str,)},  # token: version 1 only
    "leave": {"away": (bool,)},  # a leave during the match: the seat is kept, away
    "countdown": {"commit": (str,), "commits": (list,), "seeded": (bool,), "words": (list,)},
    "round": {"commit": (str,), "commits": (list,), "nonces": (list,), "seeded": (bool,),
              "at": _TIME, "hash": (str,), "words": (list,)},
    "commit": {"ok": (str,), "fail": (str,)},
    "check": {"word": (str,), "reason": (str,), "lost": (bool,)},
    "move": {"at": _TIME, "ts": _TIME},
    "refused": {"at": _TIME, "ts": _TIME, "rule": (str,), "by": _INT, "ms": _INT,
                "top": (str,)},
    "round_end": {"secret": (str,)},
    "resumed": {"at": _TIME},
    "remove": {"bot": _INT, "name": (str,)},  # §24: handed to a bot of that level, so named
}


def holds_token(record: Any) -> bool:
    """Whether a record gives a seat a session token, kept in the secrets file by the
    ordinal of such records (:meth:`JournalWriter.keep_token`): a ``seat``, and a ``remove``
    that handed the seat to a bot (its new token)."""
    return isinstance(record, dict) and (record.get("j") == "seat" or (
        record.get("j") == "remove" and "bot" in record))


def check(record: dict[str, Any], number: int, path: Any, version: int) -> None:
    """Refuse a record of an unknown kind or with a field missing or of the wrong type."""
    kind = record["j"]
    fields = _FIELDS.get(kind)
    if fields is None:
        fail(path, number, record, f"an unknown kind {kind!r}")
    for name, types in fields.items():
        value = record.get(name)
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
            fail(path, number, record, f"a bad or missing field {name!r} (the record was "
                  "damaged or edited)")
    for name, types in _OPTIONAL.get(kind, {}).items():
        value = record.get(name)
        if value is None:
            continue
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in types) \
                or (name == "key" and not is_public_key(value)):
            fail(path, number, record, f"a bad field {name!r}")
    if kind == "match" and not all(isinstance(p, str) for p in record["players"]):
        fail(path, number, record, "the match record's players are not names")
    if version >= 2 and kind == "seat" and "token" in record:
        fail(path, number, record, "a seat record holds a session token, which a version 2 "
              "journal never does (tokens stay in the secrets file): it was edited")
    if version < 2 and kind == "seat" and not isinstance(record.get("token"), str):
        fail(path, number, record, "a bad or missing field 'token'")
    if kind in ("round", "countdown"):
        for name in ("commits", "nonces"):
            if name in record and not _pairs(record[name]):
                fail(path, number, record, f"its {name} are not [seat, hex] pairs")


def _pairs(value: Any) -> bool:
    """A list of [seat, hex] pairs, as the ``round`` record's commits and nonces are."""
    try:
        return all(isinstance(p, list) and len(p) == 2 and isinstance(p[0], int)
                   and isinstance(p[1], str) and bytes.fromhex(p[1]) is not None
                   for p in value)
    except ValueError:
        return False
