"""Sealed private halves (PROTOCOL.md §23): a move's private half travels inside its published
update, readable only by the seat whose welcome carried the key.

Why: a move's private half (the turned waste top, RD-9; a drawn card) sent apart costs a second
frame, to the mover alone over the ROUTER, beside the published update — one more send on the
arbiter's thread and one more TCP write on its I/O thread for every such move, which is most
of them (docs/benchmarks.md). Sealed, the half rides in the update that is already
sent once per wake-up for every move of it.

What is sealed is only what the public update lacks: each event's private part and, for a
hidden move, the real move (:func:`half_of`); the mover puts them back into the public events
(:func:`private_of`). The construction uses BLAKE2b only (``hashlib``; libsodium's
``crypto_generichash`` elsewhere), keyed with the seat's 32-byte key: a keystream of 64-byte blocks ``BLAKE2b-512(key, "k" ||
seq || block)``, XORed with the plaintext, then a 16-byte tag ``BLAKE2b-128(key, "t" || seq ||
ciphertext)`` (encrypt then MAC). ``seq`` — the update's sequence number, 8 bytes big-endian —
is the nonce: it never repeats under one key, because a key lives for one seat of one arbiter
process (it is never journaled: the seats of a table resumed from its journal get new keys in
the welcomes of their rejoins). The plaintext is the half's msgpack map after its length (2
bytes), zero-padded to a multiple of :data:`PAD` bytes, so that the size of a seal does not
tell its card (a card's code differs in length only by its deck, but a padded seal need not
be argued about).
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import secrets
import struct
from typing import Any

import msgpack

KEY_BYTES = 32
TAG_BYTES = 16
BLOCK = 64  # BLAKE2b-512's output: one keystream block
PAD = 32  # the plaintext's length is rounded up to this
MAX_HALF = 0xFFFF  # the 2-byte length's limit: a larger half goes as a private frame


def half_of(events: list[dict[str, Any]], move: dict[str, Any] | None) -> dict[str, Any]:
    """What is sealed of a move: each event's ``private`` part (None where it has none), in
    order, and the real move when the public one hides a card. The rest of the private
    events is the update's public events, which every subscriber has: sealing it again
    would only make the seal longer (two keystream blocks instead of one for a Pack turn)."""
    half: dict[str, Any] = {"e": [e.get("private") for e in events]}
    if move is not None:
        half["move"] = move
    return half


def private_of(update: dict[str, Any], half: dict[str, Any]) -> dict[str, Any] | None:
    """The ``private`` message an opened ``half`` stands for: the update's public events
    with their private parts put back, and the real move if any; None if the half does not
    fit the update (a list of another length, a part that is not a map)."""
    parts, events = half.get("e"), update.get("events")
    if type(parts) is not list or type(events) is not list or len(parts) != len(events):
        return None
    full = []
    for event, part in zip(events, parts):
        if part is None:
            full.append(event)
        elif type(part) is dict and type(event) is dict:
            full.append({**event, "private": part})
        else:
            return None
    private = {"v": update.get("v"), "t": "private", "seq": update.get("seq"), "k": "move",
               "events": full}
    if "move" in half:
        private["move"] = half["move"]
    return private


def new_key() -> bytes:
    """A fresh seat key, from the operating system's randomness."""
    return secrets.token_bytes(KEY_BYTES)


@functools.lru_cache(maxsize=512)
def _keyed(key: bytes) -> tuple[Any, Any]:
    """BLAKE2b-512 and BLAKE2b-128 states that have taken ``key`` in: a keyed hash spends one
    compression on its key, so a copy of these is a third cheaper than a new one each time
    (a seat's key is used for every move it makes)."""
    return hashlib.blake2b(key=key), hashlib.blake2b(key=key, digest_size=TAG_BYTES)


def _hash(state: Any, data: bytes) -> bytes:
    h = state.copy()
    h.update(data)
    return h.digest()


# "k" || seq || block, and "t" || seq: the keystream's and the tag's inputs, each packed in one
# call (a seal is made for most moves at every table: every C call counts)
_STREAM, _TAG_PREFIX = struct.Struct(">cQI"), struct.Struct(">cQ")


def _keystream(stream: Any, seq: int, size: int) -> int:
    """``size`` bytes of keystream for update ``seq`` as one big-endian int (XOR on ints is
    one operation)."""
    if size <= BLOCK:  # one block: every half a game makes today
        return int.from_bytes(_hash(stream, _STREAM.pack(b"k", seq, 0))[:size], "big")
    blocks = b"".join(_hash(stream, _STREAM.pack(b"k", seq, i))
                      for i in range(-(-size // BLOCK)))
    return int.from_bytes(blocks[:size], "big")


def seal(key: bytes, seq: int, half: dict[str, Any],
         packer: msgpack.Packer | None = None) -> bytes | None:
    """The sealed bytes of ``half`` (:func:`half_of`) for the update numbered ``seq``; None if
    it is too large to seal. ``packer``: the caller's own reused ``msgpack.Packer`` (the
    arbiter seals every move: ``packb`` makes a Packer, and its buffer, each time — two
    thirds of the packing's cost)."""
    body = packer.pack(half) if packer is not None else msgpack.packb(half, use_bin_type=True)
    size = len(body)
    if size > MAX_HALF:
        return None
    padded = -(-(size + 2) // PAD) * PAD
    stream, tagger = _keyed(key)
    # the length, the body, then zeros to ``padded`` bytes: as an int, the first two shifted
    plain = int.from_bytes(size.to_bytes(2, "big") + body, "big") << (8 * (padded - size - 2))
    sealed = (plain ^ _keystream(stream, seq, padded)).to_bytes(padded, "big")
    return sealed + _hash(tagger, _TAG_PREFIX.pack(b"t", seq) + sealed)


def open_seal(key: bytes, seq: int, sealed: Any) -> dict[str, Any] | None:
    """The half sealed in ``sealed`` for update ``seq``; None when it does not open — not
    bytes, the wrong key or seq, altered on the way, or not a map inside."""
    if type(sealed) is not bytes or len(sealed) < TAG_BYTES + PAD or \
            (len(sealed) - TAG_BYTES) % PAD or type(seq) is not int or not 0 <= seq < 1 << 64 \
            or type(key) is not bytes or not 0 < len(key) <= 64:  # (BLAKE2b's key sizes)
        return None
    body, tag = sealed[:-TAG_BYTES], sealed[-TAG_BYTES:]
    stream, tagger = _keyed(key)
    if not hmac.compare_digest(tag, _hash(tagger, _TAG_PREFIX.pack(b"t", seq) + body)):
        return None
    plain = (int.from_bytes(body, "big") ^ _keystream(stream, seq, len(body))).to_bytes(
        len(body), "big")
    size = int.from_bytes(plain[:2], "big")
    if size > len(plain) - 2:
        return None
    try:
        half = msgpack.unpackb(plain[2:2 + size], raw=False, strict_map_key=True)
    except Exception:  # (cannot happen with a good tag, short of a bug at the other end)
        return None
    return half if type(half) is dict else None
