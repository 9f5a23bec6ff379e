"""What every drawn page must hold on any screen, touch and small ones included, as JavaScript
run in the page: no horizontal scrolling, every control at least 44 CSS px, no text under
14 px, no text cut short by its box (a name ending in "…"). Shared by the sample-face tests
and the end-to-end ones."""

from __future__ import annotations

from typing import Any

PHONE = (360, 640)
SIZES = {"phone": PHONE, "phone-landscape": (640, 360), "tablet": (768, 1024),
         "laptop": (1280, 800)}

# Returns a list of problems, each in words: empty when the page is fine.
CHECK_JS = r"""
const out = [];
const width = arguments[0] || window.innerWidth;  // a mobile viewport widens to its content
const doc = document.documentElement;
if (Math.max(doc.scrollWidth, window.innerWidth) > width + 0.5)
  out.push(`horizontal scroll: ${Math.max(doc.scrollWidth, window.innerWidth)} > ${width}`);
const seen = (el) => { const r = el.getBoundingClientRect();
  return r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== "hidden"; };
for (const el of document.querySelectorAll("button, a[href], input, select, [role=button]")) {
  if (!seen(el)) continue;
  const r = el.getBoundingClientRect();
  if (r.width < 43.5 || r.height < 43.5)
    out.push(`small control ${Math.round(r.width)}x${Math.round(r.height)}: ` +
             (el.textContent || el.outerHTML).trim().slice(0, 40));
}
const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
for (let n = walk.nextNode(); n; n = walk.nextNode()) {
  if (!n.textContent.trim() || !n.parentElement || !seen(n.parentElement)) continue;
  const size = parseFloat(getComputedStyle(n.parentElement).fontSize);
  if (size < 13.95) out.push(`text ${size}px: ${n.textContent.trim().slice(0, 30)}`);
}
for (const el of document.querySelectorAll("*")) {
  const r = el.getBoundingClientRect();
  if (r.width && r.right > width + 0.5 && seen(el))
    out.push(`past the right edge by ${Math.round(r.right - width)}px: ` +
             el.tagName + "." + el.className);
}
for (const el of document.querySelectorAll("*")) {  // a label cut short: a name is shown whole
  const style = getComputedStyle(el);
  if (!seen(el) || !el.textContent.trim() || style.overflowX === "visible") continue;
  if (el.scrollWidth > el.clientWidth + 0.5 && el.children.length === 0)
    out.push(`cut text (${el.scrollWidth}px in ${el.clientWidth}px): ` +
             el.textContent.trim().slice(0, 30));
}
return out.slice(0, 12);
"""


def set_viewport(driver: Any, width: int, height: int, touch: bool = True) -> None:
    """A phone-sized (or any) viewport with touch, through the DevTools protocol: headless
    Chromium's windows are not made smaller than 500 px wide."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": height, "deviceScaleFactor": 2 if touch else 1,
        "mobile": touch})
    driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": touch,
                                                                  "maxTouchPoints": 5})


def problems(driver: Any, width: int | None = None) -> list[str]:
    """What is wrong with the page as drawn at ``width`` CSS px (the viewport set), in words."""
    return list(driver.execute_script(CHECK_JS, width))


def console_errors(driver: Any) -> list[str]:
    """The browser console's errors since the last call (any one fails a test)."""
    return [entry["message"] for entry in driver.get_log("browser")
            if entry.get("level") == "SEVERE"]
