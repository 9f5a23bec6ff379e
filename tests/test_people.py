"""A table for people, at the arbiter (fake clock, no sockets): the captain starts the match,
leaving keeps the seat for 5 minutes, the pause between rounds, lost races explained, and the
German variant citing its own rules."""

from __future__ import annotations

import random

import pytest

from arbiter_harness import PLAY, Table, dealt_table, race_table
from hand_tables import RD, c
from lan_demon.games import IllegalMove
from lan_demon.games.demon_moves import COLUMN_NAMES, Play, TurnPack
from lan_demon.games.demon_table import DemonSeat, DemonState
from lan_demon.games.racing_demon import RacingDemon
from lan_demon.net.connect import normalize_address
from lan_demon.net.seats import AWAY_AFTER, TOKEN_LIFE

pytestmark = pytest.mark.timeout(30)

MIDDLE = {"t": "play", "from": "c1", "to": "middle"}


def lobby(players=None, **config) -> Table:
    return Table("racko", players=players, **config)


def bot_hello(t: Table, peer: bytes, name: str) -> dict:
    (welcome, *_) = t.send(peer, "hello", name=name, role="player", bot=True)
    return welcome


# --- 1. the captain ---------------------------------------------------------------------------

def test_the_first_person_seated_is_captain_even_behind_a_bot_and_starts_the_match():
    t = lobby()
    bot_hello(t, b"R", "Robo")
    assert t.arbiter.captain() == 0  # no person yet: the first seat
    t.seat(b"A", "Ann")
    assert t.arbiter.captain() == 1 and t.arbiter.table()["captain"] == 1
    assert t.updates("lobby")[-1]["captain"] == 1
    (err,) = t.send(b"R", "start")
    assert err["code"] == "not_host" and err["reason"] == "only the captain (Ann) starts the match"
    assert t.arbiter.phase == "lobby"
    (ok,) = [m for m in t.send(b"A", "start") if m["t"] == "ok"]
    assert t.arbiter.phase == "playing"


def test_a_bots_only_table_is_captained_by_its_first_seat():
    t = lobby()
    bot_hello(t, b"R", "Robo")
    bot_hello(t, b"S", "Sim")
    (err,) = t.send(b"S", "start")
    assert err["code"] == "not_host" and "Robo" in err["reason"]
    t.send(b"R", "start")
    assert t.arbiter.phase == "playing"


def test_when_the_captain_leaves_the_lobby_the_next_person_is_captain():
    t = lobby()
    t.seat(b"A", "Ann")
    bot_hello(t, b"R", "Robo")
    t.seat(b"B", "Bob")
    assert t.arbiter.captain() == 0
    t.send(b"A", "leave")
    assert [s.name for s in t.arbiter.seats] == ["Robo", "Bob"]
    assert t.arbiter.captain() == 1 and t.updates("lobby")[-1]["captain"] == 1
    assert t.arbiter.table()["captain"] == 1


def test_a_captain_gone_quiet_in_the_lobby_hands_the_start_to_the_next_person_here():
    """A closed laptop does not keep the table waiting five minutes for its captain."""
    t = lobby()
    t.seat(b"A", "Ann")
    t.seat(b"B", "Bob")
    start = t.now
    t.send(b"B", "hb", at=start + AWAY_AFTER + 0.5)
    t.tick(start + AWAY_AFTER + 0.5)  # Ann has been silent: away
    assert t.arbiter.seats[0].status == "away"
    assert t.arbiter.captain() == 1 and t.updates("lobby")[-1]["captain"] == 1
    t.send(b"A", "hb", at=start + AWAY_AFTER + 1.0)  # she is back: hers again
    assert t.arbiter.captain() == 0 and t.updates("lobby")[-1]["captain"] == 0


def test_host_players_n_still_starts_by_itself_when_every_seat_is_ready():
    t = lobby(players=2)
    bot_hello(t, b"R", "Robo")
    t.seat(b"A", "Ann")
    t.send(b"R", "ready")
    assert t.arbiter.phase == "lobby"
    t.send(b"A", "ready")
    assert t.arbiter.phase == "playing"


# --- 2. leaving keeps the seat --------------------------------------------------------------

def test_a_leave_mid_match_keeps_the_seat_away_and_its_token_takes_it_back_with_its_cards():
    t = race_table(fairness_ms=0)
    token = t.arbiter.seats[0].token
    cards = RD.state_to_data(t.arbiter.state)["seats"][0]
    t.send(b"A", "leave", at=101.0)
    assert t.arbiter.seats[0].status == "away"
    assert t.updates("presence")[-1]["status"] == "away"
    assert t.arbiter.table()["seats"][0] == {"name": "Ann", "bot": False, "status": "away",
                                            "ready": False}
    (welcome, *_) = t.send(b"A2", "hello", at=101.0 + TOKEN_LIFE - 1, name="Ann",
                           role="player", token=token)
    assert welcome["t"] == "welcome" and welcome["seat"] == 0
    assert t.arbiter.seats[0].status == "here" and not t.arbiter.seats[0].stepped_out
    assert RD.state_to_data(t.arbiter.state)["seats"][0] == cards
    (snap,) = t.send(b"A2", "snapshot")
    mine = snap["state"]["seats"][0]
    assert mine["pile"][-1] == cards["pile"][-1] and mine["columns"] == cards["columns"]


def test_after_five_minutes_away_the_seat_is_left_for_good_and_its_token_is_refused():
    t = race_table(fairness_ms=0)
    token = t.arbiter.seats[0].token
    t.send(b"A", "leave", at=101.0)
    t.send(b"B", "hb", at=101.0 + TOKEN_LIFE + 0.5)
    t.tick(101.0 + TOKEN_LIFE + 0.5)
    assert t.arbiter.seats[0].status == "left"
    assert t.updates("presence")[-1] == {**t.updates("presence")[-1], "seat": 0,
                                         "status": "left"}
    (err,) = t.send(b"A2", "hello", name="Ann", role="player", token=token)
    assert err["code"] == "bad_token"


def test_a_silent_seat_also_becomes_left_after_five_minutes():
    t = race_table(fairness_ms=0)
    t.send(b"B", "hb", at=100.0 + AWAY_AFTER + 0.5)
    t.tick(100.0 + AWAY_AFTER + 0.5)
    assert t.arbiter.seats[0].status == "away"
    later = 100.0 + AWAY_AFTER + 0.5 + TOKEN_LIFE + 1
    t.send(b"B", "hb", at=later)
    t.tick(later)
    assert t.arbiter.seats[0].status == "left"


def test_rd13_a_seat_that_said_leave_is_absent_at_once_for_the_stuck_vote():
    t = race_table(fairness_ms=0, turn_timeout=20)
    t.send(b"A", "leave", at=101.0)
    t.send(b"B", "hb", at=101.5)
    t.tick(101.5)  # long before the turn timeout
    assert [(u["seat"], u["rid"]) for u in t.updates("move")
            if u["move"] == {"t": "stuck"}] == [(0, -1)]


def test_rk4_a_seat_that_said_leave_has_its_turn_played_at_once():
    t = dealt_table("racko", players=2, turn_timeout=20)
    mover = t.arbiter.state.turn
    t.send((b"A", b"B")[mover], "leave", at=100.5)
    t.tick(100.6)
    assert [u["move"]["t"] for u in t.updates("move")] == ["draw", "discard"]
    assert t.arbiter.seats[mover].status == "away"


def test_rk4_with_every_person_away_the_table_waits_instead_of_playing_their_turns():
    """Both people of a Rack-O table left, and the arbiter played their turns for them several
    times a second, round after round, for nobody. Stand-in turns are for the people still playing;
    with none here, the table waits, and goes on when one comes back."""
    t = dealt_table("racko", players=2, turn_timeout=20)
    mover = t.arbiter.state.turn
    other = 1 - mover
    token = t.arbiter.seats[other].token
    t.send(b"A", "leave", at=100.5)
    t.send(b"B", "leave", at=100.6)
    for at in (100.7, 130.0, 200.0):
        t.tick(at)
    assert t.updates("move") == []
    t.send(b"C", "hello", at=201.0, name="x", role="player", token=token)  # one comes back
    t.tick(201.1)
    assert [(u["seat"], u["move"]["t"]) for u in t.updates("move")] == \
        [(mover, "draw"), (mover, "discard")]


def test_a_leave_in_the_lobby_still_frees_the_seat():
    t = lobby()
    t.seat(b"A", "Ann")
    token = t.arbiter.seats[0].token
    t.send(b"A", "leave")
    assert t.arbiter.seats == [] and t.arbiter.captain() is None
    (err,) = t.send(b"A2", "hello", name="Ann", role="player", token=token)
    assert err["code"] == "bad_token"


# --- 4. pacing --------------------------------------------------------------------------------

def finish_round(t: Table, at: float) -> None:
    """Ann goes out (RD-12): her Pile is one 2♥, played to the A♥ stack."""
    t.arbiter.state.seats[0].pile = [c("2H", 0)]
    t.arbiter.state.seats[1].columns[0] = [c("KC", 1)]  # nobody contests it
    t.send(b"A", "move", at=at, round=0, move={"t": "play", "from": "pile", "to": "s1"}, ts=at)
    assert t.arbiter.phase == "between"


def test_a_pause_of_none_waits_for_every_present_person_however_long():
    t = race_table(fairness_ms=0, pause=None, rounds=3)
    finish_round(t, 101.0)
    (end,) = t.updates("round_end")
    assert end.get("next_at") is None and t.arbiter.table()["next_at"] is None
    t.arbiter.clock.next_beat = 500.0
    assert t.arbiter.next_deadline(101.0) == 500.0  # nothing is scheduled for the pause
    for at in (200.0, 2000.0):
        t.send(b"A", "hb", at=at)
        t.send(b"B", "hb", at=at)
        t.tick(at)
    assert t.arbiter.phase == "between"
    t.send(b"A", "ready")
    assert t.arbiter.phase == "between"
    t.send(b"B", "ready")
    assert t.arbiter.phase in ("countdown", "playing")


def test_a_ready_between_rounds_is_published_so_every_screen_shows_who_is_waited_for():
    t = race_table(fairness_ms=0, pause=None, rounds=3)
    finish_round(t, 101.0)
    before = len(t.updates("lobby"))
    t.send(b"A", "ready")
    seats = t.updates("lobby")[before]["seats"]
    assert [s["ready"] for s in seats] == [True, False]  # Ann ready, Bob awaited


def test_a_pause_of_n_seconds_is_told_as_next_at_and_starts_the_round_by_itself():
    t = race_table(fairness_ms=0, pause=45, rounds=3)
    finish_round(t, 101.0)
    (end,) = t.updates("round_end")
    assert end["next_at"] == pytest.approx(146.0) == t.arbiter.table()["next_at"]
    assert t.arbiter.next_deadline(145.5) == pytest.approx(145.5)  # the beat is due, or it
    t.send(b"A", "hb", at=145.0)
    t.send(b"B", "hb", at=145.0)
    t.tick(145.0)
    assert t.arbiter.phase == "between"
    t.send(b"A", "hb", at=146.0)
    t.send(b"B", "hb", at=146.0)
    t.tick(146.0)
    assert t.arbiter.phase in ("countdown", "playing")


def test_a_seat_that_is_away_does_not_hold_the_table_between_rounds():
    t = race_table(fairness_ms=0, pause=None, rounds=3)
    finish_round(t, 101.0)
    t.send(b"B", "leave", at=102.0)
    t.send(b"A", "ready", at=102.5)
    assert t.arbiter.phase in ("countdown", "playing")


# --- 6. lost races ------------------------------------------------------------------------

def beaten_of(t: Table, peer: bytes) -> dict:
    (err,) = [m for m in t.inbox[peer] if m["t"] == "error"]
    return err


def test_rd11_two_honest_plays_to_one_stack_the_loser_hears_who_which_stack_and_by_how_much():
    """Ann played at 10.145 (8 ms away, inside the lag cap), Bob at 10.150 (1 ms away): Ann's
    card is first by 5 ms, though Bob's arrived first."""
    t = race_table(rtts=(0.016, 0.002), fairness_ms=100)
    t.send(b"B", "move", at=10.151, round=0, move=PLAY, ts=10.150)
    t.send(b"A", "move", at=10.153, round=0, move=PLAY, ts=10.145)
    t.tick(10.3)
    err = beaten_of(t, b"B")
    assert {k: err[k] for k in ("code", "rule", "by", "stack", "top", "ms")} == {
        "code": "beaten", "rule": "RD-11", "by": 0, "stack": 1, "top": "AH", "ms": 5}
    assert err["reason"] == "Ann got to the A♥ stack first, by 5 ms"


def test_rd11_a_play_to_the_middle_beaten_in_the_window_names_the_stack_too():
    t = race_table(rtts=(0.016, 0.002), fairness_ms=100)
    t.send(b"B", "move", at=10.151, round=0, move=MIDDLE, ts=10.150)
    t.send(b"A", "move", at=10.153, round=0, move=MIDDLE, ts=10.147)
    t.tick(10.3)
    err = beaten_of(t, b"B")
    assert (err["code"], err["stack"], err["top"], err["ms"], err["by"]) == \
        ("beaten", 1, "AH", 3, 0)


def test_rd11_a_named_stack_taken_before_the_card_arrived_is_beaten_not_illegal():
    t = race_table(fairness_ms=0)
    t.send(b"A", "move", at=10.100, round=0, move=PLAY, ts=10.100)  # committed at once
    (err,) = t.send(b"B", "move", at=10.125, round=0, move=PLAY, ts=10.120)
    assert (err["code"], err["rule"], err["stack"], err["top"], err["ms"], err["by"]) == \
        ("beaten", "RD-11", 1, "AH", 20, 0)


def test_rd11_a_middle_play_whose_stack_was_gone_on_arrival_is_beaten_not_rd5():
    """The engine sees no stack for Bob's 2♥ any more (RD-5); the arbiter knows Ann's 2♥
    took the A♥ it was going to."""
    t = race_table(fairness_ms=0)
    t.send(b"A", "move", at=10.100, round=0, move=MIDDLE, ts=10.100)
    (err,) = t.send(b"B", "move", at=10.112, round=0, move=MIDDLE, ts=10.110)
    assert (err["code"], err["stack"], err["top"], err["ms"]) == ("beaten", 1, "AH", 10)


def test_rd5_a_card_that_never_fitted_is_illegal_not_beaten():
    t = race_table(fairness_ms=0)
    t.send(b"A", "move", at=10.100, round=0, move=PLAY, ts=10.100)
    (err,) = t.send(b"B", "move", at=10.2, round=0, ts=10.2,
                    move={"t": "play", "from": "c2", "to": "s1"})  # 9♠ on 2♥
    assert (err["code"], err["rule"]) == ("illegal", "RD-5")


def test_rd11_a_winner_s_later_timestamp_never_makes_a_negative_ms():
    t = race_table(fairness_ms=0)
    t.send(b"A", "move", at=10.100, round=0, move=PLAY, ts=10.100)
    (err,) = t.send(b"B", "move", at=10.101, round=0, move=PLAY, ts=10.096)
    assert err["code"] == "beaten" and err["ms"] == 0


def german_race_table() -> Table:
    t = Table("racing-demon-german", fairness_ms=0)
    t.seat(b"A", "Ann")
    t.seat(b"B", "Bob")
    t.send(b"A", "ready")
    t.send(b"B", "ready")
    rg = RacingDemon(german=True)
    seats = [DemonSeat(pile=[c("5C", o), c("9D", o)],
                       columns=[[c(("2H", "2S")[o], o)], [c("9S", o)], [c("8S", o)],
                                [c("7S", o)]],
                       pack=[c("3C", o)], pile_size=11) for o in (0, 1)]
    data = rg.state_to_data(DemonState(german=True, seats=seats))
    data["stacks"], data["next_stack"] = [{"id": 1, "cards": ["AH@0"]}], 2
    t.arbiter.facts.state = rg.state_from_data(data)
    return t


def test_rd11_rg3_in_the_german_variant_a_2_of_another_suit_loses_the_race_too():
    t = german_race_table()
    t.send(b"A", "move", at=10.100, round=0, move=PLAY, ts=10.100)  # 2♥ on A♥
    (err,) = t.send(b"B", "move", at=10.142, round=0, move=PLAY, ts=10.140)  # 2♠ fits A♥ (RG-3)
    assert (err["code"], err["rule"], err["top"], err["ms"]) == ("beaten", "RD-11", "AH", 40)


# --- 8. German refusals cite German rules -----------------------------------------------------

CLASSIC_ONLY = {"RD-7", "RD-5", "RD-9"}  # replaced by RG-4, RG-3, RG-5 in the German variant


def german_refusals(seed: int) -> set[str]:
    rg = RacingDemon(german=True)
    rng = random.Random(seed)
    state = rg.deal(rg.first_setup(3, rg.default_options()), rng)
    rules = set()
    for _ in range(40):
        moves = [Play(src, dst) for src in ("pile", "waste", *COLUMN_NAMES)
                 for dst in ("middle", *(f"s{i}" for i in range(1, 5)), *COLUMN_NAMES)]
        moves.append(TurnPack())
        for move in moves:
            try:
                rg.check(state, 0, move)
            except IllegalMove as err:
                rules.add(err.rule)
            except Exception:
                pass
        legal = rg.legal_moves(state, 0)
        if not legal or state.over:
            break
        rg.apply(state, 0, rng.choice(legal))
    return rules


@pytest.mark.parametrize("seed", range(6))
def test_rg4_rg3_rg5_german_refusals_never_cite_a_classic_only_rule(seed):
    rules = german_refusals(seed)
    assert "RG-4" in rules  # laddering is refused by the German rule
    assert not rules & CLASSIC_ONLY, rules


def test_rg3_rg5_the_german_ace_stack_and_pack_refusals():
    rg = RacingDemon(german=True)
    seats = [DemonSeat(pile=[c("AC", 0)], columns=[[c("9S", 0)], [c("8S", 0)], [c("7S", 0)],
                                                   [c("6S", 0)]], pack=[], pile_size=11)]
    state = rg.state_from_data(rg.state_to_data(DemonState(german=True, seats=seats * 2)))
    for move, rule in ((Play("pile", "s1"), "RG-3"), (Play("c1", "s9"), "RG-3"),
                       (TurnPack(), "RG-5"), (Play("waste", "middle"), "RG-5"),
                       (Play("c1", "c2"), "RG-4")):
        with pytest.raises(IllegalMove) as err:
            rg.check(state, 0, move)
        assert err.value.rule == rule, (move, err.value)


# --- 7. addresses -----------------------------------------------------------------------------

def test_an_address_without_a_port_takes_7700():
    assert normalize_address("127.0.0.1") == "tcp://127.0.0.1:7700"
    assert normalize_address("tcp://127.0.0.1") == "tcp://127.0.0.1:7700"
    assert normalize_address("127.0.0.1:7701") == "tcp://127.0.0.1:7701"


def test_a_lobby_seat_silent_for_five_minutes_is_freed_and_the_others_move_up():
    t = lobby()
    t.seat(b"A", "Ann")
    t.seat(b"B", "Bob")
    t.send(b"B", "hb", at=100.0 + AWAY_AFTER + 0.5)
    t.tick(100.0 + AWAY_AFTER + 0.5)
    assert t.arbiter.seats[0].status == "away"
    later = 100.0 + AWAY_AFTER + TOKEN_LIFE + 1
    t.send(b"B", "hb", at=later)
    t.tick(later)
    assert [(s.name, s.index) for s in t.arbiter.seats] == [("Bob", 0)]
    assert t.arbiter.captain() == 0 and t.updates("lobby")[-1]["captain"] == 0


def test_a_journal_s_pause_of_none_resumes_as_none():
    """A pause of None is a setting (no limit), not a missing one — in a version 2 journal's
    host record (which wrote ``seed``) as in today's."""
    from lan_demon.net.recovery import settings_of
    head = {"v": 2, "config": {"game": "racko", "players": 2, "rounds": None, "seed": 1,
                               "options": {}, "fairness_ms": 30.0, "countdown": 3.0,
                               "pause": None, "turn_timeout": 30.0}}
    assert settings_of(head, "journal").pause is None
    head["config"]["pause"] = 7.5
    assert settings_of(head, "journal").pause == 7.5
    today = {"v": 3, "config": settings_of(head, "journal").replace(pause=None).to_data()}
    assert today["config"]["pause"] is None and settings_of(today, "journal").pause is None


def test_a_token_of_a_seat_given_up_is_refused_with_why_and_how_to_watch():
    """Back after more than 5 minutes with the join the screen had printed, Ann was told 'a player
    who left comes back by running the same join again' — the very thing just refused. The refusal
    now says the seat was given up, and why."""
    t = race_table(fairness_ms=0)
    token = t.arbiter.seats[0].token
    t.send(b"A", "leave", at=101.0)
    t.send(b"B", "hb", at=101.0 + TOKEN_LIFE + 0.5)
    t.tick(101.0 + TOKEN_LIFE + 0.5)
    (err,) = t.send(b"A2", "hello", name="Ann", role="player", token=token)
    assert err["code"] == "bad_token"
    assert err["reason"] == "the seat of Ann was given up: a seat is kept 5 minutes after its " \
        "player leaves, and the match went on without it; watch it as a spectator " \
        "(join --spectate)"
    (full,) = t.send(b"A3", "hello", name="Ann", role="player")
    assert full["code"] == "full" and "comes back within 5 minutes" in full["reason"]
