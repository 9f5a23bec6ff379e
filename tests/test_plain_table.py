"""The line-mode table (``join --plain``): one line per event, typed commands.

A person at a plain table types lines against a bot on 127.0.0.1 (seeded deals, the bot's
seed fixed), in all four games, until the round ends; the lines printed say what was played
where and by whom, what the person holds, whose turn, the round's end and the scores — and a
line that is not a command, or a move the rules refuse, is answered in one line, nothing done.
"""

from __future__ import annotations

import io
import re
from typing import Any

import pytest

from net_harness import pump_until
from lan_demon.bots.runner import make_bot, run_pool
from lan_demon.net.client import Client
from lan_demon.seat.face import face
from lan_demon.tui.plain import PlainTable

pytestmark = pytest.mark.timeout(60)

ONTO = re.compile(r"^play: [^:]+: (\S+) from [A-Za-z0-9 ]+? onto (\S+)$")
RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]


class Person:
    """Types a line when the table waits for one, as a person reading the lines would: the
    moves the face offers (a card that fits, a slot, a discard), never a guess."""

    def __init__(self, table: PlainTable):
        self.table = table
        self.typed: list[str] = []
        self.turns = 0  # Racing Demon: Pack turns since a card was played

    def type(self, text: str) -> None:
        self.typed.append(text)
        self.table.command(text)

    def step(self) -> bool:
        table = self.table
        table.step()
        if "round: over" in table.out.getvalue():  # (with no pause, round 2 may have begun)
            return True
        if table.client.pending or table.question() is not None:
            if table.question() is not None:
                self.type("yes")
            return False
        made = face(table)
        if made["phase"] == "lobby" and "ready" not in self.typed:
            self.type("ready")
        elif made["phase"] == "playing" and made["table"]:
            self.move(made["game"], made["table"])
        return False

    def move(self, game: str, t: dict[str, Any]) -> None:
        if game.startswith("racing-demon"):
            me = t["me"]
            if me["lit"]:
                self.turns = 0
                self.type(f"play {me['lit'][0]}")
            elif self.turns > 30 and not me["voted"]:
                self.type("stuck")
            elif not me["voted"]:
                self.turns += 1
                self.type("turn")
        elif game == "racko" and t["your_turn"] and not t["over"]:
            if t["held"] is None:
                self.type("draw")
            else:  # the slot a card of 1..60 belongs in, as a beginner reckons it
                self.type(f"slot {min(50, max(5, 5 * -(-t['held'] // 6)))}")
        elif game == "gin-solitaire" and t["hand"] and t["phase"] != "over":
            if t["phase"] in ("discard", "first-discard") and t["best_discard"]:
                word = "knock" if t["can_knock"] else "card"
                self.type(f"{word} {t['best_discard']}")
            elif t["phase"] == "draw":
                self.type("draw")


def sit_beside_a_bot(host: Any, server: Any, out: io.StringIO,
                     coach: Any = None) -> tuple[PlainTable, Any]:
    """Ann at a plain table writing to ``out``, and a flat-out greedy bot (seed 3) beside."""
    client = Client(server.address, name="Ann", context=server.context).connect()
    host.clients.append(client)
    bot = make_bot(server.address, "greedy", "Robo", seed=3, speed="flat-out",
                   context=server.context)
    host.clients.append(bot.client)
    return PlainTable(client, out, coach=coach), bot


def to_my_rack_o_turn(table: PlainTable, bot: Any) -> None:
    """Ready, then the bot plays until it is Ann's turn with nothing of hers in flight."""
    table.command("ready")

    def my_turn() -> bool:
        table.step()
        made = face(table)
        return bool(made["table"]) and made["table"]["your_turn"] and not table.client.pending

    run_pool([bot], until=my_turn, timeout=30)


@pytest.mark.parametrize("game", ["racing-demon", "racing-demon-german", "racko",
                                  "gin-solitaire"])
def test_a_plain_table_is_played_by_typed_lines(host, game):
    """RD-12 / RK-5 / GS-6: a round played to its end by typed lines, told line by line."""
    server = host(game, players=2, rounds=5 if game == "racing-demon-german" else 1, seed=11)
    out = io.StringIO()
    table, bot = sit_beside_a_bot(host, server, out)
    client = table.client
    watched = io.StringIO()
    watcher = Client(server.address, name="Sue", role="spectator",
                     context=server.context).connect()
    host.clients.append(watcher)
    spectator = PlainTable(watcher, watched)
    person = Person(table)
    table.command("help")
    table.command("dance")  # not a command: one line, nothing done
    def both() -> bool:
        spectator.step()
        return person.step()

    run_pool([bot], until=both, timeout=50)
    pump_until(both, [client, watcher])  # the bot is done when its match is: ours too, soon
    lines = out.getvalue().splitlines()
    tags = {ln.split(":", 1)[0] for ln in lines}
    assert all(": " in ln for ln in lines), [ln for ln in lines if ": " not in ln]
    assert {"help", "refused", "phase", "seats", "hold", "play", "round", "scores"} <= tags, tags
    assert any("'dance' is not a command here" in ln for ln in lines)
    assert "phase: playing" in lines
    assert any(ln.startswith("play: you") for ln in lines)  # what you played, by you
    assert any(ln.startswith("scores: round 1: ") and "Ann" in ln and "Robo" in ln
               for ln in lines)
    if game == "racko":
        assert any(ln.startswith("turn: ") for ln in lines)  # whose turn
        assert any(ln.startswith("play: Robo") for ln in lines)  # by whom
    seen = watched.getvalue().splitlines()  # a spectator: every play by name, no hand
    assert any(ln.startswith("play: Ann") for ln in seen) or game == "gin-solitaire"
    assert any(ln.startswith("play: Robo") for ln in seen) or game == "gin-solitaire"
    assert not any(ln.startswith(("hold:", "play: you")) for ln in seen)
    if game != "racing-demon-german":  # (five rounds, no pause: round 2 begins at once)
        assert any(ln.startswith("deal: ") for ln in lines)  # the deal's check (§22)
    if game.startswith("racing-demon"):
        assert any(ln.startswith("hold: Pile ") for ln in lines)
        onto = [m.groups() for m in map(ONTO.match, lines) if m]
        assert onto and any(ln.endswith("starting a stack") for ln in lines)
        for card, top in onto:  # RD-5 / RG-3: the stack named by the top it was played on
            assert RANKS.index(card[:-1]) == RANKS.index(top[:-1]) + 1, (card, top)
            assert game == "racing-demon-german" or card[-1] == top[-1], (card, top)


def test_a_refused_move_is_one_line_with_its_rule(host):
    """RK-4 / RK-2: a discard before drawing, and a slot that does not exist, are refused in
    one line each, the rule after the words; nothing is sent."""
    server = host("racko", players=2, rounds=1, seed=4)
    out = io.StringIO()
    table, bot = sit_beside_a_bot(host, server, out)
    client = table.client
    to_my_rack_o_turn(table, bot)
    before = (client.seq, len(client.pending), out.getvalue().count("\n"))
    table.command("discard")
    table.command("take 7")
    said = out.getvalue().splitlines()[before[2]:]
    assert len(said) == 2, said
    assert said[0].startswith("refused: ") and said[0].endswith("(RK-4)"), said
    assert said[1].startswith("refused: there is no slot 7"), said
    assert (client.seq, len(client.pending)) == before[:2]
    table.command("n")  # Rack-O's draw key, typed: no question waits, so not "no"
    assert len(client.pending) == 1


def test_hint_says_the_coachs_advice_then_its_numbers(host):
    """RK-4: at a plain table the advice is said, not drawn: "hint" prints the coach's words
    for this turn, a second "hint" the numbers behind them, a third hides it."""
    from lan_demon.coach import coach_for
    server = host("racko", players=2, rounds=1, seed=4)
    out = io.StringIO()
    table, bot = sit_beside_a_bot(host, server, out, coach=coach_for("racko"))
    to_my_rack_o_turn(table, bot)
    before = out.getvalue().count("\n")
    for _ in range(3):
        table.command("hint")
    said = out.getvalue().splitlines()[before:]
    assert said[0].startswith("hint: Coach: "), said
    assert said[1] == said[0] and said[2].startswith("hint: ") and said[2] != said[0], said
    assert said[3] == "said: advice hidden", said


def test_play_plain_reads_typed_lines_from_a_pipe_and_leaves_at_its_end(monkeypatch, capsys):
    """``lan-demon play --plain``: no terminal needed — the commands come down a pipe, one
    line each, and the end of the input leaves the table (the match ends there, as ``play``
    says once the table is gone)."""
    import os

    from lan_demon.cli import main
    reader, writer = os.pipe()
    os.write(writer, b"help\nbogus\nstart\n")
    os.close(writer)
    with os.fdopen(reader) as stdin:
        monkeypatch.setattr("sys.stdin", stdin)
        assert main(["play", "--plain", "--no-web", "--game", "racko", "--seed", "2",
                     "--bots", "1", "--level", "1", "--name", "Ann"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "table: Rack-O: one line per event; type help for the commands"
    assert any(ln.startswith("help: take SLOT") for ln in out)
    assert any(ln.startswith("refused: 'bogus' is not a command here") for ln in out)
    assert "said: the input ended: leaving the table" in out
    assert out[-1].startswith("You left the table")
    assert all("\x1b" not in ln for ln in out)  # not one escape: lines for a reader


def test_the_join_again_keeps_the_plain_table_and_the_looks():
    """A screen reader's user who leaves a plain table is told a join that brings the plain
    table back (and the palette and big cards, as they were chosen)."""
    import argparse

    from lan_demon.commands.join import join_again
    args = argparse.Namespace(name="Ann", spectate=False, plain=True, palette="safe", big=True)
    assert join_again("127.0.0.1:7742", args).endswith(
        "join 127.0.0.1:7742 --name Ann --palette safe --big --plain")
    bare = argparse.Namespace(name="Ann", spectate=False, plain=False, palette=None, big=False)
    assert join_again("127.0.0.1:7742", bare).endswith("join 127.0.0.1:7742 --name Ann")


def stepped(table: PlainTable) -> bool:
    """Pump ``table`` and say nothing of what it heard: a wait's condition is what it checks
    after the step, never the step's events (any event would end the wait before the arbiter
    had done what the test waits for)."""
    table.step()
    return False


def test_the_captain_pauses_resumes_and_removes_by_typed_lines(host):
    """§24 at a plain table: pause, resume and remove NAME typed by the captain do what P
    and R do on the full-screen table (never 'not a command here')."""
    server = host("racko", players=2, rounds=1, seed=4)
    out = io.StringIO()
    table, bot = sit_beside_a_bot(host, server, out)
    table.command("ready")
    run_pool([bot], until=lambda: stepped(table) or face(table)["phase"] == "playing",
             timeout=30)
    table.command("pause")
    pump_until(lambda: stepped(table) or server.arbiter.paused is not None, [table.client])
    assert server.arbiter.paused.by == table.client.seat
    table.command("resume")
    pump_until(lambda: stepped(table) or server.arbiter.paused is None, [table.client])
    table.command("remove robo")  # asks first
    assert table.question() is not None and server.arbiter.seats[1].removed is False
    table.command("yes")
    pump_until(lambda: stepped(table) or server.arbiter.seats[1].removed, [table.client])
    lines = out.getvalue().splitlines()
    assert not any("not a command here" in ln for ln in lines), lines
