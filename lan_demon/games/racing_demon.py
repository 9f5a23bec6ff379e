"""Racing Demon (RD-1 … RD-17) and its German variant (RG-1 … RG-7).

Everybody plays at once, so there are no turns: any seat still in the round may move at any
moment, and the order in which moves reach :meth:`RacingDemon.apply` *is* the order of play.
Who was first when two cards meet (RD-11) is settled before that, by whoever calls ``apply``
(the arbiter, or the simulator's clock); the engine then refuses the late card and says why.

Places are named with short strings that read like the table:

* sources: ``pile``, ``waste``, ``c1`` … ``c4`` (the columns of the Line of 4);
* targets: ``middle`` (a new stack for an ace, else any stack that takes the card), ``s7``
  (stack 7: ids are never reused, so a target stays meaningful while moves are in flight),
  ``c1`` … ``c4``.

A move from a column may carry a ``count`` to move a run of its top cards (RD-7).

Over the network each client keeps a *redacted* copy of the table (:meth:`RacingDemon.redact`):
every face-down card — the Packs, the Pile cards under each top, the waste cards under each top,
and the other players' waste tops (not public until played) — is a placeholder ``??@owner``.
:meth:`RacingDemon.replay` keeps such a copy in step from the events of each committed move.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from typing import Any

from lan_demon.games.base import (TABLE, BadConfig, BadMove, Game, IllegalMove, Match,
                                  RoundResult)
from lan_demon.games.cards import Card, full_pack, hidden

COLUMNS = 4
MAX_PILE = 48  # RD-15: a Pile never goes above 48, so a Line of 4 can always be dealt
CLASSIC_PILE = 13  # RD-3
GERMAN_PILE = 11  # RG-2
MAX_ROTATIONS = 3  # RD-13
COLUMN_NAMES = tuple(f"c{i + 1}" for i in range(COLUMNS))


# --------------------------------------------------------------------------------- moves


@dataclass(frozen=True, slots=True)
class Play:
    """Play a card (or, column to column, a run of ``count`` cards) from a source to a target."""

    source: str
    target: str
    count: int = 1

    def to_data(self) -> dict[str, Any]:
        data: dict[str, Any] = {"t": "play", "from": self.source, "to": self.target}
        if self.count != 1:
            data["n"] = self.count
        return data

    def __str__(self) -> str:
        src = self.source if self.count == 1 else f"{self.source}:{self.count}"
        return f"{src} {self.target}"


@dataclass(frozen=True, slots=True)
class TurnPack:
    """Turn the Pack: three cards (one in the German variant) onto the waste (RD-9, RG-5)."""

    def to_data(self) -> dict[str, Any]:
        return {"t": "turn"}

    def __str__(self) -> str:
        return "turn"


@dataclass(frozen=True, slots=True)
class VoteStuck:
    """Say "I'm stuck" (RD-13). Cleared as soon as anyone plays a card."""

    def to_data(self) -> dict[str, Any]:
        return {"t": "stuck"}

    def __str__(self) -> str:
        return "stuck"


@dataclass(frozen=True, slots=True)
class CallOut:
    """Shout OUT (RD-12). The engine calls it itself the moment a Pile empties, so a call by hand
    only ever meets a refusal that explains why (the Pile is not empty, or someone was first)."""

    def to_data(self) -> dict[str, Any]:
        return {"t": "out"}

    def __str__(self) -> str:
        return "out"


@dataclass(frozen=True, slots=True)
class Timeout:
    """The table's own move: 60 seconds passed with no card played (RD-13). Seat TABLE only."""

    def to_data(self) -> dict[str, Any]:
        return {"t": "timeout"}

    def __str__(self) -> str:
        return "timeout"


Move = Play | TurnPack | VoteStuck | CallOut | Timeout
_SIMPLE_MOVES = {"turn": TurnPack(), "stuck": VoteStuck(), "out": CallOut(), "timeout": Timeout()}
_PLACE = re.compile(r"^(pile|waste|c[1-4]|middle|s\d+)$")
_PLAYS: dict[tuple[str, str, int], Play] = {}  # wire form -> move, for the plays parsed so far


# --------------------------------------------------------------------------------- state


@dataclass
class DemonSeat:
    """One player's cards. Every list has its top card last."""

    pile: list[Card]
    columns: list[list[Card]]
    pack: list[Card]
    waste: list[Card] = field(default_factory=list)
    pile_size: int = 0
    stacked: int = 0  # own cards on stacks or in claimed Kings (RD-14)
    kings: int = 0
    out: bool = False
    voted: bool = False
    turned: int = 0  # cards turned since the last play anywhere (RD-13)

    def stock(self) -> int:
        return len(self.pack) + len(self.waste)

    def cycled(self) -> bool:
        """Turned through the whole Pack since the last play (RD-13); true with no Pack at all."""
        return self.turned >= self.stock()


@dataclass
class Stack:
    id: int
    cards: list[Card]


@dataclass
class DemonState:
    german: bool
    seats: list[DemonSeat]
    stacks: dict[int, Stack] = field(default_factory=dict)
    next_stack: int = 1
    claimed: dict[int, int] = field(default_factory=dict)  # stack id -> seat that claimed it
    kings_cards: list[list[Card]] = field(default_factory=list)
    over: bool = False
    ended: str = ""  # "out" or "stuck" once over
    rotations: int = 0  # RD-13 rotations in a row with no play
    plays: int = 0
    wants: dict[Any, list[int]] = field(default_factory=dict)  # next card -> stack ids


# --------------------------------------------------------------------------------- engine


class RacingDemon(Game):
    """Both variants; ``german=True`` applies RG-1 … RG-7 on top of the RD rules."""

    simultaneous = True
    races = True

    def __init__(self, german: bool = False):
        self.german = german
        self.id = "racing-demon-german" if german else "racing-demon"
        self.title = "Racing Demon (German)" if german else "Racing Demon"
        self.min_players = 2 if german else 1
        self.max_players = 8 if german else 100
        self.players_rule = "RG-1" if german else "RD-1"
        self._stacks_rule = "RG-3" if german else "RD-5"  # how stacks start and build
        self.lower_is_better = german
        self.base_pile = GERMAN_PILE if german else CLASSIC_PILE
        self.turn_size = 1 if german else 3

    # --- match -----------------------------------------------------------------------------

    def default_options(self) -> dict[str, Any]:
        """RD-15 handicapping: on by default in the classic game; off in the German variant,
        whose Pile stays 11 from deal to deal unless the host turns it on (RG-2)."""
        return {"handicap": not self.german}

    def default_rounds(self) -> int:
        return 5

    def check_rounds(self, rounds: int) -> None:
        if self.german and not 5 <= rounds <= 10:
            raise BadConfig(f"RG-7: a German Racing Demon match is 5 to 10 deals, not {rounds}")
        super().check_rounds(rounds)

    def first_setup(self, players: int, options: dict[str, Any]) -> dict[str, Any]:
        handicap = options.get("handicap", self.default_options()["handicap"])
        return {"pile_sizes": [self.base_pile] * players, "handicap": bool(handicap)}

    def next_setup(self, match: Match) -> dict[str, Any]:
        """RD-15: move each Pile size by the last round's and the running standings."""
        setup = match.setup
        if not setup["handicap"]:
            return setup
        n = len(match.players)
        sign = -1 if self.german else 1  # German scores are penalties: lower is better
        game = [sign * s for s in match.rounds[-1].scores]
        steps = [0] * n
        _adjust(steps, game)
        if len(match.rounds) > 1:
            _adjust(steps, [sign * t for t in match.totals])
        sizes = [min(MAX_PILE, max(0, p + d)) for p, d in zip(setup["pile_sizes"], steps)]
        return {"pile_sizes": sizes, "handicap": True}

    def match_over(self, match: Match) -> bool:
        return False  # RD-17: the host sets how many rounds (Match.rounds_wanted)

    def winners(self, match: Match) -> list[int]:
        best = (min if self.german else max)(match.totals)
        return [i for i, t in enumerate(match.totals) if t == best]

    # --- deal ------------------------------------------------------------------------------

    def deal(self, setup: dict[str, Any], rng: random.Random) -> DemonState:
        """RD-3: from each own shuffled pack, the Pile, then the Line of 4; the rest is the Pack.

        RD-16: a player dealt a Pile of 0 is out at Go, so such a round is over as it starts.
        """
        seats = []
        for owner, size in enumerate(setup["pile_sizes"]):
            pack = full_pack(owner)
            rng.shuffle(pack)
            pile = pack[len(pack) - size:]
            del pack[len(pack) - size:]
            columns = [[pack.pop()] for _ in range(COLUMNS)]
            seats.append(DemonSeat(pile=pile, columns=columns, pack=pack, pile_size=size))
        state = DemonState(german=self.german, seats=seats)
        zero = [s for s in seats if not s.pile]
        if zero:
            for seat in zero:
                seat.out = True
            state.over, state.ended = True, "out"
        return state

    # --- reading the table -----------------------------------------------------------------

    def to_move(self, state: DemonState) -> list[int]:
        if state.over:
            return []
        return [i for i, s in enumerate(state.seats) if not s.out]

    def round_over(self, state: DemonState) -> bool:
        return state.over

    def _key(self, card: Card) -> Any:
        return card.rank if self.german else (card.rank, card.suit)

    def _next_key(self, top: Card) -> Any:
        return top.rank + 1 if self.german else (top.rank + 1, top.suit)

    def legal_moves(self, state: DemonState, seat: int) -> list[Move]:
        if state.over or not 0 <= seat < len(state.seats) or state.seats[seat].out:
            return []
        me = state.seats[seat]
        moves: list[Move] = []
        sources = [(name, col[-1]) for name, col in zip(COLUMN_NAMES, me.columns)]
        if me.pile and not me.pile[-1].hidden:  # a redacted table may not know the card yet
            sources.append(("pile", me.pile[-1]))
        if me.waste and not me.waste[-1].hidden:
            sources.append(("waste", me.waste[-1]))
        wants = state.wants
        for name, card in sources:
            if card.rank == 1:
                moves.append(Play(name, "middle"))
            else:
                for sid in wants.get(self._key(card), ()):
                    moves.append(Play(name, f"s{sid}"))
        if not self.german:
            moves.extend(self._ladders(me, sources))
        if me.pack or me.waste:
            moves.append(TurnPack())
        if not me.voted:
            moves.append(VoteStuck())
        return moves

    def _ladders(self, me: DemonSeat, sources: list[tuple[str, Card]]) -> list[Move]:
        """RD-7: pile or waste top onto a column, or a run of one column onto another."""
        moves: list[Move] = []
        for j, target in enumerate(me.columns):
            top = target[-1]
            for name, card in sources[COLUMNS:]:
                if card.rank == top.rank - 1 and card.red != top.red:
                    moves.append(Play(name, COLUMN_NAMES[j]))
            for i, col in enumerate(me.columns):
                if i == j:
                    continue
                n = top.rank - col[-1].rank
                if 1 <= n <= len(col) and col[-n].red != top.red:
                    moves.append(Play(COLUMN_NAMES[i], COLUMN_NAMES[j], n))
        return moves

    def view(self, state: DemonState, seat: int | None) -> dict[str, Any]:
        """The table as ``seat`` sees it. Face-down cards (Packs, Pile cards under the top) are
        absent; a waste top is shown to its owner only, as it is not public until played."""
        players = []
        for i, s in enumerate(state.seats):
            entry: dict[str, Any] = {
                "pile": len(s.pile),
                "pile_top": s.pile[-1].to_data() if s.pile else None,
                "columns": [[c.to_data() for c in col] for col in s.columns],
                "pack": len(s.pack),
                "waste": len(s.waste),
                "stacked": s.stacked,
                "kings": s.kings,
                "out": s.out,
                "voted": s.voted,
            }
            if i == seat:
                entry["waste_top"] = s.waste[-1].to_data() if s.waste else None
                entry["cycled"] = s.cycled()
            players.append(entry)
        return {
            "game": self.id,
            "seat": seat,
            "over": state.over,
            "ended": state.ended,
            "stacks": [{"id": st.id, "top": st.cards[-1].to_data(), "size": len(st.cards)}
                       for st in state.stacks.values()],
            "players": players,
            "rotations": state.rotations,
        }

    # --- applying a move -------------------------------------------------------------------

    def apply(self, state: DemonState, seat: int, move: Move) -> list[dict[str, Any]]:
        if isinstance(move, Timeout):
            return self._timeout(state, seat)
        if not 0 <= seat < len(state.seats):
            raise BadMove(f"there is no seat {seat} at this table")
        if isinstance(move, CallOut):
            raise self._out_refusal(state, seat)
        if state.over:
            raise self._over_refusal(state, move)
        if isinstance(move, Play):
            return self._play(state, seat, move)
        if isinstance(move, TurnPack):
            return self._turn(state, seat)
        if isinstance(move, VoteStuck):
            return self._vote(state, seat)
        raise BadMove(f"not a Racing Demon move: {move!r}")

    def check(self, state: DemonState, seat: int, move: Move) -> None:
        """What :meth:`apply` would refuse, found by the same checks without a copy (a client
        checks every move it plays); anything but a play, a turn or a vote goes the long way."""
        if not state.over and 0 <= seat < len(state.seats):
            me = state.seats[seat]
            if isinstance(move, Play):
                cards = self._source_cards(me, move)
                if move.target in COLUMN_NAMES:
                    self._check_ladder(me, move, cards)
                else:
                    self._check_stack(state, move, cards)
                return
            if isinstance(move, TurnPack):
                if not me.pack and not me.waste:
                    raise _empty_pack(self.german)
                return
            if isinstance(move, VoteStuck):
                if me.voted:
                    raise _voted_already()
                return
        super().check(state, seat, move)

    def _over_refusal(self, state: DemonState, move: Move) -> IllegalMove:
        if state.ended == "stuck":
            return IllegalMove("RD-13", "the round is over: the table was stuck", move)
        who = ", ".join(f"seat {i}" for i, s in enumerate(state.seats) if s.out)
        return IllegalMove("RD-12", f"the round is over: {who} went out; nothing is played "
                           "after OUT", move)

    def _out_refusal(self, state: DemonState, seat: int) -> IllegalMove:
        if state.over:
            if state.seats[seat].out:
                return IllegalMove("RD-12", "you are already out; OUT counts once", CallOut())
            return self._over_refusal(state, CallOut())
        left = len(state.seats[seat].pile)
        return IllegalMove("RD-12", f"you still have {left} card{'s' * (left != 1)} in your Pile",
                           CallOut())

    def _source_cards(self, me: DemonSeat, move: Play) -> list[Card]:
        """The card(s) a move takes, checked against RD-10 (only top cards may be touched)."""
        src, n = move.source, move.count
        if n < 1:
            raise BadMove(f"a move carries at least one card, not {n}")
        if src in ("pile", "waste"):
            cards = me.pile if src == "pile" else me.waste
            if not cards:
                rule = ("RG-5" if self.german else "RD-9") if src == "waste" else "RD-3"
                raise IllegalMove(rule, f"your {src} is empty",
                                  move)
            if n != 1:
                raise IllegalMove("RD-10", f"only the top card of your {src} may be played",
                                  move)
            taken = [cards[-1]]
        else:
            if src not in COLUMN_NAMES:
                raise BadMove(f"unknown source {src!r}: use pile, waste or c1-c4")
            col = me.columns[COLUMN_NAMES.index(src)]
            if n > len(col):
                raise IllegalMove("RD-10", f"column {src[1]} holds only {len(col)} "
                                  f"card{'s' * (len(col) != 1)}, not a run of {n}", move)
            taken = col[-n:]
        if any(card.hidden for card in taken):  # a redacted table: no verdict on a blind card
            raise BadMove("that card is not known yet")
        return taken

    def _play(self, state: DemonState, seat: int, move: Play) -> list[dict[str, Any]]:
        me = state.seats[seat]
        cards = self._source_cards(me, move)
        if move.target in COLUMN_NAMES:
            self._check_ladder(me, move, cards)
            sid = None
        else:
            sid = self._check_stack(state, move, cards)
        return self._commit(state, seat, move, cards, sid)

    def _check_ladder(self, me: DemonSeat, move: Play, cards: list[Card]) -> None:
        if self.german:
            raise IllegalMove("RG-4", "no laddering in the German variant: cards go to the "
                              "stacks only", move)
        if move.target == move.source:
            raise IllegalMove("RD-7", "a run moves to another column, not onto itself", move)
        top = me.columns[COLUMN_NAMES.index(move.target)][-1]
        base = cards[0]
        if base.rank != top.rank - 1 or base.red == top.red:
            raise IllegalMove("RD-7", f"{base.symbol} does not go on {top.symbol}: columns "
                              "build down in rank, alternating red and black", move)

    def _check_stack(self, state: DemonState, move: Play, cards: list[Card]) -> int | None:
        """The stack a card goes to (None: it founds a new one), or the rule it breaks."""
        if len(cards) != 1:
            raise IllegalMove("RD-10", "only one card at a time goes to a stack", move)
        card = cards[0]
        if move.target == "middle":
            if card.rank == 1:
                return None
            fits = state.wants.get(self._key(card))
            if not fits:
                raise IllegalMove("RG-3" if self.german else "RD-5",
                                  f"no stack in the middle takes {card.symbol}", move)
            return fits[0]
        if not _PLACE.match(move.target) or not move.target.startswith("s"):
            raise BadMove(f"unknown target {move.target!r}: use middle, s<stack> or c1-c4")
        sid = int(move.target[1:])
        if card.rank == 1:
            raise IllegalMove(self._stacks_rule, f"an ace founds a new stack: play "
                              f"{card.symbol} to the middle", move)
        stack = state.stacks.get(sid)
        if stack is None:
            if sid in state.claimed:
                raise IllegalMove("RD-11", f"stack {sid} is gone: seat {state.claimed[sid]} "
                                  "claimed its King first", move)
            raise IllegalMove(self._stacks_rule, f"there is no stack {sid}", move)
        if sid not in state.wants.get(self._key(card), ()):
            return self._stack_refusal(stack, card, move)
        return sid

    def _stack_refusal(self, stack: Stack, card: Card, move: Play) -> int:
        top = stack.cards[-1]
        same_line = self.german or top.suit == card.suit
        if same_line and top.rank >= card.rank:
            raise IllegalMove("RD-11", f"stack {stack.id} already has {top.symbol}: seat "
                              f"{top.owner} got there first", move)
        if self.german:
            raise IllegalMove("RG-3", f"{card.symbol} does not go on {top.symbol}: stacks "
                              "build up in rank", move)
        raise IllegalMove("RD-5", f"{card.symbol} does not go on {top.symbol}: stacks build "
                          "up in the suit of their ace", move)

    def _commit(self, state: DemonState, seat: int, move: Play, cards: list[Card],
                sid: int | None) -> list[dict[str, Any]]:
        """Move the cards, refill (RD-8), claim a King (RD-6), call OUT (RD-12)."""
        me = state.seats[seat]
        src = move.source
        source_list = me.pile if src == "pile" else me.waste if src == "waste" else \
            me.columns[COLUMN_NAMES.index(src)]
        del source_list[-len(cards):]
        event: dict[str, Any] = {"e": "play", "seat": seat, "from": src,
                                 "cards": [c.to_data() for c in cards]}
        if src == "waste":  # the card now on top of the waste: its owner's only
            event["private"] = {"waste_top": me.waste[-1].to_data() if me.waste else None}
        events = [event]
        if move.target in COLUMN_NAMES:
            me.columns[COLUMN_NAMES.index(move.target)].extend(cards)
            event["to"] = move.target
        else:
            event["to"] = self._to_stack(state, cards[0], sid, events)
        if src in COLUMN_NAMES and not source_list and me.pile:
            source_list.append(me.pile.pop())
            events.append({"e": "refill", "seat": seat, "col": src,
                           "card": source_list[-1].to_data()})
        if src == "pile" or events[-1]["e"] == "refill":
            events.append({"e": "pile", "seat": seat, "size": len(me.pile),
                           "top": me.pile[-1].to_data() if me.pile else None})
        self._after_play(state)
        if not me.pile:
            me.out = True
            state.over, state.ended = True, "out"
            events.append({"e": "out", "seat": seat})
        return events

    def _to_stack(self, state: DemonState, card: Card, sid: int | None,
                  events: list[dict[str, Any]]) -> str:
        state.seats[card.owner].stacked += 1
        if sid is None:
            sid = state.next_stack
            state.next_stack += 1
            state.stacks[sid] = Stack(sid, [card])
        else:
            stack = state.stacks[sid]
            state.wants[self._key(card)].remove(sid)
            stack.cards.append(card)
        if card.rank == 13:
            stack = state.stacks.pop(sid)
            state.claimed[sid] = card.owner
            state.kings_cards.append(stack.cards)
            state.seats[card.owner].kings += 1
            events.append({"e": "king", "seat": card.owner, "stack": sid})
        else:
            state.wants.setdefault(self._next_key(card), []).append(sid)
        return f"s{sid}"

    def _after_play(self, state: DemonState) -> None:
        """Any card played to a stack or a column resets the RD-13 stuck counters."""
        state.plays += 1
        state.rotations = 0
        for s in state.seats:
            if s.voted or s.turned:  # (most seats have nothing to reset: skip the writes)
                s.voted = False
                s.turned = 0

    def _turn(self, state: DemonState, seat: int) -> list[dict[str, Any]]:
        """RD-9 / RG-5: turn three (or one); an empty Pack first takes the waste back, unshuffled."""
        me = state.seats[seat]
        if not me.pack and not me.waste:
            raise _empty_pack(self.german)
        events: list[dict[str, Any]] = []
        if not me.pack:
            me.pack = me.waste[::-1]
            me.waste = []
            events.append({"e": "recycle", "seat": seat})
        k = min(self.turn_size, len(me.pack))
        chunk = me.pack[-k:]
        del me.pack[-k:]
        me.waste.extend(reversed(chunk))
        me.turned += k
        events.append({"e": "turn", "seat": seat, "n": k, "pack": len(me.pack),
                       "waste": len(me.waste), "private": {"waste_top": me.waste[-1].to_data()}})
        return events + self._check_stuck(state)

    def _vote(self, state: DemonState, seat: int) -> list[dict[str, Any]]:
        me = state.seats[seat]
        if me.voted:
            raise _voted_already()
        me.voted = True
        return [{"e": "stuck", "seat": seat}] + self._check_stuck(state)

    def _timeout(self, state: DemonState, seat: int) -> list[dict[str, Any]]:
        if seat != TABLE:
            raise IllegalMove("RD-13", "only the table calls the 60-second timeout", Timeout())
        if state.over:
            raise self._over_refusal(state, Timeout())
        return self._rotate(state, "timeout")

    def _check_stuck(self, state: DemonState) -> list[dict[str, Any]]:
        """RD-13: stuck when everyone still in has voted or turned through their whole Pack."""
        for s in state.seats:
            if not s.out and not s.voted and not s.cycled():
                return []
        return self._rotate(state, "stuck")

    def _rotate(self, state: DemonState, why: str) -> list[dict[str, Any]]:
        """RD-13: waste back under the Pack, the Pack's top card to its bottom; after three in a
        row with no play the round ends with nobody out."""
        for s in state.seats:
            s.pack = s.waste[::-1] + s.pack
            s.waste = []
            if s.pack:
                s.pack.insert(0, s.pack.pop())
            s.voted = False
            s.turned = 0
        state.rotations += 1
        events: list[dict[str, Any]] = [{"e": "rotate", "why": why, "n": state.rotations}]
        if state.rotations >= MAX_ROTATIONS:
            state.over, state.ended = True, "stuck"
            events.append({"e": "stuck_end"})
        return events

    # --- what travels to one seat ----------------------------------------------------------

    def copy_state(self, state: DemonState) -> DemonState:
        """An independent copy: every list is new, the (immutable) cards are shared."""
        return self._copy(state, None, redacted=False)

    def redact(self, state: DemonState, seat: int | None) -> DemonState:
        """The table as ``seat`` may know it (``None``: a spectator): the Packs, the Pile cards
        under each top and the waste cards under each top become placeholders ``??@owner``; a
        waste top stays only for its owner (it is not public until played). Columns, Pile tops,
        stacks, claimed Kings and every count stay as they are."""
        return self._copy(state, seat, redacted=True)

    def redacted_data(self, state: DemonState, seats: list[int | None]) -> list[dict[str, Any]]:
        """Every seat's copy is the spectator's but for that seat's own waste top, so the
        table is redacted once (a deal goes to 50 seats at once; at Go every waste is empty,
        so one copy serves them all)."""
        public = self.state_to_data(self.redact(state, None))
        found = []
        for viewer in seats:
            if viewer is None or not 0 <= viewer < len(state.seats) or \
                    not state.seats[viewer].waste:
                found.append(public)
                continue
            data = dict(public)
            data["seats"] = list(public["seats"])
            mine = data["seats"][viewer] = dict(public["seats"][viewer])
            mine["waste"] = mine["waste"][:-1] + [state.seats[viewer].waste[-1].to_data()]
            found.append(data)
        return found

    @staticmethod
    def _copy(state: DemonState, viewer: int | None, redacted: bool) -> DemonState:
        # Built without the dataclasses' __init__ (attribute dicts copied, then the lists
        # replaced): a client copies the whole table on every move it plays.
        new = object.__new__
        seats = []
        for i, s in enumerate(state.seats):
            data = s.__dict__.copy()
            pile, pack, waste = s.pile, s.pack, s.waste
            if redacted:
                blank = hidden(i)
                data["pile"] = [blank] * (len(pile) - 1) + pile[-1:]
                data["pack"] = [blank] * len(pack)
                top = waste[-1:] if i == viewer else [blank] * bool(waste)
                data["waste"] = [blank] * (len(waste) - 1) + top
            else:
                data["pile"], data["pack"], data["waste"] = list(pile), list(pack), list(waste)
            data["columns"] = [list(c) for c in s.columns]
            seat = new(DemonSeat)
            seat.__dict__ = data
            seats.append(seat)
        stacks = {}
        for sid, st in state.stacks.items():
            stack = new(Stack)
            stack.__dict__ = {"id": st.id, "cards": list(st.cards)}
            stacks[sid] = stack
        return DemonState(
            german=state.german, seats=seats, stacks=stacks,
            next_stack=state.next_stack, claimed=dict(state.claimed),
            kings_cards=[list(k) for k in state.kings_cards], over=state.over,
            ended=state.ended, rotations=state.rotations, plays=state.plays,
            wants={key: list(sids) for key, sids in state.wants.items()})

    def replay(self, mirror: DemonState, seat: int, move: Move,
               events: list[dict[str, Any]]) -> None:
        """Play a committed move on a redacted table. A waste top being played is revealed by
        the play event's ``cards``; afterwards the new Pile top comes from the ``pile`` event
        and, for the mover's own table, the new waste top from the event's ``private`` part.
        Cards that went face down (a waste turned back into the Pack, a waste card now under
        another) become placeholders again."""
        play, rotated = None, False
        for e in events:
            kind = e.get("e")
            if kind == "play" and play is None:
                play = e
            elif kind == "rotate":
                rotated = True
        is_play = isinstance(move, Play)
        if is_play and play is not None:
            me = mirror.seats[seat]
            if move.source == "waste" and me.waste and me.waste[-1].hidden:
                me.waste[-1] = Card.from_data(play["cards"][0])
            to = play.get("to", move.target)
            if move.target == "middle" and to.startswith("s") and int(to[1:]) in mirror.stacks:
                move = Play(move.source, to, move.count)  # the stack the table chose
        self.apply(mirror, seat, move)
        if rotated:
            touched: Any = range(len(mirror.seats))
        elif is_play:  # a play turns no card face down: the Pack is not touched, and the
            touched = ()  # waste under its top was placeholders already
        else:
            touched = [seat] if 0 <= seat < len(mirror.seats) else []
        for i in touched:
            s = mirror.seats[i]
            blank = hidden(i)
            s.pack = [blank] * len(s.pack)
            s.waste[:-1] = [blank] * (len(s.waste) - 1)
        from_data = Card.from_data
        for e in events:
            private = e.get("private")
            if private and private.get("waste_top") is not None:
                waste = mirror.seats[e["seat"]].waste
                if waste:  # empty when the turn completed RD-13's rotation (waste to Pack)
                    waste[-1] = from_data(private["waste_top"])
            if e.get("e") == "pile" and e.get("top") is not None:
                mirror.seats[e["seat"]].pile[-1] = from_data(e["top"])

    def destination(self, state: DemonState, seat: int, move: Move) -> str | None:
        """The stack a play goes to now (``s7``), a "middle" play resolved as ``apply`` would;
        None for a new stack (an ace), a column, a turn or a vote."""
        if state.over or not isinstance(move, Play) or not 0 <= seat < len(state.seats):
            return None
        if move.target == "middle":
            try:
                card = self._source_cards(state.seats[seat], move)[0]
            except (IllegalMove, BadMove):
                return None
            fits = state.wants.get(self._key(card)) if card.rank != 1 else None
            return f"s{fits[0]}" if fits else None
        if move.target.startswith("s") and move.target[1:].isdigit():
            return move.target
        return None

    def lost_to(self, state: DemonState, seat: int, move: Move, top: Card | None) -> bool:
        """RD-11: whether ``move``'s card would have gone on ``top`` (a stack's top before
        another seat's card took it) — its play lost a race rather than broke a rule."""
        if top is None or not isinstance(move, Play) or move.target in COLUMN_NAMES:
            return False
        try:
            cards = self._source_cards(state.seats[seat], move)
        except (IllegalMove, BadMove):
            return False
        return len(cards) == 1 and self._key(cards[0]) == self._next_key(top)

    def rivals(self, state: DemonState, seat: int, move: Move) -> list[int]:
        """RD-11: the other seats still in that have a visible top (Pile, waste, column) the
        stack ``move`` goes to would take right now. A new stack (an ace to the middle), a
        column, a turn or a vote has no rivals."""
        place = self.destination(state, seat, move)
        stack = state.stacks.get(int(place[1:])) if place else None
        if stack is None:
            return []
        wanted = self._next_key(stack.cards[-1])
        found = []
        for i, s in enumerate(state.seats):
            if i == seat or s.out:
                continue
            tops = [col[-1] for col in s.columns if col] + s.pile[-1:] + s.waste[-1:]
            if any(not c.hidden and self._key(c) == wanted for c in tops):
                found.append(i)
        return found

    # --- scoring ---------------------------------------------------------------------------

    def round_result(self, state: DemonState) -> RoundResult:
        """RD-14 (classic) or RG-6 (German penalties); RD-16 falls out of the same sums."""
        scores, detail = [], []
        for s in state.seats:
            left = len(s.pile)
            if self.german:
                scores.append(left)
                detail.append({"pile_size": s.pile_size, "pile_left": left, "out": s.out})
            else:
                scores.append(s.stacked + 5 * s.kings + 10 * s.out - left)
                detail.append({"pile_size": s.pile_size, "stacked": s.stacked, "kings": s.kings,
                               "out": s.out, "pile_left": left})
        return RoundResult(scores, detail)

    # --- plain data ------------------------------------------------------------------------

    def parse_move(self, text: str) -> Move:
        """``pile middle``, ``c2 s5``, ``c1:3 c4``, ``waste c2``, ``turn``, ``stuck``, ``out``."""
        words = text.strip().lower().split()
        if len(words) == 1 and words[0] in _SIMPLE_MOVES:
            return _SIMPLE_MOVES[words[0]]
        if len(words) != 2:
            raise BadMove(f"not a move: {text!r} (try 'pile middle', 'c2 s5', 'c1:2 c3', "
                          "'turn', 'stuck')")
        src, _, count = words[0].partition(":")
        if count and not count.isdigit():
            raise BadMove(f"not a move: {text!r} (a run is written like 'c1:2')")
        return self.move_from_data({"t": "play", "from": src, "to": words[1],
                                    "n": int(count) if count else 1})

    def move_from_data(self, data: Any) -> Move:
        if not isinstance(data, dict) or not isinstance(data.get("t"), str):
            raise BadMove(f"a move is a map with a type 't', not {data!r}")
        kind = data["t"]
        if kind in _SIMPLE_MOVES:
            return _SIMPLE_MOVES[kind]
        if kind != "play":
            raise BadMove(f"unknown move type {kind!r}")
        src, dst, n = data.get("from"), data.get("to"), data.get("n", 1)
        plain = type(src) is str and type(dst) is str and type(n) is int
        if plain:
            known = _PLAYS.get((src, dst, n))
            if known is not None:  # every client parses every move: the same few, over again
                return known
        if not isinstance(src, str) or src not in ("pile", "waste", *COLUMN_NAMES):
            raise BadMove(f"unknown source {src!r}: use pile, waste or c1-c4")
        if not isinstance(dst, str) or not _PLACE.match(dst) or dst in ("pile", "waste"):
            raise BadMove(f"unknown target {dst!r}: use middle, s<stack> or c1-c4")
        if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= 52:
            raise BadMove(f"a run has 1 to 52 cards, not {n!r}")
        move = Play(src, dst, n)
        if plain and len(_PLAYS) < 4096:
            _PLAYS[(src, dst, n)] = move  # moves are immutable: one object serves every parse
        return move

    def state_to_data(self, state: DemonState) -> dict[str, Any]:
        def cards(cs: list[Card]) -> list[str]:
            return [c.to_data() for c in cs]

        return {
            "german": state.german,
            "seats": [{
                "pile": cards(s.pile), "columns": [cards(c) for c in s.columns],
                "pack": cards(s.pack), "waste": cards(s.waste), "pile_size": s.pile_size,
                "stacked": s.stacked, "kings": s.kings, "out": s.out, "voted": s.voted,
                "turned": s.turned,
            } for s in state.seats],
            "stacks": [{"id": st.id, "cards": cards(st.cards)} for st in state.stacks.values()],
            "next_stack": state.next_stack,
            "claimed": [[sid, who] for sid, who in state.claimed.items()],
            "kings_cards": [cards(k) for k in state.kings_cards],
            "over": state.over, "ended": state.ended, "rotations": state.rotations,
            "plays": state.plays,
        }

    def state_from_data(self, data: dict[str, Any]) -> DemonState:
        from_data = Card.from_data

        def cards(cs: list[str]) -> list[Card]:
            return [from_data(c) for c in cs]

        seats = [DemonSeat(pile=cards(s["pile"]), columns=[cards(c) for c in s["columns"]],
                           pack=cards(s["pack"]), waste=cards(s["waste"]),
                           pile_size=s["pile_size"], stacked=s["stacked"], kings=s["kings"],
                           out=s["out"], voted=s["voted"], turned=s["turned"])
                 for s in data["seats"]]
        state = DemonState(german=data["german"], seats=seats, next_stack=data["next_stack"],
                           claimed={sid: who for sid, who in data["claimed"]},
                           kings_cards=[cards(k) for k in data["kings_cards"]],
                           over=data["over"], ended=data["ended"], rotations=data["rotations"],
                           plays=data["plays"])
        for st in data["stacks"]:
            stack = Stack(st["id"], cards(st["cards"]))
            state.stacks[stack.id] = stack
            state.wants.setdefault(self._next_key(stack.cards[-1]), []).append(stack.id)
        return state

    def cards_in_play(self, state: DemonState) -> list[Card]:
        every: list[Card] = []
        for s in state.seats:
            every += s.pile + s.pack + s.waste
            for col in s.columns:
                every += col
        for st in state.stacks.values():
            every += st.cards
        for k in state.kings_cards:
            every += k
        return every


def _empty_pack(german: bool = False) -> IllegalMove:
    """RD-9, or in the German variant RG-5 (its Pack rule, one card at a time)."""
    return IllegalMove("RG-5" if german else "RD-9", "your Pack and waste are both empty",
                       TurnPack())


def _voted_already() -> IllegalMove:
    return IllegalMove("RD-13", "you have already voted stuck", VoteStuck())


def _adjust(steps: list[int], scores: list[int]) -> None:
    """RD-15: +1 to the best of ``scores``, −1 to the worst; ties share the step."""
    best, worst = max(scores), min(scores)
    for i, s in enumerate(scores):
        steps[i] += (s == best) - (s == worst)
