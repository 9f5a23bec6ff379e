"""Protocol 3's and 4's frames (PROTOCOL.md §2, §3, §23): one PUB frame per wake-up for all its
updates, one frame per client for its replies, and a committed move answered by its update
alone, its private half sealed in it. Real
sockets on 127.0.0.1, the server's loop driven step by step (``_drain`` then ``_send``, which is
all one wake-up does), so what shares a frame is decided by the test, not by timing."""

from __future__ import annotations

import time

import pytest
import zmq

from table_settings import settings
from lan_demon.net.codec import decode_all, encode, make
from lan_demon.net.outbox import Outbox
from lan_demon.net.seal import open_seal, private_of
from lan_demon.net.server import ArbiterServer

pytestmark = pytest.mark.timeout(30)
TURN = {"t": "turn"}


class Seats:
    """A racing-demon server (not started: the test is its loop) and raw seats on it."""

    def __init__(self, context: zmq.Context, n: int):
        self.server = ArbiterServer(settings("racing-demon", players=n, countdown=0, pause=0,
                                           fairness_ms=0, seed=7), port=0, context=context)
        self.dealers, self.sub = [], context.socket(zmq.SUB)
        self.sub.setsockopt(zmq.LINGER, 0)
        self.sub.setsockopt(zmq.SUBSCRIBE, b"")
        self.sub.connect(f"tcp://127.0.0.1:{self.server.pub_port}")
        for i in range(n):
            dealer = context.socket(zmq.DEALER)
            dealer.setsockopt(zmq.LINGER, 0)
            dealer.connect(self.server.address)
            self.dealers.append(dealer)

    def wake(self, until, timeout: float = 10.0) -> Outbox:
        """Read frames into one outbox until ``until(out)``, then send it: one wake-up."""
        out, deadline = Outbox(), time.monotonic() + timeout
        while not until(out):
            assert time.monotonic() < deadline, "the frames did not come"
            self.server.router.poll(50)
            self.server._drain(out)
        self.server._send(out)
        return out

    def frames(self, sock: zmq.Socket, timeout: float = 10.0) -> list[list[dict]]:
        """Every frame waiting on ``sock`` (at least one), each as its list of messages."""
        assert sock.poll(int(timeout * 1000)), "nothing came"
        got = []
        while sock.poll(200):
            got.append(decode_all(sock.recv(), "pub" if sock is self.sub else "private"))
        return got

    def seated_and_dealt(self) -> None:
        for i, dealer in enumerate(self.dealers):
            dealer.send(encode(make("hello", id=1, name=f"p{i}", role="player", bot=True)))
        self.wake(lambda out: len(self.server.arbiter.seats) == len(self.dealers))
        self.keys = [next(m["seal"] for f in self.frames(d) for m in f if m["t"] == "welcome")
                     for d in self.dealers]
        for dealer in self.dealers:
            dealer.send(encode(make("ready", id=2)))
        self.wake(lambda out: self.server.arbiter.phase == "playing")
        for sock in self.dealers + [self.sub]:
            while sock.poll(200):
                sock.recv()

    def close(self) -> None:
        for sock in self.dealers + [self.sub]:
            sock.close(linger=0)
        self.server.stop()


@pytest.fixture
def seats(context):
    made = []

    def make_seats(n: int) -> Seats:
        made.append(Seats(context, n))
        return made[-1]

    yield make_seats
    for s in made:
        s.close()


def test_the_moves_of_one_wake_up_share_one_pub_frame_in_the_order_handled(seats):
    t = seats(3)
    t.seated_and_dealt()
    round_no = t.server.arbiter.match.round_no
    for i, dealer in enumerate(t.dealers):
        dealer.send(encode(make("move", id=10 + i, round=round_no, move=TURN, ts=0.0)))
    out = t.wake(lambda out: len(out.public) >= 3)
    (frame,) = t.frames(t.sub)  # one publish for the whole wake-up
    moves = [m for m in frame if m["t"] == "update" and m["k"] == "move"]
    assert [m["seq"] for m in frame] == sorted(m["seq"] for m in frame)  # in order
    assert [m["rid"] for m in moves] == [u["rid"] for u in out.public if u["k"] == "move"]
    assert sorted(m["rid"] for m in moves) == [10, 11, 12]


def test_rd9_a_committed_move_gets_no_frame_and_its_sealed_half_opens_for_its_mover_alone(seats):
    """Protocol 4: the update (its ``rid``) answers the move and carries the turned card
    (RD-9) sealed with the mover's key (§23): nothing more comes to the mover's DEALER, and
    no other seat's key opens it — a curious player learns nothing of a rival's waste."""
    t = seats(3)
    t.seated_and_dealt()
    assert len(set(t.keys)) == 3 and all(len(k) == 32 for k in t.keys)
    round_no = t.server.arbiter.match.round_no
    for i, dealer in enumerate(t.dealers):
        dealer.send(encode(make("move", id=10 + i, round=round_no, move=TURN, ts=0.0)))
    t.wake(lambda out: len(out.public) >= 3)
    updates = {u["rid"]: u for frame in t.frames(t.sub) for u in frame
               if u.get("k") == "move"}
    for i, dealer in enumerate(t.dealers):
        assert not dealer.poll(200)  # no ok, no private frame: the update was all
        update = updates[10 + i]
        assert update["p"] is True and "private" not in update["events"][0]
        opened = [open_seal(key, update["seq"], update["s"]) for key in t.keys]
        mine = t.dealers.index(dealer)
        assert [h is not None for h in opened] == [j == mine for j in range(3)]
        turn = [e for e in private_of(update, opened[mine])["events"] if e["e"] == "turn"]
        assert turn and turn[0]["seat"] == update["seat"]  # its own turn's waste top
        assert "private" in turn[0]


def test_a_wake_up_s_replies_to_one_client_share_a_frame_and_keep_their_order(seats):
    t = seats(1)
    ann = t.dealers[0]
    ann.send(encode(make("hello", id=1, name="Ann", role="player")))
    for rid in (2, 3, 4):
        ann.send(encode(make("ping", id=rid, c=float(rid))))
    t.wake(lambda out: sum(m["t"] == "pong" for _, m in out.private) == 3)
    frames = t.frames(ann)
    got = [m for frame in frames for m in frame]
    assert len(frames) == 1 and len(frames[0]) >= 4  # welcome, probe, three pongs: one frame
    assert [m["re"] for m in got if m["t"] == "pong"] == [2, 3, 4]
    assert got[0]["t"] == "welcome"


def test_a_message_that_cannot_be_packed_is_left_out_and_the_rest_of_its_frame_goes(seats,
                                                                                     capsys):
    """A bug that made one unpackable message must not cost the table the wake-up's other
    updates: that message is logged and dropped, the others are published."""
    t = seats(1)
    good = make("update", seq=1, k="lobby", seats=[], captain=None)
    out = Outbox(public=[good, make("update", seq=2, k="lobby", seats=[object()]),
                         make("update", seq=3, k="lobby", seats=[], captain=None)])
    deadline = time.monotonic() + 10
    while True:  # a PUB drops what it sends before a subscriber's subscription arrives
        t.server._send(Outbox(public=[make("beat", seq=0, a=0.0)]))
        if t.sub.poll(50):
            t.sub.recv()
            break
        assert time.monotonic() < deadline
    while t.sub.poll(100):
        t.sub.recv()
    t.server._send(out)
    (frame,) = t.frames(t.sub)
    assert [m["seq"] for m in frame] == [1, 3]
    assert "packing a 'update' message" in capsys.readouterr().err


def test_a_remembered_seat_is_never_handed_to_a_connection_that_no_longer_holds_it():
    """seats.seat_of remembers each connection's seat (it is asked for every frame): a seat
    taken back on a new connection, or one moved up by a lobby leave, must not answer to the
    old connection, nor a left seat to anybody."""
    from arbiter_harness import Table
    t = Table(players=3)
    t.seat(b"A", "Ann")
    t.seat(b"B", "Bob")
    t.seat(b"C", "Cat")
    seat_of = t.arbiter.seating.seat_of
    assert seat_of(b"B").name == "Bob" and seat_of(b"C").name == "Cat"  # remembered now
    t.send(b"A", "leave")  # in the lobby: Bob and Cat move up a place
    assert seat_of(b"A") is None
    assert seat_of(b"B").name == "Bob" and seat_of(b"B").index == 0
    token = seat_of(b"C").token
    t.send(b"C2", "hello", name="Cat", role="player", token=token)  # Cat on a new connection
    assert seat_of(b"C2").name == "Cat"
    assert seat_of(b"C") is None  # the old connection no longer holds it
    (err,) = t.send(b"C", "ready")
    assert err["code"] == "not_joined"
