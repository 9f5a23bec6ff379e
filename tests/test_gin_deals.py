"""GS-2, GS-9: Gin Solitaire's deals, duplicate and independent.

Duplicate deals (GS-9, the default) give every seat the same hand and the same Draw pile: a seat
that is ahead has drawn the cards the others will draw next. That is what duplicate means, and
the lobby and docs/rules.md say it; the host may instead deal every seat its own cards from the
same round secret (``--deals independent``, PROTOCOL.md §21.6). Over the wire, in both modes,
no seat, and no spectator, is ever sent a card of a seat's Draw pile before that seat draws it.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

import pytest

from lan_demon.games.gin_moves import Discard, Draw, Knock
from lan_demon.net.client import Client
from lan_demon.net.seal import open_seal, private_of
from net_harness import pump_until
from deal_spec import gin_deal

pytestmark = pytest.mark.timeout(60)

GAME = "gin-solitaire"
MODES = ("duplicate", "independent")
AHEAD = 6  # the draws Ann makes before Bob makes his first ones
BEHIND = 3  # Bob's draws while Ann is ahead
_CODE = re.compile(r"^(JK|[A2-9TJQK][SHDC])$")


def real_codes(data: Any) -> set[str]:
    """Every real card code anywhere in plain data (``??`` placeholders are not cards)."""
    if isinstance(data, str):
        return {data} if _CODE.match(data) else set()
    if isinstance(data, dict):
        return set().union(*map(real_codes, data.values())) if data else set()
    if isinstance(data, (list, tuple)):
        return set().union(*map(real_codes, data)) if data else set()
    return set()


def spec_secret(seed: int, round_no: int) -> bytes:
    """PROTOCOL.md §21.1, a seeded table: the round secret from the seed, no nonces."""
    host = hashlib.sha256(f"lan_demon/seed/v1:{seed}:{round_no}".encode()).digest()
    return hashlib.sha256(b"lan_demon/round/v1" + host).digest()


def spec_deal(secret: bytes, seats: int, mode: str) -> list[tuple[list[str], list[str]]]:
    """Each seat's (hand, Draw pile) as PROTOCOL.md §21.6 says, from its text alone (the deal
    vectors' test writes it out), the pile bottom first."""
    dealt = gin_deal(secret, {"players": seats, "sat_out": [], "deals": mode})
    return [(s["hand"], s["draw"]) for s in dealt]


def quiet_seed() -> int:
    """A seed whose round 0 keeps the Joker out of the first AHEAD + 2 draws of every seat, in
    both modes, so the scene below is played as written (found once, deterministically)."""
    for seed in range(1000):
        secret = spec_secret(seed, 0)
        if all("JK" not in pile[-(AHEAD + 2):] for mode in MODES
               for _, pile in spec_deal(secret, 2, mode)):
            return seed
    raise AssertionError("no seed")


SEED = quiet_seed()


class Watched:
    """A client and every message it received, in order: (channel, message)."""

    def __init__(self, server: Any, name: str, role: str = "player"):
        self.client = Client(server.address, name=name, role=role, context=server.context)
        self.log: list[tuple[str, dict[str, Any]]] = []
        self.client.watchers.append(lambda channel, msg, size: self.log.append((channel, msg)))

    def opened(self, msg: dict[str, Any]) -> dict[str, Any] | None:
        """An update's sealed half (§23) opened with this client's own key; None when it does
        not open (another seat's, or no seal)."""
        key = self.client.seal_key
        if msg.get("t") != "update" or "s" not in msg or key is None:
            return None
        return open_seal(key, msg["seq"], msg["s"])

    def draws_of(self, seat: int) -> list[int]:
        """The update numbers of ``seat``'s draws, as this client heard them."""
        return [m["seq"] for ch, m in self.log if m.get("t") == "update" and m.get("k") == "move"
                and m.get("seat") == seat and m["move"].get("t") == "draw"]

    def drawn(self) -> list[str]:
        """The cards this seat was told it drew, in order (from its own sealed halves)."""
        out = []
        for _, msg in self.log:
            half = self.opened(msg)
            full = private_of(msg, half) if half is not None else None
            for e in (full or {}).get("events", []):
                if e.get("e") == "draw" and e.get("seat") == self.client.seat:
                    out.append(e["private"]["card"])
        return out


def step(me: Watched, everyone: list[Watched], knock: bool = False) -> None:
    """One move of ``me``'s seat, waited for: the first discard, a draw, or a discard (a knock
    when allowed and ``knock``) — whichever the phase asks."""
    clients = [w.client for w in everyone]
    c = me.client
    pump_until(lambda: c.legal_moves() and not c.pending, clients)
    legal = c.legal_moves()
    knocks = [m for m in legal if isinstance(m, Knock)]
    move = Draw() if Draw() in legal else knocks[0] if knock and knocks else \
        next(m for m in legal if isinstance(m, Discard))
    c.play(move)
    pump_until(lambda: not c.pending, clients)


def seat_over(w: Watched) -> bool:
    mirror = w.client.mirror
    return mirror is not None and mirror.seats[w.client.seat].done


def play_scene(host: Any, mode: str) -> tuple[Any, Watched, Watched, Watched]:
    """Ann plays ahead (her first discard and AHEAD draws), everyone asks a snapshot, Bob plays
    BEHIND draws, then both play their rounds out (knocking when they may); one round."""
    server = host(GAME, players=2, rounds=1, seed=SEED, options={"deals": mode})
    ann, bob = Watched(server, "Ann"), Watched(server, "Bob")
    sue = Watched(server, "Sue", role="spectator")
    everyone = [ann, bob, sue]
    for w in everyone:
        w.client.connect()
        host.clients.append(w.client)
    clients = [w.client for w in everyone]
    ann.client.ready()
    bob.client.ready()
    pump_until(lambda: all(w.client.mirror is not None and w.client.table["phase"] == "playing"
                           for w in everyone), clients)
    for _ in range(1 + 2 * AHEAD):
        step(ann, everyone)
    asked = {id(w): w.client.seq for w in everyone}
    for w in everyone:
        w.client.resync()
    pump_until(lambda: all(any(m.get("t") == "snap" and m["seq"] >= asked[id(w)]
                               for _, m in w.log) for w in everyone), clients)
    for _ in range(1 + 2 * BEHIND):
        step(bob, everyone)
    for w in (ann, bob):
        while not seat_over(w):
            step(w, everyone, knock=True)
    pump_until(lambda: all(w.client.table.get("phase") == "over" for w in everyone), clients)
    return server, ann, bob, sue


@pytest.fixture(params=MODES)
def scene(request, host):
    mode = request.param
    server, ann, bob, sue = play_scene(host, mode)
    return mode, server, ann, bob, sue


def test_gs2_gs9_no_card_of_a_draw_pile_reaches_anyone_before_its_seat_draws_it(scene):
    """Every message each client received — updates, snapshots, its private messages and its
    own sealed halves opened with its key — holds no card of its seat's Draw pile before the
    update of the draw that brings it, and no card at all in the clear on the PUB; a
    spectator receives no card. Duplicate and independent deals alike (GS-2, GS-3, GS-9)."""
    mode, server, ann, bob, sue = scene
    deal = spec_deal(spec_secret(SEED, 0), 2, mode)
    for w in (ann, bob, sue):
        seat = w.client.seat
        hand, pile = deal[seat] if seat is not None else ([], [])
        draws = w.draws_of(seat) if seat is not None else []
        assert seat is None or len(draws) > AHEAD // 2
        last = 0
        for channel, msg in w.log:
            last = msg.get("seq", last)
            if channel == "update":
                assert real_codes(msg) == set(), (w.client.name, msg)  # nothing in the clear
            allowed = set(hand) | {pile[-1 - i] for i, at in enumerate(draws) if at <= last}
            seen = real_codes(msg) | real_codes(w.opened(msg))
            assert seen <= allowed, (w.client.name, mode, sorted(seen - allowed), msg)
    assert any(m.get("t") == "snap" for _, m in sue.log)


def test_gs9_what_a_seat_ahead_has_drawn_tells_the_next_draws_only_in_duplicate(scene):
    """GS-9's price, as docs/rules.md and the lobby say it: with duplicate deals the seat that
    is ahead (Ann, AHEAD draws) has been told the very cards Bob draws next; with independent
    deals what she drew says nothing of his."""
    mode, server, ann, bob, sue = scene
    ann_drew, bob_drew = ann.drawn(), bob.drawn()
    assert len(ann_drew) >= AHEAD and len(bob_drew) >= BEHIND
    # every draw of Bob's first AHEAD came after Ann had made her AHEAD draws
    k = min(AHEAD, len(bob_drew))
    if mode == "duplicate":
        assert bob_drew[:k] == ann_drew[:k]
    else:
        assert bob_drew[:k] != ann_drew[:k]


def test_gs2_gs9_every_seat_is_dealt_over_the_wire_as_section_21_6_says(scene):
    """From the host secret the round_end revealed, §21.6 written again (the test's own
    shuffle) gives each seat the hand its private round message held and the cards it drew, in
    order: one copy for all with duplicate deals; each seat its own with independent deals."""
    mode, server, ann, bob, sue = scene
    ends = [m for _, m in sue.log if m.get("t") == "update" and m.get("k") == "round_end"]
    (end,) = {m["seq"]: m for m in ends}.values()
    host = bytes.fromhex(end["secret"])
    secret = hashlib.sha256(b"lan_demon/round/v1" + host).digest()  # seeded: no nonces
    deal = spec_deal(secret, 2, mode)
    for w in (ann, bob):
        seat = w.client.seat
        (dealt,) = [m for ch, m in w.log if ch == "private" and m.get("t") == "private"
                    and m.get("k") == "round"]
        assert dealt["state"]["seats"][seat]["hand"] == deal[seat][0]
        drew = w.drawn()
        assert drew and drew == deal[seat][1][::-1][:len(drew)]
    rounds = [m for _, m in sue.log if m.get("t") == "update" and m.get("k") == "round"]
    assert rounds and rounds[0]["setup"]["deals"] == mode
    assert ann.client.config["options"] == {"deals": mode} == sue.client.config["options"]
    if mode == "duplicate":
        assert deal[0] == deal[1]
    else:
        assert deal[0][0] != deal[1][0] and deal[0][1] != deal[1][1]
        assert sorted(deal[1][0] + deal[1][1]) == sorted(deal[0][0] + deal[0][1])  # 53 each


# --- the command line: --deals for Gin Solitaire, one line for any other game -------------------


def test_gs9_host_passes_deals_to_the_match_and_refuses_it_for_another_game(host_configs,
                                                                          capsys):
    from host_stand_in import HostStopped
    from lan_demon.cli import main
    for argv, want in ((["--deals", "independent"], "independent"), ([], "duplicate"),
                       (["--deals", "duplicate"], "duplicate")):
        with pytest.raises(HostStopped):
            main(["host", "--port", "0", "--game", GAME, *argv])
        assert host_configs[-1].options == {"deals": want}  # the options in force
    capsys.readouterr()
    for game in ("racing-demon", "racko"):
        assert main(["host", "--port", "0", "--game", game, "--deals", "independent"]) == 2
        (line,) = capsys.readouterr().err.splitlines()
        assert line == f"lan-demon: --deals is a Gin Solitaire option (GS-9), not one of " \
            f"{game}"
    assert main(["host", "--port", "0", "--game", GAME, "--deals", "shared"]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("lan-demon: argument --deals: invalid choice: 'shared' (choose "
                           "from 'duplicate', 'independent')")


def test_gs9_play_and_simulate_take_deals_too(monkeypatch, capsys):
    import json

    import lan_demon.commands.local_table as local_table
    import lan_demon.commands.prompts as prompts
    from lan_demon.cli import main
    seen: dict[str, Any] = {}

    class Stop(Exception):
        pass

    def fake_start(game, seed, rounds, speed, **kw):
        seen.update(kw)
        raise Stop

    monkeypatch.setattr(prompts, "need_terminal", lambda: None)
    monkeypatch.setattr(local_table, "start_local_table", fake_start)
    with pytest.raises(Stop):
        main(["play", "--game", GAME, "--bots", "1", "--deals", "independent"])
    assert seen["options"] == {"deals": "independent"}
    assert main(["play", "--game", "racko", "--deals", "duplicate"]) == 2
    assert capsys.readouterr().err.strip() == \
        "lan-demon: --deals is a Gin Solitaire option (GS-9), not one of racko"
    for mode in MODES:
        assert main(["simulate", "--game", GAME, "--players", "2", "--seed", "5", "--rounds",
                     "2", "--deals", mode, "--json"]) == 0
        doc = json.loads(capsys.readouterr().out)
        assert [r["setup"]["deals"] for r in doc["rounds"]] == [mode, mode]
        first, second = doc["players"]
        # greedy bots play one deal alike: duplicate results agree seat for seat
        same = [r["detail"][first] == r["detail"][second] for r in doc["rounds"]]
        assert same == ([True, True] if mode == "duplicate" else [False, False])


def test_gs9_a_resumed_host_keeps_its_deals(tmp_path, capsys):
    """``host --resume`` takes the deals from the journal: ``--deals`` may only repeat them,
    and is refused in one line for a journal of another game."""
    from arbiter_harness import Table
    from lan_demon.cli import main
    from lan_demon.net.journal import JournalWriter
    for game, options, flag, words in (
            (GAME, {"deals": "independent"}, "duplicate",
             "--deals duplicate conflicts with the journal's match, whose deals were "
             "independent"),
            (GAME, {}, "independent",
             "--deals independent conflicts with the journal's match, whose deals were "
             "duplicate"),
            ("racko", {}, "duplicate", "--deals is a Gin Solitaire option (GS-9), not one of "
                                       "racko, the journal's game")):
        journal = tmp_path / f"{game}-{flag}.journal"
        Table(game, options=options).arbiter.attach_journal(JournalWriter(journal),
                                                            {"port": 7700, "pub_port": 7701})
        before = journal.read_bytes()
        assert main(["host", "--resume", str(journal), "--port", "0", "--deals", flag]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and words in err, err
        assert journal.read_bytes() == before


# --- the lobby and the help say what the deals mean ---------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_gs9_the_lobby_says_what_the_tables_deals_mean(mode):
    """GS-9: a Gin Solitaire lobby with two seats says which deals the table has and what they
    imply — duplicate: a player ahead of you has drawn your next cards; a lone player is not
    told about seats that are not there."""
    from lan_demon.tui.style import text_of
    from tui_fake import FakeClient, controller, seats
    client = FakeClient(game_id=GAME, table={"phase": "lobby", "captain": 0,
                                             "seats": seats("Tess", "Bob")},
                        config={"options": {"deals": mode}})
    ctl, _ = controller(client, host=True)
    text = " ".join(text_of(ctl.render(80, 24)).split())
    if mode == "duplicate":
        assert "Same cards for everyone (duplicate deals, GS-9): a player who is ahead of you " \
               "has already drawn your next cards" in text
        assert "host --deals independent" in text
    else:
        assert "Each seat gets its own cards (independent deals, GS-9)" in text
    alone = FakeClient(game_id=GAME, table={"phase": "lobby", "captain": 0,
                                            "seats": seats("Tess")},
                       config={"options": {"deals": mode}})
    ctl, _ = controller(alone, host=True)
    assert "GS-9" not in text_of(ctl.render(80, 24))
    ctl.key("?")
    help_text = " ".join(text_of(ctl.render(100, 40)).split())
    assert "a player ahead of you has drawn your next cards" in help_text
    assert "Independent deals (host --deals independent): each seat gets its own cards" in \
        help_text


# --- bots never read a Draw pile -----------------------------------------------------------------


class _Peeker:
    """A control that does read the Draw pile (its top card picks the move): the check below
    must tell it apart, or it proves nothing."""

    def choose(self, turn: Any) -> Any:
        top = turn.state.seats[turn.seat].draw[-1]
        return turn.legal[top.rank % len(turn.legal)]


def _twins_differ(make: Any, mode: str, seed: str) -> bool:
    """Play two-seat rounds with ``make()`` bots fed the true round (as the simulator feeds
    them) while twins are fed only their seat's redaction (as a client's mirror); True at the
    first move where a twin chose otherwise."""
    import random

    from lan_demon.bots.base import Turn
    from lan_demon.games import Match, get_game
    from lan_demon.games.base import round_rng
    game = get_game(GAME)
    match = Match(game, ["a", "b"], seed, {"deals": mode})
    for round_no in range(2):
        state = game.deal(match.setup, round_rng(seed, round_no))
        seeing, blind = [make(), make()], [make(), make()]
        k = 0
        while not game.round_over(state):
            for seat in game.to_move(state):
                k += 1
                move = seeing[seat].choose(Turn(game, state, seat, random.Random(k)))
                twin = blind[seat].choose(Turn(game, game.redact(state, seat), seat,
                                               random.Random(k)))
                if move != twin:
                    return True
                game.apply(state, seat, move)
    return False


@pytest.mark.parametrize("mode", MODES)
def test_gs2_gs9_no_gin_bot_reads_the_draw_pile(mode):
    """GS-2: the Draw pile is face down. Every registered Gin strategy makes the same moves
    on the true round and on what its seat may see, duplicate and independent deals alike;
    a control that reads the pile does not."""
    from lan_demon.bots import make_strategy, strategy_names
    names = strategy_names(GAME)
    assert {"greedy", "solver"} <= set(names)
    for name in names:
        assert not _twins_differ(lambda: make_strategy(GAME, name), mode, f"peek:{name}"), name
    assert _twins_differ(_Peeker, mode, "peek:control")


def test_gs9_a_journaled_match_of_independent_secret_deals_verifies_and_replays(tmp_path):
    """A Gin match with independent deals from secret (committed, revealed) round secrets,
    journaled: ``verify`` finds every deal, move and score right from the spec, and ``replay``
    deals each seat its own cards again (GS-2, GS-9)."""
    import random

    from arbiter_harness import Table
    from lan_demon.bots import make_strategy
    from lan_demon.bots.base import Turn
    from lan_demon.net.audit import verify
    from lan_demon.net.journal import JournalWriter
    from lan_demon.net.replay import replay
    path = tmp_path / "gin.journal"
    table = Table(GAME, seed=None, rounds=2, options={"deals": "independent"})
    arb = table.arbiter
    arb.attach_journal(JournalWriter(path), {"port": 7700, "pub_port": 7701})
    for peer, name in ((b"ann", "Ann"), (b"bob", "Bob")):
        table.seat(peer, name)
    for peer in (b"ann", b"bob"):
        table.send(peer, "ready")
    bot, rng, hands = make_strategy(GAME, "greedy"), random.Random(1), []
    for _ in range(2000):
        if arb.phase == "over":
            break
        if arb.phase != "playing":
            table.tick(table.now + 1)
            continue
        if len(hands) == arb.match.round_no:
            hands.append([list(s.hand) for s in arb.state.seats])
        seat = arb.game.to_move(arb.state)[0]
        move = bot.choose(Turn(arb.game, arb.state, seat, rng))
        table.send([b"ann", b"bob"][seat], "move", round=arb.match.round_no,
                   move=move.to_data(), ts=table.now)
    assert arb.phase == "over" and len(hands) == 2
    assert all(h[0] != h[1] for h in hands)  # each seat its own cards, round after round
    verdict = verify(path)
    assert verdict.ok, verdict.line
    # every move applies to the round dealt again: a duplicate re-deal would refuse the
    # discards of cards only one seat holds
    again = replay(path)
    assert [s["deals"] for s in again.match.setups] == ["independent", "independent"]
    assert again.match.rounds == [r for r in again.match.rounds if r.scores] and \
        len(again.match.rounds) == 2
