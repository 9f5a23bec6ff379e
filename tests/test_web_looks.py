"""The page's display settings in a real browser (headless Chromium, loopback): the
palette (classic, colour-blind safe, no colour) and bigger cards, chosen under "Display" and
remembered on a reload; the cards' inks and the owners' marks follow the palette chosen (the
colours are seat/palette.py's, tests/test_palette.py holds table.css to them)."""

from __future__ import annotations

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

from browser import WAIT
from lan_demon.seat.palette import CLASSIC, SAFE

pytestmark = pytest.mark.timeout(90)

PROBE = """
const card = Cards.el("5H", "big"), mark = Looks.mark(3);
document.body.append(card, mark);
const out = {ink: getComputedStyle(card).color, band: getComputedStyle(mark).borderBottomColor,
             letter: mark.textContent, height: card.getBoundingClientRect().height,
             palette: document.documentElement.dataset.palette};
card.remove(); mark.remove();
return out;
"""


def rgb(colour: str) -> str:
    r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return f"rgb({r}, {g}, {b})"


def test_the_palette_and_big_cards_are_chosen_on_the_page_and_remembered(host, web, browser):
    """RD-2: an owner's mark is its letter on its colour in every palette (the letter alone
    with no colour); a red suit's ink is the palette's; bigger cards are bigger."""
    site = web(host("racing-demon"))
    driver = browser.open("laptop")
    driver.get(site.url)
    WebDriverWait(driver, WAIT).until(lambda d: d.find_elements(By.ID, "palette"))
    first = driver.execute_script(PROBE)
    assert first["palette"] == "classic" and first["ink"] == rgb(CLASSIC.red)
    assert first["letter"] == "d" and first["band"] == rgb(CLASSIC.owners[3])
    driver.find_element(By.CSS_SELECTOR, "#looks summary").click()
    Select(driver.find_element(By.ID, "palette")).select_by_value("safe")
    driver.find_element(By.ID, "big-cards").click()
    driver.refresh()
    WebDriverWait(driver, WAIT).until(lambda d: d.find_elements(By.ID, "palette"))
    safe = driver.execute_script(PROBE)
    assert safe["palette"] == "safe" and safe["ink"] == rgb(SAFE.red)
    assert safe["letter"] == "d" and safe["band"] == rgb(SAFE.owners[3])
    assert safe["height"] > first["height"]  # bigger cards, remembered
    assert Select(driver.find_element(By.ID, "palette")).first_selected_option \
        .get_attribute("value") == "safe"
    driver.find_element(By.CSS_SELECTOR, "#looks summary").click()
    Select(driver.find_element(By.ID, "palette")).select_by_value("none")
    plain = driver.execute_script(PROBE)
    assert plain["ink"] == "rgb(17, 17, 17)" and plain["letter"] == "d"
    assert plain["band"] in ("rgb(255, 255, 255)", "rgb(85, 85, 85)")  # no colour: a box
