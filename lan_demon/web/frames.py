"""What a page may send the gateway, read and checked before anything acts on it.

Every frame from a browser is suspect, as every frame to the arbiter is (``net/codec.py``): one
JSON object, at most :data:`MAX_FRAME` bytes (aiohttp closes a socket that sends more), each
field of the type and size the contract says (``docs/page-protocol.md``). A frame that is not
is answered ``{"t": "error", "words": ...}`` in plain words and changes nothing. The flood
brake is the arbiter's own token bucket (:class:`lan_demon.net.guard.RateLimiter`), one per
socket: a page sends a tap or a key at a time, so :data:`RATE` a second is far above any
person and far below what would cost the other seats anything. A frame over the bucket is
dropped, and the gateway then reads nothing from that page for ``1/RATE`` seconds (see
:meth:`lan_demon.web.gateway.Gateway.handle`): a flood waits in its sender's buffers.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

MAX_FRAME = 4096  # bytes of one frame from a page (aiohttp's max_msg_size)
RATE, BURST = 20.0, 40.0  # frames a second one socket may send, and at once
NAME_MOST = 24  # characters of a name as typed (the arbiter seats at most 12 cells of it)
CODE_MOST = 40  # characters of a room code as typed (spaces, hyphens: normalised later)
TOKEN_MOST = 64
KEY_MOST = 16
WORD_MOST = 24  # an intent's name or a source / place / card code


class FrameError(ValueError):
    """A frame the gateway cannot read; its text is the words the page is sent."""


@dataclass(frozen=True)
class Join:
    """Sit down (or watch): ``token`` from the page's storage takes a kept seat back."""

    name: str
    code: str | None = None
    watch: bool = False
    token: str | None = None


@dataclass(frozen=True)
class Act:
    """An intent: ``do`` is its name, ``args`` the rest of the frame (checked here for type and
    size only; whether it may be done is the seat's to say)."""

    do: str
    args: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Key:
    """A key pressed on a keyboard, mapped as the terminal maps it (the face's ``keys``)."""

    key: str


@dataclass(frozen=True)
class Leave:
    """Give the seat up."""


Frame = Join | Act | Key | Leave

#: Arguments an intent may carry, by name, with their type: str (a short code), int or bool.
ARGS: dict[str, type] = {"from": str, "to": str, "slot": int, "card": str, "sure": bool,
                         "seat": int, "bot": int}  # (the captain's remove, its bot, §24)


def read_frame(text: Any) -> Frame:
    """The frame ``text`` (a WebSocket text message) says, or :class:`FrameError`."""
    if not isinstance(text, str):
        raise FrameError("the page sent something that is not text; reload the page")
    if len(text.encode("utf-8", "surrogatepass")) > MAX_FRAME:
        raise FrameError("the page sent a message too long to read; reload the page")
    try:
        msg = json.loads(text)
    except (ValueError, RecursionError):
        raise FrameError("the page sent a message that could not be read; reload the "
                         "page") from None
    if not isinstance(msg, dict) or not isinstance(msg.get("t"), str):
        raise FrameError("the page sent a message without a kind; reload the page")
    kind = msg["t"]
    if kind == "join":
        watch = _flag(msg, "watch")  # a watcher needs no name, nor a seat taken back
        token = _text(msg, "token", TOKEN_MOST)
        return Join(name=(_text(msg, "name", NAME_MOST, needed=not (watch or token)) or "")
                    .strip(), code=_text(msg, "code", CODE_MOST), watch=watch, token=token)
    if kind == "act":
        do = _text(msg, "do", WORD_MOST, needed=True)
        args = {}
        for name, value in msg.items():
            if name in ("t", "do"):
                continue
            want = ARGS.get(name)
            if want is None:
                raise FrameError(f"the page asked for {do!r} with an unknown part {name[:20]!r}")
            if want is str:
                args[name] = _text(msg, name, WORD_MOST)
            elif want is bool:
                args[name] = _flag(msg, name)
            else:
                args[name] = _whole(msg, name)
        return Act(do, args)
    if kind == "key":
        return Key(_text(msg, "key", KEY_MOST, needed=True))
    if kind == "leave":
        return Leave()
    raise FrameError(f"the page sent a message of an unknown kind ({kind[:20]!r})")


def _text(msg: dict[str, Any], name: str, most: int, needed: bool = False) -> str | None:
    value = msg.get(name)
    if value is None and not needed:
        return None
    if not isinstance(value, str) or (needed and not value.strip()):
        raise FrameError(f"the page's message lacks its {name}" if value is None or
                         isinstance(value, str) else f"the page's {name} is not text")
    if len(value) > most:
        raise FrameError(f"the {name} is too long: at most {most} characters")
    return value


def _flag(msg: dict[str, Any], name: str) -> bool:
    value = msg.get(name, False)
    if not isinstance(value, bool):
        raise FrameError(f"the page's {name} is not true or false")
    return value


def _whole(msg: dict[str, Any], name: str) -> int:
    value = msg.get(name)
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 1000:
        raise FrameError(f"the page's {name} is not a small whole number")
    return value


def error_frame(words: str) -> dict[str, Any]:
    return {"t": "error", "words": words}
