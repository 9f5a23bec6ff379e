"""LAN discovery, room codes and CURVE: pure helpers with no network, a CURVE exchange on
127.0.0.1, and zeroconf for real between two network namespaces this test makes itself.

mDNS is multicast. No zeroconf ever starts in this process (a fixture makes it fail loudly if
one tried); the namespace tests run tests/netns_helper.py, ``lan-demon hosts``, and a whole
``host --lan`` match joined by browsing bots under ``ip netns exec`` in namespaces joined only by
their own veth pair, and remove them after.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from typing import Callable

import pytest
import zmq
from zmq.utils import z85
from zmq.utils.monitor import recv_monitor_message

from lan_harness import FIXED, HELPER, ROOT, Lines, NetnsPair, hosts, in_ns, netns_env
from lan_demon.cli import main
from lan_demon.net import discovery
from lan_demon.net.codec import VERSION
from lan_demon.net.discovery import (SERVICE_TYPE, TableInfo, TxtError, decode_txt, encode_txt,
                                     instance_name, table_from_service)
from lan_demon.net.security import (CODE_ALPHABET, CodeThrottle, KeyPair, codes_match,
                                    fingerprint, is_public_key, make_curve_client,
                                    make_curve_server, new_code, new_keypair, peer_address,
                                    peer_key, start_authenticator)

pytestmark = pytest.mark.usefixtures("no_zeroconf")


# --- TXT record (no network) ---------------------------------------------------------------

def test_txt_round_trip_with_every_field():
    keys = new_keypair()
    txt = encode_txt("racing-demon", 2, 2, True, keys.public, pub_port=7701)
    assert txt == {"v": str(VERSION), "game": "racing-demon", "taken": "2", "free": "2",
                   "code": "1", "key": keys.public.decode(), "pub": "7701"}
    assert decode_txt(txt) == {"version": VERSION, "game": "racing-demon", "taken": 2,
                               "free": 2, "code_needed": True,
                               "server_key": keys.public.decode(), "pub_port": 7701}


def test_txt_without_key_or_pub_port_decodes_from_zeroconf_bytes():
    raw = {k.encode(): v.encode() for k, v in encode_txt("racko", 1, 3, False).items()}
    fields = decode_txt(raw)
    assert (fields["game"], fields["taken"], fields["free"]) == ("racko", 1, 3)
    assert fields["code_needed"] is False
    assert fields["server_key"] is None and fields["pub_port"] is None


@pytest.mark.parametrize("change, message", [
    ({"game": None}, "no 'game'"),
    ({"v": b""}, "no 'v'"),
    ({"taken": b"two"}, "taken is not a whole number"),
    ({"free": b"-1"}, "free is not a whole number"),
    ({"code": b"yes"}, "code must be 0 or 1"),
    ({"key": b"not-a-key"}, "key is not a z85 CURVE public key"),
    ({"pub": b"70000"}, "pub is not a port"),
    ({"game": b"\xff"}, "not UTF-8"),
])
def test_a_txt_record_that_is_not_a_table_is_refused(change, message):
    raw = {k.encode(): v.encode() for k, v in encode_txt("racing-demon", 1, 3, True).items()}
    raw.update({k.encode(): v for k, v in change.items()})
    with pytest.raises(TxtError, match=message):
        decode_txt(raw)


def test_encode_txt_refuses_a_bad_key_and_negative_seats():
    with pytest.raises(ValueError, match="CURVE public key"):
        encode_txt("racing-demon", 0, 4, False, server_key="short")
    with pytest.raises(ValueError, match="negative"):
        encode_txt("racing-demon", -1, 4, False)


def test_table_from_service_and_its_line():
    txt = encode_txt("racing-demon", 3, 1, True, FIXED.public, pub_port=7701)
    table = table_from_service("Ann's table." + SERVICE_TYPE, ["10.77.0.1"], 7700, txt)
    assert table == TableInfo("Ann's table", "10.77.0.1", 7700, "racing-demon", 3, 1, True,
                              FIXED.public.decode(), 7701, VERSION)
    assert (table.endpoint, table.seats, table.compatible) == ("10.77.0.1:7700", "3/4", True)
    assert table.line() == (f"Ann's table  10.77.0.1:7700  racing-demon  seats 3/4  "
                            f"code needed  key {fingerprint(FIXED.public)}")
    plain = table_from_service("t." + SERVICE_TYPE, ["10.0.0.9"], 1,
                               encode_txt("racko", 0, 4, False, version=VERSION + 1))
    assert plain.fingerprint is None
    assert plain.line().endswith(f"no code  not encrypted  protocol v{VERSION + 1}, not ours "
                                 f"(v{VERSION})")
    with pytest.raises(TxtError, match="no IPv4 address"):
        table_from_service("t." + SERVICE_TYPE, [], 7700, txt)


def test_instance_names_are_dns_labels():
    assert instance_name("Ann's table") == "Ann's table"
    assert instance_name("a.b\tc\x7f") == "a-b c"
    assert instance_name("  \n ") == "lan-demon table"
    long = instance_name("é" * 40)  # 80 bytes of UTF-8: cut at a character, not mid-way
    assert long == "é" * 31 and len(long.encode()) == 62


class FakeZeroconf:
    """Stands in for a Zeroconf instance: records what would have gone on the network, and
    holds the first publication until the test opens ``gate``."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.published: list[tuple[int, int]] = []
        self.busy, self.gate = threading.Event(), threading.Event()
        self.changed = threading.Condition()

    def update_service(self, info) -> None:
        self.busy.set()
        assert self.gate.wait(10)
        fields = decode_txt(info.properties)
        with self.changed:
            self.published.append((fields["taken"], fields["free"]))
            self.changed.notify_all()

    def unregister_service(self, info) -> None:
        self.calls.append("unregister " + info.name)

    def close(self) -> None:
        self.calls.append("close")

    def wait_for(self, count: int) -> None:
        with self.changed:
            assert self.changed.wait_for(lambda: len(self.published) >= count, timeout=10)


@pytest.mark.timeout(30)
def test_seat_updates_leave_the_loop_at_once_and_only_the_latest_is_published():
    from zeroconf import ServiceInfo  # a record, built without any network
    txt = encode_txt("racing-demon", 0, 4, True, pub_port=7701)
    info = ServiceInfo(SERVICE_TYPE, "Ann." + SERVICE_TYPE, port=7700, properties=txt,
                       server="lan-demon-test.local.", parsed_addresses=["10.77.0.1"])
    zc = FakeZeroconf()
    announcer = discovery.Announcer(zc, info, txt)
    assert announcer.name == "Ann"
    announcer.update_later(1, 3)  # returns at once; the worker is held inside the publication
    assert zc.busy.wait(10)
    announcer.update_later(2, 2)
    announcer.update_later(3, 1)  # overtakes 2/2 before the worker is free again
    zc.gate.set()
    zc.wait_for(2)
    assert zc.published == [(1, 3), (3, 1)]
    assert decode_txt(announcer.info.properties)["pub_port"] == 7701  # the rest is kept
    announcer.update_later(3, 1)  # nothing new: nothing is published
    announcer.close()
    announcer.update_later(4, 0)  # after goodbye: ignored
    assert zc.published == [(1, 3), (3, 1)]
    assert zc.calls == ["unregister Ann." + SERVICE_TYPE, "close"]


# --- room code, throttle, fingerprint (no network) ------------------------------------------

def test_room_codes_are_eight_unambiguous_letters_and_follow_the_seed():
    codes = [new_code(random.Random(7)) for _ in range(2)]
    assert codes[0] == codes[1]  # the same seed, the same code
    many = {new_code(random.Random(seed)) for seed in range(200)}
    assert len(many) > 190
    for code in many:
        assert len(code) == 8 and set(code) <= set(CODE_ALPHABET)
    assert not set("ILO") & set(CODE_ALPHABET)
    assert len(new_code()) == 8  # from secrets when no chooser is passed
    assert len(CODE_ALPHABET) ** 8 > 7.8e10


def test_codes_match_ignores_case_and_spaces_and_nothing_else():
    assert codes_match("kqzr", "KQZR")
    assert codes_match(" K Q Z R ", "KQZR")
    assert not codes_match("KQZS", "KQZR")
    assert not codes_match("KQZ", "KQZR")
    assert not codes_match("", "KQZR")
    assert not codes_match(None, "KQZR")
    assert not codes_match("KQZRé", "KQZR")


def test_the_throttle_lets_typos_pass_then_makes_each_wrong_code_cost_more():
    throttle = CodeThrottle(free=3, base=1.0, cap=8.0, forget=600.0)
    now = 100.0
    for _ in range(3):  # three typos cost nothing
        assert throttle.wait("10.0.0.5", now) == 0.0
        assert throttle.failed("10.0.0.5", now) == 0.0
    waits = []
    for _ in range(6):
        waits.append(throttle.failed("10.0.0.5", now))
        assert throttle.wait("10.0.0.5", now) == waits[-1]
        now += waits[-1]  # the fake clock: the peer waited exactly as long as it was told
        assert throttle.wait("10.0.0.5", now) == 0.0
    assert waits == [1.0, 2.0, 4.0, 8.0, 8.0, 8.0]  # doubling, capped
    assert throttle.wait("10.0.0.6", now) == 0.0  # another peer is not slowed down
    throttle.failed("10.0.0.5", now)
    assert throttle.wait("10.0.0.5", now + 3.0) == 5.0  # half-way through a wait
    throttle.succeeded("10.0.0.5")
    assert throttle.wait("10.0.0.5", now) == 0.0 and len(throttle) == 0


def test_the_throttle_forgets_a_quiet_peer():
    throttle = CodeThrottle(free=0, base=2.0, forget=60.0)
    assert throttle.failed("p", 0.0) == 2.0
    assert throttle.failed("p", 10.0) == 4.0
    assert throttle.wait("p", 69.9) == 0.0 and len(throttle) == 1
    assert throttle.failed("p", 70.0) == 2.0  # 60 s after its last try: a fresh start
    throttle.failed("q", 70.0)
    throttle.prune(130.0)
    assert len(throttle) == 0


def test_fingerprints_are_short_fixed_and_tell_keys_apart():
    fp = fingerprint(FIXED.public)
    assert fp == "3B56-3472-2CC9-477E"  # SHA-256 of the raw key, first 8 bytes, in hex
    assert fp == fingerprint(FIXED.public.decode())  # bytes or text, the same key
    assert fp == fingerprint(z85.decode(FIXED.public))  # or the raw 32 bytes
    assert fp == FIXED.fingerprint
    parts = fp.split("-")
    assert [len(p) for p in parts] == [4, 4, 4, 4]
    assert all(c in "0123456789ABCDEF" for c in "".join(parts))
    others = {fingerprint(new_keypair().public) for _ in range(20)}
    assert len(others) == 20 and fp not in others
    assert is_public_key(FIXED.public.decode()) and not is_public_key("x" * 39)
    with pytest.raises(ValueError, match="not a CURVE public key"):
        fingerprint("short")


# --- the hosts command, with browse replaced (no network) -------------------------------------

def test_hosts_lists_each_table_on_one_line(monkeypatch, capsys):
    tables = [table_from_service("Ann." + SERVICE_TYPE, ["10.77.0.1"], 7700,
                                 encode_txt("racing-demon", 1, 3, True, FIXED.public, 7701)),
              table_from_service("Bob." + SERVICE_TYPE, ["10.77.0.3"], 7800,
                                 encode_txt("racko", 2, 2, False))]
    asked = []
    monkeypatch.setattr(discovery, "browse", lambda timeout: asked.append(timeout) or tables)
    assert main(["hosts", "--timeout", "0.5"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert asked == [0.5]
    assert out == [t.line() for t in tables]


def test_hosts_says_so_when_no_table_answers(monkeypatch, capsys):
    monkeypatch.setattr(discovery, "browse", lambda timeout: [])
    assert main(["hosts"]) == 0
    assert capsys.readouterr().out == ("lan-demon: no tables answered within 3 s (a host must "
                                       "run 'lan-demon host --lan')\n")


def test_hosts_reports_a_network_failure_in_one_line(monkeypatch, capsys):
    def fail(timeout):
        raise OSError(19, "No such device")
    monkeypatch.setattr(discovery, "browse", fail)
    assert main(["hosts"]) == 1
    assert capsys.readouterr().err == ("lan-demon: cannot ask the LAN for tables: [Errno 19] "
                                       "No such device\n")


@pytest.mark.parametrize("value", ["0", "-1", "61", "nan", "soon"])
def test_hosts_refuses_a_bad_timeout_before_touching_the_network(value, monkeypatch, capsys):
    monkeypatch.setattr(discovery, "browse", lambda timeout: pytest.fail("browsed"))
    assert main(["hosts", "--timeout", value]) == 2
    err = capsys.readouterr().err
    assert err.startswith("lan-demon: ") and err.count("\n") == 1 and "--timeout" in err


# --- CURVE on 127.0.0.1 ----------------------------------------------------------------------

@pytest.fixture
def curve():
    """A context with a ZAP handler, and a CURVE ROUTER on 127.0.0.1; all closed after."""
    ctx = zmq.Context()
    auth = start_authenticator(ctx)
    server_keys = new_keypair()
    sockets: list[zmq.Socket] = []

    def socket(kind: int) -> zmq.Socket:
        sock = ctx.socket(kind)
        sock.linger = 0
        sockets.append(sock)
        return sock

    router = make_curve_server(socket(zmq.ROUTER), server_keys)
    port = router.bind_to_random_port("tcp://127.0.0.1")
    monitor = router.get_monitor_socket()
    sockets.append(monitor)
    yield Curve(ctx, server_keys, router, f"tcp://127.0.0.1:{port}", monitor, socket)
    for sock in sockets:
        sock.close(linger=0)
    auth.stop()
    ctx.term()


@dataclass
class Curve:
    ctx: zmq.Context
    keys: KeyPair
    router: zmq.Socket
    address: str
    monitor: zmq.Socket
    socket: Callable[[int], zmq.Socket]

    def handshake(self, timeout: float = 10.0) -> zmq.Event:
        """The router's next handshake outcome (success or failure), from its monitor."""
        deadline = time.monotonic() + timeout
        while self.monitor.poll(max(0.0, deadline - time.monotonic()) * 1000):
            event = recv_monitor_message(self.monitor)["event"]
            if event & (zmq.EVENT_HANDSHAKE_SUCCEEDED | zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL
                        | zmq.EVENT_HANDSHAKE_FAILED_AUTH
                        | zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL):
                return event
        raise AssertionError("no handshake within the deadline")


@pytest.mark.timeout(30)
def test_curve_dealer_router_exchange_and_the_server_sees_each_clients_key(curve):
    clients = {name: new_keypair() for name in ("ann", "bob")}
    dealers = {}
    for name, keys in clients.items():
        dealers[name] = make_curve_client(curve.socket(zmq.DEALER), curve.keys.public, keys)
        dealers[name].connect(curve.address)
        dealers[name].send(name.encode())
    seen = {}
    for _ in clients:
        assert curve.router.poll(10_000), "nothing reached the router"
        peer, body = curve.router.recv_multipart(copy=False)
        seen[body.bytes.decode()] = (peer_key(body), peer_address(body))
        curve.router.send_multipart([peer.bytes, b"welcome " + body.bytes])
    assert seen == {name: (keys.public.decode(), "127.0.0.1") for name, keys in clients.items()}
    for name, dealer in dealers.items():
        assert dealer.poll(10_000)
        assert dealer.recv() == f"welcome {name}".encode()


@pytest.mark.timeout(30)
def test_curve_refuses_a_borrowed_public_key_a_wrong_server_key_and_plain_text(curve):
    """Nobody can speak as someone else: claiming Ann's public key without her secret key
    fails the handshake, so nothing of theirs ever reaches the router."""
    ann, mallory = new_keypair(), new_keypair()
    impostor = make_curve_client(curve.socket(zmq.DEALER), curve.keys.public,
                                 KeyPair(ann.public, mallory.secret))
    wrong_server = make_curve_client(curve.socket(zmq.DEALER), new_keypair().public, ann)
    plain = curve.socket(zmq.DEALER)
    for dealer in (impostor, wrong_server, plain):
        dealer.reconnect_ivl = -1  # one attempt each, so each handshake below is its own
        dealer.connect(curve.address)
        try:  # queued if the pipe is still there; a refused handshake may have removed it
            dealer.send(b"move as ann", zmq.NOBLOCK)
        except zmq.Again:
            pass
        assert curve.handshake() != zmq.EVENT_HANDSHAKE_SUCCEEDED
    honest = make_curve_client(curve.socket(zmq.DEALER), curve.keys.public, ann)
    honest.connect(curve.address)
    honest.send(b"ann")
    assert curve.router.poll(10_000)
    peer, body = curve.router.recv_multipart(copy=False)
    assert (body.bytes, peer_key(body)) == (b"ann", ann.public.decode())
    assert not curve.router.poll(0)  # and none of the refused ones' messages is queued


@pytest.mark.timeout(30)
def test_curve_pub_sub_updates_reach_a_curve_subscriber(curve):
    pub = make_curve_server(curve.socket(zmq.PUB), curve.keys)
    port = pub.bind_to_random_port("tcp://127.0.0.1")
    sub = make_curve_client(curve.socket(zmq.SUB), curve.keys.public, new_keypair())
    sub.subscribe(b"")
    sub.connect(f"tcp://127.0.0.1:{port}")
    deadline = time.monotonic() + 10
    while not sub.poll(50):  # a subscription takes a moment to reach the PUB: publish again
        assert time.monotonic() < deadline, "no update reached the subscriber"
        pub.send(b"update")
    assert sub.recv() == b"update"


def test_plain_loopback_frames_have_no_key():
    ctx = zmq.Context()
    router, dealer = ctx.socket(zmq.ROUTER), ctx.socket(zmq.DEALER)
    try:
        port = router.bind_to_random_port("tcp://127.0.0.1")
        dealer.connect(f"tcp://127.0.0.1:{port}")
        dealer.send(b"hi")
        assert router.poll(10_000)
        _, body = router.recv_multipart(copy=False)
        assert peer_key(body) is None and peer_address(body) == "127.0.0.1"
    finally:
        router.close(linger=0)
        dealer.close(linger=0)
        ctx.term()


# --- zeroconf between two network namespaces ---------------------------------------------

class Announcer(Lines):
    """tests/netns_helper.py announce, running in a namespace, told lines on its stdin;
    stopped by the test."""

    def __init__(self, ns: str, *args: str):
        super().__init__(in_ns(ns, str(HELPER), "announce", *args), stdin=subprocess.PIPE)

    def expect(self, prefix: str, timeout: float = 20.0, at_start: bool = True) -> str:
        return super().expect(prefix, timeout, at_start)

    def tell(self, line: str) -> None:
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def stop(self) -> None:
        if self.proc.poll() is None:
            try:
                self.proc.stdin.close()
                self.proc.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait(timeout=10)


def _browse(pair: NetnsPair, timeout: float = 10.0) -> list[dict]:
    done = subprocess.run(in_ns(pair.join_ns, str(HELPER), "browse", "--interface",
                                 pair.join_ip, "--timeout", str(timeout), "--enough", "1"),
                          cwd=ROOT, env=netns_env(), capture_output=True, text=True,
                          timeout=timeout + 20)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.timeout(90)
def test_a_table_announced_in_one_namespace_is_found_from_the_other(netns_pair):
    pair = netns_pair
    keys = new_keypair()
    announcer = Announcer(pair.host_ns, "--address", pair.host_ip, "--name", "Ann's table",
                          "--port", "7700", "--game", "racing-demon", "--taken", "1",
                          "--free", "3", "--code", f"--key={keys.public.decode()}",
                          "--pub", "7701")  # (=: a z85 key may begin with '-')
    try:
        assert announcer.expect("announced") == "announced Ann's table"
        found = _browse(pair)
        assert found == [{"name": "Ann's table", "address": pair.host_ip, "port": 7700,
                          "game": "racing-demon", "taken": 1, "free": 3, "code_needed": True,
                          "server_key": keys.public.decode(), "pub_port": 7701,
                          "version": VERSION, "fingerprint": fingerprint(keys.public)}]

        announcer.tell("update 2 2")  # a second player sat down
        announcer.expect("updated")
        assert [(t["taken"], t["free"]) for t in _browse(pair)] == [(2, 2)]

        listed = hosts(pair, 5.0)
        assert listed.returncode == 0, listed.stderr
        assert listed.stdout == (f"Ann's table  {pair.host_ip}:7700  racing-demon  seats 2/4  "
                                 f"code needed  key {fingerprint(keys.public)}\n")

        announcer.tell("quit")
        announcer.expect("closed")
        assert announcer.proc.wait(timeout=10) == 0
        gone = hosts(pair, 1.0)
        assert (gone.returncode, gone.stdout) == (0, "lan-demon: no tables answered within "
                                                     "1 s (a host must run 'lan-demon host "
                                                     "--lan')\n")
    finally:
        announcer.stop()


@pytest.mark.timeout(120)
def test_bots_find_a_lan_host_by_browsing_and_play_its_match(netns_pair):
    """The whole path between two namespaces: `host --lan` announces a coded, encrypted Rack-O
    table (RK-1…RK-7 played by the engine) on its veth address; two `bot --code` with no
    address browse, find it, take its key from the TXT record, sit and play the match out;
    the host prints the result and exits 0."""
    pair = netns_pair
    host = Lines(in_ns(pair.host_ns, "-m", "lan_demon", "host", "--lan", "--players", "2",
                        "--rounds", "1", "--game", "racko", "--code", "ABCDEFGH", "--seed", "11",
                        "--countdown", "0", "--name", "Ann's table"))
    bots: list[Lines] = []
    try:
        host.expect("room code ABCD-EFGH")
        fingerprint_line = host.expect("key fingerprint")
        assert host.expect("on the LAN as").startswith(
            f"lan-demon: on the LAN as \"Ann's table\" at {pair.host_ip}:7700 (updates on ")
        for name in ("ann", "bob"):
            bots.append(Lines(in_ns(pair.join_ns, "-m", "lan_demon", "bot", "--code", "abcd-efgh",
                                     "--name", name, "--speed", "flat-out", "--browse", "4")))
        for bot in bots:
            code, out, err = bot.finish(timeout=60)
            assert code == 0, err
            assert "match over, winner:" in out
        code, out, err = host.finish(timeout=30)
        assert code == 0, err
        assert "winner:" in out and "ann" in out and "bob" in out
        assert "fingerprint" in fingerprint_line
    finally:
        for proc in bots + [host]:
            proc.stop()


def test_the_helper_refuses_to_run_outside_a_test_namespace(monkeypatch, capsys):
    """Run in this process, where zeroconf is forbidden anyway: a second lock on the door."""
    sys.path.insert(0, str(HELPER.parent))
    try:
        import netns_helper
    finally:
        sys.path.remove(str(HELPER.parent))
    assert not netns_helper.in_own_namespace()
    monkeypatch.setattr(sys, "argv", ["netns_helper.py", "browse", "--interface", "10.77.0.2"])
    assert netns_helper.main() == netns_helper.REFUSED
    assert "refusing" in capsys.readouterr().err
