"""A match's result document as a readable table (``simulate``, ``host``, ``replay``)."""

from __future__ import annotations

from typing import Any


def format_table(result: dict[str, Any]) -> str:
    """A readable table: one row per round, one column per side, then totals and winner.
    A bot's name is shown as the screens show it, without its level mark ("Ada L2 (bot)" is
    "Ada (bot)"; a newcomer found "Robo" on the table and "Robo L2" here)."""
    names = list(result["totals"])
    shown = [shown_name(n) for n in names]
    width = max(7, *(len(n) for n in shown))
    head = "round  " + " ".join(n.rjust(width) for n in shown)
    dealt = "secret deals" if result.get("seed") is None else f"seed {result['seed']}"
    lines = [f"{result['game']} · {dealt}", head, "-" * len(head)]
    for k, rnd in enumerate(result["rounds"], 1):
        lines.append(f"{k:>5}  " + " ".join(str(rnd["scores"][n]).rjust(width) for n in names))
    lines.append("-" * len(head))
    lines.append("total  " + " ".join(str(result["totals"][n]).rjust(width) for n in names))
    lines.append(winner_line([shown_name(n) for n in result["winner"]]))
    return "\n".join(lines)


def shown_name(name: str) -> str:
    """A seat's name as the table's screens show it (:func:`lan_demon.tui.facts.split_level`)."""
    from lan_demon.tui.facts import split_level
    return split_level(name)[0]


def winner_line(winners: list[str]) -> str:
    """"winner: Ann", or for a tie "winners, tied: Ann and Bob" (not "the winner: Ann, Bob",
    which reads as a mistake)."""
    if len(winners) == 1:
        return f"winner: {winners[0]}"
    return f"winners, tied: {', '.join(winners[:-1])} and {winners[-1]}" if winners else \
        "winner: nobody"
