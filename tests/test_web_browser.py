"""The lobby in a real browser (headless Chromium, tests/browser.py) over real sockets on
127.0.0.1: it loads from the package alone, a person sits down or is refused in words, a
reload keeps the seat, junk and floods from a page are answered and bounded, and a phone shows
it without sideways scrolling, every control at least 44 px. Any console error fails a test.
"""

from __future__ import annotations

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from browser import WAIT, page_width, requested_hosts, small_controls

pytestmark = pytest.mark.timeout(90)


def wait(driver, condition, timeout: float = WAIT):
    return WebDriverWait(driver, timeout).until(lambda d: condition(d))


def gateway_seats(site) -> list[tuple[str, str, int | None]]:
    return site.call(lambda: sorted((s.client.name, s.role, s.client.seat)
                                    for s in site.gateway.seats.values() if not s.closed))


def sit_down(driver, site, name: str, code: str | None = None) -> None:
    driver.get(site.url)
    wait(driver, lambda d: d.find_element(By.ID, "title").text != "A card table")
    driver.find_element(By.ID, "name").send_keys(name)
    if code is not None:
        driver.find_element(By.ID, "code").send_keys(code)
    driver.find_element(By.ID, "sit").click()


def lobby_hidden(driver) -> bool:
    return not driver.find_element(By.ID, "lobby").is_displayed()


def test_the_lobby_loads_from_this_host_alone(host, web, browser):
    """No CDN, no web font, nothing from anywhere but the host's own address; the laptop's
    lobby at a --lan table shows the address's QR code (here the LAN address is given as
    127.0.0.1: the tests stay on loopback)."""
    site = web(host("racing-demon"), public="127.0.0.1")
    driver = browser.open("laptop")
    driver.get(site.url)
    wait(driver, lambda d: d.find_element(By.ID, "title").text == "Racing Demon")
    wait(driver, lambda d: d.find_element(By.ID, "qr-box").is_displayed())
    assert driver.find_element(By.CSS_SELECTOR, "#qr svg").size["width"] > 100
    assert site.url.rstrip("/").endswith(driver.find_element(By.ID, "url").text.rstrip("/")
                                         .split("//")[-1])
    assert not driver.find_element(By.ID, "code-row").is_displayed()  # no code asked here
    assert driver.find_element(By.ID, "tv-link").get_attribute("href") == site.url + "tv"
    assert requested_hosts(driver) == {f"127.0.0.1:{site.port}"}


def test_sitting_down_from_the_page(host, web, browser):
    site = web(host("racing-demon"))
    driver = browser.open("laptop")
    sit_down(driver, site, "Ann")
    wait(driver, lobby_hidden)
    assert gateway_seats(site) == [("Ann", "player", 0)]
    assert driver.execute_script("return localStorage.getItem('lan_demon.token')")


def test_a_wrong_room_code_is_refused_with_a_clear_line(host, web, browser):
    site = web(host("racing-demon", code="ABCDEFGH"))
    driver = browser.open("laptop")
    driver.get(site.url)
    wait(driver, lambda d: d.find_element(By.ID, "code-row").is_displayed())
    sit_down(driver, site, "Ann", code="ABCD EFGX")
    said = wait(driver, lambda d: "seat" not in d.find_element(By.ID, "said").text and
                d.find_element(By.ID, "said"))
    assert said.text == "Wrong room code. Check it on the host's screen and try again."
    assert driver.find_element(By.ID, "lobby").is_displayed()
    assert driver.find_element(By.ID, "sit").is_enabled()
    assert gateway_seats(site) == []
    code = driver.find_element(By.ID, "code")
    code.clear()
    code.send_keys("abcd-efgh")  # typed any way, as in the terminal
    driver.find_element(By.ID, "sit").click()
    wait(driver, lobby_hidden)
    assert gateway_seats(site) == [("Ann", "player", 0)]


def test_a_reload_keeps_the_seat(host, web, browser):
    server = host("racing-demon")
    site = web(server)
    driver = browser.open("phone")
    sit_down(driver, site, "Ann")
    wait(driver, lobby_hidden)
    token = driver.execute_script("return localStorage.getItem('lan_demon.token')")
    driver.refresh()
    wait(driver, lambda d: d.execute_script(
        "return document.getElementById('lobby').hidden"))
    assert driver.execute_script("return localStorage.getItem('lan_demon.token')") == token
    assert gateway_seats(site) == [("Ann", "player", 0)]
    assert [s.name for s in server.arbiter.seats] == ["Ann"]


def test_a_junk_frame_from_a_page_is_answered_and_the_table_goes_on(host, web, browser):
    site = web(host("racing-demon"))
    ann, bob = browser.open("laptop"), browser.open("laptop")
    sit_down(ann, site, "Ann")
    wait(ann, lobby_hidden)
    answer = ann.execute_async_script("""
        const done = arguments[arguments.length - 1];
        const ws = new WebSocket("ws://" + location.host + "/ws");
        ws.onopen = () => ws.send("{not json");
        ws.onmessage = (ev) => { ws.close(); done(JSON.parse(ev.data)); };""")
    assert answer["t"] == "error" and "could not be read" in answer["words"]
    sit_down(bob, site, "Bob")
    wait(bob, lobby_hidden)
    wait(ann, lambda d: "Bob" in d.find_element(By.ID, "table").text)


def test_a_page_flood_is_bounded(host, web, browser):
    """60 frames at once from a page: at most the bucket's burst is read (each refused in the
    seat's line), the page is told once that it went too fast, and its seat is still held."""
    site = web(host("racing-demon"))
    site.gateway.clock = lambda: 1000.0  # the brake's clock stopped: no refill
    driver = browser.open("laptop")
    sit_down(driver, site, "Ann")
    wait(driver, lobby_hidden)
    answers = driver.execute_async_script("""
        const done = arguments[arguments.length - 1], got = [];
        const ws = new WebSocket("ws://" + location.host + "/ws");
        ws.onopen = () => {
          ws.send(JSON.stringify({t: "join", name: "Eve"}));
          for (let i = 0; i < 60; i++) ws.send(JSON.stringify({t: "act", do: "nonsense"}));
        };
        ws.onmessage = (ev) => {
          const msg = JSON.parse(ev.data);
          got.push(msg.t);
          if (msg.t === "error") { ws.close(); done([got, msg.words]); }
        };""")
    kinds, words = answers
    assert words.startswith("too many taps") and kinds.count("error") == 1
    assert kinds[0] == "seated"
    assert gateway_seats(site) == [("Ann", "player", 0), ("Eve", "player", 1)]


@pytest.mark.parametrize("size", ["phone", "phone-landscape"])
def test_the_phone_lobby_has_no_sideways_scroll_and_big_controls(host, web, browser, size):
    """360×640 with touch, portrait and landscape, at a table asking a room code (its field
    shown): nothing wider than the screen, every control at least 44 CSS px."""
    site = web(host("racing-demon", code="ABCDEFGH"))
    driver = browser.open(size)
    driver.get(site.url)
    wait(driver, lambda d: d.find_element(By.ID, "code-row").is_displayed())
    assert driver.execute_script("return navigator.maxTouchPoints") > 0
    scroll, viewport = page_width(driver)
    assert scroll <= viewport
    assert small_controls(driver) == []
    assert not driver.find_element(By.ID, "qr-box").is_displayed()  # a phone: no QR code


def test_a_table_only_this_computer_reaches_offers_no_code_to_scan(host, web, browser):
    """Without --lan the page's address is this computer's own (127.0.0.1): a phone that scanned it
    would open itself, so the laptop's lobby shows no QR code (nor "To join from a phone, scan this
    code" under one)."""
    site = web(host("racing-demon"))
    driver = browser.open("laptop")
    driver.get(site.url)
    wait(driver, lambda d: d.find_element(By.ID, "title").text == "Racing Demon")
    assert driver.execute_script("return fetch('/table.json').then(r => r.json())")["lan"] \
        is False
    assert not driver.find_element(By.ID, "qr-box").is_displayed()
