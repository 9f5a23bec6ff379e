"""PROTOCOL.md §21 "The deal" written again from the document and SHA-256 alone, as a stranger
would in any language: the stream, below(n), Fisher-Yates (§21.2-§21.4) and Gin Solitaire's
deal (§21.6). Tests hold lan_demon.games.deal and the golden vectors to it."""

from __future__ import annotations

import hashlib


class Spec:
    """§21.2-§21.4 written out again from the document: a stream, below(n), Fisher-Yates."""

    def __init__(self, secret: bytes):
        self.secret, self.block, self.buf = secret, 0, b""

    def word(self) -> int:
        if not self.buf:
            self.buf = hashlib.sha256(b"lan_demon/deal/v1" + self.secret
                                      + self.block.to_bytes(8, "big")).digest()
            self.block += 1
        w, self.buf = self.buf[:8], self.buf[8:]
        return int.from_bytes(w, "big")

    def below(self, n: int) -> int:
        limit = 2**64 - 2**64 % n
        while (u := self.word()) >= limit:
            pass
        return u % n

    def shuffle(self, items: list) -> None:
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]


def gin_deal(secret: bytes, setup: dict) -> list[dict]:
    """§21.6 for Gin Solitaire, written again from the text alone: each seat's ``hand`` and
    ``draw`` (bottom first). One deal: shuffle the 52 (21.5), the hand is the first 11, the
    other 41 and ``JK`` after them are shuffled into the Draw pile. ``deals`` duplicate (or
    none): one deal copied to every seat; independent: one deal per seat in seat order, from
    the one stream, a seat sitting out included."""
    stream = Spec(secret)

    def one() -> dict:
        pack = [rank + suit for suit in "SHDC" for rank in "A23456789TJQK"]
        stream.shuffle(pack)
        draw = pack[11:] + ["JK"]
        stream.shuffle(draw)
        return {"hand": pack[:11], "draw": draw}

    seats = setup["players"]
    if setup.get("deals", "duplicate") == "duplicate":
        return [one()] * seats
    return [one() for _ in range(seats)]
