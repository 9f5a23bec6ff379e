"""The bot SDK: a bot is a small class; one call sits it at a table and plays the match.

    class MyBot(Bot):
        game = "racing-demon"
        def next_move(self, view, legal):
            return legal[0] if legal else None

    run(MyBot(), "127.0.0.1:7700", name="Ann", speed="club")

A bot sees what a person in its seat sees and nothing more: ``view`` is the game's view of the
client's redacted mirror, ``legal`` the seat's legal moves on it, and events carry only public
facts (plus the bot's own refusals). It is asked for a move only when none of its own moves is
in flight, so it never decides on a table it has not seen yet. It may answer a move object, the
text the game parses (``"pile s3"``, ``"turn"``) or ``None`` (nothing now: asked again later).

Underneath, a :class:`Bot` is wrapped as a :class:`~lan_demon.bots.base.Strategy` and driven by
the same :class:`~lan_demon.bots.runner.NetBot` as the built-in bots. This module imports the
network layer only inside :func:`run_many`, so strategies stay free of sockets.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, ClassVar

from lan_demon.bots.base import Strategy, Turn
from lan_demon.games import GAME_IDS, BadConfig, Game, GameError, IllegalMove
from lan_demon.net.settings import CONNECT_TIMEOUT
from lan_demon.seat import events as seat_events

if TYPE_CHECKING:  # the network layer is imported only when a bot is run (see above)
    import zmq

    from lan_demon.bots.runner import NetBot

# --- events ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class RoundStart:
    """A round was dealt (``round`` counts from 0); the next ``next_move`` sees the new cards."""

    kind: ClassVar[str] = "round"
    round: int


@dataclass(frozen=True)
class Played:
    """A move committed at the table, by anyone (``mine`` when it was this bot's). ``move`` is
    the public move — a move object, or its wire map when it hides a card (Gin Solitaire's
    face-down discards); ``seat`` is -1 for the table's own RD-13 timeout. ``events`` are the
    public events (PROTOCOL.md §14–§16)."""

    kind: ClassVar[str] = "move"
    seat: int
    move: Any
    mine: bool
    events: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class Beaten:
    """RD-11: this bot's move lost a race; ``by`` is the seat that got there first."""

    kind: ClassVar[str] = "beaten"
    move: Any
    by: int | None
    reason: str


@dataclass(frozen=True)
class Refused:
    """This bot's move was refused — by the arbiter, or already here when it does not parse
    or the rules forbid it (then nothing was sent). ``code`` is PROTOCOL.md §10's (``illegal``,
    ``bad_move``, ``not_playing``, …), ``rule`` the rule id (``"RD-7"``) or ``""``."""

    kind: ClassVar[str] = "refused"
    move: Any
    rule: str
    reason: str
    code: str = ""


@dataclass(frozen=True)
class RoundEnd:
    """A round ended: ``scores`` and running ``totals``, one per side (the seats; Gin
    Solitaire adds each seat's Joker after them)."""

    kind: ClassVar[str] = "round_end"
    round: int
    scores: list[int]
    totals: list[int]


@dataclass(frozen=True)
class MatchEnd:
    """The match is over: ``totals`` by name, and the ``winners``' names."""

    kind: ClassVar[str] = "match_end"
    totals: dict[str, int]
    winners: list[str]


Event = RoundStart | Played | Beaten | Refused | RoundEnd | MatchEnd


# --- the bot --------------------------------------------------------------------------------


class Bot:
    """Subclass it: set ``game`` (an id, a tuple of ids, or None for any game), write
    :meth:`next_move`, and :meth:`on_event` if the bot wants to hear what happens.

    Once seated the bot has ``seat`` (its seat number), ``name`` (its name at the table, made
    unique by the arbiter) and ``rng`` (a generator seeded from the run's seed and the seat,
    so a run can be repeated)."""

    game: ClassVar[str | tuple[str, ...] | None] = None
    seat: int = -1
    name: str = ""
    rng: random.Random = random.Random(0)

    def next_move(self, view: dict[str, Any], legal: list[Any]) -> Any | None:
        """The next move (a move from ``legal``, or its text), or None to do nothing now."""
        return legal[0] if legal else None

    def on_event(self, event: Event) -> None:
        """Something happened at the table (see the event classes). Default: nothing."""

    def plays(self, game_id: str) -> bool:
        wanted = self.game
        return wanted is None or game_id == wanted or (
            not isinstance(wanted, str) and game_id in wanted)


class BotStrategy(Strategy):
    """A :class:`Bot` as a strategy: the engine's view and legal moves in, a move out (text is
    parsed here, so it also plays in the simulator); notices out of the client become events."""

    name = "sdk"
    games = GAME_IDS

    def __init__(self, bot: Bot, game: Game, client: Any = None):
        if not bot.plays(game.id):
            raise BadConfig(f"{type(bot).__name__} plays {bot.game}, not {game.id}")
        self.bot, self.game, self.client = bot, game, client
        self.told_round = -1  # the last round whose RoundStart the bot heard
        self.told_ends = 0  # RoundEnds it heard
        self.told_over = False
        self.offline_rounds = 0  # rounds begun in the simulator (no client, no notices)

    def reset(self) -> None:
        """A round begins. Offline nothing else would say so: the bot hears its RoundStart
        here, as a seated bot hears it from the table."""
        if self.client is None:
            self._tell(RoundStart(self.offline_rounds))
            self.offline_rounds += 1

    def choose(self, turn: Turn) -> Any | None:
        if self.client is None:
            return self._choose_offline(turn)
        self._catch_up()
        move = self.bot.next_move(turn.view, turn.legal)
        return self.game.parse_move(move) if isinstance(move, str) else move

    def _choose_offline(self, turn: Turn) -> Any | None:
        """In the simulator the bot is seated and told of refusals as at a table, so a bot
        measured offline behaves as it will at one: ``self.seat`` is its seat, not −1 (with
        which the shipped example would read the last player's cards), and a bad move is
        heard as ``Refused``, not dropped without a word."""
        bot = self.bot
        bot.seat, bot.rng, bot.name = turn.seat, turn.rng, bot.name or type(bot).__name__
        move = bot.next_move(turn.view, turn.legal)
        try:
            move = self.game.parse_move(move) if isinstance(move, str) else move
            if move is not None:
                self.game.check(turn.state, turn.seat, move)  # (the rules' check only)
        except IllegalMove as err:
            self._tell(Refused(move, err.rule, err.reason, "illegal"))
            return None
        except GameError as err:
            self._tell(Refused(move, "", str(err), "bad_move"))
            return None
        return move

    def observe(self, notice: Any) -> None:
        """A client notice → the bot's event, if it is one a bot hears."""
        if notice.kind == "resync":
            self._catch_up()
            return
        event = to_event(notice, self.game, self._follow_seat())
        if event is not None:
            self._tell(event)

    def _tell(self, event: Event) -> None:
        """Tell the bot, once: a round start, round end or match end it heard already (from
        :meth:`_catch_up`) is not told again."""
        if isinstance(event, RoundStart):
            if event.round <= self.told_round:
                return
            self.told_round = event.round
        elif isinstance(event, RoundEnd):
            if event.round < self.told_ends:
                return
            self.told_ends = event.round + 1
        elif isinstance(event, MatchEnd):
            if self.told_over:
                return
            self.told_over = True
        self.bot.on_event(event)

    def _catch_up(self) -> None:
        """A client that missed updates heals with a snapshot (the Clone pattern), which brings
        no notices: tell the bot from the table what it has not heard — the rounds that ended,
        the round in play, the match end — so every round it plays starts with a RoundStart."""
        self._follow_seat()
        if self.client is None:
            return
        table, scores = self.client.table, self.client.scores
        for k in scores.rounds:
            if k >= self.told_ends:
                self._tell(RoundEnd(k, list(scores.result(k)["scores"]), scores.totals_after(k)))
        if table.get("phase") == "playing" and table.get("round", -1) > self.told_round:
            self._tell(RoundStart(table["round"]))
        if table.get("phase") == "over" and not self.told_over and table.get("result"):
            self._tell(to_event(SimpleNamespace(kind="match_end", text="",
                                                data=table), self.game, self.bot.seat))

    def _follow_seat(self) -> int:
        """In the lobby a seat moves up when one before it leaves (PROTOCOL.md §5 step 11)."""
        if self.client is not None and self.client.seat is not None:
            self.bot.seat = self.client.seat
        return self.bot.seat


def to_event(notice: Any, game: Game, seat: int) -> Event | None:
    """Translate a client :class:`~lan_demon.net.table_copy.Notice` (kind, text, data): by
    way of the seat layer's events (:func:`lan_demon.seat.events.from_notice`), the one
    translation the terminal and the page are told too."""
    return from_seat(seat_events.from_notice(notice, seat), game)


def from_seat(event: seat_events.Event | None, game: Game) -> Event | None:
    """The bot's event for one of the seat layer's (None: one a bot does not hear). The
    fields are the SDK's as they always were; the words are the seat's, not the bot's."""
    if isinstance(event, seat_events.Go):
        return RoundStart(event.round)
    if isinstance(event, seat_events.Played):
        return Played(event.seat, _public_move(game, event.move), event.mine, event.events)
    if isinstance(event, seat_events.Beaten):
        return Beaten(event.move, event.by, event.reason)
    if isinstance(event, seat_events.Refused):
        return Refused(event.move, event.rule or "", event.reason, event.code)
    if isinstance(event, seat_events.RoundEnd):
        return RoundEnd(event.round, list(event.scores), list(event.totals))
    if isinstance(event, seat_events.MatchEnd):
        return MatchEnd(dict(event.totals), list(event.winners))
    return None


def _public_move(game: Game, data: dict[str, Any]) -> Any:
    try:
        return game.move_from_data(data)
    except GameError:
        return data  # it hides a card ("??"), so it is no move one could play


# --- running --------------------------------------------------------------------------------


@dataclass
class Result:
    """How a run ended for one bot: its seat and name, the match totals by name and the
    winners' names — or, for a bot removed because its code raised, ``error`` — and how many
    of its moves went and how many were refused (a bot refused at every move ends with
    ``moves`` 0, not as if all was well)."""

    name: str
    seat: int
    totals: dict[str, int]
    winners: list[str]
    error: str | None = None
    moves: int = 0  # moves it sent that the local engine let through
    refused: int = 0  # moves refused before they were sent (each heard as ``Refused``)

    @property
    def won(self) -> bool:
        return self.error is None and self.name in self.winners


def run(bot: Bot, address: str, name: str | None = None, speed: str = "club",
        seed: int | str = 0, timeout: float = 3600.0, connect_timeout: float = CONNECT_TIMEOUT) -> Result:
    """Sit ``bot`` at the arbiter at ``address`` (``HOST:PORT``), play the match to its end.

    ``speed`` spaces its moves like a person's: ``beginner``, ``club``, ``expert`` or
    ``flat-out`` (no pause at all). Raises :class:`~lan_demon.games.GameError` (a
    ConnectError) when the table cannot be reached or refuses the bot; a bot whose own code
    raises is removed from its seat, and its ``Result.error`` says why."""
    return run_many([bot], address, [name] if name else None, speed, seed, timeout,
                    connect_timeout)[0]


def run_many(bots: list[Bot], address: str, names: list[str] | None = None,
             speed: str = "club", seed: int | str = 0, timeout: float = 3600.0,
             connect_timeout: float = CONNECT_TIMEOUT, context: zmq.Context | None = None) -> list[Result]:
    """Several bots in this one process, each in its own seat (one poll drives them all)."""
    from lan_demon.bots.runner import leave_and_close, run_pool
    names = names or [type(b).__name__ for b in bots]
    seated: list[NetBot] = []
    try:
        for i, (bot, name) in enumerate(zip(bots, names, strict=True)):
            seated.append(seat(bot, address, name, speed, f"{seed}:{i}", context,
                               connect_timeout))
        run_pool(seated, timeout=timeout)
    finally:
        for net in seated:
            if net.error is None:
                leave_and_close(net.client)
    return [result_of(net) for net in seated]


def seat(bot: Bot, address: str, name: str | None = None, speed: str = "club",
         seed: int | str = 0, context: zmq.Context | None = None,
         connect_timeout: float = CONNECT_TIMEOUT) -> NetBot:
    """Connect ``bot`` and take a seat, without playing yet: a
    :class:`~lan_demon.bots.runner.NetBot` for :func:`~lan_demon.bots.runner.run_pool`, where SDK
    bots and built-in ones can share one loop."""
    from lan_demon.bots.runner import seat_bot

    def build(client: Any) -> BotStrategy:
        bot.seat = client.seat
        seats = client.table.get("seats", [])
        bot.name = seats[client.seat]["name"] if client.seat < len(seats) else client.name
        return BotStrategy(bot, client.game, client)

    net = seat_bot(address, name or type(bot).__name__, build, seed, speed, context,
                   connect_timeout=connect_timeout, listen=True)
    net.on_notice = net.strategy.observe
    bot.rng = net.rng
    return net


def result_of(net: NetBot) -> Result:
    """What a seated SDK bot's match came to (after its pool has run)."""
    outcome = net.client.table.get("result") or {}
    bot = net.strategy.bot  # type: ignore[attr-defined]  # a BotStrategy, from seat()
    return Result(bot.name, bot.seat, dict(outcome.get("totals", {})),
                  list(outcome.get("winner", [])), net.error, net.moves, net.refused)
