"""A coded table shows its play only to those who gave its room code
(PROTOCOL.md §20) — its snapshots and its PUB alike, not only its seats.

A stranger knows what the table announces: its address, the PUB port and (on a CURVE table) the
host's public key. With those and a key pair of its own it may subscribe and ask snapshots; it
must receive nothing. Every socket here is on 127.0.0.1, and every one a test opens it closes.
"""

from __future__ import annotations

import pytest

from arbiter_harness import Table
from lan_demon.bots.runner import leave_and_close, make_bot, run_pool
from lan_demon.cli import main
from lan_demon.net.client import Client
from lan_demon.net.codec import encode, make
from lan_demon.net.seated import Sender
from lan_demon.net.security import new_keypair
from watchers import CODE, REFUSED, Watcher, let_in_once_ann_gave_the_code, pump_watchers

pytestmark = pytest.mark.timeout(60)


def test_a_watcher_with_the_announced_key_alone_receives_nothing(host, context):
    """§20 at a coded CURVE table: Eve has the host's public key (the LAN announces it), the
    PUB port and a key pair of her own, and never gives the code. While two bots play a match
    (RK-1..RK-7) and the table publishes every move, the PUB refuses her SUB's handshake and
    her snapshots are answered ``not_joined``: nothing of the match reaches her. Sam, a
    spectator who gave the code, sees it all; so do the bots, who play it out."""
    keys = new_keypair()
    server = host("racko", keys=keys, players=2, rounds=1, seed=7, code=CODE)
    eve = Watcher(context, server)
    bots = []
    try:
        sam = Client(server.address, name="sam", role="spectator", context=context,
                     server_key=keys.public, code=CODE.lower())
        host.clients.append(sam)
        seen: list[dict] = []
        sam.watchers.append(lambda channel, msg, size: seen.append(msg))
        sam.connect()
        pump_watchers(lambda: REFUSED in eve.events, [eve])
        bots = [make_bot(server.address, "greedy", f"bot{i}", seed=i, speed="flat-out",
                         context=context, server_key=keys.public.decode(), code=CODE)
                for i in range(2)]
        published = server.published

        def watching() -> bool:  # run_pool's "until": pumped on every turn of the bots' loop
            eve.pump()
            sam.pump()
            return False

        run_pool(bots, until=watching, timeout=50)
        pump_watchers(lambda: any(m["t"] == "update" and m["k"] == "match_end" for m in seen),
                      [eve], [sam])
    finally:
        for bot in bots:
            leave_and_close(bot.client)
        eve.close()
    assert server.arbiter.phase == "over" and server.published - published > 20
    assert eve.events == [REFUSED] and eve.published == []
    assert eve.replies and {m["t"] for m in eve.replies} == {"error"}
    assert {m["code"] for m in eve.replies} <= {"not_joined", "rate_limited"}
    assert "room code" in next(m for m in eve.replies if m["code"] == "not_joined")["reason"]
    moves = [m for m in seen if m["t"] == "update" and m["k"] == "move"]
    assert len(moves) > 10 and any(m["t"] == "snap" for m in seen)


def test_a_coded_table_without_curve_lets_watch_only_the_addresses_that_gave_the_code(
        host, context):
    """A coded table without CURVE (``--code`` on loopback, or ``--lan --no-secure``) has no
    key to know a watcher by, only its IP address (ZAP's NULL mechanism): before anyone gave
    the code, a SUB is refused while the table publishes its beats; once Ann gave it from
    127.0.0.1, a SUB from 127.0.0.1 is let in — her laptop's, whoever on it asks."""
    server = host("racko", players=2, code=CODE)
    eve = Watcher(context, server)
    try:
        beats = server.published
        pump_watchers(lambda: REFUSED in eve.events and server.published > beats and
                      eve.replies, [eve])
        assert eve.published == []
        assert {m["t"] for m in eve.replies} == {"error"}
        codes = {m["code"] for m in eve.replies}
        assert "not_joined" in codes and codes <= {"not_joined", "rate_limited"}
        let_in_once_ann_gave_the_code(host, context, server, eve)
    finally:
        eve.close()


def test_snapshots_at_a_coded_table_go_only_to_those_who_gave_the_code():
    """The snapshot gate, where it is decided (the arbiter core): a connection that has not
    passed the room code — never said hello, gave none, gave a wrong one — is answered
    ``not_joined``, saying so in words; a seat and a spectator who gave it get the table."""
    t = Table("racko", code=CODE, players=None)
    (refused,) = t.send(b"X", "snapshot")
    assert refused["code"] == "not_joined" and "room code" in refused["reason"]
    assert t.send(b"A", "hello", name="Ann", role="player", code=CODE)[0]["t"] == "welcome"
    assert t.send(b"A", "snapshot")[0]["t"] == "snap"
    assert t.send(b"S", "hello", name="Sam", role="spectator", code=CODE)[0]["t"] == "welcome"
    assert t.send(b"S", "snapshot")[0]["t"] == "snap"
    assert t.send(b"M", "hello", name="Mal", role="spectator", code="WRONG")[0]["code"] == \
        "bad_code"
    assert t.send(b"M", "snapshot")[0]["code"] == "not_joined"
    assert [m["t"] for m in t.send(b"A", "snapshot")] == ["snap"]  # (state intact)


def test_the_gate_opens_for_the_code_and_for_a_seat_back_by_its_token(tmp_path):
    """Who may watch (the PUB's ZAP gate, filled by the arbiter): the keys — and addresses —
    of a seat and a spectator that gave the code; not a wrong code nor none. A resumed host's
    gate starts empty: its seats come back by token, without the code (they gave it before),
    and are let in again from the key that took the seat."""
    from journal_harness import secure_journal  # a coded CURVE table's journal, ann and bob seated
    from lan_demon.net.journal import read_journal
    from lan_demon.net.recovery import restore
    t = Table("racko", code=CODE, players=None)
    ann, sam, tom, zed = (Sender(new_keypair().public.decode(), f"10.0.0.{i}")
                          for i in range(2, 6))
    t.send(b"A", "hello", sender=ann, name="Ann", role="player", code=CODE.lower())
    t.send(b"S", "hello", sender=sam, name="Sam", role="spectator", code=CODE)
    t.send(b"T", "hello", sender=tom, name="Tom", role="player", code="WRONGCOD")
    t.send(b"Z", "hello", sender=zed, name="Zed", role="spectator")
    gate = t.arbiter.seating.passed
    assert [gate.lets_in_key(s.key) for s in (ann, sam, tom, zed)] == [True, True, False, False]
    assert [gate.lets_in_address(s.address) for s in (ann, sam, tom, zed)] == \
        [True, True, False, False]
    path = tmp_path / "j"
    taken = secure_journal(path, new_keypair())
    resumed = restore(read_journal(path), 50.0, path).arbiter
    sender, token = taken["ann"]
    assert not resumed.seating.passed.lets_in_key(sender.key)
    out = resumed.handle(b"ann2", encode(make("hello", id=3, name="ann", role="player",
                                              token=token)), 50.0, sender)
    assert out.private[0][1]["t"] == "welcome" and resumed.seating.passed.lets_in_key(sender.key)
    assert not resumed.seating.passed.lets_in_key(taken["bob"][0].key)


def test_a_coded_host_without_curve_says_what_its_code_does_not_hide(monkeypatch, capsys):
    """``host --code`` on loopback without ``--secure``: one line says that only laptops
    where someone gave the code may watch, and that the traffic is in clear."""
    from lan_demon.net import server as server_module
    seen = {}

    def serve(self, exit_when_over=True):
        seen.update(domain=self.watch_domain, gate=self.auth.gates.get(self.watch_domain))
        return {"game": "racko"}

    monkeypatch.setattr(server_module.ArbiterServer, "serve", serve)
    assert main(["host", "--game", "racko", "--port", "0", "--code", "abcdefgh", "--json"]) == 0
    err = capsys.readouterr().err
    assert "room code ABCD-EFGH" in err and "not encrypted: only laptops where someone gave " \
        "the code may watch, but anyone who can see the network traffic sees the play" in err
    assert seen["domain"] and seen["gate"] is not None
