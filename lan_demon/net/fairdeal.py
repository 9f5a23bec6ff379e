"""Commit and reveal: why neither the host nor any one player can foresee or choose a deal.

Each round (PROTOCOL.md §22):

1. **Players commit.** Between rounds (and in the lobby) each seated client draws a fresh
   16-byte nonce and sends only its SHA-256 (``commit``). Nobody else sees it.
2. **The host commits.** At the countdown the arbiter draws a 32-byte host secret from the
   operating system and publishes its SHA-256 together with the players' commitments it holds
   (``countdown``: ``commit``, ``commits``). From here the set is fixed.
3. **Players reveal.** Each client whose commitment is listed sends its nonce (``reveal``). The
   host's secret is already fixed, so the host cannot steer it to the nonces; each nonce was
   fixed before anyone saw another, so no player (the host's own seat included) can steer
   theirs to the others'.
4. **Go.** The deal is ``round_secret(host secret, revealed nonces)``
   (:mod:`lan_demon.games.deal`); the ``round`` update names the nonces used.
5. **The host reveals.** With the round over, ``round_end`` carries the host secret. Every
   client checks it against the commitment, each nonce against its hash, that its own nonce
   was used, and re-deals the round to compare with the cards it was dealt
   (:func:`check_deal`). A mismatch is said loudly at every screen (``dispute``).

What it does not stop (docs/hosting.md "Why you can trust the table"): a host and a player
working together can still withhold that player's reveal after seeing the others' nonces —
one bit of choice, not a chosen deal; and a host that is also a spectator of its own secret
knows every card *during* the round (the secret is its own), which no protocol can prevent on
a table the host runs. With ``--seed`` none of this applies: the deals are reproducible, and
the table says they are not secret.

This module holds both sides as plain data and functions — no sockets, no clock.
"""

from __future__ import annotations

import hmac
import secrets
from dataclasses import dataclass, field
from typing import Any

import msgpack

from lan_demon.games import Game
from lan_demon.net.settings import Dealing, Seeded
from lan_demon.games.deal import (NONCE_BYTES, SECRET_BYTES, DealRandom, commitment,
                                  round_secret, seed_secret)

HASH_HEX = 64  # a SHA-256, as lowercase hex


def is_hash(text: Any) -> bool:
    """64 lowercase hex digits: the shape of every commitment."""
    return isinstance(text, str) and len(text) == HASH_HEX and \
        all(c in "0123456789abcdef" for c in text)


def from_hex(text: Any, size: int) -> bytes | None:
    """``size`` bytes from their hex text, or None when it is not that."""
    if not isinstance(text, str) or len(text) != 2 * size:
        return None
    try:
        return bytes.fromhex(text)
    except ValueError:
        return None


def pairs(mapping: dict[int, Any]) -> list[list[Any]]:
    """``{seat: value}`` as the wire carries it: ``[[seat, value], …]`` by seat (msgpack maps
    take string keys only, PROTOCOL.md §3)."""
    return [[seat, mapping[seat]] for seat in sorted(mapping)]


def unpairs(items: Any) -> dict[int, Any]:
    """The inverse of :func:`pairs`; anything malformed is left out."""
    out: dict[int, Any] = {}
    for item in items or []:
        if isinstance(item, (list, tuple)) and len(item) == 2 and type(item[0]) is int:
            out[item[0]] = item[1]
    return out


# --- the arbiter's side ----------------------------------------------------------------------

@dataclass
class HostDeal:
    """One round's secret and the commitments around it, as the arbiter keeps them."""

    round: int
    secret: bytes
    seeded: bool
    commits: dict[int, str] = field(default_factory=dict)  # fixed at the countdown
    nonces: dict[int, bytes] = field(default_factory=dict)  # revealed before Go

    @classmethod
    def draw(cls, round_no: int, dealing: Dealing) -> HostDeal:
        """A fresh round: 256 bits from the operating system, or the seed's (not secret)."""
        if isinstance(dealing, Seeded):
            return cls(round_no, seed_secret(dealing.seed, round_no), True)
        return cls(round_no, secrets.token_bytes(SECRET_BYTES), False)

    @property
    def commit(self) -> str:
        return commitment(self.secret)

    def fix(self, commits: dict[int, str]) -> None:
        """The countdown: these players' commitments are in; no other joins this round. A
        seeded round takes none (its deal must come from the seed alone)."""
        self.commits = {} if self.seeded else dict(commits)

    def reveal(self, seat: int, nonce_hex: Any) -> str | None:
        """Take a player's nonce; the reason it is refused, or None."""
        expected = self.commits.get(seat)
        if expected is None:
            return "your commitment was not in when the countdown began: this round is " \
                   "dealt without your nonce"
        nonce = from_hex(nonce_hex, NONCE_BYTES)
        if nonce is None:
            return f"a nonce is {2 * NONCE_BYTES} hex digits"
        if not hmac.compare_digest(commitment(nonce), expected):
            return "that nonce does not match the commitment you sent"
        self.nonces[seat] = nonce
        return None

    def announced(self) -> dict[str, Any]:
        """What the countdown publishes."""
        return {"commit": self.commit, "commits": pairs(self.commits), "seeded": self.seeded}

    def used(self) -> list[list[Any]]:
        """What Go publishes: the nonces mixed into the deal."""
        return pairs({seat: nonce.hex() for seat, nonce in self.nonces.items()})


# --- every client's side ---------------------------------------------------------------------

def check_deal(game: Game, seat: int | None, dealt: dict[str, Any] | None,
               announced: dict[str, Any], used: list[list[Any]], secret_hex: Any,
               setup: dict[str, Any], my_nonce: bytes | None = None) -> str | None:
    """The first thing wrong with a revealed deal, in words; None when it is honest.

    ``dealt``: the state this seat was dealt at Go (redacted for it; None if it missed the Go);
    ``announced``: the countdown's commit fields; ``used``: the Go's nonces; ``secret_hex``:
    the host secret revealed at the round's end; ``my_nonce``: ours, if we revealed one."""
    secret = from_hex(secret_hex, SECRET_BYTES)
    if secret is None:
        return "the host revealed no secret for this round's deal"
    if not hmac.compare_digest(commitment(secret), str(announced.get("commit", ""))):
        return "the host's revealed secret does not match the commitment it published " \
               "before the round"
    if announced.get("seeded"):
        nonces: dict[int, bytes] = {}
    else:
        commits, revealed = unpairs(announced.get("commits")), unpairs(used)
        nonces = {}
        for who, text in revealed.items():
            nonce = from_hex(text, NONCE_BYTES)
            if nonce is None or commits.get(who) is None or \
                    not hmac.compare_digest(commitment(nonce), commits[who]):
                return f"seat {who}'s nonce does not match the commitment it sent"
            nonces[who] = nonce
        if my_nonce is not None and seat is not None and nonces.get(seat) != my_nonce:
            return "your nonce was left out of the deal after you revealed it"
    if dealt is None:
        return None
    fresh = game.deal(setup, DealRandom(round_secret(secret, nonces)))
    if game.state_to_data(game.redact(fresh, seat)) != dealt:
        return ("your cards" if seat is not None else "the cards on the table") + \
            " differ from the deal the revealed secret gives"
    return None


@dataclass
class DealWitness:
    """A client's memory of each round's commitments, nonce and deal, to check at its end."""

    nonces: dict[int, bytes] = field(default_factory=dict)  # round -> our nonce
    revealed: dict[int, bytes] = field(default_factory=dict)  # round -> nonce we revealed
    announced: dict[int, dict[str, Any]] = field(default_factory=dict)
    used: dict[int, list[list[Any]]] = field(default_factory=dict)
    dealt: dict[int, tuple[bytes, bytes]] = field(default_factory=dict)  # (setup, state) packed
    checked: set[int] = field(default_factory=set)
    honest: set[int] = field(default_factory=set)  # rounds re-dealt and found as committed

    def commit_for(self, round_no: int) -> str:
        """A fresh nonce for ``round_no`` (replacing any before); its hash to send."""
        self.nonces = {round_no: secrets.token_bytes(NONCE_BYTES)}
        return commitment(self.nonces[round_no])

    def reveal_for(self, seat: int | None, round_no: int,
                   announced: dict[str, Any]) -> str | None:
        """At the countdown: our nonce (hex) when the host listed our commitment."""
        self.announced[round_no] = announced
        nonce = self.nonces.get(round_no)
        if seat is None or nonce is None or \
                unpairs(announced.get("commits")).get(seat) != commitment(nonce):
            return None
        self.revealed[round_no] = nonce
        return nonce.hex()

    def on_go(self, round_no: int, used: Any, setup: dict[str, Any],
              dealt: dict[str, Any]) -> None:
        self.used[round_no] = list(used or [])
        # a copy (the state a client builds from ``dealt`` may share its lists and move on),
        # packed: a tenth of the cost of a deep copy, every round at every seat
        self.dealt[round_no] = (msgpack.packb(setup), msgpack.packb(dealt))
        self._forget_before(round_no - 1)  # an endless table keeps only the last rounds

    def _forget_before(self, round_no: int) -> None:
        for kept in (self.revealed, self.announced, self.used, self.dealt):
            for old in [r for r in kept if r < round_no]:
                del kept[old]
        self.checked = {r for r in self.checked if r >= round_no}
        self.honest = {r for r in self.honest if r >= round_no}

    def check(self, game: Game, seat: int | None, round_no: int,
              secret_hex: Any) -> str | None:
        """At the round's end: the problem with its deal, or None (also None when we did not
        see the round's countdown and Go: nothing to hold the host to)."""
        announced = self.announced.get(round_no)
        if announced is None or round_no in self.checked or round_no not in self.dealt:
            return None
        self.checked.add(round_no)
        setup, dealt = (msgpack.unpackb(packed) for packed in self.dealt[round_no])
        problem = check_deal(game, seat, dealt, announced, self.used.get(round_no, []),
                             secret_hex, setup, self.revealed.get(round_no))
        if problem is None:
            self.honest.add(round_no)
        return problem
