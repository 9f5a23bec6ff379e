"""PROTOCOL.md §21 "The deal": the golden deal vectors — secret → every seat's cards
in order, for all four games, and Gin Solitaire's independent deals (GS-9) — are what
our Python deals (RD-3, RK-2, RK-3, GS-2), and the shuffle spec re-implemented here from SHA-256
alone (as a stranger would, in any language) gives the same numbers as lan_demon.games.deal."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import msgpack
import pytest

from lan_demon.games import Match, get_game
from lan_demon.games.deal import DealRandom, round_secret, seed_secret
from deal_spec import Spec, gin_deal

pytestmark = pytest.mark.timeout(30)

VECTORS = Path(__file__).resolve().parent.parent / "protocol" / "vectors"
GAMES = ("racing-demon", "racing-demon-german", "racko", "gin-solitaire")
#: deal-NAME.json: one per game, and Gin Solitaire's independent deals (GS-9)
NAMES = GAMES + ("gin-solitaire-independent",)


def load(name: str) -> dict:
    return json.loads((VECTORS / f"deal-{name}.json").read_text(encoding="utf-8"))


def test_deal_vectors_exist_for_all_four_games():
    assert sorted(p.stem for p in VECTORS.glob("deal-*.json")) == sorted(f"deal-{g}"
                                                                        for g in NAMES)


@pytest.mark.parametrize("name", ["gin-solitaire", "gin-solitaire-independent"])
def test_gs2_gs9_the_gin_vectors_are_section_21_6_written_again(name):
    """GS-2, GS-9: the text of §21.6 alone (no engine) deals each Gin vector: a copy of one
    deal for every seat when duplicate; each seat its own, seat order, when independent."""
    doc = load(name)
    seats = gin_deal(bytes.fromhex(doc["round_secret"]), doc["setup"])
    assert seats == doc["deal"]["seats"]
    hands = {tuple(s["hand"]) for s in seats}
    if doc["setup"]["deals"] == "duplicate":
        assert len(hands) == 1
    else:
        assert len(hands) == len(seats) == 3 and doc["setup"]["sat_out"] == [1]
        duplicate = gin_deal(bytes.fromhex(doc["round_secret"]), {"players": 1})
        assert seats[0] == duplicate[0]  # seat 0's is the deal duplicate would copy


@pytest.mark.parametrize("name", NAMES)
def test_rd3_rk2_gs2_the_round_secret_and_the_stream_follow_the_spec(name):
    doc = load(name)
    host = bytes.fromhex(doc["host_secret"])
    if "seed" in doc:  # §21.1: a seeded table's host secret
        assert host == hashlib.sha256(f"lan_demon/seed/v1:{doc['seed']}:{doc['round']}"
                                      .encode()).digest() == seed_secret(doc["seed"], doc["round"])
    nonces = {seat: bytes.fromhex(n) for seat, n in doc["nonces"]}
    mixed = hashlib.sha256(b"lan_demon/round/v1" + host + b"".join(
        seat.to_bytes(2, "big") + nonces[seat] for seat in sorted(nonces))).digest()
    secret = bytes.fromhex(doc["round_secret"])
    assert secret == mixed == round_secret(host, nonces)
    assert hashlib.sha256(b"lan_demon/deal/v1" + secret + bytes(8)).hexdigest() == doc["block_0"]
    for shuffler in (Spec(secret), DealRandom(secret)):
        check = list(range(52))
        shuffler.shuffle(check)
        assert check == doc["shuffle_0_to_51"]


@pytest.mark.parametrize("name", NAMES)
def test_rd3_rk2_gs2_our_engines_deal_every_seat_the_cards_of_the_vector(name):
    doc = load(name)
    game = doc["game"]
    engine = get_game(game)
    secret = bytes.fromhex(doc["round_secret"])
    for rng in (DealRandom(secret), Spec(secret)):  # the spec's stream deals the same
        state = engine.deal(doc["setup"], rng)
        want = doc["deal"]
        if game == "racko":
            assert [list(r) for r in state.racks] == want["racks"]
            assert state.discard == want["discard"] and state.draw == want["draw"]
            assert state.dealer == want["dealer"] and state.turn == want["turn"]
            assert want["dealer"] == want["cut"].index(max(want["cut"]))
        elif game == "gin-solitaire":
            assert [{"hand": [c.to_data() for c in s.hand],
                     "draw": [c.to_data() for c in s.draw]} for s in state.seats] == want["seats"]
        else:
            assert [{"pile": [c.to_data() for c in s.pile],
                     "columns": [[c.to_data() for c in col] for col in s.columns],
                     "pack": [c.to_data() for c in s.pack]} for s in state.seats] == want["seats"]


def test_rd3_a_seeded_match_deals_the_german_vector():
    """Match.deal of a seeded match is the vector's deal: seed 55, round 0 (§21.1)."""
    doc = load("racing-demon-german")
    match = Match(get_game("racing-demon-german"), ["a", "b"], seed=doc["seed"])
    assert match.setup == doc["setup"]
    state = match.deal()
    assert [[c.to_data() for c in s.pile] for s in state.seats] == \
        [s["pile"] for s in doc["deal"]["seats"]]


def test_rd3_a_rejected_word_takes_the_streams_next_and_the_stream_stays_in_step(monkeypatch):
    """§21.3's rejection, forced: with every limit at 2**63 about half the words are rejected.
    DealRandom's shuffle (which takes its words from the stream up front) and the spec's, one
    word at a time, then shuffle alike, shuffle after shuffle — and the stream goes on at the
    same word after them."""
    import lan_demon.games.deal as deal
    half = 2**63
    monkeypatch.setattr(deal, "_LIMITS", (0,) + (half,) * 128)

    class Forced(Spec):
        def below(self, n: int) -> int:
            while (u := self.word()) >= half:
                pass
            return u % n

    secret = hashlib.sha256(b"forced rejections").digest()
    ours, spec = DealRandom(secret), Forced(secret)
    for size in (52, 10, 1, 0, 2, 33, 104):
        mine, theirs = list(range(size)), list(range(size))
        ours.shuffle(mine)
        spec.shuffle(theirs)
        assert mine == theirs
    assert [ours._next() for _ in range(9)] == [spec.word() for _ in range(9)]


@pytest.mark.parametrize("game", GAMES)
def test_rd3_rk2_gs2_the_fingerprint_of_a_deal_follows_the_spec(game):
    """§22.4: the deal's fingerprint published at Go is SHA-256 of the tag, the round secret
    and the msgpack bytes (§2's encoder) of the dealt state's map with nothing hidden — the
    vector's ``state``, which is what our engine deals, written out as §14–§16 say."""
    doc = load(game)
    engine = get_game(game)
    secret = bytes.fromhex(doc["round_secret"])
    assert engine.state_to_data(engine.deal(doc["setup"], DealRandom(secret))) == doc["state"]
    packed = msgpack.packb(doc["state"], use_bin_type=True)  # (JSON keeps the key order)
    assert hashlib.sha256(b"lan_demon/deal-hash/v1" + secret + packed).hexdigest() == \
        doc["fingerprint"]
