"""The table page drawn from sample faces (tests/faces/*.json, docs/page-protocol.md) in real
headless Chromium: every game and phase fits a phone and a laptop (no horizontal scroll,
controls >= 44 px, no text under 14 px, no console error), and taps and keys send the intents
of the contract. The page is loaded from a file (tests/faces/harness.html) with a fake socket
that records what it sends: no server, no network."""

from __future__ import annotations

from typing import Any

import pytest

from page_checks import SIZES, console_errors, problems, set_viewport
from sample_faces import FACES, face, load, open_harness

pytestmark = pytest.mark.timeout(60)


def sent(driver: Any) -> list[dict[str, Any]]:
    return list(driver.execute_script("const s = window.sent; window.sent = []; return s;"))


def tap(driver: Any, css: str) -> None:
    """A tap, once the element is mid-screen (as a person scrolls it there): the buttons'
    bar and a phone's own cards stay at the bottom, over what scrolls beneath them."""
    element = driver.find_element("css selector", css)
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    element.click()


#: hand-written faces at every size; faces of real tables (make_real.py) at a phone and a laptop
SAMPLES = [(p.stem, size) for p in sorted(FACES.glob("*.json")) for size in sorted(SIZES)
           if not p.stem.startswith("real_") or size in ("phone", "laptop")]


@pytest.mark.parametrize("name,size", SAMPLES)
def test_every_sample_fits_the_screen(driver: Any, name: str, size: str) -> None:
    """Phone portrait and landscape, tablet, laptop: nothing to scroll sideways, every control
    at least 44 CSS px, no text under 14 px, no console error."""
    load(driver, name, SIZES[size], touch=size != "laptop")
    assert driver.find_element("id", "table").is_displayed()
    assert problems(driver, SIZES[size][0]) == []
    assert console_errors(driver) == []


def test_the_checks_see_what_they_look_for(driver: Any) -> None:
    """The screen checks themselves: a wide element, a small button, small text and a name
    cut short by its box are each reported (else every test above could pass on a broken page)."""
    load(driver, "lobby")
    assert problems(driver, 360) == []
    driver.execute_script("""
      const b = document.createElement('button'); b.textContent = 'tiny';
      b.style.cssText = 'min-height:0;min-width:0;padding:0;font-size:10px';
      const w = document.createElement('div'); w.style.width = '900px'; w.textContent = 'wide';
      const c = document.createElement('span'); c.textContent = 'Rosalind Fox';
      c.style.cssText = 'display:inline-block;width:40px;overflow:hidden;white-space:nowrap;' +
                        'text-overflow:ellipsis;font-size:16px';
      document.body.append(b, w, c);""")
    found = " | ".join(problems(driver, 360))
    assert "horizontal scroll" in found and "small control" in found and "text 10px" in found
    assert "cut text" in found and "Rosalind Fox" in found


def test_twenty_players_fit_a_phone(driver: Any) -> None:
    """The 20-seat Racing Demon sample: each other player's name, Pile count and face-up cards
    are drawn, compact, inside 360 px."""
    load(driver, "demon_playing")
    others = driver.find_elements("css selector", ".other")
    assert len(others) == 19
    assert all(o.rect["x"] + o.rect["width"] <= 360 for o in others)
    assert "Tomasz" in others[-1].text
    # every name whole: two alike, an emoji one and a long one, none cut
    shown = driver.execute_script(
        "return [...document.querySelectorAll('.other .name')].map("
        "e => [e.textContent, e.scrollWidth <= e.clientWidth])")
    assert all(whole for _, whole in shown), shown
    assert {"Ann ²", "🃏Bob🎉👨👩", "Wolfgang Max"} <= {name for name, _ in shown}


def test_a_tap_plays_a_card_to_its_best_place(driver: Any) -> None:
    """A tap on the Pile or a column sends `play` with no `to`: the seat picks the best place."""
    load(driver, "demon_playing")
    tap(driver, "[data-src=pile]")
    tap(driver, "[data-src=c2]")
    assert sent(driver) == [{"t": "act", "do": "play", "from": "pile"},
                            {"t": "act", "do": "play", "from": "c2"}]


def test_choose_lists_the_places_of_the_face(driver: Any) -> None:
    """The "choose" toggle, then a card: the face's places for it as large buttons, best
    first; the one tapped is sent as `to`."""
    load(driver, "demon_playing")
    tap(driver, "button.toggle")
    tap(driver, "[data-src=pile]")
    places = driver.find_elements("css selector", ".dialog button.place")
    assert [p.text for p in places] == ["the 6♥ stack", "column 4 (8♥)"]
    assert problems(driver, 360) == []
    places[1].click()
    assert sent(driver) == [{"t": "act", "do": "play", "from": "pile", "to": "c4"}]
    assert not driver.find_elements("css selector", ".dialog")


def test_a_long_press_lists_the_places(driver: Any) -> None:
    """Holding a card down (longer than the page's 450 ms) lists its places; nothing is
    played until one is tapped."""
    from selenium.webdriver.common.action_chains import ActionChains
    load(driver, "demon_playing")
    card = driver.find_element("css selector", "[data-src=c4]")
    ActionChains(driver).click_and_hold(card).pause(0.7).release().perform()
    places = driver.find_elements("css selector", ".dialog button.place")
    assert [p.text for p in places] == ["the 7♣ stack"]
    assert sent(driver) == []


def test_turn_and_stuck_use_the_faces_labels(driver: Any) -> None:
    load(driver, "demon_playing")
    turn = driver.find_element("css selector", "[data-do=turn]")
    assert turn.text == "Turn the Pack"
    turn.click()
    tap(driver, "[data-do=stuck]")
    assert sent(driver) == [{"t": "act", "do": "turn"}, {"t": "act", "do": "stuck"}]


def test_the_line_shows_its_rule_id_after_the_words(driver: Any) -> None:
    """RD-11: a race lost is said in words, its rule id after them, dimmed."""
    load(driver, "demon_playing")
    line = driver.find_element("css selector", ".line")
    assert line.text.endswith("Ann beat you to the A♥ stack, by 12 ms RD-11")
    assert line.find_element("css selector", ".rule").text == "RD-11"


def test_a_spectator_has_no_cards_to_play(driver: Any) -> None:
    load(driver, "demon_spectator")
    assert driver.find_elements("css selector", "[data-src]") == []
    assert len(driver.find_elements("css selector", ".other")) == 20


def test_suits_are_told_by_shape_and_colour(driver: Any) -> None:
    """♥♦ red, ♠♣ black, each with its own glyph: nothing depends on colour alone."""
    load(driver, "demon_playing")
    pile = driver.find_element("css selector", "[data-src=pile] .card")
    waste = driver.find_element("css selector", "[data-src=waste] .card")
    assert pile.text.replace("\n", "") == "7♥" and "red" in pile.get_attribute("class")
    assert waste.text.replace("\n", "") == "Q♣" and "black" in waste.get_attribute("class")
    assert pile.value_of_css_property("color") != waste.value_of_css_property("color")


def test_lit_cards_have_a_border_and_a_mark(driver: Any) -> None:
    load(driver, "demon_playing")
    lit = driver.find_element("css selector", "button.src.lit[data-src=pile]")
    mark = driver.execute_script(
        "return getComputedStyle(arguments[0], '::after').content", lit)
    assert mark == '"★"'
    assert lit.value_of_css_property("border-top-style") == "solid"


def test_keys_are_sent_as_the_terminal_has_them(driver: Any) -> None:
    """A keyboard works with the face's keys; keys the face does not list are not sent."""
    from selenium.webdriver.common.action_chains import ActionChains
    load(driver, "demon_playing", SIZES["laptop"], touch=False)
    ActionChains(driver).send_keys("p2 z").perform()
    assert sent(driver) == [{"t": "key", "key": "p"}, {"t": "key", "key": "2"},
                            {"t": "key", "key": " "}]


def test_the_keys_are_listed_as_the_terminal_lists_them(driver: Any) -> None:
    """A keyboard's keys under the table, from the face's ``key_help`` — the seat layer's list, in
    its order and words (h is the hint in every game, GS-4)."""
    from lan_demon.seat.acts import GAME_KEYS, TABLE_KEYS
    sample = face("gin_playing")
    assert sample["key_help"] == [[k.key, k.words] for k in GAME_KEYS["GinSeat"] + TABLE_KEYS
                                  if k.page]  # the sample is the seat layer's list
    load(driver, sample, SIZES["laptop"], touch=False)
    listed = driver.find_element("css selector", ".keys").text
    assert listed == "Keys: n draw · letter discard that card · B Big Gin · h hint · q leave"
    assert console_errors(driver) == []


def test_the_question_is_a_dialog(driver: Any) -> None:
    """Start anyway? asked as the face words it; its answers are the face's acts."""
    load(driver, "lobby_question")
    dialog = driver.find_element("css selector", ".dialog")
    assert "Bo and Eve are not ready yet" in dialog.text
    assert [b.text for b in dialog.find_elements("css selector", "button")] == ["Start now", "Wait"]
    tap(driver, ".dialog button.yes")
    assert sent(driver) == [{"t": "act", "do": "start_anyway"}]


def test_leave_goes_to_the_seat(driver: Any) -> None:
    """Leave is the face's act: the seat asks its question mid-match (its words and labels)."""
    load(driver, "lobby")
    tap(driver, "header [data-do=leave]")
    assert sent(driver) == [{"t": "act", "do": "leave"}]


def test_ready_and_start_are_the_faces_acts(driver: Any) -> None:
    load(driver, "lobby")
    assert driver.find_element("css selector", "[data-do=ready]").text == "I'm ready"
    tap(driver, "[data-do=start]")
    assert sent(driver) == [{"t": "act", "do": "start"}]
    assert "Bo, Eve" in driver.find_element("css selector", ".waiting-for").text


def test_the_evening_is_drawn_and_its_buttons_are_the_faces_acts(driver: Any) -> None:
    """§24 on the page as on the terminal: who paused and how to go on, each away seat's
    time, and the captain's Resume and Remove sending their intents (the seat asks first)."""
    load(driver, "demon_paused")
    assert driver.find_element("css selector", ".paused").text.startswith(
        "⏸ You paused the table 1:23 ago")
    assert [e.text for e in driver.find_elements("css selector", ".away-time")] == [
        "· Finn away 4:10 — seat kept 0:50 more", "· Jo away 1:23 — seat kept 3:37 more"]
    tap(driver, "[data-do=remove]")
    tap(driver, "[data-do=resume]")
    assert sent(driver) == [{"t": "act", "do": "remove", "seat": 5},
                            {"t": "act", "do": "resume"}]
    # The captain's question offers a third answer: a bot plays the seat on (§24, handover).
    asked = {**face("demon_paused"), "question": {
        "words": "Finn, away 4:10: remove them (their cards stay and score), or let a bot play on for them as Finn L2? …",
        "yes": {"do": "remove", "seat": 5, "sure": True}, "no": {"do": "dismiss"},
        "yes_label": "Remove", "no_label": "Keep",
        "other": {"do": "remove", "seat": 5, "sure": True, "bot": 2},
        "other_label": "A bot plays on (level 2)"}}
    load(driver, asked)
    labels = [b.text for b in driver.find_elements("css selector", ".dialog button")]
    assert labels == ["Remove", "A bot plays on (level 2)", "Keep"]
    driver.find_elements("css selector", ".dialog button")[1].click()
    assert sent(driver) == [{"t": "act", "do": "remove", "seat": 5, "sure": True, "bot": 2}]


def test_rack_o_taps(driver: Any) -> None:
    """Rack-O: the Discard, the Draw pile, a slot, discarding the held card, the hint."""
    load(driver, "racko_playing")
    slots = [b.get_attribute("data-slot") for b in
             driver.find_elements("css selector", "button.slot")]
    assert slots == ["50", "45", "40", "35", "30", "25", "20", "15", "10", "5"]
    for css in ("[data-do=discard_pile]", "[data-slot='25']", "[data-do=draw]",
                "[data-do=discard]", "[data-do=hint]"):
        tap(driver, css)
    assert sent(driver) == [{"t": "act", "do": "discard_pile"},
                            {"t": "act", "do": "slot", "slot": 25},
                            {"t": "act", "do": "draw"}, {"t": "act", "do": "discard"},
                            {"t": "act", "do": "hint"}]
    assert "RK-4" in driver.find_element("css selector", ".others-list").text


def test_advice_in_plain_words_with_why_numbers_behind_a_toggle(driver: Any) -> None:
    """The coach's advice says what to do and why in plain words; the numbers behind it show only
    through "why? numbers" (the `why` act; the seat remembers the choice, as the terminal's advice
    key pressed again)."""
    words = "Coach: Put the drawn 26 into slot 40, in place of the 1: it fits between your 24 " \
        "in slot 35 and your 31 in slot 45 — your rack comes nearer Rack-O"
    numbers = "work left 0.17, against 0.37 as your rack is now"
    plain = dict(face("racko_playing"), hint=words, hint_why=True, hint_numbers=None)
    load(driver, plain)
    shown = driver.find_element("css selector", "div.hint")
    assert words in shown.text and "work left" not in shown.text
    assert driver.find_element("css selector", "[data-do=why]").text == "why? numbers"
    tap(driver, "[data-do=why]")
    assert sent(driver) == [{"t": "act", "do": "why"}]
    load(driver, dict(plain, hint_numbers=numbers))
    assert driver.find_element("css selector", "div.hint p.numbers").text == numbers
    assert not problems(driver)  # fits a phone: no sideways scroll, no small text or target
    assert driver.find_element("css selector", "[data-do=why]").text == "hide the numbers"
    load(driver, dict(plain, hint_why=False))  # nothing behind it: no toggle
    assert not driver.find_elements("css selector", "[data-do=why]")
    assert not console_errors(driver)


def test_gin_taps_and_knock(driver: Any) -> None:
    """Gin: a card's letter is shown beside it; a tap sends it; Knock then a card sends the
    knock, which the seat asks about (GS-6) before anything goes to the table."""
    load(driver, "gin_playing")
    card = driver.find_element("css selector", "[data-card=KS]")
    assert card.text.split("\n")[0] == "k"
    card.click()
    tap(driver, "[data-do=knock]")
    tap(driver, "[data-card='2C']")
    assert sent(driver) == [{"t": "act", "do": "card", "card": "KS"},
                            {"t": "act", "do": "knock", "card": "2C"}]
    load(driver, "gin_knock_question")
    dialog = driver.find_element("css selector", ".dialog")
    assert "Knock with 2♣ face down, deadwood 8?" in dialog.text
    tap(driver, ".dialog button.yes")
    assert sent(driver) == [{"t": "act", "do": "knock", "card": "2C", "sure": True}]


def test_round_end_shows_every_part_and_the_chart(driver: Any) -> None:
    """Every part of each score: columns on a laptop, a line under each name on a phone."""
    load(driver, "demon_between", SIZES["laptop"], touch=False)
    table = driver.find_element("css selector", ".scores table")
    heads = [th.text for th in table.find_elements("css selector", "th")]
    assert heads[2:] == ["score (RD-14)", "stacked", "kings", "out", "pile left", "total"]
    assert len(table.find_elements("css selector", "tbody tr:not(.parts-row)")) == 6
    load(driver, "demon_between")
    parts = driver.find_elements("css selector", ".scores tr.parts-row")
    assert parts[0].text == "stacked 15 · kings 0 · out yes · pile left 0"
    assert len(driver.find_elements("css selector", "svg.chart polyline")) == 5
    assert "NOT checked" in driver.find_element("css selector", ".deal").text
    assert driver.find_element("css selector", "[data-countdown]").text.endswith(" s")


def test_a_new_banner_is_shown_once_per_id(driver: Any) -> None:
    """The OUT banner: shown when a face brings a new banner id, not for the one a reload
    finds already there."""
    base = face("demon_playing")
    load(driver, base)
    assert driver.find_elements("css selector", ".banner") == []
    out = dict(face("demon_between"), banner={"words": "Cy is OUT!", "id": 3})
    driver.execute_script("window.showFace(arguments[0])", out)
    assert driver.find_element("css selector", ".banner").text == "Cy is OUT!"
    load(driver, out)  # a reload: the same banner is old news
    assert driver.find_elements("css selector", ".banner") == []
    assert console_errors(driver) == []


@pytest.mark.parametrize("size", ["phone", "laptop"])
def test_the_tv_draws_every_player_and_offers_no_control(driver: Any, size: str) -> None:
    """The TV page's drawing (Table.show with tv): the stacks large, every player, the line;
    no button at all, and no key is sent."""
    from selenium.webdriver.common.action_chains import ActionChains
    set_viewport(driver, *SIZES[size], touch=size == "phone")
    open_harness(driver)
    driver.execute_script("window.showFace(arguments[0], {tv: true})", face("demon_spectator"))
    assert len(driver.find_elements("css selector", ".other")) == 20
    assert len(driver.find_elements("css selector", ".stack .card.big")) == 14
    assert driver.find_elements("css selector", "button") == []
    ActionChains(driver).send_keys("q ").perform()
    assert sent(driver) == []
    assert problems(driver, SIZES[size][0]) == []
    assert console_errors(driver) == []


def test_a_rack_o_spectator_has_nothing_to_tap(driver: Any) -> None:
    """Watching Rack-O (real_racko_spectator: a spectator's face from a real table): the
    Discard and the Draw pile are shown, not offered as buttons; no rack."""
    load(driver, "real_racko_spectator")
    assert driver.find_elements("css selector", ".piles div.pile")
    assert not driver.find_elements("css selector", ".piles button, .rack")


def test_a_gateway_error_is_said_on_the_line(driver: Any) -> None:
    load(driver, "lobby")
    driver.execute_script("window.sock.dispatchEvent(new MessageEvent('message', "
                          "{data: JSON.stringify({t: 'error', words: 'that frame was not "
                          "understood'})}))")
    assert "that frame was not understood" in driver.find_element("css selector", ".line").text
    later = dict(face("lobby"), line={"words": "Bo is ready", "rule": None, "kind": "said"},
                 line_id=9)
    driver.execute_script("window.showFace(arguments[0])", later)  # a new line of the face's
    assert driver.find_element("css selector", ".line").text == "Bo is ready"


def test_the_screen_is_kept_awake_while_a_round_is_played(driver: Any) -> None:
    """Screen Wake Lock asked for while `phase` is playing, let go after; a browser that
    refuses it (or has none) is told nothing and shows nothing."""
    open_harness(driver)
    driver.execute_script("""
      window.locks = []; window.refuse = false;
      Object.defineProperty(navigator, 'wakeLock', {value: {request: (kind) => {
        if (window.refuse) {
          window.refused = true;
          return Promise.reject(new DOMException('no', 'NotAllowedError'));
        }
        const lock = new EventTarget();
        lock.released = false;
        lock.release = () => { lock.released = true; return Promise.resolve(); };
        window.locks.push([kind, lock]);
        return Promise.resolve(lock);
      }}});""")
    from selenium.webdriver.support.ui import WebDriverWait
    driver.execute_script("window.showFace(arguments[0])", face("demon_playing"))
    WebDriverWait(driver, 5).until(lambda d: d.execute_script("return window.locks.length"))
    assert driver.execute_script("return window.locks.map(l => l[0])") == ["screen"]
    driver.execute_script("window.showFace(arguments[0])", face("demon_between"))
    assert driver.execute_script("return window.locks[0][1].released") is True
    driver.execute_script("window.refuse = true; window.showFace(arguments[0])",
                          face("demon_playing"))
    WebDriverWait(driver, 5).until(lambda d: d.execute_script("return window.refused"))
    assert console_errors(driver) == []
    assert "wake" not in driver.find_element("id", "table").text.lower()


IN_VIEW = """
const e = document.querySelector(arguments[0]);
if (!e) return null;
const r = e.getBoundingClientRect();
return r.top >= 0 && r.bottom <= innerHeight;
"""


def test_on_a_phone_your_cards_and_the_buttons_stay_in_reach(driver: Any) -> None:
    """At 360×640: the stacks above pushed your own cards and Stuck below the fold (14 stacks here;
    a big table has dozens), and "I'm ready" sat under the scoreboard, the chart and the review.
    Your cards and the round's buttons stay on screen without scrolling; the stacks and the
    scoreboard scroll above them."""
    load(driver, "demon_playing")
    assert driver.execute_script("return document.documentElement.scrollHeight") > 640
    for css in ("[data-src='pile']", "[data-do='turn']", "[data-do='stuck']"):
        assert driver.execute_script(IN_VIEW, css) is True, css
    load(driver, "demon_between")
    assert driver.execute_script("return document.documentElement.scrollHeight") > 640
    assert driver.execute_script(IN_VIEW, "[data-do='ready']") is True
