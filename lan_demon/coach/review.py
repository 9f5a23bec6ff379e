"""What the coach says about one seat's round, as data and as a few lines of text.

Times are seconds since Go (RD-4). Every card the review names is kept as its wire code with
the time the seat saw it (:meth:`Review.named`), so a test can check each against what the
seat was shown at that time.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lan_demon.games.cards import Card
from lan_demon.seat.person import possessive

#: A card that could go somewhere for less than this is not a missed play: a person needs a
#: moment to see it and press the key (the speed profiles' reactions are ~0.3-1.5 s).
MISSED_AFTER = 2.0
SHOWN = 3  # missed plays and lost races written out; the rest are counted
NB = "\u00a0"  # between a figure and its unit, so that a wrapped line never parts them

#: What ended a missed play's wait, said after its seconds ("waited 7 s before you played it"): a
#: play made late is missed for as long as it waited, so the words say so, not "missed".
ENDINGS = {
    "played": "before you played it",
    "turned": "before you turned the Pack over it",
    "covered": "before you covered it",
    "taken": "before it no longer fitted",
    "end": "and still there at the end",
}


@dataclass(frozen=True)
class Missed:
    """A card of the seat's that could go to a stack (or, freeing a Pile card, to a column)
    from ``since`` for ``seconds``. ``card`` its code; ``source`` pile, waste or c1-c4;
    ``target`` where, in words ("the 6♥ stack", "a new stack", "column 3"), naming ``top``
    (the card it went on, when it is a card); ``ended`` a key of :data:`ENDINGS`; ``by`` who
    took the place (a name) when ``ended`` is "taken"; ``pile`` the Pile cards the move and
    the strong bot's play after it would have freed (:func:`~.knowledge.pile_freed`),
    ``how`` the first step that freed one (naming ``how_card``, when it names a card)."""

    card: str
    source: str
    target: str
    since: float
    seconds: float
    ended: str
    top: str | None = None
    by: str | None = None
    pile: int = 0
    how: str = ""
    how_card: str | None = None  # the card ``how`` names, if any
    run: int = 1  # a whole column moved by its base card: how many cards

    def words(self, at: bool = False) -> str:
        """``7♥ from column 2 to the 6♥ stack: waited 9 s before Ada took it`` ("waited", since
        "9 s before you played it" reads as a time, not a wait); ``at``: with the time it began,
        ``… to the 6♥ stack at 0:21: waited 9 s …`` (the same card missed twice)."""
        ending = ENDINGS.get(self.ended, self.ended)
        if self.ended == "taken" and self.by:
            ending = "before you put another card there" if self.by == "you" else \
                f"before {self.by} took it"
        when = f" at {clock(self.since)}" if at else ""
        return f"{self.what()} to {self.target}{when}: waited {self.seconds:.0f}{NB}s {ending}"

    def what(self) -> str:
        """``7♥ from column 2``; a whole column: ``9♠ and the 2 cards on it from column 3``."""
        if self.run == 1:
            on = ""
        elif self.run == 2:
            on = " and the card on it"
        else:
            on = f" and the {self.run - 1} cards on it"
        return f"{symbol(self.card)}{on} {place(self.source)}"


@dataclass(frozen=True)
class LostRace:
    """A card the seat sent that another seat's card beat to its stack (RD-11): ``by`` the
    winner's name, ``ms`` by how much (None: not known), ``top`` the stack's top card before
    the winner's card (None: not named). ``exact``: the arbiter's own figure (the screen's
    "beaten" message), not one worked out again from a journal."""

    at: float
    by: str
    ms: int | None
    top: str | None = None
    exact: bool = True

    def words(self) -> str:
        """``Ada beat you to the 4♦ stack by 12 ms``."""
        where = f"the {symbol(self.top)} stack" if self.top else "a stack"
        if self.ms is None:
            return f"{self.by} beat you to {where}"
        by = f"{self.ms}{NB}ms" if self.ms >= 1 else f"under 1{NB}ms"
        return f"{self.by} beat you to {where} by {'~' if not self.exact else ''}{by}"


@dataclass
class Review:
    """One seat's round: its missed plays (longest first), the races it lost (in order) and
    the best missed move (the most Pile freed, then the longest missed), with notes on what
    the source could not tell."""

    seat: str
    missed: list[Missed] = field(default_factory=list)
    races: list[LostRace] = field(default_factory=list)
    best: Missed | None = None
    notes: list[str] = field(default_factory=list)

    def lines(self, shown: int = SHOWN, whose: str | None = None,
              brief: bool = False) -> list[str]:
        """The review in a few lines of plain words (each may need wrapping): a head line
        ("Coach: Ann's round in review"; ``whose`` for "Ann's", e.g. "your"), the missed
        plays and the lost races (``shown`` of each written out), the best missed move, and
        the notes. ``brief`` (a screen short of rows): only the lines with something to say,
        or one line when there is nothing."""
        head = whose or possessive(self.seat, False)
        said = [self._missed_line(shown), self._races_line(shown), self._best_line()]
        if brief:
            said = [x for x, found in zip(said, (self.missed, self.races, self.best)) if found]
            if not said:
                return [f"Coach: {head} round — nothing missed, no race lost"] + self.notes
        return [f"Coach: {head} round in review"] + said + self.notes

    def _missed_line(self, shown: int) -> str:
        if not self.missed:
            return f"Plays missed or made late: none — every card that fitted went within " \
                f"{MISSED_AFTER:.0f}{NB}s"
        words = [m.words() for m in self.missed]  # a card missed twice alike: say when
        said = " · ".join(m.words(at=True) if words.count(w) > 1 else w
                          for m, w in zip(self.missed[:shown], words))
        more = f" · +{len(self.missed) - shown} more" if len(self.missed) > shown else ""
        return f"Plays missed or made late ({len(self.missed)}): {said}{more}"

    def _races_line(self, shown: int) -> str:
        if not self.races:
            return "Races lost: none"
        said = " · ".join(r.words() for r in self.races[:shown])
        more = f" · +{len(self.races) - shown} more" if len(self.races) > shown else ""
        return f"Races lost ({len(self.races)}): {said}{more}"

    def _best_line(self) -> str:
        best = self.best
        if best is None:
            return "Best missed move: none — no missed play would have freed a Pile card"
        cards = "a Pile card" if best.pile == 1 else f"{best.pile} Pile cards"
        return (f"Best missed move: at {clock(best.since)}, {best.what()} to {best.target} "
                f"— {best.how}: it would have freed "
                f"{cards}, and it waited {best.seconds:.0f}{NB}s")

    def named(self) -> list[tuple[float, str]]:
        """Every card the review names, with the time (since Go) it names it at."""
        found = []
        for m in self.missed + ([self.best] if self.best else []):
            found += [(m.since, m.card)] + ([(m.since, m.top)] if m.top else [])
            found += [(m.since, m.how_card)] if m.how_card else []
        found += [(r.at, r.top) for r in self.races if r.top]
        return found


def symbol(code: str) -> str:
    """A card's face for people (``7♥``), from its wire code (``7H@0``)."""
    return Card.from_data(code).symbol


def place(source: str) -> str:
    """``from your Pile``, ``from your waste``, ``from column 2``."""
    return {"pile": "from your Pile", "waste": "from your waste"}.get(
        source, f"from column {source[1:]}")


def clock(seconds: float) -> str:
    """``0:21``: minutes and seconds since Go."""
    whole = max(0, int(seconds))
    return f"{whole // 60}:{whole % 60:02d}"

