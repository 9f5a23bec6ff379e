"""The finished rounds' results a seat keeps, and the running totals worked out from them.

The per-round results are the one source: the totals now, and the totals after any round kept,
are sums of them, never a second list kept beside them that a reader must subtract rounds from.
A client may keep only the last few results (a bot on an endless table, ``history``): what the
rounds it let go added up to is carried, so the totals stay whole.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


def added(totals: list[int], scores: list[int]) -> list[int]:
    """``totals`` with one round's ``scores`` added, side by side (the longer list's length)."""
    longer, shorter = (totals, scores) if len(totals) >= len(scores) else (scores, totals)
    return [v + (shorter[i] if i < len(shorter) else 0) for i, v in enumerate(longer)]


@dataclass
class ScoreSheet:
    """``results`` of rounds ``first``, ``first + 1``… (the match's, as the arbiter sent them);
    ``keep``: how many to keep (None: all); ``carried``: what the rounds before ``first`` add
    up to."""

    keep: int | None = None
    results: list[dict[str, Any]] = field(default_factory=list)
    first: int = 0
    carried: list[int] = field(default_factory=list)

    def restart(self, results: list[dict[str, Any]]) -> None:
        """A snapshot's results: every round of the match so far, from the first."""
        self.results, self.first, self.carried = list(results), 0, []
        self._let_go()

    def add(self, result: dict[str, Any]) -> None:
        """A round ended with ``result``."""
        self.results.append(result)
        self._let_go()

    def _let_go(self) -> None:
        """Keep only the last ``keep`` results, carrying what the others add up to."""
        if self.keep is None or len(self.results) <= self.keep:
            return
        dropped = len(self.results) - self.keep
        for result in self.results[:dropped]:
            self.carried = added(self.carried, result["scores"])
        del self.results[:dropped]
        self.first += dropped

    @property
    def rounds(self) -> range:
        """The numbers of the rounds kept."""
        return range(self.first, self.played)

    @property
    def played(self) -> int:
        """How many rounds of the match have ended, those let go counted in."""
        return self.first + len(self.results)

    def result(self, round_no: int) -> dict[str, Any]:
        """The result of ``round_no``, one of :attr:`rounds`."""
        return self.results[round_no - self.first]

    def totals_after(self, round_no: int) -> list[int]:
        """Each side's running total once ``round_no`` had ended (one of :attr:`rounds`, or
        ``first - 1`` for what the rounds no longer kept add up to)."""
        totals = list(self.carried)
        for result in self.results[:round_no - self.first + 1]:
            totals = added(totals, result["scores"])
        return totals

    def totals(self) -> list[int]:
        """Each side's running total now (empty before any round has ended)."""
        return self.totals_after(self.played - 1)
