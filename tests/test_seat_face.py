"""``face(seat)`` — what the page is sent — never holds a card the seat may not see,
is plain JSON, and making it changes nothing (a real table on 127.0.0.1: bots play a round,
a player's seat and a spectator's are faced after every step)."""

from __future__ import annotations

from typing import Any

import pytest

from lan_demon.bots.runner import make_bot, run_pool
from lan_demon.games.cards import Card
from lan_demon.net.client import Client
from lan_demon.seat import Seat
from seat_faces import check

pytestmark = pytest.mark.timeout(60)


@pytest.mark.parametrize("game, strategy", [("racing-demon", "greedy"),
                                            ("racing-demon-german", "greedy"),
                                            ("racko", "greedy"), ("gin-solitaire", "greedy")])
def test_a_face_holds_only_what_its_seat_may_see(host, game, strategy):
    players = 1 if game == "gin-solitaire" else 2
    server = host(game, players=players + (1 if game == "gin-solitaire" else 0),
                  rounds=5 if game == "racing-demon-german" else 1, seed=5)  # (RG-7: 5 at least)
    bots = [make_bot(server.address, strategy, f"bot{i}", seed=i, speed="flat-out",
                     context=server.context) for i in range(players)]
    host.clients.extend(b.client for b in bots)
    if game == "gin-solitaire":  # a second Gin player, so that the table has "others"
        bots.append(make_bot(server.address, strategy, "bot9", seed=9, speed="flat-out",
                             context=server.context))
        host.clients.append(bots[-1].client)
    watcher = Client(server.address, name="Sue", role="spectator",
                     context=server.context).connect()
    host.clients.append(watcher)
    player, spectator = Seat(bots[0].client), Seat(watcher)
    faces: list[dict[str, Any]] = []

    def step() -> bool:
        watcher.pump()
        watcher.take_notices()
        check(player, faces)
        check(spectator, faces)
        return player.phase in ("between", "over")  # the first round played

    run_pool(bots, until=step, timeout=45)
    playing = [f for f in faces if f["phase"] == "playing" and f["table"]]
    assert playing and any(f["spectator"] for f in playing)
    if game == "gin-solitaire":  # GS-3, GS-4: the hand's prompt, by taps on a page
        said = {f["table"]["prompt"] for f in playing if not f["spectator"]}
        assert "Your turn: Draw takes the top card" in said, said
        for f in playing:
            t = f["table"]
            if not f["spectator"] and t["phase"] in ("discard", "first-discard") and \
                    not t["unknown"] and t["deadwood"] is not None:
                assert "tap" in t["prompt"], t["prompt"]
    check(player, faces)  # the round over: its scores, every part, as data
    assert faces[-1]["phase"] in ("between", "over") and faces[-1]["scores"]["rows"]


@pytest.mark.parametrize("keyed", [True, False])
def test_gs3_gs4_gs6_the_gin_prompt_says_how_to_discard_and_knock_by_keys_or_taps(keyed):
    """A phone showed "discard, knock or Big Gin" and nothing said a tap discards a card."""
    from types import SimpleNamespace
    from lan_demon.seat.gin import GinSeat
    game = SimpleNamespace(seat=SimpleNamespace(how=lambda keys, taps: keys if keyed else taps))
    king = Card.from_data("KC")
    lay = SimpleNamespace(unknown=False, discard=king, points=31, big_gin=False)
    said = GinSeat.prompt(game, {"phase": "discard"}, lay)
    assert said == ("Discard a card: its letter" if keyed else "Discard a card: tap it") + \
        " (K♣: the least deadwood left)"
    lay.points = 6
    said = GinSeat.prompt(game, {"phase": "discard"}, lay)
    assert said.startswith("You can knock with 6 deadwood: ")
    assert ("K and a letter knocks" if keyed else "tap Knock, then the card") in said
    said = GinSeat.prompt(game, {"phase": "first-discard"}, lay)
    assert said.startswith("Discard one card face down to begin: ")
    assert GinSeat.prompt(game, {"phase": "over"}, lay) == ""
