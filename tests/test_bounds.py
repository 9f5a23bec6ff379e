"""Every message kind is bounded (PROTOCOL.md §2, Bounds). One peer sending any kind
as fast as the flood brake admits must not grow the arbiter's memory, the journal, or what
every other screen is shown, beyond the stated bounds. Each test floods one kind at the pure
:class:`~lan_demon.net.arbiter.Arbiter` (a fake clock, a few thousand messages at most) and
counts what was kept, written and published; ``benchmarks/bounds.py`` measures the same for
ten minutes of table time."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from arbiter_harness import Table
from lan_demon.coach.journal import journal_reviews
from lan_demon.games import GameError, IllegalMove
from lan_demon.games.deal import commitment
from lan_demon.net import evening
from lan_demon.net.audit import verify
from lan_demon.net.commitments import COMMITS_PER_ROUND
from lan_demon.net.guard import RECENT_MOVE_IDS, RateLimiter, RecentIds
from lan_demon.net.journal import JournalWriter, read_journal
from lan_demon.net.race import REFUSED_PER_ROUND
from lan_demon.net.seated import Sender
from lan_demon.net.seats import PRESENCE_BURST, PRESENCE_RATE, SEATING_RATE
from lan_demon.net.table_facts import HOST

pytestmark = pytest.mark.timeout(60)

STEP = 0.0002  # seconds between a flooder's frames: 5 000 a second, the brake's rate


def journaled(path: Path, game: str = "racing-demon", seated: int = 2, ready: bool = True,
              **config: Any) -> Table:
    """A table journaling to ``path``: Ann (the captain) and Bob seated and, with ``ready``,
    their first round dealt (countdown 0)."""
    t = Table(game, **config)
    t.arbiter.attach_journal(JournalWriter(path), {"port": 7700, "pub_port": 7701})
    for peer, name in [(b"A", "Ann"), (b"B", "Bob"), (b"C", "Cy")][:seated]:
        t.seat(peer, name)
    if ready:
        for peer in [b"A", b"B", b"C"][:seated]:
            t.send(peer, "ready")
    return t


def records(path: Path, kind: str) -> list[dict[str, Any]]:
    return [r for r in read_journal(path).records if r["j"] == kind]


def flood(t: Table, peer: bytes, kind: str, n: int, **fields: Any) -> list[dict]:
    """``n`` frames of ``kind`` from ``peer`` at the brake's rate; every answer, in order."""
    answers = []
    for _ in range(n):
        if "id" not in fields and kind in ("dispute", "check", "commit", "reveal"):
            answers += t.send(peer, kind, at=t.now + STEP, id=next(t.ids), **fields)
        else:
            answers += t.send(peer, kind, at=t.now + STEP, **fields)
    return answers


def end_round(t: Table, seats: tuple[bytes, ...] = (b"A", b"B")) -> None:
    """RD-13: every seat votes stuck three times, and the round ends; the next one is dealt
    once every seat says ready."""
    round_no = t.arbiter.match.round_no
    for _ in range(3):
        for peer in seats:
            t.send(peer, "move", round=round_no, move={"t": "stuck"}, ts=t.now)
    if t.arbiter.phase == "over":
        return
    assert t.arbiter.phase == "between"
    for peer in seats:
        t.send(peer, "ready")
    assert t.arbiter.phase == "playing"


# --- dispute and check (§22) -------------------------------------------------------------

def test_disputes_for_rounds_that_never_existed_are_refused_unjournaled_unpublished(
        tmp_path):
    """At the rate limit, every dispute for a round that never existed was answered ok, journaled
    and published to every screen. A negative round, or one not yet announced, is refused
    ``wrong_round``; a real round's dispute is published once."""
    path = tmp_path / "j"
    t = journaled(path)
    answers = [a for n in range(1000)
               for a in t.send(b"A", "dispute", at=t.now + STEP, id=next(t.ids),
                               round=-1 - n, reason="x" * 200)]
    answers += flood(t, b"A", "dispute", 200, round=1, reason="not dealt yet")
    assert {a["code"] for a in answers} == {"wrong_round"} and len(answers) == 1200
    assert not t.updates("dispute") and not records(path, "dispute")
    answers = flood(t, b"A", "dispute", 500, round=0, reason="the deal did not match")
    assert {a["t"] for a in answers} == {"ok"}  # a repeat is answered ok, and that is all
    assert len(t.updates("dispute")) == 1 and len(records(path, "dispute")) == 1
    assert t.arbiter.commitments.disputes == {(0, 0)}


def test_a_check_is_published_once_per_seat_and_round_even_past_the_snapshot_s_rounds(
        tmp_path):
    """§22.6: a check is published once per seat and round. A check of a round older than
    the ones a snapshot repeats was published (and journaled) again at every repeat."""
    path = tmp_path / "j"
    t = journaled(path)
    for _ in range(4):
        end_round(t)
    assert t.arbiter.match.round_no == 4
    answers = flood(t, b"A", "check", 500, round=0, lost=True)
    answers += flood(t, b"A", "check", 500, round=3, lost=True)
    assert {a["t"] for a in answers} == {"ok"}
    assert len(t.updates("check")) == 2 and len(records(path, "check")) == 2
    assert (0, 0) in t.arbiter.commitments.checked and len(t.arbiter.commitments.checked) == 2


# --- ready, commit, reveal -----------------------------------------------------------------

def test_ready_again_changes_nothing_no_record_no_update(tmp_path):
    path = tmp_path / "j"
    t = journaled(path, players=3, ready=False)
    lobbies = len(t.updates("lobby"))
    answers = flood(t, b"A", "ready", 2000)
    assert {a["t"] for a in answers} == {"ok"}
    assert len(records(path, "ready")) == 1 and len(t.updates("lobby")) == lobbies + 1
    assert t.arbiter.seats[0].ready and t.arbiter.phase == "lobby"


def promise(n: int) -> dict[str, str]:
    nonce = n.to_bytes(16, "big")
    return {"hash": commitment(nonce), "ok": commitment(b"ok" + nonce),
            "fail": commitment(b"fail" + nonce)}


def test_a_commitment_again_is_journaled_once_and_a_seat_makes_eight_a_round_at_most(
        tmp_path):
    """§22: a later commitment replaces the one before, and each is journaled; the same one
    again changes nothing, and past COMMITS_PER_ROUND different ones the seat is answered
    ``too_many`` and the last one taken stands. The next round starts the count again."""
    path = tmp_path / "j"
    t = journaled(path, seed=None, countdown=1.0, ready=False)
    answers = flood(t, b"A", "commit", 300, round=0, **promise(1))
    assert {a["t"] for a in answers} == {"ok"} and len(records(path, "commit")) == 1
    answers = [a for n in range(2, 200)
               for a in t.send(b"A", "commit", at=t.now + STEP, id=next(t.ids), round=0,
                               **promise(n))]
    assert [a["t"] for a in answers[:COMMITS_PER_ROUND - 1]] == ["ok"] * (COMMITS_PER_ROUND - 1)
    assert {a.get("code") for a in answers[COMMITS_PER_ROUND - 1:]} == {"too_many"}
    assert len(records(path, "commit")) == COMMITS_PER_ROUND
    assert t.arbiter.seats[0].commit[1] == promise(COMMITS_PER_ROUND)["hash"]
    for peer in (b"A", b"B"):
        t.send(peer, "ready")
    t.tick(t.now + 1.5)  # Go: the commitments were used up, and the count starts again
    assert t.arbiter.phase == "playing"
    (ok,) = t.send(b"A", "commit", id=next(t.ids), round=1, **promise(500))
    assert ok["t"] == "ok" and len(records(path, "commit")) == COMMITS_PER_ROUND + 1


def test_a_nonce_revealed_again_is_journaled_once(tmp_path):
    path = tmp_path / "j"
    t = journaled(path, seed=None, countdown=1.0, ready=False)
    t.send(b"A", "commit", id=next(t.ids), round=0, **promise(7))
    for peer in (b"A", b"B"):
        t.send(peer, "ready")
    nonce = (7).to_bytes(16, "big").hex()
    answers = flood(t, b"A", "reveal", 1000, round=0, nonce=nonce)
    assert {a["t"] for a in answers} == {"ok"} and len(records(path, "reveal")) == 1
    (err,) = t.send(b"A", "reveal", id=next(t.ids), round=0, nonce="0" * 32)
    assert err["code"] == "bad_reveal"  # (a wrong nonce is still refused)


# --- presence: hello, leave ----------------------------------------------------------------

def presence_of(t: Table, seat: int) -> list[str]:
    return [u["status"] for u in t.updates("presence") if u["seat"] == seat]


def test_a_seat_coming_back_while_here_is_no_news(tmp_path):
    t = journaled(tmp_path / "j")
    token = t.arbiter.seats[0].token
    flood(t, b"A", "hello", 1000, name="Ann", role="player", token=token)
    assert presence_of(t, 0) == []


def test_presence_flips_reach_other_screens_at_a_stated_rate_and_as_they_end(tmp_path):
    """Leaving and coming back by token as fast as the brake allows: every screen is told
    PRESENCE_BURST changes at once, then at most PRESENCE_RATE a second, and at the end what
    the seat is; the journal keeps one stepping out (all a resumed host needs)."""
    path = tmp_path / "j"
    t = journaled(path)
    token, start = t.arbiter.seats[0].token, t.now
    for n in range(1000):
        t.send(b"A", "leave", at=t.now + STEP)
        t.send(b"A", "hello", at=t.now + STEP, name="Ann", role="player", token=token)
        if n % 50 == 0:
            t.send(b"B", "hb")
            t.tick(t.now)
    t.send(b"A", "leave", at=t.now + STEP)  # it ends away
    while t.now < start + 20:
        for peer in (b"B",):
            t.send(peer, "hb", at=t.now + 0.5)
        t.tick(t.now)
    told = presence_of(t, 0)
    assert len(told) <= PRESENCE_BURST + PRESENCE_RATE * (t.now - start) + 1
    assert told[-1] == "away" == t.arbiter.seats[0].status
    assert len(records(path, "leave")) == 1


def test_seats_taken_and_left_in_a_loop_in_the_lobby_are_braked_by_address(tmp_path):
    """A seat taken and left in the lobby is two records and three updates: one address
    takes as many seats as the table has at once, then one every 5 s (``slow_down``)."""
    path = tmp_path / "j"
    t = journaled(path, players=3, seated=1, ready=False)
    taken = refused = 0
    for _ in range(500):
        answers = t.send(b"Z", "hello", at=t.now + STEP, name="Zed", role="player")
        if answers[0]["t"] == "welcome":
            taken += 1
            t.send(b"Z", "leave", at=t.now + STEP)
        else:
            assert answers[0]["code"] == "slow_down" and 0 < answers[0]["wait"] <= 5
            refused += 1
    assert taken == 3 and len(records(path, "seat")) == 1 + 3
    t.now += 1 / SEATING_RATE
    (welcome, *_) = t.send(b"Z", "hello", name="Zed", role="player")
    assert welcome["t"] == "welcome"
    # Two connections from one address share the brake; another address has its own
    there = Sender(address="10.0.0.7")
    (welcome, *_) = t.send(b"Y", "hello", name="Yan", role="player",
                           sender=Sender(address="10.0.0.9"))
    assert welcome["t"] == "welcome"
    t.send(b"Y", "leave")
    for peer in (b"W1", b"W2", b"W3"):
        t.send(peer, "hello", name="W", role="player", sender=there)
        t.send(peer, "leave")
    (err,) = t.send(b"W4", "hello", name="W", role="player", sender=there)
    assert err["code"] == "slow_down"


def test_lobby_seats_removed_are_remembered_up_to_64(tmp_path):
    t = journaled(tmp_path / "j", seated=1, ready=False)
    for n in range(80):
        t.send(f"p{n}".encode(), "hello", name=f"P{n}", role="player")
        t.send(b"A", "remove", seat=1)
    assert len(t.arbiter.seating.removed_tokens) == evening.REMOVED_KEPT == 64
    assert len(t.arbiter.seats) == 1


# --- pause and resume (§24) ----------------------------------------------------------------

def test_the_captain_pauses_the_table_at_most_once_in_10_seconds(tmp_path):
    path = tmp_path / "j"
    t = journaled(path)
    answers = []
    for _ in range(1000):
        answers += t.send(b"A", "pause", at=t.now + STEP)
        answers += t.send(b"A", "resume", at=t.now + STEP)
    codes = [a.get("code", a["t"]) for a in answers]
    assert codes[:2] == ["ok", "ok"] and set(codes[2:]) == {"too_many", "not_paused"}
    too_many = next(a for a in answers if a.get("code") == "too_many")
    assert 9 < too_many["wait"] <= evening.PAUSE_GAP and "10 s" in too_many["reason"]
    assert len(records(path, "pause")) == 1 and len(t.updates("pause")) == 1
    t.now += evening.PAUSE_GAP
    (ok,) = t.send(b"A", "pause")
    assert ok["t"] == "ok" and len(t.updates("pause")) == 2
    t.send(b"A", "resume")
    t.arbiter.evening.pause(HOST, t.now, t.arbiter.tick(t.now))  # not braked
    assert t.arbiter.paused is not None and t.arbiter.paused.by == HOST


# --- refused moves -----------------------------------------------------------------------

def a_refused_move(t: Table, seat: int) -> dict[str, Any]:
    arb = t.arbiter
    for src in ["pile", "c1", "c2", "c3", "c4"]:
        for dst in ["c1", "c2", "c3", "c4", "middle"]:
            data = {"t": "play", "from": src, "to": dst}
            try:
                arb.game.check(arb.state, seat, arb.game.move_from_data(data))
            except IllegalMove:
                return data
            except GameError:
                continue
    raise AssertionError("no refused move found")


def test_refused_moves_are_journaled_256_a_seat_and_round_and_the_journal_still_verifies(
        tmp_path):
    """Each move the rules refuse (here by an RD rule: the error names it) goes in the journal
    with its reason — at most REFUSED_PER_ROUND a seat and round; the rest are answered the
    same and left out. ``verify`` passes the journal and the coach reviews it."""
    path = tmp_path / "j"
    t = journaled(path, fairness_ms=0, rounds=2)
    move = a_refused_move(t, 0)
    answers = flood(t, b"A", "move", 600, round=0, move=move, ts=t.now)
    assert len(answers) == 600 and {a["code"] for a in answers} == {"illegal"}
    assert answers[-1]["rule"].startswith("RD-")
    assert len(records(path, "refused")) == REFUSED_PER_ROUND
    end_round(t)
    flood(t, b"A", "move", 10, round=1, move=a_refused_move(t, 0), ts=t.now)
    assert len(records(path, "refused")) == REFUSED_PER_ROUND + 10
    end_round(t)
    assert t.arbiter.phase == "over"
    t.arbiter.journal.close()
    assert verify(path).ok, verify(path).line
    assert [r.round for r in journal_reviews(path, "Ann")] == [0, 1]


# --- per-connection memory -----------------------------------------------------------------

def test_the_flood_brake_keeps_at_most_4096_buckets_however_many_connections():
    limiter = RateLimiter(5000, 10000)
    for n in range(10_000):
        limiter.admit(n, 100.0 + n * 1e-5)
    assert len(limiter.buckets) <= RateLimiter.PRUNE_AT


def test_a_connection_remembers_its_last_1024_move_ids():
    ids = RecentIds()
    assert all(ids.add(n) for n in range(5000))
    assert len(ids.seen) == len(ids.order) == RECENT_MOVE_IDS
    assert not ids.add(4999) and ids.add(0)  # (0 was forgotten long ago)


def test_move_ids_are_kept_only_for_a_few_connections_beyond_the_seats(tmp_path):
    """A seat coming back on connection after connection, each sending a move: the move ids
    of connections that no longer hold a seat are forgotten (2 per seat + 8 kept)."""
    t = journaled(tmp_path / "j")
    token = t.arbiter.seats[0].token
    for n in range(300):
        peer = f"ann-{n}".encode()
        t.send(peer, "hello", at=t.now + STEP, name="Ann", role="player", token=token)
        t.send(peer, "move", round=0, move={"t": "turn"}, ts=t.now)
    assert len(t.arbiter.race.move_ids) <= 2 * len(t.arbiter.seats) + 8 + 1
    assert len(t.arbiter.clock.probes) <= 2 * len(t.arbiter.seats) + 8 + 1


# --- moves taken from one seat (§2) --------------------------------------------------------

@pytest.mark.parametrize("rate_limit", [None, 0])
def test_rd11_one_seat_turning_its_pack_at_the_brake_is_taken_500_a_second(tmp_path,
                                                                           rate_limit):
    """Every move taken is applied by every client: a seat turning its Pack (RD-9: always
    legal) at the connection brake's 5,000 a second is taken 500 a second (bursts of 1,000);
    each one past it is refused rate_limited with its id, nothing taken, nothing published.
    With --rate-limit 0 (benchmarks) nothing is braked."""
    from lan_demon.net.guard import MOVE_BURST, MOVE_RATE
    config = {} if rate_limit is None else {"rate_limit": rate_limit}
    t = journaled(tmp_path / "m.journal", **config)
    start = len(t.published)
    refused = []
    for n in range(2500):  # half a second at 5,000 a second
        answers = t.send(b"A", "move", at=t.now + STEP, round=0, move={"t": "turn"},
                         ts=t.now + STEP)
        refused += [a for a in answers if a.get("code") == "rate_limited"]
    taken = [m for m in t.published[start:] if m.get("k") == "move" and m["seat"] == 0]
    if rate_limit == 0:
        assert len(taken) == 2500 and not refused
        return
    # the burst at once, then the rate over the 2,499 steps after the first
    assert len(taken) == MOVE_BURST + int(2499 * STEP * MOVE_RATE)
    assert len(refused) == 2500 - len(taken)
    assert all(r.get("re") is not None and "moves a second" in r["reason"] for r in refused)
    assert len(records(tmp_path / "m.journal", "move")) == len(taken)
    t.send(b"B", "move", at=t.now + STEP, round=0, move={"t": "turn"}, ts=t.now + STEP)
    assert t.published[-1]["seat"] == 1  # another seat's move is taken: the brake is per seat
