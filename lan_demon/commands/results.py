"""A match's result document as a readable table (``simulate``, ``host``, ``replay``)."""

from __future__ import annotations

from typing import Any

from lan_demon.net.cells import cells


def right(text: str, width: int) -> str:
    """``text`` right-aligned in ``width`` terminal cells."""
    return " " * max(0, width - cells(text)) + text


def format_table(result: dict[str, Any]) -> str:
    """A readable table: one row per round, one column per side, then totals and winner. A
    bot seated with a level is named with it ("Ada L2", as on every screen), so a line under
    the table says what the mark is (bare, "Robo L2" reads as a name of its own). Names are
    measured in terminal cells, so a name with an emoji keeps its column in line."""
    names = list(result["totals"])
    width = max(7, *(cells(n) for n in names))
    head = "round  " + " ".join(right(n, width) for n in names)
    dealt = "secret deals" if result.get("seed") is None else f"seed {result['seed']}"
    lines = [f"{result['game']} · {dealt}", head, "-" * len(head)]
    for k, rnd in enumerate(result["rounds"], 1):
        lines.append(f"{k:>5}  " + " ".join(str(rnd["scores"][n]).rjust(width) for n in names))
    lines.append("-" * len(head))
    lines.append("total  " + " ".join(str(result["totals"][n]).rjust(width) for n in names))
    lines.append(winner_line(result["winner"]))
    from lan_demon.seat.words import split_level  # (the mark's one reading)
    levels = sorted({level for n in names if (level := split_level(n)[1]) is not None})
    if levels:
        marks = " and ".join(f"L{level}" for level in levels)
        lines.append(f"({marks} after a bot's name: its level, from 1 to 10)")
    return "\n".join(lines)


def winner_line(winners: list[str]) -> str:
    """"winner: Ann", or for a tie "winners, tied: Ann and Bob" (not "the winner: Ann, Bob",
    which reads as a mistake)."""
    if len(winners) == 1:
        return f"winner: {winners[0]}"
    return f"winners, tied: {', '.join(winners[:-1])} and {winners[-1]}" if winners else \
        "winner: nobody"
