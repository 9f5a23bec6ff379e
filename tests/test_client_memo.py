"""A client works out its seat's view and legal moves once per change of its table,
however often a screen reads them — the host makes one face per browser seat for every update
(20 at a full table), and a face read the view seven times. A change (an update, a move of its
own in flight) gives a new view at once."""

from __future__ import annotations

import pytest

from lan_demon.games.racing_demon import TurnPack
from lan_demon.net.client import Client
from net_harness import pump_until

pytestmark = pytest.mark.timeout(30)


def test_the_view_is_worked_out_once_per_change_and_shows_each_change(host):
    server = host("racing-demon", players=2, seed=1)
    a = Client(server.address, name="Ann", context=server.context)
    b = Client(server.address, name="Bob", context=server.context)
    host.clients.extend([a, b])
    for c in (a, b):
        c.connect()
        c.ready()
    pump_until(lambda: all(c.view() is not None and c.table["phase"] == "playing"
                           for c in (a, b)), [a, b])
    made = {"views": 0, "legal": 0}
    view, legal = a.game.view, a.game.legal_moves

    def counting_view(*args):
        made["views"] += 1
        return view(*args)

    def counting_legal(*args):
        made["legal"] += 1
        return legal(*args)

    a.game.view, a.game.legal_moves = counting_view, counting_legal
    pack = a.view()["players"][a.seat]["pack"]
    a.play(TurnPack())  # in flight: the prediction shows it at once (RD-9)
    made.update(views=0, legal=0)
    first = a.view()
    assert first["players"][a.seat]["pack"] != pack
    for _ in range(6):
        assert a.view() is first
        a.legal_moves().clear()  # a caller's list is its own: the next read is whole
    assert made == {"views": 1, "legal": 1}
    assert a.legal_moves()
    seq = b.seq
    pump_until(lambda: b.seq > seq and not a.pending, [a, b])
    assert b.view()["players"][a.seat]["pack"] != pack  # the other seat's copy moved too


def test_a_quiet_tables_beats_are_hashed_once_per_change_of_the_copy(host, monkeypatch):
    """Every beat carries the public table's hash; a copy that has not changed since it last
    matched is not redacted and hashed again (at a host with 20 browser seats, 20 copies did so
    every second for nothing). A beat after a change is checked again."""
    from lan_demon.net import table_copy
    counts = {"beats": 0, "hashes": 0}
    on_beat, state_hash = table_copy.TableCopy.on_beat, table_copy.state_hash

    def counting_beat(self, msg):
        counts["beats"] += self is ann.copy
        return on_beat(self, msg)

    def counting_hash(data):
        counts["hashes"] += 1
        return state_hash(data)

    monkeypatch.setattr(table_copy.TableCopy, "on_beat", counting_beat)
    monkeypatch.setattr(table_copy, "state_hash", counting_hash)
    server = host("racko", players=2, seed=2)
    ann = Client(server.address, name="Ann", context=server.context)
    bob = Client(server.address, name="Bob", context=server.context)
    host.clients.extend([ann, bob])
    for c in (ann, bob):
        c.connect()
        c.ready()
    pump_until(lambda: ann.copy.hash_checked is not None, [ann, bob])
    checked, counts["beats"], counts["hashes"] = ann.copy.hash_checked, 0, 0
    bob.close()  # only Ann's copy hashes from here
    host.clients.remove(bob)
    pump_until(lambda: counts["beats"] >= 3, [ann])
    assert counts["hashes"] == 0 and ann.copy.hash_checked == checked
