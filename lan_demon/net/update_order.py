"""In which order a table copy applies what the arbiter publishes: the Clone pattern.

Updates come on the published socket, the private halves of our own (our cards, §7) on our own
socket — or sealed inside the update itself with our welcome's key (§23). Each update is
applied in sequence order once it is complete; until then it waits here. A gap in the
sequence, a beat that says we missed an update, or a private half that does not come is healed
with a snapshot; what :class:`UpdateOrder` decides, the table copy applies
(:meth:`Ordered.apply`).
"""

from __future__ import annotations

from typing import Any, Protocol

from lan_demon.net.codec import ProtocolError, check, make
from lan_demon.net.link import Link
from lan_demon.net.notices import NoticeKind
from lan_demon.net.seal import open_seal, private_of

PRIVATE_WAIT = 1.0  # how long an update may wait for its private half before a resync


class Ordered(Protocol):
    """What the order reads of the table copy it feeds, and how it moves it on."""

    seq: int  # the last update applied
    seat: int | None
    seal_key: bytes | None  # our welcome's key to our sealed halves (§23)

    def notice(self, kind: NoticeKind, text: str = "",
               data: dict[str, Any] | None = None) -> None:
        """Tell the player."""

    def apply(self, update: dict[str, Any], private: dict[str, Any] | None) -> None:
        """The next update in sequence (with its private half, if any) moves the copy on."""


class UpdateOrder:
    """The updates and private halves that have come and wait for their turn, and whether a
    snapshot is asked for, for the table copy that holds them (``holder``)."""

    def __init__(self, holder: Ordered, link: Link):
        self.holder, self.link = holder, link
        self.updates: dict[int, dict[str, Any]] = {}
        self.privates: dict[int, dict[str, Any]] = {}
        self.waiting_since: float | None = None  # (our clock) an update waits for its half
        self.snapshot_asked = False

    @property
    def buffered(self) -> int:
        """How many updates and private halves wait to be applied."""
        return len(self.updates) + len(self.privates)

    def resync(self) -> None:
        """Ask for a snapshot; updates after it are applied when it comes."""
        if not self.snapshot_asked:
            self.snapshot_asked = True
            self.link.send(make("snapshot", id=self.link.next_id()))

    def private_due(self) -> float | None:
        """When an update waiting for its private half stops waiting (None: none waits)."""
        return None if self.waiting_since is None else self.waiting_since + PRIVATE_WAIT

    def tick(self) -> None:
        """An update waited too long for its private half: a snapshot heals it."""
        since = self.waiting_since
        if since is not None and self.link.clock() - since > PRIVATE_WAIT:
            self.waiting_since = None
            self.resync()

    def snapshot_came(self) -> None:
        """A snapshot came: what it was asked for is done."""
        self.snapshot_asked = False

    def snapshot_applied(self) -> None:
        """The copy stands at the snapshot's update: what came before it is dropped, and what
        came after it is applied."""
        seq = self.holder.seq
        self.updates = {s: u for s, u in self.updates.items() if s > seq}
        self.privates = {s: p for s, p in self.privates.items() if s > seq}
        self.advance()

    def missed(self, seq: int) -> bool:
        """A beat says the table is at update ``seq``: True when we missed the next update
        and nothing else will tell us (none waits behind it, no snapshot is asked for)."""
        return seq > self.holder.seq and self.holder.seq + 1 not in self.updates \
            and not self.snapshot_asked

    def on_private(self, msg: dict[str, Any]) -> None:
        if msg["seq"] > self.holder.seq:
            self.privates[msg["seq"]] = msg
            self.advance()

    def on_update(self, msg: dict[str, Any]) -> None:
        seq, copy = msg["seq"], self.holder
        if seq <= copy.seq:
            return
        if "s" in msg and msg.get("seat") == copy.seat and copy.seat is not None:
            self._unseal(msg)
        if seq == copy.seq + 1 and not self.updates and not self.snapshot_asked and \
                (seq in self.privates or not self._needs_private(msg)):
            # The usual case, the next update and nothing waiting: applied at once, without
            # passing through the buffer.
            self.waiting_since = None
            copy.apply(msg, self.privates.pop(seq, None))
            return
        self.updates[seq] = msg
        self.advance()

    def _unseal(self, update: dict[str, Any]) -> None:
        """Our move's private half, sealed in its update with our welcome's key (§23), kept
        as the ``private`` message it stands for. One that does not open (a key from before
        the table was resumed, or altered on the way) is healed by a snapshot at once."""
        seq, key = update["seq"], self.holder.seal_key
        half = open_seal(key, seq, update["s"]) if key else None
        private = private_of(update, half) if half is not None else None
        if private is not None:
            try:
                private = check(private, "private")
            except ProtocolError:
                private = None
        if private is None:
            self.holder.notice(NoticeKind.RESYNC, f"our private half of update {seq} did not "
                             "open; resynchronising")
            self.resync()
            return
        self.privates[seq] = private

    def advance(self) -> None:
        """Apply buffered updates in sequence order while the next one is complete.

        Later updates waiting behind a missing one are a gap: ask for a snapshot. An update
        merely waiting for its private half is no gap — that half comes over the other
        socket, usually a moment later (PRIVATE_WAIT bounds the wait)."""
        if self.snapshot_asked:
            return
        while self.holder.seq + 1 in self.updates:
            update = self.updates[self.holder.seq + 1]
            private = self.privates.get(update["seq"])
            if self._needs_private(update) and private is None:
                if self.waiting_since is None:
                    self.waiting_since = self.link.clock()
                return
            del self.updates[update["seq"]]
            self.privates.pop(update["seq"], None)
            self.waiting_since = None
            self.holder.apply(update, private)
        if self.updates and self.link.connected:
            self.resync()  # the next update is missing while later ones wait: a gap

    def _needs_private(self, update: dict[str, Any]) -> bool:
        seat = self.holder.seat
        if seat is None:
            return False
        if update["k"] == "round":
            return True
        return update["k"] == "move" and update.get("p") and update.get("seat") == seat
