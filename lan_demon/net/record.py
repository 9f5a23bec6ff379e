"""The table's record: the numbered updates and the journal (crash recovery,
:mod:`lan_demon.net.recovery`; secrets beside it, never in it).

The design follows the ZeroMQ Guide's Clone pattern: every canonical update carries the next
number of one sequence, a snapshot says which number it stands at
(:mod:`lan_demon.net.snapshots`), and the journal keeps a mark above every number handed out,
so the sequence never goes back, even across a crash.
"""

from __future__ import annotations

from typing import Any, Protocol

from lan_demon.net.codec import make
from lan_demon.net.journal import VERSION as JOURNAL_VERSION
from lan_demon.net.outbox import Outbox
from lan_demon.net.table_facts import TableFacts

SEQ_BLOCK = 1000  # update numbers reserved per journal "seq" mark (crash recovery)


class Journal(Protocol):
    """Where records go (:class:`lan_demon.net.journal.JournalWriter`). A journal may also
    have ``keep_token(token)`` and ``keep_round_secret(round, hex)``: secrets that never enter
    it, kept in the secrets file beside it; and ``pending``, ``why`` and ``retry()``: records a
    full disk would not take yet, which hold back what the table says (net/stall.py)."""

    def write(self, record: dict[str, Any]) -> None: ...


class Record:
    """The update numbers handed out, and the journal every step's records go to."""

    def __init__(self, facts: TableFacts, journal: Journal | None = None):
        self.facts = facts
        self.journal = journal
        self.ports: dict[str, int] = {}  # the ROUTER's and the PUB's, for the host record
        self.headed = False  # the journal's host record is written
        self.seq = 0
        self.seq_mark = 0  # the journal has reserved the update numbers up to here

    def publish(self, out: Outbox, kind: str, **fields: Any) -> None:
        """A numbered update of ``kind`` for every screen."""
        self.next_seq()
        out.public.append(make("update", seq=self.seq, k=kind, **fields))

    def next_seq(self) -> int:
        """The next update number. The journal keeps a mark above every number handed out, so
        an arbiter resumed from it numbers on above anything a client has seen (Clone: the
        sequence never goes back)."""
        self.seq += 1
        if self.journal and self.seq > self.seq_mark:
            self.seq_mark = self.seq + SEQ_BLOCK
            self.write("seq", upto=self.seq_mark)
        return self.seq

    def resume_at(self, seq: int) -> None:
        """Number on from ``seq``, the highest number a resumed journal has handed out or
        reserved (crash recovery); the journal it came from has its host record already."""
        self.seq = self.seq_mark = seq
        self.headed = True

    def attach(self, journal: Journal, ports: dict[str, int]) -> None:
        """Write to ``journal`` from now on; a new journal starts with the ``host`` record."""
        self.journal, self.ports = journal, dict(ports)
        self.header()

    def write(self, kind: str, **fields: Any) -> None:
        """Append one record. Called before the step's outbox is sent, so the journal always
        holds what a client may have seen."""
        if self.journal:
            self.header()
            self.journal.write({"j": kind, **fields})

    def keep_secret(self, what: str, *values: Any) -> None:
        """Hand a secret to the journal's secrets file (``keep_token``, ``keep_round_secret``),
        when the journal keeps one: it never enters the journal itself."""
        keep = getattr(self.journal, what, None) if self.journal else None
        if keep is not None:
            self.header()
            keep(*values)

    def keep_round_secret(self, round_no: int, secret_hex: str) -> None:
        """Call when a round's countdown begins (before the countdown record): the round's host
        secret, kept beside the journal so that a resumed arbiter deals the round in progress
        again; its ``round_end`` record reveals it in the journal."""
        self.keep_secret("keep_round_secret", round_no, secret_hex)

    def header(self) -> None:
        """The journal's first record, once: the host's settings, ports and guard."""
        if not self.journal or self.headed:
            return
        self.headed = True
        facts = self.facts
        # Every setting, in its one written form (net/settings.py); whether the table had a
        # code and its public key — never the code or the secret key, which stay in the
        # secrets file beside the journal (secrets_file.HostSecrets).
        guard = {"coded": facts.code is not None,
                 **({"key": facts.server_key} if facts.server_key else {})}
        # The first record, written now or refused: a host whose disk cannot take it does
        # not start (one line), rather than start a table that stands still (§25).
        write = getattr(self.journal, "write_now", None) or self.journal.write
        write({"j": "host", "v": JOURNAL_VERSION, "config": facts.settings.to_data(),
               "port": self.ports.get("port", 0), "pub_port": self.ports.get("pub_port", 0),
               **guard})
