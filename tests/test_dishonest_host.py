"""A modified host is caught, by every client, within the round.

Each cheat that chooses the deal (drop, seeded flip, recommit, evade: ``tests/dishonest.py``) runs
a real table on 127.0.0.1 with three honest clients of three kinds — Ann, the reference ``Client``;
Bob, a bot of ``lan_demon.bots.runner``; Tess, a terminal screen (the ``Controller`` every
``lan-demon join`` draws) — all three playing greedy Racing Demon. Every one of them must say so on
its own (PROTOCOL.md §22.7), before the round is over, and ``lan-demon verify`` must fail the
host's journal. A host that hides one seat's verdict is seen by the others; ``--countdown 0`` mixes
every nonce in without a false alarm; a dispute about a round never dealt is refused.
"""

from __future__ import annotations

import random
import time
from typing import Any

import pytest
import zmq

from dishonest import (Dropping, Evading, Forging, Hiding, Recommitting, SeedFlipping,
                       dishonest)
from lan_demon.bots.registry import make_strategy
from lan_demon.bots.runner import NetBot, leave_and_close, make_bot, run_pool
from lan_demon.bots.speed import profile
from lan_demon.cli import main
from lan_demon.net.client import Client
from lan_demon.net.table_copy import Notice
from lan_demon.tui.app import table_for
from lan_demon.tui.style import text_of

pytestmark = pytest.mark.timeout(90)


class People:
    """Ann (the reference Client), Bob (a runner bot) and Tess (a terminal screen) at one
    table, all three moved by the greedy strategy at the flat-out pace; every notice each
    one's client gave is kept in ``heard`` (in order), Tess's as her screen took them."""

    def __init__(self, server: Any, host: Any, withhold: str | None = None):
        """``withhold``: the one whose program promises its randomness and never reveals it
        (a player the host works with, holding it back after seeing the others')."""
        self.heard: dict[str, list[Notice]] = {"Ann": [], "Bob": [], "Tess": []}
        ann = Client(server.address, name="Ann")
        tess = Client(server.address, name="Tess")
        host.clients.extend([ann, tess])
        ann.connect()
        self.ann = self._moved(ann, 1)
        self.bob = make_bot(server.address, "greedy", "Bob", seed=2, speed="flat-out")
        for bot in (self.ann, self.bob):
            if bot.client.name == withhold:
                _never_reveals(bot.client)
        tess.connect()
        self.tess = self._moved(tess, 3)
        self.screen = table_for(tess, bell=False)
        self.screen.banner_seconds = 0.0  # the round-end scores at once, not after "OUT!"
        took = tess.take_notices

        def taken() -> list[Notice]:  # what Tess's screen takes, kept in order
            notices = took()
            self.heard["Tess"] += notices
            self.tess.handle(notices)
            return notices
        tess.take_notices = taken  # type: ignore[method-assign]
        for client in (ann, tess):
            client.ready()

    @staticmethod
    def _moved(client: Client, seed: int) -> NetBot:
        return NetBot(client, make_strategy(client.game.id, "greedy"), random.Random(seed),
                      profile("flat-out"))

    @property
    def clients(self) -> list[Client]:
        return [self.ann.client, self.bob.client, self.tess.client]

    def run(self, until: Any, timeout: float = 40.0) -> None:
        """Pump everyone (no sleeps: the sockets wake us) until ``until()``."""
        deadline = time.monotonic() + timeout
        while not until():
            assert time.monotonic() < deadline, "timed out waiting"
            poller = zmq.Poller()
            for client in self.clients:
                for sock in client.sockets():
                    poller.register(sock, zmq.POLLIN)
            poller.poll(20)
            for name, bot in (("Ann", self.ann), ("Bob", self.bob)):
                bot.client.pump()
                notices = bot.client.take_notices()
                self.heard[name] += notices
                bot.handle(notices)
            self.screen.pump()
            now = time.monotonic()
            for bot in (self.ann, self.bob, self.tess):
                bot.step(now)

    def over(self) -> bool:
        return all(c.table.get("phase") == "over" for c in self.clients)

    def close(self) -> None:
        leave_and_close(self.bob.client)

    def screen_text(self) -> str:
        return text_of(self.screen.render(110, 40))


def _never_reveals(client: Client) -> None:
    send = client.copy.duties.request
    client.copy.duties.request = lambda msg: None if msg["t"] == "reveal" else send(msg)


def flagged(notices: list[Notice], words: str) -> int | None:
    """Where the first alarm of our own check (``dishonest``) with ``words`` is, if any."""
    return next((i for i, n in enumerate(notices) if n.kind == "dishonest" and
                 words in n.text and "round 1" in n.text), None)


def where(notices: list[Notice], kind: str) -> int:
    return next(i for i, n in enumerate(notices) if n.kind == kind)


CHEATS = [
    # (the modified host, what every client says, at the latest before, what verify says)
    (Dropping, "left out the randomness your program promised", "round", "dropped it"),
    (SeedFlipping, "switched to a fixed seed", "round", "announced as dealt from a fixed "
                                                        "seed, but the host had none"),
    (Recommitting, "a second time with a new promise", "round", "a second countdown"),
    (Evading, "not the ones the promised deal gives", "match_end",
     "fingerprint published at Go"),
]


@pytest.mark.parametrize("cheat, says, before, verdict", CHEATS,
                         ids=[c[0].__name__ for c in CHEATS])
def test_a_modified_host_is_flagged_by_every_client_on_screen_and_by_verify(
        host, tmp_path, capsys, cheat, says, before, verdict):
    """Drop, seeded flip, recommit and evade each let a host choose the deal, and no client
    noticed. Now every honest client flags it — the first three before Go, evade at the round's
    end, from the deal's fingerprint and the cards a resync's snapshot says it was dealt — each on
    its own; Tess's screen shows it at its top; verify fails the journal at the record of the
    cheat."""
    journal = tmp_path / "match.journal"
    server = dishonest(host("racing-demon", players=3, rounds=1, seed=None, countdown=0.3,
                            journal=journal), cheat)
    people = People(server, host)
    try:
        people.run(lambda: people.over() and all(
            flagged(people.heard[name], says) is not None for name in people.heard))
    finally:
        people.close()
    for name, notices in people.heard.items():
        assert flagged(notices, says) < where(notices, before), name  # within the round
    screen = people.screen_text()
    assert "DEAL CHECK FAILED" in screen and says in " ".join(screen.split())
    if cheat is Evading:  # every client missed Go's own update, and checked all the same
        assert all(any(n.kind == "resync" for n in people.heard[name]) for name in people.heard)
    capsys.readouterr()
    assert main(["verify", str(journal)]) == 1
    line = capsys.readouterr().out
    assert line.startswith("FAIL") and verdict in " ".join(line.split()), line


def test_an_honest_host_with_the_same_people_raises_no_alarm_and_verifies(
        host, tmp_path, capsys):
    """The control: the same three, the same table, an honest host — no alarm, no note that
    anyone's randomness was missing, every round ✓, and verify OK."""
    journal = tmp_path / "match.journal"
    server = host("racing-demon", players=3, rounds=1, seed=None, countdown=0.3,
                  journal=journal)
    people = People(server, host)
    try:
        people.run(people.over)
    finally:
        people.close()
    for name, notices in people.heard.items():
        assert not [n for n in notices if n.kind in ("dishonest", "dispute", "deal_note")], \
            name
    for client in people.clients:
        assert client.witness.outcome(0) == "ok"
    assert "this round's deal was checked" in " ".join(people.screen_text().split())
    assert main(["verify", str(journal)]) == 0
    assert capsys.readouterr().out.startswith("OK")


def two_bots(server: Any) -> tuple[dict[str, list[Notice]], list[NetBot]]:
    """Ann and Bob, runner bots, seated at ``server``, every notice each one's client gives
    kept in order."""
    heard: dict[str, list[Notice]] = {"Ann": [], "Bob": []}
    bots = [make_bot(server.address, "greedy", name, seed=i, speed="flat-out")
            for i, name in enumerate(heard)]
    for bot in bots:
        bot.on_notice = heard[bot.client.name].append
    return heard, bots


def play_out(bots: list[NetBot]) -> None:
    try:
        run_pool(bots, timeout=60)
    finally:
        for bot in bots:
            leave_and_close(bot.client)


def test_a_hidden_verdict_is_seen_by_the_others(host):
    """§22.6: a host that deals one seat (Bob) other cards than the promised deal gives and
    publishes the promised deal's fingerprint is caught by Bob alone — and hides Bob's
    dispute and failing check. Bob's check never reaching the table is then said on the
    other screens, by the end of the next round."""
    server = dishonest(host("racko", players=2, rounds=2, seed=None, countdown=0.3), Hiding)
    heard, bots = two_bots(server)
    play_out(bots)
    ann, bob = heard["Ann"], heard["Bob"]
    assert flagged(bob, "your cards are not the ones the promised deal gives") is not None
    assert not [n for n in ann if n.kind == "dispute"]  # the host hid it
    missing = [n for n in ann if n.kind == "dishonest" and "Bob's check of round 1" in n.text]
    assert missing and "never reached the table" in missing[0].text
    assert ann.index(missing[0]) < where(ann, "match_end")  # at round 2's end, not later


def test_a_forged_verdict_is_caught_by_the_others_and_by_verify(host, tmp_path, capsys):
    """§22.6: the host cannot publish an "ok" in Bob's name in place of what Bob said: until
    Bob reveals it, it has only the ok word's hash. A word of its own making is caught by
    every other screen, and by verify."""
    journal = tmp_path / "match.journal"
    server = dishonest(host("racko", players=2, rounds=2, seed=None, countdown=0.3,
                            journal=journal), Forging)
    heard, bots = two_bots(server)
    play_out(bots)
    forged = [n for n in heard["Ann"] if n.kind == "dishonest" and "Bob's check" in n.text]
    assert forged and "not one of the two words Bob's program promised" in forged[0].text
    capsys.readouterr()
    assert main(["verify", str(journal)]) == 1
    line = capsys.readouterr().out
    assert "Bob (seat 1)'s check of this round is not one of the two words" in line, line


def test_a_withheld_reveal_is_said_on_every_screen_naming_the_seat(host, tmp_path,
                                                                           capsys):
    """A withheld reveal is seen: a round dealt without a committed seat's nonce
    said so only in the raw data. Now every screen names the seat, and verify reports it."""
    journal = tmp_path / "match.journal"
    server = host("racing-demon", players=3, rounds=1, seed=None, countdown=0.3,
                  journal=journal)
    people = People(server, host, withhold="Bob")
    try:
        people.run(people.over)
    finally:
        people.close()
    for name, notices in people.heard.items():
        notes = [n.text for n in notices if n.kind == "deal_note"]
        whose = "your" if name == "Bob" else "Bob's"
        assert notes == [f"Round 1 was dealt without {whose} randomness (promised, but not "
                         "revealed before Go)"], name
        assert not [n for n in notices if n.kind in ("dishonest", "dispute")], name
    assert "Round 1 was dealt without Bob's randomness" in " ".join(
        people.screen_text().split())
    capsys.readouterr()
    assert main(["verify", str(journal)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("OK") and "round 1 was dealt without the randomness of Bob (seat " \
        "1): promised, not revealed" in " ".join(out.split()), out


def test_countdown_0_mixes_every_nonce_in_without_a_false_alarm(host):
    """At ``--countdown 0`` every check failed, every round ("your nonce was left out"), and no
    nonce was ever mixed in: Go came at once, and a reveal answered too_late counted as made. Now a
    countdown of 0 deals once every listed seat has revealed (§22.3), and a reveal counts only when
    it is accepted."""
    server = host("racko", players=2, rounds=3, seed=None, countdown=0, pause=0)
    heard, bots = two_bots(server)
    play_out(bots)
    for name, notices in heard.items():
        assert not [n for n in notices if n.kind in ("dishonest", "dispute", "deal_note")], \
            (name, [n.text for n in notices if n.kind in ("dishonest", "deal_note")])
    for bot in bots:
        witness = bot.client.witness
        played = [r for r in witness.rounds if witness.outcome(r) is not None]
        assert played == [0, 1, 2] and all(witness.outcome(r) == "ok" for r in played)
        assert all(len(witness.rounds[r].used) == 2 for r in played)  # both nonces, each round


def test_a_dispute_about_a_round_never_dealt_is_refused():
    """A dispute for round 0 in the lobby was accepted and broadcast: any seat could put a deal
    warning on every screen before any deal existed."""
    from arbiter_harness import Table
    t = Table(seed=None, countdown=1.0)
    t.seat(b"A", "Ann")
    t.seat(b"B", "Bob")
    (refused,) = t.send(b"A", "dispute", id=7, round=0, reason="cheat!")
    assert refused["code"] == "wrong_round" and not t.updates("dispute")
    t.send(b"A", "ready")
    t.send(b"B", "ready")  # round 0's countdown is out: its deal may be disputed now
    (ok,) = t.send(b"A", "dispute", id=8, round=0, reason="a second countdown")
    assert ok["t"] == "ok" and len(t.updates("dispute")) == 1
    (refused,) = t.send(b"B", "dispute", id=9, round=1, reason="cheat!")
    assert refused["code"] == "wrong_round" and len(t.updates("dispute")) == 1

