"""The table's clock: heartbeats and clock probes, RD-13's minute without a play, and the
moves nobody at the table makes (an absent player's RD-13 vote or Rack-O turn, played for it).

Plain functions of the table's state and the time given, no sockets and no clock of their own:
each takes the arbiter's core, ``arb`` (:class:`lan_demon.net.arbiter.Arbiter`), first; what
they need of the other pieces (commit, publish) they reach through it.
"""

from __future__ import annotations

from collections import deque

from lan_demon.games import TABLE, GameError
from lan_demon.games.demon_stuck import STUCK_TIMEOUT
from lan_demon.net.codec import make
from lan_demon.net.outbox import Outbox
from lan_demon.net.race import Held
from lan_demon.net.seats import Seat

BEAT_INTERVAL = 1.0  # seconds between heartbeats, both ways
PROBES_KEPT = 8  # probes per connection whose echo is still awaited


def table_moves(arb, now: float, out: Outbox) -> None:
    """Moves nobody at the table makes: RD-13's minute without a play, an absent player's
    Rack-O turn (draw and discard, so the table is not stuck) while a person is still here."""
    if arb.game.races and now - arb.last_play >= STUCK_TIMEOUT:
        arb.last_play = now
        arb._commit(Held(now, now, TABLE, -1, arb.game.move_from_data({"t": "timeout"})),
                    now, out)
        return
    if arb.game.simultaneous and arb.game.races:
        absent_votes(arb, now, out)
        return
    if nobody_here(arb):
        return
    for index in arb.game.to_move(arb.state):
        seat = arb.seats[index]
        absent_for = now - max(arb.turn_since, seat.away_since or now)
        if seat.status != "here" and (seat.stepped_out
                                      or absent_for >= arb.settings.turn_timeout):
            stand_in(arb, seat, now, out)


def nobody_here(arb) -> bool:
    """Every person at the table is away or gone (a table of bots alone does not count).
    Stand-in turns keep the table moving for those still playing; with nobody to play for they
    would only spin the match on, several turns a second, to an end nobody saw (found in a
    newcomer's trial): the table waits for someone to come back instead."""
    people = [s for s in arb.seats if not s.bot]
    return bool(people) and all(s.status != "here" for s in people)


def absent_votes(arb, now: float, out: Outbox) -> None:
    """RD-13 waits for "every player still in the round". A player who has left, or been
    away past the turn timeout, is not playing: the arbiter says "stuck" for them, so the
    others are not held to the 60-second timeout by an empty chair. Their cards stay in the
    round and still score (RD-14); any play clears every vote, and this one is said again."""
    for seat in arb.seats:
        if seat.status == "here" or seat.away_since is None:
            continue
        if seat.status == "away" and not seat.stepped_out and \
                now - seat.away_since < arb.settings.turn_timeout:
            continue
        vote = arb.game.move_from_data({"t": "stuck"})
        try:
            arb.game.check(arb.state, seat.index, vote)
        except GameError:
            continue  # voted already, out, or the round is over
        arb._commit(Held(now, now, seat.index, -1, vote), now, out)
        if arb.phase != "playing":
            return


def stand_in(arb, seat: Seat, now: float, out: Outbox) -> None:
    """Play an absent seat's turn the plainest way — draw, then discard (RK-4, GS-4) — so
    the table is not stuck waiting for someone who has gone."""
    for _ in range(3):
        legal = arb.game.legal_moves(arb.state, seat.index)
        kinds = {m.to_data()["t"]: m for m in reversed(legal)}
        move = kinds.get("draw") or kinds.get("discard")
        if move is None or arb.phase != "playing":
            return
        arb._commit(Held(now, now, seat.index, -1, move), now, out)
        if move.to_data()["t"] == "discard":
            return


def beat(arb, now: float, out: Outbox) -> None:
    arb.throttle.prune(now)
    if arb.phase == "over" and arb.encore_until is not None:
        arb._publish(out, "match_end", result=arb.result)  # for those coming back
    out.public.append(make("beat", seq=arb.seq, a=now, hash=arb.public_hash()))
    for seat in arb.seats:
        if seat.status == "here" and seat.peer is not None:
            probe(arb, seat, now, out)


def probe(arb, seat: Seat, now: float, out: Outbox) -> None:
    if seat.peer not in arb.probes:
        arb._forget_strangers(arb.probes)
    arb.probes.setdefault(seat.peer, deque(maxlen=PROBES_KEPT)).append(now)
    out.private.append((seat.peer, make("probe", a=now)))


def on_ping(arb, peer: bytes, seat: Seat | None, msg: dict, now: float,
            out: Outbox) -> None:
    out.private.append((peer, make("pong", re=msg["id"], c=msg["c"], a=now)))


def on_echo(arb, peer: bytes, seat: Seat | None, msg: dict, now: float,
            out: Outbox) -> None:
    # Only the echo of a probe this connection was sent counts, once: a made-up ``a``
    # would make up a delay, and with it an earlier timestamp allowed (§8).
    sent = arb.probes.get(peer)
    if seat is None or not sent or msg["a"] not in sent:
        return
    sent.remove(msg["a"])
    if 0 <= now - msg["a"] < 10:
        seat.rtts = (seat.rtts + [now - msg["a"]])[-8:]
