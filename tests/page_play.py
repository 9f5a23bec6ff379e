"""Playing through the page, as a person taps: helpers for the end-to-end browser tests and
tools/screenshots.py. Each step reads the face the page was last sent (``Table.face``), taps
what a simple player would, and waits for the next face before the next tap (a person taps a
few times a second; the gateway allows 20 frames a second)."""

from __future__ import annotations

import json
import threading
import time
from typing import Any, Callable

import zmq

from selenium.common.exceptions import TimeoutException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from lan_demon.bots.runner import leave_and_close, make_bot, run_pool

WAIT = 10.0
TAP_WAIT = 2.0  # seconds a tap waits for the face that answers it
ROUND = 90.0  # seconds a round may take at most, on a loaded two-core machine (most take 30-55)


def face(driver: Any) -> dict[str, Any] | None:
    """The newest face the page was sent (it is drawn at the next screen frame)."""
    return driver.execute_script("return window.Table ? Table.face : null")


def faces(driver: Any) -> int:
    """How many faces the page has drawn (it draws the newest once a screen frame)."""
    return driver.execute_script("return window.Table ? Table.drawn : 0") or 0


def wait_for(driver: Any, condition: Callable[[Any], Any], timeout: float = WAIT) -> Any:
    """WebDriverWait, looking every 20 ms (its default, 0.5 s, would pace every tap)."""
    return WebDriverWait(driver, timeout, poll_frequency=0.02).until(lambda d: condition(d))


def wait_face(driver: Any, condition: Callable[[dict[str, Any]], bool],
              timeout: float = WAIT) -> dict[str, Any]:
    def met(d: Any) -> dict[str, Any] | None:  # the face met, and drawn
        f = d.execute_script(
            "return window.Table && Table.drawn === Table.faces ? Table.face : null")
        return f if f is not None and condition(f) else None
    return wait_for(driver, met, timeout)


def sit_down(driver: Any, url: str, name: str, watch: bool = False) -> None:
    """The lobby: a name, then Sit down (or Just watch); the table's page once seated."""
    driver.get(url)
    wait_for(driver, lambda d: d.find_element(By.ID, "title").text != "A card table")
    if name:
        driver.find_element(By.ID, "name").send_keys(name)
    driver.find_element(By.ID, "watch" if watch else "sit").click()
    wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#table .page"))


def tap(driver: Any, css: str, wait: bool = True) -> bool:
    """Tap the element ``css`` as a finger (a touch page) or a mouse would, at the middle of
    where it is drawn, through the DevTools protocol's input events (so the page's own
    pointer handling runs, and an element redrawn in between is no matter); then wait for
    the page to draw a newer face. False when nothing matches ``css``."""
    where = driver.execute_script("""
        const el = document.querySelector(arguments[0]);
        if (!el) return null;
        el.scrollIntoView({block: "center"});  // (not under the bar kept at the bottom)
        const r = el.getBoundingClientRect();
        return [r.x + r.width / 2, r.y + r.height / 2, navigator.maxTouchPoints > 0];""", css)
    if where is None:
        return False
    x, y, touch = where
    before = faces(driver)
    if touch:
        for kind, points in (("touchStart", [{"x": x, "y": y}]), ("touchEnd", [])):
            driver.execute_cdp_cmd("Input.dispatchTouchEvent",
                                   {"type": kind, "touchPoints": points})
    else:
        for kind in ("mousePressed", "mouseReleased"):
            driver.execute_cdp_cmd("Input.dispatchMouseEvent", {
                "type": kind, "x": x, "y": y, "button": "left", "clickCount": 1})
    if wait:
        try:
            wait_for(driver, lambda d: faces(d) > before, TAP_WAIT)
        except TimeoutException:
            pass  # nothing changed (a tap the seat had nothing to say about): tap on
    return True


def demon_step(driver: Any, turns: dict[int, int]) -> None:
    """A card that fits a stack (lit), else the Pile or the waste top to its best place, else
    a whole column onto another (the Pile refills it), else turn the Pack; after a whole Pack
    turned with nothing to play, say stuck (RD-13). (Part of a column moved is left out: two
    such taps can undo each other for ever, and every play clears the stuck votes.)
    ``turns``: the turns in a row, by driver."""
    f = face(driver)
    if not f or f["phase"] != "playing" or not f["table"] or not f["table"].get("me"):
        return
    me = f["table"]["me"]
    lit = me.get("lit") or []
    places = me.get("places") or {}
    columns = me.get("columns") or []
    whole = [f"c{i + 1}" for i, col in enumerate(columns)  # a column moved whole: refilled
             if col and places.get(f"c{i + 1}") and places[f"c{i + 1}"][0].get("count") == len(col)]
    source = lit[0] if lit else next((s for s in ("pile", "waste") if places.get(s)),
                                     whole[0] if whole else None)
    key = id(driver)
    if source is not None:
        turns[key] = 0
        tap(driver, f"[data-src='{source}']")
    elif turns.get(key, 0) * 3 <= (me.get("pack_count") or 0) + (me.get("waste_count") or 0) + 3:
        turns[key] = turns.get(key, 0) + 1
        tap(driver, "[data-do='turn']")
    elif not me.get("voted"):
        tap(driver, "[data-do='stuck']")


def racko_step(driver: Any, turn: list[int]) -> None:
    """On our turn: every third turn take the Discard (tap it, then a slot), else draw; a
    card held goes to the slot its value points to."""
    f = face(driver)
    if not f or f["phase"] != "playing" or not f["table"]:
        return
    t = f["table"]
    if not t.get("your_turn"):
        return
    deck = t.get("deck") or 60

    def slot_of(card: int) -> int:
        return min(50, 5 * (1 + (card - 1) * 10 // deck))

    if t.get("held") is not None:
        tap(driver, f"[data-slot='{slot_of(t['held'])}']")
    elif t.get("source") == "discard" and t.get("discard_top") is not None:
        tap(driver, f"[data-slot='{slot_of(t['discard_top'])}']")
    elif turn[0] % 3 == 2 and t.get("discard_top") is not None:
        turn[0] += 1
        tap(driver, "[data-do='discard_pile']")
    else:
        turn[0] += 1
        tap(driver, "[data-do='draw']")


def gin_step(driver: Any) -> None:
    """Discard the best card; knock (answering the seat's question) as soon as it may."""
    f = face(driver)
    if not f or f["phase"] != "playing":
        return
    if f.get("question"):
        tap(driver, ".dialog button.yes")
        return
    t = f["table"] or {}
    if not t.get("hand") or t.get("unknown"):
        return
    best = t.get("best_discard")
    if t.get("phase") == "draw":
        tap(driver, "[data-do='draw']")
    elif t.get("big_gin"):
        tap(driver, "[data-do='big_gin']")
    elif t.get("phase") == "discard" and t.get("can_knock") and best:
        tap(driver, "[data-do='knock']", wait=False)
        tap(driver, f"[data-card='{best}']")
    elif t.get("phase") in ("first-discard", "discard") and best:
        tap(driver, f"[data-card='{best}']")


def play_until(drivers: list[Any], step: Callable[[Any], None],
               done: Callable[[dict[str, Any]], bool], also: Callable[[], None] = lambda: None,
               timeout: float = ROUND) -> None:
    """Each driver taps a step in turn (and ``also`` runs between) until every page's face
    is ``done``."""
    deadline = time.monotonic() + timeout
    while not all((f := face(d)) is not None and done(f) for d in drivers):
        assert time.monotonic() < deadline, [face(d) and face(d)["phase"] for d in drivers]
        for driver in drivers:
            step(driver)
            also()


def round_over(f: dict[str, Any]) -> bool:
    return f["phase"] in ("between", "over") and f.get("scores") is not None


def socket_frames(driver: Any) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Every WebSocket frame the page sent and received so far, from Chrome's performance log
    (which is read once: call it at the end)."""
    sent, received = [], []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        method = message["method"]
        if method in ("Network.webSocketFrameSent", "Network.webSocketFrameReceived"):
            frame = json.loads(message["params"]["response"]["payloadData"])
            (sent if method.endswith("Sent") else received).append(frame)
    return sent, received


class Bots:
    """Bots on a thread of their own (the bots' runner), stopped and gone at the end."""

    def __init__(self, address: str, names: list[str], speed: str = "flat-out") -> None:
        self.context = zmq.Context()
        self.stop = threading.Event()
        self.bots = [make_bot(address, "greedy", name, seed=i, speed=speed,
                              context=self.context) for i, name in enumerate(names)]
        self.thread = threading.Thread(target=run_pool, args=(self.bots,),
                                       kwargs={"until": self.stop.is_set, "timeout": 100},
                                       daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.stop.set()
        self.thread.join(timeout=10)
        for bot in self.bots:
            leave_and_close(bot.client)
        self.context.term()
