"""The Racing Demon table as data: seats, stacks, the deal, plain data, copies, redaction, views.

Every list has its top card last. ``DemonState.wants`` indexes the stacks by the card each takes
next (the engine's key: rank and suit, or rank alone in the German variant), so a play to the
middle finds its stack without a search.

Over the network each client keeps a *redacted* copy of the table (:func:`copy_table` with
``redacted``): every face-down card — the Packs, the Pile cards under each top, the waste cards
under each top, and the other players' waste tops (not public until played) — is a placeholder
``??@owner``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from collections.abc import Iterable
from typing import Any, Callable

from lan_demon.games.cards import Card, full_pack, hidden
from lan_demon.games.deal import Shuffler
from lan_demon.games.demon_moves import COLUMN_NAMES, COLUMNS


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

    def cards_at(self, source: str) -> list[Card]:
        """The cards a source names: ``pile``, ``waste`` or a column ``c1`` … ``c4``."""
        if source == "pile":
            return self.pile
        if source == "waste":
            return self.waste
        return self.columns[COLUMN_NAMES.index(source)]

    def cycled(self) -> bool:
        """Turned through the whole Pack (and the waste it became) since the last play (RD-13);
        true with no Pack at all."""
        return self.turned >= len(self.pack) + len(self.waste)


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


def deal_table(pile_sizes: list[int], rng: Shuffler, german: bool) -> DemonState:
    """RD-3: from each own shuffled pack, the Pile, then the Line of 4; the rest is the Pack.

    RD-16: a player dealt a Pile of 0 is out at Go, so such a round is over as it starts.
    """
    seats = []
    for owner, size in enumerate(pile_sizes):
        pack = full_pack(owner)
        rng.shuffle(pack)
        pile = pack[len(pack) - size:]
        del pack[len(pack) - size:]
        columns = [[pack.pop()] for _ in range(COLUMNS)]
        seats.append(DemonSeat(pile=pile, columns=columns, pack=pack, pile_size=size))
    state = DemonState(german=german, seats=seats)
    zero = [s for s in seats if not s.pile]
    if zero:
        for seat in zero:
            seat.out = True
        state.over = True
        state.ended = "out"
    return state


def table_to_data(state: DemonState) -> dict[str, Any]:
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


def table_from_data(data: dict[str, Any], next_key: Callable[[Card], Any]) -> DemonState:
    """The table from its plain data; ``next_key`` says what card a stack wants next (its
    engine's rule), to rebuild the index of stacks by wanted card."""
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
        state.wants.setdefault(next_key(stack.cards[-1]), []).append(stack.id)
    return state


def copy_table(state: DemonState, viewer: int | None, redacted: bool) -> DemonState:
    """An independent copy of the table (every list new, the immutable cards shared); with
    ``redacted``, as ``viewer`` may know it (see :meth:`~lan_demon.games.racing_demon.RacingDemon.redact`)."""
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


def redacted_data(state: DemonState, seats: list[int | None]) -> list[dict[str, Any]]:
    """Every seat's copy is the spectator's but for that seat's own waste top, so the
    table is redacted once (a deal goes to 50 seats at once; at Go every waste is empty,
    so one copy serves them all)."""
    public = table_to_data(copy_table(state, None, redacted=True))
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


def conceal(mirror: DemonState, seats: Iterable[int]) -> None:
    """On a redacted table, turn ``seats``' Packs and the waste under each top face down again
    (placeholders ``??@owner``): cards a move put out of sight."""
    for i in seats:
        s = mirror.seats[i]
        blank = hidden(i)
        s.pack = [blank] * len(s.pack)
        s.waste[:-1] = [blank] * (len(s.waste) - 1)


def reveal_tops(mirror: DemonState, events: list[dict[str, Any]]) -> None:
    """On a redacted table, the tops a committed move's ``events`` show: a new waste top (its
    owner's only, from the event's ``private`` part) and a new Pile top (the ``pile`` event)."""
    for e in events:
        private = e.get("private")
        if private and private.get("waste_top") is not None:
            waste = mirror.seats[e["seat"]].waste
            if waste:  # empty when the turn completed RD-13's rotation (waste to Pack)
                waste[-1] = Card.from_data(private["waste_top"])
        if e.get("e") == "pile" and e.get("top") is not None:
            mirror.seats[e["seat"]].pile[-1] = Card.from_data(e["top"])


def cards_in_play(state: DemonState) -> list[Card]:
    """Every card of the round wherever it lies, hidden or not (for conservation checks)."""
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


def table_view(state: DemonState, seat: int | None, game_id: str) -> dict[str, Any]:
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
        "game": game_id,
        "seat": seat,
        "over": state.over,
        "ended": state.ended,
        "stacks": [{"id": st.id, "top": st.cards[-1].to_data(), "size": len(st.cards)}
                   for st in state.stacks.values()],
        "players": players,
        "rotations": state.rotations,
    }
