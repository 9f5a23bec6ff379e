"""The match journal: every canonical event, appended as it is committed — enough to replay the
match, and enough for a restarted arbiter to take it up again (:mod:`lan_demon.net.recovery`).

A journal is a stream of msgpack maps, one per record, each flushed as it is written. The
arbiter writes a record *before* it publishes the event the record describes (the outbox of a
step is sent only after the step has returned), so nothing a client has seen is missing from the
journal. Flushed records are in the operating system's hands: they survive the arbiter process
being killed, but not a power cut (the file is not ``fsync``-ed, which would cost a disk round
trip per move).

Records, by ``j``:

* ``host`` — first: ``config`` (game, players, rounds, seed, options, fairness_ms, countdown,
  pause, turn_timeout), ``port`` and ``pub_port`` bound, ``v`` the journal version (1),
  ``coded`` whether a room code was needed and, on an encrypted table, ``key`` its CURVE public
  key — never the code or the secret key: a journal may be shared to replay a match, so those
  stay in the secrets file beside it (:class:`lan_demon.net.recovery.HostSecrets`);
* ``seat`` ``{seat, name, token, bot, key?}`` — a seat taken in the lobby, ``key`` the CURVE
  public key that took it (encrypted tables only), which a resumed arbiter binds the seat to
  again; ``leave`` ``{seat}`` — a seat said leave (in the lobby the seats after it move up one);
  ``ready`` ``{seat}``;
* ``seq`` ``{upto}`` — every update number handed out so far is at most ``upto`` (written
  before the first number above the last mark is used), so a resumed arbiter numbers on above
  anything a client has seen;
* ``match`` ``{game, seed, players, options, rounds}`` — the match started;
* ``countdown`` ``{round}`` — the countdown to a round's Go began;
* ``round`` ``{round, setup}`` — a round was dealt (from the seed: the deal itself is not
  stored, since the seed and round number make it again);
* ``move`` ``{seq, round, seat, move}`` — a committed move (seat -1: the table);
* ``round_end`` ``{round, result}`` and ``match_end`` ``{result}``;
* ``resumed`` ``{port, pub_port, torn}`` — an arbiter took the match up again from here.

Journals written before the ``host`` record existed begin with ``match``; they replay as before
but cannot be resumed (they hold no seats). Replaying deals each round from the seed and applies
the moves in order with the engine, so a replay checks the journal as much as it reads it: a move
that does not apply, or a round whose scores differ from the ones recorded, is reported.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

import msgpack

from lan_demon.games import GameError, Match, RoundResult, get_game
from lan_demon.net.security import is_public_key

VERSION = 1


class JournalError(GameError):
    """A journal that cannot be read or does not replay."""


class JournalWriter:
    """Appends records to a file, flushing each so a crash loses at most the one being written.

    ``keep``: cut the file to this many bytes first — a resumed arbiter drops a torn last record
    so that what it appends follows the last whole one."""

    def __init__(self, path: str | Path, keep: int | None = None):
        self.path = Path(path)
        try:
            if keep is not None:
                os.truncate(self.path, keep)
            self._file: BinaryIO = open(self.path, "ab")
        except OSError as err:
            raise JournalError(f"cannot write the journal {str(path)!r}: {err.strerror}") \
                from None
        self._packer = msgpack.Packer(use_bin_type=True)

    def write(self, record: dict[str, Any]) -> None:
        self._file.write(self._packer.pack(record))
        self._file.flush()

    def close(self) -> None:
        self._file.close()


@dataclass
class JournalRead:
    records: list[dict[str, Any]]
    torn: bool = False  # the last record was cut off mid-write and was left out
    size: int = 0  # bytes of the whole records (where a torn one begins)


FIRST = ("host", "match")  # the kinds a journal may begin with (match: older journals)


def read_journal(path: str | Path) -> JournalRead:
    """Every whole record of a journal; a torn last record is left out and flagged."""
    try:
        data = Path(path).read_bytes()
    except OSError as err:
        raise JournalError(f"cannot read the journal {str(path)!r}: {err.strerror}") from None
    unpacker = msgpack.Unpacker(raw=False, strict_map_key=True)
    unpacker.feed(data)
    records: list[dict[str, Any]] = []
    size = 0  # where the last whole record ends (tell() after a partial one is past it)
    try:
        for record in unpacker:
            if not isinstance(record, dict) or "j" not in record:
                raise JournalError(f"{path}: record {len(records) + 1} is not a journal record")
            records.append(record)
            size = unpacker.tell()
    except (msgpack.ExtraData, msgpack.FormatError, msgpack.StackError, ValueError) as err:
        if isinstance(err, JournalError):
            raise
        raise JournalError(f"{path}: not a lan_demon journal ({type(err).__name__})") from None
    if not records or records[0].get("j") not in FIRST:
        raise JournalError(f"{path}: not a lan_demon journal (no host or match record first)")
    for number, record in enumerate(records, 1):
        check(record, number, path)
    return JournalRead(records, size < len(data), size)


@dataclass
class Replay:
    """A replayed match: the match itself and, per round, the number of moves."""

    match: Match
    moves: list[int] = field(default_factory=list)
    unfinished: Any = None  # the state of a round the journal ends in the middle of
    torn: bool = False
    last: Any = None  # the state of the last round dealt, finished or not
    result: dict[str, Any] | None = None  # the match_end record's result, if any


_CONFIG = (dict,)
_INT = (int,)

#: The fields each record must have, with their types.
_FIELDS: dict[str, dict[str, tuple[type, ...]]] = {
    "host": {"config": _CONFIG, "port": _INT, "pub_port": _INT},
    "seat": {"seat": _INT, "name": (str,), "token": (str,), "bot": (bool,)},
    "leave": {"seat": _INT},
    "ready": {"seat": _INT},
    "seq": {"upto": _INT},
    "match": {"game": (str,), "seed": (int, str), "players": (list,),
              "options": (dict, type(None)), "rounds": (int, type(None))},
    "countdown": {"round": _INT},
    "round": {"round": _INT},
    "move": {"round": _INT, "seat": _INT, "move": (dict,)},
    "round_end": {"round": _INT, "result": (dict,)},
    "match_end": {"result": (dict,)},
    "resumed": {"port": _INT, "pub_port": _INT},
}

#: Fields a record may leave out (journals of plain tables, older journals), with their types
#: when present. A ``key`` must be a z85 CURVE public key.
_OPTIONAL: dict[str, dict[str, tuple[type, ...]]] = {
    "host": {"coded": (bool,), "key": (str,)},
    "seat": {"key": (str,)},
    "leave": {"away": (bool,)},  # a leave during the match: the seat is kept, away
}


def check(record: dict[str, Any], number: int, path: Any) -> None:
    """Refuse a record of an unknown kind or with a field missing or of the wrong type."""
    fields = _FIELDS.get(record["j"])
    if fields is None:
        raise JournalError(f"{path}: record {number} has an unknown kind {record['j']!r}")
    for name, types in fields.items():
        value = record.get(name)
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
            raise JournalError(f"{path}: record {number} ({record['j']}) has a bad or missing "
                               f"field {name!r}")
    for name, types in _OPTIONAL.get(record["j"], {}).items():
        value = record.get(name)
        if value is None:
            continue
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in types) \
                or (name == "key" and not is_public_key(value)):
            raise JournalError(f"{path}: record {number} ({record['j']}) has a bad field "
                               f"{name!r}")
    if record["j"] == "match" and not all(isinstance(p, str) for p in record["players"]):
        raise JournalError(f"{path}: the match record's players are not names")


class MatchFold:
    """The match as its records tell it, record by record: the part of a journal that replay
    and resume share. Records that are not about the match itself are ignored here."""

    def __init__(self, path: Any = "journal"):
        self.path = path
        self.replay: Replay | None = None
        self.state: Any = None  # the round in progress, if any

    @property
    def match(self) -> Match | None:
        return self.replay.match if self.replay else None

    def feed(self, record: dict[str, Any]) -> None:
        try:
            handler = getattr(self, "_" + record["j"], None)
            if handler is not None:
                handler(record)
        except (KeyError, TypeError, ValueError) as err:
            if isinstance(err, GameError):
                raise
            raise JournalError(f"{self.path}: the journal does not replay "
                               f"({type(err).__name__}: {err})") from None

    def _match(self, record: dict[str, Any]) -> None:
        if self.replay is not None:
            raise JournalError(f"{self.path}: a second match record")
        game = get_game(record["game"])
        match = Match(game, list(record["players"]), record["seed"],
                      dict(record.get("options") or {}), rounds_wanted=record.get("rounds"))
        self.replay = Replay(match)

    def _need_match(self, what: str) -> Replay:
        if self.replay is None:
            raise JournalError(f"{self.path}: {what} before the match record")
        return self.replay

    def _round(self, record: dict[str, Any]) -> None:
        rep = self._need_match("a round")
        if record["round"] != rep.match.round_no:
            raise JournalError(f"{self.path}: round {record['round']} dealt where round "
                               f"{rep.match.round_no} was due")
        self.state = rep.last = rep.match.deal()
        rep.moves.append(0)

    def _move(self, record: dict[str, Any]) -> None:
        rep = self._need_match("a move")
        if self.state is None:
            raise JournalError(f"{self.path}: a move before any round was dealt")
        game = rep.match.game
        try:
            game.apply(self.state, record["seat"], game.move_from_data(record["move"]))
        except GameError as err:
            raise JournalError(f"{self.path}: move {record.get('seq')} does not replay: {err}") \
                from None
        rep.moves[-1] += 1

    def _round_end(self, record: dict[str, Any]) -> None:
        rep = self._need_match("a round end")
        game, state = rep.match.game, self.state
        if state is None or not game.round_over(state):
            raise JournalError(f"{self.path}: round {record['round']} ends in the journal but "
                               "not in the replay")
        result = game.round_result(state)
        if result.to_data() != RoundResult.from_data(record["result"]).to_data():
            raise JournalError(f"{self.path}: round {record['round']} replays to other scores")
        rep.match.record(result)
        self.state = None

    def _match_end(self, record: dict[str, Any]) -> None:
        self._need_match("the match end").result = record["result"]


def replay(path: str | Path) -> Replay:
    """Deal every round again from the seed, apply its moves, and check the recorded scores."""
    read = read_journal(path)
    fold = MatchFold(path)
    for record in read.records:
        fold.feed(record)
    if fold.replay is None:
        raise JournalError(f"{path}: the match never started (the journal ends in the lobby)")
    fold.replay.unfinished = fold.state
    fold.replay.torn = read.torn
    return fold.replay
