"""The race (RD-11): a move's timestamp believed within the lag cap, the fairness hold,
settling rivals by timestamp, and the commit — a move applied, numbered and broadcast.

The hot path of the table: ``on_move`` -> (``hold`` -> ``release``) -> ``commit``. Who was
beaten, and by how much, is judged by :mod:`lan_demon.games.demon_races` (pure); this module
turns its verdict into the error a client is sent. A move that ends the round hands over to the
match's flow (:data:`RoundOver`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import msgpack

from lan_demon.games import BadMove, GameError, IllegalMove
from lan_demon.games.base import public_events
from lan_demon.games.demon_races import RaceBook, Taken, placed, stack_id
from lan_demon.games.demon_stuck import restarts_minute
from lan_demon.net.codec import ProtocolError, make, move_private, move_update
from lan_demon.net.guard import MOVE_BURST, MOVE_RATE, RateLimiter, RecentIds
from lan_demon.net.outbox import Outbox
from lan_demon.net.record import Record
from lan_demon.net.seal import half_of, seal
from lan_demon.net.seated import Seat
from lan_demon.net.seats import Seats, forget_strangers
from lan_demon.net.table_facts import TableFacts

TOLERANCE = 0.005  # seconds a timestamp may be earlier than its arrival allows (clock jitter)
#: ``Held.place`` of a move committed as it arrives: where it was going is where it goes now
#: (nothing has moved in between), so it is worked out only if the move is refused.
AS_IT_ARRIVED = ""
#: Refused moves journaled per seat and round (PROTOCOL.md §2, Bounds): a seat sending moves
#: the rules refuse as fast as the brake lets it would otherwise write a record each. The
#: refusals past it are answered as ever, and left out of the journal (journal_records.py).
REFUSED_PER_ROUND = 256


@dataclass(order=True, slots=True)
class Held:
    """A contested move waiting out the fairness window (RD-11)."""

    ts: float
    arrival: float
    seat: int = field(compare=False)
    rid: int = field(compare=False)
    move: Any = field(compare=False)
    place: str | None = field(default=None, compare=False)  # where it was going on arrival
    claimed: float | None = field(default=None, compare=False)  # its ``ts`` as sent (journal)


#: What the match's flow does when a committed move ends the round.
RoundOver = Callable[[float, Outbox], None]


class Race:
    """Moves in flight: those held in RD-11's fairness window, those queued behind them, the
    ids each connection has used, and the commit of each."""

    def __init__(self, facts: TableFacts, seats: Seats, record: Record):
        self.facts, self.seats, self.record = facts, seats, record
        self.round_over: RoundOver | None = None  # (connect: the flow is made after the race)
        self.held: list[Held] = []
        self.held_until: float | None = None
        self.queued: dict[int, list[Held]] = {}  # moves behind a seat's held move, in order
        self.move_ids: dict[bytes, RecentIds] = {}  # by connection (PROTOCOL.md §10)
        self.seat_moves = RateLimiter(MOVE_RATE if facts.settings.rate_limit > 0 else 0,
                                      MOVE_BURST)  # moves taken per seat (by its index)
        # Refused moves journaled this round, by seat (REFUSED_PER_ROUND).
        self.refused: tuple[int, dict[int, int]] = (-1, {})
        self.races = RaceBook(facts.game)  # each stack's last committed play (RD-11)
        # Reused for what is packed per move (a seal): ``msgpack.packb`` builds a Packer per
        # call. Used only on the arbiter's thread.
        self.packer = msgpack.Packer(use_bin_type=True)

    def connect(self, round_over: RoundOver) -> None:
        """What ends a round (the match's flow, made after the race)."""
        self.round_over = round_over

    def on_move(self, peer: bytes, seat: Seat | None, msg: dict, now: float,
                out: Outbox) -> None:
        player = seat if seat is not None else self.seats.player(seat, peer)  # (None: raises)
        move = self._taken(peer, player, msg, now, out)
        if move is None:
            return
        facts, claimed = self.facts, msg["ts"]
        # The claimed time is believed only between the earliest the network allows (the
        # measured delay and the tolerance, together capped at lag_cap_ms: slow echoes buy no
        # more) and the arrival: never a way to jump the queue by more than the cap (§8).
        credit = min(player.one_way() + TOLERANCE, facts.settings.lag_cap_ms / 1000)  # (>= 0)
        believed = min(max(claimed, now - credit), now)
        index, game, state = player.index, facts.game, facts.state
        held = Held(believed, now, index, msg["id"], move, AS_IT_ARRIVED, claimed)
        if index in self.queued:  # keep a seat's moves in the order it sent them
            held.place = game.destination(state, index, move)
            self.queued[index].append(held)
        elif facts.settings.fairness_ms > 0 and game.rivals(state, index, move):
            held.place = game.destination(state, index, move)
            self.hold(held, now)
        else:
            self.commit(held, now, out)

    def _taken(self, peer: bytes, player: Seat, msg: dict, now: float, out: Outbox) -> Any:
        """The move a message carries, if the table takes it now; else refused (raised, or,
        after a round's end, answered in ``out``: None). Its id must be new on this
        connection, and the table playing, not paused, at its round, the seat within its
        brake."""
        rid, facts = msg["id"], self.facts
        ids = self.move_ids.get(peer)
        if ids is None:  # (not setdefault: that would build a RecentIds for every move)
            ids = self.new_ids(peer)
        if not ids.add(rid):
            raise ProtocolError("duplicate", f"move {rid} was already sent on this "
                                "connection; a move is never applied twice")
        try:
            move = facts.game.move_from_data(msg["move"])
        except GameError as err:
            raise ProtocolError("bad_move", str(err)) from None
        if facts.phase != "playing":
            self.after_round(player, msg, move, out)
            return None
        if facts.paused is not None:
            raise ProtocolError("paused", f"the table is paused by {facts.paused.words()}: "
                                "no card moves until the captain or the host resumes it")
        if msg["round"] != facts.match.round_no:
            raise ProtocolError("wrong_round", f"the round in progress is "
                                f"{facts.match.round_no}, not {msg['round']}")
        brake = self.seat_moves
        if brake.rate and brake.admit(player.index, now) != brake.ADMIT:
            raise ProtocolError("rate_limited", f"more than {brake.rate:g} moves a second from "
                                f"one seat (bursts of {brake.burst:g}): this one was not taken")
        return move

    def after_round(self, player: Seat, msg: dict, move: Any, out: Outbox) -> None:
        """A move for the round that just ended is refused by the rule that ended it (RD-12:
        nothing is played after OUT; a second OUT counts for nothing)."""
        facts = self.facts
        just_ended = facts.match is not None and msg["round"] == facts.match.round_no - 1
        if not just_ended or facts.state is None:
            raise ProtocolError("not_playing", f"no round is in progress ({facts.phase})")
        try:  # (check: what apply would say, without copying the table: a bot's moves in
            # flight at every round end come here, each round)
            facts.game.check(facts.state, player.index, move)
        except IllegalMove as err:
            out.private.append((player.peer, make("error", re=msg["id"], code="illegal",
                                                  reason=err.reason, rule=err.rule)))
            return
        except GameError:
            pass
        raise ProtocolError("not_playing", "the round is over")

    def drop_in_flight(self, out: Outbox) -> None:
        """Moves still held or queued when the round ends are answered, not forgotten."""
        waiting = self.held + [h for hs in self.queued.values() for h in hs]
        self.held, self.held_until, self.queued = [], None, {}
        for h in waiting:
            peer = self.facts.seats[h.seat].peer
            try:
                self.facts.game.check(self.facts.state, h.seat, h.move)
            except IllegalMove as err:
                if peer is not None:
                    out.private.append((peer, make("error", re=h.rid, code="illegal",
                                                   reason=err.reason, rule=err.rule)))
                continue
            except GameError:
                pass
            if peer is not None:
                out.private.append((peer, make("error", re=h.rid, code="not_playing",
                                               reason="the round ended first")))

    def hold(self, held: Held, now: float) -> None:
        self.held.append(held)
        self.queued[held.seat] = []
        if self.held_until is None:
            self.held_until = now + self.facts.settings.fairness_ms / 1000

    def release(self, now: float, out: Outbox) -> None:
        """The window closed: rivals are settled by timestamp, then what queued behind them."""
        held, queued = sorted(self.held), self.queued
        self.held, self.held_until, self.queued = [], None, {}
        for h in held:
            if self.facts.phase == "playing":
                self.commit(h, now, out)
        for seat in sorted(queued, key=lambda s: min((q.arrival for q in queued[s]),
                                                     default=0)):
            for h in queued[seat]:
                if self.facts.phase == "playing":
                    self.commit(h, now, out)

    def commit(self, held: Held, now: float, out: Outbox) -> None:
        """Apply a move, or refuse it; tell the table, journal it, and end the round it ends."""
        facts = self.facts
        game, state, seat = facts.game, facts.state, held.seat
        try:
            events = game.apply(state, seat, held.move)
        except IllegalMove as err:
            self._refuse(held, self.refusal_for(held, err), out)
            return
        except BadMove as err:
            self._refuse(held, make("error", re=held.rid, code="bad_move", reason=str(err)), out)
            return
        move = held.move
        if game.races:
            self.races.remember(seat, held.ts, events, state)
            move = placed(move, events)
        seq, round_no = self.record.next_seq(), facts.match.round_no
        data = move.to_data()
        self._tell(held, move, seq, round_no, data, events, out)
        if self.record.journal:
            self.record.write("move", seq=seq, round=round_no, seat=seat, move=data,
                              at=held.arrival,
                              **({"ts": held.claimed} if held.claimed is not None else {}))
        if restarts_minute(events):
            facts.last_play = now
        facts.turn_since = now
        if game.round_over(state):
            self.round_over(now, out)

    def _refuse(self, held: Held, refusal: dict[str, Any], out: Outbox) -> None:
        """A move the rules refuse: the refusal journaled, and sent to a client that asked
        (the table's own moves and stand-in turns, rid -1, are refused to nobody)."""
        self.record_refused(held, refusal)
        peer = self.facts.seats[held.seat].peer if held.rid >= 0 <= held.seat else None
        if peer is not None:
            out.private.append((peer, refusal))

    def _tell(self, held: Held, move: Any, seq: int, round_no: int, data: dict[str, Any],
              events: list[dict[str, Any]], out: Outbox) -> None:
        """The update every screen is sent, and the mover's private half: sealed in the update
        (§23), or in a frame of its own. A stand-in seat whose connection is still open gets
        its private half all the same (§9)."""
        game, seat = self.facts.game, held.seat
        shown = game.public_move(move) if game.hides_moves else data
        hidden_move = shown != data
        secret, public = hidden_move, events
        for event in events:  # (a plain loop: the hot path of every table)
            if "private" in event:
                secret, public = True, public_events(events)
                break
        # The update, with the mover's request id, is the answer to the move (no ``ok``, §7):
        # one frame fewer per move, for the mover and the arbiter.
        update = move_update(seq, round_no, seat, shown, held.rid, public, secret)
        mover = self.facts.seats[seat] if seat >= 0 else None
        owner = mover.peer if mover is not None else None
        if secret and owner is not None:
            key = mover.seal
            half = half_of(events, data if hidden_move else None)
            sealed = seal(key, seq, half, self.packer) if key is not None else None
            if sealed is not None:  # the half rides in the update (§23): no frame of its own
                update["s"] = sealed
            else:  # no key for the seat, or a half too large to seal (§4.2): its own frame
                out.private.append((owner, move_private(seq, events,
                                                        data if hidden_move else None)))
        out.public.append(update)

    def record_refused(self, held: Held, refusal: dict[str, Any]) -> None:
        """A client's move refused in play goes in the journal with its reason, so an auditor
        can check it was refused by the rules (``lan-demon verify``); a race lost (RD-11) also
        with the winner, by how many ms and the stack's top, as the loser was told — what the
        coach's replay review says (``lan-demon replay --coach``). At most
        :data:`REFUSED_PER_ROUND` a seat and round."""
        if held.rid < 0:
            return  # the table's own moves and stand-in turns: nobody asked
        round_no, counts = self.refused
        if round_no != self.facts.match.round_no:
            round_no, counts = self.refused = (self.facts.match.round_no, {})
        journaled = counts.get(held.seat, 0)
        if journaled >= REFUSED_PER_ROUND:
            return
        counts[held.seat] = journaled + 1
        self.record.write("refused", round=self.facts.match.round_no, seat=held.seat,
                   move=held.move.to_data(), at=held.arrival,
                   ts=held.claimed if held.claimed is not None else held.ts,
                   code=refusal["code"],
                   **{k: refusal[k] for k in ("rule", "by", "ms", "top")
                      if refusal.get(k) is not None})

    def refusal_for(self, held: Held, err: IllegalMove) -> dict[str, Any]:
        """The error for a refused move. A card whose place another seat's card took first
        was beaten (RD-11), whatever else the engine sees wrong with it now: the error says
        who, on which stack (as it showed before), and by how many milliseconds."""
        game, state = self.facts.game, self.facts.state
        place = held.place
        if place == AS_IT_ARRIVED:  # (a refused move moved nothing: it is still where it was)
            place = game.destination(state, held.seat, held.move)
        lost = self.races.verdict(state, held.seat, held.move, place, held.ts, err.rule)
        if lost is None:
            return make("error", re=held.rid, code="illegal", reason=err.reason, rule=err.rule)
        if isinstance(lost, Taken):
            who = self._name_of(lost.by)
            return make("error", re=held.rid, code="beaten",
                        reason=f"{who} got to {lost.place} first", rule="RD-11", by=lost.by,
                        stack=stack_id(lost.place))
        who, top = self._name_of(lost.by), lost.top
        where = f"the {top.symbol} stack" if top is not None else f"stack {lost.stack}"
        return make("error", re=held.rid, code="beaten",
                    reason=f"{who} got to {where} first, by {lost.ms} ms", rule="RD-11",
                    by=lost.by, stack=lost.stack, top=top.code if top is not None else None,
                    ms=lost.ms)

    def _name_of(self, index: int | None) -> str:
        """The name of the seat that won a race, "someone" if it is no seat."""
        seats = self.facts.seats
        return seats[index].name if index is not None and 0 <= index < len(seats) else "someone"

    def new_ids(self, peer: bytes) -> RecentIds:
        """The move ids of a connection not heard moving before (a new one, or one forgotten)."""
        forget_strangers(self.facts.seats, self.move_ids)
        ids = self.move_ids[peer] = RecentIds()
        return ids
