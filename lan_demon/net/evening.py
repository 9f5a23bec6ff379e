"""The host runs the evening: the whole table paused and resumed, and a seat removed
(PROTOCOL.md §24).

Who may: the host, from its own terminal (``by`` :data:`~lan_demon.net.table_facts.HOST`),
and the table's captain (``pause``, ``resume``, ``remove`` messages). A table paused longer
than :data:`PAUSE_LIMIT` may be resumed by any person seated: a captain who paused and went
home does not hold the evening hostage.

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
"""

from __future__ import annotations

import math

from lan_demon.net.codec import ProtocolError, make
from lan_demon.net.handover import Handovers
from lan_demon.net.outbox import Outbox
from lan_demon.net.race import Race
from lan_demon.net.record import Record
from lan_demon.net.seated import Seat
from lan_demon.net.seats import TOKEN_LIFE, Seats
from lan_demon.net.table_facts import RUNNING, Pause, TableFacts
PAUSE_LIMIT = 600.0  # seconds paused after which any person seated may resume
# Bounds (PROTOCOL.md §2): a pause and its resume are two records and two updates on every
# screen, so a seat pauses the table at most once in PAUSE_GAP seconds (``too_many``, with
# the wait); the host, at its own terminal, is not braked. Lobby seats removed are remembered
# (their tokens refused ``removed``) up to REMOVED_KEPT, the oldest forgotten first.
PAUSE_GAP = 10.0
REMOVED_KEPT = 64


class Evening:
    """The pause, the resume and the removal of a seat, by the host or the captain."""

    def __init__(self, facts: TableFacts, seats: Seats, race: Race, record: Record,
                 handovers: Handovers):
        self.facts, self.seats, self.race, self.record = facts, seats, race, record
        self.handovers = handovers
        self.resumed_by = ""  # who last resumed it, in words (the host's log says it)
        self.seat_paused_at = float("-inf")  # the last pause by a seat (PAUSE_GAP)

    def _captain_only(self, seat: Seat, what: str) -> None:
        who = self.seats.captain()
        if seat.index != who:
            named = self.facts.seats[who].name if who is not None else "nobody"
            raise ProtocolError("not_host", f"only the captain ({named}) or the host may {what}")

    # --- messages ---------------------------------------------------------------------------

    def on_pause(self, peer: bytes, seat: Seat | None, msg: dict, now: float,
                 out: Outbox) -> None:
        player = self.seats.player(seat, peer)
        self._captain_only(player, "pause the table")
        wait = self.seat_paused_at + PAUSE_GAP - now
        if wait > 0 and self.facts.paused is None:
            out.private.append((peer, make(
                "error", re=msg["id"], code="too_many", wait=wait,
                reason=f"the table was paused less than {PAUSE_GAP:g} s ago: a seat pauses it "
                       f"at most once in {PAUSE_GAP:g} s; try again in {math.ceil(wait)} s")))
            return
        self.pause(player.index, now, out)
        self.seat_paused_at = now
        out.private.append((peer, make("ok", re=msg["id"])))

    def on_resume(self, peer: bytes, seat: Seat | None, msg: dict, now: float,
                  out: Outbox) -> None:
        player = self.seats.player(seat, peer)
        paused = self.facts.paused
        if paused is not None and player.index not in (self.seats.captain(), paused.by) and \
                (player.bot or now - paused.since < PAUSE_LIMIT):
            raise ProtocolError("not_host", f"{paused.words()} paused the table: the captain or "
                                f"the host resumes it (any player may after {PAUSE_LIMIT / 60:g} "
                                f"minutes paused; {_left(paused, now)} to go)")
        self.resume(player.index, now, out)
        out.private.append((peer, make("ok", re=msg["id"])))

    def on_remove(self, peer: bytes, seat: Seat | None, msg: dict, now: float,
                  out: Outbox) -> None:
        player = self.seats.player(seat, peer)
        self._captain_only(player, "remove a seat")
        self.remove(player.index, msg["seat"], now, out, bot=msg.get("bot"))
        out.private.append((peer, make("ok", re=msg["id"])))

    # --- decisions (the host's terminal calls these directly, ``by`` HOST) --------------------

    def pause(self, by: int, now: float, out: Outbox) -> None:
        """Stop every clock of the table. Moves already held in RD-11's fairness window are
        judged first, so that every move the journal commits comes before the pause."""
        if self.facts.paused is not None:
            raise ProtocolError("paused", f"the table is paused already, by "
                                f"{self.facts.paused.words()}")
        if self.facts.phase not in RUNNING:
            why = "the match has not started" if self.facts.phase == "lobby" else \
                "the match is over"
            raise ProtocolError("not_playing", f"nothing is running to pause: {why}")
        if self.race.held:
            self.race.release(now, out)
        self.facts.paused = Pause(by, self.facts.name_of(by), now)
        self.record.write("pause", by=by, at=now)
        self.record.publish(out, "pause", by=by, name=self.facts.paused.name, at=now)

    def resume(self, by: int, now: float, out: Outbox) -> None:
        """Start the clocks again, each moved on by the time the table stood still."""
        paused = self.facts.paused
        if paused is None:
            raise ProtocolError("not_paused", "the table is not paused")
        still = max(0.0, now - paused.since)
        self.facts.paused, self.resumed_by = None, self.facts.name_of(by)
        self.facts.shift(still)
        self.record.write("resume", by=by, at=now, paused=still)
        self.record.publish(out, "resume", by=by, name=self.facts.name_of(by), at=now,
                            paused=still)

    def remove(self, by: int, index: int, now: float, out: Outbox,
               bot: int | None = None) -> str:
        """Give seat ``index`` up for good (see the module's notes), or with ``bot`` hand it to
        a bot of that level (net/handover.py); the seat's name after it."""
        if not 0 <= index < len(self.facts.seats):
            raise ProtocolError("bad_seat", f"there is no seat {index + 1} at this table "
                                f"({len(self.facts.seats)} seats)")
        target = self.facts.seats[index]
        if target.removed:
            raise ProtocolError("bad_seat", f"{target.name} was removed already")
        if index == by:
            raise ProtocolError("bad_seat", "nobody removes their own seat: to leave, quit (q); "
                                f"your seat is kept {TOKEN_LIFE / 60:g} minutes and your score "
                                "stays in the match")
        if bot is not None:
            self.handovers.check(by, target, bot)
            return self.handovers.hand_over(by, self.facts.name_of(by), target, bot, now, out)
        target.removed, target.removed_by = True, self.facts.name_of(by)
        if self.facts.phase == "lobby":
            self.seats.keep_removed(target, REMOVED_KEPT)
        self.record.write("remove", seat=index, by=by, at=now)
        self.record.publish(out, "removed", seat=index, name=target.name, by=by,
                            by_name=self.facts.name_of(by))
        if target.status != "left":  # (one that left already is only marked)
            self.seats.gone(target, now, out)  # (in the lobby the seats after it move up one)
        return target.name


def _left(paused: Pause, now: float) -> str:
    """The time until any person seated may resume, as m:ss."""
    seconds = max(0, int(PAUSE_LIMIT - (now - paused.since) + 0.999))
    return f"{seconds // 60}:{seconds % 60:02d}"
