"""The lobby: the game and its options, every seat (who, captain, bot and its level, ready,
away), the bots' level at ``lan-demon play``, and who waits for whom.

A seat is shown by its name, whole and the same as on every other screen: a bot seated with a
level says it in its name, "Ada L7" (:func:`lan_demon.bots.levels.bot_name`), and every bot's
seat is marked "bot" beside it. At ``lan-demon play`` the bots' level changes with ``v`` after
they sat down, so their names are plain ("Ada") and the in-process table says their level
(``local.level_of(name)``) beside the mark: "bot, level 3".
"""

from __future__ import annotations

from typing import Any

from lan_demon.net.cells import cells
from lan_demon.net.names import NAME_CELLS
from lan_demon.seat.seat import not_ready_words
from lan_demon.seat.words import pad_name
from lan_demon.tui.facts import TableFacts
from lan_demon.tui.scores import rounds_text
from lan_demon.tui.style import Fragments, line
from lan_demon.tui.text import wrap, wrap_lines

#: GS-9: what a Gin Solitaire table's deals mean for its players (PROTOCOL.md §16), said in
#: the lobby before anyone plays. Duplicate is the default; its price is said plainly.
DEALS_WORDS = {
    "duplicate": "Same cards for everyone (duplicate deals, GS-9): a player who is ahead of "
                 "you has already drawn your next cards — someone with two seats, or a friend "
                 "who finished first, knows them. The host can give each seat its own cards "
                 "instead: host --deals independent",
    "independent": "Each seat gets its own cards (independent deals, GS-9), from the same "
                   "secret deal: nobody else's cards tell yours, and the results compare luck "
                   "as well as play",
}


def option_word(value: Any) -> str:
    """A host option's value as the lobby says it: a switch is on or off."""
    if value is True:
        return "on"
    if value is False:
        return "off"
    return str(value)


def lobby(ctl: TableFacts, width: int, height: int = 99) -> Fragments:
    """The game, its rounds and options, and every seat (in two columns when many)."""
    cfg = ctl.client.config
    options = ", ".join(f"{k} {option_word(v)}"
                        for k, v in cfg.get("options", {}).items()) or "none"
    said = wrap_lines(f"Lobby  {cfg.get('game', '')} · {rounds_text(ctl.client)} · "
                      f"options: {options}", width - 1, " ", "   ")
    out = line(("class:me", " Lobby"), ("class:dim", said[0][len(" Lobby"):]))
    for row in said[1:]:
        out += line(("class:dim", row))
    if cfg.get("seeded"):  # §22: a seed deals the same cards to anyone who knows it
        out += wrap("Deals come from a fixed seed (--seed): not secret — anyone who knows "
                    "the seed knows every card", width, "class:warn")
    deals = cfg.get("options", {}).get("deals")
    if deals in DEALS_WORDS and (len(ctl.seats) > 1 or (cfg.get("players") or 1) > 1):
        out += wrap(DEALS_WORDS[deals], width, "class:warn" if deals == "duplicate" else "")
    rows = [seat_cell(ctl, i, seat) for i, seat in enumerate(ctl.seats)]
    if len(rows) > height - 2 and width >= 2 * 38:  # two columns: 20 seats on one page
        rows = [seat_cell(ctl, i, seat, short=True) for i, seat in enumerate(ctl.seats)]
        half = -(-len(rows) // 2)
        for a, b in zip(rows[:half], rows[half:] + [[]]):
            pad = width // 2 - sum(cells(t) for _, t in a)
            out += line(a, " " * max(1, pad), b)
        return out
    for row in rows:
        out += line(row)
    return out


def bot_tag(ctl: TableFacts, seat: dict[str, Any], short: bool = False) -> str:
    """What the lobby says beside a bot's name: "bot" (a level fixed as it sat down is in its
    name, "Ada L7"), or at ``play``, whose ``v`` changes its own bots' level, "bot, level 3"
    from the in-process table ("bot, L3" in two columns)."""
    ask = getattr(ctl.local, "level_of", None)
    level = ask(seat["name"]) if ask is not None else None
    if level is None:
        return "bot"
    return f"bot, L{level}" if short else f"bot, level {level}"


def seat_cell(ctl: TableFacts, i: int, seat: dict[str, Any], short: bool = False) -> Fragments:
    """One seat of the lobby: its name, whole (padded to the widest a name may be, so the
    tags line up), then captain · bot · ready · away (shorter in two columns: ``short``)."""
    tags = ["captain"] if i == ctl.captain_seat else []
    if seat.get("bot"):
        tags.append(bot_tag(ctl, seat, short))
    if ctl.phase == "lobby":  # at the countdown the arbiter clears them: no news
        tags.append("ready" if seat.get("ready") else "not ready")
    away = seat.get("status", "here") != "here"
    if away:
        tags.append(seat.get("status", ""))
    mark = "▶" if i == ctl.client.seat else " "
    style = ""
    if away:
        style = "class:away"
    elif i == ctl.client.seat:
        style = "class:me"
    return [("", f" {mark}{i + 1:>3}. "), (style, pad_name(ctl.name(i), NAME_CELLS) + " "),
            ("class:good" if seat.get("ready") else "class:dim", " · ".join(tags))]


def lobby_footer(ctl: TableFacts, width: int) -> Fragments:
    """Under the seats, on every page: the bots' level (``play``, when it seats bots: ``v``
    steps it 1 to 10 — in every game, since a level picks the strategy too) and who waits for
    whom."""
    out: Fragments = []
    local = ctl.local
    if local is not None and not ctl.spectator and ctl.speeds and \
            getattr(local, "level", None) is not None and any(s.get("bot") for s in ctl.seats):
        said = wrap_lines(f"v/V bots' level: {local.level} of 10 — {local.describe()}",
                          width - 1, " ", "   ")
        out += line(("class:key", " v/V"), said[0][len(" v/V"):])
        for more in said[1:]:
            out += line(("class:dim", more))
    url = getattr(local, "page_url", None) if local is not None else None
    if url and not ctl.spectator:  # (printed before the screen opened, and hidden by it)
        out += wrap(f"A browser on this computer can sit down too: {url} — for phones and "
                    "tablets on the Wi-Fi, host with: lan-demon host --lan", width, "class:dim")
    return out + wrap(waiting_text(ctl), width, "class:key")


def waiting_text(ctl: TableFacts) -> str:
    """Who waits for whom, in one sentence."""
    cap = ctl.captain_seat
    late = ctl.not_ready()
    if ctl.self_starting:
        want = ctl.client.config.get("players")
        return (f"The match starts by itself when {want} seats are filled and ready"
                + ("" if ctl.spectator else " — Enter says you are ready"))
    boss = f"{ctl.name(cap)} (captain)" if cap is not None else "the captain"
    if ctl.spectator:
        return f"Watching — waiting for {boss} to start"
    if ctl.captain:
        if late:
            return f"You are the captain: Enter starts — {not_ready_words(late)}"
        return "You are the captain: Enter starts the match"
    seat = ctl.seats[ctl.client.seat] if ctl.client.seat < len(ctl.seats) else {}
    if seat.get("ready"):
        return f"You are ready. Waiting for {boss} to start"
    return f"Enter says you are ready. Waiting for {boss} to start"


def next_speed(ctl: TableFacts, step: int = 1) -> str:
    """``v`` in ``play``'s lobby: the bots' next level (``V``, ``step`` −1: the one before, so
    stepping back one is not a round of all ten), set on the local table; its label."""
    names = list(ctl.speeds)
    now = getattr(ctl.local, "speed", names[0])
    name = names[(names.index(now) + step) % len(names)] if now in names else names[0]
    ctl.local.set_speed(name)
    return name
