"""A seat handed to a bot (PROTOCOL.md §24 ``remove {seat, bot}``, net/handover.py): who may,
at what level and when; what becomes of the person's token and the seat's key; what the
journal keeps, what a resumed host restores and what ``verify`` finds. Driven directly with a
fake clock (no sockets). Attacks first: a player who is not the captain, a level 0 or 11,
handing over one's own seat, the old token coming back, a handover twice."""

from __future__ import annotations

import pytest

from arbiter_harness import Table, journaled_table, race_table
from copy_link import RecordingLink
from journal_harness import fails, first, twice
from lan_demon.net import handover
from lan_demon.net.audit import verify
from lan_demon.net.journal import read_journal
from lan_demon.net.outbox import Outbox
from lan_demon.net.recovery import restore
from lan_demon.net.seated import Sender
from lan_demon.net.table_facts import HOST

pytestmark = pytest.mark.timeout(30)


def errors(replies: list[dict]) -> list[dict]:
    return [m for m in replies if m["t"] == "error"]


def bots_table(**config) -> Table:
    """Ann (captain) and Bob playing Racing Demon at a table whose host runs bots."""
    t = race_table(**config)
    t.arbiter.handovers.takes_bots = True
    return t


def test_only_the_captain_hands_a_seat_to_a_bot():
    t = bots_table()
    (refused,) = errors(t.send(b"B", "remove", seat=0, bot=3))
    assert refused["code"] == "not_host" and "Ann" in refused["reason"]
    assert not t.arbiter.seats[0].bot and t.arbiter.handovers.queued == []


@pytest.mark.parametrize("level", [0, 11, -3])
def test_a_level_out_of_range_is_malformed_and_changes_nothing(level):
    t = bots_table()
    (refused,) = errors(t.send(b"A", "remove", seat=1, bot=level))
    assert refused["code"] == "malformed" and "from 1 to 10" in refused["reason"]
    seat = t.arbiter.seats[1]
    assert (seat.name, seat.bot, seat.removed) == ("Bob", False, False)
    assert t.updates("removed") == [] and t.arbiter.handovers.queued == []


def test_nobody_hands_their_own_seat_to_a_bot():
    t = bots_table()
    (refused,) = errors(t.send(b"A", "remove", seat=0, bot=3))
    assert refused["code"] == "bad_seat" and "own seat" in refused["reason"]
    assert not t.arbiter.seats[0].bot


def test_a_seat_is_handed_over_once_and_a_removed_one_never():
    t = bots_table()
    assert errors(t.send(b"A", "remove", seat=1, bot=3)) == []
    (twice,) = errors(t.send(b"A", "remove", seat=1, bot=3))  # a replayed request
    assert twice["code"] == "bad_seat" and "bot already" in twice["reason"]
    assert len(t.arbiter.handovers.queued) == 1 and len(t.updates("removed")) == 1
    t2 = bots_table()
    t2.send(b"A", "remove", seat=1)
    (gone,) = errors(t2.send(b"A", "remove", seat=1, bot=3))
    assert gone["code"] == "bad_seat" and "removed already" in gone["reason"]


def test_no_handover_in_the_lobby_nor_at_a_table_that_runs_no_bots():
    lobby = Table(players=3)
    lobby.arbiter.handovers.takes_bots = True
    lobby.seat(b"A", "Ann")
    lobby.seat(b"B", "Bob")
    (refused,) = errors(lobby.send(b"A", "remove", seat=1, bot=2))
    assert refused["code"] == "not_playing" and "lobby" in refused["reason"]
    assert [s.name for s in lobby.arbiter.seats] == ["Ann", "Bob"]
    plain = race_table()  # nothing here picks a handover up
    (refused,) = errors(plain.send(b"A", "remove", seat=1, bot=2))
    assert refused["code"] == "bad_seat" and "remove the seat instead" in refused["reason"]
    assert plain.arbiter.handovers.queued == []


def test_the_old_token_is_refused_saying_who_handed_the_seat_to_a_bot():
    t = bots_table()
    old = t.arbiter.seats[1].token
    t.send(b"A", "remove", seat=1, bot=3)
    (refused,) = errors(t.send(b"B2", "hello", name="Bob", role="player", token=old))
    assert refused["code"] == "removed"
    assert refused["reason"].startswith("Ann handed the seat of Bob to a bot")
    assert "Bob L3" in refused["reason"] and "spectator" in refused["reason"]
    assert t.arbiter.seats[1].peer is None


def test_a_handover_renames_marks_and_queues_the_seat_and_the_first_key_back_binds_it():
    t = bots_table()
    t.arbiter.seats[1].key = "the person's key"
    old = t.arbiter.seats[1].token
    assert errors(t.send(b"A", "remove", seat=1, bot=3)) == []
    (update,) = t.updates("removed")
    assert update == {**update, "seat": 1, "name": "Bob", "by": 0, "by_name": "Ann",
                      "bot": 3, "new_name": "Bob L3"}
    seat = t.arbiter.seats[1]
    assert (seat.name, seat.bot, seat.removed, seat.key) == ("Bob L3", True, False, None)
    assert seat.token != old and seat.status == "away"  # until the bot comes
    assert t.arbiter.seats[1].public() == {**seat.public(), "name": "Bob L3", "bot": True}
    (queued,) = t.arbiter.handovers.take()
    assert queued == handover.Handover(1, seat.token, 3) and t.arbiter.handovers.queued == []
    # The person's connection no longer speaks for the seat.
    assert errors(t.send(b"B", "move", round=0, move={"t": "stuck"}, ts=t.now))[0]["code"] \
        == "not_joined"
    # The bot comes with the new token and its own key: it binds; another key then cannot.
    bot = Sender(key="the bot's key")
    (welcome,) = [m for m in t.send(b"BOT", "hello", name="x", role="player", bot=True,
                                    token=seat.token, sender=bot) if m["t"] == "welcome"]
    assert (welcome["seat"], welcome["name"]) == (1, "Bob L3")
    assert seat.status == "here" and seat.key == "the bot's key"
    (wrong,) = errors(t.send(b"X", "hello", name="x", role="player", token=seat.token,
                             sender=Sender(key="a thief's key")))
    assert wrong["code"] == "wrong_key"


def test_the_host_hands_a_seat_over_from_its_terminal():
    t = bots_table()
    out = Outbox()
    name = t.arbiter.evening.remove(HOST, 0, t.now, out, bot=10)
    assert name == "Ann L10" and t.arbiter.seats[0].bot
    t._collect(out, None)
    (update,) = t.updates("removed")
    assert update["by"] == HOST and update["by_name"] == "the host" and update["bot"] == 10


# --- the journal, a resumed host, verify --------------------------------------------------------


def _handed(path):
    t, writer = journaled_table(path, "racing-demon", turn_timeout=600)
    t.arbiter.handovers.takes_bots = True
    t.send(b"A", "remove", seat=1, bot=4, at=t.now + 5)
    writer.close()
    return t


def test_a_resumed_host_keeps_the_handover_the_new_token_and_refuses_the_old(tmp_path):
    path = tmp_path / "j"
    before = _handed(path)
    (record,) = [r for r in read_journal(path).records if r["j"] == "remove"]
    assert (record["bot"], record["name"]) == (4, "Bob L4") and "token" not in record
    restored = restore(read_journal(path), 500.0, path).arbiter
    seat = restored.seats[1]
    assert (seat.name, seat.bot, seat.removed, seat.key) == ("Bob L4", True, False, None)
    assert seat.token == before.arbiter.seats[1].token  # from the secrets file
    assert restored.handovers.queued == []  # no bot is started again after a resume
    t = Table()
    t.arbiter = restored
    t.now = 500.0
    old = [tok for tok in before.arbiter.handed][0]
    (refused,) = errors(t.send(b"B2", "hello", name="Bob", role="player", token=old))
    assert refused["code"] == "removed" and "Ann handed the seat of Bob" in refused["reason"]


def test_verify_accepts_a_handover_and_finds_one_out_of_range_or_twice(tmp_path):
    path = tmp_path / "j"
    _handed(path)
    verdict = verify(path)
    assert verdict.line.startswith("NOT FINISHED"), verdict.line

    def level_eleven(records):
        records[first(records, "remove")]["bot"] = 11
    fails(path, level_eleven, "level 11")
    fails(path, twice("remove"), "handed to a bot a second time")


# --- a real table -------------------------------------------------------------------------------


@pytest.mark.timeout(60)
@pytest.mark.parametrize("secure", [False, True])
def test_a_bot_takes_bobs_seat_over_and_plays_it_to_the_rounds_end(monkeypatch, tmp_path,
                                                                  secure):
    """Over loopback: Ann (the captain, her moves chosen by a greedy strategy) and Bob sit at a
    real arbiter whose host runs bots (commands/local_table.table_bots, as ``host`` and
    ``play`` do); Ann hands Bob's seat to a level-6 bot, which takes it by its new token and
    plays it — cards move from seat 1 — until the round ends; every screen names it Bob L6, so
    does the result, and ``verify`` passes the journal. At a ``--secure`` table with a room
    code the bot comes with its own CURVE key: the seat's key was forgotten, so it binds."""
    import random
    from dataclasses import replace

    import lan_demon.bots.levels as levels
    from table_settings import settings
    from lan_demon.bots.registry import make_strategy
    from lan_demon.bots.runner import BotClient, NetBot, run_pool
    from lan_demon.bots.speed import PROFILES
    from lan_demon.commands.local_table import table_bots
    from lan_demon.net.client import Client
    from lan_demon.net.security import new_keypair
    from lan_demon.net.server import ArbiterServer
    from net_harness import until
    monkeypatch.setitem(levels.LEVELS, 6, replace(levels.LEVELS[6], pace=PROFILES["flat-out"]))
    keys, code = (new_keypair(), "ABCD2345") if secure else (None, None)
    server = ArbiterServer(settings("racing-demon", players=2, rounds=1, seed=3, countdown=0),
                           port=0, journal=str(tmp_path / "j"), keys=keys, code=code).start()
    bots = table_bots(server, "t", keys, code, 2)
    guard = {"server_key": keys.public.decode(), "code": code} if secure else {}
    ann = BotClient(server.address, name="Ann", **guard)  # a person: not bot=True
    bob = Client(server.address, name="Bob", **guard)
    try:
        ann.connect(), bob.connect()
        ann.ready(), bob.ready()
        until(lambda: (ann.poll(0.01), bob.poll(0.01)) and ann.table.get("phase") == "playing",
              what="the round to start")
        moves: list[dict] = []
        player = NetBot(ann, make_strategy("racing-demon", "greedy"), random.Random(1),
                        PROFILES["flat-out"])
        player.on_notice = lambda n: moves.append(n.data) if n.kind == "move" else None
        bob_key_before = server.arbiter.seats[1].key
        assert (bob_key_before is not None) == secure
        ann.remove(1, bot=6)
        heard: list = []
        until(lambda: ann.poll(0.01) is not None and not heard.extend(bob.poll(0.01)) and
              ann.table["seats"][1]["name"] == "Bob L6", what="the handover")
        assert ann.table["seats"][1]["bot"] is True
        until(lambda: not heard.extend(bob.poll(0.01)) and
              any(n.kind == "removed" for n in heard), what="Bob told")
        told = [n.data for n in heard if n.kind == "removed"]
        assert told and told[0]["bot"] == 6 and told[0]["new_name"] == "Bob L6"
        # Bob's own table is gone at once (its screen says who handed the seat over; a key
        # pressed there must not be answered "say hello and take a seat first")
        assert bob.table["gone"] == "Ann handed your seat to a bot"
        assert [n.text for n in heard if n.kind == "gone"] == ["Ann handed your seat to a bot"]
        bob.close()
        watcher = Client(server.address, name="Wes", role="spectator", **guard).connect()
        seat_seen = watcher.table["seats"][1]  # from its snapshot
        watcher.close()
        assert (seat_seen["name"], seat_seen["bot"]) == ("Bob L6", True)
        run_pool([player], timeout=50)
        seat = server.arbiter.seats[1]
        assert (seat.name, seat.bot, seat.removed) == ("Bob L6", True, False)
        assert server.arbiter.match.rounds, "the round ended"
        played = [m["move"]["t"] for m in moves if m["seat"] == 1]
        # (an absent seat's RD-13 vote is said by the arbiter: only the bot turns and plays)
        assert {"play", "turn"} <= set(played), played
        assert len(bots.handed) == 1
        if secure:  # bound again: to the bot's key, not Bob's
            assert seat.key is not None and seat.key != bob_key_before
        until(lambda: server.arbiter.result is not None, what="the match's result")
        assert server.arbiter.result["players"] == ["Ann", "Bob L6"]
        assert set(server.arbiter.result["totals"]) == {"Ann", "Bob L6"}
    finally:
        ann.close()
        bob.close()
        bots.close()
        server.stop()
    verdict = verify(tmp_path / "j")
    assert verdict.ok, verdict.line


def test_the_result_names_the_seat_as_every_screen_does_and_verify_agrees(tmp_path):
    """The match's result (host's final table, ``--json``, ``match_end``) names the seat
    handed over by its new name, and a replay of the journal renames it at the same record."""
    path = tmp_path / "j"
    t = _handed(path)
    assert t.arbiter.match.players == ["Ann", "Bob L4"]
    assert t.arbiter.match.result_data()["players"] == ["Ann", "Bob L4"]
    restored = restore(read_journal(path), 500.0, path).arbiter
    assert restored.match.players == ["Ann", "Bob L4"]
    assert restored.durable()["match"] == t.arbiter.durable()["match"]


def test_a_seat_handed_to_a_bot_is_said_as_such_when_its_deal_check_cannot_come():
    """§22.6 and §24: the bot that took Bob's seat holds no promise for the round Bob's
    program promised; the others read that a bot took the seat over — not that a program
    "was closed and run again", which a family reads as something gone wrong."""
    from lan_demon.net.table_copy import TableCopy
    copy = TableCopy(RecordingLink())
    copy.seat = 0
    copy.table["seats"] = [{"name": "Ann", "bot": False}, {"name": "Bob", "bot": False},
                           {"name": "Cy", "bot": False}]
    copy._k_removed({"seat": 1, "name": "Bob", "by": 0, "by_name": "Ann", "bot": 3,
                     "new_name": "Bob L3"}, None)
    copy.duties.lost_check(0, 1)
    copy.duties.lost_check(0, 2)
    said = [n.text for n in copy.notices if n.kind == "deal_note"]
    assert said == [
        "Bob L3 took over Bob's seat, so no check of round 1's deal comes from it: Bob's "
        "lan-demon made that round's promise",
        "Cy restarted lan-demon, so no check of round 1's deal comes from them: the lan-demon "
        "they closed made that round's promise"]
