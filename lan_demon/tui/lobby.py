"""The lobby: the game and its options, every seat (who, captain, bot, ready, away), the bots'
speed at ``lan-demon play``, and who waits for whom."""

from __future__ import annotations

from typing import Any

from lan_demon.tui.facts import TableFacts
from lan_demon.tui.scores import rounds_text
from lan_demon.tui.style import Fragments, line
from lan_demon.tui.text import names_list, wrap


def lobby(ctl: TableFacts, width: int, height: int = 99) -> Fragments:
    """The game, its rounds and options, and every seat (in two columns when many)."""
    cfg = ctl.client.config
    options = ", ".join(f"{k} {'on' if v is True else 'off' if v is False else v}"
                        for k, v in cfg.get("options", {}).items()) or "none"
    out = line(("class:me", " Lobby"), ("class:dim", f"  {cfg.get('game', '')} · "
                                        f"{rounds_text(ctl.client)} · options: {options}"))
    if cfg.get("seeded"):  # §22: a seed deals the same cards to anyone who knows it
        out += wrap("Deals come from a fixed seed (--seed): not secret — anyone who knows "
                    "the seed knows every card", width, "class:warn")
    cells = [seat_cell(ctl, i, seat, 22) for i, seat in enumerate(ctl.seats)]
    if len(cells) > height - 2 and width >= 2 * 38:  # two columns: 20 seats on one page
        cells = [seat_cell(ctl, i, seat, 12) for i, seat in enumerate(ctl.seats)]
        half = -(-len(cells) // 2)
        for a, b in zip(cells[:half], cells[half:] + [[]]):
            pad = width // 2 - sum(len(t) for _, t in a)
            out += line(a, " " * max(1, pad), b)
        return out
    for cell in cells:
        out += line(cell)
    return out


def seat_cell(ctl: TableFacts, i: int, seat: dict[str, Any], name_width: int) -> Fragments:
    """One seat of the lobby: who, and captain · bot · ready · away."""
    tags = ["captain"] if i == ctl.captain_seat else []
    if seat.get("bot"):
        tags.append("bot")
    if ctl.phase == "lobby":  # at the countdown the arbiter clears them: no news
        tags.append("ready" if seat.get("ready") else "not ready")
    away = seat.get("status", "here") != "here"
    if away:
        tags.append(seat.get("status", ""))
    mark = "▶" if i == ctl.client.seat else " "
    style = "class:away" if away else "class:me" if i == ctl.client.seat else ""
    name = seat["name"].replace(" (bot)", "") if name_width < 20 else seat["name"]
    if len(name) > name_width:
        name = name[: name_width - 1] + "…"
    return [("", f" {mark}{i + 1:>3}. "), (style, f"{name:<{name_width}} "),
            ("class:good" if seat.get("ready") else "class:dim", " · ".join(tags))]


def lobby_footer(ctl: TableFacts, width: int) -> Fragments:
    """Under the seats, on every page: the bots' speed and who waits for whom."""
    out: Fragments = []
    if ctl.local is not None and not ctl.spectator:
        out += line(("class:key", " v"), f" bots' speed: {ctl.local.speed}",
                    ("class:dim", f"  ({', '.join(ctl.speeds)})"[: max(0, width - 24)]))
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
            verb = "is" if len(late) == 1 else "are"
            return (f"You are the captain: Enter starts — {names_list(late)} {verb} "
                    "not ready yet")
        return "You are the captain: Enter starts the match"
    seat = ctl.seats[ctl.client.seat] if ctl.client.seat < len(ctl.seats) else {}
    if seat.get("ready"):
        return f"You are ready. Waiting for {boss} to start"
    return f"Enter says you are ready. Waiting for {boss} to start"
