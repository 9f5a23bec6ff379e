"""A seated client's duties under commit and reveal (PROTOCOL.md §22), and what it tells its
player: the messages it sends (``commit``, ``reveal``, ``check``, ``dispute``) and the notices
its screen shows. The judgement is :class:`~lan_demon.net.witness.DealWitness`'s; this is the
part of a :class:`~lan_demon.net.table_copy.TableCopy` that acts on it, held by the copy and
called only for the updates and answers of §22 (the copy's hot path — moves — never passes
through here).

What a player hears, in the :class:`~lan_demon.net.notices.Notice` kinds:

* ``dishonest`` — this client's own check found the host's deal not the one it promised (or
  a seat's check forged, or never published while the seat was here). The client also sends
  ``dispute`` (once a round) so that every screen hears it at once, and its round's ``check``
  reveals its "fail" word, which the host cannot turn into the "ok" one;
* ``dispute`` — another seat's client says so (its ``dispute``, or its check's "fail" word);
* ``deal_note`` — plain facts about a round's deal that are not an accusation: whose
  randomness was not mixed in ("Bob's randomness was not used this round"), a round this
  client could NOT check, and why.
"""

from __future__ import annotations

from typing import Any, Protocol

from lan_demon.net.codec import DISPUTE_CHARS, fit_text, make
from lan_demon.net.link import Link
from lan_demon.net.notices import NoticeKind
from lan_demon.net.witness import DealWitness, said


class Seated(Protocol):
    """What the duties read of the table copy that holds them."""

    seat: int | None
    role: str
    table: dict[str, Any]
    game: Any
    handed: dict[int, str]  # seats handed to a bot (§24): the person's name

    def notice(self, kind: NoticeKind, text: str = "",
               data: dict[str, Any] | None = None) -> None:
        """Tell the player."""


class DealDuties:
    """The §22 duties of the table copy that holds them (``holder``), sent over ``link``."""

    def __init__(self, holder: Seated, link: Link):
        self.holder, self.link = holder, link
        self.witness = DealWitness()
        self.commit_due: int | None = None  # the round to commit a nonce for, when we can
        self._deal_rids: dict[int, tuple[str, int]] = {}  # our §22 requests: (kind, round)
        self._deal_sent: dict[int, dict[str, Any]] = {}  # ... and each as sent, by id
        self._after_stall: list[dict[str, Any]] = []  # refused 'stalled': sent again (§25)
        self._disputed: set[int] = set()  # rounds we sent a dispute for
        self._heard: set[tuple[int, int]] = set()  # (seat, round) disputes already shown

    @property
    def unanswered(self) -> int:
        """How many of our §22 requests the arbiter has not answered yet."""
        return len(self._deal_rids)

    # --- what we send ---------------------------------------------------------------------------

    def upcoming_round(self) -> int | None:
        """The next round to be dealt, whose nonce may be committed now: in the lobby and
        between rounds ``table.round``, during a round the one after it; None while a
        countdown has fixed the commitments, or once the match is over (§22)."""
        phase, round_no = self.holder.table.get("phase"), self.holder.table.get("round", 0)
        if phase in ("lobby", "between"):
            return round_no
        return round_no + 1 if phase == "playing" else None

    def commit_when_due(self) -> None:
        """Commit for the next round to be dealt — once the updates that came with it are
        applied, so none is sent after the match is over. The same promise again (never
        another) when the host has not accepted it on this connection: a resumed host lost
        what the crashed one took."""
        due, self.commit_due = self.commit_due, None
        if due is None or due != self.upcoming_round() or self.holder.seat is None or \
                self.holder.role != "player" or self.witness.seen(due).acked or \
                ("commit", due) in self._deal_rids.values():
            return
        self.request(make("commit", id=self.link.next_id(), round=due,
                          **self.witness.promise(due)))

    def commit_now(self) -> None:
        """Commit for the next round to be dealt now, if we may (before a ``ready`` that
        may start its countdown)."""
        self.commit_due = self.upcoming_round()
        self.commit_when_due()

    def request(self, msg: dict[str, Any]) -> None:
        """Send one of our §22 requests, kept until the arbiter answers it."""
        self._deal_rids[msg["id"]] = (msg["t"], msg["round"])
        self._deal_sent[msg["id"]] = msg
        self.link.send(msg)

    def send_after_stall(self) -> None:
        """The table goes on after its host's disk stood it still (§25): what it refused
        ``stalled`` meanwhile is sent again, each with a new id, in the order first sent."""
        waiting, self._after_stall = self._after_stall, []
        for msg in waiting:
            self.request({**msg, "id": self.link.next_id()})

    def answer(self, rid: int, error: dict[str, Any] | None) -> bool:
        """The arbiter's answer to one of our §22 requests (``error`` None: ``ok``); False
        when ``rid`` was not one. A reveal counts as made only when it is accepted."""
        asked = self._deal_rids.pop(rid, None)
        sent = self._deal_sent.pop(rid, None)
        if asked is None:
            return False
        kind, round_no = asked
        if error is not None and error.get("code") == "stalled" and sent is not None:
            self._after_stall.append(sent)  # not refused: the table stands still (§25)
            return True
        if kind == "commit" and error is None:
            self.found(round_no, self.witness.accepted(self.holder.seat, round_no))
        elif kind == "reveal" and error is None:
            self.witness.reveal_accepted(round_no)
        elif kind in ("commit", "reveal") and error is not None:
            self.witness.refused(round_no, error.get("reason", ""), kind == "reveal")
        return True

    # --- what the host says ------------------------------------------------------------------

    def terms(self, config: Any) -> None:
        """A welcome's or snapshot's ``config``: ``seeded`` is fixed for a match (§22)."""
        if isinstance(config, dict):
            problem = self.witness.terms(config.get("seeded"))
            if problem is not None:
                self.found(None, [problem])

    def announce(self, round_no: int, fields: dict[str, Any], counting: bool) -> None:
        """A countdown, or a snapshot's ``table.deal``: judged, and our nonce revealed when
        the round is still ``counting`` down and lists our commitment."""
        seen = self.witness.seen(round_no)
        inherited = seen.inherited
        problems, nonce = self.witness.announce(self.holder.seat, round_no, fields)
        self.found(round_no, problems)
        if seen.inherited and not inherited:
            self.holder.notice(NoticeKind.DEAL_NOTE,
                             f"Round {round_no + 1}'s promise for this seat was made by the "
                             "program that held it before this one (closed and run again): "
                             "this one cannot add its randomness to that round, and says so "
                             "instead of its check (the deal is still checked here)",
                             {"round": round_no, "inherited": True})
        if nonce is not None and counting and self.link.connected:
            self.request(make("reveal", id=self.link.next_id(), round=round_no, nonce=nonce))

    def dealt(self, round_no: int, fields: dict[str, Any], setup: dict[str, Any],
              state: dict[str, Any] | None) -> None:
        """Go (the ``round`` update, or a snapshot of the round in play): what was mixed in,
        the deal's fingerprint and our cards, kept for the end; whose randomness is missing
        is said on every screen."""
        problems, missing = self.witness.go(self.holder.seat, round_no, fields.get("nonces"),
                                            fields.get("hash"), setup, state,
                                            len(self.holder.table.get("seats") or []))
        self.found(round_no, problems)
        for seat, why in missing.items():
            who = "your" if seat == self.holder.seat else f"{self._name(seat)}'s"
            how = "promised, but not revealed before Go" if why == "promised" else \
                "the host listed no promise of it"
            self.holder.notice(NoticeKind.DEAL_NOTE, f"Round {round_no + 1} was dealt without "
                             f"{who} randomness ({how})",
                             {"round": round_no, "seat": seat, "why": why})

    def after_snapshot(self) -> None:
        """After a snapshot: the deal it shows judged as if seen live (commitments, Go, the
        end), the checks it lists, our nonce revealed or our commitment sent again; a check
        of ours that was never published sent again."""
        self.terms(self.holder.table.get("config"))
        deal, phase = self.holder.table.get("deal"), self.holder.table.get("phase")
        if isinstance(deal, dict) and isinstance(deal.get("round"), int):
            round_no = deal["round"]
            self.announce(round_no, deal, phase == "countdown")
            if "nonces" in deal:
                setup = deal.get("setup") or self.holder.table.get("setup") or {}
                self.dealt(round_no, deal, setup, deal.get("dealt"))
            if "secret" in deal:
                self.round_over(round_no, deal["secret"], deal.get("setup") or {})
        for check in self.holder.table.get("checks") or []:
            if isinstance(check, dict):
                self.on_check(check)
        for round_no, seen in list(self.witness.rounds.items()):
            if seen.check_sent and self.holder.seat is not None and \
                    self.holder.seat not in seen.checks:
                seen.check_sent = False
                self._send_check(round_no)
        self.commit_due = self.upcoming_round()

    def round_over(self, round_no: int, secret: Any, setup: dict[str, Any]) -> None:
        """The round's secret is out: our verdict, said and sent as our check; the checks
        owed for the round before are looked for."""
        before = len(self.witness.seen(round_no).problems)
        seen = self.witness.end(self.holder.game, self.holder.seat, round_no, secret, setup)
        if seen is None:
            return
        if seen.outcome == "failed":  # (what the countdown or Go showed was said then)
            self.found(round_no, seen.problems[before:], end=True)
        elif seen.outcome == "unchecked":
            self.holder.notice(NoticeKind.DEAL_NOTE, f"Round {round_no + 1}'s deal was NOT "
                             f"checked: {seen.why}", {"round": round_no, "unchecked": True})
        self._send_check(round_no)
        self.checks_due(round_no - 1)

    def _send_check(self, round_no: int) -> None:
        """Our check of an ended round: one of our two words — or, for a round whose promise
        in our seat's name was made by the program before this one, ``lost`` (§22.6)."""
        seen = self.witness.seen(round_no)
        word = self.witness.word(self.holder.seat, round_no)
        if seen.check_sent or not self.link.connected:
            return
        if word is None:
            if seen.inherited and seen.outcome is not None and self.holder.seat is not None:
                seen.check_sent = True
                self.request(make("check", id=self.link.next_id(), round=round_no,
                                  lost=True))
            return
        seen.check_sent = True
        reason = fit_text(said(seen.problems[0], "my"), DISPUTE_CHARS) \
            if seen.outcome == "failed" and seen.problems else None
        self.request(make("check", id=self.link.next_id(), round=round_no, word=word,
                          reason=reason))

    def checks_due(self, round_no: int) -> None:
        """The checks of ``round_no`` are due (the next round has ended, or the table closed
        after the match): a seat that promised one and was here, with none published, may
        have had its verdict hidden — every screen says so."""
        if round_no < 0:
            return
        seats = self.holder.table.get("seats") or []
        for seat in self.witness.overdue(round_no):
            here = seat < len(seats) and seats[seat].get("status", "here") == "here"
            self.witness.seen(round_no).checks[seat] = "missing"
            who = "your program's" if seat == self.holder.seat else f"{self._name(seat)}'s"
            text = f"{who} check of round {round_no + 1}'s deal never reached the table"
            if here:
                self.holder.notice(NoticeKind.DISHONEST, f"{text[0].upper()}{text[1:]}: the "
                                 "host may have hidden what it found",
                                 {"round": round_no, "seat": seat})
            else:
                self.holder.notice(NoticeKind.DEAL_NOTE, f"{text[0].upper()}{text[1:]} (away)",
                                 {"round": round_no, "seat": seat})

    # --- every seat's word -------------------------------------------------------------------

    def on_check(self, update: dict[str, Any]) -> None:
        """A seat's check of a round's deal (an update, or one a snapshot lists)."""
        round_no, seat = update.get("round"), update.get("seat")
        if not isinstance(round_no, int) or not isinstance(seat, int):
            return
        if seat in self.witness.seen(round_no).checks:
            return  # (a snapshot's list after the update, or twice)
        if update.get("lost") is True:
            self.lost_check(round_no, seat)
            return
        verdict = self.witness.check_seen(round_no, seat, update.get("word"))
        who = self._name(seat)
        if verdict == "bad":
            self.holder.notice(NoticeKind.DISHONEST, f"{who}'s check of round {round_no + 1} is "
                             f"not one of the two words {who}'s program promised: the host "
                             "altered it", {"round": round_no, "seat": seat})
        elif verdict == "fail" and (seat, round_no) not in self._heard and \
                seat != self.holder.seat:
            self._heard.add((seat, round_no))
            self._disputed_by(seat, round_no, str(update.get("reason") or "no reason given"))

    def lost_check(self, round_no: int, seat: int) -> None:
        """A seat says its program holds no promise for ``round_no``: the program before it
        (closed, then run again) made it. Ours, while we hold ours, is the host's word."""
        self.witness.seen(round_no).checks[seat] = "lost"
        if seat == self.holder.seat:
            if self.witness.promises.get(round_no) is not None:
                self.found(round_no, ["the host said {your} program was restarted and lost "
                                       "its promise for this round: it was not"])
            return
        handed = self.holder.handed.get(seat)
        if handed is not None:  # §24: a bot took the seat over; the promise was the person's
            words = (f"{self._name(seat)} took over {handed}'s seat, so no check of round "
                     f"{round_no + 1}'s deal comes from it: {handed}'s lan-demon made that "
                     "round's promise")
        else:
            words = (f"{self._name(seat)} restarted lan-demon, so no check of round "
                     f"{round_no + 1}'s deal comes from them: the lan-demon they closed made "
                     "that round's promise")
        self.holder.notice(NoticeKind.DEAL_NOTE, words, {"round": round_no, "seat": seat})

    def on_dispute(self, update: dict[str, Any]) -> None:
        """A seat's client says a round's deal was not the one promised."""
        key = (update["seat"], update["round"])
        if key in self._heard:
            return
        self._heard.add(key)
        self._disputed_by(update["seat"], update["round"], update["reason"], update)

    def _disputed_by(self, seat: int, round_no: int, reason: str,
                     data: dict[str, Any] | None = None) -> None:
        who = self._name(seat)
        self.holder.notice(NoticeKind.DISPUTE, f"{who}'s program says round {round_no + 1}'s "
                         f"deal was not the one the host promised: “{reason}”",
                         data or {"seat": seat, "round": round_no, "reason": reason})

    # --- saying it ---------------------------------------------------------------------------

    def found(self, round_no: int | None, problems: list[str], end: bool = False) -> None:
        """Problems our own check found: loudly on our screen, and a dispute to every other
        screen (once a round; the round's check word follows at its end)."""
        for problem in problems:
            if round_no is None:
                text = f"The host's deals do not match what it promised: {said(problem)}"
            else:
                text = f"The host's deal for round {round_no + 1} does not match what it " \
                       f"promised: {said(problem)}"
                if not end:
                    self.witness.seen(round_no).problems.append(problem)
            self.holder.notice(NoticeKind.DISHONEST, text, {"round": round_no, "problem": problem})
        if problems and round_no is not None and round_no not in self._disputed and \
                self.holder.seat is not None and self.link.connected:
            self._disputed.add(round_no)
            self._heard.add((self.holder.seat, round_no))
            self.request(make("dispute", id=self.link.next_id(), round=round_no,
                              reason=fit_text(said(problems[0], "my"), DISPUTE_CHARS)))

    def _name(self, seat: int) -> str:
        seats = self.holder.table.get("seats") or []
        if 0 <= seat < len(seats) and seats[seat].get("name"):
            return str(seats[seat]["name"])
        return f"seat {seat}"
