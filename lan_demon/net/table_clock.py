"""The table's clock: heartbeats and clock probes, RD-13's minute without a play, and the
moves nobody at the table makes (an absent player's RD-13 vote or Rack-O turn, played for it).

No sockets and no clock of its own: the time is given with each step. The moves it makes are
committed as any move is (:class:`lan_demon.net.race.Race`).
"""

from __future__ import annotations

from collections import deque
from typing import Callable

from lan_demon.games import TABLE, GameError
from lan_demon.games.demon_stuck import STUCK_TIMEOUT
from lan_demon.net.codec import make
from lan_demon.net.outbox import Outbox
from lan_demon.net.race import Held, Race
from lan_demon.net.record import Record
from lan_demon.net.seated import Seat
from lan_demon.net.seats import forget_strangers
from lan_demon.net.security import CodeThrottle
from lan_demon.net.table_facts import TableFacts

BEAT_INTERVAL = 1.0  # seconds between heartbeats, both ways
PROBES_KEPT = 8  # probes per connection whose echo is still awaited


class TableClock:
    """The beat, the probes each connection's echo is awaited for, and the moves the table
    makes for nobody."""

    def __init__(self, facts: TableFacts, race: Race, record: Record, throttle: CodeThrottle,
                 public_hash: Callable[[], str]):
        """``throttle``: the room code's brake, pruned each beat; ``public_hash``: what each
        beat says of the public table (net/snapshots.py)."""
        self.facts, self.race, self.record = facts, race, record
        self.throttle, self.public_hash = throttle, public_hash
        self.next_beat = facts.now
        self.probes: dict[bytes, deque[float]] = {}  # by connection: probes sent, unechoed

    def table_moves(self, now: float, out: Outbox) -> None:
        """Moves nobody at the table makes: RD-13's minute without a play, an absent player's
        Rack-O turn (draw and discard, so the table is not stuck) while a person is still
        here."""
        if self.facts.game.races and now - self.facts.last_play >= STUCK_TIMEOUT:
            self.facts.last_play = now
            timeout = self.facts.game.move_from_data({"t": "timeout"})
            self.race.commit(Held(now, now, TABLE, -1, timeout), now, out)
            return
        if self.facts.game.simultaneous and self.facts.game.races:
            self.absent_votes(now, out)
            return
        if nobody_here(self.facts.seats):
            return
        for index in self.facts.game.to_move(self.facts.state):
            seat = self.facts.seats[index]
            absent_for = now - max(self.facts.turn_since, seat.away_since or now)
            if seat.status != "here" and (seat.stepped_out
                                          or absent_for >= self.facts.settings.turn_timeout):
                self.stand_in(seat, now, out)

    def absent_votes(self, now: float, out: Outbox) -> None:
        """RD-13 waits for "every player still in the round". A player who has left, or been
        away past the turn timeout, is not playing: the arbiter says "stuck" for them, so the
        others are not held to the 60-second timeout by an empty chair. Their cards stay in the
        round and still score (RD-14); any play clears every vote, and this one is said again."""
        for seat in self.facts.seats:
            if seat.status == "here" or seat.away_since is None:
                continue
            if seat.status == "away" and not seat.stepped_out and \
                    now - seat.away_since < self.facts.settings.turn_timeout:
                continue
            vote = self.facts.game.move_from_data({"t": "stuck"})
            try:
                self.facts.game.check(self.facts.state, seat.index, vote)
            except GameError:
                continue  # voted already, out, or the round is over
            self.race.commit(Held(now, now, seat.index, -1, vote), now, out)
            if self.facts.phase != "playing":
                return

    def stand_in(self, seat: Seat, now: float, out: Outbox) -> None:
        """Play an absent seat's turn the plainest way — draw, then discard (RK-4, GS-4) — so
        the table is not stuck waiting for someone who has gone."""
        for _ in range(3):
            legal = self.facts.game.legal_moves(self.facts.state, seat.index)
            kinds = {m.to_data()["t"]: m for m in reversed(legal)}
            move = kinds.get("draw") or kinds.get("discard")
            if move is None or self.facts.phase != "playing":
                return
            self.race.commit(Held(now, now, seat.index, -1, move), now, out)
            if move.to_data()["t"] == "discard":
                return

    def beat_if_due(self, now: float, out: Outbox) -> None:
        """A beat every :data:`BEAT_INTERVAL` seconds."""
        if now >= self.next_beat:
            self.next_beat = now + BEAT_INTERVAL
            self.beat(now, out)

    def beat(self, now: float, out: Outbox) -> None:
        """The PUB's beat (with the public table's hash), and a probe to every seat here."""
        self.throttle.prune(now)
        if self.facts.phase == "over" and self.facts.encore_until is not None:
            # for those coming back
            self.record.publish(out, "match_end", result=self.facts.result)
        out.public.append(make("beat", seq=self.record.seq, a=now, hash=self.public_hash()))
        for seat in self.facts.seats:
            if seat.status == "here" and seat.peer is not None:
                self.probe(seat, now, out)

    def probe(self, seat: Seat, now: float, out: Outbox) -> None:
        if seat.peer not in self.probes:
            forget_strangers(self.facts.seats, self.probes)
        self.probes.setdefault(seat.peer, deque(maxlen=PROBES_KEPT)).append(now)
        out.private.append((seat.peer, make("probe", a=now)))

    def on_ping(self, peer: bytes, seat: Seat | None, msg: dict, now: float,
                out: Outbox) -> None:
        out.private.append((peer, make("pong", re=msg["id"], c=msg["c"], a=now)))

    def on_echo(self, peer: bytes, seat: Seat | None, msg: dict, now: float,
                out: Outbox) -> None:
        # Only the echo of a probe this connection was sent counts, once: a made-up ``a``
        # would make up a delay, and with it an earlier timestamp allowed (§8).
        sent = self.probes.get(peer)
        if seat is None or not sent or msg["a"] not in sent:
            return
        sent.remove(msg["a"])
        if 0 <= now - msg["a"] < 10:
            seat.rtts = (seat.rtts + [now - msg["a"]])[-8:]


def nobody_here(seats: list[Seat]) -> bool:
    """Every person at the table is away or gone (a table of bots alone does not count).
    Stand-in turns keep the table moving for those still playing; with nobody to play for they
    would only spin the match on, several turns a second, to an end nobody saw: the table
    waits for someone to come back instead."""
    people = [s for s in seats if not s.bot]
    return bool(people) and all(s.status != "here" for s in people)
