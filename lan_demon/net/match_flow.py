"""The match's flow: the start, each round's countdown (its deal committed to, §22), Go (the
round dealt to every seat at once, RD-4) and the round's end (the next countdown, or the
match's end).

What starts it is a seat's ``start`` or ``ready`` (:class:`lan_demon.net.seats.Seats`) or the
passing of time (the arbiter's ``tick``); what ends a round is a committed move
(:class:`lan_demon.net.race.Race`) or a deal that is out at Go.
"""

from __future__ import annotations

from lan_demon.games import Match
from lan_demon.net.codec import make
from lan_demon.net.commitments import Commitments
from lan_demon.net.fairdeal import HostDeal
from lan_demon.net.outbox import Outbox
from lan_demon.net.packing import SharedPacker
from lan_demon.net.race import Race
from lan_demon.net.record import Record
from lan_demon.net.seats import Seats
from lan_demon.net.table_facts import TableFacts

#: A countdown of 0 deals once every listed seat has revealed its nonce, or this long after
#: the countdown began, whichever is first (PROTOCOL.md §22.3): Go at once would leave every
#: nonce out.
REVEAL_WAIT = 1.0


class MatchFlow:
    """From the lobby to the match's end, round by round."""

    def __init__(self, facts: TableFacts, seats: Seats, record: Record,
                 commitments: Commitments, race: Race):
        self.facts, self.seats, self.record = facts, seats, record
        self.commitments, self.race = commitments, race

    def start(self, now: float, out: Outbox) -> None:
        facts = self.facts
        settings = facts.settings
        facts.match = Match(facts.game, [s.name for s in facts.seats], settings.seed,
                            dict(settings.options), rounds_wanted=settings.rounds)
        match = facts.match
        self.record.write("match", game=facts.game.id, seed=settings.seed,
                          players=match.players, options=match.options,
                          rounds=match.rounds_wanted)
        self.countdown(now, out)

    def start_when_ready(self, now: float, out: Outbox) -> None:
        """``--players N``: the match starts by itself once N seats are filled and ready."""
        players = self.facts.settings.players
        if players and len(self.facts.seats) == players and self.seats.all_ready():
            self.start(now, out)

    def countdown(self, now: float, out: Outbox) -> None:
        """The deal's secret is drawn and committed to, with the players' commitments (§22)."""
        facts, commitments = self.facts, self.commitments
        facts.phase = "countdown"
        facts.go_at = now + facts.settings.countdown
        round_no = facts.match.round_no
        if commitments.deal_round is not None and commitments.deal_round.round != round_no:
            commitments.deal_before = commitments.deal_round
        deal = commitments.deal_round = self.draw(round_no)
        commitments.fix(deal)
        for s in facts.seats:
            s.ready = False
        self.record.keep_round_secret(round_no, deal.secret.hex())
        self.record.write("countdown", round=round_no, **deal.announced())
        self.record.publish(out, "countdown", round=round_no, go=facts.go_at,
                            **deal.announced())
        if now >= self.go_time():  # a countdown of 0 with nothing to wait for
            self.deal(now, out)

    def draw(self, round_no: int) -> HostDeal:
        """The round's host secret: fresh from the operating system, or the seed's."""
        return HostDeal.draw(round_no, self.facts.settings.dealing)

    def go_time(self) -> float:
        """When the round counting down is dealt: at ``go``; with a countdown of 0, as soon
        as every listed seat has revealed, and at most :data:`REVEAL_WAIT` later."""
        deal, go_at = self.commitments.deal_round, self.facts.go_at
        if self.facts.settings.countdown > 0 or deal is None or deal.all_revealed():
            return go_at
        return go_at + REVEAL_WAIT

    def deal(self, now: float, out: Outbox) -> None:
        """RD-4: Go — the round is dealt and play starts for everyone at once."""
        facts, game, deal = self.facts, self.facts.game, self.commitments.deal_round
        match = facts.match
        facts.state = match.deal(deal.secret, deal.nonces)
        deal.dealt_now(game, facts.state)  # its fingerprint, and a copy for snapshots
        self.race.races.clear()  # stack ids start again each round
        facts.phase = "playing"
        facts.last_play = facts.turn_since = now
        seq = self.record.next_seq()
        present = [s for s in facts.seats if s.peer is not None and s.status == "here"]
        *mine, public = game.redacted_data(facts.state, [s.index for s in present] + [None])
        # Every seat's copy is the whole table, and mostly the public one's very objects (at
        # Go in Racing Demon, all of it): packed once here, spliced into each frame (packing).
        update = make("update", seq=seq, k="round", round=match.round_no, setup=match.setup,
                      state=public, nonces=deal.used(), hash=deal.hash)
        sharing = SharedPacker(update)
        for s, state in zip(present, mine):
            out.private.append((s.peer, sharing.message(
                make("private", seq=seq, k="round", state=state))))
        out.public.append(sharing.message(update))
        self.record.write("round", round=match.round_no, setup=match.setup, nonces=deal.used(),
                          hash=deal.hash, at=now, **deal.announced())
        if game.round_over(facts.state):  # RD-16: a Pile of 0 is out at Go
            self.end_round(now, out)

    def end_round(self, now: float, out: Outbox) -> None:
        """The round's result and totals for every screen (with the deal's secret, §22), the
        moves still in flight answered; then the pause between rounds, or the match's end."""
        facts = self.facts
        match = facts.match
        result = facts.game.round_result(facts.state)
        number = match.round_no
        match.record(result)
        over = match.over
        if not over:
            facts.phase, facts.between_since = "between", now
        deal = self.commitments.deal_round
        secret = deal.secret.hex() if deal is not None else None
        self.record.publish(out, "round_end", round=number, result=result.to_data(),
                            totals=match.totals, next=match.setup, next_at=self.next_at(),
                            secret=secret)
        self.record.write("round_end", round=number, result=result.to_data(), secret=secret)
        self.race.drop_in_flight(out)
        if over:
            facts.phase = "over"
            facts.result = match.result_data()
            self.record.publish(out, "match_end", result=facts.result)
            self.record.write("match_end", result=facts.result)
        else:
            for s in facts.seats:
                s.ready = False

    def next_at(self) -> float | None:
        """When the next round starts by itself (arbiter clock); None: it waits for every
        present person to say ready (``pause`` None), or no pause is running."""
        if self.facts.phase != "between" or self.facts.settings.pause is None:
            return None
        return self.facts.between_since + self.facts.settings.pause

    def pause_over(self, now: float) -> bool:
        """Whether the pause between rounds has run out."""
        at = self.next_at()
        return at is not None and now >= at
