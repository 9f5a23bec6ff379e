"""Baseline Racing Demon bots (both variants), deciding from the seat's legal moves alone.

The greedy order is the one a beginner is taught: a card to a stack first (the Pile top before
a column top, a column top before the waste), then whatever empties the Pile, then laddering
from the waste, and only then turn the Pack.

**No idle column move**, at every level: RD-13 counts a card moved between columns
as a play — it clears every stuck vote and restarts the minute (docs/rules.md) — so a bot that
shuffles cards between its own columns keeps a blocked person waiting for ever. The rule is
kept; every Racing Demon bot here (:class:`DemonBot`) just makes no column move that a person
could not use: none that puts back the run its previous column move moved, onto the card it
came off (:meth:`ColumnMemory.undoes`), and no part of a column moved onto another unless the
card it uncovers goes to a stack now — and not to a stack it was just beaten to (RD-11). A
whole column moved is always of use: RD-8 refills its place from the Pile.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lan_demon.bots.base import Strategy, Turn
from lan_demon.games.cards import Card
from lan_demon.games.demon_moves import COLUMN_NAMES, Play, TurnPack

_DEMON_GAMES = ("racing-demon", "racing-demon-german")


def column_move(move: Any) -> bool:
    """A play of a run from one of the player's columns onto another."""
    return isinstance(move, Play) and move.source in COLUMN_NAMES and move.target in COLUMN_NAMES


def pointless(move: Any, turn: Turn) -> bool:
    """A column-to-column run that leaves its source column standing (no Pile card moves)."""
    if not column_move(move):
        return False
    column = turn.view["players"][turn.seat]["columns"][COLUMN_NAMES.index(move.source)]
    return move.count < len(column)


@dataclass(frozen=True)
class ColumnMove:
    """A run a bot moved between its columns: from where, to where, the cards (bottom to top)
    and the card they lay on before (None: the column's bottom)."""

    source: str
    target: str
    cards: tuple[Card, ...]
    under: Card | None

    @classmethod
    def of(cls, move: Any, columns: list[list[Card]]) -> ColumnMove | None:
        """``move`` as a column move seen on ``columns``; None for any other move."""
        if not column_move(move):
            return None
        column = columns[COLUMN_NAMES.index(move.source)]
        if move.count > len(column):
            return None
        under = column[-move.count - 1] if move.count < len(column) else None
        return cls(move.source, move.target, tuple(column[-move.count:]), under)


class ColumnMemory:
    """The bot's last column-to-column move, so that the next never puts it back."""

    def __init__(self) -> None:
        self.last: ColumnMove | None = None

    def reset(self) -> None:
        self.last = None

    def undoes(self, move: Any, columns: list[list[Card]]) -> bool:
        """Whether ``move`` puts the run of the last column move back where it came from, onto
        the card it lay on: the position before it, played twice for nothing (RD-13)."""
        last, now = self.last, ColumnMove.of(move, columns)
        if last is None or now is None:
            return False
        if (now.source, now.target, now.cards) != (last.target, last.source, last.cards):
            return False
        target = columns[COLUMN_NAMES.index(now.target)]
        return (target[-1] if target else None) == last.under

    def chose(self, move: Any, columns: list[list[Card]]) -> None:
        """Remember ``move`` if it is a column move (a Pack turned or a card played elsewhere
        keeps the memory: a put-back later is as idle)."""
        seen = ColumnMove.of(move, columns)
        if seen is not None:
            self.last = seen


Beaten = set[tuple[str, Card | None, Card | None]]  # (stack, my card, its top) lost (RD-11)


def idle_column_move(move: Any, sight: Sight, memory: ColumnMemory,
                     beaten: Beaten | None = None) -> bool:
    """Whether ``move`` is a column move no player could use (RD-13 would count it as a play):
    it undoes the bot's last column move, or it moves part of a column onto another and the
    card it uncovers goes to no stack now (or only to one this bot was just beaten to, RD-11).
    A whole column moved is of use (RD-8: a Pile card takes its place); a card from the Pile
    or the waste onto a column brings the next one into play."""
    if not column_move(move):
        return False
    if memory.undoes(move, sight.columns):
        return True
    column = sight.columns[COLUMN_NAMES.index(move.source)]
    if move.count >= len(column):
        return False
    uncovered = column[-move.count - 1]
    stacks = sight.stacks_taking(uncovered)
    beaten = beaten or set()
    return not any((sid, uncovered, sight.stacks.get(sid)) not in beaten for sid in stacks) \
        and uncovered.rank != 1


class DemonBot(Strategy):
    """A Racing Demon bot that makes no idle column move (see the module's words): its
    ``choose`` picks among :meth:`useful` moves only and remembers its column moves."""

    games = _DEMON_GAMES

    def __init__(self) -> None:
        self.columns = ColumnMemory()

    def reset(self) -> None:
        self.columns.reset()

    def beaten_stacks(self) -> Beaten:
        """The (stack, card, top) this bot was beaten to and has not seen change (RD-11)."""
        return set()

    def useful(self, turn: Turn, sight: Sight | None = None) -> list[Any]:
        """The legal moves without the idle column moves."""
        legal = turn.legal
        if not any(column_move(m) for m in legal):
            return legal
        sight = sight or Sight.read(turn)
        beaten = self.beaten_stacks()
        return [m for m in legal if not idle_column_move(m, sight, self.columns, beaten)]

    def remember(self, move: Any, turn: Turn) -> Any:
        """Note ``move`` (chosen on ``turn``) if it moves a run between columns; return it."""
        if column_move(move):
            self.columns.chose(move, Sight.read(turn).columns)
        return move


def rank_move(move: Any, column_sizes: list[int]) -> int:
    """Lower is better; 99 means "never"."""
    if isinstance(move, Play):
        to_stack = move.target not in COLUMN_NAMES
        if to_stack:
            return {"pile": 0, "waste": 2}.get(move.source, 1)
        if move.source == "pile":
            return 3
        if move.source in COLUMN_NAMES:
            whole = move.count == column_sizes[COLUMN_NAMES.index(move.source)]
            return 4 if whole else 99
        return 5  # waste onto a column
    if isinstance(move, TurnPack):
        return 6
    return 99  # stuck votes: turning the Pack through says the same, and RD-13 counts it


class GreedyDemon(DemonBot):
    """Stack first, then what empties the Pile, then ladder, then turn the Pack."""

    name = "greedy"

    def choose(self, turn: Turn) -> Any | None:
        legal = self.useful(turn)
        if not legal:
            return None
        sizes = [len(c) for c in turn.view["players"][turn.seat]["columns"]] if any(
            column_move(m) for m in legal) else [0] * len(COLUMN_NAMES)
        best = min(legal, key=lambda m: rank_move(m, sizes))
        return None if rank_move(best, sizes) == 99 else self.remember(best, turn)


class RandomDemon(DemonBot):
    """Any legal move at random, but never a pointless column-to-column shuffle (see above)."""

    name = "random"

    def choose(self, turn: Turn) -> Any | None:
        legal = [m for m in self.useful(turn) if not pointless(m, turn)]
        return self.remember(turn.rng.choice(legal), turn) if legal else None


# --------------------------------------------------------------------------------- strong bot


def _key(card: Card, german: bool) -> Any:
    """What a stack must want for ``card`` to go on it (RD-5; RG-3: the rank alone)."""
    return card.rank if german else (card.rank, card.suit)


def _next_key(card: Card, german: bool) -> Any:
    """What a stack wants once ``card`` is on it."""
    return card.rank + 1 if german else (card.rank + 1, card.suit)


def _fits_column(card: Card, top: Card) -> bool:
    """RD-7: a column builds down in rank, alternating colour."""
    return card.rank == top.rank - 1 and card.red != top.red


@dataclass
class Sight:
    """What one seat sees, read once per look from its redacted view (never the raw table)."""

    german: bool
    pile: int
    pile_top: Card | None
    columns: list[list[Card]]
    waste_top: Card | None
    stacks: dict[str, Card]  # "s7" -> its top card
    rival_keys: set[Any]  # stack keys of the other players' visible Pile and column tops

    @classmethod
    def read(cls, turn: Turn) -> Sight:
        view = turn.view
        german = view["game"] == "racing-demon-german"
        card = Card.from_data
        rival_keys: set[Any] = set()
        for i, p in enumerate(view["players"]):
            if i != turn.seat and not p["out"]:
                tops = [col[-1] for col in p["columns"] if col] + [p["pile_top"]] * bool(
                    p["pile_top"])
                rival_keys.update(_key(card(t), german) for t in tops)
        me = view["players"][turn.seat]
        return cls(german=german, pile=me["pile"],
                   pile_top=card(me["pile_top"]) if me["pile_top"] else None,
                   columns=[[card(c) for c in col] for col in me["columns"]],
                   waste_top=card(me["waste_top"]) if me.get("waste_top") else None,
                   stacks={f"s{st['id']}": card(st["top"]) for st in view["stacks"]},
                   rival_keys=rival_keys)

    def card_at(self, source: str) -> Card | None:
        if source == "pile":
            return self.pile_top
        if source == "waste":
            return self.waste_top
        col = self.columns[COLUMN_NAMES.index(source)]
        return col[-1] if col else None

    def takes(self, card: Card) -> bool:
        """Whether a stack would take ``card`` now (RD-5; an ace founds its own)."""
        if card.rank == 1:
            return True
        key = _key(card, self.german)
        return any(_next_key(top, self.german) == key for top in self.stacks.values())

    def stacks_taking(self, card: Card) -> list[str]:
        """The stacks (``s7``) that would take ``card`` now (RD-5; RG-3: the rank alone)."""
        key = _key(card, self.german)
        return [sid for sid, top in self.stacks.items() if _next_key(top, self.german) == key]

    def cards_below(self, card: Card) -> int:
        """How many cards a stack still needs before it takes ``card``: from the highest stack of
        its suit below it (RD-5; RG-3: of any suit), or from the ace when there is none."""
        need = card.rank - 1
        for top in self.stacks.values():
            if top.rank < card.rank and (self.german or top.suit == card.suit):
                need = min(need, card.rank - top.rank - 1)
        return need

    def own_keys(self) -> set[Any]:
        """Stack keys of my playable cards: column tops, Pile top, waste top."""
        tops = [col[-1] for col in self.columns if col] + [self.pile_top, self.waste_top]
        return {_key(c, self.german) for c in tops if c is not None}


class StrongDemon(DemonBot):
    """Plays to empty its Pile first, and races for the stacks it can win.

    Every legal move gets a value (``W``) from what it frees and what it risks, read from the
    seat's own view. A Pile card on a stack is worth the most (+1 stacked and one less in the
    Pile, RD-14); a column card that empties its column nearly as much, since RD-8 refills it
    from the Pile. A card another player could put on the same stack goes first (RD-11: only the
    first counts), and so does one my own next card can follow at once — the others have not
    noticed the new top yet. Column to column it moves a whole column, freeing a place for the
    Pile, or digs: a partial run goes over only when the card it uncovers can go to a stack now
    (else it frees nothing, see :func:`pointless`). The Pile top onto a column and a whole column
    onto another (each one card off the Pile, RD-7, RD-8) go before any other stack play that
    no rival is racing for: they shorten the Pile now, and a stack play nobody races can wait a
    look. The waste is laddered where the Pile top can follow it, or onto columns that will not
    clear soon anyway: a lone base that a stack of its suit is at most ``NEAR`` cards from
    taking is left bare, as the stack will take it and RD-8 refill it (a lone base far from its
    stack is laddered on: digging the waste shows new cards, which pays more). In the German
    variant a waste card lowers no Pile (RG-6) and helps three rivals for one, so it goes up
    only when one of the bot's own cards follows it. After its card was beaten to a stack it
    does not send it there again until it sees that stack change; among equal stacks it takes
    the one that changed last, which the others are least likely to be aiming at. The Pack is
    turned when nothing else is worth a move; it never votes stuck, as turning through says the
    same (RD-13).

    The weights were measured against three greedy bots in the simulator (``lan-demon arena``,
    see docs/bots.md); each rule of thumb above was kept only if it won more rounds.
    """

    name = "demon"

    W: dict[str, float] = {
        "pile_stack": 100, "pile_col": 97, "col_move": 97, "col_clear_stack": 96,
        "col_stack": 95, "waste_stack": 90, "waste_col_for_pile": 75, "waste_col": 60,
        "dig": 50, "turn": 10, "waste_col_bury": 5, "german_waste_idle": 5, "beaten": 1,
        "race": 12, "chain": 3, "fresh": 0.5,
    }
    NEAR = 3  # a lone column base this few cards above its suit's stack will go up soon

    def __init__(self) -> None:
        super().__init__()
        self._tried: tuple[str, str, Card | None, Card | None] | None = None
        self._beaten: set[tuple[str, Card | None, Card | None]] = set()

    def reset(self) -> None:
        super().reset()
        self._tried = None
        self._beaten = set()

    def beaten_stacks(self) -> Beaten:
        return self._beaten

    def choose(self, turn: Turn) -> Any | None:
        if not turn.legal:
            return None
        sight = Sight.read(turn)
        self._remember_beaten(sight)
        legal = turn.legal
        useful = set(self.useful(turn, sight))  # (i stays the place in legal: "fresh" reads it)
        w = self.W
        best, best_value = None, 0.0
        for i, move in enumerate(legal):
            if move not in useful:
                continue
            value = self.value(move, sight)
            if value > 0 and isinstance(move, Play) and move.target.startswith("s"):
                seen = (move.target, sight.card_at(move.source), sight.stacks.get(move.target))
                if seen in self._beaten:
                    value = w["beaten"]
                else:  # the legal list names the stacks in the order they came to want it
                    value += w["fresh"] * i / len(legal)
            if value > best_value:
                best, best_value = move, value
        self._tried = None
        if isinstance(best, Play) and best.target.startswith("s"):
            self._tried = (best.source, best.target, sight.card_at(best.source),
                           sight.stacks.get(best.target))
        if best is not None:
            self.columns.chose(best, sight.columns)
        return best

    def _remember_beaten(self, sight: Sight) -> None:
        """RD-11: my last card is still where it was, so someone beat me to that stack."""
        if self._tried is not None:
            source, target, card, top = self._tried
            if sight.card_at(source) == card:
                self._beaten.add((target, card, top))

    def value(self, move: Any, sight: Sight) -> float:
        """How much ``move`` is worth now; 0 or less means "not this"."""
        if isinstance(move, TurnPack):
            return self.W["turn"]
        if not isinstance(move, Play):
            return 0.0  # a stuck vote
        card = sight.card_at(move.source)
        if card is None:
            return 0.0
        if move.target in COLUMN_NAMES:
            return self._ladder_value(move, card, sight)
        return self._stack_value(move, card, sight)

    def _stack_value(self, move: Play, card: Card, sight: Sight) -> float:
        w = self.W
        src = move.source
        if src in COLUMN_NAMES:
            lone = len(sight.columns[COLUMN_NAMES.index(src)]) == 1
            value = w["col_clear_stack"] if lone or sight.german else w["col_stack"]
        else:
            value = w["pile_stack"] if src == "pile" else w["waste_stack"]
        if _key(card, sight.german) in sight.rival_keys:
            value += w["race"]
        if _next_key(card, sight.german) in sight.own_keys():
            value += w["chain"]
        elif src == "waste" and sight.german:
            value = w["german_waste_idle"]
        return value

    def _ladder_value(self, move: Play, card: Card, sight: Sight) -> float:
        w = self.W
        src = move.source
        if src == "pile":
            return w["pile_col"]
        if src in COLUMN_NAMES:  # a whole column, which RD-8 refills from the Pile, or a dig
            column = sight.columns[COLUMN_NAMES.index(src)]
            if move.count == len(column):
                return w["col_move"] if sight.pile else 0.0
            return w["dig"] if sight.takes(column[-move.count - 1]) else 0.0
        if sight.pile_top is not None and _fits_column(sight.pile_top, card):
            return w["waste_col_for_pile"]
        col = sight.columns[COLUMN_NAMES.index(move.target)]
        if len(col) == 1 and sight.cards_below(col[0]) <= self.NEAR:
            return w["waste_col_bury"]
        return w["waste_col"]
