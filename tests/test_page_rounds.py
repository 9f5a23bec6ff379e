"""Whole rounds played through the page in real headless Chromium, over real sockets on
127.0.0.1 (the host fixture's arbiter, the web server, the gateway): two browser seats and a
bot play Racing Demon to the round-end table by taps; a browser seat and a terminal-less
Client (a Seat over a net Client, pumped here) play Rack-O and Gin Solitaire; a spectator and
the TV page never receive a hidden card — checked on the WebSocket frames the browser
received (Chrome's performance log), not on what the page drew. Deals are seeded
(tests/table_settings.py); waits are on the page's faces (WebDriverWait), never sleeps."""

from __future__ import annotations

from typing import Any, Callable

import pytest
import zmq
from selenium.webdriver.common.by import By

from faces.make_real import play_gin, play_racko
from lan_demon.net.client import Client
from lan_demon.seat import Seat
from page_checks import problems
from page_play import (ROUND, Bots, demon_step, gin_step, play_until, racko_step, round_over,
                       sit_down, socket_frames, tap, wait_face)

pytestmark = pytest.mark.timeout(110)


SCOREBOARD = """
const all = (sel) => Array.from(document.querySelectorAll(sel));
return {names: all(".scores tbody tr:not(.parts-row) .name").map((e) => e.innerText),
        parts: all(".scores tr.parts-row").map((e) => e.innerText),
        heads: all(".scores th").map((e) => e.innerText),
        chart: all("svg.chart").length > 0};
"""


@pytest.mark.timeout(60)
def test_two_browser_seats_and_a_bot_play_racing_demon_to_the_round_end(host, web, browser):
    """Ann on a phone and Bo on a laptop sit down, say ready and play by taps beside a bot;
    both pages reach the round-end table, every part of each score shown. (The bot plays flat
    out, so the round is short; its Pack turns send the pages nothing, and the page draws at
    most once a screen frame however many faces its stack plays send.)"""
    server = host("racing-demon", players=3, rounds=2)
    site = web(server)
    ann, bo = browser.open("phone"), browser.open("laptop")
    sit_down(ann, site.url, "Ann")
    sit_down(bo, site.url, "Bo")
    bots = Bots(server.address, ["Cy"], speed="flat-out")
    try:
        for driver in (ann, bo):
            wait_face(driver, lambda f: any(a["do"] == "ready" for a in f["acts"]))
            assert tap(driver, "[data-do='ready']")
        for driver in (ann, bo):
            wait_face(driver, lambda f: f["phase"] == "playing" and f["table"] is not None)
        assert problems(ann, 360) == []
        turns: dict[int, int] = {}
        play_until([ann, bo], lambda d: demon_step(d, turns), round_over)
    finally:
        bots.close()
    # Read in one go, in the page: it draws again whenever a face comes (the ping, the bot's
    # ready), and an element read between two drawings would be gone.
    board = {name: driver.execute_script(SCOREBOARD) for name, driver in (("ann", ann), ("bo", bo))}
    for seen in board.values():
        assert sorted(n.strip("★◀ ") for n in seen["names"]) == ["Ann", "Bo", "Cy"]
    parts = board["ann"]["parts"]
    assert len(parts) == 3 and all("stacked" in p and "pile left" in p for p in parts)
    assert board["bo"]["heads"][2:] == ["score (RD-14)", "stacked", "kings", "out",
                                        "pile left", "total"]
    assert board["ann"]["chart"]
    assert problems(ann, 360) == [] and problems(bo, 1280) == []
    for driver in (ann, bo):
        sent, _ = socket_frames(driver)
        plays = [f for f in sent if f.get("t") == "act" and f.get("do") in ("play", "turn")]
        assert plays, "the page never tapped a card"


def pump_seat(seat: Seat, play: Callable[[Seat], None]) -> Callable[[], None]:
    def also() -> None:
        poller = zmq.Poller()
        for sock in seat.client.sockets():
            poller.register(sock, zmq.POLLIN)
        poller.poll(5)
        seat.pump()
        play(seat)
    return also


@pytest.mark.parametrize("game", ["racko", "gin-solitaire"])
def test_a_browser_seat_and_a_client_play_a_round(host, web, browser, game):
    """Rack-O (the Discard then a slot, the Draw pile then a slot) and Gin Solitaire (the
    best discard, Draw, Knock answered in the seat's question) by taps, beside a
    terminal-less Client playing through its own Seat; the round ends on both."""
    server = host(game, rounds=1)
    site = web(server)
    ann = browser.open("phone")
    sit_down(ann, site.url, "Ann")
    bo = Seat(Client(server.address, name="Bo", context=server.context).connect())
    host.clients.append(bo.client)
    also = pump_seat(bo, play_racko if game == "racko" else play_gin)
    wait_face(ann, lambda f: len(f["seats"]) == 2)
    bo.ready()
    wait_face(ann, lambda f: any(a["do"] == "start" for a in f["acts"]))
    assert tap(ann, "[data-do='start']")
    if game == "racko":  # a keyboard works too: n draws, as on the terminal
        from selenium.webdriver.common.action_chains import ActionChains
        play_until([ann], lambda d: None, lambda f: f["phase"] == "playing" and
                   f["table"]["your_turn"], also, timeout=30)
        ActionChains(ann).send_keys("n").perform()
        wait_face(ann, lambda f: f["table"]["held"] is not None)
    turns = [0]
    step = (lambda d: racko_step(d, turns)) if game == "racko" else gin_step
    play_until([ann], step, round_over, also)
    assert ann.find_elements(By.CSS_SELECTOR, ".scores table")
    assert problems(ann, 360) == []
    sent, _ = socket_frames(ann)
    acts = {f.get("do") for f in sent if f.get("t") == "act"}
    assert acts >= ({"draw", "slot"} if game == "racko" else {"draw", "card"}), acts
    if game == "racko":
        assert {"t": "key", "key": "n"} in sent


PRIVATE = {"me", "rack", "held", "hand", "drawn"}


def hidden_parts(f: dict[str, Any]) -> list[str]:
    """What a spectator's face must not hold: its own cards (it has none), anyone's rack,
    hand or held card, a waste or Pack card."""
    out = []
    if not f.get("spectator") or f.get("you") is not None:
        out.append("not a spectator's face")
    table = f.get("table") or {}
    out += [f"table.{k}" for k in PRIVATE if table.get(k) is not None]
    for other in table.get("others") or []:
        out += [f"others.{k}" for k in other if k in PRIVATE | {"waste_top", "pack", "waste"}]
    return out


@pytest.mark.parametrize("game", ["racing-demon", "racko"])
def test_a_spectator_and_the_tv_never_receive_a_hidden_card(host, web, browser, game):
    """A phone that chose Just watch and the TV page (/tv) watch two bots play a round: no
    frame either received holds a card only a player may see."""
    server = host(game, players=2, rounds=1)
    site = web(server)
    tv, watcher = browser.open("laptop"), browser.open("phone")
    tv.get(site.url + "tv")
    wait_face(tv, lambda f: f["phase"] == "lobby")
    sit_down(watcher, site.url, "Gran", watch=True)
    bots = Bots(server.address, ["Ann", "Bo"])
    try:
        for driver in (tv, watcher):
            wait_face(driver, round_over, ROUND)
    finally:
        bots.close()
    assert tv.find_elements(By.CSS_SELECTOR, ".page.tv .scores table")
    assert not [b for b in tv.find_elements(By.CSS_SELECTOR, "button") if b.is_displayed()]
    for driver in (tv, watcher):
        _, received = socket_frames(driver)
        faces = [f["face"] for f in received if f.get("t") == "face"]
        assert any(f["phase"] == "playing" and f["table"] for f in faces)
        leaks = [(i, part) for i, f in enumerate(faces) for part in hidden_parts(f)]
        assert leaks == []


def test_the_leak_check_sees_a_players_cards():
    """hidden_parts itself: a player's face (its own cards, a Rack-O rack, a Gin hand) is
    caught; a spectator's sample is not."""
    import json
    from pathlib import Path
    faces = Path(__file__).parent / "faces"
    load = lambda name: json.loads((faces / f"{name}.json").read_text())  # noqa: E731
    assert hidden_parts(load("demon_spectator")) == []
    assert "table.me" in hidden_parts(load("demon_playing"))
    assert "table.rack" in hidden_parts(load("racko_playing"))
    assert "table.hand" in hidden_parts(load("gin_playing"))
