"""How the Racing Demon table fits a terminal (both variants): the stacks, everyone else's
face-up cards, yours — in the rows and columns there are (:mod:`lan_demon.tui.demon` says
what is shown and holds the keys).

Fitting the height (:func:`table_rows` is given the rows it may use and never uses more):

* your own cards come first (a head line, then the Line of 4: four rows, one in German);
* the stacks, one row per suit ordered by top rank (classic, RD-5) or one run ordered by top
  rank (German, RG-3); a row too long for the width folds stacks with the same top into
  ``5♥×3`` (for play they are the same place), then wraps;
* the other players get what is left. Each is *full* — mark, name, Pile count, Pile top and the
  tops of the four columns — or *compact* — mark, name, Pile count, Pile top. A name is shown
  whole (a column as wide as the widest, 12 cells at most), never cut. When not
  everyone fits in full, the seats after yours (clockwise, as around a real table: the
  players next to you) are full and the rest compact; all are listed in seat order from
  yours. Names come before Lines: when even the compact list does not fit (20 players and
  many stacks at 60×20), the farthest seats show their mark alone (``q 10 5♥``), and the help
  (?) says whose mark is whose; only past that is the tail summed up as "+N more".
* A spectator has no cards of their own: the whole height goes to the stacks and every player.
"""

from __future__ import annotations

from typing import Any

from lan_demon.games.cards import Card
from lan_demon.games.demon_moves import COLUMN_NAMES
from lan_demon.games.demon_scoring import running_score
from lan_demon.games.demon_stacks import same_next
from lan_demon.net.cells import cells, pad
from lan_demon.seat.words import code_card
from lan_demon.tui.demon_words import short_name
from lan_demon.tui.facts import NAME_CELLS, TableFacts, name_column
from lan_demon.tui.style import (Fragments, card4, card_cells, line, owner_ink, owner_mark,
                                 signed, text_of)

SUIT_ROWS = "SHDC"  # the order of the stack rows in the classic game
GAP = 2  # spaces between two entries on a row


def table_rows(ctl: TableFacts, view: dict[str, Any], width: int, height: int,
               lit_sources: set[str], lit_stacks: set[int], voted_here: bool) -> Fragments:
    """The table in ``height`` rows: the stacks, the other players, a rule, your own cards
    (``lit_*``: your sources that fit a stack now and those stacks; ``voted_here``: this
    screen voted stuck, not the table for it while away)."""
    seat = ctl.client.seat
    german = view["game"] == "racing-demon-german"
    mine: Fragments = []
    if seat is not None:
        mine = mine_rows(ctl, view["players"][seat], german, width, lit_sources, voted_here)
    rows_left = height - _rows(mine)
    stacks = stacks_rows(view["stacks"], german, width, lit_stacks, max(2, rows_left - 2))
    rows_left -= _rows(stacks)
    others = others_rows(ctl, view, seat, width, rows_left - 1 if mine else rows_left)
    if mine and _rows(others) == rows_left - 1 and "more" in text_of(others):
        others = others_rows(ctl, view, seat, width, rows_left)  # the rule gives way
    rows_left -= _rows(others)
    rule = line(("class:dim", "─" * width)) if mine and rows_left >= 1 else []
    return stacks + others + rule + mine


# stacks ---------------------------------------------------------------------------------


def stacks_rows(stacks: list[dict[str, Any]], german: bool, width: int,
                lit: set[int], rows: int) -> Fragments:
    """The header, then one row per suit (classic) or one run (German), by top rank."""
    head = line(("class:me", f" Stacks {len(stacks)}"),
                ("class:dim", "  by top card" if stacks else "  none yet — an ace "
                 "starts one"),
                ("class:dim", "  (lit: yours fit)" if lit else ""))
    cards = [(st["id"], code_card(st["top"])) for st in stacks]
    if german:
        groups = [("", sorted(cards, key=lambda c: (c[1].rank, c[1].suit, c[0])))]
    else:
        groups = [(s, sorted((c for c in cards if c[1].suit == s),
                             key=lambda c: (c[1].rank, c[0]))) for s in SUIT_ROWS]
    body: Fragments = []
    for folded in (False, True):  # wrapped past ``rows``: fold identical tops everywhere
        body = []
        for label, group in groups:
            if not group:
                continue
            for row in _stack_rows(label, group, german, width, lit, folded):
                body += row
        if _rows(body) <= rows:
            break
    return head + body


def _stack_rows(label: str, group: list[tuple[int, Card]], german: bool,
                width: int, lit: set[int], fold: bool = False) -> list[Fragments]:
    """One suit's stacks as rows of ``width``: each stack its top card with the owner's
    mark; when they do not fit on one row (or ``fold``), stacks with the same top card are
    folded into one ``5♥×3`` (the same place for play), and what still does not fit wraps."""
    symbol = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}.get(label, " ")
    lead = f"  {symbol} " if label else "    "
    faces = [card4(card, owner=True, lit=sid in lit) for sid, card in group]
    if fold or len(lead) + (card_cells() + 1) * len(faces) > width:
        faces = []
        for card, ids in same_next(group, german):
            if len(ids) == 1:
                faces.append(card4(card, owner=True, lit=ids[0] in lit))
            else:  # the face alone, then how many stacks show it
                faces.append(card4(card, lit=bool(lit & set(ids)))[1:] +
                             [("class:dim", f"×{len(ids)}")])
    rows: list[Fragments] = []
    row: Fragments = [("class:dim", lead)]
    for cell in faces:
        gap: Fragments = [("", " ")] if len(row) > 1 else []
        if len(row) > 1 and len(text_of(row + gap + cell)) > width:
            rows.append(row + [("", "\n")])
            row, gap = [("", " " * len(lead))], []
        row = row + gap + cell
    return rows + [row + [("", "\n")]]


# the other players ----------------------------------------------------------------------


def others_rows(ctl: TableFacts, view: dict[str, Any], seat: int | None, width: int,
                rows: int) -> Fragments:
    """Every other player, full or compact, in ``rows`` rows at most (see the module's
    docstring for who is shown in full)."""
    players = view["players"]
    n = len(players)
    start = 0 if seat is None else seat + 1
    order = [(start + k) % n for k in range(n) if (start + k) % n != seat]
    if not order:
        return []
    name_w = name_column([short_name(ctl.name(s), NAME_CELLS) for s in order])
    kinds = {kind: {s: _entry(ctl, s, players[s], kind == "full", name_w,
                              named=kind != "bare") for s in order}
             for kind in ("full", "named", "bare")}
    wide = {kind: max(cells(text_of(f)) for f in got.values())
            for kind, got in kinds.items()}
    per = {kind: max(1, (width - 1 + GAP) // (w + GAP)) for kind, w in wide.items()}
    if wide["full"] > width - 1:
        per["full"] = 0
    rows = max(1, rows)
    full, named = split_names(len(order), per, rows)
    out = _grid([kinds["full"][s] for s in order[:full]], per["full"], wide["full"],
                     rows)
    out += _grid([kinds["named"][s] for s in order[full:full + named]],
                      per["named"], wide["named"], rows - _rows(out))
    return out + _grid([kinds["bare"][s] for s in order[full + named:]],
                            per["bare"], wide["bare"], rows - _rows(out))


def _grid(entries: list[Fragments], per_row: int, cell: int, rows: int) -> Fragments:
    """Entries in rows of ``per_row``, each padded to ``cell`` characters."""
    out: Fragments = []
    if not entries or rows <= 0:
        return out
    hidden_count = 0
    if len(entries) > per_row * rows:  # only far past 20 players at the minimum size
        hidden_count = len(entries) - (per_row * rows - 1)
        entries = entries[: per_row * rows - 1]
    for i in range(0, len(entries), per_row):
        row: Fragments = [("", " ")]
        for j, entry in enumerate(entries[i:i + per_row]):
            room = " " * (cell - cells(text_of(entry)))
            row += ([("", " " * GAP)] if j else []) + entry + [("", room)]
        if hidden_count and i + per_row >= len(entries):
            row.append(("class:dim", f"{' ' * GAP}+{hidden_count} more"))
        out += row + [("", "\n")]
    return out


def _entry(ctl: TableFacts, seat: int, p: dict[str, Any], full: bool,
           name_w: int = NAME_CELLS, named: bool = True) -> Fragments:
    """A player: mark and whole name in their colour, Pile count, Pile top; in full also
    the tops of their four columns; then ✓ when they voted stuck, OUT (★ when compact),
    or away (! when compact). Unnamed: the mark alone, when the names do not all fit."""
    status = ctl.seats[seat].get("status", "here") if seat < len(ctl.seats) else "here"
    name = short_name(ctl.name(seat), NAME_CELLS)
    out: Fragments = [owner_mark(seat)]
    if named:
        out += [("", " "), ("class:dim" if status != "here" else owner_ink(seat),
                            pad(name, name_w))]
    out.append(("", f"{p['pile']:>3}"))
    out += card4(code_card(p["pile_top"]))
    if full:
        out.append(("class:dim", " │"))
        for col in p["columns"]:
            out += card4(code_card(col[-1]) if col else None)
    if p["out"]:
        return out + [("class:good", " OUT" if full else "★")]
    if status != "here":
        return out + [("class:away", f" {status}" if full else "!")]
    if p["voted"]:
        return out + [("class:good", " ✓" if full else "✓")]
    return out + [("class:good", "  " if full else " ")]


# your own cards -------------------------------------------------------------------------


def mine_rows(ctl: TableFacts, me: dict[str, Any], german: bool, width: int,
              lit: set[str], voted_here: bool) -> Fragments:
    """Your head line (split in two when narrow) and your Line of 4 (one row in German)."""
    seat = ctl.client.seat or 0
    pile, waste = code_card(me["pile_top"]), code_card(me.get("waste_top"))
    so_far = running_score(me, german)  # RG-6: a penalty, the cards left in the Pile
    tally: Fragments = [("", f"penalty {so_far}" if german else f"score {signed(so_far)}")]
    if me["voted"]:
        tally.append(("class:good", _voted_words(voted_here, width)))
    if ctl.client.pending:
        tally.append(("class:dim", f"  ({len(ctl.client.pending)} on the way)"))
    head: Fragments = []
    for words in (True, False):  # with words if they fit; else shorter; else two rows
        cards: Fragments = [("class:me", " You "), owner_mark(seat), ("", "  "),
                            ("class:key", "p"), ("", " Pile" if words else "")]
        cards += card4(pile, lit="pile" in lit) + \
            [("", f" {me['pile']} left   " if words else f" {me['pile']}  ")]
        cards += [("class:key", "w"), ("", " waste" if words else "")]
        cards += card4(waste, lit="waste" in lit) + \
            [("", f" ({me['waste']})   Pack {me['pack']}   " if words else
              f" ({me['waste']})  Pack {me['pack']}  ")]
        if len(text_of(cards + tally)) <= width:
            head = line(cards, tally)
            break
    if not head:
        head = line(cards) + line(("", "      "), tally)
    return head + (_line_of_4(me, width, lit) if german else
                   _columns(me, width, lit))


def _voted_words(voted_here: bool, width: int) -> str:
    """This seat voted stuck — or the table voted for it while it was away (RD-13)."""
    if voted_here:
        return "  stuck ✓"
    if width >= 80:
        return "  stuck ✓ (the table voted for you while you were away)"
    return "  stuck ✓ (voted by the table: away)"


def _columns(me: dict[str, Any], width: int, lit: set[str]) -> Fragments:
    room = max(1, (width - 6) // card_cells())
    out: Fragments = []
    for i, col in enumerate(me["columns"]):
        shown = col[-room:] if len(col) <= room else col[-(room - 1):]
        cards: Fragments = []
        for j, code in enumerate(shown):
            top = j == len(shown) - 1
            cards += card4(code_card(code), lit=top and COLUMN_NAMES[i] in lit)
        more = f" +{len(col) - len(shown)}" if len(col) > len(shown) else ""
        out += line(("class:key", f"   {i + 1}"), ("class:dim", more), cards)
    return out


def _line_of_4(me: dict[str, Any], width: int, lit: set[str]) -> Fragments:
    """RG-4: no laddering, so each column is one card and the Line fits on one row."""
    out: Fragments = [("", " ")]
    for i, col in enumerate(me["columns"]):
        out += [("class:key", f"  {i + 1}")]
        out += card4(code_card(col[-1]) if col else None,
                     lit=COLUMN_NAMES[i] in lit)
    return line(out)


def split_names(count: int, per: dict[str, int], rows: int) -> tuple[int, int]:
    """How many of ``count`` players are shown in full and how many compact with their
    names in ``rows`` rows (``per``: entries a row of each kind holds); the rest by their
    mark alone. As many names as fit, then as many in full as fit."""
    def needs(full: int, named: int) -> int:
        bare = count - full - named
        return (-(-full // per["full"]) if full else 0) + -(-named // per["named"]) + \
            -(-bare // per["bare"])
    for names in range(count, -1, -1):
        for full in range(names if per["full"] else 0, -1, -1):
            if needs(full, names - full) <= rows:
                return full, names - full
    return 0, 0


def _rows(frags: Fragments) -> int:
    return sum(text.count("\n") for _, text in frags)
