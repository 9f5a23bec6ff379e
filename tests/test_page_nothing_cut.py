"""Nothing cut on the browser table: at a phone's 360×640 and a laptop's 1280×800,
for sample faces of every game (tests/faces; the *_twenty_* ones seat twenty players whose
names are as wide as the table lets them be: 12 terminal cells, two alike, emoji, CJK, the
widest Latin letters), every word is shown whole — no text overflows its box, no ellipsis —
and what a player needs now is on the first screen, not under the sticky bar at the bottom:
their rack or hand or cards and the move buttons, the round's "I'm ready", the TV's "Next
round in". One Chromium for the module (conftest's ``driver``); no server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from page_checks import SIZES, console_errors, set_viewport
from sample_faces import face, load, open_harness

pytestmark = pytest.mark.timeout(60)

# Every piece of text (SVG aside) not wholly inside its box: the nearest box around it that
# is not inline (a word spilling over its neighbours), and every box on the way that clips
# (overflow other than visible); every ellipsis doing its work; a name broken over lines
# (WWWWWWWWW / WWW in a narrow table cell). Said in words.
CUT_JS = r"""
const out = [];
const seen = (el) => { const r = el.getBoundingClientRect();
  return r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== "hidden"; };
const inside = (a, b) => a.left >= b.left - 1 && a.right <= b.right + 1 &&
                         a.top >= b.top - 1 && a.bottom <= b.bottom + 1;
const walk = document.createTreeWalker(document.getElementById("table"), NodeFilter.SHOW_TEXT);
for (let n = walk.nextNode(); n; n = walk.nextNode()) {
  const parent = n.parentElement;
  if (!n.textContent.trim() || !parent || parent.closest("svg") || !seen(parent)) continue;
  const range = document.createRange();
  range.selectNodeContents(n);
  const text = range.getBoundingClientRect();
  const what = `"${n.textContent.trim().slice(0, 30)}"`;
  let box = parent;
  while (getComputedStyle(box).display.startsWith("inline") &&
         !getComputedStyle(box).display.startsWith("inline-") && box.parentElement)
    box = box.parentElement;
  const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
  if (parent.closest(".name") && lines.size > 1)  // a name broken over two lines
    out.push(`${what} broken over ${lines.size} lines in ${parent.className}`);
  if (!inside(text, box.getBoundingClientRect()))
    out.push(`${what} spills out of ${box.tagName.toLowerCase()}.${box.className}`);
  for (let a = parent; a && a !== document.body; a = a.parentElement) {
    const style = getComputedStyle(a);
    const r = a.getBoundingClientRect();
    if (style.overflowX !== "visible" && (text.left < r.left - 1 || text.right > r.right + 1) ||
        style.overflowY !== "visible" && (text.top < r.top - 1 || text.bottom > r.bottom + 1))
      out.push(`${what} clipped by ${a.tagName.toLowerCase()}.${a.className}`);
    if (style.textOverflow === "ellipsis" && a.scrollWidth > a.clientWidth)
      out.push(`${what} cut with an ellipsis in ${a.tagName.toLowerCase()}.${a.className}`);
    if (style.position === "fixed") break;  // (a dialog: no box around it clips it)
  }
}
return out;
"""

# Each element matching a selector that is not wholly on the first screen, or whose middle is
# covered by something else (the sticky dock, a banner): said in words; empty when all are.
REACH_JS = r"""
const out = [];
window.scrollTo(0, 0);
for (const css of arguments[0]) {
  const found = [...document.querySelectorAll(css)];
  if (!found.length) out.push(`${css}: none drawn`);
  for (const el of found) {
    const r = el.getBoundingClientRect();
    const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    if (r.top < 0 || r.bottom > innerHeight + 0.5 || r.left < 0 || r.right > innerWidth + 0.5)
      out.push(`${css} at ${Math.round(r.top)}..${Math.round(r.bottom)}, not on the screen`);
    else if (!top || !el.contains(top))
      out.push(`${css} under ${top ? top.tagName + "." + top.className : "nothing"}`);
  }
}
return out;
"""

SLOTS = "button.slot"
#: what a seated player's hands are on mid-round, by game
HANDS = {"racing-demon": ["[data-src]", "[data-do=turn]", "[data-do=stuck]"],
         "racing-demon-german": ["[data-src]", "[data-do=turn]", "[data-do=stuck]"],
         "racko": [SLOTS, "[data-do=discard_pile]", "[data-do=draw]"],
         "gin-solitaire": ["button.gcard"]}  # (Draw is an act, offered when a draw is due)
FACES = sorted(p.stem for p in (Path(__file__).parent / "faces").glob("*.json"))


EVENING = ("resume", "remove", "leave")  # the acts that work while the table is paused


def essentials(f: dict[str, Any]) -> list[str]:
    """What the player of face ``f`` needs on the first screen: mid-round their cards (rack,
    hand, Pile and columns) and the moves; every act the face offers (I'm ready, Start, Knock,
    Discard it, Leave), the hint aside (advice, under the rack); the countdown. A question
    asked over the table: its answers. A paused table: Resume, Remove and Leave (its cards and
    moves wait: every move would be refused)."""
    if f.get("question"):  # asked over the table: the answers, nothing under the veil
        return [".dialog button"]
    if f.get("paused"):  # nothing moves at a paused table (§24): what ends or uses the pause
        return [f"[data-do={a['do']}]" for a in f["acts"] if a["do"] in EVENING]
    need = []
    if f["phase"] == "playing" and not f["spectator"] and (f.get("table") or {}):
        need += HANDS[f["game"]]
    need += [f"[data-do={a['do']}]" for a in f["acts"] if a["do"] != "hint"]
    if f.get("countdown") is not None:
        need.append("[data-countdown]")
    return list(dict.fromkeys(need))


def test_every_player_needs_something_in_reach() -> None:
    """The essentials of the samples are not empty where a player has something to do (else
    the reach check below would check nothing)."""
    assert essentials(face("racko_playing")) == [SLOTS, "[data-do=discard_pile]", "[data-do=draw]",
                                                 "[data-do=discard]", "[data-do=leave]"]
    assert "[data-countdown]" in essentials(face("demon_twenty_between"))
    assert all(essentials(face(name)) for name in FACES)


def cut(driver: Any) -> list[str]:
    return list(driver.execute_script(CUT_JS))


def out_of_reach(driver: Any, selectors: list[str]) -> list[str]:
    return list(driver.execute_script(REACH_JS, selectors))


@pytest.mark.parametrize("size", ["phone", "laptop"])
@pytest.mark.parametrize("name", FACES)
def test_every_word_whole_and_the_moves_on_the_first_screen(driver: Any, name: str,
                                                            size: str) -> None:
    """Nothing cut (no overflowing text, no ellipsis, no name broken) and the player's cards and
    move buttons in reach without scrolling, at a phone's and a laptop's size, for every sample
    face (tests/faces: 1 to 20 seats, all four games, every phase)."""
    load(driver, name, SIZES[size], touch=size == "phone")
    assert cut(driver) == []
    assert out_of_reach(driver, essentials(face(name))) == []
    assert console_errors(driver) == []


@pytest.mark.parametrize("size", ["phone", "laptop"])
@pytest.mark.parametrize("name", [n for n in FACES if n.endswith(("between", "round_end",
                                                                  "over", "spectator"))])
def test_the_tv_shows_every_word_and_the_next_round(driver: Any, name: str, size: str) -> None:
    """The TV page at a round's end: "Next round in" on the first screen, above the chart
    (the chart pushed it below the fold), and nothing cut; mid-round, nothing cut."""
    from selenium.webdriver.support.ui import WebDriverWait
    set_viewport(driver, *SIZES[size], touch=size == "phone")
    open_harness(driver)
    driver.execute_script("window.showFace(arguments[0], {tv: true})", face(name))
    WebDriverWait(driver, 5).until(lambda d: d.find_elements("css selector", ".page.tv"))
    assert cut(driver) == []
    if face(name).get("countdown") is not None:
        assert out_of_reach(driver, ["[data-countdown]"]) == []


def test_a_name_has_the_same_place_in_every_row(driver: Any) -> None:
    """A 12-cell name (WWWWWWWWWWWW, 山田太郎さん, an emoji one) shifts nothing: in every other player's
    row the Pile count and card start at the same place, whatever the name's width, and the name is
    drawn whole on one line."""
    for size in ("phone", "laptop"):
        load(driver, "demon_twenty_names", SIZES[size], touch=size == "phone")
        rows = driver.execute_script("""
          return [...document.querySelectorAll('.other')].map(o => {
            const r = o.getBoundingClientRect(), n = o.querySelector('.name');
            const c = o.querySelector('.count').getBoundingClientRect();
            return [n.textContent, Math.round(c.left - r.left), Math.round(c.top - r.top),
                    n.getClientRects().length, Math.round(r.height)];
          });""")
        assert {"WWWWWWWWWWWW", "山田太郎さん", "🃏Bob🎉👨\u200d👩", "Ann", "Ann ²"} <= {
            r[0] for r in rows}
        assert len({(r[1], r[2]) for r in rows}) == 1, (size, rows)  # the count's place
        assert len({r[4] for r in rows}) == 1, (size, rows)  # every row as tall
        assert all(r[3] == 1 for r in rows), (size, rows)  # each name on one line


def test_the_checks_see_a_cut_word_and_a_covered_button(driver: Any) -> None:
    """The checks themselves: an ellipsis on a name, a name spilling over its neighbours and a
    button under the sticky bar are reported (else the tests above could pass on a broken page)."""
    load(driver, "demon_twenty_names")
    assert cut(driver) == []
    driver.execute_script("""
      const n = document.querySelector('.other .name');
      n.style.cssText = 'flex:0 0 20px;width:20px;overflow:hidden;text-overflow:ellipsis;' +
                        'white-space:nowrap';""")
    assert any("ellipsis" in c for c in cut(driver))
    driver.execute_script("document.querySelector('.other .name').style.overflow = 'visible'")
    assert any("spills out of span.name" in c for c in cut(driver))  # over the Pile count
    load(driver, "racko_playing")
    driver.execute_script("""
      const b = document.querySelector('button.slot');
      b.style.cssText = 'position:fixed;bottom:0;left:0;z-index:0';""")
    assert any("button.slot under" in p for p in out_of_reach(driver, [SLOTS]))
