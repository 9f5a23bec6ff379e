"""The host window's log (lan_demon.commands.host_log): a plain ``host`` says who sat down,
who can start the match, who left and came back, and each round's scores (it once said none
of it). Over real sockets on 127.0.0.1, and as plain functions of the table."""

from __future__ import annotations

import io
from types import SimpleNamespace

import pytest

from host_stand_in import stand_in_arbiter
from lan_demon.commands.host_log import HostLog, Look, news
from lan_demon.games.demon_moves import VoteStuck
from lan_demon.net.client import Client
from net_harness import pump_until

pytestmark = pytest.mark.timeout(60)


def lines_of(log: io.StringIO) -> list[str]:
    return [line.removeprefix("lan-demon: ") for line in log.getvalue().splitlines()]


def test_rd13_a_plain_host_says_who_sat_down_who_starts_who_left_and_the_round(host):
    server = host("racing-demon", rounds=1, seed=5)
    log = io.StringIO()
    server.watch = HostLog(log)
    ann = Client(server.address, name="Ann", context=server.context).connect()
    host.clients.append(ann)
    pump_until(lambda: "Ann took seat 1" in lines_of(log), [ann])
    bob = Client(server.address, name="Bob", context=server.context).connect()
    host.clients.append(bob)
    pump_until(lambda: "Bob took seat 2" in lines_of(log), [ann, bob])
    assert lines_of(log) == ["Ann took seat 1",
                             "Ann is the captain: Enter on their screen starts the match",
                             "Bob took seat 2"]
    ann.start()
    pump_until(lambda: all(c.table["phase"] == "playing" and c.mirror for c in (ann, bob)),
               [ann, bob])
    pump_until(lambda: "the match has started: Ann, Bob" in lines_of(log), [ann, bob])

    token = bob.token
    bob.leave()
    bob.close()
    pump_until(lambda: "Bob is away (the seat is kept)" in lines_of(log), [ann])
    bob = Client(server.address, name="Bob", token=token, context=server.context).connect()
    host.clients.append(bob)
    pump_until(lambda: "Bob is back" in lines_of(log), [ann, bob])

    for rotation in range(3):  # RD-13: everyone stuck three times ends the round
        for c in (ann, bob):
            if not c.view()["players"][c.seat]["voted"]:  # (the table may have voted for
                c.play(VoteStuck())                       # Bob while he was away)
        pump_until(lambda: all(c.table["phase"] == "over" or
                               c.mirror.rotations == rotation + 1 for c in (ann, bob)),
                   [ann, bob])
    pump_until(lambda: any(x.startswith("round 1 over") for x in lines_of(log)), [ann, bob])
    result = server.arbiter.match.rounds[0].scores
    assert f"round 1 over: Ann {result[0]:+d}, Bob {result[1]:+d} · totals Ann {result[0]}, " \
           f"Bob {result[1]}" in lines_of(log)
    assert len(lines_of(log)) == len(set(lines_of(log)))  # each said once


def test_rk4_a_turn_table_whose_people_all_went_away_says_it_waits():
    """table_clock.nobody_here: the arbiter plays no turn for nobody; the host's window says
    why the table stands still (not only two seats away and nothing more)."""
    log = io.StringIO()
    watch = HostLog(log)
    seats = [("Ann", False, "here"), ("Bob", False, "away"), ("Robo L3", True, "here")]
    watch(stand_in_arbiter(seats, phase="playing", captain=0, races=False))
    seats[0] = ("Ann", False, "away")
    watch(stand_in_arbiter(seats, phase="playing", captain=0, races=False))
    assert lines_of(log)[-2:] == ["Ann is away (the seat is kept)", "every player is away: "
                                  "the table waits for one to come back (no turn is played "
                                  "for them meanwhile)"]
    racing = io.StringIO()  # Racing Demon's bots play on: nothing to say there
    HostLog(racing)(stand_in_arbiter(seats, phase="playing", captain=0, races=True))
    assert "waits" not in racing.getvalue()


def test_a_lobby_leave_a_bot_captain_and_a_self_starting_table_in_words():
    before = Look({"Ann": (False, "here"), "Robo L2": (True, "here")}, "lobby", "Ann")
    now = Look({"Robo L2": (True, "here")}, "lobby", "Robo L2")
    # Ann left the lobby (her seat is freed); a bot is nobody's captain to name
    assert news(before, now, stand_in_arbiter([("Robo L2", True, "here")], captain=0)) == \
        ["Ann left (1 at the table)"]
    # host --players 3: nobody starts it; the count is of the seats it waits for
    fresh = Look({"Cy": (False, "here")}, "lobby", "Cy")
    cy = stand_in_arbiter([("Cy", False, "here")], captain=0, players=3)
    assert news(Look(), fresh, cy) == ["Cy took seat 1 of 3"]


def test_a_resumed_table_is_news_only_from_where_it_stood():
    resumed = stand_in_arbiter([("Ann", False, "away"), ("Bob", False, "here")], phase="playing",
                    captain=0, rounds=2)
    log = io.StringIO()
    HostLog(log, since=resumed)(resumed)
    assert log.getvalue() == ""


def test_a_bot_is_named_with_its_level_as_on_every_screen_and_the_final_table_explains_it():
    """A bot named "Robo" on the table and "Robo L2" in the terminal's final table reads as another
    name. One rule: the name with its level, "Robo L2", on every screen, in the log (which marks a
    bot's seat, as the lobby does) and the final table, which says under it what the mark is."""
    from lan_demon.commands.results import format_table
    now = Look({"Robo L2": (True, "here"), "Ada L3": (True, "here")}, "lobby")
    said = news(Look(), now, stand_in_arbiter([], captain=None))
    assert said == ["Robo L2 (bot) took seat 1",  # two between two looks: by seat
                    "Ada L3 (bot) took seat 2"]
    result = {"game": "racing-demon", "seed": 1, "rounds": [{"scores": {"Ann": 3, "Robo L2": 5}}],
              "totals": {"Ann": 3, "Robo L2": 5}, "winner": ["Robo L2"]}
    assert format_table(result).endswith("winner: Robo L2\n(L2 after a bot's name: its level, "
                                         "from 1 to 10)")
    del result["totals"]["Robo L2"], result["rounds"][0]["scores"]["Robo L2"]
    result["winner"] = ["Ann"]
    assert format_table(result).endswith("winner: Ann")  # no bot, no line


def test_two_rounds_ended_between_two_looks_each_say_their_own_totals():
    """A flat-out table can end rounds faster than the log looks (4 a second): each line
    says the totals after its own round, not the latest."""
    rounds = [SimpleNamespace(scores=[3, -2]), SimpleNamespace(scores=[5, 1])]
    arb = SimpleNamespace(seats=[], phase="between", captain=lambda: None,
                          settings=SimpleNamespace(players=None),
                          match=SimpleNamespace(rounds=rounds, sides=["Ann", "Bob"],
                                                totals=[8, -1]))
    said = news(Look(phase="between"), Look(phase="between", rounds=2), arb)
    assert said == ["round 1 over: Ann +3, Bob -2 · totals Ann 3, Bob -2",
                    "round 2 over: Ann +5, Bob +1 · totals Ann 8, Bob -1"]
