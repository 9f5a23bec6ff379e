"""The one engine interface every game speaks.

Four very different games — a real-time race with no turns (Racing Demon), a turn-based game
with hidden racks (Rack-O) and a solo game against the Joker (Gin Solitaire) — share this shape,
so that the arbiter, the clients, the bots and the terminal UI are written once.

The model follows OpenSpiel: a game object with no state of its own, a round *state* that is
plain mutable data, ``legal_moves``/``apply`` for play, ``view`` for what one seat may see, and
chance as a seed handed in. A *match* (a series of rounds with running totals) is kept by
:class:`Match`, which asks the game for round set-ups and for the end of the match.

Rules of the interface:

* ``apply`` validates the whole move before it touches anything, so an illegal move raises
  :class:`IllegalMove` and leaves the state exactly as it was.
* ``view`` leaves hidden cards *out*, it does not flag them: a view can be sent to its seat as is.
* States, moves, views and events convert to plain data (dicts, lists, str, int, bool) that
  msgpack and JSON can carry.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, ClassVar

from lan_demon.games.deal import DealRandom, Shuffler, round_secret, seed_secret

#: The seat number of moves the table itself makes (e.g. the RD-13 sixty-second timeout).
TABLE = -1

RULES_URL = "RULES.md"


class GameError(ValueError):
    """Base of every error a player or a bot author can cause; its text is meant for people."""


class IllegalMove(GameError):
    """A move the rules forbid now. Carries the rule id it breaks (``RD-7``)."""

    def __init__(self, rule: str, reason: str, move: Any = None):
        self.rule = rule
        self.reason = reason
        self.move = move
        super().__init__(f"{rule}: {reason}")

    def to_data(self) -> dict[str, Any]:
        return {"rule": self.rule, "reason": self.reason}


class BadMove(GameError):
    """A move that does not parse (unknown kind, missing field, bad card code)."""


def move_fields(data: dict[str, Any], allowed: frozenset[str] | set[str]) -> dict[str, Any]:
    """A move map as its game reads it (PROTOCOL.md §14–§16): a field whose value is nil is a
    field left out (§2), and a field its move does not have is a :class:`BadMove`. §2 asks a
    receiver to ignore fields it does not know in a *message*, whose fields inform; a move is an
    instruction, and a field the arbiter does not know may be one the sender meant to change the
    move (a misspelt ``"N": 2`` would move one card of a run of two): refused, it is said."""
    if None in data.values():
        data = {k: v for k, v in data.items() if v is not None}
    extra = data.keys() - allowed
    if extra:
        raise BadMove(f"a {data.get('t')!r} move has no field {', '.join(map(repr, sorted(extra)))}"
                      f" (its fields: {', '.join(sorted(allowed))})")
    return data


class BadConfig(GameError):
    """A match configuration the game does not allow (player count, option value)."""


def public_events(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Events as anyone may see them: each event's ``private`` part (a card only its mover may
    know, such as a freshly turned waste top) is left out."""
    public = []
    for e in events:  # (a copy less its private part keeps the key order, and is quicker)
        if "private" in e:
            e = e.copy()
            del e["private"]
        public.append(e)
    return public


@dataclass
class RoundResult:
    """The end of one round: points per side and the parts they are made of.

    ``scores[i]`` and ``detail[i]`` belong to side ``i`` of the match (see :meth:`Game.sides`).
    ``detail`` holds the parts of each score, so anyone can re-add it from the rule book.
    """

    scores: list[int]
    detail: list[dict[str, Any]]

    def to_data(self) -> dict[str, Any]:
        return {"scores": list(self.scores), "detail": [dict(d) for d in self.detail]}

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> RoundResult:
        return cls(list(data["scores"]), [dict(d) for d in data["detail"]])


def round_rng(seed: int | str, round_no: int) -> DealRandom:
    """The chance of one round of a seeded match: the spec'd shuffle (:mod:`.deal`) from the
    seed's secret and no nonces, so the same seed deals the same cards in any language."""
    return DealRandom(round_secret(seed_secret(seed, round_no), {}))


class Game(ABC):
    """A game's rules. Holds no state: every method takes the state it works on."""

    id: ClassVar[str]
    title: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    #: True when every seat may move at any moment (Racing Demon); False for turns.
    simultaneous: ClassVar[bool] = False
    #: True when seats race for shared places, so the order in which moves arrive decides who
    #: gets there (Racing Demon, RD-11). Gin Solitaire's duplicate seats move at once but never
    #: meet, so it is simultaneous without racing.
    races: ClassVar[bool] = False
    #: The rule that says when a seat moves: cited to a move made while no round is on.
    moves_rule: ClassVar[str] = "RD-4"
    #: True when the lowest total wins (German Racing Demon penalties).
    lower_is_better: ClassVar[bool] = False
    #: True when :meth:`public_move` may hide part of a move (Gin Solitaire's face-down
    #: discard, GS-3); False: every move is public as it is, and is not written out twice.
    hides_moves: ClassVar[bool] = False
    #: The rule id that sets who may take part (named in player-count errors).
    players_rule: ClassVar[str]

    # --- the match -------------------------------------------------------------------------

    def default_options(self) -> dict[str, Any]:
        """Options a host may change; every key is listed here with its default."""
        return {}

    def check_players(self, n: int) -> None:
        if not self.min_players <= n <= self.max_players:
            span = (f"{self.min_players}" if self.min_players == self.max_players
                    else f"{self.min_players} to {self.max_players}")
            raise BadConfig(f"{self.players_rule}: {self.title} is for {span} players, not {n}")

    def default_rounds(self) -> int | None:
        """Rounds in a match when the host names none (None: play to the game's own end)."""
        return None

    def check_rounds(self, rounds: int) -> None:
        """Refuse a round count the game does not allow (RG-7: 5 to 10 deals)."""
        if rounds < 1:
            raise BadConfig(f"a match needs at least one round, not {rounds}")

    def sides(self, players: list[str]) -> list[str]:
        """Who scores: the players, plus any side that is not a seat (Gin Solitaire's Joker)."""
        return list(players)

    @abstractmethod
    def first_setup(self, players: int, options: dict[str, Any]) -> dict[str, Any]:
        """The set-up of round 1 (e.g. every Pile size), as plain data."""

    def next_setup(self, match: Match) -> dict[str, Any]:
        """The set-up of the next round, from the match so far (RD-15 handicaps live here)."""
        return match.setup

    @abstractmethod
    def match_over(self, match: Match) -> bool:
        """True when the match has ended by its own rule (RK-7, GS-8, RG-7, …)."""

    @abstractmethod
    def winners(self, match: Match) -> list[int]:
        """The side indexes that won the match (ties share)."""

    # --- one round -------------------------------------------------------------------------

    @abstractmethod
    def deal(self, setup: dict[str, Any], rng: Shuffler) -> Any:
        """A fresh round state dealt from ``setup`` with ``rng.shuffle`` as the only chance
        (a :class:`~lan_demon.games.deal.DealRandom` at a table; any ``random.Random`` will do
        in a test)."""

    @abstractmethod
    def to_move(self, state: Any) -> list[int]:
        """The seats that may move now (every seat still playing in a simultaneous game)."""

    @abstractmethod
    def legal_moves(self, state: Any, seat: int) -> list[Any]:
        """Every move ``seat`` may make now, concrete (no "any place" targets)."""

    @abstractmethod
    def apply(self, state: Any, seat: int, move: Any) -> list[dict[str, Any]]:
        """Apply ``move`` by ``seat``; return the events it caused as plain data.

        Raises :class:`IllegalMove` naming the rule, with the state untouched.
        """

    def check(self, state: Any, seat: int, move: Any) -> None:
        """Raise what :meth:`apply` would raise for ``move`` now, and change nothing: a client
        checks a move before it sends it. A game may answer without copying the state."""
        self.apply(self.copy_state(state), seat, move)

    @abstractmethod
    def view(self, state: Any, seat: int | None) -> dict[str, Any]:
        """What ``seat`` may see (``None``: a spectator). Hidden cards are absent."""

    @abstractmethod
    def round_over(self, state: Any) -> bool:
        ...

    @abstractmethod
    def round_result(self, state: Any) -> RoundResult:
        """Scores of a finished round, with their parts."""

    # --- plain data ------------------------------------------------------------------------

    @abstractmethod
    def parse_move(self, text: str) -> Any:
        """A move from its text form (``pile s3``, ``take 25``, ``knock QS``); raises BadMove."""

    @abstractmethod
    def move_from_data(self, data: Any) -> Any:
        """A move from its wire form; raises BadMove."""

    @abstractmethod
    def state_to_data(self, state: Any) -> dict[str, Any]:
        ...

    @abstractmethod
    def state_from_data(self, data: dict[str, Any]) -> Any:
        ...

    def copy_state(self, state: Any) -> Any:
        """An independent copy (a client keeps one to roll back a refused move)."""
        return self.state_from_data(self.state_to_data(state))

    # --- what travels to one seat (the network's local engines) -------------------------------

    def redact(self, state: Any, seat: int | None) -> Any:
        """A copy of ``state`` in which every card ``seat`` may not see (``None``: a spectator)
        is replaced by a placeholder that tells nothing but what is public (its owner, where it
        lies). A client's local engine runs on such a state: ``legal_moves`` and ``apply`` work
        on it for the seat's own moves, and :meth:`replay` keeps it in step with the table."""
        raise NotImplementedError

    def redacted_data(self, state: Any, seats: list[int | None]) -> list[dict[str, Any]]:
        """``state_to_data(redact(state, s))`` for each of ``seats``, as a deal is sent to every
        seat at once; a game may share the work between seats whose copies are alike. The
        same dict may come back for several seats: read it, do not change it."""
        return [self.state_to_data(self.redact(state, s)) for s in seats]

    def replay(self, mirror: Any, seat: int, move: Any, events: list[dict[str, Any]]) -> None:
        """Apply a move the arbiter committed to a redacted state, filling in what the move
        revealed from ``events`` (public events; with their ``private`` parts when ``mirror``
        belongs to ``seat``). Afterwards ``mirror`` equals the redaction of the table."""
        raise NotImplementedError

    def public_move(self, move: Any) -> dict[str, Any]:
        """A committed move as everyone may read it. Most moves are public; a card laid face
        down (Gin Solitaire's discard, GS-3) is told to its mover alone."""
        return move.to_data()

    def destination(self, state: Any, seat: int, move: Any) -> str | None:
        """The shared place a move goes to now, if any (a Racing Demon stack, ``s7``)."""
        return None

    def rivals(self, state: Any, seat: int, move: Any) -> list[int]:
        """The other seats that could, right now, play a card to the place ``move`` goes to.
        The arbiter holds such a contested move for its fairness window (RD-11); a move with no
        rivals is committed at once. Games without races have none."""
        return []

    def cards_in_play(self, state: Any) -> list[Any]:
        """Every card of the round wherever it lies, hidden or not (for conservation checks)."""
        raise NotImplementedError


@dataclass
class Match:
    """A series of rounds with running totals, for any game.

    A seeded match deals round ``k`` from ``seed_secret(seed, k)``, so a seed replays the whole
    match on any machine; a table hands each round's secret in instead (commit and reveal).
    """

    game: Game
    players: list[str]
    seed: int | str
    options: dict[str, Any] = field(default_factory=dict)
    rounds_wanted: int | None = None
    rounds: list[RoundResult] = field(default_factory=list)
    setups: list[dict[str, Any]] = field(default_factory=list)
    totals: list[int] = field(default_factory=list)
    setup: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.game.check_players(len(self.players))
        merged = self.game.default_options()
        unknown = sorted(set(self.options) - set(merged))
        if unknown:
            raise BadConfig(f"{self.game.title} has no option {unknown[0]!r}; "
                            f"it has: {', '.join(sorted(merged)) or 'none'}")
        merged.update(self.options)
        self.options = merged
        self.sides = self.game.sides(self.players)
        if self.rounds_wanted is None:
            self.rounds_wanted = self.game.default_rounds()
        else:
            self.game.check_rounds(self.rounds_wanted)
        if not self.totals:
            self.totals = [0] * len(self.sides)
        if not self.setup:
            self.setup = self.game.first_setup(len(self.players), self.options)

    @property
    def round_no(self) -> int:
        """The number of the next round to deal (0-based)."""
        return len(self.rounds)

    def deal(self, host_secret: bytes | None = None,
             nonces: dict[int, bytes] | None = None) -> Any:
        """Deal the next round from ``round_secret(host_secret, nonces)`` (:mod:`.deal`): a
        table's committed secret and its players' nonces, or, when no host secret is given,
        the match seed's secret and no nonces."""
        if host_secret is None:
            host_secret = seed_secret(self.seed, self.round_no)
        return self.game.deal(self.setup, DealRandom(round_secret(host_secret, nonces or {})))

    def record(self, result: RoundResult) -> None:
        """Add a finished round: totals move on and the next set-up is worked out."""
        self.setups.append(self.setup)
        self.rounds.append(result)
        self.totals = [t + s for t, s in zip(self.totals, result.scores)]
        self.setup = self.game.next_setup(self)

    @property
    def over(self) -> bool:
        if self.rounds_wanted is not None and len(self.rounds) >= self.rounds_wanted:
            return True
        return self.game.match_over(self)

    def winners(self) -> list[int]:
        return self.game.winners(self)

    def rename(self, index: int, name: str) -> None:
        """Seat ``index`` plays on under ``name`` (a seat handed to a bot, "Bob L3"): the
        match's result names the side so, every round of it — the seat's score is one."""
        self.players[index] = name
        self.sides = self.game.sides(self.players)

    def result_data(self) -> dict[str, Any]:
        """The match as the JSON document of ``simulate --json`` and ``host --json``."""
        names = self.sides
        return {
            "game": self.game.id,
            "seed": self.seed,
            "players": list(self.players),
            "rounds": [
                {
                    "scores": dict(zip(names, r.scores)),
                    "detail": {n: d for n, d in zip(names, r.detail) if d},
                    "setup": s,
                }
                for r, s in zip(self.rounds, self.setups)
            ],
            "totals": dict(zip(names, self.totals)),
            "winner": [names[i] for i in self.winners()],
        }
