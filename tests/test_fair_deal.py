"""Deals no one can predict or choose (commit and reveal, §22).

Unpredictable: a host without ``--seed`` once drew its match seed from 10⁹ values, and every deal
followed from it, so a spectator recovered it from the first deal's public cards. Unchosen: nothing
committed to a deal before it was dealt and no player added randomness, so a host could try seeds
until one suited it. Now each round is dealt from 256 bits the host commits to before the
countdown, mixed with a nonce from every player committed before that; the round's end reveals the
secret, and every client re-deals to check.
"""

from __future__ import annotations

import hashlib

import pytest

from arbiter_harness import Table
from lan_demon.net.settings import Secret, Seeded
from lan_demon.games import Match, get_game
from lan_demon.games.deal import DealRandom, commitment, round_secret, seed_secret
from lan_demon.net.client import Client
from lan_demon.net.fairdeal import HostDeal, check_deal, pairs
from lan_demon.net.witness import DealWitness
from net_harness import pump_until

pytestmark = pytest.mark.timeout(60)

NONCE_A, NONCE_B = bytes(range(16)), bytes(range(16, 32))


def words(nonce: bytes) -> dict[str, str]:
    """A commitment's check words' hashes (§22.6): any two distinct words will do here."""
    return {"ok": commitment(b"ok" + nonce), "fail": commitment(b"fail" + nonce)}


def promise(nonce: bytes) -> dict[str, str]:
    """The fields of a ``commit`` for ``nonce``."""
    return {"hash": commitment(nonce), **words(nonce)}


def countdown_table(**config) -> Table:
    """An unseeded two-seat table with a countdown, Ann and Bob seated (not ready)."""
    t = Table(seed=None, countdown=1.0, **config)
    t.seat(b"A", "Ann")
    t.seat(b"B", "Bob")
    return t


def to_go(t: Table, commit: bool = True, reveal: bool = True) -> dict:
    """Commit (in the lobby), ready, reveal during the countdown, Go; the countdown update."""
    if commit:
        t.send(b"A", "commit", id=901, round=0, **promise(NONCE_A))
        t.send(b"B", "commit", id=902, round=0, **promise(NONCE_B))
    t.send(b"A", "ready")
    t.send(b"B", "ready")
    countdown = [u for u in t.published if u.get("k") == "countdown"][-1]
    if reveal:
        t.send(b"A", "reveal", id=903, round=0, nonce=NONCE_A.hex())
        t.send(b"B", "reveal", id=904, round=0, nonce=NONCE_B.hex())
    t.tick(t.now + 1.0)
    return countdown


def end_round(t: Table) -> dict:
    """Three RD-13 rotations (both seats vote stuck) end the round; its round_end update."""
    for _ in range(3):
        for peer in (b"A", b"B"):
            t.send(peer, "move", round=0, move={"t": "stuck"}, ts=t.now)
    return [u for u in t.published if u.get("k") == "round_end"][-1]


def all_frames(t: Table) -> list[dict]:
    return t.published + [m for msgs in t.inbox.values() for m in msgs]


# --- unpredictable -------------------------------------------------------------------------

def test_an_unseeded_round_is_dealt_from_256_fresh_bits_mixed_with_the_nonces():
    t = countdown_table()
    countdown = to_go(t)
    deal = t.arbiter.commitments.deal_round
    assert len(deal.secret) == 32 and not deal.seeded and countdown["seeded"] is False
    assert countdown["commit"] == hashlib.sha256(deal.secret).hexdigest()
    assert deal.nonces == {0: NONCE_A, 1: NONCE_B}
    dealt = get_game("racing-demon").deal(
        t.arbiter.match.setup, DealRandom(round_secret(deal.secret, deal.nonces)))
    assert get_game("racing-demon").state_to_data(dealt) == \
        get_game("racing-demon").state_to_data(t.arbiter.state)
    other = countdown_table()
    to_go(other)
    assert other.arbiter.commitments.deal_round.secret != deal.secret  # the OS's bits, not a seed's


def test_the_host_secret_is_sent_to_nobody_until_the_round_is_over():
    t = countdown_table()
    to_go(t)
    t.send(b"S", "hello", name="Eve", role="spectator")
    t.send(b"S", "snapshot")
    t.send(b"A", "snapshot")
    secret = t.arbiter.commitments.deal_round.secret.hex()
    assert not any(secret in repr(m) for m in all_frames(t))
    end = end_round(t)
    assert end["secret"] == secret  # revealed at the round's end, and only then


def test_a_seeded_table_says_its_deals_are_not_secret():
    t = Table(seed=7, countdown=1.0)
    (welcome, *_) = t.send(b"A", "hello", name="Ann", role="player")
    assert welcome["config"]["seeded"] is True
    t.seat(b"B", "Bob")
    t.send(b"A", "commit", id=900, round=0, **promise(NONCE_A))
    countdown = to_go(t, commit=False, reveal=False)
    assert countdown["seeded"] is True and countdown["commits"] == []
    # the deal is the seed's, so simulate --seed 7 deals the same cards
    match = Match(get_game("racing-demon"), ["Ann", "Bob"], 7)
    assert match.game.state_to_data(match.deal()) == \
        match.game.state_to_data(t.arbiter.state)
    assert countdown["commit"] == commitment(seed_secret(7, 0))


# --- unchosen ------------------------------------------------------------------------------

def test_one_players_nonce_changes_the_whole_deal():
    game = get_game("racko")
    secret = bytes(32)
    setup = game.first_setup(2, game.default_options())
    a = game.deal(setup, DealRandom(round_secret(secret, {0: NONCE_A, 1: NONCE_B})))
    b = game.deal(setup, DealRandom(round_secret(secret, {0: NONCE_A, 1: NONCE_A})))
    assert a.racks != b.racks


def test_commitments_are_fixed_at_the_countdown_and_a_late_one_is_too_late():
    t = countdown_table()
    t.send(b"A", "commit", id=901, round=0, **promise(NONCE_A))
    t.send(b"A", "ready")
    t.send(b"B", "ready")
    (late,) = t.send(b"B", "commit", id=902, round=0, **promise(NONCE_B))
    assert late["code"] == "too_late"
    countdown = [u for u in t.published if u.get("k") == "countdown"][-1]
    assert countdown["commits"] == [[0, commitment(NONCE_A)]]
    (refused,) = t.send(b"B", "reveal", id=903, round=0, nonce=NONCE_B.hex())
    assert refused["code"] == "bad_reveal"


def test_a_nonce_that_does_not_match_its_commitment_is_refused_and_not_mixed_in():
    t = countdown_table()
    t.send(b"A", "commit", id=901, round=0, **promise(NONCE_A))
    t.send(b"B", "commit", id=902, round=0, **promise(NONCE_B))
    t.send(b"A", "ready")
    t.send(b"B", "ready")
    (ok,) = t.send(b"A", "reveal", id=906, round=0, nonce=NONCE_A.hex())
    assert ok["t"] == "ok"
    (bad,) = t.send(b"B", "reveal", id=903, round=0, nonce=NONCE_A.hex())
    assert bad["code"] == "bad_reveal"
    (bad,) = t.send(b"B", "reveal", id=904, round=0, nonce="zz")
    assert bad["code"] == "bad_reveal"
    t.tick(t.now + 1.0)
    go = [u for u in t.published if u.get("k") == "round"][-1]
    assert go["nonces"] == [[0, NONCE_A.hex()]]
    (after,) = t.send(b"B", "reveal", id=905, round=0, nonce=NONCE_B.hex())
    assert after["code"] == "too_late"


def test_a_host_that_deals_from_another_secret_than_it_committed_to_is_caught():
    """Choosing the deal, done as a host would: commit, then deal from a secret it likes
    better. Every client's check at the round's end names it."""
    t = countdown_table()
    countdown = to_go(t, reveal=False)
    honest = t.arbiter.commitments.deal_round.secret
    go = [u for u in t.published if u.get("k") == "round"][-1]
    mine = [m for m in t.inbox[b"A"] if m["t"] == "private" and m["k"] == "round"][-1]["state"]
    announced = {k: countdown[k] for k in ("commit", "commits", "words", "seeded")}
    game = get_game("racing-demon")

    def check(dealt=mine, secret=honest, used=go["nonces"], **kw):
        return check_deal(game, 0, announced, used, secret.hex(), go["setup"], dealt,
                          go["hash"], **kw)
    assert check().problem is None and check().cards and check().whole
    chosen = bytes(32)  # revealed instead of the committed one: caught by the commitment
    assert "not the one it promised" in check(secret=chosen).problem
    # a host that reveals the committed secret but dealt other cards: caught by the re-deal
    other = dict(mine, seats=list(reversed(mine["seats"])))
    assert "{your} cards are not the ones" in check(dealt=other).problem
    # a host that leaves a revealed nonce out of the deal: caught by its owner
    assert "left {your} randomness out" in check(used=[], my_nonce=NONCE_A).problem


def test_the_witness_reveals_only_its_own_listed_commitment():
    w = DealWitness()
    mine = w.promise(0)
    theirs = {"commit": "0" * 64, "commits": pairs({1: "f" * 64}), "words": [],
              "seeded": False}
    problems, nonce = w.announce(1, 0, theirs)
    assert nonce is None and problems  # a promise in our name that we never made
    w = DealWitness()
    mine = w.promise(0)
    ours = {"commit": "0" * 64, "commits": pairs({1: mine["hash"]}),
            "words": pairs({1: (mine["ok"], mine["fail"])}), "seeded": False}
    problems, nonce = w.announce(1, 0, ours)
    assert not problems and nonce is not None and commitment(bytes.fromhex(nonce)) == mine["hash"]


def test_hostdeal_draw_is_fresh_each_time():
    assert HostDeal.draw(0, Secret()).secret != HostDeal.draw(0, Secret()).secret
    assert HostDeal.draw(2, Seeded("x")).secret == seed_secret("x", 2)


# --- over sockets: clients commit, reveal and check by themselves -----------------------------

def _play_one_round(host, cheat: bool) -> list[Client]:
    server = host("racing-demon", players=2, rounds=1, seed=None, countdown=0.5)
    if cheat:  # the host deals from a secret of its choosing after committing to another
        arbiter = server.arbiter
        real = arbiter.flow.deal

        def chosen_deal(now, out):
            arbiter.commitments.deal_round.secret = bytes(32)
            real(now, out)
        arbiter.flow.deal = chosen_deal
    ann, bob = (Client(server.address, name=n) for n in ("Ann", "Bob"))
    host.clients.extend([ann, bob])
    for c in (ann, bob):
        c.connect()
    pump_until(lambda: ann.seat is not None and bob.seat is not None
               and ann.table.get("seats") and len(ann.table["seats"]) == 2, [ann, bob])
    pump_until(lambda: all(c.copy.duties.commit_due is None and not c.copy.duties.unanswered
                           for c in (ann, bob)), [ann, bob])
    for c in (ann, bob):
        c.ready()
    pump_until(lambda: all(c.table.get("phase") == "playing" for c in (ann, bob)), [ann, bob])
    for k in range(1, 3):  # RD-13: two rotations, then the third vote ends the round
        for c in (ann, bob):
            c.play(c.game.parse_move("stuck"))
        pump_until(lambda: all(c.mirror.rotations == k for c in (ann, bob)), [ann, bob])
    for c in (ann, bob):
        c.play(c.game.parse_move("stuck"))
    pump_until(lambda: all(c.table.get("phase") == "over" for c in (ann, bob)), [ann, bob])
    return [ann, bob]


def test_honest_clients_commit_reveal_and_find_the_deal_honest(host):
    clients = _play_one_round(host, cheat=False)
    notices = [n for c in clients for n in c.take_notices()]
    assert not [n for n in notices if n.kind in ("dishonest", "dispute")]
    for c in clients:
        seen = c.witness.rounds[0]
        assert seen.outcome == "ok" and seen.revealed
        assert [seat for seat, _ in seen.used] == [0, 1]  # both nonces mixed in


def test_a_cheating_host_is_named_loudly_at_every_seat(host):
    clients = _play_one_round(host, cheat=True)
    ann, bob = clients
    # (every seat's copy of the other's dispute: waiting on Ann's alone raced Bob's update)
    pump_until(lambda: all(any(n.kind == "dispute" for n in c.notices) for c in clients),
               clients)
    for c, other in ((ann, bob), (bob, ann)):
        kinds = [n.kind for n in c.notices]
        assert "dishonest" in kinds  # its own check failed
        # and the other seat's dispute reached its screen (its own is not said twice)
        assert [n.data["seat"] for n in c.notices if n.kind == "dispute"] == [other.seat]


def test_during_a_round_a_commit_is_for_the_next_round_so_no_pause_still_takes_it():
    t = Table(seed=None, countdown=1.0, pause=0, rounds=2)
    t.seat(b"A", "Ann")
    t.seat(b"B", "Bob")
    to_go(t)
    (now,) = t.send(b"A", "commit", id=910, round=0, **promise(NONCE_B))
    assert now["code"] == "too_late"  # round 0 is dealt already
    (ok,) = t.send(b"A", "commit", id=911, round=1, **promise(NONCE_B))
    assert ok["t"] == "ok"
    end_round(t)  # pause 0: the next countdown begins at once, with Ann's commitment in it
    t.tick(t.now)
    countdown = [u for u in t.published if u.get("k") == "countdown"][-1]
    assert countdown["round"] == 1 and countdown["commits"] == [[0, commitment(NONCE_B)]]


def test_a_journal_that_recorded_a_dispute_still_reads_and_verifies(tmp_path):
    """A dispute is journaled (who said the deal was wrong, and why); the journal stays
    readable, resumable and verifiable — verify re-derives the deal itself."""
    from lan_demon.net.audit import verify
    from lan_demon.net.journal import JournalWriter, read_journal
    t = Table(seed=None, countdown=1.0, rounds=1)
    path = tmp_path / "j"
    writer = JournalWriter(path)
    t.arbiter.attach_journal(writer, {"port": 7700, "pub_port": 7701})
    t.seat(b"A", "Ann")
    t.seat(b"B", "Bob")
    to_go(t)
    end_round(t)
    t.send(b"A", "dispute", id=990, round=0, reason="your cards differ")
    writer.close()
    kinds = [r["j"] for r in read_journal(path).records]
    assert "dispute" in kinds and kinds[-1] == "dispute"
    verdict = verify(path)
    assert verdict.ok, verdict.line
