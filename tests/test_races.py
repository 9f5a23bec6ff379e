"""RD-11 against a liar: a client that answers the arbiter's delay probes
late and backdates its moves' ``ts`` gains at most the host's lag cap (default 10 ms), while
honest clients inside the cap are still ordered by when they played. Driven with the arbiter
harness: a fake clock, probes and echoes through the arbiter itself, seeded variations."""

from __future__ import annotations

import random

import pytest

from table_settings import settings
from arbiter_harness import PLAY, race_table
from hand_tables import c
from lan_demon.games import GameError
from lan_demon.net.settings import LAG_CAP_MS
from lan_demon.net.arbiter import Arbiter

pytestmark = pytest.mark.timeout(60)

ANN, BOB = b"A", b"B"  # seat 0, seat 1 of race_table


def measure(t, delays: dict[bytes, float], beats: int = 8) -> None:
    """Eight heartbeats: each seat gets a probe and echoes it ``delays[peer]`` seconds later
    (an honest client: twice its one-way delay; a liar: whatever it likes)."""
    start = t.now + 1.0  # after the welcome's own probe
    for k in range(beats):
        at = start + k
        t.tick(at)
        probes = {p: [m for m in t.inbox.get(p, []) if m["t"] == "probe" and m["a"] == at]
                  for p in delays}
        for peer, delay in sorted(delays.items(), key=lambda kv: kv[1]):
            (probe,) = probes[peer]
            t.send(peer, "echo", at=at + delay, a=probe["a"])


def race(t, plays: list[tuple[bytes, float, float, float]]) -> int:
    """Every ``(peer, played, one_way, claimed ts)`` sends the same stack play (its 2♥ onto
    the A♥), arriving at ``played + one_way``; the window closes; the winner's seat."""
    for peer, played, one_way, ts in sorted(plays, key=lambda p: p[1] + p[2]):
        until = t.arbiter.race.held_until
        if until is not None and until <= played + one_way:
            t.tick(until)  # the server's loop wakes when the window closes
        t.send(peer, "move", at=played + one_way, round=0, move=PLAY, ts=ts)
    t.tick(t.now + 0.3)
    assert not t.arbiter.race.held
    top = t.arbiter.state.stacks[1].cards[-1]
    assert top.code == "2H"
    return top.owner


@pytest.mark.parametrize("fairness_ms", [30, 250])
def test_rd11_a_liar_with_slow_echoes_and_backdated_ts_never_wins_a_race_it_sent_25_ms_late(
        fairness_ms):
    """Ann lies: she holds every probe's echo 250 ms (a link that looks 125 ms long) and
    claims to have played long before she did. Bob is honest, 1–8 ms away. Ann plays 25 ms or
    more after Bob, every offset up to 250 ms, from 0–3 ms away: Bob wins every race."""
    rng = random.Random(11)
    lost = []
    for offset_ms in range(25, 251):
        t = race_table(rtts=None, fairness_ms=fairness_ms)
        bob_one_way = rng.uniform(0.001, 0.008)
        ann_one_way = rng.uniform(0.0, 0.003)
        measure(t, {ANN: 0.250, BOB: 2 * bob_one_way})
        assert t.arbiter.seats[0].one_way() == pytest.approx(0.125)
        played = t.now + 1.0
        ann_played = played + offset_ms / 1000
        winner = race(t, [(BOB, played, bob_one_way, played),
                          (ANN, ann_played, ann_one_way, ann_played - 1.0)])
        if winner != 1:
            lost.append(offset_ms)
    assert lost == [], f"the liar won the races it sent {lost} ms after its rival"


def test_rd11_what_a_liar_gains_is_at_most_the_lag_cap():
    """However late her echoes and however early her claim, Ann's move is placed no earlier
    than its arrival less the cap (10 ms by default): the cap is all she can gain."""
    t = race_table(rtts=None, fairness_ms=250)
    measure(t, {ANN: 0.250, BOB: 0.004})
    arrival = t.now + 1.0
    t.send(ANN, "move", at=arrival, round=0, move=PLAY, ts=arrival - 5.0)
    assert t.arbiter.race.held[-1].ts == pytest.approx(arrival - LAG_CAP_MS / 1000)
    assert LAG_CAP_MS == 10


def test_rd11_the_lag_cap_is_a_host_option():
    """A host may allow more (a slow Wi-Fi) or less; the credit never exceeds the cap."""
    t = race_table(rtts=None, fairness_ms=250, lag_cap_ms=40)
    measure(t, {ANN: 0.250, BOB: 0.004})
    arrival = t.now + 1.0
    t.send(ANN, "move", at=arrival, round=0, move=PLAY, ts=arrival - 5.0)
    assert t.arbiter.race.held[-1].ts == pytest.approx(arrival - 0.040)
    with pytest.raises(GameError, match="RD-11: the lag cap is 0 to 100 ms, not 250"):
        Arbiter(settings("racing-demon", lag_cap_ms=250))


def test_rd11_honest_clients_2_and_8_ms_away_are_ordered_by_when_they_played():
    """Ann is 2 ms from the arbiter, Bob 8 ms; both clocks are right and both answer probes at
    once. Whoever really played first gets the stack, by as little as 1 ms either way, even
    when the farther one's message arrives last."""
    for gap_ms in [g for g in range(-20, 21) if g]:
        t = race_table(rtts=None, fairness_ms=30)
        measure(t, {ANN: 0.004, BOB: 0.016})
        played = t.now + 1.0
        bob_played = played + gap_ms / 1000
        winner = race(t, [(ANN, played, 0.002, played), (BOB, bob_played, 0.008, bob_played)])
        assert winner == (0 if gap_ms > 0 else 1), f"Bob {gap_ms:+} ms after Ann"
        beaten = [m for p in (ANN, BOB) for m in t.inbox[p]
                  if m["t"] == "error" and m["code"] == "beaten"]
        assert len(beaten) == 1 and beaten[0]["ms"] == abs(gap_ms)


def test_rd11_the_arbiter_harness_state_is_as_raced():
    """The race fixture: both seats show a 2♥ for the A♥ stack (a guard for the tests above)."""
    t = race_table(rtts=None)
    assert t.arbiter.state.seats[0].columns[0] == [c("2H", 0)]
    assert t.arbiter.state.seats[1].columns[0] == [c("2H", 1)]


class _Stop(Exception):
    pass


def test_rd11_host_takes_its_lag_cap_from_the_command_line(host_configs, capsys):
    """``host --lag-cap MS`` reaches the arbiter's settings (default 10); a bad value is one line
    that names the rule and the range."""
    from host_stand_in import HostStopped
    from lan_demon.cli import main
    configs = host_configs
    for argv, want in (([], 10.0), (["--lag-cap", "25"], 25.0), (["--lag-cap", "0"], 0.0)):
        with pytest.raises(HostStopped):
            main(["host", "--port", "0", *argv])
        assert configs[-1].lag_cap_ms == want
    for bad in ("250", "-1", "fast"):
        assert main(["host", "--port", "0", "--lag-cap", bad]) == 2
        (line,) = capsys.readouterr().err.splitlines()
        assert line.startswith("lan-demon: argument --lag-cap: ")
        assert ("RD-11: the lag cap is 0 to 100 ms" in line) != (bad == "fast")


def test_rd11_play_hands_its_lag_cap_and_handicap_to_its_table(monkeypatch):
    import lan_demon.commands.local_table as local_table
    import lan_demon.commands.prompts as prompts
    from lan_demon.cli import main
    seen = {}

    def fake_start(game, seed, rounds, speed, **kw):
        seen.update(kw)
        raise _Stop

    monkeypatch.setattr(prompts, "need_terminal", lambda: None)
    monkeypatch.setattr(local_table, "start_local_table", fake_start)
    with pytest.raises(_Stop):
        main(["play", "--seed", "1", "--lag-cap", "4", "--game", "racing-demon-german",
              "--handicap"])
    assert seen["lag_cap_ms"] == 4.0 and seen["options"] == {"handicap": True}
    with pytest.raises(_Stop):
        main(["play", "--seed", "1"])
    assert seen["lag_cap_ms"] == 10.0 and seen["options"] == {}


def test_rd11_a_resumed_host_keeps_its_lag_cap():
    """The journal's host record holds the lag cap, so a resumed table races as before."""
    from lan_demon.net.journal import JournalError
    from lan_demon.net.recovery import settings_of
    records = []

    class Journal:
        def write(self, record):
            records.append(record)

    arbiter = Arbiter(settings("racing-demon", lag_cap_ms=25))
    arbiter.attach_journal(Journal(), {"port": 1, "pub_port": 2})
    (head,) = records
    assert head["config"]["lag_cap_ms"] == 25
    assert settings_of(head, "journal").lag_cap_ms == 25
    del head["config"]["lag_cap_ms"]  # missing in today's journal: damaged, never a default
    with pytest.raises(JournalError, match="settings without lag_cap_ms"):
        settings_of(head, "journal")
    version_2 = {**head, "v": 2, "config": {**head["config"], "seed": 0}}
    del version_2["config"]["dealing"]  # a version 2 journal from before the cap: its 10 ms
    assert settings_of(version_2, "journal").lag_cap_ms == LAG_CAP_MS
