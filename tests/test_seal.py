"""Sealed private halves (PROTOCOL.md §23): the construction, its vectors, and what a curious or
hostile player can do with what the PUB shows every subscriber."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lan_demon.net.codec import VERSION, decode, encode, make
from lan_demon.net.journal import read_journal
from lan_demon.net.recovery import restore
from lan_demon.net.seal import (KEY_BYTES, PAD, TAG_BYTES, half_of, new_key, open_seal,
                                private_of, seal)
from lan_demon.net.table_copy import TableCopy

from arbiter_harness import Table, dealt_table, journaled_table
from copy_link import RecordingLink

pytestmark = pytest.mark.timeout(30)
VECTORS = Path(__file__).resolve().parent.parent / "protocol" / "vectors"
TURN = {"t": "turn"}
EVENTS = [{"e": "turn", "seat": 0, "n": 3, "pack": 32, "waste": 3,
           "private": {"waste_top": "QS@0"}}]
HALF = half_of(EVENTS, None)


def test_a_sealed_half_opens_with_its_key_and_seq_only() -> None:
    key = new_key()
    sealed = seal(key, 11, HALF)
    assert open_seal(key, 11, sealed) == HALF
    assert open_seal(key, 12, sealed) is None  # replayed under another update's number
    assert open_seal(new_key(), 11, sealed) is None  # a rival's key
    assert len(key) == KEY_BYTES and key != new_key()


def test_an_altered_or_cut_seal_does_not_open() -> None:
    key = new_key()
    sealed = seal(key, 5, HALF)
    for i in (0, len(sealed) // 2, len(sealed) - 1):  # a byte flipped anywhere, tag included
        bent = bytearray(sealed)
        bent[i] ^= 1
        assert open_seal(key, 5, bytes(bent)) is None
    for bad in (sealed[:-1], sealed[:TAG_BYTES], b"", "text", None, 7, sealed + b"\0" * PAD):
        assert open_seal(key, 5, bad) is None
    assert open_seal(key, -1, sealed) is None and open_seal(key, 1 << 64, sealed) is None


def test_rd9_the_size_of_a_seal_says_nothing_of_the_card_in_it() -> None:
    """A rival sees the seal's length: every card a seat can turn makes a seal of one size (a
    card code's length differs only by its deck, which is the seat's, and public)."""
    key = new_key()
    for seat in (0, 12):
        sizes = {len(seal(key, 3, half_of([{"e": "turn", "seat": seat, "n": 3, "pack": 9,
                                            "waste": 3, "private": {"waste_top": top}}], None)))
                 for top in (f"{r}{suit}@{seat}" for r in "A23456789TJQK" for suit in "SHDC")}
        assert len(sizes) == 1


def test_a_half_longer_than_one_keystream_block_opens() -> None:
    key = new_key()
    half = half_of([{"e": "play", "seat": 2, "from": "waste", "cards": ["KH@2"] * 9,
                     "private": {"waste_top": "QS@2", "pad": "x" * 60}, "to": "c1"}], {"t": "x"})
    sealed = seal(key, 99, half)
    assert len(sealed) - TAG_BYTES > 64 and open_seal(key, 99, sealed) == half


def test_the_seal_vectors_are_what_the_code_makes() -> None:
    """protocol/vectors/seal.json: the worked seals of §23, byte for byte."""
    import hashlib
    for doc in json.loads((VECTORS / "seal.json").read_text(encoding="utf-8")):
        key = bytes.fromhex(doc["key"])
        assert doc["half"] == half_of(doc["events"], doc.get("move"))
        assert seal(key, doc["seq"], doc["half"]).hex() == doc["sealed"]
        assert open_seal(key, doc["seq"], bytes.fromhex(doc["sealed"])) == doc["half"]
        nonce = doc["seq"].to_bytes(8, "big")
        block = hashlib.blake2b(b"k" + nonce + bytes(4), key=key).digest()
        assert block.hex() == doc["keystream_block_0"]
        assert doc["sealed"].endswith(doc["tag"])


def test_an_opened_half_puts_the_private_parts_back_into_the_public_events() -> None:
    public = [{"e": "play", "seat": 1, "from": "waste", "cards": ["9C@1"], "to": "s2"},
              {"e": "pile", "seat": 1, "size": 4, "top": "2D@1"}]
    full = private_of({"v": VERSION, "seq": 8, "events": public},
                      {"e": [{"waste_top": "TD@1"}, None], "move": {"t": "m"}})
    assert full == {"v": VERSION, "t": "private", "seq": 8, "k": "move", "move": {"t": "m"},
                    "events": [{**public[0], "private": {"waste_top": "TD@1"}}, public[1]]}
    for bad in ({"e": [None]}, {"e": "x"}, {"e": [1, None]}, {}):  # does not fit the update
        assert private_of({"v": VERSION, "seq": 8, "events": public}, bad) is None


def _turned(t: Table, peer: bytes) -> dict:
    t.send(peer, "move", at=t.now + 0.01, round=t.arbiter.match.round_no, move=TURN,
           ts=t.now + 0.01)
    return [u for u in t.updates("move") if u["rid"] == t.last_id][-1]


def test_rd9_a_rival_cannot_read_my_turned_card_off_the_pub() -> None:
    """Everything Bob and a spectator get — the update, their welcomes, their private frames —
    and Ann's waste top is in none of it but Ann's seal, which only Ann's key opens."""
    t = dealt_table("racing-demon", fairness_ms=0)
    t.send(b"E", "hello", name="Eve", role="spectator")
    update = _turned(t, b"A")
    ann_key, bob_key = t.seal_key(b"A"), t.seal_key(b"B")
    assert ann_key and bob_key and ann_key != bob_key and t.seal_key(b"E") is None
    top = t.arbiter.state.seats[0].waste[-1].to_data()
    assert top.encode() not in encode(update)  # the public half names no card
    assert open_seal(bob_key, update["seq"], update["s"]) is None
    assert open_seal(ann_key, update["seq"], update["s"]) == {"e": [{"waste_top": top}]}
    for peer in (b"B", b"E"):
        assert top not in json.dumps([m for m in t.inbox.get(peer, []) if m["t"] != "welcome"])
    assert not [m for m in t.inbox[b"A"] if m["t"] == "private" and m["k"] == "move"]


def test_a_rejoin_keeps_the_seat_key_and_a_spectator_hello_gets_none() -> None:
    t = dealt_table("racing-demon")
    key = t.seal_key(b"A")
    token = t.arbiter.seats[0].token
    (welcome, *_) = t.send(b"A2", "hello", name="Ann", role="player", token=token)
    assert welcome["seal"] == key  # the same seat, the same key, on its new connection
    (spectator, *_) = t.send(b"S", "hello", name="Sue", role="spectator")
    assert "seal" not in spectator


def test_seal_keys_are_never_journaled_and_a_resumed_table_gives_new_ones(tmp_path) -> None:
    """A key must not outlive its arbiter: the resumed table numbers updates on from the
    journal, and an old key with a reused seq would seal two cards with one keystream."""
    path = tmp_path / "j"
    t, writer = journaled_table(path, "racing-demon", fairness_ms=0)
    _turned(t, b"A")
    writer.close()
    old = [s.seal for s in t.arbiter.seats]
    stored = b"".join(p.read_bytes() for p in tmp_path.iterdir())
    assert all(key not in stored and key.hex().encode() not in stored for key in old)
    arbiter = restore(read_journal(path), 200.0, path).arbiter
    assert [s.seal for s in arbiter.seats] == [None, None]
    out = arbiter.handle(b"A9", encode(make("hello", id=1, name="Ann", role="player",
                                            token=t.arbiter.seats[0].token)), 200.0)
    welcome = decode(encode(out.private[0][1]), "private")
    assert welcome["t"] == "welcome" and len(welcome["seal"]) == KEY_BYTES
    assert welcome["seal"] not in old


def test_a_seal_that_does_not_open_is_healed_by_a_snapshot_at_once() -> None:
    """A forged or stale ``s`` on our own update is never applied: the copy asks a snapshot
    and says why, instead of waiting a second for a private frame that will not come."""
    link = RecordingLink()
    copy = TableCopy(link)
    copy.seat, copy.seal_key = 0, new_key()
    forged = {"v": VERSION, "t": "update", "seq": 1, "k": "move", "round": 0, "seat": 0,
              "move": TURN, "rid": 3, "events": [], "p": True, "s": seal(new_key(), 1, HALF)}
    copy.on_update(forged)
    assert copy.seq == 0 and copy.catching_up
    assert [m["t"] for m in link.sent] == ["snapshot"]
    assert any("did not open" in n.text for n in copy.notices)
