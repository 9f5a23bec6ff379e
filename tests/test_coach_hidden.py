"""The coach never mentions a card the seat could not see, over many seeded rounds of
both variants: every card the review names was face up for that seat at the time it names it
— never a Pile card under the top, a Pack card, a waste card under its top, another seat's
waste top (RD-3, RD-9) — and the review's words name no card beyond those."""

from __future__ import annotations

import bisect
import random
import re

import pytest

from coach_match import host_match
from lan_demon.bots.base import Turn
from lan_demon.bots.registry import make_strategy
from lan_demon.coach.demon import DemonCoach
from lan_demon.coach.journal import journal_reviews
from lan_demon.games import get_game
from lan_demon.games.cards import Card
from lan_demon.games.demon_moves import Play
from lan_demon.net.journal import read_journal
from lan_demon.net.replay import MatchFold, revealed_secrets

pytestmark = pytest.mark.timeout(60)

FACE = re.compile(r"(?:10|[2-9AJQK])[♠♥♦♣]")
STEP = 0.4


def face_up(view: dict) -> set[str]:
    """Every card code the view shows (with its owner, and as a face without one)."""
    codes = [st["top"] for st in view["stacks"]]
    for p in view["players"]:
        codes += [p["pile_top"], p.get("waste_top")] + [c for col in p["columns"] for c in col]
    found = {c for c in codes if c}
    return found | {c.partition("@")[0] for c in found}


def face_down(state, seat: int) -> set[str]:
    """The cards ``seat`` cannot see on the real table: its Pile under the top, its Pack, its
    waste under the top; every other seat's Pile under the top, Pack and whole waste."""
    hidden = set()
    for i, s in enumerate(state.seats):
        cards = s.pile[:-1] + s.pack + (s.waste[:-1] if i == seat else s.waste)
        hidden |= {c.to_data() for c in cards}
    return hidden


class Seen:
    """The seat's views and hidden cards by time, to look up what it saw when."""

    def __init__(self) -> None:
        self.times: list[float] = []
        self.up: list[set[str]] = []
        self.down: list[set[str]] = []

    def add(self, t: float, view: dict, hidden: set[str]) -> None:
        self.times.append(t)
        self.up.append(face_up(view))
        self.down.append(hidden)

    def at(self, t: float) -> int:
        return bisect.bisect_right(self.times, t + 1e-6) - 1

    def check(self, review, start: float) -> int:
        """Assert the property for one review; return how many cards it names."""
        named = review.named()
        race_tops = {(r.at, r.top) for r in review.races if r.top}
        for since, code in named:
            k = self.at(start + since)
            if (since, code) in race_tops:  # a race names the top the stack showed before
                assert any(code in up for up in self.up[:k + 1]), code
                continue
            assert code in self.up[k], f"{code} named at {since:.1f} s was not face up"
            assert code not in self.down[k], f"{code} named at {since:.1f} s was face down"
        faces = {Card.from_data(code).symbol for _, code in named}
        for line in review.lines(shown=50):
            assert set(FACE.findall(line)) <= faces, line
        return len(named)


def simulate(game_id: str, seed: int) -> tuple[Seen, object]:
    """Four greedy seats; seat 0 moves one moment in three; when seat 0 and another go for
    the same stack, the other is first and seat 0 is told it lost the race (RD-11)."""
    game = get_game(game_id)
    rng = random.Random(seed)
    state = game.deal({"pile_sizes": [game.base_pile] * 4}, rng)
    bots = [make_strategy(game_id, "greedy") for _ in range(4)]
    names = ["Tess", "Ada", "Bob", "Cy"]
    coach = DemonCoach(game_id, 0, names, start=0.0)
    seen = Seen()
    t = 0.0
    for step in range(1500):
        view = game.view(game.redact(state, 0), 0)
        coach.see(t, view)
        seen.add(t, view, face_down(state, 0))
        if state.over:
            break
        t += STEP
        seat = 0 if step % 3 == 0 else rng.randrange(1, 4)
        move = bots[seat].choose(Turn(game, game.redact(state, seat), seat, rng))
        if move is None:
            continue
        if seat == 0 and isinstance(move, Play):
            rival = _rival(game, state, move)
            if rival is not None:
                other, theirs = rival
                place = game.destination(state, 0, move)
                top = state.stacks[int(place[1:])].cards[-1].code
                game.apply(state, other, theirs)
                coach.lost(t, other, rng.randrange(1, 40), top)
                continue
        game.apply(state, seat, move)
    return seen, coach


def _rival(game, state, move):
    """Another seat with a play onto the stack ``move`` goes to, if any."""
    place = game.destination(state, 0, move)
    if place is None:
        return None
    for other in game.rivals(state, 0, move):
        for theirs in game.legal_moves(state, other):
            if isinstance(theirs, Play) and game.destination(state, other, theirs) == place:
                return other, theirs
    return None


@pytest.mark.parametrize("game_id", ["racing-demon", "racing-demon-german"])
def test_rd3_rd9_the_coach_never_names_a_card_the_seat_could_not_see(game_id):
    named = races = 0
    for seed in range(1, 9):
        seen, coach = simulate(game_id, seed)
        review = coach.review()
        named += seen.check(review, 0.0)
        races += len(review.races)
    assert named > 20 and races > 0  # the property was put to the test, races too


def test_rd3_replay_coach_names_only_what_the_journal_shows_the_seat(tmp_path):
    """From a journal: the review's cards against the seat's views rebuilt here, record by
    record, from the journal itself (the real table, redacted for Ann, then her view)."""
    for seed in (1, 6, 14):
        path = tmp_path / f"match-{seed}.journal"
        host_match(path, seed)
        read = read_journal(path)
        fold = MatchFold(path, read.version, revealed_secrets(read.records))
        seen, start = Seen(), None
        for record in read.records:
            fold.feed(record)
            if record["j"] in ("round", "move") and fold.state is not None:
                game = fold.match.game
                start = record["at"] if record["j"] == "round" else start
                seen.add(record["at"], game.view(game.redact(fold.state, 0), 0),
                         face_down(fold.state, 0))
        (review,) = journal_reviews(path, "Ann")
        assert seen.check(review.review, start) > 0
