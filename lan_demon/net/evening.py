"""The host runs the evening: the whole table paused and resumed, and a seat removed
(PROTOCOL.md §24).

Who may: the host, from its own terminal (``by`` :data:`HOST`), and the table's captain
(``pause``, ``resume``, ``remove`` messages). A table paused longer than :data:`PAUSE_LIMIT`
may be resumed by any person seated: a captain who paused and went home does not hold the
evening hostage.

A pause stops every clock the arbiter keeps: the countdown to Go, RD-13's minute without a
play, the turn timeout of stand-in turns (Rack-O, Gin Solitaire), the pause between rounds
(``next_at``) and the five minutes a seat that went away is kept. While paused no move is
taken (refused ``paused``, naming who paused and who may resume); on resume each of those
clocks is moved on by the time the table stood still, so none of them counted it.

A removed seat is given up for good, as a player who left and was not back in time: its
token no longer takes it back (``removed``), its cards stay where they lie and still score
(RD-14), and the table plays on without it as it does for any absent seat (RD-13's vote is
said for it; its Rack-O and Gin Solitaire turns are played the plainest way). Its score
stays in the match: removing a seat is no way to dodge one, and nobody removes their own.
Or, with a level, the seat is handed to a bot that plays it on (:mod:`lan_demon.net.handover`).

Plain functions of the table's state, no sockets: each takes the arbiter's core, ``arb``
(:class:`lan_demon.net.arbiter.Arbiter`), first.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from lan_demon.net import handover
from lan_demon.net.codec import ProtocolError, make
from lan_demon.net.outbox import Outbox
from lan_demon.net.seats import (RUNNING, TOKEN_LIFE, Seat, captain, gone, kept, player_seat,
                                 presence)

HOST = -1  # ``by`` of what the host did from its own terminal
PAUSE_LIMIT = 600.0  # seconds paused after which any person seated may resume
# Bounds (PROTOCOL.md §2): a pause and its resume are two records and two updates on every
# screen, so a seat pauses the table at most once in PAUSE_GAP seconds (``too_many``, with
# the wait); the host, at its own terminal, is not braked. Lobby seats removed are remembered
# (their tokens refused ``removed``) up to REMOVED_KEPT, the oldest forgotten first.
PAUSE_GAP = 10.0
REMOVED_KEPT = 64


@dataclass(frozen=True)
class Pause:
    """Who paused the table (a seat, or :data:`HOST`), their name in words, and when."""

    by: int
    name: str
    since: float

    def words(self) -> str:
        return "the host" if self.by == HOST else self.name


def name_of(arb, by: int) -> str:
    """``by`` in words: "the host", or the seat's name."""
    return "the host" if by == HOST else arb.seats[by].name


def _captain_only(arb, seat: Seat, what: str) -> None:
    if seat.index != captain(arb):
        who = captain(arb)
        named = arb.seats[who].name if who is not None else "nobody"
        raise ProtocolError("not_host", f"only the captain ({named}) or the host may {what}")


# --- messages -----------------------------------------------------------------------------

def on_pause(arb, peer: bytes, seat: Seat | None, msg: dict, now: float,
             out: Outbox) -> None:
    player = player_seat(arb, seat, peer)
    _captain_only(arb, player, "pause the table")
    wait = arb.seat_paused_at + PAUSE_GAP - now
    if wait > 0 and arb.paused is None:
        out.private.append((peer, make(
            "error", re=msg["id"], code="too_many", wait=wait,
            reason=f"the table was paused less than {PAUSE_GAP:g} s ago: a seat pauses it "
                   f"at most once in {PAUSE_GAP:g} s; try again in {math.ceil(wait)} s")))
        return
    pause(arb, player.index, now, out)
    arb.seat_paused_at = now
    out.private.append((peer, make("ok", re=msg["id"])))


def on_resume(arb, peer: bytes, seat: Seat | None, msg: dict, now: float,
              out: Outbox) -> None:
    player = player_seat(arb, seat, peer)
    paused = arb.paused
    if paused is not None and player.index not in (captain(arb), paused.by) and \
            (player.bot or now - paused.since < PAUSE_LIMIT):
        raise ProtocolError("not_host", f"{paused.words()} paused the table: the captain or "
                            f"the host resumes it (any player may after {PAUSE_LIMIT / 60:g} "
                            f"minutes paused; {_left(paused, now)} to go)")
    resume(arb, player.index, now, out)
    out.private.append((peer, make("ok", re=msg["id"])))


def on_remove(arb, peer: bytes, seat: Seat | None, msg: dict, now: float,
              out: Outbox) -> None:
    player = player_seat(arb, seat, peer)
    _captain_only(arb, player, "remove a seat")
    remove(arb, player.index, msg["seat"], now, out, bot=msg.get("bot"))
    out.private.append((peer, make("ok", re=msg["id"])))


def _left(paused: Pause, now: float) -> str:
    seconds = max(0, int(PAUSE_LIMIT - (now - paused.since) + 0.999))
    return f"{seconds // 60}:{seconds % 60:02d}"


# --- decisions (the host's terminal calls these directly, ``by`` HOST) ----------------------

def pause(arb, by: int, now: float, out: Outbox) -> None:
    """Stop every clock of the table. Moves already held in RD-11's fairness window are
    judged first, so that every move the journal commits comes before the pause."""
    if arb.paused is not None:
        raise ProtocolError("paused", f"the table is paused already, by "
                            f"{arb.paused.words()}")
    if arb.phase not in RUNNING:
        raise ProtocolError("not_playing", "nothing is running to pause: "
                            + ("the match has not started" if arb.phase == "lobby"
                               else "the match is over"))
    if arb.held:
        arb._release(now, out)
    arb.paused = Pause(by, name_of(arb, by), now)
    arb.record("pause", by=by, at=now)
    arb._publish(out, "pause", by=by, name=arb.paused.name, at=now)


def resume(arb, by: int, now: float, out: Outbox) -> None:
    """Start the clocks again, each moved on by the time the table stood still."""
    paused = arb.paused
    if paused is None:
        raise ProtocolError("not_paused", "the table is not paused")
    still = max(0.0, now - paused.since)
    arb.paused, arb.resumed_by = None, name_of(arb, by)
    shift(arb, still)
    arb.record("resume", by=by, at=now, paused=still)
    arb._publish(out, "resume", by=by, name=name_of(arb, by), at=now, paused=still)


def shift(arb, still: float) -> None:
    """Every clock of the table moved on by ``still`` seconds (a pause's length)."""
    arb.go_at += still
    arb.last_play += still
    arb.turn_since += still
    arb.between_since += still
    if arb.encore_until is not None:
        arb.encore_until += still
    for seat in arb.seats:
        if seat.away_since is not None:
            seat.away_since += still


def remove(arb, by: int, index: int, now: float, out: Outbox, bot: int | None = None) -> str:
    """Give seat ``index`` up for good (see the module's notes), or with ``bot`` hand it to a
    bot of that level (net/handover.py); the seat's name after it."""
    if not 0 <= index < len(arb.seats):
        raise ProtocolError("bad_seat", f"there is no seat {index + 1} at this table "
                            f"({len(arb.seats)} seats)")
    target = arb.seats[index]
    if target.removed:
        raise ProtocolError("bad_seat", f"{target.name} was removed already")
    if index == by:
        raise ProtocolError("bad_seat", "nobody removes their own seat: to leave, quit (q); "
                            f"your seat is kept {TOKEN_LIFE / 60:g} minutes and your score "
                            "stays in the match")
    if bot is not None:
        handover.check(arb, by, target, bot)
        return handover.hand_over(arb, by, name_of(arb, by), target, bot, now, out)
    target.removed, target.removed_by = True, name_of(arb, by)
    if arb.phase == "lobby":  # the seat is freed; its token must not sit its client down again
        arb.removed_tokens[target.token] = target
        for old in list(arb.removed_tokens)[:-REMOVED_KEPT]:
            del arb.removed_tokens[old]  # (its token is then unknown: refused all the same)
    arb.record("remove", seat=index, by=by, at=now)
    arb._publish(out, "removed", seat=index, name=target.name, by=by, by_name=name_of(arb, by))
    if target.status != "left":  # (one that left already is only marked)
        gone(arb, target, now, out)  # (in the lobby the seats after it move up one)
    return target.name


