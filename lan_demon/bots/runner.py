"""Bots over the network: a strategy driving a :class:`~lan_demon.net.client.Client`.

A network bot sees exactly what a person at its seat sees — the client's redacted mirror — and
decides only when none of its moves is in flight, so it never plays blind on a card it has not
seen yet. A speed profile spaces its actions like a person's; ``flat-out`` acts at once. In
Racing Demon the whole profile applies, as in the simulator: a reaction time before each action;
a card someone else puts on a stack is seen only a notice time after it reached the bot (until
then no play onto that stack is offered to the strategy); and at each look a playable card may
be overlooked. Many bots can share one process: :func:`run_pool` polls all their sockets
together.

A bot's own code is not trusted to be right: when it raises (choosing a move, or hearing an
event), the bot leaves its seat, one line says which bot and what went wrong, and every other
bot of the pool — and the table — goes on. A move it names that does not parse or is illegal
is refused locally, like the arbiter would, and the bot is asked again a moment later.
"""

from __future__ import annotations

import random
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Callable

import zmq

from lan_demon.bots.base import Strategy, Turn, where_raised
from lan_demon.bots.registry import make_strategy
from lan_demon.bots.speed import SpeedProfile, profile
from lan_demon.games import BadMove, GameError, IllegalMove
from lan_demon.games.cards import Card
from lan_demon.games.demon_moves import Play
from lan_demon.net.client import Client
from lan_demon.net.notices import Notice, NoticeKind
from lan_demon.net.seats import AWAY_AFTER
from lan_demon.net.settings import CONNECT_TIMEOUT

GOODBYE_LINGER_MS = 500  # a removed bot's `leave` gets this long to reach the arbiter
LOOK_AGAIN = 0.05  # seconds before a bot whose move was refused locally is asked again
REFUSED_SAY = 20  # refusals in a row after which the bot's window is told, once a streak
SLOW_SAY = 1.5  # seconds a decision may take before the bot's window is told (once)


class BotClient(Client):
    """A client that also tells every committed move as a ``Notice("move")``, with the public
    update as its data: what an SDK bot's ``on_event`` hears. (The plain client does not: a
    person's screen redraws from the mirror instead.) It listens on the table copy's
    ``move_listeners``."""

    def __init__(self, *args: Any, **kw: Any):
        super().__init__(*args, **kw)
        self.copy.move_listeners.append(self._tell_move)

    def _tell_move(self, update: dict[str, Any]) -> None:
        self.copy.notice(NoticeKind.MOVE, data=update)


def print_error(bot: NetBot, err: BaseException) -> None:
    """The default report of a removed bot: one line on stderr, with where the error was
    raised (the error's name alone gives a bot's author no line to look at)."""
    print(f"lan-demon: bot {bot.client.name!r} (seat {bot.client.seat}) removed from the "
          f"table: {bot.error}{where_raised(err)}", file=sys.stderr, flush=True)


@dataclass
class NetBot:
    """One strategy in one seat.

    ``on_notice`` hears every notice of the client (an SDK bot's events come from here);
    ``on_error`` is told when the bot's code raised and it was removed (default: a line on
    stderr). ``eye`` draws the notice times and misses (Racing Demon), apart from ``rng``, so
    a profile without them (``flat-out``) draws exactly what it always did."""

    client: Client
    strategy: Strategy
    rng: random.Random
    speed: SpeedProfile
    act_at: float | None = None
    done: bool = False
    moves: int = 0
    refused: int = 0  # moves the local engine refused (never sent)
    refused_in_row: int = 0  # since the last move that went: said once at REFUSED_SAY
    said_slow: bool = False  # a decision of SLOW_SAY or more was said (once)
    beaten: int = 0
    on_move: Callable[[NetBot, Any], None] | None = None
    on_notice: Callable[[Notice], None] | None = None
    on_error: Callable[[NetBot, BaseException], None] | None = print_error
    error: str | None = None  # set when the bot was removed for raising
    eye: random.Random | None = None
    # stack id -> (its top card as last seen, when the bot notices it); read at mirror `seen_seq`
    seen: dict[int, tuple[Card, float]] = field(default_factory=dict)
    seen_seq: int = -1

    def __post_init__(self) -> None:
        self.set_speed(self.speed)

    def set_speed(self, profile: SpeedProfile) -> None:
        """Play at ``profile`` from the next action on (``lan-demon play``'s lobby changes it);
        a profile with notice delays or misses needs the ``eye`` that draws them."""
        self.speed = profile
        if self.eye is None and (profile.notice > 0 or profile.miss > 0):
            self.eye = random.Random(self.rng.random())

    def handle(self, notices: list[Notice]) -> None:
        for notice in notices:
            if self.error is not None:
                return  # removed: it hears nothing more
            if notice.kind == "round_end":
                self.strategy.reset()
                self.client.ready()
            elif notice.kind in ("match_end", "gone"):  # gone: its seat refused back
                self.done = True
            elif notice.kind == "beaten":
                self.beaten += 1
            elif notice.kind == "resync":  # a snapshot may have skipped a round end or the end
                phase = self.client.table.get("phase")
                self.done = self.done or phase == "over"
                if phase == "between" and self.client.seat is not None:
                    self.client.ready()
            if notice.kind in ("round", "round_end", "beaten", "refused", "resync", "resume"):
                self.act_at = None
            if notice.kind in ("round", "resync"):  # a new table: stack ids start again
                self.seen, self.seen_seq = {}, -1
            self._tell(notice)

    def _tell(self, notice: Notice) -> None:
        if self.on_notice is not None and self.error is None:
            try:
                self.on_notice(notice)
            except Exception as err:  # the bot's own code: remove it, the table goes on
                self.remove(err)

    def step(self, now: float) -> None:
        """Act if it is time: choose on the canonical mirror and play."""
        client = self.client
        if self.done or client.table.get("phase") != "playing" \
                or client.mirror is None or client.seat is None \
                or client.table.get("paused"):  # §24: a paused table takes no move
            return
        speed = self.speed  # flat-out notices at once and misses nothing: no glance at all
        glancing = client.game.races and (speed.notice > 0 or speed.miss > 0)
        if glancing and speed.notice > 0 and client.seq != self.seen_seq:
            self._watch_stacks(now)
        if client.pending:
            return
        if self.act_at is None:
            self.act_at = now + (0.0 if self.speed.median < 0.002 else
                                 self.speed.react(self.rng))
        if now < self.act_at:
            return
        self.act_at = None
        keep = (lambda m: self._sees(m, now)) if glancing else None
        turn = Turn(client.game, client.mirror, client.seat, self.rng, keep)
        if not turn.legal:
            return
        try:
            began = time.monotonic()
            move = self.strategy.choose(turn)
            self._timed(time.monotonic() - began)
        except BadMove as err:  # a move written as text that does not parse
            self._refused_here(None, "bad_move", "", str(err), now)
            return
        except Exception as err:  # the bot's own code: remove it, the table goes on
            self.remove(err)
            return
        if move is None:
            self.act_at = now + max(LOOK_AGAIN, self.speed.react(self.rng))  # look again later
            return
        try:
            if isinstance(move, str):
                move = client.game.parse_move(move)
            client.play(move)
        except IllegalMove as err:
            self._refused_here(move, "illegal", err.rule, err.reason, now)
            return
        except GameError as err:
            self._refused_here(move, "bad_move", "", str(err), now)
            return
        self.moves, self.refused_in_row = self.moves + 1, 0
        if self.on_move is not None:
            self.on_move(self, move)

    def _watch_stacks(self, now: float) -> None:
        """The mirror moved on: a stack whose top changed is noticed a notice time from now,
        unless the card on it is the bot's own (RD-2: its back says so), which it knows at once."""
        seat, eye, old = self.client.seat, self.eye, self.seen
        assert eye is not None
        seen = {}
        for sid, stack in self.client.mirror.stacks.items():
            top = stack.cards[-1]
            known = old.get(sid)
            if known is not None and known[0] == top:
                seen[sid] = known
            else:
                seen[sid] = (top, now if top.owner == seat else
                             now + self.speed.notice_delay(eye))
        self.seen, self.seen_seq = seen, self.client.seq

    def _sees(self, move: Any, now: float) -> bool:
        """Whether the person at the seat would see ``move`` at this look (RD-11: a stack
        change not yet noticed offers nothing; any play may be overlooked)."""
        if not isinstance(move, Play):
            return True
        if move.target.startswith("s"):
            known = self.seen.get(int(move.target[1:]))
            if known is not None and known[1] > now:
                return False
        assert self.eye is not None
        return not self.speed.misses(self.eye)

    def _authored(self) -> bool:
        """An SDK bot (its author reads its window), not a built-in one seated in ``play``,
        whose lines would land on the table's screen."""
        return getattr(self.strategy, "bot", None) is not None

    def _timed(self, took: float) -> None:
        """A decision long enough to cost the seat (it says nothing meanwhile, and the table
        marks a seat away after AWAY_AFTER of silence) is said once in the bot's window: else
        a slow bot goes away and comes back over and over, and its window never says why."""
        if took >= SLOW_SAY and not self.said_slow and self._authored():
            self.said_slow = True
            print(f"lan-demon: bot {self.client.name!r}: a decision took {took:.1f} s; the "
                  f"table marks a seat away after {AWAY_AFTER:g} s without a word from it, so "
                  f"keep next_move well under that", file=sys.stderr, flush=True)

    def _refused_here(self, move: Any, code: str, rule: str, reason: str, now: float) -> None:
        """A move the local engine already refuses: nothing is sent; the bot hears it as the
        arbiter would say it, and is asked again a moment later (not at once, for ever)."""
        self.act_at = now + max(LOOK_AGAIN, self.speed.react(self.rng))
        data = {"code": code, "rule": rule, "reason": reason, "move": move}
        text = f"{rule}: {reason}" if rule else reason
        self.refused, self.refused_in_row = self.refused + 1, self.refused_in_row + 1
        if self.refused_in_row == REFUSED_SAY and self._authored():  # never gets a move in
            print(f"lan-demon: bot {self.client.name!r}: {REFUSED_SAY} moves in a row refused, "
                  f"the last: {text} (its on_event hears each as Refused)", file=sys.stderr,
                  flush=True)
        self._tell(Notice(NoticeKind.REFUSED, text, data))

    def remove(self, err: BaseException) -> None:
        """The bot's code raised: leave the seat, say so once, stop this bot only."""
        if self.error is not None:
            return
        self.error = f"{type(err).__name__}: {err}"
        self.done = True
        leave_and_close(self.client)
        if self.on_error is not None:
            self.on_error(self, err)

    def wake_in(self, now: float) -> float:
        if self.act_at is None:
            return 0.05
        return max(0.0, self.act_at - now)


def leave_and_close(client: Client) -> None:
    """Say ``leave`` and close, giving the goodbye a moment to get out (a socket closed with
    no linger drops what it has not sent yet)."""
    try:
        client.leave()
        if client.dealer is not None:
            client.dealer.close(linger=GOODBYE_LINGER_MS)
    except zmq.ZMQError:
        pass  # the arbiter is gone already: nothing to say goodbye to
    client.close()


BOT_HISTORY = 8  # finished rounds' results a bot's client keeps (Client(history=…))


def seat_bot(address: str, name: str, brain: Callable[[Client], Strategy],
             seed: int | str = 0, speed: str = "club", context: zmq.Context | None = None,
             send_delay: float = 0.0, connect_timeout: float = CONNECT_TIMEOUT,
             listen: bool = False, server_key: str | None = None,
             code: str | None = None, remember: bool = False,
             token: str | None = None) -> NetBot:
    """Connect, take a seat, build the strategy for the game found there, say ready.

    ``brain(client)`` builds the strategy once the game is known (it may refuse the game with a
    :class:`GameError`: the seat is given back). ``listen`` makes every committed move a notice
    too (:class:`BotClient`). ``server_key`` and ``code``: a ``--secure`` table's public key
    and its room code. A bot keeps only the last few rounds' results: on an endless table all
    of them would grow without end (benchmarks/soak.py). ``remember``: keep the session token
    on disk, so the same bot started again takes its seat back (``lan-demon bot``). ``token``:
    take the seat that token holds (a seat handed over to a bot, PROTOCOL.md §24) instead of a
    new one; the bot is then named as the seat is."""
    pace = profile(speed)
    client = (BotClient if listen else Client)(address, name=name, bot=True, context=context,
                                               send_delay=send_delay, server_key=server_key,
                                               code=code, history=BOT_HISTORY,
                                               remember=remember, token=token)
    client.connect(timeout=connect_timeout)
    try:
        if client.seat is None:
            raise GameError("the arbiter gave the bot no seat")
        strategy = brain(client)
    except BaseException:
        leave_and_close(client)
        raise
    bot = NetBot(client, strategy, random.Random(f"lan_demon-bot:{seed}:{client.seat}"),
                 pace, eye=random.Random(f"lan_demon-bot-eye:{seed}:{client.seat}"))
    client.ready()
    return bot


def make_bot(address: str, strategy: str, name: str, seed: int | str = 0,
             speed: str = "club", context: zmq.Context | None = None,
             send_delay: float = 0.0, connect_timeout: float = CONNECT_TIMEOUT,
             server_key: str | None = None, code: str | None = None,
             remember: bool = False) -> NetBot:
    """Connect a built-in strategy (by name) to the arbiter at ``address`` and say ready."""
    return seat_bot(address, name, lambda client: make_strategy(client.game.id, strategy),
                    seed, speed, context, send_delay, connect_timeout,
                    server_key=server_key, code=code, remember=remember)


def run_pool(bots: list[NetBot], until: Callable[[], bool] | None = None,
             timeout: float = 3600.0, clock: Callable[[], float] = time.monotonic) -> None:
    """Run bots in this process until every match they sit in is over (or ``until()``).

    One poll covers every bot's sockets; a bot's client is pumped when one of its sockets is
    readable or its own housekeeping is due (:meth:`Client.due`) — not every client on every
    wake-up — and every bot may act. A bot removed for raising is simply done."""
    deadline = clock() + timeout
    poller, polled = zmq.Poller(), None
    while not all(b.done for b in bots) and not (until and until()):
        if clock() > deadline:
            raise GameError(f"the bots' match did not end within {timeout:g} s")
        live = [b for b in bots if not b.done]
        sockets = [(b.client.dealer, b.client.sub) for b in live]
        if sockets != polled:  # a reconnecting client has new sockets, a removed one none
            poller, polled = zmq.Poller(), sockets
            for bot in live:
                for sock in bot.client.sockets():
                    poller.register(sock, zmq.POLLIN)
        now = clock()
        wait = min([b.wake_in(now) for b in live] + [0.05])
        ready = dict(poller.poll(wait * 1000))
        now = clock()
        for bot in live:
            client = bot.client
            if client.dealer in ready or client.sub in ready or \
                    client.clock() >= client.due():
                client.pump()
            if client.notices:
                bot.handle(client.take_notices())
            bot.step(now)
