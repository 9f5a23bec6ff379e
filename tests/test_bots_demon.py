"""The strong Racing Demon bot (`demon`) and the person-like speed profiles.

The bot decides from the seat's redacted view and legal moves alone: every test here hands it a
turn whose raw table explodes when touched. Rule tests name their rule id (docs/rules.md).
"""

from __future__ import annotations

import json
import random
from functools import partial

import pytest

from lan_demon.bots import make_strategy, strategy_names
from lan_demon.bots.base import Strategy, Turn
from lan_demon.bots.racing_demon import StrongDemon
from lan_demon.bots.speed import PROFILES, SpeedProfile
from lan_demon.games import TABLE, IllegalMove, get_game
from lan_demon.games.demon_moves import COLUMN_NAMES, Play, Timeout, TurnPack, VoteStuck
from lan_demon.games.demon_table import DemonState
from lan_demon.games.racing_demon import RacingDemon
from lan_demon.bots.runner import NetBot
from lan_demon.bots.simulator import _Sight, _overlooked, play_round, simulate
from hand_tables import KINGS, RD, RG, cs, table
from hand_tables import seat as any_seat
from sealed_turns import Sealed, SealedTurn, redacted_turn

pytestmark = pytest.mark.timeout(60)

#: A hand-made seat whose columns take nothing but a queen.
seat = partial(any_seat, columns=KINGS)


def choose(state: DemonState, seat_no: int = 0, bot: StrongDemon | None = None):
    game = RG if state.german else RD
    return (bot or StrongDemon()).choose(redacted_turn(game, state, seat_no, random.Random(0)))


# --- registry, legality, what it may see --------------------------------------------------------


def test_demon_is_registered_for_both_variants():
    for game_id in ("racing-demon", "racing-demon-german"):
        assert "demon" in strategy_names(game_id)
        assert isinstance(make_strategy(game_id, "demon"), StrongDemon)
    assert "demon" not in strategy_names("racko")


@pytest.mark.parametrize("game", [RD, RG], ids=["classic", "german"])
@pytest.mark.parametrize("deal_seed", [1, 2, 3])
def test_rd10_rg4_strong_bots_play_whole_rounds_legally_on_redacted_views(game, deal_seed):
    """Four strong bots, each on a sealed turn: only legal moves (RD-10; RG-4: no ladders in
    the German variant), never a stuck vote, and the round ends (RD-12 or RD-13)."""
    state = game.deal({"pile_sizes": [game.base_pile] * 4, "handicap": False},
                      random.Random(deal_seed))
    bots = [StrongDemon() for _ in range(4)]
    rng = random.Random(deal_seed)
    for _ in range(20_000):
        if game.round_over(state):
            break
        moved = False
        for s in game.to_move(state):
            turn = redacted_turn(game, state, s, rng)
            move = bots[s].choose(turn)
            if move is None:
                continue
            assert move in turn.legal and not isinstance(move, VoteStuck)
            if game.german:
                assert not (isinstance(move, Play) and move.target in COLUMN_NAMES)
            game.apply(state, s, move)
            moved = True
            if game.round_over(state):
                break
        if not moved:
            game.apply(state, TABLE, Timeout())  # RD-13: a minute with no play
    assert game.round_over(state)


def view_only_turn(game: RacingDemon, state: DemonState, seat_no: int,
                   rng: random.Random) -> SealedTurn:
    """A turn that holds the seat's redacted view and legal moves, and nothing else: the game
    and the table are sealed, so the bot can only read ``view``, ``legal``, ``seat`` and
    ``rng``."""
    mirror = game.redact(state, seat_no)
    return SealedTurn(Sealed(), seat_no, game.legal_moves(mirror, seat_no),
                      game.view(mirror, seat_no), rng)


@pytest.mark.parametrize("game", [RD, RG], ids=["classic", "german"])
def test_the_strong_bot_reads_nothing_but_its_view_and_legal_moves(game):
    """A whole round of four strong bots, each deciding on a turn whose game and raw table
    fail any read: its choices come from the seat's view (no Pack, no Pile below the top, no
    rival's waste top) and the legal moves alone, and every one of them is legal."""
    state = game.deal({"pile_sizes": [game.base_pile] * 4, "handicap": False},
                      random.Random(11))
    bots = [StrongDemon() for _ in range(4)]
    rng = random.Random(11)
    looks = 0
    for _ in range(20_000):
        if game.round_over(state):
            break
        moved = False
        for s in game.to_move(state):
            turn = view_only_turn(game, state, s, rng)
            assert all("pack" not in p or isinstance(p["pack"], int) for p in turn.view["players"])
            move = bots[s].choose(turn)
            looks += 1
            if move is None:
                continue
            assert move in turn.legal
            game.apply(state, s, move)
            moved = True
            if game.round_over(state):
                break
        if not moved:
            game.apply(state, TABLE, Timeout())
    assert game.round_over(state) and looks > 50


# --- what it prefers, rule by rule ----------------------------------------------------------------


def test_rd14_the_pile_top_goes_to_a_stack_before_a_column_or_waste_card():
    """RD-14: a Pile card on a stack scores twice (+1 stacked, one less left in the Pile)."""
    state = table(seat(pile="9C 2H", columns=("KS", "KH", "2S", "KC"), pack="5C", waste="2D"),
                  seat(owner=1),
                  stacks=(cs("AH", 1), cs("AS", 1), cs("AD", 1)))
    assert choose(state) == Play("pile", "s1")


def test_rd8_a_lone_column_card_to_a_stack_beats_one_from_a_longer_column():
    """RD-8: emptying a column refills it from the Pile, so the Pile shrinks too."""
    state = table(seat(pile="9C JH", columns=("KD 4C", "5S", "KH", "KC")), seat(owner=1),
                  stacks=(cs("AC 2C 3C", 1), cs("AS 2S 3S 4S", 1)))
    assert choose(state) == Play("c2", "s2")


def test_rd7_rd8_a_whole_column_moves_to_free_its_place_for_the_pile():
    state = table(seat(pile="9C JH", columns=("9H", "TC 9D 8S", "KH", "8C"), pack="5C"),
                  seat(owner=1))
    assert choose(state) == Play("c4", "c1")


def test_rd7_never_a_pointless_partial_run_between_columns():
    """RD-7 allows moving 8♠ alone onto 9♥, but it frees nothing: the bot turns the Pack."""
    state = table(seat(pile="9C JH", columns=("9H", "TC 9D 8S", "KH", "KC"), pack="5C"),
                  seat(owner=1))
    assert Play("c2", "c1") in RD.legal_moves(state, 0)
    assert choose(state) == TurnPack()


def test_rd7_rd5_a_partial_run_moves_to_dig_out_a_card_a_stack_takes():
    """RD-7: moving 8♠ alone onto 9♥ uncovers 9♦, which the ♦ stack wants now (RD-5)."""
    state = table(seat(pile="9C JH", columns=("9H", "TC 9D 8S", "KH", "KC"), pack="5C"),
                  seat(owner=1), stacks=(cs("AD 2D 3D 4D 5D 6D 7D 8D", 1),))
    assert choose(state) == Play("c2", "c1")


def test_rd7_the_waste_is_laddered_onto_a_column_where_the_pile_top_can_follow():
    state = table(seat(pile="9C 8D", columns=("TH", "KS", "KH", "KC"), pack="5C", waste="9S"),
                  seat(owner=1))
    assert choose(state) == Play("waste", "c1")


def test_rd7_rd5_a_lone_base_near_its_stack_is_not_buried_under_the_waste():
    """The waste 4♦ fits on the lone 5♠, which the spades stack at 2♠ will take after two more
    cards (RD-5; RD-8 refills the column then): the bot turns the Pack rather than bury it."""
    state = table(seat(pile="9C JH", columns=("5S", "KS", "KH", "KC"), pack="5C", waste="4D"),
                  seat(owner=1), stacks=(cs("AS 2S", 1),))
    assert Play("waste", "c1") in RD.legal_moves(state, 0)
    assert choose(state) == TurnPack()


def test_rd7_rd5_a_lone_base_far_from_its_stack_takes_the_waste():
    """With no spades stack the lone 5♠ waits for four cards (A-4♠, RD-5): it will not clear
    soon, so the waste 4♦ goes on it (RD-7) and the waste shows its next card."""
    state = table(seat(pile="9C JH", columns=("5S", "KS", "KH", "KC"), pack="5C", waste="4D"),
                  seat(owner=1))
    assert choose(state) == Play("waste", "c1")


def test_rd7_rd14_the_pile_top_to_a_column_goes_before_an_unraced_column_card_to_a_stack():
    """Laddering the Pile top (RD-7) takes a card off the Pile now (RD-14); the 5♠ for the
    spades stack can wait, as no rival shows a card that stack wants."""
    state = table(seat(pile="9C 8D", columns=("9S", "KD 5S", "KH", "KC")), seat(owner=1),
                  stacks=(cs("AS 2S 3S 4S", 1),))
    assert {Play("pile", "c1"), Play("c2", "s1")} <= set(RD.legal_moves(state, 0))
    assert choose(state) == Play("pile", "c1")


def test_rd11_a_raced_stack_play_still_goes_before_the_pile_to_a_column():
    """RD-11: the rival's Pile top 5♠ wants the same stack, so the race goes first."""
    state = table(seat(pile="9C 8D", columns=("9S", "KD 5S", "KH", "KC")),
                  seat(pile="5S", owner=1), stacks=(cs("AS 2S 3S 4S", 2),))
    assert choose(state) == Play("c2", "s1")


def test_rd11_a_card_a_rival_could_also_play_goes_first():
    """RD-11: only the first card counts, so the contested play goes before the one that can
    wait (the rival's Pile top 5♥ wants the hearts stack)."""
    state = table(seat(pile="9C JH", columns=("KC 5H", "KD 5S", "KH", "KS")),
                  seat(pile="5H", owner=1),
                  stacks=(cs("AS 2S 3S 4S", 2), cs("AH 2H 3H 4H", 2)))
    assert choose(state) == Play("c1", "s2")


def test_rd11_after_being_beaten_it_does_not_send_the_same_card_again_blind():
    """RD-11: the card came back; until the bot sees that stack change it turns the Pack
    instead of sending the same card to the same place."""
    state = table(seat(pile="9C 2H", columns=("KS", "KH", "KD", "KC"), pack="5C"),
                  seat(owner=1), stacks=(cs("AH", 1),))
    bot = StrongDemon()
    assert choose(state, bot=bot) == Play("pile", "s1")
    assert choose(state, bot=bot) == TurnPack()  # the 2♥ is still on the Pile: it was beaten
    bot.reset()
    assert choose(state, bot=bot) == Play("pile", "s1")


def test_rd9_rd13_nothing_to_play_turns_the_pack_and_never_votes():
    state = table(seat(pile="9C JH", pack="5C 7D"), seat(owner=1))
    assert choose(state) == TurnPack()
    empty = table(seat(pile="9C JH"), seat(owner=1))
    assert RD.legal_moves(empty, 0) == [VoteStuck()]
    assert choose(empty) is None  # RD-13: turning through (nothing here) says it already


def test_rg3_rg6_german_waste_goes_up_only_when_one_of_its_own_cards_follows():
    """RG-6 counts only the Pile: a waste card on a stack lowers none of it, and helps three
    rivals for one; the bot plays it when its own card (a Line 6 here) can follow it."""
    stacks = (cs("AS 2S 3S 4S", 1),)
    idle = table(seat(pile="9C JH", columns=("KS", "KH", "KD", "KC"), pack="7C", waste="5D"),
                 seat(owner=1), german=True, stacks=stacks)
    assert choose(idle) == TurnPack()
    chain = table(seat(pile="9C JH", columns=("6S", "KH", "KD", "KC"), pack="7C", waste="5D"),
                  seat(owner=1), german=True, stacks=stacks)
    assert choose(chain) == Play("waste", "s1")


# --- determinism and measured strength ------------------------------------------------------------


@pytest.mark.parametrize("game_id", ["racing-demon", "racing-demon-german"])
def test_a_seeded_run_replays_byte_for_byte(game_id):
    """Notice times and misses are drawn from seeded generators: same seed, same run."""
    def run(seed):
        sim = simulate(game_id, 4, seed, rounds=5, strategy=["demon", "greedy", "demon", "greedy"],
                       speed="beginner")
        return json.dumps([sim.match.result_data(), [vars(s) for s in sim.stats]])

    assert run(7) == run(7)
    assert run(7) != run(8)


@pytest.mark.parametrize("game_id", ["racing-demon", "racing-demon-german"])
def test_over_30_mirrored_deals_the_strong_bot_outscores_the_greedy_ones(game_id):
    """A small fixed-seed sample (the 2,000-round arena is in docs/bots.md): one strong bot
    and three greedy ones, club speed, each deal played four times with the strong bot in each
    seat, so the luck of the deal cancels. RD-14 scores (RG-6: the German penalty, lower wins)."""
    game = get_game(game_id)
    sign = -1 if game.german else 1
    strong = greedy = 0.0
    for deal in range(30):
        for mine in range(4):
            names = ["demon" if s == mine else "greedy" for s in range(4)]
            bots = [make_strategy(game.id, n) for n in names]
            state = game.deal({"pile_sizes": [game.base_pile] * 4, "handicap": False},
                              random.Random(f"demon-test:{deal}"))
            play_round(game, state, bots, "demon-test", deal + 1, [PROFILES["club"]] * 4)
            scores = game.round_result(state).scores
            strong += sign * scores[mine]
            greedy += sign * (sum(scores) - scores[mine]) / 3
    assert strong > greedy


# --- speed profiles ----------------------------------------------------------------------------


def test_speed_profiles_live_in_bots_speed_and_the_simulator_re_exports_them():
    import lan_demon.bots.simulator as sim
    assert sim.SpeedProfile is SpeedProfile and sim.PROFILES is PROFILES
    assert set(PROFILES) == {"newcomer", "beginner", "club", "expert", "flat-out"}
    medians = [PROFILES[n].median for n in ("newcomer", "beginner", "club", "expert")]
    assert medians == sorted(medians, reverse=True)


def test_flat_out_notices_at_once_never_misses_and_draws_nothing():
    flat = PROFILES["flat-out"]
    rng = random.Random(3)
    before = rng.getstate()
    assert flat.notice_delay(rng) == 0 and not any(flat.misses(rng) for _ in range(1000))
    assert rng.getstate() == before
    assert flat.react(rng) == flat.react(rng) == 0.001


def test_person_profiles_draw_seeded_reaction_notice_and_misses():
    club = PROFILES["club"]
    assert club.notice > 0 and 0 < club.miss < 1
    assert club.react(random.Random(5)) == club.react(random.Random(5)) > 0
    assert club.notice_delay(random.Random(5)) == club.notice_delay(random.Random(5)) > 0
    rng = random.Random(11)
    rate = sum(club.misses(rng) for _ in range(20_000)) / 20_000
    assert abs(rate - club.miss) < 0.01


@pytest.mark.parametrize("bad", [dict(median=-1.0), dict(notice=-0.1), dict(miss=1.0),
                                 dict(miss=-0.5)])
def test_a_speed_profile_refuses_impossible_values(bad):
    fields = dict(name="odd", median=1.0, spread=0.1) | bad
    with pytest.raises(ValueError, match="odd"):
        SpeedProfile(**fields)


def test_rd11_a_stack_play_by_someone_else_is_seen_only_after_the_notice_time():
    """Seat 1 puts 2♥ on the hearts stack at t = 0. Seat 1 knows it at once; seat 0 (notice
    1 s) still sees the ace at t = 0.5 — its own 2♥ looks playable, and lands as RD-11."""
    state = table(seat(pile="9C 2H"), seat(pile="9C 2H", owner=1), stacks=(cs("AH", 2),))
    slow = SpeedProfile("slow", 1.0, 0.0, notice=1.0)
    sight = _Sight([slow, slow], [random.Random(0), random.Random(1)], state)
    sight.landed(state, 1, RD.apply(state, 1, Play("pile", "s1")), now=0.0)
    assert sight.table(state, 1, 0.0) is state
    stale = sight.table(state, 0, 0.5)
    assert RD.view(stale, 0)["stacks"][0]["top"] == "AH@2"
    assert Play("pile", "s1") in RD.legal_moves(stale, 0)
    with pytest.raises(IllegalMove) as err:
        RD.apply(state, 0, Play("pile", "s1"))
    assert err.value.rule == "RD-11"
    assert sight.table(state, 0, 1.0) is state  # noticed: the real table again
    assert Play("pile", "s1") not in RD.legal_moves(state, 0)


def test_a_glancing_turn_overlooks_plays_but_not_the_pack():
    state = table(seat(pile="9C 2H", pack="5C"), seat(owner=1), stacks=(cs("AH", 1),))
    blind = SpeedProfile("blind", 1.0, 0.0, miss=0.999)
    turn = Turn(RD, state, 0, random.Random(0), _overlooked(blind, random.Random(0)))
    assert turn.legal == [TurnPack(), VoteStuck()]
    sharp = Turn(RD, state, 0, random.Random(0),
                 _overlooked(PROFILES["flat-out"], random.Random(0)))
    assert sharp.legal == RD.legal_moves(state, 0)


# --- network bots use the same profile ----------------------------------------------------------


class StubClient:
    """Stands for a connected client: a mirror of the table, nothing in flight, plays recorded."""

    def __init__(self, state: DemonState, seat_no: int = 0):
        self.game, self.mirror, self.seat = RD, state, seat_no
        self.table = {"phase": "playing"}
        self.pending: dict[int, object] = {}
        self.seq = 1
        self.played: list[object] = []

    def play(self, move) -> int:
        self.played.append(move)
        return len(self.played)


class Recorder(Strategy):
    """Plays the first stack play it is offered, and remembers what it was offered."""

    name = "recorder"
    games = ("racing-demon",)

    def __init__(self) -> None:
        self.offered: list[list[object]] = []

    def choose(self, turn: Turn):
        self.offered.append(list(turn.legal))
        return next((m for m in turn.legal if isinstance(m, Play)), None)


def net_bot(state: DemonState, speed: SpeedProfile) -> NetBot:
    return NetBot(StubClient(state), Recorder(), random.Random(0), speed)


def test_a_flat_out_network_bot_plays_at_once_and_draws_no_eye():
    bot = net_bot(table(seat(pile="9C 2H"), seat(owner=1), stacks=(cs("AH", 1),)),
                  PROFILES["flat-out"])
    assert bot.eye is None
    bot.step(0.0)
    assert bot.client.played == [Play("pile", "s1")]


def test_rd11_a_network_bot_sees_someone_elses_stack_change_only_after_the_notice_time():
    """Seat 1's A♥ is new to seat 0 (notice 1 s): no play onto it is offered before t = 1."""
    slow = SpeedProfile("slow", 0.0, 0.0, notice=1.0)
    bot = net_bot(table(seat(pile="9C 2H"), seat(owner=1), stacks=(cs("AH", 1),)), slow)
    for now in (0.0, 0.5, 0.9):
        bot.step(now)
        bot.act_at = None  # look again at once (the test's clock, not the reaction time)
    assert bot.client.played == [] and len(bot.strategy.offered) == 3
    bot.step(1.0)
    assert bot.client.played == [Play("pile", "s1")]


def test_rd2_a_network_bot_knows_its_own_card_on_a_stack_at_once():
    """RD-2: its own A♥ (its back says whose) is no news to seat 0."""
    slow = SpeedProfile("slow", 0.0, 0.0, notice=1.0)
    bot = net_bot(table(seat(pile="9C 2H"), seat(owner=1), stacks=(cs("AH", 0),)), slow)
    bot.step(0.0)
    assert bot.client.played == [Play("pile", "s1")]


def test_a_network_bot_overlooks_plays_but_not_the_pack():
    blind = SpeedProfile("blind", 0.0, 0.0, miss=0.999)
    bot = net_bot(table(seat(pile="9C 2H", pack="5C"), seat(owner=1), stacks=(cs("AH", 1),)),
                  blind)
    bot.step(0.0)
    assert bot.strategy.offered == [[TurnPack(), VoteStuck()]] and bot.client.played == []
