"""Frames from the arbiter: several messages in one frame (PROTOCOL.md §2), messages whose
bytes are packed once and spliced into many frames (a deal's copies of the table), and the
frame the server sends for each peer's replies and each wake-up's updates.

What the bytes mean is :mod:`lan_demon.net.codec`'s; this module only makes the same bytes
msgpack would, with less work when many frames share most of them.
"""

from __future__ import annotations

from typing import Any

import msgpack

from lan_demon.net.guard import log_internal


def encode_many(msgs: list[dict[str, Any]], packer: msgpack.Packer | None = None) -> bytes:
    """One frame for several messages from the arbiter, in order (PROTOCOL.md §2): one message
    is packed as its map, several as an array of maps. ``packer``: a ``msgpack.Packer`` of
    the caller's own (``use_bin_type=True``), reused frame after frame — cheaper than
    :func:`lan_demon.net.codec.encode`'s fresh one, and never shared between threads. Every map
    must already carry ``v`` (:func:`lan_demon.net.codec.make` puts it first). A
    :class:`Packed` message goes as the bytes it holds: msgpack writes an array as its header
    and then each item's bytes, so the frame is the same as if it had been packed here."""
    pack = packer.pack if packer is not None else _packb
    if len(msgs) == 1:
        msg = msgs[0]
        return msg.raw if type(msg) is Packed else pack(msg)
    if Packed not in map(type, msgs):  # the usual frame, packed in one call
        return pack(msgs)
    return b"".join([array_header(len(msgs))]
                    + [m.raw if type(m) is Packed else pack(m) for m in msgs])


class Packed(dict):
    """A message whose msgpack bytes are made already: ``raw`` is exactly
    ``msgpack.packb(dict(self), use_bin_type=True)``. A deal sends every seat the whole table,
    and those copies share nearly all their bytes; :class:`SharedPacker` packs what they share
    once, and the frame (:func:`encode_many`) splices the bytes in. It is still a dict, so what
    reads an outbox reads it as before; it is frozen, as its bytes would not follow a change
    (the values inside are the sender's to leave alone, as any message's are once sent)."""

    __slots__ = ("raw",)

    def __init__(self, msg: dict[str, Any], raw: bytes):
        super().__init__(msg)
        self.raw = raw

    def __reduce__(self) -> tuple[Any, ...]:  # copy and pickle, which would set its items
        return Packed, (dict(self), self.raw)

    def _frozen(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError("a Packed message is frozen: its bytes are already made")

    __setitem__ = __delitem__ = update = pop = popitem = clear = setdefault = _frozen
    __ior__ = _frozen


class SharedPacker:
    """Packs messages as ``msgpack.packb`` would, reusing the bytes of what they share with
    one reference message: at a deal every seat's ``private`` message holds the whole table,
    and each seat's table is mostly — in Racing Demon at Go, wholly — the very objects of
    the public update's. msgpack is concatenative (a map is its header and then each key's and
    value's bytes, a list its header and its items'), so a message is packed as its header and
    its fields, and a field is taken apart alongside the reference's, ``depth`` levels down (a
    message, its state, the state's seats list, a seat): a part that *is* the reference's
    (identity, not equality) is the reference part's bytes, packed once; the rest msgpack packs
    whole. Only plain ``dict`` and ``list`` are taken apart: anything else, or a message that
    shares nothing, is packed exactly as msgpack packs it, in a few more calls. The reference
    must not change until the messages are sent (nor any message, as always once sent)."""

    def __init__(self, like: dict[str, Any], depth: int = 3):
        self.like = like
        self.depth = depth
        self._pack = msgpack.Packer(use_bin_type=True).pack
        self._memo: dict[int, bytes] = {}  # the reference's parts by id (it keeps them alive)

    def message(self, msg: dict[str, Any]) -> Packed:
        """``msg`` as a :class:`Packed` message, its bytes made now."""
        pack, part, like = self._pack, self._part, self.like
        parts = [map_header(len(msg))]
        for key, value in msg.items():
            parts.append(pack(key))
            parts.append(part(value, like.get(key), self.depth - 1))
        return Packed(msg, b"".join(parts))

    def _part(self, value: Any, like: Any, depth: int) -> bytes:
        kind = type(value)
        if kind is not dict and kind is not list:
            return self._pack(value)
        if value is like:
            raw = self._memo.get(id(like))
            if raw is None:
                raw = self._memo[id(like)] = self._pack(like)
            return raw
        if depth <= 0 or type(like) is not kind:
            return self._pack(value)
        part = self._part
        if kind is dict:
            pack, get = self._pack, like.get
            parts = [map_header(len(value))]
            for key, item in value.items():
                parts.append(pack(key))
                parts.append(part(item, get(key), depth - 1))
            return b"".join(parts)
        return b"".join([array_header(len(value))] + [
            part(item, like[i] if i < len(like) else None, depth - 1)
            for i, item in enumerate(value)])


def array_header(n: int) -> bytes:
    """The msgpack header of an array of ``n`` items (fixarray, array 16, array 32)."""
    return _header(n, 0x90, b"\xdc", b"\xdd")


def map_header(n: int) -> bytes:
    """The msgpack header of a map of ``n`` pairs (fixmap, map 16, map 32)."""
    return _header(n, 0x80, b"\xde", b"\xdf")


def _header(n: int, fix: int, wide16: bytes, wide32: bytes) -> bytes:
    if n < 16:
        return bytes((fix | n,))
    if n < 0x10000:
        return wide16 + n.to_bytes(2, "big")
    return wide32 + n.to_bytes(4, "big")


def _packb(obj: Any) -> bytes:
    return msgpack.packb(obj, use_bin_type=True)


def frame(msgs: list[dict[str, Any]], packer: msgpack.Packer) -> bytes | None:
    """The frame the server sends for ``msgs`` (one peer's replies, or a wake-up's updates),
    packed with the loop's own ``packer``; a :class:`Packed` message goes as its bytes. A
    message that cannot be packed (a bug) is logged and left out, not allowed to take the
    others of its frame with it."""
    try:
        return encode_many(msgs, packer)
    except Exception as err:
        packer.reset()
        good = []
        for msg in msgs:
            try:
                if type(msg) is not Packed:
                    packer.pack(msg)
                good.append(msg)
            except Exception:
                packer.reset()
                log_internal(f"packing a {msg.get('t')!r} message", err)
        return encode_many(good, packer) if good else None
