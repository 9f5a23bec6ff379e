"""The match journal: every canonical event, appended as it is committed, enough to replay.

A journal is a stream of msgpack maps, one per record, each flushed as it is written:

* ``{"j": "match", "game", "seed", "players", "options", "rounds"}`` — once, first;
* ``{"j": "round", "round", "setup"}`` — a round was dealt (from the seed: the deal itself
  is not stored, since the seed and round number make it again);
* ``{"j": "move", "seq", "round", "seat", "move"}`` — a committed move (seat -1: the table);
* ``{"j": "round_end", "round", "result"}`` and ``{"j": "match_end", "result"}``.

Replaying deals each round from the seed and applies the moves in order with the engine, so a
replay checks the journal as much as it reads it: a move that does not apply, or a round whose
scores differ from the ones recorded, is reported.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

import msgpack

from lan_demon.games import GameError, Match, RoundResult, get_game


class JournalError(GameError):
    """A journal that cannot be read or does not replay."""


class JournalWriter:
    """Appends records to a file, flushing each so a crash loses at most the one being written."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        try:
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


def read_journal(path: str | Path) -> JournalRead:
    """Every whole record of a journal; a torn last record is left out and flagged."""
    try:
        data = Path(path).read_bytes()
    except OSError as err:
        raise JournalError(f"cannot read the journal {str(path)!r}: {err.strerror}") from None
    unpacker = msgpack.Unpacker(raw=False, strict_map_key=True)
    unpacker.feed(data)
    records: list[dict[str, Any]] = []
    try:
        for record in unpacker:
            if not isinstance(record, dict) or "j" not in record:
                raise JournalError(f"{path}: record {len(records) + 1} is not a journal record")
            records.append(record)
    except (msgpack.ExtraData, msgpack.FormatError, msgpack.StackError, ValueError) as err:
        if isinstance(err, JournalError):
            raise
        raise JournalError(f"{path}: not a lan_demon journal ({type(err).__name__})") from None
    torn = unpacker.tell() < len(data)
    if not records or records[0].get("j") != "match":
        raise JournalError(f"{path}: not a lan_demon journal (no match record first)")
    return JournalRead(records, torn)


@dataclass
class Replay:
    """A replayed match: the match itself and, per round, the number of moves."""

    match: Match
    moves: list[int] = field(default_factory=list)
    unfinished: Any = None  # the state of a round the journal ends in the middle of
    torn: bool = False


#: The fields each record must have, with their types.
_FIELDS: dict[str, dict[str, tuple[type, ...]]] = {
    "match": {"game": (str,), "seed": (int, str), "players": (list,),
              "options": (dict, type(None)), "rounds": (int, type(None))},
    "round": {"round": (int,)},
    "move": {"round": (int,), "seat": (int,), "move": (dict,)},
    "round_end": {"round": (int,), "result": (dict,)},
    "match_end": {"result": (dict,)},
}


def _check(record: dict[str, Any], number: int, path: Any) -> None:
    fields = _FIELDS.get(record["j"])
    if fields is None:
        raise JournalError(f"{path}: record {number} has an unknown kind {record['j']!r}")
    for name, types in fields.items():
        value = record.get(name)
        if not isinstance(value, types) or isinstance(value, bool):
            raise JournalError(f"{path}: record {number} ({record['j']}) has a bad or missing "
                               f"field {name!r}")
    if record["j"] == "match" and not all(isinstance(p, str) for p in record["players"]):
        raise JournalError(f"{path}: the match record's players are not names")


def replay(path: str | Path) -> Replay:
    """Deal every round again from the seed, apply its moves, and check the recorded scores."""
    read = read_journal(path)
    for number, record in enumerate(read.records, 1):
        _check(record, number, path)
    try:
        return _replay(read, path)
    except (KeyError, TypeError, ValueError) as err:
        if isinstance(err, GameError):
            raise
        raise JournalError(f"{path}: the journal does not replay ({type(err).__name__}: "
                           f"{err})") from None


def _replay(read: JournalRead, path: str | Path) -> Replay:
    head = read.records[0]
    game = get_game(head["game"])
    match = Match(game, list(head["players"]), head["seed"], dict(head.get("options") or {}),
                  rounds_wanted=head.get("rounds"))
    out = Replay(match, torn=read.torn)
    state = None
    for record in read.records[1:]:
        kind = record["j"]
        if kind == "round":
            state = match.deal()
            out.moves.append(0)
        elif kind == "move":
            if state is None:
                raise JournalError(f"{path}: a move before any round was dealt")
            try:
                game.apply(state, record["seat"], game.move_from_data(record["move"]))
            except GameError as err:
                raise JournalError(f"{path}: move {record.get('seq')} does not replay: {err}") \
                    from None
            out.moves[-1] += 1
        elif kind == "round_end":
            _end_round(game, match, state, record, path)
            state = None
    out.unfinished = state
    return out


def _end_round(game: Any, match: Match, state: Any, record: dict[str, Any], path: Any) -> None:
    if state is None or not game.round_over(state):
        raise JournalError(f"{path}: round {record['round']} ends in the journal but not in "
                           "the replay")
    result = game.round_result(state)
    if result.to_data() != RoundResult.from_data(record["result"]).to_data():
        raise JournalError(f"{path}: round {record['round']} replays to other scores")
    match.record(result)
