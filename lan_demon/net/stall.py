"""A table whose journal cannot be written (PROTOCOL.md §25): it stands still, says why, and goes
on by itself once the disk takes the journal again — and nobody is ever shown what a resume
would not bring back.

Why this way: a move is applied in memory before its record is written, and a crashed host is
resumed from the journal alone. Were an update published whose record the disk refused, every
screen would show a move a resumed host knows nothing of. So what a step said waits with its
records: :class:`JournalWriter <lan_demon.net.journal.JournalWriter>` keeps the records a write
failed on, in order, and :meth:`Standstill.outgoing` — the one way anything the arbiter says
leaves it — holds back every outbox made while records wait, until :meth:`Standstill.tick`
finds they are written. Meanwhile the table stands as for a pause (§24: every clock stops, and
starts again moved on by the time it stood), except that nothing is journaled: a frame is
answered only if answering changes nothing (a ``ping``, an ``echo``, a ``hb``); any other is
refused ``stalled``, and the PUB says ``stall`` once a second, so every screen says why and no
client takes the silence for a lost host.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from lan_demon.net.codec import ProtocolError, make
from lan_demon.net.outbox import Outbox
from lan_demon.net.race import Race
from lan_demon.net.record import Record
from lan_demon.net.seated import Seat
from lan_demon.net.table_facts import TableFacts

NOTICE_EVERY = 1.0  # seconds between two ``stall`` notices while it lasts (a beat's pace)
RETRY_EVERY = 0.25  # seconds between two tries of the journal's waiting records
#: What a frame may still ask of a stalled table: nothing it answers changes the table.
HARMLESS = frozenset(("ping", "echo", "hb"))
#: Why, in the words every refusal says (a screen words the ``stall`` notice itself).
WHY_WORDS = {
    "disk_full": "the host's disk is full",
    "read_only": "the host's disk will not take the journal (read-only)",
    "io_error": "the host's disk fails to write the journal",
}


@dataclass
class Stall:
    """The table stands still because its journal cannot be written."""

    since: float  # when the first write failed (the arbiter's clock)
    why: str  # disk_full, read_only or io_error (§25)
    error: str  # the operating system's words, for the host's terminal
    held: list[Outbox] = field(default_factory=list)  # what waits to be sent, in order
    next_notice: float = 0.0
    next_try: float = 0.0

    def cause(self) -> str:
        """Why, in words: "the host's disk is full"."""
        return WHY_WORDS.get(self.why, WHY_WORDS["io_error"])

    def words(self) -> str:
        """What a refused frame is told (and the host's commands)."""
        return f"{self.cause()}: the table waits until the journal can be written, then goes " \
               "on by itself"


#: A message's handler, as the arbiter dispatches it: (peer, its seat or None, the message,
#: now, the outbox); ``hello`` and ``snapshot`` also take the sender.
Handler = Callable[..., None]


class Standstill:
    """Whether the table stands for its journal, and what waits meanwhile."""

    def __init__(self, facts: TableFacts, record: Record, race: Race,
                 harmless: dict[str, Handler]):
        """``harmless``: the handlers of :data:`HARMLESS` messages, answered while it stands."""
        self.facts, self.record, self.race = facts, record, race
        self.harmless = harmless
        self.stall: Stall | None = None

    def outgoing(self, out: Outbox, now: float) -> Outbox:
        """What of ``out`` may be sent now. An outbox made while records wait that the journal
        could not write is held, whole and in order, until they are (a step's records and what
        it says go out together); the first such outbox stalls the table. What a stalled table
        says itself (``out.stalled``: its refusals, pongs and notices) goes at once."""
        journal = self.record.journal
        if journal is None or not journal.pending or out.stalled:
            return out
        stall = self.stall
        if stall is None:
            stall = self.stall = Stall(now, journal.why or "io_error",
                                      getattr(journal.failed, "strerror", None) or "write failed",
                                      next_try=now + RETRY_EVERY)
        if out.public or out.private:
            stall.held.append(out)
        sent = Outbox(stalled=True)
        if now >= stall.next_notice:
            self.notice(now, sent)
        return sent

    def on_frame(self, peer: bytes, seat: Seat | None, msg: dict, now: float,
                 out: Outbox) -> None:
        """A frame at a stalled table: answered if that changes nothing, refused ``stalled``
        otherwise. Nothing here publishes or journals: a seat away stays away until the table
        goes on (its presence is an update, numbered after those that wait)."""
        out.stalled = True
        if seat is not None:
            seat.heard = now
        kind = msg["t"]
        if kind in HARMLESS:
            self.harmless[kind](peer, seat, msg, now, out)
            return
        if kind == "hello" and seat is None:  # (a new client's program stops here: say what to do)
            raise ProtocolError("stalled", f"{self.stall.cause()}: nobody can sit down or watch "
                                "until the host frees some space; try again in a minute")
        raise ProtocolError("stalled", self.stall.words())

    def notice(self, now: float, out: Outbox, on: bool = True) -> None:
        """The PUB's word that the table stands still (``on``) or goes on (§25): not numbered,
        so that a client's update numbers see no gap."""
        stall = self.stall
        stall.next_notice = now + NOTICE_EVERY
        out.public.append(make("stall", on=on, why=stall.why, stood=max(0.0, now - stall.since)))

    def tick(self, now: float) -> Outbox:
        """Time passing at a stalled table: try the journal again now and then; once it takes
        what waited, send what waited and go on (the table's clocks moved on by the time it
        stood); otherwise say once a second that it still stands."""
        stall = self.stall
        out = Outbox(stalled=True)
        if now >= stall.next_try:
            stall.next_try = now + RETRY_EVERY
            if self.record.journal.retry():
                return self.go_on(now)
        if now >= stall.next_notice:
            self.notice(now, out)
        return out

    def go_on(self, now: float) -> Outbox:
        """The journal took what waited: the table's clocks move on by the time it stood (unless
        a pause (§24) holds them still anyway: its resume moves them on), what waited is sent in
        order, then the word that the table goes on."""
        stall = self.stall
        out = Outbox()
        for held in stall.held:
            out.extend(held)
        self.notice(now, out, on=False)
        self.stall = None
        stood = max(0.0, now - stall.since)
        if self.facts.paused is None:
            self.facts.shift(stood)
            if self.race.held_until is not None:  # RD-11's window, as long as it had left
                self.race.held_until += stood
        return out

    def next_deadline(self) -> float:
        """When a stalled table next has something to do: a try, or a notice."""
        stall = self.stall
        return min(stall.next_try, stall.next_notice)
