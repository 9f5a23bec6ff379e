"""The lobby: the game and its options, every seat (who, captain, bot and its level, ready,
away), the bots' level at ``lan-demon play``, and who waits for whom.

A bot's level reaches a lobby in one of two ways, neither a field of the protocol: at
``lan-demon play`` the in-process table knows its own bots' level (``local.level_of(name)``,
changed by ``v``); any other bot seated with a level says it in its name, "Ada L7 (bot)"
(:func:`lan_demon.bots.levels.bot_name`), which :func:`split_level` reads back.
"""

from __future__ import annotations

from typing import Any

from lan_demon.net.cells import cells, pad
from lan_demon.seat.seat import not_ready_words
from lan_demon.tui.facts import NAME_CELLS, TableFacts, split_level
from lan_demon.tui.scores import rounds_text
from lan_demon.tui.style import Fragments, line, text_of
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


def lobby(ctl: TableFacts, width: int, height: int = 99) -> Fragments:
    """The game, its rounds and options, and every seat (in two columns when many)."""
    cfg = ctl.client.config
    options = ", ".join(f"{k} {'on' if v is True else 'off' if v is False else v}"
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
    rows = [seat_cell(ctl, i, seat, 22) for i, seat in enumerate(ctl.seats)]
    if len(rows) > height - 2 and width >= 2 * 38:  # two columns: 20 seats on one page
        rows = [seat_cell(ctl, i, seat, NAME_CELLS) for i, seat in enumerate(ctl.seats)]
        half = -(-len(rows) // 2)
        for a, b in zip(rows[:half], rows[half:] + [[]]):
            pad = width // 2 - cells(text_of(a))
            out += line(a, " " * max(1, pad), b)
        return out
    cells_ = rows
    for cell in cells_:
        out += line(cell)
    return out


def bot_level(ctl: TableFacts, seat: dict[str, Any]) -> tuple[str, int | None]:
    """A bot seat's name to show and its level: ``play``'s own bots' from the local table (it
    changes with ``v``), any other's from the mark in its name."""
    name, level = split_level(seat["name"])
    ask = getattr(ctl.local, "level_of", None)
    known = ask(seat["name"]) if ask is not None else None
    return name, known if known is not None else level


def seat_cell(ctl: TableFacts, i: int, seat: dict[str, Any], name_width: int) -> Fragments:
    """One seat of the lobby: who, and captain · bot (its level) · ready · away."""
    tags = ["captain"] if i == ctl.captain_seat else []
    name = seat["name"]
    if seat.get("bot"):
        name, level = bot_level(ctl, seat)
        level_tag = f"level {level}" if name_width >= 20 else f"L{level}"  # two columns: short
        # "Ada (bot)   level 2", not "Ada (bot)   bot, level 2": a name that says it is a bot
        # (and is shown whole) needs no second "bot"
        said = name_width >= 20 and name.endswith(" (bot)")
        bot = [] if said else ["bot"]
        tags.append(", ".join(bot + ([level_tag] if level is not None else [])) or "bot")
    if ctl.phase == "lobby":  # at the countdown the arbiter clears them: no news
        tags.append("ready" if seat.get("ready") else "not ready")
    away = seat.get("status", "here") != "here"
    if away:
        tags.append(seat.get("status", ""))
    mark = "▶" if i == ctl.client.seat else " "
    style = "class:away" if away else "class:me" if i == ctl.client.seat else ""
    name = name.replace(" (bot)", "") if name_width < 20 else name  # (its tags say bot)
    return [("", f" {mark}{i + 1:>3}. "), (style, pad(name, name_width) + " "),
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
    """``v`` in ``play``'s lobby: the bots' next level (``V``, ``step`` −1: the one before; a
    newcomer had to go round all ten to step back one), set on the local table; its label."""
    names = list(ctl.speeds)
    now = getattr(ctl.local, "speed", names[0])
    name = names[(names.index(now) + step) % len(names)] if now in names else names[0]
    ctl.local.set_speed(name)
    return name
