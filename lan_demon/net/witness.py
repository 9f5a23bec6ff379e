"""A client's part in the fair deal (PROTOCOL.md §22): what it promised, what the host announced,
what it was dealt, and its verdict on each round.

:class:`DealWitness` is memory and judgement only — no messages, no words for people beyond
the problems it finds: :mod:`lan_demon.net.deal_duties` sends what it decides and tells the
player. Every check here is one an independent client makes from §22.7 alone:

* **the terms** — ``config.seeded`` is fixed for a match: a welcome, snapshot or countdown
  that says otherwise is the host switching to deals it can choose (a seeded deal takes no
  nonce);
* **the promise** — a commitment the host accepted (``ok``) on the connection still open must
  be listed in the round's countdown, with this client's own hash and check words, and no
  other listing may stand in its name;
* **one announcement** — the first countdown (or snapshot) seen for a round is the one kept:
  a later one with another host commitment is a second chance the host gave itself after
  seeing the nonces; the nonce is never revealed under it. The same commitment announced
  again (a host resumed after a crash) is no problem, and the nonce may be revealed again;
* **Go** — a nonce the host accepted must be mixed in;
* **the end** — the revealed secret, every nonce, the deal's fingerprint and this seat's
  cards at Go (:func:`lan_demon.net.fairdeal.check_deal`);
* **every seat's check** — one of its two promised words, published before the next round's
  end; any other word is a forgery, and a missing one may be a verdict the host hid.

Problems are worded for this seat's screen with ``{your}`` where its player is meant
(:func:`said`): a dispute quotes them in the first person, as its program speaking.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import Any

import msgpack

from lan_demon.games import Game
from lan_demon.games.deal import NONCE_BYTES, commitment
from lan_demon.net.fairdeal import WORD_BYTES, check_deal, from_hex, unpairs, word_meaning

KEEP_ROUNDS = 3  # rounds of memory an endless table keeps (a check is owed a round later)
ANNOUNCED = ("commit", "commits", "words", "seeded")  # the countdown's commit fields


@dataclass
class Promise:
    """Our secrets for one round: the nonce and the two check words."""

    nonce: bytes
    ok: bytes
    fail: bytes

    @classmethod
    def draw(cls) -> Promise:
        return cls(secrets.token_bytes(NONCE_BYTES), secrets.token_bytes(WORD_BYTES),
                   secrets.token_bytes(WORD_BYTES))

    def fields(self) -> dict[str, str]:
        """The ``commit`` message's hashes."""
        return {"hash": commitment(self.nonce), "ok": commitment(self.ok),
                "fail": commitment(self.fail)}


@dataclass
class RoundSeen:
    """What this client saw of one round's deal."""

    announced: dict[str, Any] | None = None  # the first countdown (or snapshot) seen
    acked: bool = False  # our commitment was accepted on the connection still open
    revealed: bool = False  # our nonce was accepted on the connection still open
    refused: str | None = None  # why our commitment or nonce was refused, if it was
    used: list[list[Any]] | None = None  # Go's nonces
    fingerprint: str | None = None  # Go's deal hash
    dealt: bytes | None = None  # msgpack of our state at Go
    setup: dict[str, Any] | None = None  # the round's set-up
    problems: list[str] = field(default_factory=list)
    #: a listing in our seat's name from before this program's first promise: the promise of
    #: the program that held the seat before this one (restarted), not ours to judge
    inherited: bool = False
    outcome: str | None = None  # at the end: "ok", "failed" or "unchecked"
    why: str = ""  # unchecked: why not
    checks: dict[int, str] = field(default_factory=dict)  # seat -> "ok", "fail" or "bad"
    check_sent: bool = False

    def listing(self, seat: int | None) -> tuple[str | None, tuple[str, str] | None]:
        """Our seat's entry in the announcement: its commitment hash and check words."""
        if self.announced is None or seat is None:
            return None, None
        return (unpairs(self.announced.get("commits")).get(seat),
                unpairs(self.announced.get("words"), 3).get(seat))


class DealWitness:
    """A client's memory of each round's commitments, nonce and deal, and its judgement."""

    def __init__(self) -> None:
        self.promises: dict[int, Promise] = {}
        #: the first round this program promised for: a seat's earlier promises were made by
        #: the program that held it before (a join restarted while its seat was kept)
        self.first_promise: int | None = None
        self.rounds: dict[int, RoundSeen] = {}
        self.seeded: bool | None = None  # the match's terms, from the first welcome

    def seen(self, round_no: int) -> RoundSeen:
        return self.rounds.setdefault(round_no, RoundSeen())

    def outcome(self, round_no: int) -> str | None:
        """"ok", "failed", "unchecked", or None when the round has not ended here."""
        seen = self.rounds.get(round_no)
        return seen.outcome if seen is not None else None

    # --- the terms and our promise ------------------------------------------------------------

    def terms(self, seeded: Any) -> str | None:
        """The match's ``config.seeded`` as a welcome or snapshot says it: the first one seen
        is the match's; a change is the problem returned."""
        if not isinstance(seeded, bool):
            return None
        if self.seeded is None:
            self.seeded = seeded
        elif seeded != self.seeded:
            return _seed_switch(seeded)
        return None

    def promise(self, round_no: int) -> dict[str, str]:
        """The commitment for ``round_no``: drawn once, the same hashes when sent again."""
        promise = self.promises.get(round_no)
        if promise is None:
            promise = self.promises[round_no] = Promise.draw()
            if self.first_promise is None:
                self.first_promise = round_no
        return promise.fields()

    def accepted(self, seat: int | None, round_no: int) -> list[str]:
        """The host said ``ok`` to our commitment: a countdown already seen must list it."""
        seen = self.seen(round_no)
        seen.acked, seen.refused = True, None
        if seen.announced is None:
            return []
        return self._listing(seat, round_no, seen.announced)

    def refused(self, round_no: int, why: str, reveal: bool = False) -> None:
        seen = self.seen(round_no)
        seen.refused = why
        if reveal:
            seen.revealed = False

    def reconnected(self) -> None:
        """A new connection: what the last one's host accepted may be lost with it (a host
        resumed from its journal): promises are made again, nonces revealed again."""
        for seen in self.rounds.values():
            seen.acked = seen.revealed = False

    # --- the host's announcement ---------------------------------------------------------------

    def announce(self, seat: int | None, round_no: int,
                 fields: dict[str, Any]) -> tuple[list[str], str | None]:
        """A countdown, or a snapshot's ``table.deal``: the problems it shows, and our nonce
        (hex) to reveal when it lists our commitment under the round's first host
        commitment (None: nothing to reveal)."""
        announced = {k: fields.get(k) for k in ANNOUNCED}
        seen = self.seen(round_no)
        problems = []
        if self.seeded is not None and isinstance(announced["seeded"], bool) and \
                announced["seeded"] != self.seeded:
            problems.append(_seed_switch(announced["seeded"]))
        if seen.announced is None:
            seen.announced = announced
        elif seen.announced.get("commit") != announced["commit"]:
            problems.append("the host announced this round a second time with a new promise "
                            "of its secret, after seeing everyone's randomness: it could "
                            "choose the cards")
            return problems, None  # never one nonce under two host commitments
        problems += self._listing(seat, round_no, announced)
        promise = self.promises.get(round_no)
        listed, _ = seen.listing(seat)
        if promise is None or listed != commitment(promise.nonce) or problems:
            return problems, None
        return problems, promise.nonce.hex()

    def _listing(self, seat: int | None, round_no: int, announced: dict[str, Any]) -> list[str]:
        """Our own entry in an announcement: ours if anything, and there if accepted."""
        if seat is None or announced.get("seeded"):
            return []
        seen = self.seen(round_no)
        listed = unpairs(announced.get("commits")).get(seat)
        words = unpairs(announced.get("words"), 3).get(seat)
        promise = self.promises.get(round_no)
        if (listed is not None or words is not None) and promise is None and \
                (self.first_promise is None or round_no < self.first_promise):
            seen.inherited = True  # made before this program promised anything: not ours
            return []
        if listed is not None or words is not None:
            mine = promise.fields() if promise is not None else {}
            if (listed, words) != (mine.get("hash"), (mine.get("ok"), mine.get("fail"))):
                return ["the host listed a promise in {your} name that {your} program never made"]
        elif seen.acked:
            return ["the host left out the randomness {your} program promised for this round, "
                    "after accepting it"]
        return []

    def reveal_accepted(self, round_no: int) -> None:
        seen = self.seen(round_no)
        seen.revealed, seen.refused = True, None

    # --- Go and the end ----------------------------------------------------------------------

    def go(self, seat: int | None, round_no: int, used: Any, fingerprint: Any,
           setup: dict[str, Any], dealt: dict[str, Any] | None,
           seats: int) -> tuple[list[str], dict[int, str]]:
        """The round dealt (its ``round`` update, or a snapshot of it in play): the problems,
        and each of the ``seats`` whose randomness was not mixed in, with why: "promised"
        (listed, never revealed) or "none" (no commitment listed). A seeded round asks for
        none."""
        seen = self.seen(round_no)
        if seen.used is not None:
            return [], {}  # (a snapshot after the Go we saw: the first word is kept)
        seen.used = list(used or [])
        seen.fingerprint = fingerprint if isinstance(fingerprint, str) else None
        # packed: the state a client builds from ``dealt`` may share its lists and move on
        seen.dealt = None if dealt is None else msgpack.packb(dealt)
        seen.setup = setup
        self._forget_before(round_no - KEEP_ROUNDS + 1)
        announced = seen.announced or {}
        if announced.get("seeded") or seen.announced is None:
            return [], {}
        mixed, listed = unpairs(seen.used), unpairs(announced.get("commits"))
        problems = []
        promise = self.promises.get(round_no)
        if seen.revealed and seat is not None and promise is not None and \
                mixed.get(seat) != promise.nonce.hex():
            problems.append("the host left {your} randomness out of the deal after "
                            "accepting it")
        return problems, {s: "promised" if s in listed else "none"
                          for s in range(seats) if s not in mixed}

    def end(self, game: Game, seat: int | None, round_no: int, secret: Any,
            setup: dict[str, Any]) -> RoundSeen | None:
        """The round's secret is revealed: the verdict (None when already given)."""
        seen = self.seen(round_no)
        if seen.outcome is not None:
            return None
        if seen.announced is None:
            seen.outcome = "failed" if seen.problems else "unchecked"
            seen.why = "this program never saw what the host promised for it"
            return seen
        dealt = msgpack.unpackb(seen.dealt) if seen.dealt is not None else None
        setup = seen.setup if seen.setup is not None else setup
        promise = self.promises.get(round_no)
        found = check_deal(game, seat, seen.announced, seen.used or [], secret, setup, dealt,
                           seen.fingerprint,
                           promise.nonce if promise is not None and seen.revealed else None)
        if found.problem is not None:
            seen.problems.append(found.problem)
        if seen.problems:
            seen.outcome = "failed"
        elif not (found.cards or found.whole):
            seen.outcome = "unchecked"
            seen.why = "the host never said what it dealt" if seen.used is not None else \
                "this program missed the deal"
        else:
            seen.outcome = "ok"
        return seen

    def word(self, seat: int | None, round_no: int) -> str | None:
        """Our check word for an ended round (hex): the fail word after any problem; None
        when we owe no check (our commitment was not listed for it)."""
        seen, promise = self.rounds.get(round_no), self.promises.get(round_no)
        if seen is None or promise is None or seen.outcome is None:
            return None
        listed, words = seen.listing(seat)
        if listed != commitment(promise.nonce) or words is None:
            return None
        return (promise.fail if seen.outcome == "failed" else promise.ok).hex()

    # --- every seat's check --------------------------------------------------------------------

    def check_seen(self, round_no: int, seat: int, word: Any) -> str | None:
        """A published check: "ok", "fail", "bad" (neither promised word), or None when we
        cannot judge it (we never saw the round's promises, or they list no words of that
        seat: it owes none, and says nothing)."""
        seen = self.rounds.get(round_no)
        if seen is None or seen.announced is None:
            return None
        hashes = unpairs(seen.announced.get("words"), 3).get(seat)
        if hashes is None:
            return None
        raw = from_hex(word, WORD_BYTES)
        meaning = word_meaning(raw, hashes) if raw is not None else None
        verdict = meaning or "bad"
        seen.checks.setdefault(seat, verdict)
        return verdict

    def overdue(self, round_no: int) -> list[int]:
        """The seats that promised a check of ``round_no`` and whose check has not come."""
        seen = self.rounds.get(round_no)
        if seen is None or seen.announced is None or seen.outcome is None:
            return []
        return [s for s in unpairs(seen.announced.get("words"), 3) if s not in seen.checks]

    def _forget_before(self, round_no: int) -> None:
        for kept in (self.rounds, self.promises):
            for old in [r for r in kept if r < round_no]:
                del kept[old]


def said(problem: str, to: str = "your") -> str:
    """A problem in words for this seat's player (``to`` "your"), or in its program's own
    voice for the other screens (``to`` "my")."""
    return problem.replace("{your}", to)


def _seed_switch(seeded: bool) -> str:
    if seeded:
        return "the host switched to a fixed seed in the middle of the match: a seeded deal " \
               "takes nobody's randomness, so the host could choose the cards"
    return "the host says its deals are no longer from a fixed seed, which a match never " \
           "changes"
