"""PROTOCOL.md §22.7, rule by rule: what every client checks of a host's announcements, with no
sockets — a :class:`DealWitness` fed what a host says."""

from __future__ import annotations

import pytest

from lan_demon.games import get_game
from lan_demon.games.deal import commitment
from lan_demon.net.fairdeal import HostDeal
from lan_demon.net.witness import DealWitness, said

pytestmark = pytest.mark.timeout(30)

RD = get_game("racing-demon")
SETUP = RD.first_setup(2, RD.default_options())


def announcement(w: DealWitness | None = None, seat: int = 0, host: bytes = bytes(32),
                 seeded: bool = False, **mine: str) -> dict:
    """A countdown listing ``w``'s promise for round 0 at ``seat`` (none: nobody listed)."""
    deal = HostDeal(0, host, seeded)
    if w is not None:
        fields = {**w.promise(0), **mine}
        deal.fix({seat: (fields["hash"], fields["ok"], fields["fail"])})
    return deal.announced()


def test_rule2_one_announcement_a_round_and_never_a_nonce_under_a_second():
    """§22.7 rule 2: a second countdown (or a snapshot's table.deal) under another host
    commitment is the host's second chance; the nonce is not revealed under it, and the
    first is the one kept. The same commitment again is a resumed host: reveal again."""
    w = DealWitness()
    first = announcement(w)
    problems, nonce = w.announce(0, 0, first)
    assert not problems and nonce is not None
    again, nonce_again = w.announce(0, 0, first)  # a host resumed in the countdown
    assert not again and nonce_again == nonce
    problems, nonce = w.announce(0, 0, announcement(w, host=bytes([1] * 32)))
    assert nonce is None and "a second time with a new promise" in problems[0]
    assert w.seen(0).announced["commit"] == first["commit"]  # the first is kept


def test_rule3_an_accepted_promise_must_be_listed_whichever_comes_first():
    """§22.7 rule 3: the host's ok binds it — the countdown may come before the ok (two
    sockets), and either way a promise the host accepted and left out is caught; after a
    reconnect only an ok on the new connection counts (a resumed host forgot the old)."""
    nobody = announcement()
    w = DealWitness()
    w.promise(0)
    assert w.accepted(0, 0) == []  # no countdown yet
    problems, _ = w.announce(0, 0, nobody)
    assert "left out the randomness {your} program promised" in problems[0]
    late = DealWitness()
    late.promise(0)
    assert late.announce(0, 0, nobody) == ([], None)  # not accepted (yet): no word
    assert "after accepting it" in late.accepted(0, 0)[0]  # the ok came after the countdown
    back = DealWitness()
    back.promise(0)
    back.accepted(0, 0)
    back.reconnected()
    assert back.announce(0, 0, nobody) == ([], None)


def test_rule3_a_promise_in_your_name_is_yours_or_a_failure():
    w = DealWitness()
    w.promise(0)
    problems, nonce = w.announce(0, 0, announcement(w, ok=commitment(b"not mine")))
    assert nonce is None and "in {your} name that {your} program never made" in problems[0]
    late = DealWitness()  # promised round 1 first: round 1's listing must be its own
    late.promise(1)
    problems, _ = late.announce(0, 1, announcement(w))
    assert problems and said(problems[0]) == \
        "the host listed a promise in your name that your program never made"
    assert said(problems[0], "my").startswith("the host listed a promise in my name")


def test_rule3_a_restarted_program_is_not_alarmed_by_the_promises_of_the_one_before():
    """A join restarted while its seat was kept (the host stopped, or the laptop slept) came back
    by its token to a countdown listing the promise its earlier program had made — and every screen
    said DEAL CHECK FAILED at an honest table. A listing for a round before this program's first
    promise is the earlier program's: a note (the deal is still checked), no alarm; from its first
    promise on, the rule holds."""
    earlier = DealWitness()
    earlier.promise(2)
    fresh = DealWitness()  # the same seat's new program: no promise yet
    problems, nonce = fresh.announce(0, 2, announcement(earlier))
    assert problems == [] and nonce is None and fresh.seen(2).inherited
    fresh.promise(3)
    problems, _ = fresh.announce(0, 3, announcement(earlier))  # not its own: a failure
    assert problems and "never made" in problems[0]


def test_rule1_seeded_is_fixed_for_a_match():
    """§22.7 rule 1: the first welcome's config.seeded is the match's; a countdown (or a
    later welcome) that says otherwise is a host switching to deals it can choose."""
    w = DealWitness()
    assert w.terms(False) is None and w.terms(False) is None
    assert "switched to a fixed seed" in w.terms(True)
    problems, nonce = w.announce(0, 0, announcement(seeded=True))
    assert nonce is None and "switched to a fixed seed" in problems[0]
    seeded = DealWitness()
    seeded.terms(True)
    assert seeded.announce(0, 0, announcement(seeded=True)) == ([], None)


def test_rule4_an_accepted_nonce_left_out_at_go_and_whose_randomness_is_missing():
    """§22.7 rule 4, and the note on every screen: a nonce the host accepted must be mixed in;
    one refused (too late) is no accusation, but the round says it was dealt without it."""
    w = DealWitness()
    w.announce(0, 0, announcement(w))
    w.reveal_accepted(0)
    problems, missing = w.go(0, 0, [], "0" * 64, SETUP, None, seats=2)
    assert "left {your} randomness out" in problems[0]
    assert missing == {0: "promised", 1: "none"}
    late = DealWitness()
    late.announce(0, 0, announcement(late))
    late.refused(0, "too late", reveal=True)
    problems, missing = late.go(0, 0, [], "0" * 64, SETUP, None, seats=2)
    assert problems == [] and missing == {0: "promised", 1: "none"}


def test_rule6_a_check_is_one_of_the_two_promised_words_and_is_owed():
    """§22.6: the ok word says right, the fail word wrong; any other is the host's forgery;
    a listed seat's check not published by the deadline is overdue."""
    w, bob = DealWitness(), DealWitness()
    fields = bob.promise(0)
    deal = HostDeal(0, bytes(32), False)
    deal.fix({1: (fields["hash"], fields["ok"], fields["fail"])})
    w.announce(0, 0, deal.announced())
    w.seen(0).outcome = "ok"  # (the round has ended here)
    assert w.overdue(0) == [1]
    assert w.check_seen(0, 1, bob.promises[0].fail.hex()) == "fail"
    assert w.overdue(0) == []
    assert w.check_seen(0, 1, bytes(16).hex()) == "bad"  # (judged; the first one stands)
    assert w.seen(0).checks[1] == "fail"


def test_the_end_checks_the_whole_deal_by_its_fingerprint_without_any_cards_at_go():
    """§22.7 rule 5 for a client that missed Go and kept none of its own cards: the
    fingerprint alone holds the host to the whole deal."""
    from lan_demon.games.deal import DealRandom
    from lan_demon.net.fairdeal import deal_hash
    host = bytes(range(32))
    deal = HostDeal(0, host, False)
    honest = RD.deal(SETUP, DealRandom(deal.mixed()))
    deal.dealt_now(RD, honest)
    for fingerprint, outcome in ((deal.hash, "ok"), ("0" * 64, "failed")):
        w = DealWitness()
        w.announce(None, 0, deal.announced())
        w.go(None, 0, [], fingerprint, SETUP, None, seats=2)
        seen = w.end(RD, None, 0, host.hex(), SETUP)
        assert seen.outcome == outcome
    assert deal.hash == deal_hash(deal.mixed(), RD.state_to_data(honest))
    blind = DealWitness()  # nothing at all of round 0: NOT checked, and why
    blind.seen(0)
    assert blind.end(RD, 0, 0, host.hex(), SETUP).outcome == "unchecked"
