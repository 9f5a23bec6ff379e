"""A deal's messages are packed once and spliced per seat, and the wire does not change by a
byte: what the server's framing function (``packing.frame``) makes of the deal's outbox is
msgpack of the plain messages, for every game, several seat counts and seeds; and the pieces
(``packing.SharedPacker``, ``Packed``, the headers) equal msgpack on odd shapes too."""

from __future__ import annotations

import copy
import random
from typing import Any

import msgpack
import pytest

from table_settings import settings
from lan_demon.games import get_game
from lan_demon.net.arbiter import Arbiter
from lan_demon.net.codec import encode, make
from lan_demon.net.packing import (Packed, SharedPacker, array_header, encode_many, frame,
                                   map_header)
from lan_demon.net.outbox import Outbox

pytestmark = pytest.mark.timeout(60)

SEATS = (2, 6, 20, 100)
GAMES = ("racing-demon", "racing-demon-german", "racko", "gin-solitaire")


def _limits(game: str) -> tuple[int, int]:
    g = get_game(game)
    return g.min_players, g.max_players


# Each game at each of SEATS it allows, and at its most seats (Rack-O 4, the others 8).
CASES = [(game, n) for game in GAMES for n in SEATS
         if _limits(game)[0] <= n <= _limits(game)[1]]
CASES += [(game, _limits(game)[1]) for game in GAMES if _limits(game)[1] not in SEATS]


def packb(obj: Any) -> bytes:
    return msgpack.packb(obj, use_bin_type=True)


def plain(msg: dict[str, Any]) -> dict[str, Any]:
    """The message as a plain dict, as the arbiter made it before splicing."""
    return dict(msg)


def dealt(game: str, seats: int, seed: int) -> tuple[Arbiter, Outbox, list[bytes]]:
    """A table of ``seats`` players, seated and ready, and the outbox of the tick at Go."""
    now = 100.0
    arb = Arbiter(settings(game, players=seats, seed=seed, countdown=1.0, pause=0, rate_limit=0),
                  now=now)
    peers = [f"peer-{i}".encode() for i in range(seats)]
    for i, peer in enumerate(peers):
        arb.handle(peer, encode(make("hello", id=1, name=f"p{i}", role="player")), now)
    for peer in peers:
        arb.handle(peer, encode(make("ready", id=2)), now)
    assert arb.phase == "countdown"
    out = arb.tick(now + 1.0)
    assert arb.phase in ("playing", "between", "over")
    return arb, out, peers


def frames(out: Outbox, packer: msgpack.Packer) -> tuple[bytes | None, dict[bytes, bytes]]:
    """The frames the server's _send makes of ``out``: one PUB frame, one per peer."""
    pub = frame(out.public, packer) if out.public else None
    replies: dict[bytes, list[dict[str, Any]]] = {}
    for peer, msg in out.private:
        replies.setdefault(peer, []).append(msg)
    return pub, {peer: frame(msgs, packer) for peer, msgs in replies.items()}


def expected(msgs: list[dict[str, Any]]) -> bytes:
    return packb(plain(msgs[0]) if len(msgs) == 1 else [plain(m) for m in msgs])


@pytest.mark.parametrize("game,seats", CASES)
@pytest.mark.parametrize("seed", [1, 7, 12060])
def test_a_deal_s_frames_are_byte_for_byte_msgpack_of_the_plain_messages(game, seats, seed):
    arb, out, peers = dealt(game, seats, seed)
    pub, private = frames(out, msgpack.Packer(use_bin_type=True))
    assert pub == expected(out.public)
    rounds = [(p, m) for p, m in out.private if m.get("k") == "round"]
    assert [p for p, _ in rounds] == peers  # every seat was dealt its copy
    for peer in peers:
        mine = [m for p, m in out.private if p == peer]
        assert private[peer] == expected(mine)
    update = next(m for m in out.public if m.get("k") == "round")
    assert type(update) is Packed and all(type(m) is Packed for _, m in rounds)


@pytest.mark.parametrize("game,seats", [c for c in CASES if c[1] <= 20])
def test_each_seat_s_spliced_round_is_its_own_redaction_of_the_table(game, seats):
    """Against the plainest reference: msgpack of ``state_to_data(redact(state, seat))``, made
    without the game's shared redaction, so the splice cannot borrow a wrong part."""
    arb, out, peers = dealt(game, seats, 5)
    if arb.phase != "playing":
        pytest.skip("the round ended at Go")
    game_ = arb.game
    for index, (peer, msg) in enumerate((p, m) for p, m in out.private if m.get("k") == "round"):
        own = make("private", seq=msg["seq"], k="round",
                   state=game_.state_to_data(game_.redact(arb.state, index)))
        assert frame([msg], msgpack.Packer(use_bin_type=True)) == packb(own)


def test_a_table_mid_round_shares_all_but_each_seat_s_own_entry_and_still_packs_exactly():
    """Racing Demon mid-round: a seat with a waste sees its own top card, so its copy is a
    new dict beside the public one's, sharing every other seat's entry: the part that differs
    is packed, the rest spliced, and the bytes are msgpack's."""
    arb, _, peers = dealt("racing-demon", 20, 3)
    turn = arb.game.move_from_data({"t": "turn"})
    for seat in range(20):
        arb.game.apply(arb.state, seat, turn)
    *mine, public = arb.game.redacted_data(arb.state, list(range(20)) + [None])
    assert any(m is not public for m in mine)  # the shape the splice takes apart
    assert any(m["seats"][1] is public["seats"][1] for m in mine if m is not public)
    update = make("update", seq=9, k="round", state=public)
    sharing = SharedPacker(update)
    for state in mine:
        msg = make("private", seq=9, k="round", state=state)
        assert sharing.message(msg).raw == packb(msg)
    assert sharing.message(update).raw == packb(update)


def _odd_value(rng: random.Random, like: Any, depth: int) -> Any:
    """A value built partly of ``like``'s own objects, partly new ones of odd kinds."""
    roll = rng.random()
    if like is not None and roll < 0.35:
        return like  # the reference's very object
    if depth == 0 or roll < 0.55:
        return rng.choice([None, True, False, 0, -1, 2**40, -2**63, 2**64 - 1, 1.5, -0.0,
                           "", "é" * 40, "x" * 300, b"\x00\xff", (1, "a"), [], {}])
    if roll < 0.8:
        size = rng.choice([0, 1, 15, 16, 17, 300] if depth == 1 else [0, 1, 2, 16])
        old = like if type(like) is list else []
        return [_odd_value(rng, old[i] if i < len(old) else None, depth - 1)
                for i in range(size)]
    old = like if type(like) is dict else {}
    keys = list(old) + [rng.choice(["a", "b", 7, -3, "seats"])
                        for _ in range(rng.choice([0, 3, 16]))]
    return {k: _odd_value(rng, old.get(k), depth - 1) for k in keys}


@pytest.mark.parametrize("seed", range(12))
def test_the_shared_packer_is_msgpack_on_odd_shapes(seed):
    rng = random.Random(seed)
    reference = {"v": 3, "t": "update", "state": _odd_value(rng, None, 4),
                 "more": _odd_value(rng, None, 3)}
    sharing = SharedPacker(reference, depth=rng.choice([0, 1, 2, 3, 5]))
    for _ in range(6):
        msg = {"v": 3, "t": "private", "state": _odd_value(rng, reference["state"], 4),
               "more": _odd_value(rng, reference["more"], 3), 5: reference["state"]}
        assert sharing.message(msg).raw == packb(msg)
    assert sharing.message(reference).raw == packb(reference)


@pytest.mark.parametrize("n", [0, 1, 15, 16, 255, 256, 65535, 65536, 2**32 - 1])
def test_the_headers_are_msgpack_s(n):
    packer = msgpack.Packer(use_bin_type=True)
    assert array_header(n) == packer.pack_array_header(n)
    assert map_header(n) == packer.pack_map_header(n)


def test_a_packed_message_is_a_frozen_dict_whose_bytes_are_its_own():
    msg = make("private", seq=3, k="round", state={"a": [1, 2]})
    packed = SharedPacker(msg).message(msg)
    assert packed == msg and packed.raw == packb(msg) and isinstance(packed, dict)
    for change in (lambda: packed.__setitem__("seq", 4), lambda: packed.pop("seq"),
                   lambda: packed.update(seq=4), lambda: packed.setdefault("x", 1),
                   lambda: packed.clear(), lambda: packed.popitem(),
                   lambda: packed.__delitem__("seq")):
        with pytest.raises(TypeError):
            change()
    with pytest.raises(TypeError):
        packed |= {"seq": 4}
    assert packed == msg and packed.raw == packb(msg)
    again = copy.deepcopy(packed)
    assert type(again) is Packed and again == msg and again.raw == packed.raw


def test_encode_many_writes_a_packed_message_as_its_bytes_alone_or_among_others():
    a, b = make("ok", re=1), make("error", code="illegal", reason="no")
    big = make("private", seq=2, k="round", state={"seats": [{"x": i} for i in range(40)]})
    packed = SharedPacker(big).message(big)
    packer = msgpack.Packer(use_bin_type=True)
    assert encode_many([packed]) == packed.raw == packb(big)
    for msgs in ([a, packed], [packed, a, b], [a, b, packed] * 6):  # 18: an array 16 header
        assert encode_many(msgs) == encode_many(msgs, packer) == packb([dict(m) for m in msgs])


def test_a_frame_with_a_message_that_cannot_be_packed_keeps_the_packed_one():
    big = make("private", seq=2, k="round", state={"seats": [1, 2]})
    packed = SharedPacker(big).message(big)
    bad = make("private", seq=3, k="x", state={"bad": {1, 2}})  # a set: msgpack refuses it
    assert frame([packed, bad, make("ok", re=1)], msgpack.Packer(use_bin_type=True)) == \
        packb([big, make("ok", re=1)])
