"""``face(seat)``: everything a seat is shown, as one JSON-able dict — what the page draws.

The web gateway sends it after every change; a test can snapshot it. Its fields are listed in
``docs/page-protocol.md`` (the contract between the gateway and the page shipped with it).
It holds public cards and this seat's own only — exactly the seat's redacted view, as the
terminal shows it — and computes nothing the engine does not: what is legal, lit or scored
comes from the seat, which asks the engine. Making a face changes no state.

Cards are the protocol's codes without an owner ("QS", "TH"); a hidden card is "??".
"""

from __future__ import annotations

from typing import Any

from lan_demon.seat import evening
from lan_demon.seat.acts import TABLE_KEYS, key_help, key_map
from lan_demon.seat.scores import score_data
from lan_demon.seat.words import code_card


def plain(code: str | None) -> str | None:
    """A view's card code without its owner (``5H@2`` → ``5H``)."""
    card = code_card(code)
    return None if card is None else card.code


def owner(code: str | None) -> int | None:
    card = code_card(code)
    return None if card is None or card.owner < 0 else card.owner


def face(seat: Any) -> dict[str, Any]:
    """The whole face of ``seat`` (see the module's docstring)."""
    client = seat.client
    game = client.game
    phase = seat.phase
    gone = seat.gone
    line, banner, question = seat.line, seat.banner, seat.question()
    return {
        "game": game.id if game is not None else None,
        "title": title(seat),
        "phase": phase,
        "you": None if seat.spectator else client.seat,
        "spectator": seat.spectator,
        "captain": seat.captain,
        "seats": [{"seat": i, "name": seat.name(i), "bot": bool(s.get("bot")),
                   "ready": bool(s.get("ready")),
                   "status": s.get("status", "here"), "captain": i == seat.captain_seat,
                   "you": i == client.seat and not seat.spectator}
                  for i, s in enumerate(seat.seats)],
        "ping": seat.ping_text(),
        "line": None if line is None else {"words": line.words, "rule": line.rule,
                                           "kind": line.kind},
        "line_id": line.id if line is not None else 0,
        "banner": None if banner is None or phase not in ("between", "over") else
        {"words": banner.words, "id": banner.id},
        "alarms": list(seat.alarms),
        "paused": evening.pause_words(seat),  # §24: who paused, who resumes
        "away": evening.away_lines(seat),  # "Bob away 1:23 — seat kept 3:37 more"
        "removed": evening.removed_text(seat.removed_by.get("by_name", "the host"),
                                        seat.removed_by)
        if seat.removed_by else None,
        "notes": [text for _, text in seat.deal_notes],
        "deal": deal_check(seat),
        "question": None if question is None else {
            "words": question.words, "yes": question.yes, "no": question.no,
            "yes_label": question.yes_label, "no_label": question.no_label,
            **({"other": question.other, "other_label": question.other_label}
               if question.other is not None else {})},
        "countdown": seat.countdown(),
        "waiting_for": [] if phase not in ("lobby", "between") else waiting_for(seat),
        "state": connection_state(seat),
        "gone": gone,
        "acts": acts(seat),
        "keys": key_map(seat),
        "key_help": key_list(seat),
        "table": table(seat) if phase == "playing" else None,
        "scores": score_data(seat) if phase in ("between", "over") else None,
        "review": review(seat) if phase in ("between", "over") else None,
        **hint(seat, phase),
    }


def title(seat: Any) -> str:
    """"Racing Demon — round 2 of 5": the round just played between rounds and at the end."""
    client = seat.client
    name = client.game.title if client.game is not None else "lan_demon"
    if seat.phase in ("between", "over"):
        rnd = client.scores.played or 1
    else:
        rnd = client.table.get("round", 0) + 1
    rounds = client.config.get("rounds") or (client.game.default_rounds()
                                             if client.game is not None else None)
    return f"{name} — round {rnd}" + (f" of {rounds}" if rounds else "")


def connection_state(seat: Any) -> str:
    """Whether the seat is at its table: ``gone``, ``reconnecting``, ``closed`` or ``ok``."""
    if seat.gone:
        return "gone"
    if seat.reconnecting:
        return "reconnecting"
    if seat.client.table.get("closed"):
        return "closed"
    return "ok"


def waiting_for(seat: Any) -> list[str]:
    """The present people who have not said ready (this seat too)."""
    return [seat.name(i) for i, s in enumerate(seat.seats)
            if not s.get("bot") and not s.get("ready") and s.get("status", "here") == "here"]


def not_checked_words(seen: Any) -> str:
    """Why this screen could not check a round's deal (§22), from what its witness saw of the
    round (None: nothing at all)."""
    if seen is not None and seen.why:
        why = seen.why
    elif seen is not None and seen.announced:
        why = "this screen missed the round's end"
    else:
        why = "this screen never saw what the host promised for it"
    return f"this round's deal was NOT checked by this screen: {why}"


def deal_check(seat: Any) -> dict[str, str] | None:
    """What this seat's check of the last round's deal found (§22), as on the terminal:
    checked, NOT checked with why, or DEAL CHECK FAILED; None before any round ended."""
    client = seat.client
    if any(a.startswith("DEAL CHECK FAILED") for a in seat.alarms):
        return {"verdict": "DEAL CHECK FAILED", "words": seat.alarms[0]}
    witness = getattr(client, "witness", None)
    if witness is None or not client.scores.results:
        return None
    last = client.scores.played - 1
    if witness.outcome(last) != "ok":
        return {"verdict": "not checked", "words": not_checked_words(witness.rounds.get(last))}
    if client.config.get("seeded"):
        return {"verdict": "checked", "words": "this round's deal came from a fixed seed "
                                               "(--seed): checked, but not secret"}
    return {"verdict": "checked", "words": "this round's deal was checked: the one the host "
                                           "promised before Go"}


def acts(seat: Any) -> list[dict[str, Any]]:
    """The buttons offered now (besides the game's own taps on the table)."""
    phase = seat.phase
    out: list[dict[str, Any]] = []
    if seat.question() is not None or seat.gone:
        return [{"do": "leave", "sure": True, "label": "Leave", "key": "q"}] if seat.gone \
            else []
    me = seat.seats[seat.client.seat] if not seat.spectator and \
        seat.client.seat < len(seat.seats) else {}
    if not seat.spectator and not seat.reconnecting:
        if phase == "lobby" and seat.captain and not seat.self_starting:
            out.append({"do": "start", "label": "Start the match", "key": "enter"})
        elif phase in ("lobby", "between") and not me.get("ready"):
            out.append({"do": "ready", "label": "I'm ready", "key": "enter"})
        elif phase == "playing" and not evening.paused(seat):
            out += game_acts(seat)
        out += evening.acts(seat)
    out.append({"do": "leave", "label": "Leave", "key": "q"})
    return out


def key_list(seat: Any) -> list[list[str]]:
    """The keys a keyboard on the page has now, as the terminal lists them (the same order and
    words, acts.key_help): the game's while a round is played, then leaving."""
    keys = [] if seat.spectator or seat.phase != "playing" else \
        key_help(type(seat.game).__name__)
    return [[k.key, k.words] for k in keys + TABLE_KEYS if k.page]


def game_acts(seat: Any) -> list[dict[str, Any]]:
    kind = type(seat.game).__name__
    if kind == "DemonSeat":
        return [{"do": "turn", "label": "Turn the Pack", "key": "space"},
                {"do": "stuck", "label": "Stuck", "key": "s"}]
    if kind == "RackOSeat":
        game = seat.game
        view = seat.client.view()
        out = [{"do": "draw", "label": "Draw", "key": "n"}]
        if game.holding(view):
            out = [{"do": "discard", "label": "Discard it", "key": "x"}]
        elif game.awaiting_slot(view):
            out = [{"do": "cancel", "label": "Cancel", "key": "escape"}]
        if game.coach is not None:
            out.append({"do": "hint", "label": "Hint", "key": "h"})
        return out
    if kind == "GinSeat":
        view = seat.client.view()  # Draw only when a draw is due (GS-4), not beside a discard
        out = [{"do": "draw", "label": "Draw", "key": "n"}] if (view or {}).get("phase") in \
            ("draw", None) else []
        lay = seat.game.layout() if view else None
        if lay is not None and lay.big_gin:
            out.append({"do": "big_gin", "label": "Big Gin", "key": "B"})
        if seat.game.coach is not None:
            out.append({"do": "hint", "label": "Hint", "key": "h"})
        return out
    return []


def review(seat: Any) -> list[str] | None:
    """The coach's review of the round just played (Racing Demon)."""
    made = getattr(seat.game, "review", None)
    if made is None or seat.spectator:
        return None
    head, *said = made.review().lines(2, whose="your", brief=True)
    return [head, *said]


def hint(seat: Any, phase: str) -> dict[str, Any]:
    """The coach's advice (:mod:`lan_demon.seat.advice`): ``hint`` its plain words,
    ``hint_numbers`` the figures behind it once asked for ("why? numbers", the ``why`` act),
    ``hint_why`` whether it has figures to ask for."""
    shown = getattr(seat.game, "advice_shown", None)
    said = shown(seat.client.view()) if shown is not None and phase == "playing" else None
    if said is None:
        return {"hint": None, "hint_numbers": None, "hint_why": False}
    return {"hint": said.words, "hint_numbers": said.numbers, "hint_why": said.has_numbers}


def table(seat: Any) -> dict[str, Any] | None:
    """The game's own part: public cards and this seat's own only."""
    view = seat.client.view()
    if view is None:
        return None
    kind = type(seat.game).__name__
    if kind == "DemonSeat":
        return demon_table(seat, view)
    if kind == "RackOSeat":
        return racko_table(seat, view)
    return gin_table(seat, view)


def demon_table(seat: Any, view: dict[str, Any]) -> dict[str, Any]:
    from lan_demon.games.demon_scoring import running_score
    from lan_demon.seat.demon import SOURCES
    game = seat.game
    you = None if seat.spectator else seat.client.seat
    lit_sources, lit_stacks = game.fits() if you is not None else (set(), set())
    german = view["game"] == "racing-demon-german"
    out: dict[str, Any] = {
        "stacks": [{"id": st["id"], "top": plain(st["top"]), "owner": owner(st["top"]),
                    "count": st.get("size"), "lit": st["id"] in lit_stacks}
                   for st in view["stacks"]],
        "me": None, "others": [], "rotations": view.get("rotations", 0), "german": german}
    players = view["players"]
    if you is not None:
        me = players[you]
        out["me"] = {
            "pile_top": plain(me["pile_top"]), "pile_count": me["pile"],
            "waste_top": plain(me.get("waste_top")), "waste_count": me["waste"],
            "pack_count": me["pack"], "columns": [[plain(c) for c in col]
                                                  for col in me["columns"]],
            "score_so_far": running_score(me, german), "voted": me["voted"],
            "lit": sorted(lit_sources),
            "places": {source: [{"to": m.target, "count": m.count,
                                 "words": game.place_words(m)} for m in game.places(source)]
                       for source in SOURCES},
            "pending": len(seat.client.pending)}
    n = len(players)
    start = 0 if you is None else you + 1
    for k in range(n):
        i = (start + k) % n
        if i == you:
            continue
        p = players[i]
        status = seat.seats[i].get("status", "here") if i < len(seat.seats) else "here"
        out["others"].append({"seat": i, "name": seat.name(i), "pile_top": plain(p["pile_top"]),
                              "pile_count": p["pile"],
                              "columns_tops": [plain(col[-1]) if col else None
                                               for col in p["columns"]],
                              "voted": p["voted"], "out": p["out"], "status": status})
    return out


def racko_table(seat: Any, view: dict[str, Any]) -> dict[str, Any]:
    from lan_demon.games.racko import SLOTS, ascending_prefix
    game = seat.game
    rack = view.get("rack")
    held = view.get("held")
    totals = seat.client.scores.totals() + [0] * view["players"]  # (none before a round ends)
    return {"rack": rack, "slots": list(SLOTS), "in_order": ascending_prefix(rack) if rack
            else 0, "discard_top": view["discard_top"], "draw_count": view["draw_size"],
            "held": None if held is None or held < 1 else held, "turn": view["turn"],
            "turn_name": seat.name(view["turn"]), "your_turn": game.mine(view),
            "source": game.source if game.awaiting_slot(view) else None,
            "prompt": game.prompt(view), "over": view["over"], "deck": view["deck_size"],
            "others": [{"seat": i, "name": seat.name(i), "total": totals[i],
                        "stood_in": game.stood_in.get(i)} for i in range(view["players"])
                       if i != seat.client.seat]}


def gin_table(seat: Any, view: dict[str, Any]) -> dict[str, Any]:
    from lan_demon.seat.gin import phase_text, result_text
    game = seat.game
    others = [{"seat": s["seat"], "name": seat.name(s["seat"]),
               "state": (s.get("result") or {}).get("result") or s["phase"],
               "draw": s.get("draw")} for s in view.get("seats", [])
              if s["seat"] != seat.client.seat]
    if seat.spectator or "hand" not in view:
        return {"hand": None, "others": others}
    lay = game.layout(view)
    meld_of = {}  # card -> the index of the meld it is in
    for k, (kind, cards) in enumerate(lay.groups):
        if kind == "meld":
            meld_of.update((c, k) for c in cards)
    drawn = game.drawn if game.drawn in lay.letters and view["phase"] == "discard" else None
    return {"hand": [{"card": c.code, "letter": lay.letters.get(c), "meld": meld_of.get(c),
                      "group": kind} for kind, cards in lay.groups for c in cards],
            "unknown": lay.unknown, "drawn": drawn.code if drawn else None,
            "phase": view["phase"], "phase_words": phase_text(view["phase"]),
            "prompt": game.prompt(view, lay),
            "deadwood": lay.points, "best_discard": lay.discard.code if lay.discard else None,
            "draw_count": view.get("draw"), "discards": view.get("discards"),
            "can_knock": lay.points is not None and lay.points <= 10 and
            view["phase"] == "discard", "big_gin": lay.big_gin,
            "result": result_text(view.get("result")) if view["phase"] == "over" else None,
            "others": others}
