"""The arena's figures: what each round came to, per strategy, added up with honest error bars.

Kept apart from the playing (:mod:`lan_demon.bots.arena`) because it is plain arithmetic on
outcomes — no processes, no sockets — and is where a new figure (an interval, a mean
difference) is added.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field
from typing import Any, Iterable

from lan_demon.games import Game

Z95 = 1.959963984540054  # the normal quantile of a two-sided 95 % interval


@dataclass
class RoundOutcome:
    """One round seen from each seat: who sat there, what it scored, whether it won."""

    round_no: int
    deal: int  # the deal it played: its own, or with --mirror the one its rotations share
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


def t_within(t: float, df: int) -> float:
    """``P(|T| < t)`` for Student's T with a whole number ``df`` of degrees of freedom: the
    exact finite sums of Abramowitz & Stegun 26.7.3–4 in ``θ = atan(t/√df)``."""
    theta = math.atan(t / math.sqrt(df))
    cos2 = math.cos(theta) ** 2
    odd = df % 2
    term = total = 1.0
    for k in range(2, df - 1, 2):  # each term from the last: 2·4···k / 3·5···(k+1) (odd df)
        term *= cos2 * (k / (k + 1) if odd else (k - 1) / k)  # or 1·3···(k−1) / 2·4···k
        total += term
    if odd:
        series = math.cos(theta) * total if df > 1 else 0.0
        return 2 / math.pi * (theta + math.sin(theta) * series)
    return math.sin(theta) * total


T_SERIES_FROM = 100  # degrees of freedom from which the Cornish–Fisher series is used


def t975(df: int) -> float:
    """Student's t quantile of a two-sided 95 % interval with ``df`` degrees of freedom.

    The standard library has the normal quantile but not Student's; :func:`t_within` is exact
    for whole degrees of freedom, so bisect it (60 halvings: to the last bits of a float). Its
    sum has ``df / 2`` terms, so from T_SERIES_FROM on the Cornish–Fisher series about the
    normal quantile (Abramowitz & Stegun 26.7.5, four terms) is used instead: there it agrees
    to 1e-10 and costs nothing however long the arena. It differs from the normal 1.96 only
    in a small arena, where it keeps the interval honest.
    """
    if df < 1:
        raise ValueError(f"a t interval needs 1 degree of freedom or more, not {df}")
    if df >= T_SERIES_FROM:
        z = Z95
        terms = [(z ** 3 + z) / 4, (5 * z ** 5 + 16 * z ** 3 + 3 * z) / 96,
                 (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / 384,
                 (79 * z ** 9 + 776 * z ** 7 + 1482 * z ** 5 - 1920 * z ** 3 - 945 * z) / 92160]
        return z + sum(g / df ** (k + 1) for k, g in enumerate(terms))
    low, high = Z95, 64.0  # t(1) = 12.71: the quantile lies between
    for _ in range(60):
        mid = (low + high) / 2
        low, high = (mid, high) if t_within(mid, df) < 0.95 else (low, mid)
    return (low + high) / 2


@dataclass
class MeanInterval:
    """A mean over independent units with its t 95 % interval (``None`` ends from one unit)."""

    mean: float
    low: float | None
    high: float | None
    units: int

    def to_data(self) -> dict[str, Any]:
        return {"mean": self.mean, "ci95": [self.low, self.high], "units": self.units}


def mean_interval(values: list[float]) -> MeanInterval | None:
    """``mean ± t(n−1)·s/√n`` over ``values`` (sample standard deviation ``s``).

    Whatever the shape of one unit's difference (Rack-O's is lumpy: 75 for a Rack-O), the
    mean of hundreds of independent units is close to normal; the t quantile keeps a small run
    honest.
    """
    if not values:
        return None
    mean = statistics.fmean(values)
    if len(values) == 1:
        return MeanInterval(mean, None, None, 1)
    half = t975(len(values) - 1) * statistics.stdev(values) / math.sqrt(len(values))
    return MeanInterval(mean, mean - half, mean + half, len(values))


def table_differences(rnd: RoundOutcome) -> dict[str, float]:
    """For each strategy at this table, the mean score of the seats it holds minus the mean
    score of the seats the other strategies hold (seats that sat out left out). A strategy
    alone at the table, or a table of one strategy, has none."""
    played = [s for s in range(len(rnd.strategies)) if rnd.played[s]]
    diffs: dict[str, float] = {}
    for name in dict.fromkeys(rnd.strategies[s] for s in played):
        mine = [rnd.scores[s] for s in played if rnd.strategies[s] == name]
        theirs = [rnd.scores[s] for s in played if rnd.strategies[s] != name]
        if theirs:
            diffs[name] = statistics.fmean(mine) - statistics.fmean(theirs)
    return diffs


def deal_differences(outcomes: Iterable[RoundOutcome]) -> dict[str, list[float]]:
    """Per strategy, one difference per deal, in deal order: the mean of
    :func:`table_differences` over the deal's rounds (its rotations with --mirror, else the
    one round). The deal is the independent unit: its rotations share its luck."""
    by_deal: dict[int, list[RoundOutcome]] = {}
    for rnd in sorted(outcomes, key=lambda o: o.round_no):
        by_deal.setdefault(rnd.deal, []).append(rnd)
    units: dict[str, list[float]] = {}
    for deal in sorted(by_deal):
        per_strategy: dict[str, list[float]] = {}
        for rnd in by_deal[deal]:
            for name, diff in table_differences(rnd).items():
                per_strategy.setdefault(name, []).append(diff)
        for name, diffs in per_strategy.items():
            units.setdefault(name, []).append(statistics.fmean(diffs))
    return units


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
    score_diff: MeanInterval | None = None  # see table_differences and deal_differences

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
        data["score_diff"] = self.score_diff.to_data() if self.score_diff else None
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
    mirror: bool = False  # each deal played once per rotation of the seats
    deals: int = 0  # the independent units of the score difference

    @property
    def diff_note(self) -> str:
        """What the score difference is, said exactly, to print under the table."""
        unit = (f"averaged over each deal's {len(self.seats)} rotations first, then a t 95% "
                f"interval over the {self.deals} deals" if self.mirror
                else f"a t 95% interval over the {self.deals} rounds")
        better = {"racing-demon-german": "Scores are penalties (RG-6): negative is better.",
                  "gin-solitaire": "Scores are each player's points against its own Joker "
                                   "(GS-7): higher is better."}.get(self.game, "Higher is better.")
        return ("score diff: in each round, the mean score of the seats a strategy holds minus\n"
                "  the mean score of the seats the other strategies hold at that table;\n"
                f"  {unit}.\n  {better}")

    def to_data(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "game": self.game, "mode": self.mode, "seed": self.seed, "rounds": self.rounds,
            "seats": list(self.seats), "note": self.note,
            "win": "beat the Joker" if self.game == "gin-solitaire" else "round winner",
            "strategies": {name: s.to_data() for name, s in self.stats.items()},
            "mirror": self.mirror, "deals": self.deals,
            "score_diff_definition": " ".join(self.diff_note.split())}
        if self.matches is not None:
            data["matches"] = self.matches
        return data


def tally(game: Game, seats: list[str], seed: int | str, outcomes: list[RoundOutcome],
          mode: str, note: str, mirror: bool = False) -> ArenaReport:
    """Add up the rounds in round order (so the sums, floats included, never depend on J)."""
    report = ArenaReport(game.id, seed, len(outcomes), list(seats), mode, note, mirror=mirror,
                         deals=len({o.deal for o in outcomes}))
    for name in seats:
        report.stats.setdefault(name, StrategyStats(name))
    for rnd in sorted(outcomes, key=lambda o: o.round_no):
        for s, name in enumerate(rnd.strategies):
            if rnd.played[s]:
                report.stats[name].add(rnd.scores[s], rnd.wins[s], rnd.shared,
                                       rnd.pile_left[s], rnd.stacked[s])
    for name, units in deal_differences(outcomes).items():
        report.stats[name].score_diff = mean_interval(units)
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
    heads += ["score diff", "diff 95% CI"]
    table = [heads]
    for name, row in rows.items():
        low, high = row["win_rate_95"]
        line = [name, str(row["seat_rounds"]), str(row["wins"]), f"{row['win_rate']:.3f}",
                f"{low:.3f}–{high:.3f}", _fmt(row["mean_score"])]
        if demon:
            line += [_fmt(row.get("mean_pile_left")), _fmt(row.get("mean_stacked"))]
        line += _diff_cells(row["score_diff"])
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
    lines.append(report.diff_note)
    return "\n".join(lines)


def _diff_cells(diff: dict[str, Any] | None) -> list[str]:
    """The score difference and its interval: "–" where there is none (a table of one
    strategy; one unit, which has no spread)."""
    if diff is None:
        return ["–", "–"]
    low, high = diff["ci95"]
    return [f"{diff['mean']:+.2f}",
            "–" if low is None else f"{low:+.2f} to {high:+.2f}"]
