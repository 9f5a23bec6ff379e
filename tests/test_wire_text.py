"""Text a client sends is cut by characters so that it fits in bytes (PROTOCOL.md §2, §4.1).

The arbiter keeps 24 characters of a name and 200 of a dispute's reason, but its unpacker
refuses any string over 256 bytes of UTF-8 — the whole frame, without ``re``. A reason of 200
"é" is 400 bytes: the reference client once sent it as it was, and its dispute never reached
the table.
"""

from __future__ import annotations

import pytest
from arbiter_harness import Table, dealt_table

from lan_demon.net.client import Client
from lan_demon.net.codec import (DISPUTE_CHARS, NAME_CHARS, UNPACK_LIMITS, VERSION, decode,
                                 encode, fit_text)
from lan_demon.net.names import NAME_CELLS

pytestmark = pytest.mark.timeout(30)
MAX_STR = UNPACK_LIMITS["max_str_len"]


@pytest.mark.parametrize("text", ["é" * 200, "€" * 200, "🂡" * 200, "a" * 300, "aé" * 150,
                                  "x" * 255 + "é", "Ann"])
def test_fit_text_cuts_at_a_character_to_fit_the_byte_limit(text):
    for chars in (NAME_CHARS, DISPUTE_CHARS):
        cut = fit_text(text, chars)
        assert len(cut.encode()) <= MAX_STR and len(cut) <= chars
        assert text.startswith(cut)
        assert len(cut) == chars or len(cut) == len(text) or \
            len(text[:len(cut) + 1].encode()) > MAX_STR  # the longest that fits


def test_a_name_the_arbiter_seats_always_fits_what_a_client_may_send():
    """At most NAME_CELLS cells of at most 3 characters each (a letter and two marks)."""
    assert 3 * NAME_CELLS <= NAME_CHARS * 2 and 3 * NAME_CELLS * 4 <= MAX_STR


def sent_by(client: Client) -> list[dict]:
    """What ``client`` queues for the arbiter, read by the arbiter's own decoder."""
    frames: list[dict] = []
    client.send = lambda msg: frames.append(decode(encode(msg), "client")) or True
    return frames


def test_a_dispute_with_a_reason_of_200_accented_letters_reaches_the_table():
    """The reference client cuts a dispute's reason to fit (it was refused as malformed)."""
    t = dealt_table("racko")
    client = Client("tcp://127.0.0.1:9", name="Ann")  # never connected: no socket is opened
    client.copy.seat, client.connected, client.copy.game = 0, True, t.arbiter.game
    frames = sent_by(client)
    client.copy.duties.found(0, ["é" * 200])  # what our check of round 0's deal found
    (dispute,) = frames
    assert dispute["t"] == "dispute" and dispute["reason"] == "é" * 128
    assert t.deliver(b"A", encode(dispute)) == [{"v": VERSION, "t": "ok", "re": dispute["id"]}]
    assert t.updates("dispute")[-1]["reason"] == "é" * 128


def test_a_hello_with_a_long_name_of_accented_letters_takes_a_seat():
    """The reference client trims and cuts its name to what the arbiter reads; the arbiter
    seats 12 cells of it."""
    t = Table("racko")
    client = Client("tcp://127.0.0.1:9", name="  " + "é" * 200)
    frames = sent_by(client)
    client.send(client._hello())
    (hello,) = frames
    assert hello["name"] == "é" * NAME_CHARS
    (welcome, *_) = t.deliver(b"C", encode(hello))
    assert welcome["t"] == "welcome" and t.arbiter.seats[welcome["seat"]].name == "é" * 12
    assert welcome["name"] == "é" * 12  # the welcome says the name the seat sits under
