"""The coach's review of every round of a journal, for one seat (``lan-demon replay --coach``).

The journal holds each committed move with ``at``, its arrival on the host's clock, and the
time its client claimed (``ts``); each refused move with its code (``beaten``) and the winner
(``by``); each round's Go (``at``). The rounds are dealt and played again
(:class:`lan_demon.net.replay.MatchFold`) and after every move the seat's view is rebuilt —
the real table redacted for the seat, then its view — so the coach sees what the seat could
see, and nothing else.

What the journal does not hold, and so what the review says it could not tell:

* when the seat's *screen* showed each move: the times are the host's, commit to commit;
* the race's milliseconds in journals written before the ``beaten`` record held them (it
  names the winner, ``by``, and now ``ms`` and ``top`` too, as the loser was told): those are
  worked out again here, as the host did (:class:`lan_demon.games.demon_races.RaceBook`),
  from the claimed times within the host's lag cap (``~``: the host's measured network delay
  per seat is not journaled, so a claimed time it trimmed may give a slightly other figure).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lan_demon.coach.demon import DemonCoach
from lan_demon.coach.review import Review
from lan_demon.games import GameError
from lan_demon.games.demon_races import RaceBook
from lan_demon.net.journal import read_journal
from lan_demon.net.replay import MatchFold, revealed_secrets

JOURNAL_NOTE = ("From the journal: times are when moves reached the host; a race's ms marked "
                "~ is worked out again from the times the clients claimed.")


class CoachError(GameError):
    """A journal the coach cannot review for that seat: the one line the user sees."""


@dataclass
class RoundReview:
    """One round's review; ``finished`` False for a round the journal ends in."""

    round: int
    review: Review
    finished: bool = True


def find_seat(players: list[str], name: str) -> int | None:
    """The seat called ``name``: exactly, else the one name the table would call the same
    (case, spaces, compatibility forms: :func:`lan_demon.net.names.name_key`)."""
    from lan_demon.net.names import name_key
    if name in players:
        return players.index(name)
    found = [i for i, p in enumerate(players) if name_key(p) == name_key(name)]
    return found[0] if len(found) == 1 else None


class _Reviewer:
    """The fold of a journal's records into one seat's reviews (see the module's text)."""

    def __init__(self, path: Any, name: str, version: int, secrets: dict[int, str]):
        self.fold = MatchFold(path, version, secrets)
        self.name = name
        self.seat = -1
        self.lag_cap = 0.0
        self.coach: DemonCoach | None = None
        self.book: RaceBook | None = None
        self.reviews: list[RoundReview] = []

    def feed(self, record: dict[str, Any]) -> None:
        kind = record["j"]
        if kind == "round_end" and self.coach is not None:
            self.reviews.append(RoundReview(record["round"], self.coach.review()))
            self.coach = None
        if kind == "host":
            self.lag_cap = (record["config"].get("lag_cap_ms") or 0) / 1000
        if kind == "refused":
            self._refused(record)  # judged on the table as it stood, before what follows
        self.fold.feed(record)
        if kind == "match":
            self._match()
        elif kind == "round":
            self._round(record)
        elif kind == "move" and self.coach is not None:
            self.book.remember(record["seat"], self._ts(record), self.fold.events,
                               self.fold.state)
            self._see(record)

    def _match(self) -> None:
        match = self.fold.match
        if not match.game.id.startswith("racing-demon"):
            raise CoachError(f"the coach reviews Racing Demon rounds; this journal is a "
                             f"{match.game.title} match")
        seat = find_seat(match.players, self.name)
        if seat is None:
            raise CoachError(f"no seat called {self.name!r} in this journal; its players: "
                             f"{', '.join(match.players)}")
        self.seat = seat

    def _round(self, record: dict[str, Any]) -> None:
        game = self.fold.match.game
        self.coach = DemonCoach(game.id, self.seat, self.fold.match.players,
                                start=self._at(record))
        self.coach.note(JOURNAL_NOTE)
        self.book = RaceBook(game)
        self._see(record)

    def _see(self, record: dict[str, Any]) -> None:
        game, state = self.fold.match.game, self.fold.state
        self.coach.see(self._at(record), game.view(game.redact(state, self.seat), self.seat))

    def _refused(self, record: dict[str, Any]) -> None:
        if self.coach is None or record["seat"] != self.seat or record["code"] != "beaten":
            return
        game = self.fold.match.game
        try:
            move = game.move_from_data(record["move"])
        except GameError:
            return
        if isinstance(record.get("ms"), int):  # the arbiter's own figure, as the seat was told
            self.coach.lost(self._at(record), record.get("by"), record["ms"], record.get("top"))
            return
        lost = self.book.beaten(self.fold.state, self.seat, move, None, self._ts(record))
        by = record.get("by", lost.by if lost is not None else None)
        top = lost.top.code if lost is not None and lost.top is not None else None
        self.coach.lost(self._at(record), by, lost.ms if lost is not None else None, top,
                        exact=False)

    def _at(self, record: dict[str, Any]) -> float:
        at = record.get("at")
        if not isinstance(at, (int, float)):
            raise CoachError("this journal does not record when moves arrived (an older "
                             "lan-demon wrote it): the coach needs those times")
        return float(at)

    def _ts(self, record: dict[str, Any]) -> float:
        """The time the host believed, as near as the journal tells: the claimed time, no
        later than the arrival and no earlier than the lag cap allows (RD-11)."""
        at = self._at(record)
        claimed = record.get("ts")
        if not isinstance(claimed, (int, float)):
            return at
        return min(max(float(claimed), at - self.lag_cap), at)


def journal_reviews(path: str | Path, name: str) -> list[RoundReview]:
    """Every round's review for the seat called ``name`` (:class:`CoachError` when there is
    no such seat, or the journal is not of Racing Demon)."""
    read = read_journal(path)
    reviewer = _Reviewer(path, name, read.version, revealed_secrets(read.records))
    for record in read.records:
        reviewer.feed(record)
    if reviewer.fold.match is None:
        raise CoachError(f"{path}: the match never started (the journal ends in the lobby)")
    if reviewer.coach is not None:
        round_no = reviewer.fold.match.round_no
        reviewer.reviews.append(RoundReview(round_no, reviewer.coach.review(), False))
    return reviewer.reviews
