"""The host's own window runs the evening (commands/host_desk.py, PROTOCOL.md §24): each typed
line gets one answer in words, never a traceback, and does what the captain's messages do —
and the host's log says it, with a seat's away time out loud."""

from __future__ import annotations

import io

import pytest

from arbiter_harness import race_table
from lan_demon.commands.host_desk import Desk, answer
from lan_demon.commands.host_log import HostLog
from lan_demon.net.outbox import Outbox

pytestmark = pytest.mark.timeout(30)


def typed(t, line: str) -> str:
    out = Outbox()
    said = answer(line, t.arbiter, t.now, out)
    t._collect(out, None)
    return said


def test_the_host_pauses_resumes_and_removes_by_name_and_every_screen_is_told():
    t = race_table()
    assert "paused" in typed(t, "pause") and t.arbiter.paused.words() == "the host"
    assert t.updates("pause")[0]["name"] == "the host"
    assert "paused already, by the host" in typed(t, "PAUSE")
    t.now += 83
    assert typed(t, " resume ") == "the table runs again (it stood 1:23)"
    assert typed(t, "remove bob").startswith("Bob is removed")
    assert t.arbiter.seats[1].removed and t.updates("removed")[0]["by_name"] == "the host"
    assert "nobody at the table is called 'Bob'" in typed(t, "remove Bob")


@pytest.mark.parametrize("line", ["", "resume", "remove", "remove Zed", "remove 9", "dance",
                                  "pause now please", "remove 🃏", "\x1b[A"])
def test_every_line_gets_one_answer_and_a_wrong_one_changes_nothing(line):
    t = race_table()
    before = t.arbiter.durable()
    said = typed(t, line)
    assert isinstance(said, str) and "Traceback" not in said
    if line.split(" ")[0] != "pause":
        assert t.arbiter.durable() == before and t.arbiter.paused is None


def test_help_and_seats_say_who_is_away_and_how_long_the_seat_is_kept():
    t = race_table()
    assert "remove NAME" in typed(t, "help")
    t.send(b"A", "hb", at=104.0)
    t.tick(104.0)  # Bob silent: away at 104
    t.now = 187.0
    assert typed(t, "seats") == "1 Ann here; 2 Bob away 1:23 — seat kept 3:37 more"


def test_the_hosts_log_says_the_pause_the_removal_and_the_away_time_each_minute():
    t = race_table()
    out = io.StringIO()
    log = HostLog(out, since=t.arbiter)
    t.send(b"A", "hb", at=104.0)
    t.tick(104.0)
    t.send(b"A", "pause")
    log(t.arbiter)
    t.arbiter.facts.now = 104.0 + 61  # paused: the away time stands still
    log(t.arbiter)
    typed(t, "resume")
    t.send(b"A", "hb", at=t.now + 61)
    t.arbiter.facts.now = t.now
    log(t.arbiter)
    typed(t, "remove Bob")
    log(t.arbiter)
    lines = out.getvalue().splitlines()
    assert "lan-demon: Ann paused the table: every clock stands still, moves wait (type " \
           "resume here to go on)" in lines
    assert "lan-demon: the table runs again" not in lines  # the host's own: said by the desk
    assert "lan-demon: Bob away 1:01 — seat kept 3:59 more" in lines
    assert not [line for line in lines if "removed" in line]  # the host's own, as above
    t.send(b"A", "pause")
    log(t.arbiter)
    t.send(b"A", "resume")
    log(t.arbiter)
    assert out.getvalue().splitlines()[-1] == "lan-demon: Ann resumed the table: it runs again"


def test_the_desk_hands_each_line_to_the_loop_and_prints_its_answer():
    t = race_table()
    out = io.StringIO()
    desk = Desk(lambda ask: ask(t.arbiter, t.now, Outbox()), io.StringIO("pause\n\nhelp\n"),
                out)
    desk.start().thread.join(5)
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("lan-demon: type help") and len(lines) == 3
    assert "paused" in lines[1] and t.arbiter.paused is not None


def test_a_line_typed_reaches_a_serving_arbiter_and_is_answered_from_its_loop(context):
    """The real socket loop (127.0.0.1, any free port): the host's line is run between two
    wake-ups, on the loop's thread, and its answer comes back to the thread that typed it."""
    import threading

    from lan_demon.net.server import ArbiterServer
    from table_settings import settings
    server = ArbiterServer(settings("racko", players=2, countdown=0, pause=0), port=0,
                           context=context).start()
    try:
        threads = []

        def where(arb, now, out):
            threads.append(threading.current_thread())
            return answer("pause", arb, now, out)
        said = server.asks.put(where)
        assert said == "nothing is running to pause: the match has not started"
        assert threads and threads[0] is not threading.current_thread()
        assert server.asks.put(lambda arb, now, out: 1 / 0).startswith("that failed")
    finally:
        server.stop()
    assert server.asks.put(lambda arb, now, out: "late", wait=0.2).startswith(
        "the table did not answer")


def test_the_host_hands_a_seat_to_a_bot_by_name_at_a_level_or_the_tables_own():
    """§24: ``remove NAME bot [LEVEL]``; a level 0 or 11, or a word for a level, is answered and
    changes nothing; without a level the table's (the desk's ``level``)."""
    t = race_table()
    t.arbiter.handovers.takes_bots = True
    before = t.arbiter.durable()
    for line in ("remove Bob bot 0", "remove Bob bot 11", "remove Bob bot three"):
        said = typed(t, line)
        assert "from 1 to 10" in said and t.arbiter.durable() == before, (line, said)
    assert "remove NAME bot [LEVEL]" in typed(t, "help")
    out = Outbox()
    said = answer("remove bob bot", t.arbiter, t.now, out, level=7)
    assert said.startswith("Bob's seat is handed to a bot, level 7: it plays on as Bob L7")
    assert t.arbiter.seats[1].name == "Bob L7" and t.arbiter.handovers.queued[0].level == 7
    assert "bot already" in typed(t, "remove Bob L7 bot 3")


def test_the_hosts_log_says_who_handed_whose_seat_to_a_bot():
    t = race_table()
    t.arbiter.handovers.takes_bots = True
    out = io.StringIO()
    log = HostLog(out, since=t.arbiter)
    t.send(b"A", "remove", seat=1, bot=3)
    log(t.arbiter)
    assert out.getvalue().splitlines() == [
        "lan-demon: Ann handed Bob's seat to a bot, level 3: Bob L3"]
    t.send(b"BOT", "hello", name="x", role="player", bot=True, token=t.arbiter.seats[1].token)
    log(t.arbiter)
    assert out.getvalue().splitlines()[-1] == "lan-demon: Bob L3 (bot) is back"


def test_the_host_names_a_seat_as_it_can_type_it():
    """A host cannot type "²" or an emoji: "ann 2" is "Ann ²", "bob" the one whose letters
    start so ("🃏Bob🎉"), a name two seats could be is asked again, a number is a seat
    (seats lists them) — each said in one line ('remove bob' and 'remove ann 2' once found
    nobody)."""
    from lan_demon.commands.host_desk import seat_named
    t = race_table()
    arb = t.arbiter
    arb.seats[0].name, arb.seats[1].name = "Ann", "🃏Bob🎉"
    arb.seats.append(type(arb.seats[1])(2, "Ann ²", "t2", False, None))
    assert seat_named(arb, "ann 2") == 2 and seat_named(arb, "ANN²") == 2
    assert seat_named(arb, "Ann") == 0 and seat_named(arb, "bob") == 1
    assert seat_named(arb, "2") == 1  # not a name here: the seat's number
    with pytest.raises(LookupError, match="could be Ann or Ann ²"):
        seat_named(arb, "an")
    with pytest.raises(LookupError, match=r"seated: 1 Ann, 2 🃏Bob🎉, 3 Ann ²"):
        seat_named(arb, "Zed")


def test_while_the_disk_is_full_the_host_is_told_not_now_for_what_would_change_the_table():
    """§25: pause, resume and remove would be journaled, so while the journal cannot be
    written they are refused in words; help, seats and a typo are answered as ever."""
    from lan_demon.net.stall import Stall
    t = race_table()
    t.arbiter.standstill.stall = Stall(t.now, "disk_full", "No space left on device")
    for line in ("pause", "resume", "remove bob"):
        assert typed(t, line).startswith("not now: the host's disk is full"), line
    assert not t.arbiter.seats[1].removed and t.arbiter.paused is None
    assert typed(t, "help").startswith("pause")
    assert "Bob" in typed(t, "seats")
    assert typed(t, "bogus") == "there is no command 'bogus' here; type help"
