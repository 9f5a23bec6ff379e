"""A table for people over real sockets on 127.0.0.1: a leave and a rejoin by the token kept
on disk (same seat, cards and score), a restarted ``lan-demon bot`` taking its seat back, the
end of a match that never says "reconnecting", and ``join`` not retrying a refusal that cannot
change."""

from __future__ import annotations

import argparse
import os
import stat
import subprocess
import sys
import time

import pytest

from table_settings import settings
from lan_demon.games.demon_moves import VoteStuck
from lan_demon.net.client import SILENCE, Client
from lan_demon.net.tokens import TokenStore, state_dir
from net_harness import pump_until

pytestmark = pytest.mark.timeout(90)


def person(host, server, name, **kw) -> Client:
    client = Client(server.address, name=name, context=server.context, **kw).connect()
    host.clients.append(client)
    return client


def rd13_round_end(clients) -> None:
    """RD-13: everyone votes stuck three times; the third rotation ends the round."""
    for rotation in range(3):
        for c in clients:
            c.play(VoteStuck())
        # every seat's copy, not only the first's: a vote is checked against the voter's own
        pump_until(lambda: all(c.mirror is not None and (c.mirror.rotations == rotation + 1 or
                                                         c.table["phase"] != "playing")
                               for c in clients), clients)
    pump_until(lambda: all(c.table["phase"] == "between" for c in clients), clients)


def own_cards(client) -> dict:
    seat = client.game.state_to_data(client.mirror)["seats"][client.seat]
    return {"pile_top": seat["pile"][-1], "columns": seat["columns"], "stacked": seat["stacked"]}


def test_a_leave_mid_match_and_join_again_takes_the_same_seat_by_the_stored_token(host,
                                                                                   state_home):
    server = host("racing-demon", players=2, rounds=3, seed=5, pause=None)
    ann = person(host, server, "Ann", remember=True)
    bob = person(host, server, "Bob")
    for c in (ann, bob):
        c.ready()
    pump_until(lambda: all(c.table["phase"] == "playing" and c.mirror for c in (ann, bob)),
               [ann, bob])
    rd13_round_end([ann, bob])
    totals = ann.scores.totals()
    assert ann.table.get("next_at") is None  # pause None: it waits for the people
    for c in (ann, bob):
        c.ready()
    pump_until(lambda: all(c.table["phase"] == "playing" and c.mirror for c in (ann, bob)),
               [ann, bob])
    cards, token = own_cards(ann), ann.token
    files = list((state_dir() / "tokens").glob("*.json"))
    assert len(files) == 1 and str(state_home) in str(files[0])
    assert stat.S_IMODE(files[0].stat().st_mode) == 0o600
    assert stat.S_IMODE((state_dir() / "tokens").stat().st_mode) == 0o700

    ann.leave()
    ann.close()
    pump_until(lambda: bob.table["seats"][0]["status"] == "away", [bob])
    assert server.arbiter.seats[0].status == "away"

    back = person(host, server, "Ann", remember=True)  # no token given: it is on disk
    assert back.seat == 0 and back.token == token
    pump_until(lambda: back.mirror is not None and back.table["phase"] == "playing", [back, bob])
    assert own_cards(back) == cards and back.scores.totals() == totals
    pump_until(lambda: bob.table["seats"][0]["status"] == "here", [bob, back])
    assert len(server.arbiter.seats) == 2


def test_a_stored_token_the_table_does_not_know_is_forgotten_and_a_fresh_seat_taken(host):
    server = host("racko", players=2, seed=1)
    store = TokenStore(f"tcp://127.0.0.1:{server.port}", "Ann")
    store.save("00000000deadbeef")
    ann = person(host, server, "Ann", remember=True)
    assert ann.seat == 0 and ann.token != "00000000deadbeef"
    assert store.load() == ann.token


def test_two_processes_with_one_name_do_not_share_a_token(host):
    """The second takes a seat of its own: the first holds the stored token's lock."""
    server = host("racko", seed=1)
    first = person(host, server, "Robo", remember=True, bot=True)
    second = person(host, server, "Robo", remember=True, bot=True)
    assert (first.seat, second.seat) == (0, 1) and second.store is None


def test_after_the_match_the_host_going_quiet_is_closed_never_reconnecting(host):
    """The final scoreboard stays; one Notice("closed"); table["closed"]."""
    server = host("racing-demon", players=2, rounds=1, seed=5)
    offset = [0.0]
    clock = lambda: time.monotonic() + offset[0]  # noqa: E731 - a clock the test moves on
    ann = person(host, server, "Ann", clock=clock)
    bob = person(host, server, "Bob", clock=clock)
    spy = person(host, server, "Spy", role="spectator", clock=clock)
    for c in (ann, bob):
        c.ready()
    pump_until(lambda: all(c.table["phase"] == "playing" and c.mirror for c in (ann, bob)),
               [ann, bob, spy])
    rd13 = [ann, bob]
    for rotation in range(3):
        for c in rd13:
            c.play(VoteStuck())
        pump_until(lambda: all(c.table["phase"] == "over" or c.mirror.rotations == rotation + 1
                               for c in rd13), [ann, bob, spy])
    pump_until(lambda: all(c.table["phase"] == "over" for c in (ann, bob, spy)),
               [ann, bob, spy])
    for c in (ann, bob, spy):
        c.take_notices()
    server.stop()  # the host is gone
    offset[0] += SILENCE + 1
    for c in (ann, bob, spy):
        notices = c.poll(0) + c.poll(0)
        offset[0] += SILENCE + 1
        notices += c.poll(0)
        kinds = [n.kind for n in notices]
        assert kinds.count("closed") == 1 and "reconnecting" not in kinds, kinds
        assert c.table["closed"] is True and c.table["phase"] == "over"
        assert c.table["result"]["winner"]


def _join_args(name: str, tries: int = 3) -> argparse.Namespace:
    return argparse.Namespace(name=name, spectate=False, tries=tries)


def test_join_does_not_retry_a_refusal_that_cannot_change(host, capsys):
    from lan_demon.commands.join import connect_person
    server = host("racko", players=2, seed=1)
    person(host, server, "Ann")
    person(host, server, "Bob")
    assert connect_person(_join_args("Cat"), server.address, None, None) is None
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and "all 2 seats are taken" in lines[0], lines


def test_a_join_under_another_name_after_the_start_is_told_the_name_it_sat_down_with(host,
                                                                                    capsys):
    """Back after the start without --name (or as "ann" for "Ann"), a person was told only that the
    match had started. The token this computer keeps names the seat: the refusal says it, with the
    join that takes the seat back."""
    from lan_demon.commands.join import connect_person
    server = host("racing-demon", players=2, seed=5)
    ann = person(host, server, "Ann", remember=True)
    bob = person(host, server, "Bob")
    for c in (ann, bob):
        c.ready()
    pump_until(lambda: all(c.table["phase"] == "playing" for c in (ann, bob)), [ann, bob])
    ann.leave()
    ann.close()
    for name in ("ann", "you"):
        assert connect_person(_join_args(name), server.address, None, None) is None
        lines = capsys.readouterr().err.strip().splitlines()
        assert len(lines) == 1 and "the match has started" in lines[0], lines
        assert f"You sat down here as 'Ann': to take that seat back, lan-demon join " \
               f"127.0.0.1:{server.port} --name Ann" in lines[0], lines
    back = connect_person(_join_args("Ann"), server.address, None, None)  # as it says
    host.clients.append(back)
    assert back is not None and back.seat == 0
    assert capsys.readouterr().err == ""


def test_join_retries_only_no_answer(capsys):
    from lan_demon.commands.join import connect_person
    assert connect_person(_join_args("Cat", tries=2), "tcp://127.0.0.1:9", None, None) is None
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 2 and "trying again (2 of 2)" in lines[0] and "no answer" in lines[1]


def _bot(address: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "lan_demon", "bot", address, "--name", "Robo",
                             "--speed", "beginner", "--timeout", "10"],
                            env={**os.environ, "PYTHONUNBUFFERED": "1"}, text=True,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)


def test_a_restarted_lan_demon_bot_takes_its_seat_back_mid_match(host):
    server = host("racko", players=2, seed=1)
    ann = person(host, server, "Ann")
    ann.ready()
    procs = [_bot(server.address)]
    try:
        pump_until(lambda: ann.table["phase"] == "playing", [ann], timeout=30)
        first_peer = server.arbiter.seats[1].peer
        procs[0].kill()
        procs[0].communicate()
        procs.append(_bot(server.address))
        pump_until(lambda: server.arbiter.seats[1].peer not in (None, first_peer)
                   and server.arbiter.seats[1].status == "here", [ann], timeout=30)
        assert procs[1].poll() is None, procs[1].communicate()  # no exit 2: it plays on
        assert [s.name for s in server.arbiter.seats] == ["Ann", "Robo"]
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
            proc.communicate()


def test_the_token_store_forgets_tokens_older_than_a_day(state_home):
    old, new = TokenStore("tcp://127.0.0.1:1", "Old"), TokenStore("tcp://127.0.0.1:1", "New")
    old.save("aaaa")
    past = time.time() - 2 * 86400
    os.utime(old.path, (past, past))
    assert new.claim() == (True, None)
    new.release()
    assert not old.path.exists()


def test_a_player_s_token_is_forgotten_at_the_match_end(host):
    server = host("racing-demon", players=2, rounds=1, seed=5)
    ann = person(host, server, "Ann", remember=True)
    bob = person(host, server, "Bob")
    assert ann.store.load() == ann.token
    for c in (ann, bob):
        c.ready()
    pump_until(lambda: all(c.table["phase"] == "playing" and c.mirror for c in (ann, bob)),
               [ann, bob])
    for rotation in range(3):
        for c in (ann, bob):
            c.play(VoteStuck())
        pump_until(lambda: all(c.table["phase"] == "over" or c.mirror.rotations == rotation + 1
                               for c in (ann, bob)), [ann, bob])  # each votes from its copy
    pump_until(lambda: ann.table["phase"] == "over", [ann, bob])
    assert ann.store.load() is None


def test_a_plain_host_is_started_by_the_person_who_joined_after_a_bot(host, context):
    """No --players; a bot took seat 0; Ann, the first person, is captain."""
    from lan_demon.bots.runner import leave_and_close, make_bot
    server = host("racko", seed=1)
    bot = make_bot(server.address, "greedy", "Robo", context=context)
    try:
        ann = person(host, server, "Ann")
        pump_until(lambda: len(ann.table["seats"]) == 2 and ann.table.get("captain") == 1,
                   [ann, bot.client])
        ann.start()
        pump_until(lambda: ann.table["phase"] == "playing", [ann, bot.client])
    finally:
        leave_and_close(bot.client)


def test_at_an_encrypted_table_the_stored_key_pair_comes_back_with_the_token(context):
    """A CURVE seat answers only to the key that took it: the key is kept with the token."""
    from lan_demon.net.security import new_keypair
    from lan_demon.net.server import ArbiterServer
    server = ArbiterServer(settings("racko", players=2, seed=1, countdown=0, pause=0), port=0,
                           context=context, keys=new_keypair()).start()
    clients = []
    try:
        def sit(name, **kw):
            client = Client(server.address, name=name, context=context,
                            server_key=server.keys.public, **kw).connect()
            clients.append(client)
            return client
        ann, bob = sit("Ann", remember=True), sit("Bob")
        ann.ready()
        bob.ready()
        pump_until(lambda: ann.table["phase"] == "playing", [ann, bob])
        key, token = ann.keys.public, ann.token
        ann.leave()
        ann.close()
        back = sit("Ann", remember=True)
        assert (back.seat, back.token, back.keys.public) == (0, token, key)
    finally:
        for client in clients:
            client.close()
        server.stop()


def test_a_client_forgets_who_was_ready_at_a_round_end_and_a_countdown():
    """The arbiter clears every seat's ready at a countdown and a round end: so does a
    client's copy, or the next round's screen would show who was ready for the last one."""
    from lan_demon.net.client import Client
    client = Client("127.0.0.1:1")
    client.table["seats"] = [{"name": "Ann", "ready": True}, {"name": "Bob", "ready": True}]
    client.copy._k_countdown({"go": 1.0, "round": 0}, None)
    assert [s["ready"] for s in client.table["seats"]] == [False, False]
    client.table["seats"][1]["ready"] = True
    client.copy.mirror = None
    client.copy._k_round_end({"result": {"scores": [0, 0], "detail": [{}, {}]},
                              "totals": [0, 0], "next": None, "round": 0}, None)
    assert [s["ready"] for s in client.table["seats"]] == [False, False]
    client.close()


def new_host_on(port: int, context):
    """A new plain host on the port of one just stopped (a person starting it again): ZeroMQ
    lets go of the port a moment after the close, so the bind is tried until it takes."""
    from lan_demon.net.server import ArbiterServer, ServerError
    deadline = time.monotonic() + 10
    while True:
        try:
            return ArbiterServer(settings("racing-demon", countdown=0, pause=0), port=port,
                                 context=context).start()
        except ServerError:
            assert time.monotonic() < deadline, "the old host's port stayed taken"
            time.sleep(0.05)  # (a retry of the bind: nothing to wait on)


def test_a_reconnect_refused_by_a_new_host_on_the_same_port_is_said_not_raised(host, context):
    """The host stopped with Ann in its lobby and a new one started on the same port; Ann's
    reconnect was refused (the new host knows no such token) and the refusal came out of pump as a
    traceback on her screen. Now: one "gone" notice, nothing more tried, and pump goes on
    quietly."""
    first = host("racing-demon", seed=5)
    offset = [0.0]
    clock = lambda: time.monotonic() + offset[0]  # noqa: E731 - a clock the test moves on
    ann = person(host, first, "Ann", clock=clock)
    port = first.port
    first.stop()
    second = new_host_on(port, context)
    try:
        offset[0] += SILENCE + 1  # the old host is silent: Ann's client tries again
        kinds: list[str] = []
        deadline = time.monotonic() + 10
        while "gone" not in kinds:
            assert time.monotonic() < deadline, kinds
            kinds += [n.kind for n in ann.poll(0.05)]  # (raised before the fix)
        assert kinds.count("reconnecting") == 1 and ann.table["gone"]
        assert "unknown or has expired" in ann.table["gone"]
        offset[0] += 10 * SILENCE
        for _ in range(3):
            assert ann.poll(0.01) == []  # nothing more: no reconnect, no second notice
        assert not second.arbiter.seats  # and no seat was taken at the new table
    finally:
        second.stop()


def test_a_new_host_s_pongs_do_not_keep_a_client_on_a_table_that_is_gone(host, context):
    """A host stopped mid-match and a new one started on its port; the players' screens stayed
    frozen on the old table. Their clients kept pinging, and the new host answered every ping,
    which the client took for its table's voice. A pong is not: with no beat for 3.5 s the client
    tries its seat again and hears it gone."""
    first = host("racing-demon", players=2, seed=5)
    offset = [0.0]
    clock = lambda: time.monotonic() + offset[0]  # noqa: E731 - a clock the test moves on
    ann = person(host, first, "Ann", clock=clock)
    bob = person(host, first, "Bob")
    for c in (ann, bob):
        c.ready()
    pump_until(lambda: all(c.table["phase"] == "playing" for c in (ann, bob)), [ann, bob])
    port = first.port
    first.stop()
    second = new_host_on(port, context)
    try:
        kinds: list[str] = []
        for _ in range(60):  # 30 s on Ann's clock, half a second a step
            offset[0] += 0.5
            kinds += [n.kind for n in ann.poll(0.05)]
            if "gone" in kinds:
                break
        assert "reconnecting" in kinds and "gone" in kinds, kinds
        assert not second.arbiter.seats
    finally:
        second.stop()


def test_a_lan_demon_bot_whose_table_is_gone_says_so_and_stops(host, context):
    """The host stopped mid-match and a new one started on its port; the bot's window stayed silent
    for minutes and its process never ended. Its seat refused back, it says the table is gone and
    exits 1."""
    first = host("racko", players=2, seed=1)
    ann = person(host, first, "Ann")
    ann.ready()
    proc = _bot(first.address)
    second = None
    try:
        pump_until(lambda: ann.table["phase"] == "playing", [ann], timeout=30)
        port = first.port
        first.stop()
        second = new_host_on(port, context)
        out, err = proc.communicate(timeout=30)  # (3.5 s of silence, then the refusal)
        assert proc.returncode == 1, (out, err)
        assert "the table at 127.0.0.1:" in err and "is gone" in err and "the bot stops" in err
        assert "Traceback" not in err and "match over" not in out
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
        if second is not None:
            second.stop()


def test_a_lan_demon_bot_too_late_for_a_seat_says_when_a_bot_can_sit_down(host):
    """Found trying a late bot: it was refused with a person's advice ('watch it as a spectator
    (join --spectate)…') behind 'the arbiter refused us'. Now one line for a bot: no seat,
    why, and when a bot can sit down; exit 1, no traceback."""
    server = host("racing-demon", players=1, seed=3)
    ann = person(host, server, "Ann")
    ann.ready()
    pump_until(lambda: ann.table["phase"] != "lobby", [ann], timeout=30)
    proc = _bot(server.address)
    try:
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 1, (out, err)
    assert f"no seat for Robo at {server.address.removeprefix('tcp://')}: the match has " \
           "started. A bot sits down before the match starts" in err, err
    assert "spectator" not in err and "Traceback" not in err and "arbiter" not in err


def test_a_join_whose_seat_was_given_up_hears_why_not_to_run_the_same_join(context):
    """Six minutes after leaving, the join the screen had printed was refused with 'a player who
    left comes back by running the same join again'. The stored token is refused first, and the
    client says why (the seat was given up after 5 minutes), not the advice that had just
    failed."""
    from lan_demon.net.connect import ConnectError
    from lan_demon.net.seats import TOKEN_LIFE
    from lan_demon.net.server import ArbiterServer
    offset = [0.0]
    clock = lambda: time.monotonic() + offset[0]  # noqa: E731 - a clock the test moves on
    server = ArbiterServer(settings("racko", players=2, countdown=0, pause=0), port=0,
                           context=context, clock=clock).start()
    try:
        ann = Client(server.address, name="Ann", remember=True).connect()
        bob = Client(server.address, name="Bob").connect()
        for c in (ann, bob):
            c.ready()
        pump_until(lambda: ann.table["phase"] == "playing", [ann, bob])
        ann.leave()
        ann.close()
        pump_until(lambda: server.arbiter.seats[0].status == "away", [bob])
        offset[0] += TOKEN_LIFE + 5
        pump_until(lambda: server.arbiter.seats[0].status == "left", [bob])
        again = Client(server.address, name="Ann", remember=True)
        with pytest.raises(ConnectError) as refused:
            again.connect(timeout=5)
        said = str(refused.value)
        assert said.startswith(f"the table at {server.address.removeprefix('tcp://')} refused: "
                               "the seat of Ann was given up: a seat is kept 5 minutes"), said
        assert "same join again" not in said and "join --spectate" in said
        bob.close()
    finally:
        server.stop()


def test_rd13_a_clients_copy_marks_the_rotation_the_tables_minute_made(context):
    """The table's own move (seat TABLE, RD-13's 60 s without a play) is told apart from a
    rotation by votes: the copy records which rotation it made, for the screen's words."""
    from lan_demon.games.demon_stuck import STUCK_TIMEOUT
    from lan_demon.net.server import ArbiterServer
    offset = [0.0]
    clock = lambda: time.monotonic() + offset[0]  # noqa: E731 - a clock the test moves on
    server = ArbiterServer(settings("racing-demon", players=2, countdown=0, pause=0, seed=4),
                           port=0, context=context, clock=clock).start()
    try:
        ann = Client(server.address, name="Ann").connect()
        bob = Client(server.address, name="Bob").connect()
        for c in (ann, bob):
            c.ready()
        pump_until(lambda: all(c.table["phase"] == "playing" for c in (ann, bob)), [ann, bob])
        assert "minute_rotation" not in ann.table
        offset[0] += STUCK_TIMEOUT + 1
        pump_until(lambda: ann.table.get("minute_rotation") == 1, [ann, bob])
        assert ann.mirror.rotations == 1
        for c in (ann, bob):
            c.close()
    finally:
        server.stop()


def test_the_taken_name_is_said_when_a_seat_is_taken_not_when_it_is_taken_back(host):
    """'ann is taken at this table: you sit as ann ²' the first time; coming back to that seat
    by its stored token (q, then the same join) says nothing of the kind."""
    from lan_demon.commands.join import connect_person, name_told
    server = host("racko", players=3, seed=1)
    person(host, server, "Ann")
    first = connect_person(_join_args("ann"), server.address, None, None)
    host.clients.append(first)
    assert first is not None and first.name == "ann ²"
    assert name_told(_join_args("ann"), first) == "ann is taken at this table: you sit as ann ²"
    first.close()  # gone without a word: its seat kept, its token stored
    again = connect_person(_join_args("ann"), server.address, None, None)
    host.clients.append(again)
    assert again is not None and again.seat == first.seat and again.name == "ann ²"
    assert name_told(_join_args("ann"), again) is None
