"""The bot SDK against a live arbiter on 127.0.0.1: the example bot as a command, events and
text moves, and a bot whose code raises — removed from its seat with its error shown while
the other bots, and the table, go on."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from lan_demon.bots import (Beaten, Bot, MatchEnd, Played, Refused, RoundEnd, RoundStart,
                            run_many)
from lan_demon.bots.racko import GreedyRackO
from lan_demon.bots.sdk import BotStrategy, result_of, seat
from lan_demon.games import get_game
from lan_demon.bots.runner import leave_and_close, make_bot, run_pool
from lan_demon.net.score_sheet import ScoreSheet
from lan_demon.net.table_copy import Notice
from net_harness import play_beside_bots

pytestmark = pytest.mark.timeout(90)

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "sdk_bot.py"


def load_example():
    spec = importlib.util.spec_from_file_location("sdk_bot_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_example_is_under_40_lines():
    assert len(EXAMPLE.read_text(encoding="utf-8").splitlines()) < 40


def test_rd14_the_example_bot_plays_a_match_as_a_command(host, context):
    server = host("racing-demon", players=3, rounds=2, seed=5)
    code, out, err = play_beside_bots([str(EXAMPLE), f"127.0.0.1:{server.port}", "Example",
                                       "flat-out"], server, context)
    assert code == 0, f"stdout:\n{out}\nstderr:\n{err}"
    result = server.arbiter.result
    seat_no = result["players"].index("Example")
    assert f"Example (seat {seat_no}): totals {result['totals']}, won by {result['winner']}" \
        in out


def test_the_example_bot_says_one_line_when_nobody_is_there():
    proc = subprocess.run([sys.executable, str(EXAMPLE), "127.0.0.1:9", "Nobody", "flat-out"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert proc.stderr.count("\n") == 1 and "is the host running" in proc.stderr


class Recorder:
    """Mixed into the example's bot: records events, answers in text, and tries a move that
    does not parse and one the rules forbid before playing properly."""

    def __init__(self):
        self.events = []
        self.views = []
        self.tries = ["nonsense", "pile s99"]

    def next_move(self, view, legal):
        self.views.append(view)
        if self.tries:
            return self.tries.pop(0)
        move = super().next_move(view, legal)
        return move if move is None or isinstance(move, str) else str(move)

    def on_event(self, event):
        self.events.append(event)


def test_rd11_an_sdk_bot_hears_the_table_and_plays_text_moves(host, context):
    """What a bot hears: round start, every committed move (its own marked), its refusals with
    their rule, races lost with the winner's seat (RD-11), round end with the scores, match end
    with the totals; its view hides the others' waste tops (RD-9)."""
    stacker = load_example().Stacker
    recorder = type("RecordingStacker", (Recorder, stacker), {})()
    server = host("racing-demon", players=3, rounds=2, seed=8)
    results = run_many([recorder, stacker(), stacker()], server.address,
                       names=["Rec", "Ann", "Bob"], speed="flat-out", timeout=60,
                       context=context)
    totals = server.arbiter.result["totals"]
    assert [r.totals for r in results] == [totals] * 3 and all(r.error is None for r in results)
    assert [r.name for r in results] == ["Rec", "Ann", "Bob"]
    events = recorder.events
    kinds = [e.kind for e in events]
    assert kinds[0] == "round" and kinds[-1] == "match_end"
    assert [e.round for e in events if isinstance(e, RoundStart)] == [0, 1]
    ends = [e for e in events if isinstance(e, RoundEnd)]
    assert [e.round for e in ends] == [0, 1] and len(ends[-1].totals) == 3
    assert events[-1] == MatchEnd(totals, server.arbiter.result["winner"])
    refused = [e for e in events if isinstance(e, Refused)]
    assert refused[0].code == "bad_move" and refused[0].move is None
    assert refused[1].code == "illegal" and refused[1].rule.startswith("RD-")
    played = [e for e in events if isinstance(e, Played)]
    mine = [e for e in played if e.mine]
    assert mine and all(e.seat == recorder.seat for e in mine)
    assert {e.seat for e in played} - {-1} == {0, 1, 2}  # everyone's moves, not only its own
    assert all(e.by in (0, 1, 2) for e in events if isinstance(e, Beaten))  # RD-11
    for view in recorder.views:  # what its seat may see, and no more (RD-9: waste tops)
        others = [p for i, p in enumerate(view["players"]) if i != recorder.seat]
        assert all("waste_top" not in p for p in others)


class Listener(Bot):
    def __init__(self):
        self.heard = []

    def on_event(self, event):
        self.heard.append(event)


def test_a_bot_whose_client_healed_by_snapshot_still_hears_each_round_start_and_end_once():
    """The Clone pattern: a client that missed the round update (a slow-joining SUB socket)
    gets the round from a snapshot, which brings no round notice; the bot is told anyway."""
    table = {"phase": "playing", "round": 0, "seats": []}
    client = SimpleNamespace(seat=1, table=table, scores=ScoreSheet())
    bot = Listener()
    strategy = BotStrategy(bot, get_game("racing-demon"), client)
    strategy.observe(Notice("resync"))
    strategy.observe(Notice("round", data={"round": 0}))  # e.g. it came after all: not twice
    table.update(phase="between", round=1)
    client.scores.add({"scores": [3, -2]})
    strategy.observe(Notice("resync"))
    strategy.observe(Notice("round", data={"round": 1}))
    client.scores.add({"scores": [1, 4]})
    table.update(phase="over", result={"totals": {"A": 4, "B": 2}, "winner": ["A"]})
    strategy.observe(Notice("resync"))
    assert bot.heard == [RoundStart(0), RoundEnd(0, [3, -2], [3, -2]), RoundStart(1),
                         RoundEnd(1, [1, 4], [4, 2]), MatchEnd({"A": 4, "B": 2}, ["A"])]


def test_a_bot_with_a_short_history_is_told_only_the_rounds_its_client_kept():
    """A bot's client keeps the last few results (``Client(history=…)``): a catch-up names
    rounds by their real numbers, with the running totals after each."""
    table = {"phase": "between", "round": 12, "seats": []}
    scores = ScoreSheet(keep=2, results=[{"scores": [2, 5]}, {"scores": [1, 1]}], first=10,
                        carried=[27, 34])  # (what rounds 0 to 9 added up to)
    bot = Listener()
    strategy = BotStrategy(bot, get_game("racing-demon"),
                           SimpleNamespace(seat=0, table=table, scores=scores))
    strategy.observe(Notice("resync"))
    assert bot.heard == [RoundEnd(10, [2, 5], [29, 39]), RoundEnd(11, [1, 1], [30, 40])]


class GreedyRackOBot(Bot):
    """The built-in Rack-O strategy, as an SDK bot."""

    game = "racko"

    def __init__(self):
        self.inner = GreedyRackO()

    def next_move(self, view, legal):
        return self.inner.choose(SimpleNamespace(view=view, legal=legal))


class RaisesInNextMove(Bot):
    def next_move(self, view, legal):
        return 1 / 0


class RaisesInOnEvent(Bot):
    def on_event(self, event):
        if isinstance(event, Played):
            raise RuntimeError("cannot cope with a move")


@pytest.mark.parametrize("broken", [RaisesInNextMove, RaisesInOnEvent])
def test_a_bot_whose_code_raises_leaves_its_seat_and_the_table_goes_on(host, context,
                                                                           capsys, broken):
    """The broken bot is removed with one line naming it and its error; the other bots of the
    same pool (an SDK bot and a built-in one) finish the match, the arbiter taking the empty
    seat's turns (stand-in turns, PROTOCOL.md §9)."""
    server = host("racko", players=3, rounds=1, seed=3, turn_timeout=0.1)
    pool = [seat(broken(), server.address, "Broken", speed="flat-out", context=context),
            seat(GreedyRackOBot(), server.address, "Sdk", speed="flat-out", context=context),
            make_bot(server.address, "greedy", "Builtin", speed="flat-out", context=context)]
    try:
        run_pool(pool, timeout=60)
    finally:
        for bot in pool[1:]:
            leave_and_close(bot.client)
    lines = [line for line in capsys.readouterr().err.splitlines() if "Broken" in line]
    error = "ZeroDivisionError" if broken is RaisesInNextMove else "RuntimeError"
    assert len(lines) == 1 and error in lines[0] and "removed" in lines[0], lines
    assert f"(at {__file__}:" in lines[0], lines  # where the bot's own code raised
    assert server.arbiter.phase == "over"
    assert server.arbiter.seats[0].status == "away"  # a leave mid-match keeps the seat 5 min
    assert server.arbiter.seats[0].stepped_out
    broken_result, sdk_result = result_of(pool[0]), result_of(pool[1])
    assert broken_result.error.startswith(error) and broken_result.totals == {}
    assert sdk_result.error is None and sdk_result.totals == server.arbiter.result["totals"]
    assert pool[2].done and pool[2].error is None


def test_rd5_offline_an_sdk_bot_is_seated_told_each_round_and_its_refusals():
    """Found by a bot author measuring a bot with BotStrategy in the simulator: self.seat was -1
    (the shipped example then read the last player's columns), self.name '', no RoundStart,
    and an illegal move dropped without a word. Offline now reads as a table does."""
    import random as rnd
    from lan_demon.bots.racing_demon import GreedyDemon
    from lan_demon.bots.simulator import play_round

    class Probe(Bot):
        game = "racing-demon"

        def __init__(self) -> None:
            self.seen: set[tuple[int, int, str]] = set()
            self.heard: list[object] = []
            self.tries = 0

        def next_move(self, view, legal):
            self.seen.add((self.seat, view["seat"], self.name))
            self.tries += 1
            return "pile s9" if self.tries <= 2 else None  # RD-5: there is no stack 9

        def on_event(self, event):
            self.heard.append(event)

    game = get_game("racing-demon")
    probe = Probe()
    bots = [GreedyDemon(), BotStrategy(probe, game)]
    for round_no in range(2):
        state = game.deal({"pile_sizes": [game.base_pile] * 2, "handicap": False},
                          rnd.Random(round_no))
        play_round(game, state, bots, 7, round_no)
    assert probe.seen == {(1, 1, "Probe")}
    assert [e.round for e in probe.heard if isinstance(e, RoundStart)] == [0, 1]
    refused = [e for e in probe.heard if isinstance(e, Refused)]
    assert len(refused) == 2 and refused[0].rule == "RD-5" and refused[0].code == "illegal"


def test_rd5_a_bot_refused_at_every_move_is_told_in_its_window_and_its_result(capsys):
    """Found by a bot author: a bot whose every move was refused (53 to 367 times) ended its
    match with error None and nothing on its screen. After REFUSED_SAY refusals in a row its
    window is told once (a move that goes starts the count again), and Result counts both."""
    import random as rnd
    from lan_demon.bots.runner import REFUSED_SAY, NetBot
    from lan_demon.bots.speed import profile
    heard: list[object] = []
    client = SimpleNamespace(name="Probe", seat=0, table={}, game=get_game("racing-demon"))
    net = NetBot(client, SimpleNamespace(bot=object()), rnd.Random(1),  # type: ignore
                 profile("flat-out"), on_notice=heard.append)
    for k in range(REFUSED_SAY + 5):
        net._refused_here("pile s9", "illegal", "RD-5", "there is no stack 9", float(k))
    err = capsys.readouterr().err
    assert err.count("moves in a row refused") == 1, err
    assert f"bot 'Probe': {REFUSED_SAY} moves in a row refused, the last: RD-5: there is no " \
           "stack 9 (its on_event hears each as Refused)" in err
    assert net.refused == REFUSED_SAY + 5 and len(heard) == REFUSED_SAY + 5


def test_a_slow_decision_is_said_once_in_the_bots_window(capsys):
    """Found by a bot author: a bot thinking 4 s a move went away and back 79 times on the
    host's screen and its own window said nothing. One line, once."""
    import random as rnd
    from lan_demon.bots.runner import SLOW_SAY, NetBot
    from lan_demon.bots.speed import profile
    client = SimpleNamespace(name="Slow", seat=0, table={}, game=get_game("racing-demon"))
    net = NetBot(client, SimpleNamespace(bot=object()), rnd.Random(1),  # type: ignore
                 profile("flat-out"))
    net._timed(SLOW_SAY - 0.5)
    assert capsys.readouterr().err == ""
    net._timed(4.0)
    net._timed(5.0)
    err = capsys.readouterr().err
    assert err == "lan-demon: bot 'Slow': a decision took 4.0 s; the table marks a seat away " \
        "after 3 s without a word from it, so keep next_move well under that\n"
