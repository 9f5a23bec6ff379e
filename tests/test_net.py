"""Networked play over real ZeroMQ sockets on loopback: races with injected latency (RD-11),
gaps and resync, late joiners, reconnecting with a token, what a spectator can see."""

from __future__ import annotations

import time

import pytest

from table_settings import settings
from lan_demon.games import Match, get_game
from lan_demon.games.racko import Draw
from lan_demon.bots.runner import NetBot, make_bot, run_pool
from lan_demon.net.client import Client
from lan_demon.net.connect import ConnectError
from lan_demon.net.codec import make
from lan_demon.net.server import ArbiterServer
from net_harness import pump_until

pytestmark = pytest.mark.timeout(60)


def join(host, server, name, **kw) -> Client:
    client = Client(server.address, name=name, context=server.context, **kw).connect()
    host.clients.append(client)
    return client


def mirror_is_canonical(server, client) -> bool:
    game, arbiter = client.game, server.arbiter
    want = game.state_to_data(game.redact(arbiter.state, client.seat))
    return client.mirror is not None and game.state_to_data(client.mirror) == want


def race_seed() -> int:
    """A seed whose two-player deal shows an ace on seat 0's table and that suit's 2 on both
    seats' tables, so both can race for the same stack (found once, deterministically)."""
    game = get_game("racing-demon")
    for seed in range(20_000):
        state = Match(game, ["a", "b"], seed).deal()
        tops = [{(c.rank, c.suit): name for name, c in
                 [(f"c{i + 1}", col[-1]) for i, col in enumerate(s.columns)]}
                for s in state.seats]
        for suit in "SHDC":
            if (1, suit) in tops[0] and (2, suit) in tops[0] and (2, suit) in tops[1]:
                return seed
    raise AssertionError("no race seed")


RACE_SEED = race_seed()


def _race(host, fairness_ms):
    # A slow link (200 ms one way) is far beyond a home LAN's few ms: only a host that raises
    # the lag cap to its ceiling (100 ms, PROTOCOL.md §8) credits Slow enough to win.
    server = host("racing-demon", players=2, seed=RACE_SEED, fairness_ms=fairness_ms,
                  lag_cap_ms=100)
    slow = join(host, server, "Slow", send_delay=0.200)  # everything it sends is 200 ms late
    fast = join(host, server, "Fast")
    clients = [slow, fast]
    slow.ready()
    fast.ready()
    pump_until(lambda: all(c.mirror is not None for c in clients), clients)
    # Slow's probe echoes are late too, so the arbiter measures its delay before the race.
    pump_until(lambda: server.arbiter.seats[0].rtts, clients)
    state = slow.mirror
    ace = next(m for m in slow.legal_moves() if m.target == "middle" and
               _card(state, 0, m.source).rank == 1 and _twos(state, _card(state, 0, m.source)))
    suit = _card(state, 0, ace.source).suit
    slow.play(ace)
    pump_until(lambda: fast.mirror.stacks, clients)
    two = {seat: next(f"c{i + 1}" for i, col in enumerate(client.mirror.seats[seat].columns)
                      if (col[-1].rank, col[-1].suit) == (2, suit))
           for seat, client in enumerate(clients)}
    from lan_demon.games.demon_moves import Play
    slow.play(Play(two[0], "s1"))  # first in real time, arrives 200 ms later
    played = time.monotonic()
    pump_until(lambda: time.monotonic() >= played + 0.150, clients)  # the scenario's gap
    fast.play(Play(two[1], "s1"))  # 150 ms later in real time, arrives 50 ms earlier
    pump_until(lambda: not slow.pending and not fast.pending, clients, timeout=5)
    top = server.arbiter.state.stacks[1].cards[-1]
    return top.owner


def _card(state, seat, source):
    me = state.seats[seat]
    return me.pile[-1] if source == "pile" else me.columns[int(source[1]) - 1][-1]


def _twos(state, ace):
    return all(any((col[-1].rank, col[-1].suit) == (2, ace.suit) for col in s.columns)
               for s in state.seats)


def test_rd11_with_the_fairness_window_the_first_in_real_time_wins(host):
    assert _race(host, fairness_ms=250) == 0  # Slow played first


def test_rd11_with_the_window_at_zero_the_first_to_arrive_wins(host):
    assert _race(host, fairness_ms=0) == 1  # Fast's card arrived first


def _bots(host, server, n, strategy="greedy", speed="flat-out"):
    bots = [make_bot(server.address, strategy, f"bot{i}", seed=i, speed=speed,
                     context=server.context) for i in range(n)]
    host.clients.extend(b.client for b in bots)
    return bots


def test_a_gap_in_the_sequence_is_healed_by_a_snapshot(host):
    server = host("racing-demon", players=3, rounds=1, seed=4)
    bots = _bots(host, server, 3)
    victim = bots[0].client
    dropped = []
    original = victim.copy.on_update

    def lossy(msg):  # lose two updates in the middle of the round
        if msg["k"] == "move" and len(dropped) < 2 and msg["seq"] % 7 == 0:
            dropped.append(msg["seq"])
            return
        original(msg)

    victim.copy.on_update = lossy
    resyncs = []
    run_pool(bots, until=lambda: len(dropped) == 2 and victim.seq > max(dropped) + 3,
             timeout=30)
    for bot in bots:  # finish the round, counting the victim's resyncs on the way
        resyncs += [n for n in bot.client.take_notices() if n.kind == "resync"]
    assert len(dropped) == 2 and victim.seq > max(dropped)
    run_pool(bots, timeout=30)
    assert server.arbiter.phase == "over"
    game = victim.game
    assert game.state_to_data(victim.mirror) == game.state_to_data(
        game.redact(server.arbiter.state, victim.seat))


def test_a_late_joiner_gets_a_snapshot_and_follows_the_table(host):
    server = host("racing-demon", players=2, rounds=2, seed=6)
    bots = _bots(host, server, 2, speed="expert")
    arbiter = server.arbiter
    run_pool(bots, until=lambda: arbiter.phase == "playing" and arbiter.records.seq > 20,
             timeout=30)
    late = join(host, server, "Latecomer", role="spectator")
    assert late.seat is None and late.seq >= 20
    assert mirror_is_canonical(server, late)
    start = late.seq
    run_pool(bots + [NetBot(late, bots[0].strategy, bots[0].rng, bots[0].speed)],
             until=lambda: late.seq > start + 15, timeout=30)
    if server.arbiter.phase == "playing":
        assert mirror_is_canonical(server, late)
    with pytest.raises(ConnectError):
        join(host, server, "TooLate")  # the seats were filled when the match started


def test_a_client_killed_and_reconnected_with_its_token_gets_its_seat_and_cards(host):
    server = host("racko", players=2, seed=9)
    ann = join(host, server, "Ann")
    bob = join(host, server, "Bob")
    for c in (ann, bob):
        c.ready()
    pump_until(lambda: ann.mirror is not None and bob.mirror is not None, [ann, bob])
    rack = list(ann.mirror.racks[ann.seat])
    seat, token = ann.seat, ann.token
    ann.close()  # killed: no goodbye
    again = join(host, server, "Ann again", token=token)
    # the welcome names the seat taken back (PROTOCOL.md §4.2): Ann, whatever the hello said
    assert again.seat == seat and again.name == "Ann"
    assert again.mirror.racks[seat] == rack  # the same cards
    assert mirror_is_canonical(server, again)
    assert server.arbiter.seats[seat].name == "Ann"  # the seat, not a new one
    with pytest.raises(ConnectError, match="token"):
        join(host, server, "Mallory", token="f" * 16)


def test_a_spectator_never_receives_a_hidden_card(host):
    """RD-3/RD-9: Packs, Pile cards under the top and waste cards stay hidden from a spectator
    for a whole round; everything it sees is public."""
    server = host("racing-demon", players=3, rounds=1, seed=12)
    spectator = join(host, server, "Sue", role="spectator")
    frames: list[bytes] = []
    receive = spectator._receive

    def record(frame, channel):
        frames.append(frame)
        receive(frame, channel)

    spectator._receive = record
    bots = _bots(host, server, 3)
    watcher = NetBot(spectator, bots[0].strategy, bots[0].rng, bots[0].speed)
    run_pool(bots + [watcher], until=lambda: all(b.done for b in bots), timeout=30)
    state = server.arbiter.state
    hidden = {c.to_data().encode() for s in state.seats
              for c in s.pack + s.waste + s.pile[:-1]}
    assert hidden and frames
    seen = b"".join(frames)
    assert [code for code in hidden if code in seen] == []


def test_connecting_to_nothing_fails_clearly(context):
    client = Client("127.0.0.1:9", context=context)
    with pytest.raises(ConnectError, match="is the host running"):
        client.connect(timeout=0.3)
    with pytest.raises(ConnectError, match="not an address"):
        Client("nowhere", context=context)


def test_a_client_whose_table_drifts_notices_it_on_the_next_beat_and_resyncs(host):
    """The beat carries a hash of the public table; a client that no longer matches it asks
    for a snapshot (a client notices divergence at once, not rounds later). The drift comes as it
    would: Ann's copy goes wrong applying an update (a quiet table's beats are checked once
    per change of the copy, so the copy is corrupted as it changes)."""
    server = host("racko", players=2, seed=2)
    ann, bob = join(host, server, "Ann"), join(host, server, "Bob")
    for c in (ann, bob):
        c.ready()
    pump_until(lambda: ann.mirror is not None and bob.mirror is not None, [ann, bob])
    pump_until(lambda: ann.copy.hash_checked is not None, [ann, bob])  # a beat matched first
    ann.take_notices()
    replay = ann.game.replay

    def wrong_replay(mirror, seat, move, events):
        replay(mirror, seat, move, events)
        mirror.discard[-1] = 999  # Ann's copy of the public table goes wrong

    ann.game.replay = wrong_replay
    mover = ann if ann.seat == ann.mirror.turn else bob
    mover.play(Draw())
    pump_until(lambda: any(n.kind == "resync" and "drifted" in n.text
                           for n in ann.notices), [ann, bob], timeout=5)
    pump_until(lambda: mirror_is_canonical(server, ann), [ann, bob], timeout=5)


def test_a_client_that_hears_nothing_reconnects_by_itself_to_the_same_seat(host):
    server = host("racko", players=2, seed=5)
    ann, bob = join(host, server, "Ann"), join(host, server, "Bob")
    for c in (ann, bob):
        c.ready()
    pump_until(lambda: ann.mirror is not None and bob.mirror is not None, [ann, bob])
    seat, old, old_peer = ann.seat, ann.dealer, server.arbiter.seats[ann.seat].peer

    def silent() -> bool:
        """As if the arbiter had been silent for a minute — again before every pump, since
        a beat or pong already on its way would count as hearing from it."""
        if any(n.kind == "reconnecting" for n in ann.notices):
            return True
        ann.heard = time.monotonic() - 60
        return False

    pump_until(silent, [ann, bob])
    pump_until(lambda: ann.connected and ann.dealer is not old and mirror_is_canonical(
        server, ann), [ann, bob])
    assert ann.seat == seat and len(server.arbiter.seats) == 2  # the same seat, no new one
    assert server.arbiter.seats[seat].peer != old_peer  # now bound to the new connection
    assert server.arbiter.seats[seat].status == "here"


def test_rd11_after_a_reconnect_the_clock_estimate_is_refreshed_again(host):
    """After every resume the ping stood at ~10 ms for the rest of the match. A ping lost with the
    stopped host stayed unanswered in the client's list, and a refresh ping goes out only when none
    is waiting: the round trip and the clock offset — which date a move in an RD-11 race — were
    never measured again. A new connection forgets the lost one."""
    server = host("racko", players=2, seed=5)
    ann = join(host, server, "Ann")
    pump_until(lambda: ann.rtt is not None and not ann.sync.pings, [ann])
    ann.sync.pings[999_999] = time.monotonic()  # a ping the stopped host never answered
    ann._reconnect()
    pump_until(lambda: ann.connected and not ann.sync.pings, [ann])  # every ping answered
    samples = list(ann.sync.samples)
    ann.next_beat = 0.0  # a beat is due: a refresh ping goes out with it
    pump_until(lambda: ann.sync.samples != samples, [ann])


def test_predicted_shows_the_moves_in_flight_until_their_updates_come(host):
    """A key press shows at once: ``predicted`` is the mirror with the moves still in flight
    applied on top (worked out when it is read); once their updates come the mirror has caught
    up, and predicted is the mirror again."""
    from lan_demon.games.demon_moves import TurnPack
    server = host("racing-demon", players=2, seed=3)
    ann, bob = join(host, server, "Ann"), join(host, server, "Bob")
    for client in (ann, bob):
        client.ready()
    pump_until(lambda: all(c.mirror is not None and c.table["phase"] == "playing"
                           for c in (ann, bob)), [ann, bob])
    game = ann.game
    before = game.state_to_data(ann.mirror)
    ann.play(TurnPack())
    ann.play(TurnPack())
    assert len(ann.pending) == 2
    assert game.state_to_data(ann.mirror) == before  # the mirror waits for the table
    want = game.copy_state(ann.mirror)
    for _ in range(2):
        game.apply(want, ann.seat, TurnPack())
    assert game.state_to_data(ann.predicted) == game.state_to_data(want) != before
    assert ann.predicted is ann.predicted  # worked out once per change
    pump_until(lambda: not ann.pending, [ann, bob])
    assert ann.predicted is ann.mirror and mirror_is_canonical(server, ann)


def test_a_client_whose_arbiter_is_gone_drops_frames_and_refuses_moves_without_raising(host):
    """A killed host leaves the client's queue to it filling up; ZeroMQ then refuses more
    (``Again``). Heartbeats are dropped quietly; a move says plainly it was not sent and is not
    left pending — the snapshot after the reconnect heals the table."""
    from lan_demon.games.demon_moves import TurnPack
    server = host("racing-demon", players=2, seed=4)
    ann, bob = join(host, server, "Ann"), join(host, server, "Bob")
    for client in (ann, bob):
        client.ready()
    pump_until(lambda: all(c.table["phase"] == "playing" and c.mirror is not None
                           for c in (ann, bob)), [ann, bob])
    server.stop()
    # Until libzmq sees the connection gone, its I/O thread may still move a few queued frames
    # to the socket and so make room again: fill the queue, then play, until the move finds it
    # full (a move that found room is taken back, as the reconnect's snapshot would).
    deadline = time.monotonic() + 10
    while True:
        sent = 0
        while ann.send(make("hb")) and sent < 1_000_000:
            sent += 1
        assert ann.dropped >= 1 and sent < 1_000_000  # the queue filled, and nothing raised
        try:
            rid = ann.play(TurnPack())
        except ConnectError as err:
            assert "not sent" in str(err)
            break
        ann.pending.pop(rid)
        assert time.monotonic() < deadline, "the queue to a stopped arbiter never stayed full"
    assert not ann.pending
    ann.pump()  # still no exception from the housekeeping either


def test_the_sub_connects_to_the_host_it_reached_the_router_at():
    """PROTOCOL.md §2: a LAN host binds 0.0.0.0, so the welcome's ``pub`` host is no address;
    the client keeps the ROUTER's host and takes only the port."""
    from lan_demon.net.connect import pub_endpoint
    assert pub_endpoint("tcp://0.0.0.0:7701", "tcp://192.0.2.7:7700") == "tcp://192.0.2.7:7701"
    assert pub_endpoint("tcp://127.0.0.1:5001", "tcp://127.0.0.1:5000") == \
        "tcp://127.0.0.1:5001"


def test_after_the_match_the_host_still_answers_for_a_grace_then_closes(context):
    """A client that missed the final update asks a snapshot and learns the match is over:
    ``finish`` keeps answering while a seated player is still here, for at most its grace."""
    import threading
    server = ArbiterServer(settings("racko", players=2, rounds=1, seed=8, countdown=0, pause=0),
                           port=0, context=context)
    ended = threading.Event()

    def host() -> None:
        server.serve()
        ended.set()
        server.finish(grace=30.0)

    thread = threading.Thread(target=host, daemon=True)
    thread.start()
    bots = [make_bot(server.address, "greedy", f"b{i}", seed=i, speed="flat-out",
                     context=context) for i in range(2)]
    late = None
    try:
        run_pool(bots, timeout=30)
        assert ended.wait(10)
        late = Client(server.address, name="late", role="spectator", context=context).connect()
        pump_until(lambda: late.table.get("phase") == "over", [late])
        assert late.table["result"] == server.arbiter.result
        assert thread.is_alive()  # both bots are still seated and here: it waits
        for bot in bots:
            bot.client.leave()
        thread.join(timeout=10)
        assert not thread.is_alive()  # nobody here any more: closed well before its grace
    finally:
        for client in [b.client for b in bots] + ([late] if late else []):
            client.close()
        if thread.is_alive():
            server.stop()


def test_a_client_with_a_history_keeps_only_the_last_results():
    """On an endless table a bot's client would otherwise hold every round's result for ever
    (the soak benchmark's growth); a person's client keeps them all for the score sheet."""
    bot, person = Client("127.0.0.1:1", history=2), Client("127.0.0.1:1")
    for client in (bot, person):
        for k in range(5):
            client.copy._k_round_end({"result": {"scores": [k]}, "totals": [k], "next": None,
                                      "round": k}, None)
    assert [r["scores"] for r in bot.scores.results] == [[3], [4]]
    assert bot.scores.first == 3
    assert len(person.scores.results) == 5 and person.scores.first == 0
    bot.copy.on_snap({"table": {"results": [{"scores": [k]} for k in range(7)]}, "seq": 1})
    assert [r["scores"] for r in bot.scores.results] == [[5], [6]]
    assert bot.scores.first == 5


def test_watchers_hear_every_frame_before_it_is_applied(host):
    """Client.watchers: (channel, decoded message, frame size) for every frame received, an
    update while the mirror is still before it; the sizes add up to what came in."""
    server = host("racing-demon", players=2, rounds=1, seed=4)
    ann = join(host, server, "Ann")
    heard: list[tuple[str, str, int, int | None, int]] = []
    ann.watchers.append(lambda channel, msg, size: heard.append(
        (channel, msg["t"], size, msg.get("seq"), ann.seq)))
    before = ann.bytes_in
    bob = join(host, server, "Bob")  # a lobby update for Ann (published)
    pump_until(lambda: len(ann.table["seats"]) == 2, [ann, bob])
    ann.resync()  # a snapshot for Ann (private)
    pump_until(lambda: not ann.catching_up, [ann, bob])
    channels = {channel for channel, *_ in heard}
    assert channels == {"update", "private"}
    updates = [h for h in heard if h[1] == "update"]
    assert updates and all(seq > seq_then for _, _, _, seq, seq_then in updates)
    assert "snap" in {kind for channel, kind, *_ in heard if channel == "private"}
    assert sum(size for _, _, size, _, _ in heard) == ann.bytes_in - before


def test_buffered_counts_updates_waiting_behind_a_missing_one():
    """Client.buffered: updates (and private halves) that came and wait to be applied."""
    client = Client("127.0.0.1:1")  # never connected: updates are handed in directly
    lobby = {"k": "lobby", "seats": [], "captain": None}
    assert client.buffered == 0
    client.copy.on_update(dict(lobby, seq=3))
    client.copy.on_update(dict(lobby, seq=2))
    assert client.buffered == 2 and client.seq == 0  # update 1 is missing
    client.copy.on_update(dict(lobby, seq=1))
    assert client.buffered == 0 and client.seq == 3


def test_catching_up_from_asking_for_a_snapshot_until_it_comes(host):
    """Client.catching_up: a snapshot asked for and not yet come (no update is applied)."""
    server = host("racing-demon", players=2, rounds=1, seed=4)
    ann = join(host, server, "Ann")
    assert not ann.catching_up  # connect waits for the first snapshot
    seq = ann.seq
    ann.resync()
    assert ann.catching_up
    pump_until(lambda: not ann.catching_up, [ann])
    assert ann.seq == seq and ann.buffered == 0 and ann.table["phase"] == "lobby"


def test_a_multi_part_message_through_the_socket_loop_is_refused_and_the_next_is_read(host):
    """The loop reads a message's parts by their 'more' flag (server._drain): a message of two
    or three frames gets one malformed error, and the single-frame messages that follow it on
    the same connection are read as messages, each answered (the drain keeps its place)."""
    import zmq
    from lan_demon.net.codec import decode_all, encode
    server = host("racing-demon", seed=1)
    dealer = server.context.socket(zmq.DEALER)
    dealer.setsockopt(zmq.LINGER, 0)
    dealer.connect(server.address)
    try:
        ping = [encode(make("ping", id=n, c=float(n))) for n in (1, 2, 3, 4)]
        dealer.send_multipart(ping[:2])
        dealer.send_multipart([ping[2], b"", b"x"])
        dealer.send(ping[3])
        replies: list[dict] = []
        deadline = time.monotonic() + 10
        while len(replies) < 3 and time.monotonic() < deadline:
            if dealer.poll(100):
                replies += decode_all(dealer.recv(), "private")
        assert [(r["t"], r.get("code"), r.get("re")) for r in replies] == [
            ("error", "malformed", None), ("error", "malformed", None), ("pong", None, 4)]
        assert all("exactly one frame" in r["reason"] for r in replies[:2])
    finally:
        dealer.close(0)
