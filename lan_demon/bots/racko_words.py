"""The Rack-O planner's reasons in a player's words: the coach's sentences, kept apart from the
decision itself (``racko.PlannerRackO.advise``), which hands them plain numbers.

Each reason is said twice, since the numbers alone ("work left 1.50, against 1.51 on average
after a blind draw") are true and unreadable for a family: :class:`Said` holds what to do and
why in plain words ("Take the 23 from the Discard into slot 25: it fits between your 20 in slot
20 and your 31 in slot 30, which keeps your rack in order"), and the numbers behind it for those
who want them (the advice key pressed again on the terminal, "why? numbers" on the page).

Every number in a sentence is a card the seat can see (its rack, the Discard top, its drawn
card), a slot number (always written ``slot N``) or an estimate with two decimals: the plan's
*work left*, the planner's measure of how far a rack is from Rack-O (lower is nearer; 0 is a
rack in order). Estimates are in the numbers only.
"""

from __future__ import annotations

from dataclasses import dataclass

#: What the measure is, said in every sentence that shows it: the bare words mean nothing to a
#: player who has not read this module.
MEASURE = "work left: the planner's estimate of how far a rack is from Rack-O, lower is nearer"
#: How each source of a card is named in a sentence.
_SOURCE = {"discard": "Take the {card} from the Discard", "drawn": "Put the drawn {card}"}


@dataclass(frozen=True)
class Said:
    """A reason twice: ``plain`` what to do and why, for anyone; ``numbers`` the planner's
    figures behind it ("" when it has none to show)."""

    plain: str
    numbers: str = ""


@dataclass(frozen=True)
class Change:
    """One card put into one slot, as the words need it: where it comes from (``"discard"``
    or ``"drawn"``), the card, the slot (a printed number), the card it replaces, the nearest
    kept cards below and above it as ``(card, slot)`` (None at an end of the rack), and
    whether the rack is then in order."""

    source: str
    card: int
    slot: int
    replaced: int
    below: tuple[int, int] | None
    above: tuple[int, int] | None
    racko: bool


def _between(change: Change) -> str:
    """Where the card fits among the cards the plan keeps."""
    below = f"your {change.below[0]} in slot {change.below[1]}" if change.below else None
    above = f"your {change.above[0]} in slot {change.above[1]}" if change.above else None
    if below and above:
        return f"it fits between {below} and {above}"
    if below or above:
        return f"it fits {'above ' + below if below else 'below ' + str(above)}"
    return "it starts a run the rest of your rack can build on"


def put(change: Change, cost: float, other: float, against: str) -> Said:
    """Taking the Discard (``against="draw"``: beside a blind draw's mean) or placing the
    drawn card (``against="now"``: beside the rack as it is)."""
    head = _SOURCE[change.source].format(card=change.card) + \
        f" into slot {change.slot}, in place of the {change.replaced}"
    if change.racko:
        return Said(f"{head}: your rack is then in order — Rack-O!")
    why = "a better bet than a card from the Draw pile" if against == "draw" else \
        "your rack comes nearer Rack-O"
    plain = f"{head}: {_between(change)} — {why}"
    if f"{cost:.2f}" == f"{other:.2f}":  # the planner's test is "no more than" / "less than"
        compare = "no more than a blind draw leaves on average" if against == "draw" else \
            "slightly less than your rack as it is now"
        return Said(plain, f"work left {cost:.2f}, {compare} ({MEASURE})")
    compare = "on average after a blind draw" if against == "draw" else "as your rack is now"
    return Said(plain, f"work left {cost:.2f}, against {other:.2f} {compare} ({MEASURE})")


def draw_beats(top: int, slot: int, take_cost: float, draw_cost: float) -> Said:
    """The Discard would help, but a blind draw leaves less work on average (the planner
    draws only then): when the two print the same, the words say it is by a hair."""
    plain = (f"Draw from the Draw pile: the {top} on the Discard would help a little in slot "
             f"{slot}, but a card you cannot see yet is " +
             ("just as likely to help more" if f"{take_cost:.2f}" == f"{draw_cost:.2f}"
              else "likely to help more"))
    if f"{take_cost:.2f}" == f"{draw_cost:.2f}":
        return Said(plain, f"a blind draw leaves slightly less on average ({draw_cost:.2f} "
                           f"either way, to two decimals; {MEASURE})")
    return Said(plain, f"a blind draw leaves less on average: work left {draw_cost:.2f}, "
                       f"against {take_cost:.2f} with the {top} ({MEASURE})")


def top_useless(top: int) -> Said:
    return Said(f"Draw from the Draw pile: the {top} on the Discard brings your rack no nearer "
                "Rack-O in any slot")


def empty_discard() -> Said:
    return Said("Draw from the Draw pile: the Discard pile is empty")


def forced_take(top: int, slot: int) -> Said:
    """RK-8: nothing left to draw, so the Discard top must be taken somewhere."""
    return Said(f"Take the {top} from the Discard into slot {slot}: nothing is left to draw "
                "(RK-8), and that slot does your rack the least harm")


def discard_held(card: int) -> Said:
    return Said(f"Discard the drawn {card}: no slot brings your rack nearer Rack-O with it")
