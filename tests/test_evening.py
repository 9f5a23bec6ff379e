"""The host runs the evening (PROTOCOL.md §24, net/evening.py): pause and resume the whole table,
remove a seat — who may, in what state, what stands still, what the journal keeps, what a
resumed host restores and what ``verify`` finds. Driven directly with a fake clock (no sockets).
Tests first for what an attacker would try: a player who is not the captain, a captain removing
themselves, a seat removed twice, a request replayed, a pause held forever."""

from __future__ import annotations

from pathlib import Path

import pytest

from arbiter_harness import PLAY, Table, dealt_table, journaled_table, race_table
from journal_harness import fails, play_uncrashed, twice
from lan_demon.games.demon_stuck import STUCK_TIMEOUT
from lan_demon.net.audit import verify
from lan_demon.net.evening import PAUSE_LIMIT, Evening
from lan_demon.net.journal import read_journal
from lan_demon.net.outbox import Outbox
from lan_demon.net.recovery import restore
from lan_demon.net.seats import TOKEN_LIFE
from lan_demon.net.table_facts import HOST

pytestmark = pytest.mark.timeout(30)


def errors(replies: list[dict]) -> list[dict]:
    return [m for m in replies if m["t"] == "error"]


def beat(t: Table, at: float, *peers: bytes) -> None:
    """Time passes to ``at``, the named seats' heartbeats heard just before."""
    for peer in peers:
        t.send(peer, "hb", at=at)
    t.tick(at)


def host_does(t: Table, what, *args) -> Outbox:
    """The host's own terminal: the decision called directly, ``by`` the host."""
    out = Outbox()
    rooms = t.arbiter.evening
    what(rooms, HOST, *args, t.now, out) if args else what(rooms, HOST, t.now, out)
    t._collect(out, None)
    return out


# --- who may --------------------------------------------------------------------------------


def test_a_player_who_is_not_the_captain_neither_pauses_nor_removes_nor_resumes():
    t = race_table()  # Ann (seat 0) is the captain
    (refused,) = errors(t.send(b"B", "pause"))
    assert refused["code"] == "not_host" and "Ann" in refused["reason"]
    (refused,) = errors(t.send(b"B", "remove", seat=0))
    assert refused["code"] == "not_host"
    assert t.arbiter.paused is None and not t.arbiter.seats[0].removed
    t.send(b"A", "pause")
    (refused,) = errors(t.send(b"B", "resume"))
    assert refused["code"] == "not_host" and "Ann paused the table" in refused["reason"]
    assert t.arbiter.paused is not None


def test_a_spectator_or_a_stranger_cannot_pause():
    t = race_table()
    t.send(b"S", "hello", name="Sam", role="spectator")
    assert errors(t.send(b"S", "pause"))[0]["code"] == "spectator"
    assert errors(t.send(b"X", "remove", seat=1))[0]["code"] == "not_joined"
    assert t.arbiter.paused is None and not t.arbiter.seats[1].removed


def test_a_pause_held_forever_is_resumed_by_any_player_after_the_limit():
    """The captain pauses and goes home: after PAUSE_LIMIT any person seated resumes."""
    t = race_table()
    t.send(b"A", "pause", at=200.0)
    refused = errors(t.send(b"B", "resume", at=200.0 + PAUSE_LIMIT - 1))
    assert refused and "0:01 to go" in refused[0]["reason"]
    assert errors(t.send(b"B", "resume", at=200.0 + PAUSE_LIMIT)) == []
    assert t.arbiter.paused is None
    (update,) = t.updates("resume")
    assert update["by"] == 1 and update["name"] == "Bob" and update["paused"] == PAUSE_LIMIT


def test_pausing_twice_resuming_a_running_table_or_pausing_the_lobby_is_refused():
    t = Table()
    t.seat(b"A", "Ann")
    assert errors(t.send(b"A", "pause"))[0]["code"] == "not_playing"  # the lobby: no clock
    t = race_table()
    assert errors(t.send(b"A", "resume"))[0]["code"] == "not_paused"
    t.send(b"A", "pause")
    (again,) = errors(t.send(b"A", "pause"))
    assert again["code"] == "paused" and "paused already, by Ann" in again["reason"]
    assert len(t.updates("pause")) == 1


# --- what stands still ----------------------------------------------------------------------


def test_rd13_a_paused_table_refuses_moves_saying_who_paused_and_its_minute_stands_still():
    t = race_table()
    last = t.arbiter.facts.last_play
    host_does(t, Evening.pause)
    (update,) = t.updates("pause")
    assert update["by"] == HOST and update["name"] == "the host"
    (refused,) = errors(t.send(b"A", "move", round=0, move=PLAY, ts=t.now))
    assert refused["code"] == "paused" and "paused by the host" in refused["reason"]
    assert t.arbiter.state.stacks[1].cards[-1].code == "AH"  # the card did not move
    for at in range(110, 110 + 10 * 60, 30):  # ten minutes paused, heartbeats heard
        beat(t, float(at), b"A", b"B")
    assert not [u for u in t.updates("move") if u["seat"] == -1]  # RD-13 did not fire
    host_does(t, Evening.resume)
    still = t.updates("resume")[0]["paused"]
    beat(t, last + still + STUCK_TIMEOUT - 1, b"A", b"B")
    assert not [u for u in t.updates("move") if u["seat"] == -1]
    beat(t, last + still + STUCK_TIMEOUT + 1, b"A", b"B")
    assert [u for u in t.updates("move") if u["seat"] == -1]  # the minute, without the pause


def test_the_countdown_to_go_and_the_pause_between_rounds_stand_still():
    t = Table(countdown=5)
    t.seat(b"A", "Ann")
    t.seat(b"B", "Bob")
    t.send(b"A", "ready", at=100.0)
    t.send(b"B", "ready", at=100.0)
    assert t.arbiter.phase == "countdown" and t.arbiter.facts.go_at == 105.0
    t.send(b"A", "pause", at=101.0)
    beat(t, 103.0, b"A", b"B")
    beat(t, 106.0, b"A", b"B")
    assert t.arbiter.phase == "countdown"  # no Go while paused
    t.send(b"A", "resume", at=107.0)
    assert t.arbiter.facts.go_at == 111.0  # 4 s were left, and are left
    beat(t, 111.0, b"A", b"B")
    assert t.arbiter.phase == "playing"
    t = dealt_table("racko", pause=30)
    t.arbiter.flow.end_round(t.now, Outbox())
    at = t.arbiter.next_at()
    t.send(b"A", "pause", at=t.now + 10)
    t.send(b"A", "ready")
    t.send(b"B", "ready")
    assert t.arbiter.phase == "between"  # every one ready, and still it waits
    t.send(b"A", "resume", at=t.now + 20)
    assert t.arbiter.next_at() == at + 20


def test_an_away_seat_is_kept_while_paused_and_every_snapshot_says_how_long():
    t = race_table()
    beat(t, 104.0, b"A")  # Bob's heartbeats stop: away at 104
    (away,) = [u for u in t.updates("presence") if u["status"] == "away"]
    assert away["seat"] == 1 and away["kept"] == TOKEN_LIFE
    beat(t, 164.0, b"A")  # a minute away
    t.send(b"A", "pause", at=164.0)
    for at in range(170, 170 + int(TOKEN_LIFE) * 2, 60):  # ten minutes paused
        beat(t, float(at), b"A")
    assert t.arbiter.seats[1].status == "away"  # still kept
    snap = t.send(b"A", "snapshot")[0]["table"]
    assert snap["paused"] == {"by": 0, "name": "Ann", "for": t.now - 164.0}
    assert snap["kept"] == [[1, TOKEN_LIFE - 60]]
    t.send(b"A", "resume")
    beat(t, t.now + TOKEN_LIFE - 61, b"A")
    assert t.arbiter.seats[1].status == "away"
    beat(t, t.now + 2, b"A")
    assert t.arbiter.seats[1].status == "left"  # five minutes of running time in all


def test_rk4_a_rack_o_stand_in_turn_waits_while_paused():
    t = dealt_table("racko", turn_timeout=5)
    mover = t.arbiter.game.to_move(t.arbiter.state)[0]
    peer = (b"A", b"B")[mover]
    other = (b"A", b"B")[1 - mover]
    t.send(b"A", "pause")
    t.send(peer, "leave")
    beat(t, t.now + 30, other)
    assert not [u for u in t.updates("move") if u["seat"] == mover]  # none played for them
    host_does(t, Evening.resume)
    beat(t, t.now + 1, other)
    assert [u for u in t.updates("move") if u["seat"] == mover]  # now the stand-in plays


# --- removing a seat --------------------------------------------------------------------------


def test_a_seat_away_comes_back_by_its_token_during_a_long_pause():
    """The pause keeps an away seat (§24): its player, back after more than five minutes of
    pause, takes the seat by its token — the snapshots said time was left, so the arbiter
    must not refuse it bad_token."""
    t = race_table()
    token = t.arbiter.seats[1].token
    beat(t, 104.0, b"A")  # Bob away at 104
    t.send(b"A", "pause", at=164.0)
    for at in range(170, 170 + int(TOKEN_LIFE) * 2, 60):  # ten minutes paused
        beat(t, float(at), b"A")
    replies = t.send(b"B2", "hello", name="Bob", role="player", token=token)
    assert errors(replies) == [] and replies[0]["t"] == "welcome" and replies[0]["seat"] == 1
    assert t.arbiter.seats[1].status == "here"


def test_a_removed_seat_is_never_taken_back_and_says_who_removed_it():
    t = race_table()
    token = t.arbiter.seats[1].token
    assert errors(t.send(b"A", "remove", seat=1)) == []
    (update,) = t.updates("removed")
    assert update == {**update, "seat": 1, "name": "Bob", "by": 0, "by_name": "Ann"}
    assert t.arbiter.seats[1].status == "left" and t.arbiter.seats[1].public()["removed"]
    (refused,) = errors(t.send(b"B2", "hello", name="Bob", role="player", token=token))
    assert refused["code"] == "removed" and refused["reason"].startswith("Ann removed Bob")
    assert "spectator" in refused["reason"]
    assert t.arbiter.seats[1].peer is None


def test_nobody_removes_their_own_seat_a_seat_twice_or_a_seat_that_is_not_there():
    t = race_table()
    (own,) = errors(t.send(b"A", "remove", seat=0))
    assert own["code"] == "bad_seat" and "own seat" in own["reason"]
    (none,) = errors(t.send(b"A", "remove", seat=7))
    assert none["code"] == "bad_seat" and "no seat 8" in none["reason"]
    t.send(b"A", "remove", seat=1)
    (twice,) = errors(t.send(b"A", "remove", seat=1))  # a replayed request, a new id
    assert twice["code"] == "bad_seat" and "removed already" in twice["reason"]
    assert len(t.updates("removed")) == 1
    assert errors(t.send(b"A", "remove", seat=1, id=t.last_id))[0]["code"] == "bad_seat"


def test_a_removed_seats_cards_stay_and_score_and_the_table_plays_on():
    """RD-13: the removed seat is not "still in the round": the arbiter votes stuck for it,
    and its score stays in the match (removing is no way to dodge one)."""
    t = race_table(turn_timeout=600)
    t.send(b"A", "remove", seat=1)
    t.send(b"A", "move", round=0, move={"t": "stuck"}, ts=t.now)
    votes = [u for u in t.updates("move") if u["move"] == {"t": "stuck"}]
    assert {u["seat"] for u in votes} >= {0}
    beat(t, t.now + 1, b"A")
    assert {u["seat"] for u in t.updates("move") if u["move"] == {"t": "stuck"}} == {0, 1}
    assert t.arbiter.match.players == ["Ann", "Bob"]


def test_a_lobby_seat_removed_frees_its_place_and_its_token_does_not_sit_it_again():
    t = Table(players=3)
    t.seat(b"A", "Ann")
    token = t.seat(b"B", "Bob")["token"]
    t.seat(b"C", "Cy")
    t.send(b"A", "remove", seat=1)
    assert [s.name for s in t.arbiter.seats] == ["Ann", "Cy"]
    assert t.inbox[b"C"][-1]["t"] == "welcome" and t.inbox[b"C"][-1]["seat"] == 1
    # (a client told bad_token would sit down afresh by itself: it is told removed)
    (refused,) = errors(t.send(b"B2", "hello", name="Bob", role="player", token=token))
    assert refused["code"] == "removed" and refused["reason"].startswith("Ann removed Bob")


# --- the journal, a resumed host, verify --------------------------------------------------------


def _evening(path: Path) -> Table:
    t, writer = journaled_table(path, "racing-demon", turn_timeout=600)
    t.send(b"A", "pause", at=t.now + 1)
    t.send(b"A", "resume", at=t.now + 30)
    t.send(b"A", "remove", seat=1)
    t.send(b"A", "pause", at=t.now + 1)
    writer.close()
    return t


def test_a_resumed_host_is_still_paused_and_the_seat_still_removed(tmp_path):
    path = tmp_path / "j"
    before = _evening(path)
    restored = restore(read_journal(path), 500.0, path).arbiter
    assert restored.paused is not None and restored.paused.name == "Ann"
    assert restored.seats[1].removed and restored.seats[1].status == "left"
    assert restored.durable()["paused"] == before.arbiter.durable()["paused"]
    assert [s["removed"] for s in restored.durable()["seats"]] == [False, True]


def test_verify_reads_pauses_and_removals_and_finds_a_move_made_while_paused(tmp_path):
    path = tmp_path / "j"
    _evening(path)
    verdict = verify(path)
    assert verdict.line.startswith("NOT FINISHED"), verdict.line  # no accusation

    def move_while_paused(records):
        records.append({"j": "move", "seq": 999, "round": 0, "seat": 0,
                        "move": {"t": "turn"}, "at": records[-1]["at"] + 1})
    fails(path, move_while_paused, "while the table was paused")

    fails(path, twice("remove"), "removed a second time")
    fails(path, twice("resume"), "not paused")


def test_clients_follow_a_pause_through_a_host_restart_and_count_an_away_seat(tmp_path):
    """Real table copies (tests/loop_table.py): Cy goes silent and every copy counts his seat
    down; Ann pauses, and the count stands; the host is killed and resumed (still paused), and
    the copies that come back learn from their snapshots since when; Ann resumes, and the
    count goes on where it stood. RD-13's minute is not the point here: Rack-O has none."""
    from loop_table import Loop
    from lan_demon.net.codec import make
    from table_settings import settings
    loop = Loop(tmp_path / "j", settings("racko", seed=3, players=3, countdown=0.0,
                                         pause=2.0, turn_timeout=600.0), ["Ann", "Bob", "Cy"])
    ann, bob, cy = loop.clients
    loop.join()
    for client in loop.clients:
        client.ready()
    loop.deliver()
    loop.tick(1.0)  # (a countdown of 0 waits for the nonces: §22.3)
    assert loop.arbiter.phase == "playing"

    def time_passes(seconds: float) -> None:
        for _ in range(int(seconds)):
            for client in (ann, bob):
                client.send(make("hb"))
            loop.deliver()
            loop.tick(1.0)

    time_passes(4)  # Cy is silent: away, kept 300 s
    assert ann.kept(2) == pytest.approx(TOKEN_LIFE, abs=1)
    time_passes(20)
    assert ann.kept(2) == pytest.approx(TOKEN_LIFE - 20, abs=1)
    ann.pause()
    loop.deliver()
    assert bob.table["paused"] == {"by": 0, "name": "Ann"}
    time_passes(100)
    assert bob.kept(2) == pytest.approx(TOKEN_LIFE - 20, abs=1)  # the count stands
    loop.clients.remove(cy)  # (his program stays silent through the restart)
    loop.crash()  # the host is killed and resumed: still paused, since its resume
    for client in (ann, bob):
        assert client.table["paused"]["name"] == "Ann"
        # a resumed host starts every clock again (recovery.py): the seat's 5 minutes too
        assert client.kept(2) == pytest.approx(TOKEN_LIFE, abs=1)
    assert errors_of(bob.heard) == []
    time_passes(10)
    assert bob.kept(2) == pytest.approx(TOKEN_LIFE, abs=1)  # still paused: it stands
    ann.resume()
    loop.deliver()
    assert not bob.table["paused"]
    time_passes(30)
    assert bob.kept(2) == pytest.approx(TOKEN_LIFE - 30, abs=2)  # and goes on from there
    loop.close()
    verdict = verify(tmp_path / "j")
    assert verdict.line.startswith("NOT FINISHED"), verdict.line


def errors_of(notices) -> list:
    return [n for n in notices if n.kind == "refused"]


@pytest.mark.parametrize("game", ["racing-demon", "racko", "gin-solitaire"])
def test_rd13_pauses_change_nothing_but_time_and_verify_passes_the_match(tmp_path, game):
    """A whole match by greedy bots with the host pausing it now and then for two minutes:
    the same result as the same match unpaused (RD-13's minute and the stand-in turns stood
    still), and ``verify`` finds every record right, pauses and all."""
    import random

    plain = play_uncrashed(tmp_path / "plain", game, 2, 5)
    paused = play_uncrashed(tmp_path / "paused", game, 2, 5, pauses=random.Random(7))
    assert paused == plain
    records = read_journal(tmp_path / "paused").records
    assert [r["j"] for r in records].count("pause") >= 2
    verdict = verify(tmp_path / "paused")
    assert verdict.ok, verdict.line
