"""Real browsers for tests: Debian's headless Chromium driven through its own chromedriver.

``Browsers`` (the ``browser`` fixture of conftest.py) opens drivers at laptop, tablet or phone
size; the phone is 360×640 with touch emulated (Chrome DevTools' ``Emulation`` domain), as a
phone's page sees it. Selenium Manager never runs: the driver's path is given to ``Service``
(then Selenium skips it) and ``SE_OFFLINE`` is set besides, so nothing is downloaded. Every
driver keeps its console: at the end each is read, and any error there fails the test
(:meth:`Browsers.check_consoles`); every driver is quit by the fixture, whatever happened.
Without Chromium the browser tests are skipped, saying why; CI installs it (``.ci/run``).
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

CHROMIUM = next((p for p in ("/usr/bin/chromium", shutil.which("chromium") or "")
                 if p and os.path.exists(p)), None)
CHROMEDRIVER = next((p for p in ("/usr/bin/chromedriver", shutil.which("chromedriver") or "")
                     if p and os.path.exists(p)), None)
MISSING = None if CHROMIUM and CHROMEDRIVER else (
    "the browser tests need Debian's chromium and chromium-driver (/usr/bin/chromium, "
    "/usr/bin/chromedriver): sudo apt-get install chromium chromium-driver")
WAIT = 10.0  # seconds a test waits for the page to show something (WebDriverWait)

#: name -> (width, height, phone): CSS pixels of the viewport
SIZES = {"laptop": (1280, 800, False), "tablet": (768, 1024, True), "phone": (360, 640, True),
         "phone-landscape": (640, 360, True)}


@dataclass
class Browsers:
    """Every driver a test opened; all are quit at the end (:meth:`quit_all`)."""

    drivers: list[Any] = field(default_factory=list)

    def open(self, size: str = "laptop") -> Any:
        """A new headless Chromium at ``size`` (one of :data:`SIZES`)."""
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
        os.environ["SE_OFFLINE"] = "true"  # Selenium Manager, were it ever asked: no network
        width, height, touch = SIZES[size]
        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                    "--no-first-run", "--no-default-browser-check", "--disable-extensions",
                    "--disable-background-networking", "--disable-component-update",
                    "--disable-sync", "--metrics-recording-only", "--mute-audio",
                    f"--window-size={width},{height}"):
            options.add_argument(arg)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
        driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER),
                                  options=options)
        self.drivers.append(driver)
        driver.set_page_load_timeout(WAIT)
        driver.set_script_timeout(WAIT)
        if touch:
            driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
                "width": width, "height": height, "deviceScaleFactor": 2, "mobile": True})
            driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled",
                                   {"enabled": True, "maxTouchPoints": 5})
        driver.lan_demon_console = []  # console entries read so far (logs are read once)
        return driver

    def console(self, driver: Any) -> list[dict[str, Any]]:
        """Every console entry of ``driver`` so far."""
        driver.lan_demon_console.extend(driver.get_log("browser"))
        return driver.lan_demon_console

    def check_consoles(self) -> None:
        """Fail on any error in any driver's console (a failed load, an exception, a
        ``console.error``)."""
        errors = []
        for driver in self.drivers:
            errors += [e["message"] for e in self.console(driver) if e["level"] == "SEVERE"]
        assert not errors, "errors in the browser's console:\n" + "\n".join(errors)

    def quit_all(self) -> None:
        for driver in self.drivers:
            try:
                driver.quit()
            except Exception:  # already gone: nothing more to stop
                pass
        self.drivers.clear()


def requested_hosts(driver: Any) -> set[str]:
    """Every host:port the page asked for anything (documents, scripts, styles, images,
    fonts, sockets), from Chrome's performance log — read once, so call it at the end."""
    hosts = set()
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] in ("Network.requestWillBeSent", "Network.webSocketCreated"):
            url = message["params"].get("request", {}).get("url") or message["params"].get("url")
            parts = urlsplit(url or "")
            if parts.scheme in ("http", "https", "ws", "wss"):
                hosts.add(parts.netloc)
    return hosts


def page_width(driver: Any) -> tuple[int, int]:
    """(the document's scroll width, the viewport's width), in CSS pixels."""
    return tuple(driver.execute_script(
        "return [document.documentElement.scrollWidth, window.innerWidth]"))


def small_controls(driver: Any, least: float = 44.0) -> list[str]:
    """Every visible control (button, input, link, select, [role=button]) smaller than
    ``least`` CSS px in width or height, described."""
    return driver.execute_script("""
        const least = arguments[0], small = [];
        for (const el of document.querySelectorAll(
                'button, input, select, textarea, a[href], [role=button]')) {
          const r = el.getBoundingClientRect();
          if (r.width === 0 && r.height === 0) continue;  // not shown
          if (getComputedStyle(el).visibility === 'hidden') continue;
          if (r.width < least || r.height < least)
            small.push(el.tagName + '#' + el.id + ' ' + Math.round(r.width) + 'x' +
                       Math.round(r.height));
        }
        return small;""", least)
