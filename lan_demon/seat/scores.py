"""The round-end and match-end table as data: who went out, every part of each score, the
totals, who won, the next round's Piles (RD-15) and the running totals by round (the chart's
series). The terminal's ``tui/scores.py`` draws them; the page gets them in ``face["scores"]``.

German Racing Demon scores penalties (RG-6, RG-7): lowest is best, so its rows are sorted
lowest first.
"""

from __future__ import annotations

from typing import Any

from lan_demon.seat.person import group_clause, subject
from lan_demon.seat.words import fit_name

#: The parts of a score worth a column, per game, as (detail key, heading, width).
PARTS: dict[str, list[tuple[str, str, int]]] = {
    "racing-demon": [("stacked", "stacked", 8), ("kings", "kings", 6), ("out", "out", 5),
                     ("pile_left", "pile left", 10)],
    "racing-demon-german": [("pile_left", "pile left", 10), ("out", "out", 5)],
    "racko": [("racko", "Rack-O", 7), ("in_order", "in order", 9), ("bonus", "bonus", 6)],
    "gin-solitaire": [("result", "result", 9), ("deadwood", "dw", 4), ("count", "C", 4)],
}
#: What a game's short headings mean, said under its table ("dw" and "C" mean nothing alone).
LEGEND = {"gin-solitaire": "dw deadwood · C cards left above the Joker (GS-7)"}
SCORE_WORD = {"racing-demon": "score (RD-14)", "racing-demon-german": "penalty (RG-6)",
              "racko": "score (RK-6)", "gin-solitaire": "score (GS-7)"}


def rounds_text(client: Any) -> str:
    """How long the match is: the host's round count, else the game's own default or end."""
    rounds = client.config.get("rounds")
    game = client.game
    if not rounds and game is not None:
        rounds = game.default_rounds()
    if rounds:
        return "1 round" if rounds == 1 else f"{rounds} rounds"
    if game is not None and game.id == "racko":
        return "rounds until someone reaches 500 (RK-7)"
    if game is not None and game.id == "gin-solitaire":
        return "rounds until you or the Joker reach 100 (GS-8)"
    return "rounds until the host stops"


def short(name: str, width: int) -> str:
    """A name in ``width`` terminal cells (a seated name, at most NAME_CELLS, is whole)."""
    return fit_name(name, width)


def sides(seat: Any, count: int | None = None) -> list[str]:
    """The names of the match's sides; Gin Solitaire's Jokers score too (GS-9)."""
    names = [seat.name(i) for i in range(len(seat.seats))]  # as every screen names them
    results = seat.client.scores.results
    if count is None:
        count = len(results[-1]["scores"]) if results else len(names)
    if count > len(names):
        jokers = ["Joker"] if len(names) == 1 else \
            [f"Joker ({n})" for n in names]
        names = names + jokers
    return names[:count]


def lower_is_better(seat: Any) -> bool:
    return bool(getattr(seat.client.game, "lower_is_better", False))


def ending_text(seat: Any, result: dict[str, Any]) -> str:
    """What ended the round, in words: "Cy is OUT!" (RD-12), "Ann: Rack-O!" (RK-5), who
    knocked or went Gin (GS-6), or the table stuck three times (RD-13)."""
    game = seat.client.game.id if seat.client.game else ""
    detail = result.get("detail") or []
    names = sides(seat, len(detail) or None)
    mine = seat.client.seat
    if game.startswith("racing-demon"):
        out = [(short(names[i], 20), i == mine) for i, d in enumerate(detail) if d.get("out")]
        if out:
            return group_clause(out, "is", "OUT!")
        return "Everyone stuck three times: the round ends with nobody out — RD-13"
    if game == "racko":
        won = [i for i, d in enumerate(detail) if d.get("racko")]
        return f"{subject(short(names[won[0]], 20), won[0] == mine)}: Rack-O!" if won \
            else "The round is over"
    if game == "gin-solitaire":
        players = len(seat.seats) or 1
        said = []
        for i, d in enumerate(detail[:players]):
            who = subject(short(names[i], 14), i == mine)
            what = d.get("result")
            said.append({"knock": f"{who} knocked{knocked_with(seat, i)}, deadwood "
                                  f"{d.get('deadwood')}{knock_sum(d)}",
                         "gin": f"{who}: Gin!", "big-gin": f"{who}: Big Gin!",
                         "joker": f"{who} drew the Joker"}.get(what, ""))
        text = "; ".join(s for s in said if s)
        return text or "The round is over"
    return "The round is over"


def knock_sum(detail: dict[str, Any]) -> str:
    """A knock's score worked out in words (GS-7): a knock that scores 0 said nothing of why."""
    count, deadwood = detail.get("count"), detail.get("deadwood")
    if not isinstance(count, int) or not isinstance(deadwood, int):
        return ""
    left = f"{count} card{'' if count == 1 else 's'} left above the Joker"
    if count >= deadwood:
        return f" ({left}: {count} − {deadwood} = {count - deadwood} points, GS-7)"
    return f" (only {left}: set — the Joker scores 25 + {deadwood - count}, GS-7)"


def knocked_with(seat: Any, index: int) -> str:
    """" with 4♠" for this seat's own knock (GS-6): the result holds only the deadwood, the
    Gin seat remembers the card it knocked with; nothing for another seat's knock."""
    card = getattr(getattr(seat, "game", None), "knocked", None)
    return f" with {card.symbol}" if card is not None and index == seat.client.seat else ""


def order(scores: list[int], totals: list[int], low: bool, by_total: bool) -> list[int]:
    """Side indexes, best first: by the round's score (or the total), the total breaking ties."""
    sign = 1 if low else -1

    def key(i: int) -> tuple[int, int, int]:
        total = totals[i] if i < len(totals) else 0
        first = total if by_total else scores[i]
        return sign * first, sign * total, i
    return sorted(range(len(scores)), key=key)


def part(detail: dict[str, Any], key: str) -> Any:
    if key == "in_order":
        from lan_demon.games.racko import ascending_prefix
        rack = detail.get("rack")
        return ascending_prefix(rack) if rack else None
    return detail.get(key)


def parts_of(game: str, result: dict[str, Any]) -> list[tuple[str, str, int]]:
    """The parts of the score this round's results hold, as (key, heading, width)."""
    parts = [p for p in PARTS.get(game, []) if any(p[0] in d or p[0] == "in_order"
                                                    for d in result["detail"])]
    if game == "racko" and not any("bonus" in d for d in result["detail"]):
        parts = [p for p in parts if p[0] != "bonus"]
    return parts


def series(seat: Any) -> list[list[int]]:
    """Each side's running total after each round the client keeps, the rounds it let go
    counted in (:meth:`~lan_demon.net.score_sheet.ScoreSheet.totals_after`)."""
    scores = seat.client.scores
    if not scores.results:
        return []
    count = len(scores.results[-1]["scores"])
    # (a side no round has scored yet stands at 0)
    after = [scores.totals_after(k) + [0] * count for k in scores.rounds]
    return [[totals[i] for totals in after] for i in range(count)]


def score_data(seat: Any) -> dict[str, Any] | None:
    """The scores between rounds and at the end, as plain data (None before any round)."""
    table, sheet = seat.client.table, seat.client.scores
    if not sheet.results:
        return None
    game = seat.client.game.id
    over = table.get("phase") == "over"
    result, totals = sheet.results[-1], sheet.totals()
    scores = result["scores"]
    names = sides(seat, len(scores))
    low = lower_is_better(seat)
    parts = parts_of(game, result)
    pick = min if low else max
    best_round = pick(scores) if scores else None
    best_total = pick(totals) if totals else None
    rows = []
    for i in order(scores, totals, low, by_total=over):
        detail = result["detail"][i] if i < len(result["detail"]) else {}
        total = totals[i] if i < len(totals) else 0
        rows.append({"side": i, "name": names[i], "score": scores[i],
                     "parts": {k: part(detail, k) for k, _, _ in parts}, "total": total,
                     "best": scores[i] == best_round, "leads": bool(totals) and
                     total == best_total, "you": i == seat.client.seat})
    shown = {s.get("name"): seat.name(i) for i, s in enumerate(seat.seats)}
    winners = [shown.get(w, w) for w in (table.get("result") or {}).get("winner", [])]
    setup = table.get("setup") or {}
    handicap = ((table.get("config") or {}).get("options") or {}).get("handicap", True)
    piles = setup.get("pile_sizes") if not over and handicap else None
    first = sheet.first
    return {"round": sheet.played, "rounds": seat.client.config.get("rounds")
            or seat.client.game.default_rounds(), "over": over,
            "word": SCORE_WORD.get(game, "score"), "lower_is_better": low,
            "legend": LEGEND.get(game),
            "parts": [{"key": k, "heading": h} for k, h, _ in parts], "rows": rows,
            "winners": winners if over else [],
            "next_piles": [{"name": n, "pile": s} for n, s in
                           zip(sides(seat, len(piles)), piles)] if piles else None,
            "chart": {"first_round": first + 1, "names": names, "series": series(seat)}}
