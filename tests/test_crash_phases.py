"""A host killed in any phase, any number of times, comes back honest and whole.

The pure arbiter, real clients' table copies (``loop_table``), a clock the test moves. For every
game, with secret deals and with a seed:

* **durable state at every step.** An uncrashed match is cut after every step (what the journal
  and its secrets file held at that moment); the arbiter restored from each cut has the crashed
  one's durable state (``Arbiter.durable``), field by field.
* **killed in every phase, several times in one match.** A match is crashed in the lobby, in a
  countdown, in a round, between rounds (twice each where the match has them) and after its end;
  the clients come back each time. A table of secret deals stays secret — never a seeded
  round, its config says so to every client, the crashed round reveals the secret it committed
  to, every round dealt after a crash mixes every player's nonce — no client's deal check ever
  fails (no false alarm), and ``verify`` and ``replay`` pass on the journal.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from loop_table import Loop
from table_settings import settings
from lan_demon.bots import make_strategy
from lan_demon.bots.base import Turn
from lan_demon.games import GAME_IDS
from lan_demon.games.deal import commitment
from lan_demon.net.audit import verify
from lan_demon.net.codec import make
from lan_demon.net.journal import read_journal, secret_path
from lan_demon.net.recovery import restore
from lan_demon.net.replay import replay

pytestmark = pytest.mark.usefixtures("seeded_secrets")  # a secret table's course repeats

NAMES = ["ann", "bob"]
#: crash points, in the order a three-round match meets them: every phase at least once, the
#: countdown, a round and the pause between rounds twice, and the match's end
ROUNDS = {"racing-demon-german": 5}  # RG-7: 5 to 10 deals; the others, 3
PLAN = ["lobby", "countdown", "playing", "between", "countdown", "playing", "between",
        "playing", "over"]


def table_settings(game: str, seed: int | None) -> Any:
    options = {"handicap": False} if game.startswith("racing") else {}
    return settings(game, seed=seed, players=2, rounds=ROUNDS.get(game, 3), countdown=1.0,
                    pause=2.0, fairness_ms=0, options=options)


class Match:
    """Greedy bots' moves, sent through each player's table copy, on the test's clock."""

    def __init__(self, loop: Loop, seed: int):
        self.loop, self.rng = loop, random.Random(seed)
        game = loop.arbiter.game
        self.strategies = [make_strategy(game.id, "greedy") for _ in NAMES]
        self.moves: dict[int, int] = {}  # round -> moves sent in it

    def step(self) -> None:
        """One step of the table: say ready, wait a little, or one move."""
        loop = self.loop
        a = loop.arbiter
        if a.phase in ("lobby", "between"):
            for client in loop.clients:
                if client.seat is not None and not a.seats[client.seat].ready:
                    client.ready()
                    break  # one at a time: the lobby and the pause are visited with one ready
            loop.deliver()
            loop.tick(0.05)
        elif a.phase == "countdown":
            loop.tick(0.25)
        elif a.phase == "playing":
            game = a.game
            movers = game.to_move(a.state)
            self.rng.shuffle(movers)
            for seat in movers:
                move = self.strategies[seat].choose(Turn(game, a.state, seat, self.rng))
                if move is not None:
                    client = next(c for c in loop.clients if c.seat == seat)
                    client.send(make("move", id=client.next_id(), round=a.match.round_no,
                                      move=move.to_data(), ts=loop.now))
                    self.moves[a.match.round_no] = self.moves.get(a.match.round_no, 0) + 1
                    loop.deliver()
                    loop.tick(0.05)
                    break
            else:
                loop.tick(61.0)  # RD-13: nobody can move; the table moves on by itself
            if a.phase != "playing":
                for s in self.strategies:
                    s.reset()


def play(loop: Loop, seed: int, plan: list[str], limit: int = 20_000) -> None:
    match = Match(loop, seed)
    plan = list(plan)
    rng = random.Random(f"crash:{seed}")
    into = rng.randint(0, 2)  # a crash in a round comes after this many of its moves
    for _ in range(limit):
        a = loop.arbiter
        moved = a.phase == "playing" and match.moves.get(a.match.round_no, 0) >= into
        if plan and a.phase == plan[0] and (a.phase != "playing" or moved):
            if a.phase != "lobby" or any(s.ready for s in a.seats):
                plan.pop(0)
                loop.crash()
                into = rng.randint(0, 2)
                continue
        if a.phase == "over" and not plan:
            return
        if a.phase == "over":
            loop.tick(1.0)
            continue
        match.step()
    raise AssertionError(f"the match did not end: {loop.arbiter.phase}, plan left {plan}")


GAMES = [pytest.param(g, id=g) for g in GAME_IDS]


@pytest.mark.timeout(120)
@pytest.mark.parametrize("seed", [None, 17], ids=["secret", "seeded"])
@pytest.mark.parametrize("game", GAMES)
def test_a_host_killed_in_every_phase_twice_stays_honest_and_whole(tmp_path: Path, game: str,
                                                                    seed: int | None) -> None:
    path = tmp_path / "match.journal"
    loop = Loop(path, table_settings(game, seed), NAMES)
    loop.join()
    try:
        play(loop, 5, PLAN)
    finally:
        loop.close()
    assert loop.crashes == len(PLAN)
    records = read_journal(path).records
    rounds = [r for r in records if r["j"] == "round"]
    ends = {r["round"]: r for r in records if r["j"] == "round_end"}
    played = ROUNDS.get(game, 3)
    assert len(rounds) == played and sorted(ends) == list(range(played))
    assert sum(r["j"] == "resumed" for r in records) == len(PLAN)
    for client in loop.clients:
        assert client.alarms() == [], [n.text for n in client.alarms()]
        # nor a word that some round lacked someone's randomness or went unchecked (§22.7)
        assert client.notes() == [], [n.text for n in client.notes()]
        assert client.config["seeded"] is (seed is not None)
        assert client.verdicts == {r: True for r in range(played)}  # each one checked
        assert client.table["phase"] == "over" and client.table["result"] == \
            loop.arbiter.result
    for r in rounds:
        if seed is None:
            # secret deals every round: the secret revealed is the one committed to, and
            # every player's nonce is in (each one revealed, a resume or not)
            assert r["seeded"] is False
            assert commitment(bytes.fromhex(ends[r["round"]]["secret"])) == r["commit"]
            assert [s for s, _ in r["nonces"]] == [0, 1], r
        else:
            assert r.get("seeded") is True and not r.get("nonces")
    verdict = verify(path)
    assert verdict.ok and not verdict.notes, (verdict.line, verdict.notes)
    assert replay(path).match.result_data() == loop.arbiter.result


@pytest.mark.timeout(120)
@pytest.mark.parametrize("seed", [None, 17], ids=["secret", "seeded"])
@pytest.mark.parametrize("game", GAMES)
def test_an_arbiter_restored_after_any_step_has_the_crashed_ones_durable_state(
        tmp_path: Path, game: str, seed: int | None) -> None:
    """Cut the journal (and its secrets file) as they stood after each step of an uncrashed
    match; restore; the durable state is the crashed arbiter's, field by field."""
    path = tmp_path / "full.journal"
    loop = Loop(path, table_settings(game, seed), NAMES)
    cuts: list[tuple[int, bytes, dict[str, Any]]] = []

    def note() -> None:
        size = path.stat().st_size
        if not cuts or cuts[-1][0] != size:
            cuts.append((size, secret_path(path).read_bytes(), loop.arbiter.durable()))

    match = Match(loop, 3)
    note()
    for client in loop.clients:
        client.connect()
        loop.deliver()
        note()
    for _ in range(20_000):
        if loop.arbiter.phase == "over":
            break
        match.step()
        note()
    loop.close()
    data = path.read_bytes()
    phases = {d["phase"] for _, _, d in cuts}
    assert phases == {"lobby", "countdown", "playing", "between", "over"}
    for size, secrets, wanted in cuts:  # every step of the match
        cut = tmp_path / "cut.journal"
        cut.write_bytes(data[:size])
        secret_path(cut).write_bytes(secrets)
        restored = restore(read_journal(cut), 1000.0, cut).arbiter
        got = restored.durable()
        for field in wanted:
            assert got[field] == wanted[field], (size, wanted["phase"], field)


@pytest.mark.timeout(120)
@pytest.mark.parametrize("game", ["racing-demon", "gin-solitaire"])
def test_a_join_restarted_while_the_host_was_down_raises_no_alarm(tmp_path: Path,
                                                                   game: str) -> None:
    """The host stopped mid-round, Bob closed his join meanwhile, the host was resumed and Bob ran
    the same join again — and his screen said DEAL CHECK FAILED ('the host listed a promise in your
    name that your program never made'), the others DEAL DISPUTED, and later 'Bob's check of round
    1 never reached the table'. The promise and the check were his earlier program's: his new
    program says so (a check with lost: true), every screen notes it, nobody is alarmed, and the
    deals are still checked."""
    path = tmp_path / "match.journal"
    loop = Loop(path, table_settings(game, None), NAMES)
    loop.join()
    match = Match(loop, 9)
    for _ in range(20_000):  # into round 1 (0-based), a few moves in: Bob promised round 2
        a = loop.arbiter
        if a.phase == "playing" and a.match.round_no == 1 and match.moves.get(1, 0) >= 2:
            break
        match.step()
    loop.crash(restarted=("bob",))
    for _ in range(20_000):
        if loop.arbiter.phase == "over":
            break
        match.step()
    loop.close()
    assert loop.arbiter.phase == "over"
    bob = loop.clients[1]
    for client in loop.clients:
        assert client.alarms() == [], [n.text for n in client.alarms()]
    notes = [n.text for n in bob.heard if n.kind == "deal_note"]
    assert any("made by the program that held it before this one" in t for t in notes), notes
    assert all(v for r, v in bob.verdicts.items() if r >= 1), bob.verdicts  # still checked
    ann_notes = [n.text for n in loop.clients[0].heard if n.kind == "deal_note"]
    assert any("bob restarted lan-demon, so no check of round 2's deal comes from them" in t
               for t in ann_notes), ann_notes
    verdict = verify(path)
    assert verdict.ok, verdict.line
    assert any("bob (seat 1) restarted lan-demon" in n for n in verdict.notes)


@pytest.mark.timeout(60)
def test_a_host_that_says_a_live_program_lost_its_promise_is_caught_by_that_program(
        tmp_path: Path) -> None:
    """§22.6: ``lost`` is a seat's own word that its program was restarted. A host that puts
    it in the mouth of a program that holds its promise (to hide that program's verdict) is
    caught by that program; the others only note it — the gap §22 names for a host speaking
    for a seat, seen by that seat alone."""
    from lan_demon.net.outbox import Outbox
    loop = Loop(tmp_path / "m.journal", table_settings("racko", None), NAMES)
    loop.join()
    match = Match(loop, 4)
    while not (loop.arbiter.phase == "playing" and loop.arbiter.match.round_no == 1):
        match.step()
    out = Outbox()
    loop.arbiter.commitments.publish_check(out, {"seat": 0, "round": 1, "lost": True})  # forged
    loop.spread(out)
    loop.close()
    ann, bob = loop.clients
    assert [n.text for n in ann.alarms()] == [
        "The host's deal for round 2 does not match what it promised: the host said your "
        "program was restarted and lost its promise for this round: it was not"]
    assert any("ann restarted lan-demon" in n.text for n in bob.heard)


@pytest.mark.timeout(60)
def test_a_check_is_a_word_or_lost_never_both_nor_neither(tmp_path: Path) -> None:
    from lan_demon.net.codec import decode, encode
    loop = Loop(tmp_path / "m.journal", table_settings("racko", None), NAMES)
    loop.join()
    match = Match(loop, 4)
    while not (loop.arbiter.phase == "playing" and loop.arbiter.match.round_no == 1):
        match.step()
    ann = loop.clients[0]
    for rid, fields in ((901, {"word": "ab" * 16, "lost": True}), (902, {})):
        out = loop.arbiter.handle(ann.peer, encode(make("check", id=rid, round=0, **fields)),
                                  loop.now)
        (err,) = [decode(encode(m), "private") for _, m in out.private]
        assert (err["t"], err["code"], err["re"]) == ("error", "malformed", rid), err
        assert not out.public
    loop.close()
