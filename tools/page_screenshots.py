"""Captures of the browser pages for ``docs/screenshots.md``: the lobby, each game
mid-round, the round-end table and the TV page, at phone (360×640) and laptop (1280×800)
sizes, as ``docs/screenshots/page-*.png``.

Each capture starts, in this process, a seeded table on 127.0.0.1 (an arbiter and its web
server), opens headless Chromium pages on it (tests/browser.py: Debian's chromium through its
own chromedriver, nothing downloaded), sits people down and plays by taps as the browser tests
do (tests/page_play.py), with bots beside them, and saves each page whole (taller than the
screen when the page is). Run through ``python tools/screenshots.py page-lobby …``.
"""

from __future__ import annotations

import base64
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from browser import MISSING, Browsers  # noqa: E402
from lan_demon.net.server import ArbiterServer  # noqa: E402
from lan_demon.web.server import WebServer  # noqa: E402
from page_play import (Bots, demon_step, face, gin_step, play_until, racko_step,  # noqa: E402
                       round_over, sit_down, tap, wait_face)
from table_settings import settings  # noqa: E402

TALLEST = 2400  # CSS px of a page saved whole, at most


class PageCaptureFailed(Exception):
    """A page did not get to what a capture wanted."""


@contextmanager
def table(game: str, public: str | None = None, **config: Any
          ) -> Iterator[tuple[Any, Any, Browsers]]:
    """A seeded table with its web server and a set of browsers, all stopped at the end.
    ``public``: the address as phones reach it (a --lan table's), for the lobby's QR code."""
    if MISSING:
        raise PageCaptureFailed(MISSING)
    server = ArbiterServer(settings(game, seed=4, countdown=0, **config), port=0).start()
    site = WebServer(server.port, game, port=0, public=public).start()
    browsers = Browsers()
    try:
        yield server, site, browsers
    finally:
        browsers.quit_all()
        site.stop()
        server.stop()


def save(driver: Any, name: str, out: Path, made: list[str]) -> None:
    """The page whole (up to TALLEST px), as PNG, once the OUT banner has gone (it covers
    the table for 3 s)."""
    wait_face_free(driver, lambda d: not d.find_elements("css selector", ".banner"))
    height = driver.execute_script("return document.documentElement.scrollHeight")
    width, shown, mobile = driver.execute_script(
        "return [innerWidth, innerHeight, navigator.maxTouchPoints > 0]")
    # The whole page in one screen as tall as it: what stays at the bottom of a phone's screen
    # (your cards, the buttons) is drawn where it sits, not over the page's middle.
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": min(height, TALLEST), "deviceScaleFactor": 2 if mobile else 1,
        "mobile": mobile})
    try:
        shot = driver.execute_cdp_cmd("Page.captureScreenshot", {
            "format": "png", "captureBeyondViewport": True,
            "clip": {"x": 0, "y": 0, "width": width, "height": min(height, TALLEST),
                     "scale": 1}})
    finally:
        if mobile:
            driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
                "width": width, "height": shown, "deviceScaleFactor": 2, "mobile": True})
        else:
            driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    (out / f"{name}.png").write_bytes(base64.b64decode(shot["data"]))
    made.append(f"{name}.png")


def lobby(out: Path, made: list[str]) -> None:
    # As at a --lan table, where the laptop's lobby shows the QR code (the LAN address
    # given as 127.0.0.1: nothing leaves loopback).
    with table("racing-demon", public="127.0.0.1") as (_, site, browsers):
        for size in ("phone", "laptop"):
            driver = browsers.open(size)
            driver.get(site.url)
            wait_face_free(driver, lambda d: d.execute_script(
                "return document.getElementById('title').textContent") == "Racing Demon")
            if size == "laptop":
                wait_face_free(driver, lambda d: d.execute_script(
                    "return !document.getElementById('qr-box').hidden"))
            save(driver, f"page-lobby-{size}", out, made)


def wait_face_free(driver: Any, condition: Callable[[Any], Any], timeout: float = 10) -> None:
    from selenium.webdriver.support.ui import WebDriverWait
    WebDriverWait(driver, timeout).until(condition)


def racing_demon(out: Path, made: list[str]) -> None:
    """Ann on a phone, Bo on a laptop and a bot; the TV beside; mid-round, then the end."""
    with table("racing-demon", players=3, rounds=2, pause=60) as (server, site, browsers):
        ann, bo, tv = browsers.open("phone"), browsers.open("laptop"), browsers.open("laptop")
        sit_down(ann, site.url, "Ann")
        sit_down(bo, site.url, "Bo")
        tv.get(site.url + "tv")
        bots = Bots(server.address, ["Cy"], speed="expert")
        try:
            for driver in (ann, bo):
                wait_face(driver, lambda f: any(a["do"] == "ready" for a in f["acts"]))
                tap(driver, "[data-do='ready']")
            save_lobby_like = wait_face(ann, lambda f: f["phase"] == "playing" and f["table"])
            del save_lobby_like
            turns: dict[int, int] = {}
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and len(stacks(ann)) < 6 and \
                    face(ann)["phase"] == "playing":
                demon_step(ann, turns)
                demon_step(bo, turns)
            for driver, size in ((ann, "phone"), (bo, "laptop")):
                save(driver, f"page-racing-demon-{size}", out, made)
            save(tv, "page-tv-laptop", out, made)
            play_until([ann, bo], lambda d: demon_step(d, turns), round_over, timeout=150)
            wait_face(tv, round_over)
            for driver, size in ((ann, "phone"), (bo, "laptop")):
                save(driver, f"page-round-end-{size}", out, made)
            save(tv, "page-tv-round-end-laptop", out, made)
        finally:
            bots.close()


def stacks(driver: Any) -> list[Any]:
    f = face(driver) or {}
    return (f.get("table") or {}).get("stacks") or []


def turn_game(game: str, step: Callable[[Any], None], ready: Callable[[dict[str, Any]], bool]
              ) -> Callable[[Path, list[str]], None]:
    """Ann on a phone and Bo on a laptop play by taps; each is saved at a moment ``ready``
    says is worth showing (their turn, a card in hand)."""
    def capture(out: Path, made: list[str]) -> None:
        with table(game, players=2, rounds=1) as (_, site, browsers):
            ann, bo = browsers.open("phone"), browsers.open("laptop")
            sit_down(ann, site.url, "Ann")
            sit_down(bo, site.url, "Bo")
            for driver in (ann, bo):
                wait_face(driver, lambda f: any(a["do"] == "ready" for a in f["acts"]))
                tap(driver, "[data-do='ready']")
            wanted = {"phone": ann, "laptop": bo}
            deadline = time.monotonic() + 60
            while wanted and time.monotonic() < deadline:
                for size, driver in list(wanted.items()):
                    f = face(driver)
                    if f and f["phase"] == "playing" and f["table"] and ready(f):
                        save(driver, f"page-{game}-{size}", out, made)
                        del wanted[size]
                for driver in (ann, bo):
                    step(driver)
            if wanted:
                raise PageCaptureFailed(f"{game}: no moment to show for {', '.join(wanted)}")
    return capture


def _racko_ready(f: dict[str, Any]) -> bool:
    return f["table"].get("held") is not None


def _gin_ready(f: dict[str, Any]) -> bool:
    t = f["table"]
    return t.get("phase") == "discard" and not t.get("unknown") and t.get("drawn") is not None


_turns = [0]
CAPTURES: dict[str, Callable[[Path, list[str]], None]] = {
    "page-lobby": lobby,
    "page-racing-demon": racing_demon,
    "page-racko": turn_game("racko", lambda d: racko_step(d, _turns), _racko_ready),
    "page-gin-solitaire": turn_game("gin-solitaire", gin_step, _gin_ready),
}
