"""A table whose journal cannot be written (PROTOCOL.md §25): it stands still, says why, and goes
on by itself once the disk takes the journal again — and nobody is ever shown what a resume
would not bring back.

Why this way: a move is applied in memory before its record is written, and a crashed host is
resumed from the journal alone. Were an update published whose record the disk refused, every
screen would show a move a resumed host knows nothing of (issue 30: 176 of 184 moves seen were
gone after a resume). So what a step said waits with its records: :class:`JournalWriter
<lan_demon.net.journal.JournalWriter>` keeps the records a write failed on, in order, and
:func:`outgoing` — the one way anything the arbiter says leaves it — holds back every outbox
made while records wait, until :func:`tick` finds they are written. Meanwhile the table stands
as for a pause (§24: every clock stops, and starts again moved on by the time it stood), except
that nothing is journaled: a frame is answered only if answering changes nothing (a ``ping``,
an ``echo``, a ``hb``); any other is refused ``stalled``, and the PUB says ``stall`` once a
second, so every screen says why and no client takes the silence for a lost host.

Plain functions of the table's state, no sockets: each takes the arbiter's core, ``arb``
(:class:`lan_demon.net.arbiter.Arbiter`), first.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lan_demon.net import evening
from lan_demon.net.codec import ProtocolError, make
from lan_demon.net.outbox import Outbox
from lan_demon.net.seats import Seat

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


def outgoing(arb, out: Outbox, now: float) -> Outbox:
    """What of ``out`` may be sent now. An outbox made while records wait that the journal
    could not write is held, whole and in order, until they are (a step's records and what
    it says go out together); the first such outbox stalls the table. What a stalled table
    says itself (``out.stalled``: its refusals, pongs and notices) goes at once."""
    journal = arb.journal
    if journal is None or not journal.pending or out.stalled:
        return out
    stall = arb.stall
    if stall is None:
        stall = arb.stall = Stall(now, journal.why or "io_error",
                                  getattr(journal.failed, "strerror", None) or "write failed",
                                  next_try=now + RETRY_EVERY)
    if out.public or out.private:
        stall.held.append(out)
    sent = Outbox(stalled=True)
    if now >= stall.next_notice:
        notice(arb, now, sent)
    return sent


def on_frame(arb, peer: bytes, seat: Seat | None, msg: dict, now: float, out: Outbox) -> None:
    """A frame at a stalled table: answered if that changes nothing, refused ``stalled``
    otherwise. Nothing here publishes or journals: a seat away stays away until the table
    goes on (its presence is an update, numbered after those that wait)."""
    out.stalled = True
    if seat is not None:
        seat.heard = now
    kind = msg["t"]
    if kind in HARMLESS:
        getattr(arb, "_on_" + kind)(peer, seat, msg, now, out)
        return
    if kind == "hello" and seat is None:  # (a newcomer's program stops here: say what to do)
        raise ProtocolError("stalled", f"{arb.stall.cause()}: nobody can sit down or watch "
                            "until the host frees some space; try again in a minute")
    raise ProtocolError("stalled", arb.stall.words())


def notice(arb, now: float, out: Outbox, on: bool = True) -> None:
    """The PUB's word that the table stands still (``on``) or goes on (§25): not numbered,
    so that a client's update numbers see no gap."""
    stall = arb.stall
    stall.next_notice = now + NOTICE_EVERY
    out.public.append(make("stall", on=on, why=stall.why, stood=max(0.0, now - stall.since)))


def tick(arb, now: float) -> Outbox:
    """Time passing at a stalled table: try the journal again now and then; once it takes
    what waited, send what waited and go on (the table's clocks moved on by the time it
    stood); otherwise say once a second that it still stands."""
    stall = arb.stall
    out = Outbox(stalled=True)
    if now >= stall.next_try:
        stall.next_try = now + RETRY_EVERY
        if arb.journal.retry():
            return go_on(arb, now)
    if now >= stall.next_notice:
        notice(arb, now, out)
    return out


def go_on(arb, now: float) -> Outbox:
    """The journal took what waited: the table's clocks move on by the time it stood (unless
    a pause (§24) holds them still anyway: its resume moves them on), what waited is sent in
    order, then the word that the table goes on."""
    stall = arb.stall
    out = Outbox()
    for held in stall.held:
        out.extend(held)
    notice(arb, now, out, on=False)
    arb.stall = None
    stood = max(0.0, now - stall.since)
    if arb.paused is None:
        evening.shift(arb, stood)
        if arb.held_until is not None:  # RD-11's window, as long as it had left
            arb.held_until += stood
    return out


def next_deadline(arb) -> float:
    """When a stalled table next has something to do: a try, or a notice."""
    stall = arb.stall
    return min(stall.next_try, stall.next_notice)
