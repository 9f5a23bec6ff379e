"""A player's part in the fair deal (PROTOCOL.md §22): its nonce's commitment (with its two
check words') before the round, the nonce revealed in the countdown, a dispute when a deal
does not match, and its check of each round after it.

The host's side (its secret, the commitments fixed at the countdown) is
:class:`lan_demon.net.fairdeal.HostDeal`; this room holds the round being dealt or played (and
the one before, whose checks are still owed), the disputes and the checks published.
"""

from __future__ import annotations

from typing import Any

from lan_demon.net.codec import DISPUTE_CHARS, ProtocolError, make
from lan_demon.net.fairdeal import HostDeal, is_hash, is_word
from lan_demon.net.outbox import Outbox
from lan_demon.net.record import Record
from lan_demon.net.seated import Seat
from lan_demon.net.seats import Seats
from lan_demon.net.table_facts import TableFacts

CHECKS_KEPT = 2  # rounds whose published checks a snapshot repeats (they are owed a round)
#: Different commitments one seat may make for one round (PROTOCOL.md §2, Bounds): each is
#: journaled, so a seat that sends a new one in every frame would fill the disk. An honest
#: program sends one, and again only when it was run anew; past this: ``too_many``.
COMMITS_PER_ROUND = 8



class Commitments:
    """The fair deal's state at the table: the round's host secret and the commitments fixed
    for it (§22), the disputes published, the checks published."""

    def __init__(self, facts: TableFacts, seats: Seats, record: Record):
        self.facts, self.seats, self.record = facts, seats, record
        # The round being dealt or played: its host secret and commitments (§22). The secret
        # goes to the journal's secrets file (Record.keep_round_secret) before it is
        # committed to, so a resumed arbiter deals the same round.
        self.deal_round: HostDeal | None = None
        self.deal_before: HostDeal | None = None  # the round before's: its checks are owed
        self.disputes: set[tuple[int, int]] = set()  # (seat, round) already published
        self.checks: dict[int, dict[int, dict[str, Any]]] = {}  # round -> seat -> its check
        self.checked: set[tuple[int, int]] = set()  # (seat, round) of every check published

    def on_commit(self, peer: bytes, seat: Seat | None, msg: dict, now: float,
                  out: Outbox) -> None:
        """A player's nonce commitment for the next round to be dealt (§22) — in the lobby,
        during the round before it (so a table with no pause still takes it) or between
        rounds; a later one replaces it. Journaled when taken, so that ``verify`` finds a
        countdown that leaves it out."""
        player = self.seats.player(seat, peer)
        upcoming = self.facts.match.round_no if self.facts.match is not None else 0
        if self.facts.phase == "playing":
            upcoming += 1
        if self.facts.phase not in ("lobby", "playing", "between") or msg["round"] != upcoming:
            raise ProtocolError("too_late", f"round {msg['round']}'s deal is already fixed; "
                                f"commit for the next round when it is announced")
        if not all(is_hash(msg[k]) for k in ("hash", "ok", "fail")):
            raise ProtocolError("malformed", "a commitment and each check word's hash is a "
                                "SHA-256: 64 lowercase hex digits")
        if msg["ok"] == msg["fail"]:
            raise ProtocolError("malformed", "the two check words must differ")
        commit = (upcoming, msg["hash"], msg["ok"], msg["fail"])
        if commit == player.commit:  # sent again (a resend after rate_limited): nothing new
            out.private.append((peer, make("ok", re=msg["id"])))
            return
        if player.commits_made >= COMMITS_PER_ROUND:
            raise ProtocolError("too_many", f"{COMMITS_PER_ROUND} commitments for round "
                                f"{upcoming + 1} were taken from this seat already; the last "
                                "one stands")
        player.commit, player.commits_made = commit, player.commits_made + 1
        self.record.write("commit", seat=player.index, round=upcoming, hash=msg["hash"],
                          ok=msg["ok"], fail=msg["fail"])
        out.private.append((peer, make("ok", re=msg["id"])))

    def fix(self, deal: HostDeal) -> None:
        """The countdown of ``deal``'s round: the commitments taken for it are listed, and every
        seat's is used up (a commitment is for one round)."""
        deal.fix({s.index: s.commit[1:] for s in self.facts.seats
                  if s.commit is not None and s.commit[0] == deal.round})
        for s in self.facts.seats:
            s.commit, s.commits_made = None, 0

    def on_reveal(self, peer: bytes, seat: Seat | None, msg: dict, now: float,
                  out: Outbox) -> None:
        """A player's nonce, after the host's commitment is out and before Go (§22)."""
        player = self.seats.player(seat, peer)
        deal = self.deal_round
        if self.facts.phase != "countdown" or deal is None or msg["round"] != deal.round:
            raise ProtocolError("too_late", "nonces are revealed during the countdown; this "
                                "round is dealt without yours")
        again = player.index in deal.nonces  # (only its own nonce matches its commitment)
        problem = deal.reveal(player.index, msg["nonce"])
        if problem is not None:
            raise ProtocolError("bad_reveal", problem)
        if not again:  # the same nonce once more is answered ok, and journaled once (Bounds)
            self.record.write("reveal", seat=player.index, round=deal.round, nonce=msg["nonce"])
        out.private.append((peer, make("ok", re=msg["id"])))

    def announced(self, round_no: int) -> bool:
        """Whether ``round_no``'s countdown has been published: a dispute is about a real deal."""
        if self.facts.match is None:
            return False
        current = self.facts.match.round_no
        in_play = self.facts.phase in ("countdown", "playing")
        return 0 <= round_no < current or (round_no == current and in_play)

    def on_dispute(self, peer: bytes, seat: Seat | None, msg: dict, now: float,
                   out: Outbox) -> None:
        """A client found a deal that does not match its commitment: every screen is told
        (once per seat and round), and the journal keeps it. A round never announced has no
        deal to dispute (nor has a negative one, which would otherwise be published too):
        refused, so no seat can put a warning on every screen for nothing. A dispute repeated is
        answered ``ok`` again, with no new record or update: one per seat and round played."""
        player = self.seats.player(seat, peer)
        if not self.announced(msg["round"]):
            raise ProtocolError("wrong_round", f"round {msg['round'] + 1} has not been announced: "
                                "a dispute is about a deal the host promised")
        key = (player.index, msg["round"])
        if key not in self.disputes:
            self.disputes.add(key)
            reason = msg["reason"][:DISPUTE_CHARS]
            self.record.write("dispute", seat=player.index, round=msg["round"], reason=reason)
            self.record.publish(out, "dispute", seat=player.index, round=msg["round"],
                                reason=reason)
        out.private.append((peer, make("ok", re=msg["id"])))

    def on_check(self, peer: bytes, seat: Seat | None, msg: dict, now: float,
                 out: Outbox) -> None:
        """A seat's verdict on a finished round: one of the two words it promised with its
        commitment ("ok" or "fail"), published once per seat and round for every client to
        judge (§22.6). A word that is neither is refused, so no seat can make the host look as
        if it altered one — unless this arbiter no longer knows the round's words (resumed from
        its journal), when it is published as sent and every client judges it (a seat the
        round's countdown listed no words for is ignored by every client)."""
        player = self.seats.player(seat, peer)
        round_no = msg["round"]
        if self.facts.match is None or not 0 <= round_no < self.facts.match.round_no:
            raise ProtocolError("wrong_round", f"round {round_no + 1} has not ended: a check is "
                                "sent once its secret is revealed")
        lost = msg.get("lost") is True
        if lost == ("word" in msg and msg["word"] is not None):
            raise ProtocolError("malformed", "a check is one of the seat's words, or lost: true "
                                "(this program holds no promise for the round), never both")
        if lost:
            self.publish_check(out, {"seat": player.index, "round": round_no, "lost": True})
            out.private.append((peer, make("ok", re=msg["id"])))
            return
        if not is_word(msg["word"]):
            raise ProtocolError("malformed", "a check word is 16 bytes: 32 lowercase hex digits")
        deal = next((d for d in (self.deal_round, self.deal_before)
                     if d is not None and d.round == round_no), None)
        if deal is not None and deal.words and deal.check_word(player.index, msg["word"]) is None:
            raise ProtocolError("bad_reveal", "that is neither check word your program promised "
                                "for this round (or it promised none)")
        fields: dict[str, Any] = {"seat": player.index, "round": round_no, "word": msg["word"]}
        if msg.get("reason"):
            fields["reason"] = msg["reason"][:DISPUTE_CHARS]
        self.publish_check(out, fields)
        out.private.append((peer, make("ok", re=msg["id"])))

    def publish_check(self, out: Outbox, fields: dict[str, Any]) -> None:
        """A seat's check, published once per seat and round (and journaled), for every client
        to judge; a snapshot repeats the last rounds' ones. ``self.checked`` remembers every
        (seat, round) published, so a check of a round past the snapshot's is not published
        again."""
        key = (fields["seat"], fields["round"])
        if key not in self.checked:
            self.checked.add(key)
            self.checks.setdefault(fields["round"], {})[fields["seat"]] = fields
            for old in [r for r in self.checks if r < self.facts.match.round_no - CHECKS_KEPT]:
                del self.checks[old]
            self.record.write("check", **fields)
            self.record.publish(out, "check", **fields)

    def checks_now(self) -> list[dict[str, Any]]:
        """The checks published for the last rounds, as a snapshot repeats them."""
        return [fields for round_no in sorted(self.checks)
                for _, fields in sorted(self.checks[round_no].items())]
