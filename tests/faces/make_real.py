"""Faces from real tables, for the page's tests (tests/test_page_faces.py) and screenshots:
``python tests/faces/make_real.py`` plays seeded tables on 127.0.0.1 — Ann (a Seat over a
Client, playing as a simple person would) beside flat-out bots, and a spectator — and writes
``face(seat)`` at each phase as ``real_<game>_<moment>.json`` here. The hand-written samples
(make_samples.py) cover what a short real game rarely shows (20 seats, a failed deal check,
questions); these keep the page true to what the seat layer really sends."""

from __future__ import annotations

import json
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable

import zmq

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent.parent), str(HERE.parent)]

from lan_demon.bots.runner import leave_and_close, make_bot, run_pool  # noqa: E402
from lan_demon.net.client import Client  # noqa: E402
from lan_demon.net.server import ArbiterServer  # noqa: E402
from lan_demon.seat import Seat  # noqa: E402
from lan_demon.seat.face import face  # noqa: E402
from table_settings import settings  # noqa: E402

WAIT = 60.0


def pump(seats: list[Any], until: Callable[[], bool], act: Callable[[], None] = lambda: None,
         timeout: float = WAIT) -> None:
    """Pump the seats' clients (polling their sockets) and act, until ``until()``."""
    deadline = time.monotonic() + timeout
    while not until():
        if time.monotonic() > deadline:
            raise TimeoutError("the table did not get there")
        poller = zmq.Poller()
        for seat in seats:
            for sock in seat.client.sockets():
                poller.register(sock, zmq.POLLIN)
        poller.poll(20)
        for seat in seats:
            seat.pump()
        act()


def play_demon(seat: Any) -> None:
    """A card that fits a stack, else the Pile to its best place, else turn the Pack."""
    if seat.phase != "playing" or seat.client.pending:
        return
    game = seat.game
    sources, _ = game.fits()
    for source in sorted(sources) or ["pile"]:
        if game.places(source):
            game.play_from(source)
            return
    game.turn()


def play_racko(seat: Any) -> None:
    """On our turn: draw, then put the card in the slot its value points to."""
    game = seat.game
    view = seat.client.view()
    if seat.phase != "playing" or seat.client.pending or view is None or not game.mine(view):
        return
    if game.holding(view):
        held, deck = view["held"], view["deck_size"]
        game.place(min(50, 5 * (1 + (held - 1) * 10 // deck)))
    else:
        game.draw()


def play_gin(seat: Any) -> None:
    """The best discard; knock as soon as the deadwood allows it."""
    view = seat.client.view()
    if seat.phase != "playing" or seat.client.pending or view is None or "hand" not in view:
        return
    game = seat.game
    if view["phase"] == "draw":
        game.draw()
        return
    if view["phase"] not in ("first-discard", "discard"):
        return
    lay = game.layout(view)
    if lay.discard is None:
        return
    if view["phase"] == "discard" and lay.points is not None and lay.points <= 10:
        game.knock(lay.discard.code, sure=True)
    else:
        game.tap_card(lay.discard.code)


PLAYERS = {"racing-demon": play_demon, "racing-demon-german": play_demon, "racko": play_racko,
           "gin-solitaire": play_gin}


def record(game: str, bots: int, rounds: int, out: Path = HERE, moves: int = 6) -> list[str]:
    """Play one seeded match of ``rounds`` and write its faces; the names written."""
    context = zmq.Context()
    server = ArbiterServer(settings(game, rounds=rounds, countdown=0, pause=0.5), port=0,
                           context=context).start()
    ann = Seat(Client(server.address, name="Ann", context=context).connect())
    watcher = Seat(Client(server.address, name="Tv", role="spectator",
                          context=context).connect())
    seated = []
    stop = threading.Event()
    thread = None
    written: list[str] = []

    def save(moment: str, seat: Any = ann) -> None:
        name = f"real_{game.replace('-', '_')}_{moment}"
        (out / f"{name}.json").write_text(json.dumps(face(seat), ensure_ascii=False, indent=1))
        written.append(name)

    try:
        pump([ann, watcher], lambda: ann.client.seat is not None and ann.phase == "lobby")
        save("lobby")
        seated = [make_bot(server.address, "greedy", f"Bot{i}", seed=i, speed="flat-out",
                           context=context) for i in range(bots)]
        thread = threading.Thread(target=run_pool, args=(seated,),
                                  kwargs={"until": stop.is_set, "timeout": WAIT}, daemon=True)
        thread.start()
        pump([ann, watcher], lambda: len(ann.seats) == bots + 1 and
             all(s.get("ready") for s in ann.seats[1:]))
        ann.start()
        player = PLAYERS[game]
        played = [0]

        def act() -> None:
            before = len(ann.client.pending)
            player(ann)
            played[0] += len(ann.client.pending) > before

        pump([ann, watcher], lambda: ann.phase == "playing")
        pump([ann, watcher], lambda: played[0] >= moves or ann.phase != "playing", act)
        if ann.phase == "playing":
            save("playing")
            save("spectator", watcher)
        pump([ann, watcher], lambda: ann.phase in ("between", "over"), act)
        save("round_end")
        if rounds > 1:
            ann.ready()
            pump([ann, watcher], lambda: ann.phase == "playing")
            pump([ann, watcher], lambda: ann.phase == "over", act)
            save("over")
    finally:
        stop.set()
        if thread is not None:
            thread.join(timeout=10)
        for bot in seated:
            leave_and_close(bot.client)
        for seat in (ann, watcher):
            seat.client.close()
        server.stop()
        context.term()
    return written


def main() -> None:
    chosen = sys.argv[1:]
    for game, bots, rounds in (("racing-demon", 2, 2), ("racing-demon-german", 2, 5),
                               ("racko", 1, 1), ("gin-solitaire", 1, 1)):
        if chosen and game not in chosen:
            continue
        print(game, record(game, bots, rounds))


if __name__ == "__main__":
    main()
