"""The arena's figures: what each round came to, per strategy, added up with honest error bars.

Kept apart from the playing (:mod:`lan_demon.bots.arena`) because it is plain arithmetic on
outcomes — no processes, no sockets — and is where a new figure (an interval, a mean
difference) is added.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from lan_demon.games import Game

Z95 = 1.959963984540054  # the normal quantile of a two-sided 95 % interval


@dataclass
class RoundOutcome:
    """One round seen from each seat: who sat there, what it scored, whether it won."""

    round_no: int
    strategies: list[str]
    scores: list[int]
    wins: list[bool]
    shared: bool  # the round's win was shared by several seats
    played: list[bool]  # False for a seat that sat the round out (GS-8/GS-9, network only)
    pile_left: list[int | None]
    stacked: list[int | None]


def wilson(wins: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion ``wins / n`` (``(0, 1)`` when ``n`` is 0).

    Unlike the textbook ``p ± z·sqrt(p(1-p)/n)`` it stays inside [0, 1] and does not shrink to
    nothing at 0 or n wins — which small arenas hit all the time.
    """
    if n <= 0:
        return 0.0, 1.0
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z / denom * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    low = 0.0 if wins <= 0 else max(0.0, centre - half)  # exact ends, not 1e-17 off
    high = 1.0 if wins >= n else min(1.0, centre + half)
    return low, high


@dataclass
class StrategyStats:
    """What one strategy did over every seat-round it played."""

    strategy: str
    seat_rounds: int = 0
    wins: int = 0
    shared: int = 0
    score_sum: int = 0
    pile_left_sum: int = 0
    pile_left_n: int = 0
    stacked_sum: int = 0
    stacked_n: int = 0

    def add(self, score: int, won: bool, shared: bool, pile_left: int | None,
            stacked: int | None) -> None:
        self.seat_rounds += 1
        self.wins += won
        self.shared += won and shared
        self.score_sum += score
        if pile_left is not None:
            self.pile_left_sum += pile_left
            self.pile_left_n += 1
        if stacked is not None:
            self.stacked_sum += stacked
            self.stacked_n += 1

    @property
    def win_rate(self) -> float:
        return self.wins / self.seat_rounds if self.seat_rounds else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        return wilson(self.wins, self.seat_rounds)

    @staticmethod
    def _mean(total: int, n: int) -> float | None:
        return total / n if n else None

    def to_data(self) -> dict[str, Any]:
        low, high = self.interval
        data: dict[str, Any] = {
            "seat_rounds": self.seat_rounds, "wins": self.wins, "shared_wins": self.shared,
            "win_rate": self.win_rate, "win_rate_95": [low, high],
            "mean_score": self._mean(self.score_sum, self.seat_rounds)}
        if self.pile_left_n:
            data["mean_pile_left"] = self._mean(self.pile_left_sum, self.pile_left_n)
        if self.stacked_n:
            data["mean_stacked"] = self._mean(self.stacked_sum, self.stacked_n)
        return data


@dataclass
class ArenaReport:
    """The arena's answer: per strategy, in the order the seat list first names them."""

    game: str
    seed: int | str
    rounds: int
    seats: list[str]
    mode: str  # "engine" or "network"
    note: str
    stats: dict[str, StrategyStats] = field(default_factory=dict)
    matches: int | None = None  # network: how many matches the rounds came from

    def to_data(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "game": self.game, "mode": self.mode, "seed": self.seed, "rounds": self.rounds,
            "seats": list(self.seats), "note": self.note,
            "win": "beat the Joker" if self.game == "gin-solitaire" else "round winner",
            "strategies": {name: s.to_data() for name, s in self.stats.items()}}
        if self.matches is not None:
            data["matches"] = self.matches
        return data


def tally(game: Game, seats: list[str], seed: int | str, outcomes: list[RoundOutcome],
          mode: str, note: str) -> ArenaReport:
    """Add up the rounds in round order (so the sums, floats included, never depend on J)."""
    report = ArenaReport(game.id, seed, len(outcomes), list(seats), mode, note)
    for name in seats:
        report.stats.setdefault(name, StrategyStats(name))
    for rnd in sorted(outcomes, key=lambda o: o.round_no):
        for s, name in enumerate(rnd.strategies):
            if rnd.played[s]:
                report.stats[name].add(rnd.scores[s], rnd.wins[s], rnd.shared,
                                       rnd.pile_left[s], rnd.stacked[s])
    return report


def _fmt(value: float | None, digits: int = 2) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def format_report(report: ArenaReport) -> str:
    """One row per strategy; Racing Demon adds the mean Pile left and cards stacked."""
    data = report.to_data()
    rows = data["strategies"]
    gin = report.game == "gin-solitaire"
    demon = report.game.startswith("racing-demon")
    heads = ["strategy", "seat-rounds", "beat Joker" if gin else "wins", "win rate", "95% CI",
             "mean penalty" if report.game == "racing-demon-german" else "mean score"]
    if demon:
        heads += ["pile left", "stacked"]
    table = [heads]
    for name, row in rows.items():
        low, high = row["win_rate_95"]
        line = [name, str(row["seat_rounds"]), str(row["wins"]), f"{row['win_rate']:.3f}",
                f"{low:.3f}–{high:.3f}", _fmt(row["mean_score"])]
        if demon:
            line += [_fmt(row.get("mean_pile_left")), _fmt(row.get("mean_stacked"))]
        table.append(line)
    widths = [max(len(r[c]) for r in table) for c in range(len(heads))]
    lines = [f"arena · {report.game} · seed {report.seed} · {report.rounds} rounds · "
             f"seats {','.join(report.seats)}",
             f"{report.mode}: {report.note}"
             + (f" ({report.matches} match{'es' if report.matches > 1 else ''})"
               if report.matches else "")]
    for k, row in enumerate(table):
        lines.append("  ".join(cell.ljust(w) if c == 0 else cell.rjust(w)
                               for c, (cell, w) in enumerate(zip(row, widths))))
        if k == 0:
            lines.append("-" * len(lines[-1]))
    shared = sum(r["shared_wins"] for r in rows.values())
    if shared:
        lines.append(f"{shared} of the wins were shared (a tie counts as a win for each)")
    return "\n".join(lines)
