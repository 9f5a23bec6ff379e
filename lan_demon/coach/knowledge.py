"""The table as one seat knows it, and what a move would free there.

:func:`known_table` rebuilds an engine table from a seat's *view* (never from the real table):
every card the view does not show — the Pile under its top, the Pack, the waste under its top,
other seats' waste tops, the stack cards under each top — is a face-down placeholder. The
engine's own rules then say what is legal there, and the strong bot's own choices
(:func:`lan_demon.bots.registry.strongest`) say how a player would go on from a move.

:func:`pile_freed` is the measure behind "the move that would have saved most Pile": the Pile
cards that leave the seat's Pile when the move is made and the strong bot then plays on, on
this seat's cards alone, for as long as it plays cards it can see (it stops at a Pack turn, a
stuck vote, or when it wants nothing). A Pile card leaves by being played (RD-7, RD-5) or by
refilling an emptied column (RD-8); a placeholder Pile top is never playable, so the count
never depends on a card the seat could not see.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from lan_demon.bots.base import Strategy, Turn
from lan_demon.bots.registry import make_strategy, strongest
from lan_demon.games import GameError, get_game
from lan_demon.games.cards import Card
from lan_demon.games.demon_moves import COLUMN_NAMES, Play

CHAIN = 6  # moves the bot plays on after the move itself: a Pile frees within a few


def known_table(view: dict[str, Any]) -> Any:
    """The engine table a seat's view describes, every unseen card a placeholder. The other
    seats keep only their face-up tops (a Pile top, the top of each column): nothing of theirs
    bears on this seat's moves, and the strong bot reads no more of them."""
    seat = view["seat"]
    seats = []
    for i, p in enumerate(view["players"]):
        blank = f"??@{i}"
        if i == seat:
            pile = [blank] * max(0, p["pile"] - 1) + ([p["pile_top"]] if p["pile_top"] else [])
            top = p.get("waste_top")
            waste = [blank] * max(0, p["waste"] - (top is not None)) + ([top] if top else [])
            columns, pack = [list(c) for c in p["columns"]], [blank] * p["pack"]
        else:
            pile = [p["pile_top"]] if p["pile_top"] else []
            waste, columns, pack = [], [c[-1:] for c in p["columns"]], []
        seats.append({"pile": pile, "columns": columns, "pack": pack, "waste": waste,
                      "pile_size": p["pile"], "stacked": p["stacked"], "kings": p["kings"],
                      "out": p["out"], "voted": p["voted"], "turned": 0})
    stacks = [{"id": st["id"], "cards": ["??"] * (st["size"] - 1) + [st["top"]]}
              for st in view["stacks"]]
    data = {"german": view["game"] == "racing-demon-german", "seats": seats,
            "stacks": stacks, "next_stack": 1 + max((st["id"] for st in stacks), default=0),
            "claimed": [], "kings_cards": [], "over": view["over"], "ended": view["ended"],
            "rotations": view.get("rotations", 0), "plays": 0}
    return get_game(view["game"]).state_from_data(data)


def source_cards(me: Any, source: str) -> list[Card]:
    """The cards one seat's source holds: its Pile, its waste or one of its columns."""
    if source == "pile":
        return me.pile
    if source == "waste":
        return me.waste
    return me.columns[COLUMN_NAMES.index(source)]


def card_at(state: Any, seat: int, source: str) -> Card | None:
    """The card a source shows (the Pile top, the waste top, a column's top), or None."""
    cards = source_cards(state.seats[seat], source)
    return cards[-1] if cards and not cards[-1].hidden else None


def moved(state: Any, seat: int, move: Play) -> Card | None:
    """The card a play moves: its source's top, or the base of a run moved from a column."""
    if move.count == 1 or move.source not in COLUMN_NAMES:
        return card_at(state, seat, move.source)
    column = state.seats[seat].columns[COLUMN_NAMES.index(move.source)]
    card = column[-move.count] if len(column) >= move.count else None
    return card if card is not None and not card.hidden else None


@dataclass(frozen=True)
class Freed:
    """What a move frees: ``pile`` cards out of the Pile; ``how`` the first step that moved a
    Pile card, in words ("it comes off your Pile", "it empties column 2 for your Pile
    (RD-8)", "then your Pile top Q♠ can follow it"), empty when none did."""

    pile: int
    how: str = ""
    card: str | None = None  # the card ``how`` names (the Pile top that follows), if any


def strong_bot(game_id: str) -> Strategy:
    """The strongest strategy of the game, fresh (it remembers nothing of any round)."""
    return make_strategy(game_id, strongest(game_id))


def pile_freed(game: Any, state: Any, seat: int, move: Play, bot: Strategy) -> Freed:
    """The Pile cards ``move`` frees on the seat's known table: by itself, and by the plays
    it opens — a play that was not possible before it (a card, and the card it goes on) —
    played on by the strong bot, which picks among those only: so a play that was there
    anyway counts for itself, not for the move before it (see the module's text)."""
    table = game.copy_state(state)
    before = _plays(game, table, seat)
    start = len(table.seats[seat].pile)
    top = card_at(table, seat, "pile")
    try:
        game.apply(table, seat, move)
    except GameError:
        return Freed(0)
    how, named = _how(table, seat, start, move, top, first=True), None
    bot.reset()
    rng = random.Random(0)  # the strong bot is deterministic; a Turn needs one all the same
    for _ in range(CHAIN):
        if table.over or not table.seats[seat].pile:
            break
        opened = [m for m, key in _keyed(game, table, seat) if key not in before]
        if not opened:
            break
        # the bot picks among the plays the move opened only: a turn that keeps just those
        step = bot.choose(Turn(game, table, seat, rng, keep=lambda m: m in opened))
        if not isinstance(step, Play):
            break  # a Pack turn or a stuck vote shows cards the seat does not know yet
        left, top = len(table.seats[seat].pile), card_at(table, seat, "pile")
        try:
            game.apply(table, seat, step)
        except GameError:
            break
        if not how:
            how = _how(table, seat, left, step, top, first=False)
            named = top.to_data() if how and step.source == "pile" and top else None
    return Freed(start - len(table.seats[seat].pile), how, named)


def _plays(game: Any, table: Any, seat: int) -> set[tuple[Any, ...]]:
    return {key for _, key in _keyed(game, table, seat)}


def _keyed(game: Any, table: Any, seat: int) -> list[tuple[Play, tuple[Any, ...]]]:
    """The seat's legal plays, each with what makes it this play: the card, how many, and
    what it goes on (a new stack, a stack's top, a column's top)."""
    found = []
    for move in game.legal_moves(table, seat):
        if not isinstance(move, Play):
            continue
        cards = source_cards(table.seats[seat], move.source)
        base = cards[-move.count] if len(cards) >= move.count else None
        if move.target == "middle":
            onto: Any = "middle"
        elif move.target in COLUMN_NAMES:
            onto = table.seats[seat].columns[COLUMN_NAMES.index(move.target)][-1]
        else:
            onto = table.stacks[int(move.target[1:])].cards[-1]
        found.append((move, (base, move.count, onto)))
    return found


def _how(table: Any, seat: int, before: int, move: Play, top: Card | None,
         first: bool) -> str:
    """The words for a step that took a card out of the Pile, or ""."""
    if len(table.seats[seat].pile) >= before:
        return ""
    if move.source == "pile":
        if first:
            return "it comes off your Pile"
        return f"then your Pile top {top.symbol} can follow it" if top else \
            "then your Pile top can follow it"
    column = move.source[1:] if move.source in COLUMN_NAMES else "?"
    rule = "RG-4" if table.german else "RD-8"  # who refills an emptied place, by variant
    return f"it empties column {column} for your Pile ({rule})" if first else \
        f"then column {column} empties for your Pile ({rule})"
