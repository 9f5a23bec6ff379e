"""A LAN table on loopback: room codes with their brake, CURVE encryption with seats bound to
connection keys, and the host/join/bot wiring of ``--lan`` — everything but mDNS, which only
runs between the network namespaces of tests/test_discovery.py.

Every socket here is on 127.0.0.1; zeroconf is forbidden in this process (a fixture makes it
fail loudly), and ``host`` without ``--lan`` is checked never to reach for it.
"""

from __future__ import annotations

import threading
import time

import pytest
import zmq

from table_settings import settings
from lan_demon.cli import main
from lan_demon.net import discovery
from lan_demon.net import server as server_module
from lan_demon.net.arbiter import Arbiter
from lan_demon.net.client import Client
from lan_demon.net.connect import ConnectError
from lan_demon.net.seated import Sender
from lan_demon.net.codec import decode, encode, make
from lan_demon.net.discovery import TableInfo
from lan_demon.net.security import new_keypair
from lan_demon.net.server import ArbiterServer
from lan_harness import FIXED, Lines, hosts, in_ns
from net_harness import pump_until

pytestmark = [pytest.mark.timeout(60), pytest.mark.usefixtures("no_zeroconf")]

CODE = "KQZR"
class FrozenClock:
    """The arbiter's clock, moved only by the test: the code brake's waits are exact."""

    def __init__(self, now: float = 1000.0):
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def table(context):
    """A secure table with a room code on 127.0.0.1; started servers and clients are closed."""
    made: list[ArbiterServer] = []
    clients: list[Client] = []

    def start(game: str = "racko", clock=time.monotonic, **config) -> ArbiterServer:
        config = {"players": 2, "rounds": 1, "countdown": 0, "pause": 0, "seed": 7, **config}
        code = config.pop("code", CODE)
        server = ArbiterServer(settings(game, **config), port=0, context=context, code=code,
                               keys=new_keypair(), clock=clock).start()
        made.append(server)
        return server

    def join(server: ArbiterServer, **kw) -> Client:
        kw.setdefault("server_key", server.keys.public)
        client = Client(server.address, context=context, **kw)
        clients.append(client)
        return client.connect(timeout=kw.pop("timeout", 5.0))

    start.join = join
    yield start
    for client in clients:
        client.close()
    for server in made:
        server.stop()


def refused(join, server, **kw) -> ConnectError:
    with pytest.raises(ConnectError) as info:
        join(server, **kw)
    return info.value


# --- CURVE and the room code over real sockets ---------------------------------------------

def test_bots_with_the_code_and_the_key_play_a_match_over_curve(table, capsys):
    """Two `lan-demon bot --key K --code C` against a secure coded table (RK-1..RK-7 played
    by the engine): the match ends, and each seat is bound to its own connection key."""
    server = table("racko")
    address = server.address[len("tcp://"):]
    codes: list[int] = []
    argv = ["bot", address, f"--key={server.keys.public.decode()}", "--code", "kqzr",
            "--speed", "flat-out"]
    bots = [threading.Thread(target=lambda n=n: codes.append(main(argv + ["--name", n])))
            for n in ("ann", "bob")]
    for bot in bots:
        bot.start()
    for bot in bots:
        bot.join(timeout=50)
    assert codes == [0, 0], capsys.readouterr().err
    assert server.arbiter.phase == "over"
    keys = [seat.key for seat in server.arbiter.seats]
    assert all(keys) and len(set(keys)) == 2 and server.keys.public.decode() not in keys
    assert capsys.readouterr().out.count("match over, winner:") == 2


def test_a_wrong_code_is_refused_then_slowed_down(table):
    """Three wrong codes are free (typos); the fourth earns a wait; during it every try — even
    the right code — is answered slow_down with the wait; afterwards the right code sits."""
    clock = FrozenClock()
    server = table("racko", clock=clock)
    err = refused(table.join, server, name="tom")
    assert err.code == "bad_code" and "needs the room code" in str(err)  # no code: no guess
    for guess in ("AAAA", "BBBB", "CCCC", "DDDD"):
        err = refused(table.join, server, name="tom", code=guess)
        assert err.code == "bad_code" and "wrong room code" in str(err)
    err = refused(table.join, server, name="tom", code=CODE)
    assert err.code == "slow_down" and err.wait == 1.0
    clock.now += 0.5
    assert refused(table.join, server, name="tom", code=CODE).wait == 0.5
    clock.now += 0.5
    tom = table.join(server, name="tom", code=CODE.lower())
    assert tom.seat == 0 and len(server.arbiter.seating.throttle) == 0  # the right code forgets


def test_a_wrong_server_key_gets_no_answer_and_says_so(table):
    server = table("racko")
    err = refused(table.join, server, name="eve", code=CODE, server_key=new_keypair().public)
    assert "wrong key?" in str(err) and err.code is None
    assert server.arbiter.seats == []


def test_a_plain_text_client_to_a_curve_table_fails_clearly(table, context):
    server = table("racko")
    plain = Client(server.address, name="eve", code=CODE, context=context)
    with pytest.raises(ConnectError, match="it is encrypted \\(CURVE\\): join with its "
                                           "public key \\(--key '…', as the host's screen "
                                           "shows it\\)"):
        plain.connect(timeout=5.0)
    assert server.arbiter.seats == []


def test_a_curve_client_to_a_plain_table_fails_clearly(context):
    server = ArbiterServer(settings("racko", players=2), port=0, context=context).start()
    try:
        client = Client(server.address, name="ann", server_key=FIXED.public, context=context)
        with pytest.raises(ConnectError, match="it is not encrypted \\(leave out --key\\)"):
            client.connect(timeout=5.0)
    finally:
        server.stop()


def test_a_stolen_token_with_another_key_is_refused(table):
    """The token is not enough: the seat is bound to the key that took it. Ann, with her key,
    comes back to her seat; Mallory, with her token but another key, is refused."""
    server = table("racko")
    ann_keys = new_keypair()
    ann = table.join(server, name="ann", code=CODE, keys=ann_keys)
    err = refused(table.join, server, name="mal", token=ann.token, keys=new_keypair())
    assert err.code == "wrong_key" and "token alone" in str(err)
    back = table.join(server, name="ann", token=ann.token, keys=ann_keys)
    assert back.seat == ann.seat == 0
    assert server.arbiter.seats[0].key == ann_keys.public.decode()


def test_a_move_from_a_seats_connection_with_another_key_is_refused():
    """Should anyone ever speak on a seated connection's routing id (a DEALER may choose its
    own), every frame is checked against the seat's key: nothing it sends counts."""
    arbiter = Arbiter(settings("racko", players=2, countdown=0), now=10.0, code=CODE)
    ann, bob, mal = Sender("A" * 40, "10.0.0.2"), Sender("B" * 40, "10.0.0.3"), \
        Sender("M" * 40, "10.0.0.9")
    for peer, who in ((b"ann", ann), (b"bob", bob)):
        arbiter.handle(peer, encode(make("hello", id=1, name=peer.decode(), role="player",
                                         code=CODE)), 10.0, who)
        arbiter.handle(peer, encode(make("ready", id=2)), 10.0, who)
    assert arbiter.phase == "playing"
    mover = arbiter.game.to_move(arbiter.state)[0]
    peer = [b"ann", b"bob"][mover]
    before = arbiter.game.state_to_data(arbiter.state)
    out = arbiter.handle(peer, encode(make("move", id=3, round=0, move={"t": "draw"},
                                           ts=10.0)), 10.0, mal)
    assert [(p, m["code"]) for p, m in out.private] == [(peer, "wrong_key")]
    assert out.public == [] and arbiter.game.state_to_data(arbiter.state) == before
    out = arbiter.handle(peer, encode(make("move", id=3, round=0, move={"t": "draw"},
                                           ts=10.0)), 10.0, [ann, bob][mover])
    assert [m["t"] for _, m in out.private if m["t"] == "error"] == []
    assert [(m["k"], m["rid"]) for m in out.public if m["t"] == "update"][-1] == ("move", 3)


def test_spectators_need_the_code_too(table):
    server = table("racko")
    err = refused(table.join, server, name="eve", role="spectator", code="NOPE")
    assert err.code == "bad_code"
    eve = table.join(server, name="eve", role="spectator", code=CODE)
    assert eve.seat is None and eve.connected


def test_seat_counts_are_told_as_they_change(context):
    """The LAN announcement's feed: (taken, free) after each change, from the loop."""
    told: list[tuple[int, int]] = []
    changed = threading.Event()

    def on_seats(taken: int, free: int) -> None:
        told.append((taken, free))
        changed.set()

    server = ArbiterServer(settings("racko", players=2, countdown=0, pause=0), port=0,
                           context=context, on_seats=on_seats).start()
    clients = []
    try:
        for name in ("ann", "bob"):
            clients.append(Client(server.address, name=name, context=context).connect())
        for client in clients:
            client.ready()
        pump_until(lambda: server.arbiter.phase == "playing", clients)
        deadline = time.monotonic() + 10
        while told[-1:] != [(2, 0)]:
            assert time.monotonic() < deadline, told
            changed.wait(0.05)
            changed.clear()
    finally:
        for client in clients:
            client.close()
        server.stop()
    assert told[0] == (0, 2) and (1, 1) in told and told[-1] == (2, 0)


# --- what the client does for itself -----------------------------------------------------

def test_the_client_says_ready_again_when_the_table_forgot_it(context):
    """After a resync showing the lobby with our seat not ready, having said ready, the client
    says it again; and when the arbiter no longer knows the connection (not_joined) it comes
    back to its seat by token at once."""
    server = ArbiterServer(settings("racko", players=3, countdown=0, pause=0), port=0,
                           context=context).start()
    ann = Client(server.address, name="ann", context=context).connect()
    try:
        ann.ready()
        pump_until(lambda: server.arbiter.seats[0].ready, [ann])
        server.arbiter.seats[0].peer = b"forgotten"  # as a resumed arbiter would have it
        server.arbiter.seats[0].ready = False
        ann.start()  # refused not_joined (and not the host, any more than a stranger)
        notices = []
        pump_until(lambda: notices.extend(ann.take_notices()) or (
            server.arbiter.seats[0].peer != b"forgotten" and server.arbiter.seats[0].ready),
            [ann])
        assert "reconnecting" in [n.kind for n in notices]
        assert len(server.arbiter.seats) == 1
    finally:
        ann.close()
        server.stop()


def test_the_client_backs_off_when_rate_limited_and_resyncs_after_internal():
    clock = FrozenClock(50.0)
    client = Client("127.0.0.1:9", name="ann", clock=clock)  # never connected: nothing sent
    sent: list[dict] = []
    client.outgoing.put = lambda frame: sent.append(decode(frame)) or True
    client._on_error(make("error", code="rate_limited", reason="slow"))
    client.ready()
    client.pump()
    assert sent == []  # held back
    clock.now += 1.0
    client.pump()
    assert [m["t"] for m in sent] == ["ready"]
    client.copy.game = None
    client._on_error(make("error", code="internal", reason="a bug"))
    assert [m["t"] for m in sent] == ["ready", "snapshot"]


# --- the command line ------------------------------------------------------------------------

@pytest.fixture
def no_lan(monkeypatch):
    """host without --lan must never announce: any try fails the test."""
    def refuse(*args, **kwargs):
        raise AssertionError("host without --lan announced the table")
    monkeypatch.setattr(discovery, "announce", refuse)
    monkeypatch.setattr(discovery, "lan_addresses", refuse)


@pytest.mark.parametrize("extra", [[], ["--secure", "--code", "abcdefgh"]])
def test_host_without_lan_binds_loopback_and_announces_nothing(extra, no_lan, monkeypatch,
                                                                capsys):
    seen = {}

    def serve(self, exit_when_over=True):
        seen.update(host=self.host, keys=self.keys, code=self.arbiter.code,
                    endpoint=self.router.getsockopt(zmq.LAST_ENDPOINT).decode())
        return {"game": "racko"}

    monkeypatch.setattr(server_module.ArbiterServer, "serve", serve)
    assert main(["host", "--game", "racko", "--port", "0", "--json", *extra]) == 0
    assert seen["host"] == "127.0.0.1" and seen["endpoint"].startswith("tcp://127.0.0.1:")
    err = capsys.readouterr().err
    if extra:
        assert seen["code"] == "ABCDEFGH" and seen["keys"] is not None
        assert "room code ABCD-EFGH" in err and seen["keys"].fingerprint in err
    else:
        assert seen["code"] is None and seen["keys"] is None
        assert "room code" not in err and "fingerprint" not in err


def _tables(*names: str) -> list[TableInfo]:
    return [TableInfo(name, f"127.0.0.{i + 1}", 7700, "racko", 1, 1, True, FIXED.public.decode())
            for i, name in enumerate(names)]


@pytest.mark.parametrize("argv, tables, words, status", [
    (["bot", "--key", "nonsense"], 1, "--key is not a CURVE public key", 2),
    (["bot", "127.0.0.1:7700", "--code", "AB CD!"], 1, "--code must be", 2),
    (["bot", "--browse", "0"], 1, "--browse must be", 2),
    (["host", "--name", "Ann's"], 1, "--name names the table on the LAN", 2),
    (["host", "--resume", "no-such.journal"], 1, "cannot read the journal 'no-such.journal'",
     2),
    (["bot", "--code", "KQZR"], 2, "2 tables answered (Ann at 127.0.0.1:7700; Bob at "
                                   "127.0.0.2:7700): name one by its address", 2),
    (["bot"], 1, "needs its room code: add --code CODE", 2),
    (["bot", "--code", "KQZR", "--key", "rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7"], 1,
     "announces another key than --key", 2),
    (["bot", "--code", "KQZR"], 0, "no table answered within 3 s", 1),
])
def test_lan_mistakes_get_one_line(argv, tables, words, status, monkeypatch, capsys):
    found = _tables("Ann", "Bob")[:tables]
    monkeypatch.setattr(discovery, "browse", lambda timeout: found)
    assert main(argv) == status
    err = capsys.readouterr().err
    assert err.startswith("lan-demon: ") and err.count("\n") == 1 and words in err, err


def test_join_lists_the_tables_asks_which_and_shows_the_fingerprint(monkeypatch, capsys):
    """`join` without an address, past the terminal check: the tables numbered, the choice, the
    chosen table's fingerprint to compare with the host's screen, then the code asked."""
    from lan_demon.commands.errors import UsageError
    from lan_demon.commands.lan import choose_table
    from lan_demon.commands.prompts import ask_code
    monkeypatch.setattr(discovery, "browse", lambda timeout: _tables("Ann", "Bob"))
    answers = iter(["2", " kq zr "])
    monkeypatch.setattr("builtins.input", lambda prompt: next(answers))
    table = choose_table(3.0)
    assert table.name == "Bob" and ask_code() == "KQZR"
    out = capsys.readouterr().out.splitlines()
    assert out[1:3] == [f"  1. {_tables('Ann')[0].line()}",
                        f"  2. {_tables('Ann', 'Bob')[1].line()}"]
    assert out[3] == (f"lan-demon: joining 'Bob' at 127.0.0.2:7700; its key fingerprint is "
                      f"{FIXED.fingerprint} — check it matches the host's screen")
    monkeypatch.setattr("builtins.input", lambda prompt: "3")
    with pytest.raises(UsageError, match="not a table number: '3'"):
        choose_table(3.0)


def test_join_without_a_terminal_says_so_before_browsing(monkeypatch, capsys):
    monkeypatch.setattr(discovery, "browse", lambda timeout: pytest.fail("browsed"))
    assert main(["join", "--code", "KQZR"]) == 2
    assert "needs a terminal" in capsys.readouterr().err


# --- a LAN table resumed from its journal: only between the namespaces a test makes --------

@pytest.mark.timeout(120)
def test_a_lan_host_resumed_from_its_journal_is_announced_as_the_same_table(netns_pair,
                                                                            tmp_path):
    """In the test's own namespaces only: `host --lan --journal J` is SIGKILLed; `host --resume
    J`, with no flag, binds every interface of its namespace again, shows the same room code
    and fingerprint (from J.secret), announces the same name — and `hosts` in the other
    namespace lists it with the same key."""
    pair = netns_pair
    journal = tmp_path / "lan.journal"
    first = Lines(in_ns(pair.host_ns, "-m", "lan_demon", "host", "--lan", "--players", "2",
                         "--game", "racko", "--code", "abcdefgh", "--name", "Ann's table",
                         "--journal", str(journal)))
    started = [first]
    try:
        code = first.expect("room code ABCD-EFGH")
        key = first.expect("key fingerprint")
        first.expect("on the LAN as")
        first.stop()  # SIGKILL
        again = Lines(in_ns(pair.host_ns, "-m", "lan_demon", "host", "--resume",
                             str(journal)))
        started.append(again)
        assert "in the lobby" in again.expect("lan-demon: resumed racko at 0.0.0.0:7700 ")
        assert again.expect("room code") == code
        assert again.expect("key fingerprint") == key
        assert again.expect("on the LAN as").startswith(
            f"lan-demon: on the LAN as \"Ann's table\" at {pair.host_ip}:7700 (updates on ")
        listed = hosts(pair, 3.0)
        assert listed.returncode == 0, listed.stderr
        fingerprint = key.split("fingerprint ")[1].split(" ")[0]
        assert listed.stdout == (f"Ann's table  {pair.host_ip}:7700  racko  seats 0/2  "
                                 f"code needed  key {fingerprint}\n")
    finally:
        for host in started:
            host.stop()
