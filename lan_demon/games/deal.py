"""Where a deal's chance comes from: a shuffle any language can re-derive from a secret.

Every round is dealt from a 32-byte *round secret* and nothing else. The engines only ever call
``rng.shuffle(list)`` (see each game's ``deal``), so :class:`DealRandom` is all the chance there
is. It is specified in ``protocol/PROTOCOL.md`` (§21 "The deal") from SHA-256 alone — not from
CPython's ``random``, whose shuffle may change between Python versions and is not written down
for other languages — so a journal or a client in any language re-deals a round exactly.

The spec, in full:

* **Stream.** Block ``i`` (``i`` = 0, 1, 2, …) is ``SHA-256(b"lan_demon/deal/v1" || secret ||
  i as 8 bytes big-endian)``; the stream is block 0 ‖ block 1 ‖ …, read 8 bytes at a time as
  unsigned big-endian 64-bit integers.
* **A number below n** (n ≥ 1): ``limit = 2**64 - 2**64 % n``; read integers until one ``u`` is
  below ``limit``; the answer is ``u % n`` (rejection sampling: no value is favoured).
* **Shuffle** (Fisher–Yates, from the end): for ``i`` from ``len - 1`` down to 1, ``j`` = a number
  below ``i + 1``, swap items ``i`` and ``j``.

Where the round secret comes from is the table's business (:func:`round_secret` for a table with
a host secret and the players' nonces, :func:`seed_secret` for ``--seed``, ``simulate`` and the
arena); the engines neither know nor care.
"""

from __future__ import annotations

import hashlib
import struct
from typing import Any, MutableSequence, Protocol

DEAL_TAG = b"lan_demon/deal/v1"
ROUND_TAG = b"lan_demon/round/v1"
SEED_TAG = "lan_demon/seed/v1"
SECRET_BYTES = 32  # a host's round secret: 256 bits from the operating system
NONCE_BYTES = 16  # a client's contribution to a round: 128 bits
_TWO_64 = 1 << 64
# Rejection sampling's limit for a number below n, for the n a shuffle of a pack or two asks
_LIMITS = (0,) + tuple(_TWO_64 - _TWO_64 % n for n in range(1, 129))


class Shuffler(Protocol):
    """What a game's ``deal`` may use of its chance: ``shuffle``, and nothing else."""

    def shuffle(self, items: MutableSequence[Any]) -> None: ...


class DealRandom:
    """The deal's only chance: a SHA-256 counter stream, read as the spec above says."""

    def __init__(self, secret: bytes):
        if not isinstance(secret, (bytes, bytearray)) or not secret:
            raise ValueError("a deal needs a non-empty secret (bytes)")
        self._prefix = DEAL_TAG + bytes(secret)
        self._block = 0
        self._words: list[int] = []

    def _blocks(self, count: int) -> tuple[int, ...]:
        """The words of the stream's next ``count`` blocks, in order."""
        first, prefix = self._block, self._prefix
        self._block += count
        data = b"".join(hashlib.sha256(prefix + block.to_bytes(8, "big")).digest()
                        for block in range(first, self._block))
        return struct.unpack(f">{4 * count}Q", data)

    def _next(self) -> int:
        if not self._words:  # (kept as a stack: the next word is the last)
            self._words.extend(reversed(self._blocks(1)))
        return self._words.pop()

    def below(self, n: int) -> int:
        """A number in ``range(n)``, every one equally likely."""
        if n < 1:
            raise ValueError(f"below({n}): n must be at least 1")
        limit = _TWO_64 - _TWO_64 % n
        while True:
            u = self._next()
            if u < limit:
                return u % n

    def _take(self, count: int) -> list[int]:
        """The stream's next ``count`` words, in order: the rest of the last block, then as
        many new blocks as are missing, hashed in one go."""
        words = self._words[::-1]
        missing = count - len(words)
        if missing > 0:
            words += self._blocks(-(-missing // 4))
        self._words = words[count:][::-1]
        return words[:count]

    def shuffle(self, items: MutableSequence[Any]) -> None:
        """Fisher–Yates from the end, in place: :meth:`below` for each place, with the words
        taken from the stream up front (one a place; a word rejected — a chance of n in 2**64
        — takes the stream's next). Every client re-deals each round to check it, so this is
        the deal's hot loop."""
        last = len(items) - 1
        if last < 1:
            return
        words = self._take(last)
        k = 0
        for i in range(last, 0, -1):
            n = i + 1
            limit = _LIMITS[n] if n < len(_LIMITS) else _TWO_64 - _TWO_64 % n
            u = words[k]
            k += 1
            while u >= limit:
                words.append(self._next())  # the stream after every word taken so far
                u = words[k]
                k += 1
            j = u % n
            items[i], items[j] = items[j], items[i]


def seed_secret(seed: int | str, round_no: int) -> bytes:
    """The round secret of a seeded match (``--seed``, ``simulate``, the arena): reproducible,
    and therefore **not** secret — anyone who knows the seed knows every deal."""
    return hashlib.sha256(f"{SEED_TAG}:{seed}:{round_no}".encode("utf-8")).digest()


def round_secret(host_secret: bytes, nonces: dict[int, bytes]) -> bytes:
    """The round secret of a table: the host's secret mixed with every nonce the players
    revealed, ``SHA-256(b"lan_demon/round/v1" || host_secret || for each seat in ascending
    order: seat as 2 bytes big-endian || its 16-byte nonce)``. With no nonces it is still a
    hash of the host's secret, never the secret itself."""
    parts = [ROUND_TAG, bytes(host_secret)]
    for seat in sorted(nonces):
        parts += [seat.to_bytes(2, "big"), bytes(nonces[seat])]
    return hashlib.sha256(b"".join(parts)).digest()


def commitment(secret: bytes) -> str:
    """What is published before a secret is revealed: its SHA-256, 64 lowercase hex digits."""
    return hashlib.sha256(bytes(secret)).hexdigest()
