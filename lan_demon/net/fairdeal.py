"""Commit and reveal: why neither the host nor any one player can foresee or choose a deal.

Each round (PROTOCOL.md §22):

1. **Players commit.** Between rounds (and in the lobby) each seated client draws a fresh
   16-byte nonce and two 16-byte *check words* (one says "the deal was right", the other "it
   was not") and sends only their SHA-256s (``commit``). Nobody else sees them.
2. **The host commits.** At the countdown the arbiter draws a 32-byte host secret from the
   operating system and publishes its SHA-256 together with the players' commitments it holds
   (``countdown``: ``commit``, ``commits``, ``words``). From here the set is fixed.
3. **Players reveal.** Each client whose commitment is listed sends its nonce (``reveal``). The
   host's secret is already fixed, so the host cannot steer it to the nonces; each nonce was
   fixed before anyone saw another, so no player (the host's own seat included) can steer
   theirs to the others'.
4. **Go.** The deal is ``round_secret(host secret, revealed nonces)``
   (:mod:`lan_demon.games.deal`); the ``round`` update names the nonces used and the deal's
   *hash* (:func:`deal_hash`, salted with the round secret so it tells nothing before the end).
5. **The host reveals.** With the round over, ``round_end`` carries the host secret. Every
   client checks it against the commitment, each nonce against its hash, that its own nonce
   was used, re-deals the round and compares it with the hash and with the cards it was dealt
   (:func:`check_deal`). A mismatch is said loudly at every screen (``dispute``), and each
   seat then reveals one of its two check words (``check``): the host cannot turn a "wrong"
   into a "right" without the other word, which it never sees, and a check that never comes
   is noticed by every client.

What it does not stop (docs/hosting.md "Why you can trust the table"): a host and a player
working together can still withhold that player's reveal after seeing the others' nonces —
one bit of choice, not a chosen deal, and every screen says whose randomness was left out; a
host that is also a spectator of its own secret knows every card *during* the round (the
secret is its own), which no protocol can prevent on a table the host runs. With ``--seed``
none of this applies: the deals are reproducible, and the table says they are not secret.

This module holds the host's side and the check of one revealed deal as plain data and
functions — no sockets, no clock; a client's memory of each round is
:mod:`lan_demon.net.witness`.
"""

from __future__ import annotations

import hashlib
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
WORD_BYTES = 16  # a check word (§22.6): as unguessable as a nonce
DEAL_HASH_TAG = b"lan_demon/deal-hash/v1"


def is_hash(text: Any) -> bool:
    """64 lowercase hex digits: the shape of every commitment."""
    return _lower_hex(text, HASH_HEX)


def is_word(text: Any) -> bool:
    """32 lowercase hex digits: the shape of a nonce and of a check word."""
    return _lower_hex(text, 2 * WORD_BYTES)


def _lower_hex(text: Any, length: int) -> bool:
    return isinstance(text, str) and len(text) == length and \
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
    take string keys only, PROTOCOL.md §3); a tuple value is spread: ``[seat, a, b]``."""
    return [[seat, *mapping[seat]] if isinstance(mapping[seat], tuple) else
            [seat, mapping[seat]] for seat in sorted(mapping)]


def unpairs(items: Any, width: int = 2) -> dict[int, Any]:
    """The inverse of :func:`pairs` for rows of ``width`` (a row of 3 gives a tuple of 2);
    anything malformed is left out."""
    out: dict[int, Any] = {}
    for item in items or []:
        if isinstance(item, (list, tuple)) and len(item) == width and type(item[0]) is int:
            out[item[0]] = item[1] if width == 2 else tuple(item[1:])
    return out


def deal_hash(secret: bytes, state: dict[str, Any]) -> str:
    """The fingerprint of a whole deal published at Go (§22.4): ``SHA-256("lan_demon/deal-hash/v1"
    ‖ round secret ‖ the msgpack bytes of the dealt state, unredacted)``. Salted with the round
    secret, which nobody but the host knows until the round's end: unsalted, a player near the
    end of a round could try the few orders of the cards still hidden against it."""
    packed = msgpack.packb(state, use_bin_type=True)
    return hashlib.sha256(DEAL_HASH_TAG + bytes(secret) + packed).hexdigest()


# --- the arbiter's side ----------------------------------------------------------------------

@dataclass
class HostDeal:
    """One round's secret and the commitments around it, as the arbiter keeps them."""

    round: int
    secret: bytes
    seeded: bool
    commits: dict[int, str] = field(default_factory=dict)  # fixed at the countdown
    # each listed seat's check words, as hashes (ok, fail): fixed with its commitment
    words: dict[int, tuple[str, str]] = field(default_factory=dict)
    nonces: dict[int, bytes] = field(default_factory=dict)  # revealed before Go
    hash: str | None = None  # the deal's fingerprint, published at Go (deal_hash)
    dealt: Any = None  # a copy of the state dealt at Go: a snapshot gives each seat its part

    @classmethod
    def draw(cls, round_no: int, dealing: Dealing) -> HostDeal:
        """A fresh round: 256 bits from the operating system, or the seed's (not secret)."""
        if isinstance(dealing, Seeded):
            return cls(round_no, seed_secret(dealing.seed, round_no), True)
        return cls(round_no, secrets.token_bytes(SECRET_BYTES), False)

    @property
    def commit(self) -> str:
        return commitment(self.secret)

    def fix(self, commits: dict[int, tuple[str, str, str]]) -> None:
        """The countdown: these players' commitments (nonce hash, ok word's, fail word's)
        are in; no other joins this round. A seeded round takes none (its deal must come from
        the seed alone), and so no checks are owed for it."""
        taken = {} if self.seeded else commits
        self.commits = {seat: c[0] for seat, c in taken.items()}
        self.words = {seat: (c[1], c[2]) for seat, c in taken.items()
                      if len(c) > 2 and c[1] and c[2]}  # (a journal's from before protocol 5)

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

    def mixed(self) -> bytes:
        """The round secret: the host's mixed with every nonce revealed (§21.1)."""
        return round_secret(self.secret, self.nonces)

    def dealt_now(self, game: Game, state: Any) -> None:
        """Go: the deal's fingerprint (:func:`deal_hash`), and a copy of it as dealt, whose
        part for each seat a snapshot during the round carries (§22.4)."""
        self.hash = deal_hash(self.mixed(), game.state_to_data(state))
        self.dealt = game.copy_state(state)

    def all_revealed(self) -> bool:
        """Every listed seat has revealed: a countdown of 0 may deal now (§22.3)."""
        return all(seat in self.nonces for seat in self.commits)

    def announced(self) -> dict[str, Any]:
        """What the countdown publishes."""
        return {"commit": self.commit, "commits": pairs(self.commits),
                "words": pairs(self.words), "seeded": self.seeded}

    def used(self) -> list[list[Any]]:
        """What Go publishes: the nonces mixed into the deal."""
        return pairs({seat: nonce.hex() for seat, nonce in self.nonces.items()})

    def check_word(self, seat: int, word: Any) -> str | None:
        """``"ok"`` or ``"fail"``: which of ``seat``'s promised check words ``word`` is; None
        when it is neither (or the seat promised none for this round)."""
        hashes, raw = self.words.get(seat), from_hex(word, WORD_BYTES)
        if hashes is None or raw is None:
            return None
        return word_meaning(raw, hashes)


def word_meaning(word: bytes, hashes: tuple[str, str]) -> str | None:
    """``"ok"``, ``"fail"`` or None: which of the promised pair ``(ok hash, fail hash)`` the
    revealed ``word`` is."""
    digest = commitment(word)
    if hmac.compare_digest(digest, str(hashes[0])):
        return "ok"
    if hmac.compare_digest(digest, str(hashes[1])):
        return "fail"
    return None


# --- every client's side: the check of one revealed deal ---------------------------------------

@dataclass
class DealCheck:
    """What a client's check of a revealed deal found: ``problem`` (in words, None when the
    deal is the one committed to); ``cards``: its own cards at Go were compared with the
    re-dealt round; ``whole``: the whole re-dealt round was compared with the fingerprint the
    host published at Go. A check with neither compared no card at all."""

    problem: str | None
    cards: bool = False
    whole: bool = False


def check_deal(game: Game, seat: int | None, announced: dict[str, Any], used: Any,
               secret_hex: Any, setup: dict[str, Any], dealt: dict[str, Any] | None = None,
               fingerprint: str | None = None, my_nonce: bytes | None = None) -> DealCheck:
    """Check a revealed deal against everything the host published before it.

    ``announced``: the countdown's commit fields (the first this client saw for the round);
    ``used``: Go's nonces; ``secret_hex``: the host secret revealed at the round's end;
    The problem says ``{your}`` where this seat's player is meant
    (:func:`lan_demon.net.witness.said`). ``dealt``: the state this seat was dealt at Go (redacted for it; a spectator's: the public
    one), None when it never had it; ``fingerprint``: the deal hash published at Go (None:
    not seen); ``my_nonce``: ours, if the host accepted it."""
    secret = from_hex(secret_hex, SECRET_BYTES)
    if secret is None:
        return DealCheck("the host did not reveal the secret this round was dealt from")
    if not hmac.compare_digest(commitment(secret), str(announced.get("commit", ""))):
        return DealCheck("the secret the host revealed is not the one it promised before "
                         "the round")
    nonces: dict[int, bytes] = {}
    if not announced.get("seeded"):
        commits = unpairs(announced.get("commits"))
        for who, text in unpairs(used).items():
            nonce = from_hex(text, NONCE_BYTES)
            if nonce is None or commits.get(who) is None or \
                    not hmac.compare_digest(commitment(nonce), commits[who]):
                return DealCheck(f"seat {who}'s randomness is not what seat {who}'s program "
                                 "promised")
            nonces[who] = nonce
        if my_nonce is not None and seat is not None and nonces.get(seat) != my_nonce:
            return DealCheck("the host left {your} randomness out of the deal after accepting "
                             "it")
    elif unpairs(used):
        return DealCheck("a round dealt from a fixed seed names players' randomness")
    if dealt is None and fingerprint is None:
        return DealCheck(None)
    mixed = round_secret(secret, nonces)
    fresh = game.deal(setup, DealRandom(mixed))
    whole = fingerprint is not None
    if whole and not hmac.compare_digest(deal_hash(mixed, game.state_to_data(fresh)),
                                         str(fingerprint)):
        return DealCheck("the cards dealt are not the ones the promised deal gives (the "
                         "fingerprint of the deal at Go differs)", whole=True)
    if dealt is not None and game.state_to_data(game.redact(fresh, seat)) != dealt:
        return DealCheck(("{your} cards" if seat is not None else "the cards on the table") +
                         " are not the ones the promised deal gives", True, whole)
    return DealCheck(None, dealt is not None, whole)
