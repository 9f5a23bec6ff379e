"""The web gateway over real sockets on 127.0.0.1, with page sockets that send what the page
sends (tests/web_pages.py): admission as a terminal's, refusals in words, a reload keeping the
seat, junk and floods answered without the table noticing; and where the server binds."""

from __future__ import annotations

import asyncio
import socket

import aiohttp
import pytest

from lan_demon.web import server as web_server
from lan_demon.web.frames import BURST, MAX_FRAME, RATE
from lan_demon.web.server import WebError, WebServer, bind_host, open_port
from web_pages import at_play, open_page

pytestmark = pytest.mark.timeout(60)


def run(scenario) -> None:
    asyncio.run(scenario)


def seats_of(web) -> list[tuple[str, str]]:
    """(name, role) of every seat the gateway holds, looked at on its own loop."""
    return web.call(lambda: sorted((s.client.name, s.role)
                                   for s in web.gateway.seats.values() if not s.closed))


def test_the_web_server_binds_loopback_unless_lan():
    """As the arbiter: 127.0.0.1 only without --lan, every interface with it."""
    assert bind_host(False) == "127.0.0.1"
    assert bind_host(True) == "0.0.0.0"


def test_a_given_port_that_is_taken_is_one_clear_line():
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen(1)
    try:
        port = taken.getsockname()[1]
        with pytest.raises(WebError) as err:
            WebServer(1, "racing-demon", port=port)
        text = str(err.value)
        assert f"127.0.0.1:{port}" in text and "taken" in text and "--web-port" in text
        assert "\n" not in text
    finally:
        taken.close()


def test_the_default_port_taken_takes_the_next_and_says_which(monkeypatch):
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen(1)
    try:
        port = taken.getsockname()[1]
        monkeypatch.setattr(web_server, "DEFAULT_PORT", port)
        sock, note = open_port("127.0.0.1", None)
        try:
            used = sock.getsockname()[1]
            assert used != port and port < used < port + web_server.PORTS_TRIED
            assert note == f"port {port} is taken, so the page is on port {used}"
        finally:
            sock.close()
    finally:
        taken.close()


def test_a_page_sits_down_and_is_sent_its_face(host, web):
    server = host("racing-demon")
    site = web(server)

    async def scenario():
        async with aiohttp.ClientSession() as session:
            page = await open_page(session, site.url)
            seated = await page.join("Ann")
            assert seated["t"] == "seated" and seated["role"] == "player"
            assert seated["seat"] == 0 and seated["game"] == "racing-demon"
            assert len(seated["token"]) >= 20
            face = await page.until_face(lambda f: f["phase"] == "lobby")
            assert face["you"] == 0 and [s["name"] for s in face["seats"]] == ["Ann"]
            watcher = await open_page(session, site.url)
            seen = await watcher.join(watch=True)
            assert seen["t"] == "seated" and seen["role"] == "spectator" and seen["seat"] is None
            face = await watcher.until_face(lambda f: f["seats"])
            assert face["spectator"] and face["you"] is None
    run(scenario())
    assert seats_of(site) == [("Ann", "player"), ("watcher", "spectator")]


def test_a_page_whose_name_is_taken_is_told_the_name_it_got(host, web):
    """Everyone distinct: a second "ann" sits as "ann ²", and the page's line says so in one
    sentence — as join prints it; every face lists the two names apart."""
    server = host("racing-demon")
    site = web(server)

    async def scenario():
        async with aiohttp.ClientSession() as session:
            first = await open_page(session, site.url)
            await first.join("Ann")
            second = await open_page(session, site.url)
            await second.join("ann")
            face = await second.until_face(lambda f: f["line"] is not None)
            assert face["line"]["words"] == "ann is taken at this table: you sit as ann ²"
            face = await first.until_face(lambda f: len(f["seats"]) == 2)
            assert [s["name"] for s in face["seats"]] == ["Ann", "ann ²"]
            assert face["line"] is None  # the first was seated as asked: nothing to say
            third = await open_page(session, site.url)
            refused = await third.join("\U0001F1E9\U0001F1EA")  # a flag: nothing to show
            assert refused == {"t": "refused", "words": "Type a name the others can read: "
                                                        "letters, not only spaces or pictures."}
    run(scenario())


def test_another_sites_page_cannot_open_the_socket(host, web):
    """A page of another site, open in some browser on the Wi-Fi, is refused the socket (the
    Origin a browser sends with it is not this table's); the table's own page is let in."""
    site = web(host("racing-demon"))

    async def scenario():
        async with aiohttp.ClientSession() as session:
            with pytest.raises(aiohttp.WSServerHandshakeError) as err:
                await session.ws_connect(site.url + "ws", origin="http://evil.example")
            assert err.value.status == 403
            ws = await session.ws_connect(site.url + "ws", origin=site.url.rstrip("/"))
            await ws.close()
    run(scenario())


@pytest.mark.parametrize("gateway_knows", [True, False])
def test_a_wrong_room_code_is_refused_in_a_newcomers_words(host, web, gateway_knows):
    """The gateway's own gate (by the browser's address) and, behind it, the arbiter's (§20,
    which decides: here the gateway is not told the code) refuse alike, in words."""
    server = host("racing-demon", code="ABCDEFGH")
    site = web(server, code="ABCDEFGH" if gateway_knows else None)

    async def scenario():
        async with aiohttp.ClientSession() as session:
            page = await open_page(session, site.url)
            said = await page.join("Ann", code="ABCDEFGX")
            assert said == {"t": "refused", "words": "Wrong room code. Check it on the host's "
                            "screen and try again."}
            said = await page.join("Ann")
            assert said["t"] == "refused" and "needs its room code" in said["words"]
            said = await page.join("Ann", code="abcd-efgh")  # typed any way, as in the terminal
            assert said["t"] == "seated"
    run(scenario())
    assert seats_of(site) == [("Ann", "player")]


def test_a_reload_mid_round_keeps_the_seat_with_its_cards(host, web):
    """A page that goes and comes back with its token gets the same seat, cards and all."""
    server = host("racing-demon")
    site = web(server)

    def cards(token):
        return site.call(lambda: site.gateway.seats[token].client.view())

    async def scenario():
        async with aiohttp.ClientSession() as session:
            ann, bob, token = await at_play(session, site.url)
            before = cards(token)
            await ann.ws.close()  # the reload: the socket goes, the seat stays
            again = await open_page(session, site.url)
            seated = await again.join("", token=token)
            assert seated == {"t": "seated", "token": token, "seat": 0, "role": "player",
                              "game": "racing-demon"}
            face = await again.until_face(lambda f: f["phase"] == "playing")
            assert face["you"] == 0
            assert cards(token) == before
    run(scenario())
    assert seats_of(site) == [("Ann", "player"), ("Bob", "player")]
    assert [s.name for s in server.arbiter.seats] == ["Ann", "Bob"]


def test_wrong_codes_brake_the_guessing_browser_not_the_others():
    """Every browser reaches the arbiter from 127.0.0.1: the gateway brakes wrong codes by the
    browser's own address (the arbiter's CodeThrottle), so one guesser waits alone."""
    from lan_demon.web.frames import Join
    from lan_demon.web.gateway import Gateway
    now = [100.0]
    gate = Gateway("tcp://127.0.0.1:1", code="ABCDEFGH", clock=lambda: now[0])
    wrong, right = Join("Eve", code="ZZZZZZZZ"), Join("Ann", code="abcd efgh")
    said = [gate._code_refusal(wrong, "10.0.0.66") for _ in range(5)]
    assert said[:4] == ["Wrong room code. Check it on the host's screen and try again."] * 4
    assert said[4] == "Too many wrong room codes. Try again in 1 second."
    assert gate._code_refusal(right, "10.0.0.66") == said[4]
    assert gate._code_refusal(right, "10.0.0.7") is None  # another browser: not held up
    now[0] += 1
    assert gate._code_refusal(right, "10.0.0.66") is None


def test_a_phone_that_slept_comes_back_to_its_seat(host, web):
    """The page gone long enough for the arbiter to mark the seat away (its client is not
    pumped meanwhile, as a silent terminal's): back with the token, the client reconnects by
    its session token, the seat is here again, with its cards."""
    server = host("racing-demon")
    site = web(server)

    def view(token):
        return site.call(lambda: site.gateway.seats[token].client.view())

    async def scenario():
        async with aiohttp.ClientSession() as session:
            ann, bob, token = await at_play(session, site.url)
            before = view(token)
            await ann.ws.close()  # asleep
            await bob.until_face(lambda f: f["seats"][0]["status"] == "away")
            again = await open_page(session, site.url)
            assert (await again.join("", token=token))["seat"] == 0
            await bob.until_face(lambda f: f["seats"][0]["status"] == "here")
            face = await again.until_face(lambda f: f["phase"] == "playing" and f["table"])
            assert face["you"] == 0 and face["state"] == "ok"
            assert view(token)["players"][0] == before["players"][0]
    run(scenario())
    assert [s.status for s in server.arbiter.seats] == ["here", "here"]


def test_junk_frames_are_answered_and_the_table_goes_on(host, web):
    server = host("racing-demon")
    site = web(server)
    junk = ["not json", "[1, 2]", '{"no": "kind"}', '{"t": "dance"}',
            '{"t": "act", "do": "play", "from": {"deep": [1]}}',
            '{"t": "act", "do": "play", "hack": 1}', '{"t": "join", "name": 7}',
            '{"t": "act", "do": "take", "slot": -1}', '{"t": "key", "key": "' + "k" * 99 + '"}']

    async def scenario():
        async with aiohttp.ClientSession() as session:
            ann, bob = await open_page(session, site.url), await open_page(session, site.url)
            await ann.send({"t": "act", "do": "ready"})  # before sitting down: words, no harm
            said = await ann.until(lambda f: f["t"] == "error")
            assert said["words"] == "sit down or watch first"
            await ann.join("Ann")
            await bob.join("Bob")
            for frame in junk:
                await ann.send(frame)
                said = await ann.until(lambda f: f["t"] == "error")
                assert said["words"] and "Traceback" not in said["words"]
            await ann.ws.send_bytes(b"\x00\xff")
            said = await ann.until(lambda f: f["t"] == "error")
            assert "not text" in said["words"]
            await ann.send({"t": "act", "do": "ready"})  # Ann's seat still works
            face = await bob.until_face(lambda f: [s["ready"] for s in f["seats"]] ==
                                        [True, False])
            assert [s["name"] for s in face["seats"]] == ["Ann", "Bob"]
            # A frame over the bound closes that socket only (aiohttp's max_msg_size); the
            # seat is kept for its token, and Bob's page hears the table as before.
            await ann.send('{"t": "key", "key": "' + "x" * MAX_FRAME + '"}')
            while await ann.receive() is not None:  # (faces sent before it was read)
                assert ann.frames[-1]["t"] == "face"
            await bob.send({"t": "act", "do": "ready"})
            await bob.until_face(lambda f: [s["ready"] for s in f["seats"]] == [True, True])
    run(scenario())
    assert seats_of(site) == [("Ann", "player"), ("Bob", "player")]


def test_a_flood_from_one_page_is_bounded(host, web):
    """A page sending as fast as it can is held to its bucket (RATE a second, bursts of
    BURST): with the brake's clock stopped, exactly BURST frames are read (the join, then
    intents the seat refuses in its line), the next is answered "too many taps" once, the rest
    are dropped (each pausing the reading of that page for 1/RATE s) — and another page still
    hears the table."""
    server = host("racing-demon")
    site = web(server)
    site.gateway.clock = lambda: 1000.0  # no refill: the bucket's burst is all there is
    sent = int(BURST) + 10

    def said(token):
        return site.call(lambda: site.gateway.seats[token].seat.said)

    async def scenario():
        async with aiohttp.ClientSession() as session:
            ann, bob = await open_page(session, site.url), await open_page(session, site.url)
            token = (await ann.join("Ann"))["token"]  # (the join is the bucket's first frame)
            await bob.join("Bob")
            before = said(token)
            for _ in range(sent):
                await ann.send({"t": "act", "do": "nonsense"})
            warned = await ann.until(lambda f: f["t"] == "error")
            assert warned["words"].startswith("too many taps")
            face = await ann.until_face(lambda f: f["line"] and f["line"]["kind"] == "refusal")
            assert face["line"]["words"] == "no round is being played now"
            await bob.send({"t": "act", "do": "ready"})
            await bob.until_face(lambda f: [s["ready"] for s in f["seats"]] == [False, True])
            assert said(token) - before == BURST - 1  # those read; the rest never were
            assert [f["t"] for f in ann.frames].count("error") == 1
    run(scenario())
    assert RATE > 0
    assert seats_of(site) == [("Ann", "player"), ("Bob", "player")]


def test_leave_gives_the_seat_up(host, web):
    """The leave frame, and the seat's own leave intent (at once in the lobby; asked first
    during a match, then confirmed): in the lobby the seat is given up, the page told bye;
    during a match the seat is kept its 5 minutes, as a terminal's — the page is told so, and
    with its token it sits down again, cards and all (a phone that left by mistake must not
    come back to "no seat is free" and only watch)."""
    server = host("racing-demon")
    site = web(server)

    async def scenario():
        async with aiohttp.ClientSession() as session:
            ann, bob = await open_page(session, site.url), await open_page(session, site.url)
            await ann.join("Ann")
            await bob.join("Bob")
            await ann.send({"t": "leave"})
            bye = await ann.until(lambda f: f["t"] == "bye")
            assert bye["words"] == "You left the table."
            while await ann.receive() is not None:
                pass
            await bob.send({"t": "act", "do": "leave"})  # the lobby: at once
            await bob.until(lambda f: f["t"] == "bye")
            cy, di, token = await at_play(session, site.url, "Cy", "Di")
            await cy.send({"t": "act", "do": "leave"})  # a match on: asked first
            face = await cy.until_face(lambda f: f["question"] is not None)
            assert face["question"]["yes"] == {"do": "leave", "sure": True}
            cards = site.call(lambda: next(s for s in site.gateway.seats.values()
                                           if s.client.name == "Cy").client.view())
            await cy.send({"t": "act", **face["question"]["yes"]})
            bye = await cy.until(lambda f: f["t"] == "bye")
            assert bye["kept"] is True and "kept for 5 minutes" in bye["words"]
            await di.until_face(lambda f: f["seats"][0]["status"] != "here")
            back = await open_page(session, site.url)
            seated = await back.join("Cy", token=token)
            assert seated["t"] == "seated" and seated["seat"] == 0
            face = await back.until_face(lambda f: f["phase"] == "playing" and f["table"])
            assert face["you"] == 0 and face["table"]["me"] is not None
            await di.until_face(lambda f: f["seats"][0]["status"] == "here")
            assert site.call(lambda: next(s for s in site.gateway.seats.values()
                                          if s.client.name == "Cy").client.view()) == cards
    run(scenario())
    assert seats_of(site) == [("Cy", "player"), ("Di", "player")]


def test_a_move_another_page_cannot_see_sends_it_nothing(host, web):
    """A page is sent a face when what it shows changes, not at every update of the table: a
    Pack turned by Ann (RD-9: her Pack and waste, which Bob's page does not show) sends Bob's
    page nothing. (A face that carried the table's sequence number went to every page at every
    update — at 20 seats, 19 frames for each turn nobody else can see.)"""
    server = host("racing-demon", seed=1)
    site = web(server)

    async def scenario():
        async with aiohttp.ClientSession() as session:
            ann, bob, _ = await at_play(session, site.url)
            before = bob.face
            seen = len(bob.frames)
            pack = (await ann.until_face(lambda f: f["table"] is not None))["table"]["me"]
            for turn in range(3):
                await ann.send({"t": "act", "do": "turn"})
                pack = (await ann.until_face(
                    lambda f, p=pack: f["table"]["me"]["pack_count"] != p["pack_count"] or
                    f["table"]["me"]["waste_count"] != p["waste_count"]))["table"]["me"]
            await bob.send({"t": "act", "do": "turn"})  # the end of the window: Bob's own
            mine = before["table"]["me"]
            await bob.until_face(lambda f: f["table"]["me"]["pack_count"] != mine["pack_count"]
                                 or f["table"]["me"]["waste_count"] != mine["waste_count"])
            window = [f["face"] for f in bob.frames[seen:-1] if f.get("t") == "face"]
            for face in window:  # only the ping may have moved meanwhile
                assert {k: v for k, v in face.items() if k != "ping"} == \
                    {k: v for k, v in before.items() if k != "ping"}
    run(scenario())


def test_a_page_takes_its_seat_back_from_a_host_that_was_restarted(host, web, tmp_path):
    """The host process ends (stopped, to be resumed): its page server and every browser
    seat's client end with it. The seats are written down beside the journal (0600), so the
    next host's page server seats each page again by the token the page kept, cards and all
    (phones must not come back to "no seat is free" after `host --resume`, their seats
    kept for nobody). Here the arbiter stays up and only the page server is restarted: the part
    that forgot."""
    server = host("racing-demon", seed=1)
    book = tmp_path / "match.journal.pages"
    first = web(server, book=str(book))

    async def sit_down():
        async with aiohttp.ClientSession() as session:
            ann, _, token = await at_play(session, first.url)
            return token, ann.face["table"]["me"]
    token, mine = run_value(sit_down())
    assert oct(book.stat().st_mode & 0o777) == "0o600"
    first.stop()
    again = web(server, book=str(book))

    async def come_back():
        async with aiohttp.ClientSession() as session:
            page = await open_page(session, again.url)
            seated = await page.join("", token=token)
            assert seated == {"t": "seated", "token": token, "seat": 0, "role": "player",
                              "game": "racing-demon"}
            face = await page.until_face(lambda f: f["phase"] == "playing" and f["table"])
            assert face["table"]["me"]["pile_top"] == mine["pile_top"]
            assert face["table"]["me"]["columns"] == mine["columns"]
            stranger = await open_page(session, again.url)
            refused = await stranger.join("", token="not-a-token")
            assert refused["t"] == "refused" and "Type your name" in refused["words"]
    run(come_back())


def run_value(scenario):
    return asyncio.run(scenario)
