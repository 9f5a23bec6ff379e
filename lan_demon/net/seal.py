"""Sealed private halves (PROTOCOL.md §23): a move's private half travels inside its published
update, readable only by the seat whose welcome carried the key.

Why: a move with a private half (the turned waste top, RD-9; a drawn card) used to cost a second
frame, to the mover alone over the ROUTER, beside the published update — one more send on the
arbiter's thread and one more TCP write on its I/O thread for every such move, which is most
of them (issue 13, docs/benchmarks.md). Sealed, the half rides in the update that is already
sent once per wake-up for every move of it.

The construction uses BLAKE2b only (``hashlib``; libsodium's ``crypto_generichash`` elsewhere),
keyed with the seat's 32-byte key: a keystream of 64-byte blocks ``BLAKE2b-512(key, "k" ||
seq || block)``, XORed with the plaintext, then a 16-byte tag ``BLAKE2b-128(key, "t" || seq ||
ciphertext)`` (encrypt then MAC). ``seq`` — the update's sequence number, 8 bytes big-endian —
is the nonce: it never repeats under one key, because a key lives for one seat of one arbiter
process (it is never journaled: the seats of a table resumed from its journal get new keys in
the welcomes of their rejoins). The plaintext is the half's msgpack map
after its length (2 bytes), zero-padded to a multiple of :data:`PAD` bytes, so the size of a
seal says nothing of the card in it (``"10S@3"`` is longer than ``"9S@3"``).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import Any

import msgpack

KEY_BYTES = 32
TAG_BYTES = 16
BLOCK = 64  # BLAKE2b-512's output: one keystream block
PAD = 32  # the plaintext's length is rounded up to this
MAX_HALF = 0xFFFF  # the 2-byte length's limit: a larger half goes as a private frame


def new_key() -> bytes:
    """A fresh seat key, from the operating system's randomness."""
    return secrets.token_bytes(KEY_BYTES)


def _keystream(key: bytes, nonce: bytes, size: int) -> int:
    """``size`` bytes of keystream as one big-endian int (XOR on ints is one operation)."""
    blake2b = hashlib.blake2b
    if size <= BLOCK:
        block = blake2b(b"k" + nonce + b"\0\0\0\0", key=key).digest()
        return int.from_bytes(block[:size], "big")
    stream = b"".join(blake2b(b"k" + nonce + i.to_bytes(4, "big"), key=key).digest()
                      for i in range(-(-size // BLOCK)))
    return int.from_bytes(stream[:size], "big")


def seal(key: bytes, seq: int, half: dict[str, Any]) -> bytes | None:
    """The sealed bytes of ``half`` (a ``private`` message's fields other than ``v``, ``t``,
    ``seq``, ``k``) for the update numbered ``seq``; None if it is too large to seal."""
    body = msgpack.packb(half, use_bin_type=True)
    size = len(body)
    if size > MAX_HALF:
        return None
    padded = -(-(size + 2) // PAD) * PAD
    plain = size.to_bytes(2, "big") + body + bytes(padded - size - 2)
    nonce = seq.to_bytes(8, "big")
    sealed = (int.from_bytes(plain, "big") ^ _keystream(key, nonce, padded)).to_bytes(
        padded, "big")
    return sealed + hashlib.blake2b(b"t" + nonce + sealed, key=key,
                                    digest_size=TAG_BYTES).digest()


def open_seal(key: bytes, seq: int, sealed: Any) -> dict[str, Any] | None:
    """The half sealed in ``sealed`` for update ``seq``; None when it does not open — not
    bytes, the wrong key or seq, altered on the way, or not a map inside."""
    if type(sealed) is not bytes or len(sealed) < TAG_BYTES + PAD or \
            (len(sealed) - TAG_BYTES) % PAD or type(seq) is not int or not 0 <= seq < 1 << 64:
        return None
    body, tag = sealed[:-TAG_BYTES], sealed[-TAG_BYTES:]
    nonce = seq.to_bytes(8, "big")
    want = hashlib.blake2b(b"t" + nonce + body, key=key, digest_size=TAG_BYTES).digest()
    if not hmac.compare_digest(tag, want):
        return None
    plain = (int.from_bytes(body, "big") ^ _keystream(key, nonce, len(body))).to_bytes(
        len(body), "big")
    size = int.from_bytes(plain[:2], "big")
    if size > len(plain) - 2:
        return None
    try:
        half = msgpack.unpackb(plain[2:2 + size], raw=False, strict_map_key=True)
    except Exception:  # (cannot happen with a good tag, short of a bug at the other end)
        return None
    return half if type(half) is dict else None
