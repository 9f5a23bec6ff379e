"""Racing Demon (RD-1 … RD-17) and its German variant (RG-1 … RG-7).

Everybody plays at once, so there are no turns: any seat still in the round may move at any
moment, and the order in which moves reach :meth:`RacingDemon.apply` *is* the order of play.
Who was first when two cards meet (RD-11) is settled before that, by whoever calls ``apply``
(the arbiter, or the simulator's clock); the engine then refuses the late card and says why.

Around the engine, in modules named after what they hold: the moves and their parsing
(:mod:`.demon_moves`), the table as data — plain data, copies, redaction, views
(:mod:`.demon_table`), the Pack and RD-13's stuck table (:mod:`.demon_stuck`), the scores and
handicaps (:mod:`.demon_scoring`), how stacks build (:mod:`.demon_stacks`), how columns build
(:mod:`.demon_ladders`). One method,
:meth:`RacingDemon.to_middle`, resolves where a "to the middle" play goes, for ``apply``, the
mirror's ``replay`` (a client's redacted copy kept in step) and ``destination`` alike.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

from lan_demon.games.base import BadConfig, BadMove, Game, IllegalMove, Match, RoundResult
from lan_demon.games.cards import Card
from lan_demon.games.demon_ladders import check_ladder, ladder_moves
from lan_demon.games.demon_moves import (COLUMN_NAMES, PLACE, CallOut, Move, Play,
                                         Timeout, TurnPack, VoteStuck, move_from_data,
                                         parse_move)
from lan_demon.games.demon_scoring import handicap_setup, score_round
from lan_demon.games.demon_stacks import card_key, next_key
from lan_demon.games.demon_stuck import (empty_pack, out_refusal, over_refusal, timeout, turn_pack,
                                         vote_stuck, voted_already)
from lan_demon.games.demon_table import (DemonSeat, DemonState, Stack, cards_in_play, conceal,
                                         copy_table, deal_table, redacted_data, reveal_tops,
                                         table_from_data, table_to_data, table_view)

CLASSIC_PILE = 13  # RD-3
GERMAN_PILE = 11  # RG-2
#: :meth:`RacingDemon.to_middle`'s answer when no stack takes the card (stack ids start at 1).
NOWHERE = 0


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
        return handicap_setup(match, self.german)

    def match_over(self, match: Match) -> bool:
        return False  # RD-17: the host sets how many rounds (Match.rounds_wanted)

    def winners(self, match: Match) -> list[int]:
        best = (min if self.german else max)(match.totals)
        return [i for i, t in enumerate(match.totals) if t == best]

    # --- deal ------------------------------------------------------------------------------

    def deal(self, setup: dict[str, Any], rng: random.Random) -> DemonState:
        """RD-3 (:func:`~lan_demon.games.demon_table.deal_table`); RD-16: a Pile of 0 is out."""
        return deal_table(setup["pile_sizes"], rng, self.german)

    # --- reading the table -----------------------------------------------------------------

    def to_move(self, state: DemonState) -> list[int]:
        if state.over:
            return []
        return [i for i, s in enumerate(state.seats) if not s.out]

    def round_over(self, state: DemonState) -> bool:
        return state.over

    def _key(self, card: Card) -> Any:
        return card_key(card, self.german)

    def _next_key(self, top: Card) -> Any:
        return next_key(top, self.german)

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
            moves.extend(ladder_moves(me, sources))
        if me.pack or me.waste:
            moves.append(TurnPack())
        if not me.voted:
            moves.append(VoteStuck())
        return moves

    def view(self, state: DemonState, seat: int | None) -> dict[str, Any]:
        """The table as ``seat`` sees it (:func:`~lan_demon.games.demon_table.table_view`)."""
        return table_view(state, seat, self.id)

    # --- applying a move -------------------------------------------------------------------

    def apply(self, state: DemonState, seat: int, move: Move) -> list[dict[str, Any]]:
        kind = type(move)  # (final types, compared: every client applies every move)
        if kind is Timeout:
            return timeout(state, seat)
        if not 0 <= seat < len(state.seats):
            raise BadMove(f"there is no seat {seat} at this table")
        if kind is CallOut:
            raise out_refusal(state, seat)
        if state.over:
            raise over_refusal(state, move)
        if kind is TurnPack:
            return turn_pack(state, seat, self.turn_size, self.german)
        if kind is Play:
            return self._play(state, seat, move)
        if kind is VoteStuck:
            return vote_stuck(state, seat)
        raise BadMove(f"not a Racing Demon move: {move!r}")

    def check(self, state: DemonState, seat: int, move: Move) -> None:
        """What :meth:`apply` would refuse, found by the same checks without a copy (a client
        checks every move it plays, the arbiter every move that comes after its round's end);
        anything but a play, a turn or a vote goes the long way."""
        if state.over and 0 <= seat < len(state.seats) and \
                not isinstance(move, (Timeout, CallOut)):
            raise over_refusal(state, move)  # (RD-12, RD-13: apply's first word on it)
        if not state.over and 0 <= seat < len(state.seats):
            me = state.seats[seat]
            if isinstance(move, Play):
                cards = self._source_cards(me, move)
                if move.target in COLUMN_NAMES:
                    check_ladder(me, move, cards, self.german)
                else:
                    self._check_stack(state, move, cards)
                return
            if isinstance(move, TurnPack):
                if not me.pack and not me.waste:
                    raise empty_pack(self.german)
                return
            if isinstance(move, VoteStuck):
                if me.voted:
                    raise voted_already()
                return
        super().check(state, seat, move)

    def _source_cards(self, me: DemonSeat, move: Play) -> list[Card]:
        """The card(s) a move takes, checked against RD-10 (only top cards may be touched)."""
        src, n = move.source, move.count
        if n < 1:
            raise BadMove(f"a move carries at least one card, not {n}")
        if src in ("pile", "waste"):
            cards = me.pile if src == "pile" else me.waste
            if not cards:
                raise IllegalMove(self._empty_rule(src), f"your {src} is empty", move)
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

    def _empty_rule(self, source: str) -> str:
        """The rule that says a Pile (RD-3) or a waste (RD-9, RG-5) may be empty."""
        if source == "pile":
            return "RD-3"
        return "RG-5" if self.german else "RD-9"

    def _play(self, state: DemonState, seat: int, move: Play,
              placed: str | None = None) -> list[dict[str, Any]]:
        me = state.seats[seat]
        cards = self._source_cards(me, move)
        if move.target in COLUMN_NAMES:
            check_ladder(me, move, cards, self.german)
            sid = None
        else:
            sid = self._check_stack(state, move, cards, placed)
        return self._commit(state, seat, move, cards, sid)

    def _check_stack(self, state: DemonState, move: Play, cards: list[Card],
                     placed: str | None = None) -> int | None:
        """The stack a card goes to (None: it founds a new one), or the rule it breaks."""
        if len(cards) != 1:
            raise IllegalMove("RD-10", "only one card at a time goes to a stack", move)
        card = cards[0]
        if move.target == "middle":
            sid = self.to_middle(state, card, move, placed)
            if sid == NOWHERE:
                raise IllegalMove("RG-3" if self.german else "RD-5",
                                  f"no stack in the middle takes {card.symbol}", move)
            return sid
        if not PLACE.match(move.target) or not move.target.startswith("s"):
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

    def to_middle(self, state: DemonState, card: Card, move: Play,
                  placed: str | None = None) -> int | None:
        """Where ``card``, played "to the middle" by ``move``, goes: the one place that decides
        it, for :meth:`apply`, the mirror's :meth:`replay` and :meth:`destination`. None: it
        founds a new stack (an ace); :data:`NOWHERE` when no stack takes it (RD-5, RG-3); else
        the first stack that takes it. A mirror replaying a committed play passes ``placed``, the
        stack the table chose (the play event's ``to``): its copy of the table may list stacks
        that want the same card in another order, so that stack is the answer whenever the copy
        has it (a copy that has it and on which the card does not go on it refuses the play, as
        a play to that stack would be refused)."""
        if placed is not None and placed[:1] == "s" and int(placed[1:]) in state.stacks:
            sid = int(placed[1:])
            if sid in state.wants.get(self._key(card), ()):
                return sid
            return self._check_stack(state, Play(move.source, placed, move.count), [card])
        if card.rank == 1:
            return None
        fits = state.wants.get(self._key(card))
        return fits[0] if fits else NOWHERE

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
        source_list = me.cards_at(src)
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
            state.over = True
            state.ended = "out"
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

    # --- what travels to one seat ----------------------------------------------------------

    def copy_state(self, state: DemonState) -> DemonState:
        """An independent copy: every list is new, the (immutable) cards are shared."""
        return copy_table(state, None, redacted=False)

    def redact(self, state: DemonState, seat: int | None) -> DemonState:
        """The table as ``seat`` may know it (``None``: a spectator): the Packs, the Pile cards
        under each top and the waste cards under each top become placeholders ``??@owner``; a
        waste top stays only for its owner (it is not public until played). Columns, Pile tops,
        stacks, claimed Kings and every count stay as they are."""
        return copy_table(state, seat, redacted=True)

    redacted_data = staticmethod(redacted_data)  # every seat's copy from one redaction

    def replay(self, mirror: DemonState, seat: int, move: Move,
               events: list[dict[str, Any]]) -> None:
        """Play a committed move on a redacted table. A waste top being played is revealed by
        the play event's ``cards``; afterwards the new Pile top comes from the ``pile`` event
        and, for the mover's own table, the new waste top from the event's ``private`` part.
        Cards that went face down (a waste turned back into the Pack, a waste card now under
        another) become placeholders again."""
        play = next((e for e in events if e.get("e") == "play"), None)
        rotated = any(e.get("e") == "rotate" for e in events)
        is_play = isinstance(move, Play)
        seated = 0 <= seat < len(mirror.seats)
        top = mirror.seats[seat].waste[-1:] if seated else []
        knew_top = bool(top) and not top[0].hidden
        placed = None
        if is_play and play is not None:
            me = mirror.seats[seat]
            if move.source == "waste" and me.waste and me.waste[-1].hidden:
                me.waste[-1] = Card.from_data(play["cards"][0])
            placed = play.get("to")  # a "to the middle" card goes where the table put it
        if placed is not None and not mirror.over and seated:
            self._play(mirror, seat, move, placed)  # as apply plays it, on the table's stack
        else:
            self.apply(mirror, seat, move)
        if rotated:
            face_down: Iterable[int] = range(len(mirror.seats))
        elif knew_top and not is_play:
            # a turn may put a known waste top (ours) under; a play turns no card face down
            face_down = [seat]
        else:
            face_down = []
        conceal(mirror, face_down)
        reveal_tops(mirror, events)

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
            sid = self.to_middle(state, card, move)
            return f"s{sid}" if sid else None  # None (a new stack) and NOWHERE alike
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
        return score_round(state, self.german)

    # --- plain data ------------------------------------------------------------------------

    # The text and wire forms live with the moves (:mod:`.demon_moves`), the table's with the
    # table (:mod:`.demon_table`); bound here as they are, with no call in between (every
    # client parses every move).
    parse_move = staticmethod(parse_move)
    move_from_data = staticmethod(move_from_data)
    state_to_data = staticmethod(table_to_data)
    cards_in_play = staticmethod(cards_in_play)

    def state_from_data(self, data: dict[str, Any]) -> DemonState:
        return table_from_data(data, self._next_key)
