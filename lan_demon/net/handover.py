"""A seat handed over to a bot (PROTOCOL.md §24, ``remove {seat, bot}``): the host or the
captain gives the seat of someone who went home to a bot of a level they pick, and the bot
plays it on to the match's end.

Why: at a table of twenty, a child called to bed leaves a seat whose cards still lie on the
table. Removed, that seat stands still and its columns are stuck for everyone (RD-16's
sit-out); handed to a bot, the table keeps its shape and its pace.

The seat stays the same seat — its cards, its score so far, its place — but it changes hands
for good: it gets a NEW session token (kept beside the journal as every token is), so the
person's old token is refused ``removed`` with words naming who handed the seat over; its key
binding is forgotten, so the first key that comes back with the new token binds (the bot's
own, at a ``--secure`` table); it is marked a bot and renamed with the level's mark
("Bob L3", net/names.level_name), so every screen shows that a bot played it on. The
arbiter only queues the handover (:attr:`Handovers.queued`): the process that runs the
table's own bots (commands/local_table.TableBots) picks it up from the serving loop and
starts a bot that takes the seat by its token. Until it connects the seat is simply away,
and stand-ins play for it as for any absent seat.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Callable

from lan_demon.net.codec import ProtocolError
from lan_demon.net.guard import log_internal
from lan_demon.net.names import level_name, unique_name
from lan_demon.net.outbox import Outbox
from lan_demon.net.record import Record
from lan_demon.net.seated import HandedOver, Seat
from lan_demon.net.seats import Seats
from lan_demon.net.table_facts import RUNNING, TableFacts

#: The levels a seat may be handed to (bots/levels.py's LOWEST and HIGHEST).
LOWEST, HIGHEST = 1, 10
#: The level offered when the host or the captain names none (bots/levels.DEFAULT_LEVEL).
DEFAULT_LEVEL = 2


@dataclass(frozen=True)
class Handover:
    """What the process that runs the table's bots must start: a bot of ``level`` that takes
    seat ``seat`` with ``token``."""

    seat: int
    token: str
    level: int


class Handovers:
    """The seats handed to a bot whose bot is still to be started, and whether anything here
    starts them (the server says so when it has a taker)."""

    def __init__(self, facts: TableFacts, seats: Seats, record: Record):
        self.facts, self.seats, self.record = facts, seats, record
        self.queued: list[Handover] = []
        self.takes_bots = False

    def check(self, by: int, target: Seat, level: int) -> None:
        """Refuse a handover that cannot be (the module's notes; PROTOCOL.md §24)."""
        if isinstance(level, bool) or not LOWEST <= level <= HIGHEST:
            raise ProtocolError("malformed", f"a bot's level is a whole number from {LOWEST} to "
                                f"{HIGHEST}, not {level!r}")
        if self.facts.phase not in RUNNING:
            instead = "in the lobby, remove it and seat a bot instead" \
                if self.facts.phase == "lobby" else "the match is over"
            raise ProtocolError("not_playing", "a seat is handed to a bot only while a match "
                                f"runs: {instead}")
        if target.bot:
            raise ProtocolError("bad_seat", f"{target.name} is played by a bot already")
        if target.status == "left":
            raise ProtocolError("bad_seat", f"{target.name} has left the table for good: nobody "
                                "takes that seat back")
        if not self.takes_bots:
            raise ProtocolError("bad_seat", "this table runs no bots of its own to take a seat "
                                "over: remove the seat instead (its cards stay and score)")

    def hand_over(self, by: int, by_name: str, target: Seat, level: int, now: float,
                  out: Outbox) -> str:
        """Give ``target`` to a bot of ``level`` (checked by :meth:`check` first); its new
        name."""
        old_name, old_token = target.name, target.token
        name = unique_name(level_name(old_name, level),
                           [s.name for s in self.facts.seats if s is not target])
        self.seats.handed[old_token] = HandedOver(old_name, by_name, name, level)
        target.token, target.key, target.bot, target.name = secrets.token_hex(8), None, True, name
        if self.facts.match is not None:  # the result names the seat as every screen does
            self.facts.match.rename(target.index, name)
        # the token before the record: the secrets file keeps it by the record's ordinal (§19)
        self.record.keep_secret("keep_token", target.token)
        self.record.write("remove", seat=target.index, by=by, at=now, bot=level, name=name)
        self.record.publish(out, "removed", seat=target.index, name=old_name, by=by,
                            by_name=by_name, bot=level, new_name=name)
        # the person's connection no longer speaks for the seat
        if target.peer is not None or target.status == "here":
            target.peer, target.stepped_out = None, True
            target.away_since = self.facts.standing(now)
            self.seats.presence(target, "away", out)
        else:
            target.stepped_out = True
        self.queued.append(Handover(target.index, target.token, level))
        return name

    def take(self) -> list[Handover]:
        """The handovers queued since last asked (the serving loop's, for the table's bots)."""
        taken, self.queued[:] = list(self.queued), []
        return taken

    def pass_on(self, start: Callable[[Handover], None] | None) -> None:
        """On the serving loop: each handover queued is handed to ``start`` (the table's bots,
        net/asks.Asks.take_handovers). One that fails to start is logged; its seat stays away
        and stand-ins play for it, and the table goes on."""
        if start is None or not self.queued:
            return
        for queued in self.take():
            try:
                start(queued)
            except Exception as err:  # a bug there must never take the table down
                log_internal("starting a bot for a seat handed over", err)
