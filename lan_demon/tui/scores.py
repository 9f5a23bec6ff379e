"""The round-end and match screen, drawn (the scores as data are the seat's,
:mod:`lan_demon.seat.scores`): who went out, every score with its parts, sorted, the
round's winner and the match leader marked, the next round's Piles (RD-15), a chart of the
running totals by round, and what the table waits for before the next round.

German Racing Demon scores penalties (RG-6, RG-7): its board is sorted lowest first and its
chart is drawn with the lowest total at the top, so the best is always up and first.
"""

from __future__ import annotations

from typing import Any

from lan_demon.seat.scores import (LEGEND, PARTS, SCORE_WORD, ending_text, knocked_with,
                                   lower_is_better, order, parts_of, rounds_text, series,
                                   sides)
from lan_demon.seat.face import not_checked_words
from lan_demon.seat.scores import part as _part
from lan_demon.net.cells import cells as cell_count
from lan_demon.net.cells import pad
from lan_demon.tui.facts import TableFacts
from lan_demon.tui.style import Fragments, back, line, text_of
from lan_demon.seat.words import names_list
from lan_demon.tui.text import fold, join_lines, lines_of, wrap

__all__ = ["PARTS", "SCORE_WORD", "ending_text", "knocked_with", "rounds_text", "score_board",
           "chart", "footer"]

CHART_ROWS = 6
CHART_LINES = 5  # sides drawn in the chart: the leaders, and you


# --- the board ---------------------------------------------------------------------------------

def winners_words(winners: list[str]) -> str:
    """What the match's end says after "Match over": the winner, or who share the win."""
    if not winners:
        return ""
    if len(winners) == 1:
        return f" — the winner: {winners[0]}"
    return f" — a tie: {names_list(winners, most=len(winners))} share the win"


def score_board(ctl: TableFacts, width: int) -> Fragments:
    table, sheet = ctl.client.table, ctl.client.scores
    game = ctl.client.game.id
    over = table.get("phase") == "over"
    if over:
        shown = {s.get("name"): ctl.name(i) for i, s in enumerate(ctl.seats)}  # as the table
        winners = [shown.get(w, w) for w in (table.get("result") or {}).get("winner", [])]
        won = winners_words(winners)
        out = line(("class:me", " Match over"), ("class:good", won)) \
            if cell_count(f" Match over{won}") < width else \
            line(("class:me", " Match over")) + wrap(won.removeprefix(" — "), width, "class:good")
    else:
        rounds = ctl.client.config.get("rounds") or ctl.client.game.default_rounds()
        of = f" of {rounds}" if rounds else ""
        out = line(("class:me", f" Round {sheet.played}{of} is over"))
        if ctl.banner_text:
            out += wrap(ctl.banner_text, width, "class:good")
    if sheet.results:
        out += _round_table(ctl, game, sheet.results[-1], sheet.totals(), width, over)
        out += coach_review(ctl, width)
    setup = table.get("setup") or {}
    handicap = ((table.get("config") or {}).get("options") or {}).get("handicap", True)
    if not over and setup.get("pile_sizes") and handicap:  # (off: every Pile the same, RG-2)
        out += _next_piles(ctl, setup["pile_sizes"], width)
    return out + chart(ctl, width)


def coach_review(ctl: TableFacts, width: int) -> Fragments:
    """The coach's review of the round just played, under the scores (Racing Demon: the
    table's screen keeps it, :meth:`lan_demon.tui.demon.DemonScreen.coach_lines`); nothing
    for the other games, a spectator, or a round this screen did not see played."""
    lines = getattr(getattr(ctl, "screen", None), "coach_lines", None)
    return lines(ctl, width) if lines is not None else []


def _round_table(ctl: TableFacts, game: str, result: dict[str, Any], totals: list[int],
                 width: int, over: bool) -> Fragments:
    parts = parts_of(game, result)
    scores = result["scores"]
    names = sides(ctl, len(scores))
    low = lower_is_better(ctl)
    rows = order(scores, totals, low, by_total=over)
    pick = min if low else max
    best_round = pick(scores) if scores else None
    best_total = pick(totals) if totals else None
    name_w = max([5] + [cell_count(n) for n in names])  # every name whole
    word = SCORE_WORD.get(game, "score").split(" ")[0]
    score_w = len(word) + 1
    head = (f" {'#':>2}  {'':<{name_w}}{word:>{score_w}}" +
            "".join(f"{h:>{w}}" for _, h, w in parts) + f"{'total':>6}")
    out = line(("class:dim", head))
    for place, i in enumerate(rows, 1):
        detail = result["detail"][i] if i < len(result["detail"]) else {}
        cells = "".join(f"{_cell(_part(detail, k)):>{w}}" for k, _, w in parts)
        total = totals[i] if i < len(totals) else 0
        star = "★" if scores[i] == best_round else " "
        lead = " ◀" if totals and total == best_total else ""
        style = "class:me" if i == ctl.client.seat else ""
        out += line(f" {place:>2} ", ("class:good", star), (style, pad(names[i], name_w)),
                    f"{scores[i]:>{score_w}}{cells}", ("class:me", f"{total:>6}"),
                    ("class:good", lead))
    legend = "★ best this round  " + ("◀ leads the match" if not over else "◀ wins")
    legend += "  · lowest is best (RG-7)" if low else ""
    legend += f"  · {LEGEND[game]}" if game in LEGEND else ""
    return out + wrap(legend, width, "class:dim")


def _cell(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "–"
    return "–" if value is None else str(value)


def _next_piles(ctl: TableFacts, sizes: list[int], width: int) -> Fragments:
    cells = [f"{n} {s}" for n, s in zip(sides(ctl, len(sizes)), sizes)]
    out = wrap("next Piles (RD-15: the leaders' grow, the last's shrink):", width, "class:dim")
    row = " "
    for cell in cells:
        if cell_count(row) + cell_count(cell) + 3 > width:
            out += line(row)
            row = " "
        row += f" {cell} ·"
    return out + line(row.rstrip("·"))


# --- the chart ---------------------------------------------------------------------------------

def chart(ctl: TableFacts, width: int) -> Fragments:
    """Running totals by round, as a line chart ``CHART_ROWS`` tall: the leaders (and you),
    one marker each. German penalties are drawn upside down: the lowest is at the top."""
    results = ctl.client.scores.results
    if not results:
        return []
    count = len(results[-1]["scores"])
    names = sides(ctl, count)
    runs = series(ctl)
    low = lower_is_better(ctl)
    best = order([r[-1] for r in runs], [r[-1] for r in runs], low, by_total=True)
    chosen = best[:CHART_LINES]
    seat = ctl.client.seat
    if seat is not None and seat < count and seat not in chosen:
        chosen = chosen[:-1] + [seat]
    values = [v for i in chosen for v in runs[i]]
    top, bottom = (min(values), max(values)) if low else (max(values), min(values))
    span = (bottom - top) or 1
    label_w = max(len(str(top)), len(str(bottom))) + 1
    step = max(2, min(8, (width - label_w - 4) // max(1, len(results))))
    rounds_shown = max(1, (width - label_w - 4) // step)
    first = max(0, len(results) - rounds_shown)
    cols = (len(results) - first - 1) * step + 1
    grid: list[list[tuple[str, str]]] = [[("", " ")] * cols for _ in range(CHART_ROWS)]

    def row_of(v: float) -> int:
        return round((v - top) / span * (CHART_ROWS - 1))

    for n, i in enumerate(reversed(chosen)):  # the leader drawn last, on top
        mark = str(len(chosen) - n)
        style = back(i)
        run = runs[i][first:]
        for k, v in enumerate(run):
            if k:  # the line from the last round's point to this one
                for x in range(1, step):
                    y = row_of(run[k - 1] + (v - run[k - 1]) * x / step)
                    if grid[y][(k - 1) * step + x][1] == " ":
                        grid[y][(k - 1) * step + x] = ("class:chart", "·")
            grid[row_of(v)][k * step] = (style, mark)
    word = "penalty, lowest at the top (RG-7)" if low else "total"
    out = line(("class:dim", f" running {word} by round"))
    for y, cells in enumerate(grid):
        label = ""
        if y == 0:
            label = str(top)
        elif y == CHART_ROWS - 1:
            label = str(bottom)
        out += line(("class:dim", f" {label:>{label_w}} ┤"), cells)
    axis = "".join(f"{first + k + 1 + ctl.client.scores.first:<{step}}"
                   for k in range(len(results) - first))
    out += line(("class:dim", f" {'':>{label_w}} └{'─' * cols}"))
    out += line(("class:dim", f" {'round':>{label_w}}  {axis}"))
    legend = [[(back(i), str(n)), ("", f" {names[i]} {runs[i][-1]}")]
              for n, i in enumerate(chosen, 1)]  # a marker and its name stay on one row
    return out + fold(legend, width)


def footer(ctl: TableFacts, width: int) -> Fragments:
    """What happens next: the countdown to the next round and who is ready, or, once the
    match is over, how to leave."""
    table = ctl.client.table
    checked = deal_checked(ctl, width)
    if table.get("phase") == "over":
        if table.get("closed"):
            return checked + line(("class:dim", " the host has closed the table — "),
                                  ("class:key", "q"), " leaves")
        return checked + line(("class:key", " q"), " leaves the table")
    next_at = table.get("next_at", ctl.next_at)
    if next_at is None:
        when = "waiting until everyone is ready"
    else:
        when = f"next round in {max(0, next_at - ctl.client.arbiter_now()):.0f} s"
    me = ctl.seats[ctl.client.seat] if not ctl.spectator and \
        ctl.client.seat < len(ctl.seats) else {}
    if ctl.spectator:
        tail = ""
    elif me.get("ready"):
        tail = " — you are ready"
    else:
        tail = " — Enter when you are ready"
    out = line(("class:key", f" {when}"), tail)
    people = [s for s in ctl.seats if not s.get("bot") and s.get("status", "here") == "here"]
    ready = [s["name"] for s in people if s.get("ready")]
    waiting = [s["name"] for s in people if not s.get("ready")]
    said = (f" ready: {', '.join(ready) or 'nobody yet'}" +
            (f" · not yet: {', '.join(waiting)}" if waiting else ""))
    if cell_count(said) >= width:
        said = f" ready: {len(ready)} of {len(people)} people"
    return checked + out + line(("class:dim", said))


def deal_checked(ctl: TableFacts, width: int) -> Fragments:
    """One quiet line on what our client's check of the last round's deal found (§22): ✓ when
    it re-dealt the round from the revealed secret and found it the one promised before Go;
    NOT checked, with why, when it could not — never silence; nothing when the check failed
    (that is the alarm at the top of the screen)."""
    witness = getattr(ctl.client, "witness", None)
    last = ctl.client.scores.played - 1
    if witness is None or not ctl.client.scores.results or ctl.alarms:
        return []
    outcome = witness.outcome(last)
    if outcome != "ok":
        return wrap(not_checked_words(witness.rounds.get(last)), width, "class:warn")
    if ctl.client.config.get("seeded"):  # checked, but anyone with the seed knew it (§22)
        return wrap("this round's deal came from a fixed seed (--seed): checked, but not "
                    "secret", width, "class:dim")
    said = lines_of(wrap("✓ this round's deal was checked: the cards are the ones the host "
                         "promised before Go", width, "class:dim"))
    said[0] = [("class:good", " ✓"), ("class:dim", text_of(said[0])[2:])]
    return join_lines(said)