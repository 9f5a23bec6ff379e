"""How much of the possible the Gin Solitaire solver gets: the solver, greedy, and the solver
told where the Joker lies (:mod:`lan_demon.bots.gin_oracle`, a bound no seat can reach), each
playing whole matches to 100 (GS-8) on the same seeded deals.

``python -m lan_demon.bots.gin_bound --matches 2000 --seed 1130`` prints, for each, the matches
won with a 95 % Wilson interval, the mean points a round of the player and of the Joker, their
difference, and the rounds a match. Match ``k`` is dealt from seed ``gs8:SEED:k`` for all three,
so they meet the same deals (a deal depends on the seed and the round number alone), and the
table replays exactly from ``--seed``.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from typing import Callable, NoReturn

from lan_demon.bots.arena_report import wilson
from lan_demon.bots.base import Strategy
from lan_demon.bots.gin_oracle import JokerSightedOracle
from lan_demon.bots.registry import make_strategy
from lan_demon.bots.simulator import play_round
from lan_demon.games import Match, get_game
from lan_demon.games.gin_solitaire import GinState

GAME = "gin-solitaire"
#: The rows of the table, strongest first.
ROWS = ("oracle", "solver", "greedy")


@dataclass
class Tally:
    """Matches of one strategy: won (GS-8), rounds, the points of both sides."""

    matches: int = 0
    won: int = 0
    rounds: int = 0
    player: int = 0
    joker: int = 0

    def add(self, match: Match) -> None:
        self.matches += 1
        self.won += get_game(GAME).winners(match) == [0]  # [0]: the player, [1]: the Joker
        for result in match.rounds:
            self.rounds += 1
            self.player += result.scores[0]
            self.joker += result.scores[1]


def _bot_for(row: str) -> Callable[[GinState], Strategy]:
    """A round's bot: the oracle is built on that round's true state; the others once."""
    if row == "oracle":
        return JokerSightedOracle
    bot = make_strategy(GAME, row)
    return lambda state: bot


def play_match(row: str, seed: str) -> Match:
    """One match to 100 (GS-8), as :func:`~lan_demon.bots.simulator.simulate` plays it."""
    game = get_game(GAME)
    bot_for = _bot_for(row)
    match = Match(game, [row], seed, {})
    while not match.over:
        state = match.deal()
        play_round(game, state, [bot_for(state)], seed, match.round_no)
        match.record(game.round_result(state))
    return match


def measure(row: str, matches: int, seed: int | str) -> Tally:
    tally = Tally()
    for k in range(matches):
        tally.add(play_match(row, f"gs8:{seed}:{k}"))
    return tally


def table(tallies: dict[str, Tally]) -> str:
    """The Markdown table docs/bots.md shows."""
    out = ["| strategy | matches to 100 won (GS-8) | 95 % CI | mean points a round | "
           "Joker's a round | player − Joker a round | rounds a match |",
           "| --- | --- | --- | ---: | ---: | ---: | ---: |"]
    names = {"oracle": "oracle (sees the Joker: a bound)", "solver": "`solver`",
             "greedy": "`greedy`"}
    for row, t in tallies.items():
        low, high = wilson(t.won, t.matches)
        n = max(1, t.rounds)
        out.append(f"| {names.get(row, row)} | {t.won} / {t.matches} = "
                   f"{t.won / max(1, t.matches):.3f} | {low:.3f}–{high:.3f} | "
                   f"{t.player / n:.2f} | {t.joker / n:.2f} | {(t.player - t.joker) / n:+.2f} | "
                   f"{t.rounds / max(1, t.matches):.1f} |")
    return "\n".join(out)


class _Parser(argparse.ArgumentParser):
    """A usage error is one line, exit code 2."""

    def error(self, message: str) -> NoReturn:
        print(f"gin_bound: {message} (see --help)", file=sys.stderr)
        raise SystemExit(2)


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"at least 1, not {value}")
    return value


def main(argv: list[str] | None = None) -> int:
    parser = _Parser(prog="python -m lan_demon.bots.gin_bound", description=__doc__)
    parser.add_argument("--matches", type=_positive, default=2000,
                        help="matches to 100 for each strategy (default 2000)")
    parser.add_argument("--seed", default="1130", help="match k is dealt from gs8:SEED:k")
    parser.add_argument("--only", choices=ROWS, action="append",
                        help="measure only this strategy (may be repeated)")
    args = parser.parse_args(argv)
    rows = [r for r in ROWS if not args.only or r in args.only]
    print(table({row: measure(row, args.matches, args.seed) for row in rows}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
