"""A spectator at a real table (arbiter and bots on loopback): the demon screen shows every
player's public cards — Pile tops and Line tops — and never a hidden one, with no play keys
(RD-3: the Packs, the Pile under its top and the waste under its top are face down)."""

from __future__ import annotations

import time
from typing import Callable

import pytest
import zmq

from lan_demon.commands.local_table import start_local_table
from lan_demon.games.cards import Card
from lan_demon.net.client import Client
from lan_demon.tui.demon import DemonScreen
from lan_demon.tui.style import text_of
from lan_demon.tui.table import Controller

pytestmark = pytest.mark.timeout(120)


def poll_until(clients: list[Client], condition: Callable[[], bool], what: str,
               timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        for client in clients:
            client.poll(0.01)


def test_rd3_a_spectator_sees_every_pile_top_and_line_top_and_no_hidden_card():
    context = zmq.Context()
    table = start_local_table("racing-demon", 7, rounds=1, speed="beginner", countdown=0,
                              context=context)
    clients: list[Client] = []
    try:
        player = Client(table.address, name="Tess", context=context).connect()
        clients.append(player)
        table.add_bots(3)
        watcher = Client(table.address, name="Wes", role="spectator", context=context).connect()
        clients.append(watcher)
        poll_until(clients, lambda: len(player.table.get("seats", [])) == 4, "the bots")
        player.start()
        poll_until(clients, lambda: watcher.table.get("phase") == "playing"
                   and watcher.view() is not None and watcher.view()["stacks"],
                   "a stack on the spectator's table")
        assert watcher.seat is None
        ctl = Controller(watcher, DemonScreen())
        for width, height in ((60, 20), (80, 24), (120, 40)):
            text = text_of(ctl.render(width, height))
            rows = text.split("\n")
            assert len(rows) <= height and max(len(r) for r in rows) <= width
            assert "░" not in text and "waste" not in text and "Pack" not in text
            assert "play the Pile top" not in text and "You" not in text
        view = watcher.view()
        text = text_of(ctl.render(120, 40))
        for seat, p in enumerate(view["players"]):
            name = f" {ctl.name(seat)}"  # whole: a seated name fits every full entry
            row = next(r for r in text.split("\n") if name in r)
            entry = row[row.index(name):row.index(name) + 44]  # this player's entry only
            for code in [c for c in [p["pile_top"]] + [col[-1] for col in p["columns"]] if c]:
                assert Card.from_data(code).symbol in entry, (entry, code)
        ctl.key("p")
        assert "you are watching" in ctl.flash_text
    finally:
        for client in clients:
            client.close()
        table.close()
        context.term()
