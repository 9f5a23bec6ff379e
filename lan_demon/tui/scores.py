"""The round-end and match screen: every score with its parts, the totals, the next round's
Pile sizes (RD-15) and a chart of the match so far."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lan_demon.tui.style import Fragments, line

if TYPE_CHECKING:
    from lan_demon.tui.table import Controller

#: The parts of a score worth a column, per game, as (detail key, heading).
PARTS = {
    "racing-demon": [("stacked", "stacked"), ("kings", "kings"), ("out", "out"),
                     ("pile_left", "pile left")],
    "racing-demon-german": [("pile_left", "pile left"), ("out", "out")],
    "racko": [("racko", "Rack-O"), ("rack", "rack")],
    "gin-solitaire": [("result", "result"), ("deadwood", "deadwood"), ("count", "C")],
}
BARS = " ▁▂▃▄▅▆▇█"


def score_board(ctl: Controller, width: int) -> Fragments:
    table = ctl.client.table
    game = ctl.client.game.id
    results = table.get("results", [])
    names = _sides(ctl, results)
    over = table.get("phase") == "over"
    out = line(("class:me", " Match over" if over else f" Round {len(results)} is over"))
    if results:
        out += _round_table(game, names, results[-1], table.get("totals", []), width)
    setup = table.get("setup") or {}
    if not over and setup.get("pile_sizes"):
        out += line(("class:dim", " next Piles (RD-15):"))
        cells = [f"{n.removesuffix(' (bot)')[:12]} {s}" for n, s in zip(names, setup["pile_sizes"])]
        per_row = max(1, (width - 2) // 18)
        for k in range(0, len(cells), per_row):
            out += line("  " + "".join(f"{c:<18}" for c in cells[k:k + per_row]))
    out += line("") + _chart(names, results, width)
    if over:
        winners = (table.get("result") or {}).get("winner", [])
        out += line(("class:good", f" Winner: {', '.join(winners)}"))
    else:
        out += line(("class:key", " Enter"), " — ready for the next round")
    return out


def _sides(ctl: Controller, results: list[dict[str, Any]]) -> list[str]:
    names = [s["name"] for s in ctl.seats]
    count = len(results[-1]["scores"]) if results else len(names)
    if count > len(names):  # Gin Solitaire: the Jokers score too
        jokers = ["Joker"] if len(names) == 1 else [f"Joker ({n})" for n in names]
        names = names + jokers
    return names[:count]


def _round_table(game: str, names: list[str], result: dict[str, Any], totals: list[int],
                 width: int) -> Fragments:
    parts = PARTS.get(game, [])
    head = f" {'':<14}{'score':>7}" + "".join(f"{h:>10}" for _, h in parts) + f"{'total':>8}"
    out = line(("class:dim", head[:width]))
    for i, name in enumerate(names):
        detail = result["detail"][i] if i < len(result["detail"]) else {}
        cells = "".join(f"{_cell(detail.get(k)):>10}" for k, _ in parts)
        total = totals[i] if i < len(totals) else ""
        out += line(f" {name[:14]:<14}{result['scores'][i]:>7}{cells}{total:>8}"[:width])
    return out


def _cell(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "–"
    if isinstance(value, list):
        return "·".join(str(v) for v in value[:3]) + "…"
    return "–" if value is None else str(value)


def _chart(names: list[str], results: list[dict[str, Any]], width: int) -> Fragments:
    """Running totals per side, one bar per round, scaled to the match's range."""
    if not results:
        return []
    runs = []
    for i in range(len(names)):
        total, run = 0, []
        for r in results:
            total += r["scores"][i]
            run.append(total)
        runs.append(run)
    low = min(min(r) for r in runs)
    high = max(max(r) for r in runs)
    span = max(1, high - low)
    out = line(("class:dim", " running totals"))
    room = max(4, width - 26)
    for name, run in zip(names, runs):
        bars = "".join(BARS[1 + round((v - low) / span * (len(BARS) - 2))]
                       for v in run[-room:])
        out += line(f" {name[:14]:<14} ", ("class:chart", bars), f" {run[-1]:>5}")
    return out
