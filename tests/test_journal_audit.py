"""No secrets in the journal, records chained, a journal anyone can audit
(``lan-demon verify``). Journals come from the pure arbiter driven by greedy bots on a fake
clock (tests/journal_harness.py's ``play_uncrashed``), or are written record by record here; each
attack edits one and checks that it is found, and where."""

from __future__ import annotations

import os
import random
import sys
from pathlib import Path

import msgpack
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from arbiter_harness import Table  # noqa: E402
from journal_harness import (PORTS, edited, first, play_uncrashed, records_of,  # noqa: E402
                             tokens_of, write_records)

from lan_demon.bots import make_strategy  # noqa: E402
from lan_demon.bots.base import Turn  # noqa: E402
from lan_demon.cli import main  # noqa: E402
from lan_demon.games import Match, get_game  # noqa: E402
from lan_demon.games.deal import commitment  # noqa: E402
from lan_demon.net.audit import verify  # noqa: E402
from lan_demon.net.journal import (GENESIS, JournalError, JournalWriter,  # noqa: E402
                                   read_journal)
from lan_demon.net.journal import secret_path  # noqa: E402
from lan_demon.net.recovery import restore  # noqa: E402
from lan_demon.net.secrets_file import (HostSecrets, keep_round_secret, read_secrets,  # noqa: E402
                                        write_secrets)
from lan_demon.net.replay import replay  # noqa: E402

pytestmark = pytest.mark.timeout(60)


# --- whole matches, journaled -------------------------------------------------------------------


@pytest.fixture(scope="module")
def demon(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A whole Racing Demon match (2 seats, 2 rounds, RD-13 table moves among its moves)."""
    path = tmp_path_factory.mktemp("demon") / "demon.journal"
    play_uncrashed(path, "racing-demon", 2, 7)
    return path


@pytest.fixture(scope="module")
def racko(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("racko") / "racko.journal"
    play_uncrashed(path, "racko", 2, 3)
    return path


# --- no secrets in the journal ----------------------------------------------------------------


def test_no_session_token_can_be_found_in_the_journal(racko):
    """Every seat's token is in the secrets file (0600), none is anywhere in the journal."""
    tokens = tokens_of(racko)
    assert len(tokens) == 2 and all(tokens.values())
    data = racko.read_bytes()
    for token in tokens.values():
        assert token.encode() not in data
    assert not any("token" in r for r in read_journal(racko).records)
    assert secret_path(racko).stat().st_mode & 0o777 == 0o600


def test_the_journal_is_written_0600_whatever_the_umask(tmp_path):
    old = os.umask(0)
    try:
        writer = JournalWriter(tmp_path / "j")
        writer.write({"j": "seq", "upto": 1})
        writer.close()
    finally:
        os.umask(old)
    assert (tmp_path / "j").stat().st_mode & 0o777 == 0o600
    assert secret_path(tmp_path / "j").stat().st_mode & 0o777 == 0o600


def test_a_resumed_seat_gets_its_token_from_the_secrets_file_by_seat_record(tmp_path):
    """Lobby leaves renumber seats; tokens are kept by the seat record's ordinal, so the seat
    that moved up keeps its own token."""
    t = Table("racko", players=3)
    path = tmp_path / "j"
    writer = JournalWriter(path)
    t.arbiter.attach_journal(writer, PORTS)
    tokens = {name: t.seat(peer, name)["token"] for peer, name in
              ((b"A", "ann"), (b"X", "xan"), (b"B", "bob"))}
    t.send(b"X", "leave")
    writer.close()
    a = restore(read_journal(path), 5.0, path).arbiter
    assert [(s.index, s.name, s.token) for s in a.seats] == \
        [(0, "ann", tokens["ann"]), (1, "bob", tokens["bob"])]
    assert not any(tok.encode() in path.read_bytes() for tok in tokens.values())


def test_a_journal_with_seats_and_no_secrets_file_is_not_resumed(racko, tmp_path):
    copy = tmp_path / "copy.journal"
    copy.write_bytes(racko.read_bytes())
    with pytest.raises(JournalError, match="secrets file .* is missing: the seats' session"):
        restore(read_journal(copy), 0.0, copy)


# --- records chained ----------------------------------------------------------------------------


def test_every_record_is_chained_to_the_one_before(racko):
    read = read_journal(racko)
    assert read.version == 4 and read.chained == len(read.records) and read.checksums
    assert read.records[0]["prev"] == GENESIS and read.records[0]["v"] == 4


def test_an_edited_record_is_found_by_its_checksum(racko, capsys):
    """A record edited and written back as it was: its own checksum finds it — the last
    record too, which no later prev covers."""
    k = first(records_of(racko), "seat") + 1  # the seat record's number (1-based)
    last = len(records_of(racko))

    def rename(records):
        records[k - 1]["name"] = "mallory"
    with pytest.raises(JournalError, match=f"record {k} \\(seat\\) is damaged \\(its checksum "
                                           "does not match\\)"):
        read_journal(edited(racko, rename))

    def no_totals(records):
        records[-1]["result"]["totals"] = {}
    assert main(["verify", str(edited(racko, no_totals))]) == 1
    out = capsys.readouterr().out
    assert out == f"FAIL at record {last} (a match_end record): it is damaged (its checksum " \
        "does not match): the journal was changed on disk after it was written\n", out


def test_an_edited_name_breaks_the_chain(racko, capsys):
    """Even with its checksum made again, an edited record breaks the chain."""
    def rename(records):
        records[first(records, "seat")]["name"] = "mallory"
    bad = edited(racko, rename, checksum=True)
    k = first(records_of(racko), "seat") + 1  # the seat record's number (1-based)
    with pytest.raises(JournalError, match=f"record {k + 1} .*chain is broken.*record {k} "
                                           rf"\(seat\).*record {k} was edited"):
        read_journal(bad)
    with pytest.raises(JournalError, match="chain is broken"):
        replay(bad)
    assert main(["verify", str(bad)]) == 1
    out = capsys.readouterr().out
    assert out.startswith(f"FAIL at record {k + 1} (") and out.count("\n") == 1, out
    assert f"hash of record {k} (seat)" in out and f"record {k} was edited" in out


def test_an_added_token_is_found(racko):
    def add(records):
        records[first(records, "seat")]["token"] = "0123456789abcdef"
    bad = edited(racko, add, rechain=True)  # even chained again: a v2 seat holds no token
    verdict = verify(bad)
    assert not verdict.ok and "(a seat record)" in verdict.line and "session token" in \
        verdict.line, verdict.line


def test_a_changed_move_breaks_the_chain(demon):
    def change(records):
        records[first(records, "move", 3)]["move"] = {"t": "stuck"}
    verdict = verify(edited(demon, change, checksum=True))
    assert not verdict.ok and "chain is broken" in verdict.line and "(move) — record" in \
        verdict.line, verdict.line


def test_a_removed_middle_record_is_found_by_verify_and_by_resume(demon):
    records = records_of(demon)
    gone = first(records, "move", 5)
    bad = edited(demon, lambda rs: rs.pop(gone))
    verdict = verify(bad)
    assert verdict.line.startswith(f"FAIL at record {gone + 1} (") and "removed" in \
        verdict.line, verdict.line
    with pytest.raises(JournalError, match=f"record {gone + 1} "):
        restore(read_journal(bad), 0.0, bad)


def test_a_cut_at_the_end_is_told_as_ending_before_the_match(demon, tmp_path):
    records = records_of(demon)
    cut = tmp_path / "cut.journal"
    write_records(cut, records[:first(records, "round_end")], rechain=False)
    verdict = verify(cut)
    assert not verdict.ok and "the journal ends before the match does" in verdict.line, \
        verdict.line
    # not an accusation (a newcomer read FAIL of a paused match as a cheat): every record up
    # to the cut checks
    assert verdict.line.startswith("NOT FINISHED at record ") and \
        verdict.line.endswith("; every record up to there checks"), verdict.line
    assert replay(cut).unfinished is not None  # a crash's journal still replays


def test_a_version_1_journal_replays_unchained_but_does_not_verify(tmp_path, capsys):
    """What lan-demon wrote before: no prev, tokens in seat records, dealt by CPython's
    random. It replays (marked unchained); verify says it cannot be audited."""
    path = tmp_path / "v1.journal"
    packer = msgpack.Packer(use_bin_type=True)
    config = {"game": "racko", "players": 2, "rounds": None, "seed": 1, "options": {},
              "fairness_ms": 30.0, "countdown": 0, "pause": 0, "turn_timeout": 30.0}
    path.write_bytes(b"".join(packer.pack(r) for r in [
        {"j": "host", "v": 1, "config": config, "port": 1, "pub_port": 2, "coded": False},
        {"j": "seat", "seat": 0, "name": "a", "token": "t0", "bot": True},
        {"j": "seat", "seat": 1, "name": "b", "token": "t1", "bot": True},
        {"j": "match", "game": "racko", "seed": 1, "players": ["a", "b"], "options": {},
         "rounds": None},
        {"j": "round", "round": 0, "setup": {}}]))
    rep = replay(path)
    assert rep.unchained and rep.moves == [0]
    assert main(["replay", str(path)]) == 0
    assert "version 1 journal (unchained" in capsys.readouterr().err
    verdict = verify(path)
    assert not verdict.ok and "not chained" in verdict.line
    with pytest.raises(JournalError, match="cannot be resumed"):
        restore(read_journal(path), 0.0, path)


def test_a_host_record_edited_to_version_1_to_skip_the_chain_is_found(racko):
    def downgrade(records):
        records[0]["v"] = 1
    with pytest.raises(JournalError, match="says it is version 1"):
        read_journal(edited(racko, downgrade, checksum=True))


# --- a journal anyone can audit -------------------------------------------------------------


@pytest.mark.parametrize("name", ["demon", "racko"])
def test_a_whole_match_journal_verifies_ok(name, request, capsys):
    path = request.getfixturevalue(name)
    records = read_journal(path).records
    moves = sum(r["j"] == "move" for r in records)
    rounds = sum(r["j"] == "round_end" for r in records)
    game = records[first(records, "match")]["game"]
    assert main(["verify", str(path)]) == 0
    assert capsys.readouterr().out == \
        f"OK: {game}, 2 seats, {rounds} round{'s' * (rounds != 1)}, {moves} moves, 0 refused, " \
        f"{len(records)} records chained\n"


def test_every_move_record_holds_its_arrival_and_claimed_time(demon):
    moves = [r for r in read_journal(demon).records if r["j"] == "move"]
    assert all(isinstance(m["at"], float) for m in moves)
    assert all(("ts" in m) == (m["seat"] >= 0) for m in moves)  # the table claims no time
    assert any(m["seat"] == -1 for m in moves)  # RD-13 table moves are in it


def journaled_racko(tmp_path):
    """A two-seat Rack-O table journaling to ``tmp_path/j``, dealt: (table, path, writer)."""
    t = Table("racko")
    path = tmp_path / "j"
    writer = JournalWriter(path)
    t.arbiter.attach_journal(writer, PORTS)
    t.seat(b"A", "ann")
    t.seat(b"B", "bob")
    t.send(b"A", "ready")
    t.send(b"B", "ready")
    return t, path, writer


def test_the_claimed_ts_is_journaled_as_sent_before_any_clamp(tmp_path):
    t, path, writer = journaled_racko(tmp_path)
    peer = (b"A", b"B")[t.arbiter.state.turn]
    t.send(peer, "move", round=0, move={"t": "draw"}, ts=-5000.0, at=101.0)  # a lie
    writer.close()
    (move,) = [r for r in read_journal(path).records if r["j"] == "move"]
    assert (move["ts"], move["at"]) == (-5000.0, 101.0)


def test_refused_moves_are_journaled_and_verify_checks_them(tmp_path):
    """An illegal move is recorded as refused with its rule; verify replays it and agrees;
    a legal move forged into a refusal is found."""
    t, path, writer = journaled_racko(tmp_path)
    idle = (b"A", b"B")[1 - t.arbiter.state.turn]
    (error,) = t.send(idle, "move", round=0, move={"t": "draw"}, ts=100.0, at=100.5)
    assert error["code"] == "illegal"
    writer.close()
    (refused,) = [r for r in read_journal(path).records if r["j"] == "refused"]
    assert refused == {**refused, "round": 0, "seat": 1 - t.arbiter.state.turn,
                       "move": {"t": "draw"}, "at": 100.5, "ts": 100.0, "code": "illegal",
                       "rule": error["rule"]}
    verdict = verify(path)
    assert "ends before the match does" in verdict.line  # the match goes on: all else held

    def forge(records):
        records[first(records, "refused")]["seat"] = t.arbiter.state.turn  # its own turn
    forged = verify(edited(path, forge, rechain=True))
    assert "refused as illegal was legal at that point" in forged.line, forged.line


def test_a_forged_score_fails_verify(demon):
    def forge_total(records):
        end = records[first(records, "match_end")]["result"]
        name = next(iter(end["totals"]))
        end["totals"][name] += 10
    verdict = verify(edited(demon, forge_total, rechain=True))
    assert verdict.line.startswith("FAIL at record") and "(a match_end record" in verdict.line and \
        "totals" in verdict.line and "not the sums" in verdict.line, verdict.line

    def forge_round(records):
        result = records[first(records, "round_end")]["result"]
        result["scores"][0] += 1
    verdict = verify(edited(demon, forge_round, rechain=True))
    assert "(a round_end record, in round 1)" in verdict.line and "other scores" in verdict.line, \
        verdict.line


def test_rd13_a_table_move_before_the_minute_fails_verify(demon):
    def hurry(records):
        k = first(records, "move", 0)
        for r in records[k:]:
            if r["j"] == "move" and r["seat"] == -1:
                before = [p for p in records[k:records.index(r)] if p["j"] == "move"]
                r["at"] = before[-1]["at"] + 30.0 if before else r["at"]
                for later in records[records.index(r) + 1:]:
                    if "at" in later:
                        later["at"] = max(later["at"], r["at"])
                return
    verdict = verify(edited(demon, hurry, rechain=True))
    assert "RD-13 table move" in verdict.line and "30.000 s after the last play" in \
        verdict.line, verdict.line


def test_rd13_a_pack_turn_does_not_restart_the_minute_at_the_table_or_in_verify(tmp_path):
    """RD-13 counts a minute with no card played: the table's timeout comes 60 s after Go even
    0.05 s after a Pack turn (PROTOCOL.md §19 once said a turn restarted it), and ``verify``
    takes such a journal as it is; a rotation restarts the minute (the next timeout waits
    another 60 s), and three end the round."""
    t = Table("racing-demon", rounds=1)
    path = tmp_path / "j"
    writer = JournalWriter(path)
    t.arbiter.attach_journal(writer, PORTS)
    t.seat(b"A", "ann")
    t.seat(b"B", "bob")
    t.send(b"A", "ready")
    t.send(b"B", "ready")  # Go at 100.0
    t.send(b"B", "hb", at=159.9)
    assert t.committed(t.send(b"A", "move", at=159.95, round=0, move={"t": "turn"}, ts=159.95))
    t.tick(159.999)
    assert not [u for u in t.updates("move") if u["seat"] == -1]
    t.tick(160.0)
    (timeout,) = [u for u in t.updates("move") if u["seat"] == -1]
    assert timeout["events"] == [{"e": "rotate", "why": "timeout", "n": 1}]
    for at in (161.0, 219.99):
        t.send(b"A", "hb", at=at)
        t.send(b"B", "hb", at=at)
        t.tick(at)
    assert len([u for u in t.updates("move") if u["seat"] == -1]) == 1
    for at in (220.0, 280.0):
        t.send(b"A", "hb", at=at)
        t.send(b"B", "hb", at=at)
        t.tick(at)
    assert [u["events"][0]["n"] for u in t.updates("move") if u["seat"] == -1] == [1, 2, 3]
    assert t.arbiter.phase == "over"
    writer.close()
    assert verify(path).ok, verify(path).line


def test_an_arrival_time_that_goes_back_fails_verify(racko):
    def back(records):
        records[first(records, "move", 4)]["at"] -= 10.0
    verdict = verify(edited(racko, back, rechain=True))
    assert "arrival time goes back" in verdict.line and "fairness window" in verdict.line, \
        verdict.line


def test_verify_of_a_missing_file_is_one_line_exit_2(tmp_path, capsys):
    assert main(["verify", str(tmp_path / "nope.journal")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("lan-demon: cannot read the journal") and err.count("\n") == 1


def test_verify_of_a_file_that_is_not_a_journal_fails_in_one_line(tmp_path, capsys):
    path = tmp_path / "text"
    path.write_bytes(b"hello, this is not a journal\n")
    assert main(["verify", str(path)]) == 1
    out = capsys.readouterr().out
    assert out.startswith("FAIL at record 1") and out.count("\n") == 1, out


# --- a committed deal, re-derived from the revealed secret and the nonces -----------------------


def committed_journal(path: Path, secret: bytes, nonces: dict[int, bytes],
                      reveal: bool = True) -> None:
    """A one-round Rack-O match as the lead's commit and reveal journals it: the round record
    has the host's commitment, the seats' nonce hashes and the nonces mixed in; the round's
    end reveals the secret. Moves are greedy bots' on that deal."""
    game = get_game("racko")
    match = Match(game, ["ann", "bob"], 9, {}, rounds_wanted=1)
    writer = JournalWriter(path)
    config = {"game": "racko", "players": 2, "rounds": 1, "seed": 9, "options": {},
              "fairness_ms": 0, "countdown": 0, "pause": 0, "turn_timeout": 30.0}
    writer.write({"j": "host", "v": 2, "config": config, "port": 1, "pub_port": 2,
                  "coded": False})
    for seat, name in enumerate(match.players):
        writer.keep_token(f"token-{name}")
        writer.write({"j": "seat", "seat": seat, "name": name, "bot": True})
    writer.write({"j": "match", "game": "racko", "seed": 9, "players": match.players,
                  "options": {}, "rounds": 1})
    writer.keep_round_secret(0, secret.hex())
    writer.write({"j": "countdown", "round": 0})
    writer.write({"j": "round", "round": 0, "setup": match.setup, "commit": commitment(secret),
                  "commits": [[s, commitment(n)] for s, n in nonces.items()],
                  "nonces": [[s, n.hex()] for s, n in nonces.items()], "seeded": False})
    state = match.deal(secret, nonces)
    rng = random.Random(1)
    bots = [make_strategy("racko", "greedy") for _ in match.players]
    at = 100.0
    while not game.round_over(state):
        seat = game.to_move(state)[0]
        move = bots[seat].choose(Turn(game, state, seat, rng))
        game.apply(state, seat, move)
        at += 1.0
        writer.write({"j": "move", "seq": int(at), "round": 0, "seat": seat,
                      "move": move.to_data(), "at": at, "ts": at})
    if reveal:
        result = game.round_result(state)
        match.record(result)
        writer.write({"j": "round_end", "round": 0, "result": result.to_data(),
                      "secret": secret.hex()})
        writer.write({"j": "match_end", "result": match.result_data()})
    writer.close()


SECRET = bytes(range(32))
NONCES = {0: b"\x01" * 16, 1: b"\x02" * 16}


def test_a_committed_deal_verifies_from_the_secret_and_the_nonces(tmp_path):
    path = tmp_path / "j"
    committed_journal(path, SECRET, NONCES)
    verdict = verify(path)
    assert verdict.ok, verdict.line
    assert replay(path).match.rounds


@pytest.mark.parametrize("forge, words", [
    pytest.param(lambda rs: rs[first(rs, "round_end")].update(secret="ab" * 32),
                 "does not match the commitment", id="another-secret"),
    pytest.param(lambda rs: rs[first(rs, "round")].update(nonces=[[0, "03" * 16],
                                                                  [1, "02" * 16]]),
                 "seat 0's nonce is not the one it committed to", id="another-nonce"),
    pytest.param(lambda rs: rs[first(rs, "round")].update(seeded=True),
                 "seeded round's commitment is not the hash of the seed's secret",
                 id="claims-seeded"),
])
def test_a_deal_that_is_not_the_committed_one_fails_verify(tmp_path, forge, words):
    path = tmp_path / "j"
    committed_journal(path, SECRET, NONCES)
    verdict = verify(edited(path, forge, rechain=True))
    assert not verdict.ok and words in verdict.line, verdict.line


def test_a_round_in_progress_is_dealt_again_from_the_secrets_file(tmp_path):
    """Killed mid-round: the secret is not revealed in the journal yet; the secrets file has
    it, and the resumed arbiter deals the same cards from it and the round's nonces."""
    full, cut = tmp_path / "full", tmp_path / "cut"
    committed_journal(full, SECRET, NONCES)
    committed_journal(cut, SECRET, NONCES, reveal=False)
    assert read_secrets(cut).round_secret == {"round": 0, "secret": SECRET.hex()}
    restored = restore(read_journal(cut), 5.0, cut)
    assert restored.arbiter.phase == "playing"
    assert restored.arbiter.state == replay(full).last
    assert [s.token for s in restored.arbiter.seats] == ["token-ann", "token-bob"]
    # Without the secret the round cannot be dealt: one clear error.
    write_secrets(cut, HostSecrets(tokens=("token-ann", "token-bob")))
    with pytest.raises(JournalError, match="round 1 was dealt from a host secret that neither"):
        restore(read_journal(cut), 5.0, cut)
    keep_round_secret(cut, 0, SECRET.hex())  # what the server would have kept
    assert restore(read_journal(cut), 5.0, cut).arbiter.state == replay(full).last
