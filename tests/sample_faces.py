"""The table page drawn from a sample face (tests/faces/*.json, docs/page-protocol.md): the page
is loaded from a file (tests/faces/harness.html) with a fake socket that records what it sends,
no server, no network; ``load`` shows a face at a viewport's size. The Chromium it runs in is
conftest's ``driver`` fixture."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from page_checks import SIZES, set_viewport

FACES = Path(__file__).parent / "faces"


def face(name: str) -> dict[str, Any]:
    return json.loads((FACES / f"{name}.json").read_text())


def load(driver: Any, name: str | dict[str, Any], size: tuple[int, int] = SIZES["phone"],
         touch: bool = True) -> None:
    set_viewport(driver, *size, touch=touch)
    open_harness(driver)
    driver.execute_script("window.showFace(arguments[0])",
                          face(name) if isinstance(name, str) else name)


def open_harness(driver: Any) -> None:
    from selenium.webdriver.support.ui import WebDriverWait
    driver.get((FACES / "harness.html").as_uri())
    WebDriverWait(driver, 10).until(
        lambda d: d.execute_script("return typeof window.showFace === 'function'"))
