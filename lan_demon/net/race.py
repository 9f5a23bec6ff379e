"""The race (RD-11): a move's timestamp believed within the lag cap, the fairness hold,
settling rivals by timestamp, and the commit — a move applied, numbered and broadcast.

The hot path of the table: ``on_move`` -> (``hold`` -> ``release``) -> ``commit``. Who was
beaten, and by how much, is judged by :mod:`lan_demon.games.demon_races` (pure); this module
turns its verdict into the error a client is sent. Plain functions of the table's state, no
sockets: each takes the arbiter's core, ``arb`` (:class:`lan_demon.net.arbiter.Arbiter`), first;
what they need of the other pieces (the seat of a peer, publish, record, the round's end) they
reach through it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from lan_demon.games import BadMove, GameError, IllegalMove
from lan_demon.games.base import public_events
from lan_demon.games.demon_races import Taken, placed, stack_id
from lan_demon.games.demon_stuck import restarts_minute
from lan_demon.net.codec import VERSION, ProtocolError, make
from lan_demon.net.guard import RecentIds
from lan_demon.net.outbox import Outbox
from lan_demon.net.seal import half_of, seal
from lan_demon.net.seats import Seat

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


def on_move(arb, peer: bytes, seat: Seat | None, msg: dict, now: float,
            out: Outbox) -> None:
    player = seat if seat is not None else arb._player(seat, peer)  # (None: it raises)
    rid = msg["id"]
    ids = arb.move_ids.get(peer)
    if ids is None:  # (not setdefault: that would build a RecentIds for every move)
        ids = new_ids(arb, peer)
    if not ids.add(rid):
        raise ProtocolError("duplicate", f"move {rid} was already sent on this "
                            "connection; a move is never applied twice")
    try:
        move = arb.game.move_from_data(msg["move"])
    except GameError as err:
        raise ProtocolError("bad_move", str(err)) from None
    if arb.phase != "playing":
        after_round(arb, player, msg, move, out)
        return
    if arb.paused is not None:
        raise ProtocolError("paused", f"the table is paused by {arb.paused.words()}: "
                            "no card moves until the captain or the host resumes it")
    if msg["round"] != arb.match.round_no:
        raise ProtocolError("wrong_round", f"the round in progress is {arb.match.round_no}, "
                            f"not {msg['round']}")
    brake = arb.seat_moves
    if brake.rate and brake.admit(player.index, now) != brake.ADMIT:
        raise ProtocolError("rate_limited", f"more than {brake.rate:g} moves a second from "
                            f"one seat (bursts of {brake.burst:g}): this one was not taken")
    # The claimed time is believed only between the earliest the network allows (the
    # measured delay and the tolerance, together capped at lag_cap_ms: slow echoes buy no
    # more) and the arrival: never a way to jump the queue by more than the cap (§8).
    index, claimed = player.index, msg["ts"]
    credit = min(player.one_way() + TOLERANCE, arb.settings.lag_cap_ms / 1000)  # (>= 0)
    earliest = now - credit
    ts = claimed if earliest <= claimed <= now else earliest if claimed < earliest else now
    held = Held(ts, now, index, rid, move, AS_IT_ARRIVED, claimed)
    if index in arb.queued:  # keep a seat's moves in the order it sent them
        held.place = arb.game.destination(arb.state, index, move)
        arb.queued[index].append(held)
    elif arb.settings.fairness_ms > 0 and arb.game.rivals(arb.state, index, move):
        held.place = arb.game.destination(arb.state, index, move)
        hold(arb, held, now)
    else:
        commit(arb, held, now, out)


def after_round(arb, player: Seat, msg: dict, move: Any, out: Outbox) -> None:
    """A move for the round that just ended is refused by the rule that ended it (RD-12:
    nothing is played after OUT; a second OUT counts for nothing)."""
    just_ended = arb.match is not None and msg["round"] == arb.match.round_no - 1
    if not just_ended or arb.state is None:
        raise ProtocolError("not_playing", f"no round is in progress ({arb.phase})")
    try:  # (check: what apply would say, without copying the table: a bot's moves in
        # flight at every round end come here, each round)
        arb.game.check(arb.state, player.index, move)
    except IllegalMove as err:
        out.private.append((player.peer, make("error", re=msg["id"], code="illegal",
                                              reason=err.reason, rule=err.rule)))
        return
    except GameError:
        pass
    raise ProtocolError("not_playing", "the round is over")


def drop_in_flight(arb, out: Outbox) -> None:
    """Moves still held or queued when the round ends are answered, not forgotten."""
    waiting = arb.held + [h for hs in arb.queued.values() for h in hs]
    arb.held, arb.held_until, arb.queued = [], None, {}
    for h in waiting:
        peer = arb.seats[h.seat].peer
        try:
            arb.game.check(arb.state, h.seat, h.move)
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


def hold(arb, held: Held, now: float) -> None:
    arb.held.append(held)
    arb.queued[held.seat] = []
    if arb.held_until is None:
        arb.held_until = now + arb.settings.fairness_ms / 1000


def release(arb, now: float, out: Outbox) -> None:
    """The window closed: rivals are settled by timestamp, then what queued behind them."""
    held, queued = sorted(arb.held), arb.queued
    arb.held, arb.held_until, arb.queued = [], None, {}
    for h in held:
        if arb.phase == "playing":
            commit(arb, h, now, out)
    for seat in sorted(queued, key=lambda s: min((q.arrival for q in queued[s]),
                                                 default=0)):
        for h in queued[seat]:
            if arb.phase == "playing":
                commit(arb, h, now, out)


def commit(arb, held: Held, now: float, out: Outbox) -> None:
    seat, move, game = held.seat, held.move, arb.game
    # The table's own moves and stand-in turns (rid -1) are refused to nobody; a stand-in
    # seat whose connection is still open gets its private half all the same (§9)
    mover = arb.seats[seat] if seat >= 0 else None
    owner = mover.peer if mover is not None else None
    peer = owner if held.rid >= 0 else None
    try:
        events = game.apply(arb.state, seat, move)
    except IllegalMove as err:
        refusal = refusal_for(arb, held, err)
        record_refused(arb, held, refusal)
        if peer is not None:
            out.private.append((peer, refusal))
        return
    except BadMove as err:
        refusal = make("error", re=held.rid, code="bad_move", reason=str(err))
        record_refused(arb, held, refusal)
        if peer is not None:
            out.private.append((peer, refusal))
        return
    if game.races:
        arb.races.remember(seat, held.ts, events, arb.state)
        move = placed(move, events)
    seq, round_no = arb._next_seq(), arb.match.round_no
    data = shown = move.to_data()
    if game.hides_moves:
        shown = game.public_move(move)
    hidden_move = shown != data
    secret, public = hidden_move, events
    for event in events:  # (a plain loop: the hot path of every table)
        if "private" in event:
            secret, public = True, public_events(events)
            break
    # The messages are written out rather than made with codec.make (the same maps, key for
    # key): this runs for every move at every table.
    # The update, with the mover's request id, is the answer to the move (no ``ok``, §7): one
    # frame fewer per move, for the mover and the arbiter.
    update = {"v": VERSION, "t": "update", "seq": seq, "k": "move", "round": round_no,
              "seat": seat, "move": shown, "rid": held.rid, "events": public, "p": secret}
    if secret and owner is not None:
        key = mover.seal
        sealed = seal(key, seq, half_of(events, data if hidden_move else None),
                      arb.packer) if key is not None else None
        if sealed is not None:  # the half rides in the update (§23): no frame of its own
            update["s"] = sealed
        else:  # no key for the seat, or a half too large to seal (§4.2): its own frame
            private = {"v": VERSION, "t": "private", "seq": seq, "k": "move", "events": events}
            if hidden_move:
                private["move"] = data
            out.private.append((owner, private))
    out.public.append(update)
    if arb.journal:
        arb.record("move", seq=seq, round=round_no, seat=seat, move=data, at=held.arrival,
                   **({"ts": held.claimed} if held.claimed is not None else {}))
    if restarts_minute(events):
        arb.last_play = now
    arb.turn_since = now
    if game.round_over(arb.state):
        arb._end_round(now, out)


def record_refused(arb, held: Held, refusal: dict[str, Any]) -> None:
    """A client's move refused in play goes in the journal with its reason, so an auditor
    can check it was refused by the rules (``lan-demon verify``); a race lost (RD-11) also
    with the winner, by how many ms and the stack's top, as the loser was told — what the
    coach's replay review says (``lan-demon replay --coach``). At most
    :data:`REFUSED_PER_ROUND` a seat and round."""
    if held.rid < 0:
        return  # the table's own moves and stand-in turns: nobody asked
    round_no, counts = arb.refused
    if round_no != arb.match.round_no:
        round_no, counts = arb.refused = (arb.match.round_no, {})
    journaled = counts.get(held.seat, 0)
    if journaled >= REFUSED_PER_ROUND:
        return
    counts[held.seat] = journaled + 1
    arb.record("refused", round=arb.match.round_no, seat=held.seat,
               move=held.move.to_data(), at=held.arrival,
               ts=held.claimed if held.claimed is not None else held.ts,
               code=refusal["code"],
               **{k: refusal[k] for k in ("rule", "by", "ms", "top")
                  if refusal.get(k) is not None})


def refusal_for(arb, held: Held, err: IllegalMove) -> dict[str, Any]:
    """The error for a refused move. A card whose place another seat's card took first
    was beaten (RD-11), whatever else the engine sees wrong with it now: the error says
    who, on which stack (as it showed before), and by how many milliseconds."""
    place = held.place if held.place != AS_IT_ARRIVED else \
        arb.game.destination(arb.state, held.seat, held.move)  # (a refused move moved nothing)
    lost = arb.races.verdict(arb.state, held.seat, held.move, place, held.ts, err.rule)
    if lost is None:
        return make("error", re=held.rid, code="illegal", reason=err.reason, rule=err.rule)
    if isinstance(lost, Taken):
        by = lost.by
        who = arb.seats[by].name if by is not None and 0 <= by < len(arb.seats) else "someone"
        return make("error", re=held.rid, code="beaten", reason=f"{who} got to {lost.place} first",
                    rule="RD-11", by=by, stack=stack_id(lost.place))
    who = arb.seats[lost.by].name if 0 <= lost.by < len(arb.seats) else "someone"
    top = lost.top
    where = f"the {top.symbol} stack" if top is not None else f"stack {lost.stack}"
    return make("error", re=held.rid, code="beaten",
                reason=f"{who} got to {where} first, by {lost.ms} ms", rule="RD-11",
                by=lost.by, stack=lost.stack, top=top.code if top is not None else None,
                ms=lost.ms)


def new_ids(arb, peer: bytes) -> RecentIds:
    """The move ids of a connection not heard moving before (a new one, or one forgotten)."""
    arb._forget_strangers(arb.move_ids)
    ids = arb.move_ids[peer] = RecentIds()
    return ids
