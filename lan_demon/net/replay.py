"""Replaying a journal: the match as its records tell it (:mod:`lan_demon.net.journal` reads and
checks the records; this module folds them into the match).

Replaying deals each round again and applies the moves in order with the engine, so a replay
checks the journal as much as it reads it: a move that does not apply, or a round whose scores
differ from the ones recorded, is reported. :class:`MatchFold` is the part that replay, resume
(:mod:`lan_demon.net.recovery`) and verify (:mod:`lan_demon.net.audit`) share.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lan_demon.games import GameError, Match, RoundResult, get_game
from lan_demon.net.journal import VERSION, JournalError, read_journal


@dataclass
class Replay:
    """A replayed match: the match itself and, per round, the number of moves."""

    match: Match
    moves: list[int] = field(default_factory=list)
    unfinished: Any = None  # the state of a round the journal ends in the middle of
    torn: bool = False
    last: Any = None  # the state of the last round dealt, finished or not
    result: dict[str, Any] | None = None  # the match_end record's result, if any
    unchained: bool = False  # a version 1 journal: its records carry no chain to check


def legacy_rng(seed: int | str, round_no: int) -> random.Random:
    """How a version 1 journal's rounds were dealt: CPython's ``random``, seeded with the match
    seed and round (any other Python's shuffle may deal otherwise: only the spec'd deal of
    version 2 is the same everywhere)."""
    return random.Random(f"lan_demon:{seed}:{round_no}")


class MatchFold:
    """The match as its records tell it, record by record: the part of a journal that replay,
    resume and verify share. Records that are not about the match itself are ignored here.

    ``version``: the journal's (1: rounds dealt with :func:`legacy_rng`). ``secrets``: the host
    secret (hex) of each round not dealt from the seed, by round — the ``round_end`` records
    reveal them (:func:`revealed_secrets`); a resumed round in progress takes its own from the
    secrets file."""

    def __init__(self, path: Any = "journal", version: int = VERSION,
                 secrets: dict[int, str] | None = None):
        self.path = path
        self.version = version
        self.secrets = dict(secrets or {})
        self.replay: Replay | None = None
        self.state: Any = None  # the round in progress, if any
        self.round_record: dict[str, Any] | None = None  # its ``round`` record
        self.events: list[dict[str, Any]] = []  # what the last move did (its engine events)

    @property
    def match(self) -> Match | None:
        return self.replay.match if self.replay else None

    def fail(self, words: str) -> None:
        raise JournalError(f"{self.path}: {words}", words=words)

    def feed(self, record: dict[str, Any]) -> None:
        try:
            handler = getattr(self, "_" + record["j"], None)
            if handler is not None:
                handler(record)
        except (KeyError, TypeError, ValueError) as err:
            if isinstance(err, GameError):
                raise
            self.fail(f"the journal does not replay ({type(err).__name__}: {err})")

    def _match(self, record: dict[str, Any]) -> None:
        if self.replay is not None:
            self.fail("a second match record")
        game = get_game(record["game"])
        match = Match(game, list(record["players"]), record["seed"],
                      dict(record.get("options") or {}), rounds_wanted=record.get("rounds"))
        self.replay = Replay(match)

    def _remove(self, record: dict[str, Any]) -> None:
        """A seat handed to a bot (``bot``) plays on renamed: the match's result names it so
        (PROTOCOL.md §24), as the arbiter's did."""
        if "bot" in record and self.replay is not None and \
                0 <= record["seat"] < len(self.replay.match.players):
            self.replay.match.rename(record["seat"], record["name"])

    def _need_match(self, what: str) -> Replay:
        if self.replay is None:
            self.fail(f"{what} before the match record")
        assert self.replay is not None
        return self.replay

    def _round(self, record: dict[str, Any]) -> None:
        rep = self._need_match("a round")
        match = rep.match
        if record["round"] != match.round_no:
            self.fail(f"round {record['round'] + 1} dealt where round {match.round_no + 1} was due")
        if self.version < 2:
            self.state = match.game.deal(match.setup, legacy_rng(match.seed, match.round_no))
        elif seeded(record):
            self.state = match.deal()
        else:
            secret = self.secrets.get(record["round"])
            if secret is None:
                self.fail(f"round {record['round'] + 1} was dealt from a host secret that neither "
                          "the journal (its round_end) nor the secrets file holds: it cannot "
                          "be dealt again")
            self.state = match.deal(bytes.fromhex(secret), nonces_of(record))
        rep.last = self.state
        self.round_record = record
        rep.moves.append(0)

    def _move(self, record: dict[str, Any]) -> None:
        rep = self._need_match("a move")
        if self.state is None:
            self.fail("a move before any round was dealt")
        game = rep.match.game
        try:
            self.events = game.apply(self.state, record["seat"],
                                     game.move_from_data(record["move"]))
        except GameError as err:
            self.fail(f"move {record.get('seq')} does not replay: {err}")
        rep.moves[-1] += 1

    def _round_end(self, record: dict[str, Any]) -> None:
        rep = self._need_match("a round end")
        game, state = rep.match.game, self.state
        if state is None or not game.round_over(state):
            self.fail(f"round {record['round'] + 1} ends in the journal but not in the replay")
        result = game.round_result(state)
        if result.to_data() != RoundResult.from_data(record["result"]).to_data():
            self.fail(f"round {record['round'] + 1} replays to other scores")
        rep.match.record(result)
        self.state = None

    def _match_end(self, record: dict[str, Any]) -> None:
        self._need_match("the match end").result = record["result"]


def seeded(round_record: dict[str, Any]) -> bool:
    """Whether a ``round`` record's deal comes from the match seed: it says so, or it names no
    commitment (journals written before commit and reveal)."""
    if "seeded" in round_record:
        return bool(round_record["seeded"])
    return "commit" not in round_record


def nonces_of(round_record: dict[str, Any]) -> dict[int, bytes]:
    """The players' nonces a ``round`` record says were mixed into its deal."""
    return {int(seat): bytes.fromhex(nonce) for seat, nonce in round_record.get("nonces") or []}


def revealed_secrets(records: list[dict[str, Any]]) -> dict[int, str]:
    """Each round's host secret as its ``round_end`` record reveals it, by round."""
    return {r["round"]: r["secret"] for r in records
            if r["j"] == "round_end" and isinstance(r.get("secret"), str)}


def replay(path: str | Path) -> Replay:
    """Deal every round again, apply its moves, and check the recorded scores."""
    read = read_journal(path)
    fold = MatchFold(path, read.version, revealed_secrets(read.records))
    for record in read.records:
        fold.feed(record)
    if fold.replay is None:
        raise JournalError(f"{path}: the match never started (the journal ends in the lobby)")
    fold.replay.unfinished = fold.state
    fold.replay.torn = read.torn
    fold.replay.unchained = read.unchained
    return fold.replay
