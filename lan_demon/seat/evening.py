"""The evening as a seat is told it and may run it (PROTOCOL.md §24), decided once for every
screen: who paused the table and who may resume it, each away seat's time counted out loud
("Bob away 1:23 — seat kept 3:37 more"), a seat removed, and the captain's intents — pause,
resume, remove — with the one question a removal asks first.

Why here: the terminal and the page must say the same words and offer the same acts; each
screen only draws them (its keys, colours and widths are its own). Plain functions of a
:class:`~lan_demon.seat.seat.Seat`; nothing here knows a socket.
"""

from __future__ import annotations

from typing import Any

from lan_demon.net.evening import PAUSE_LIMIT
from lan_demon.net.handover import DEFAULT_LEVEL as BOT_LEVEL, HIGHEST, LOWEST
from lan_demon.net.names import level_name
from lan_demon.net.seats import TOKEN_LIFE
from lan_demon.seat.events import Evening
from lan_demon.seat.outcomes import Question

RUNNING = ("countdown", "playing", "between")  # the phases a pause stops (net/evening.py)


def clock(seconds: float) -> str:
    """1:23 — minutes and seconds, as every screen counts a pause or an away seat."""
    whole = max(0, int(seconds))
    return f"{whole // 60}:{whole % 60:02d}"


def away_words(name: str, kept: float) -> str:
    """"Bob away 1:23 — seat kept 3:37 more": an away seat's time, said out loud."""
    return f"{name} away {clock(TOKEN_LIFE - kept)} — seat kept {clock(kept + 0.999)} more"


# --- facts -------------------------------------------------------------------------------------


def paused(seat: Any) -> dict[str, Any] | None:
    """``{by, name}`` of the pause in force, or None while the table runs."""
    return seat.client.table.get("paused") or None


def paused_for(seat: Any) -> float:
    """Seconds the table has stood still (0 while it runs)."""
    since = getattr(seat.client, "paused_since", None)
    return 0.0 if since is None or not paused(seat) else max(0.0, seat.client.clock() - since)


def stalled(seat: Any) -> dict[str, Any] | None:
    """``{why, since}`` while the host's journal cannot be written and the table stands
    still (PROTOCOL.md §25), else None."""
    return seat.client.table.get("stall") or None


#: Why the table stands, as every screen says it (the ``stall`` notice's ``why``).
STALL_WHY = {
    "disk_full": "the host's disk is full: the table waits until there is room",
    "read_only": "the host's disk will not take the journal: the table waits until it does",
    "io_error": "the host's disk fails to write the journal: the table waits until it can",
}


def stall_words(seat: Any, with_clock: bool = True) -> str | None:
    """What every screen says while the table stands for the host's disk."""
    now = stalled(seat)
    if now is None:
        return None
    why = STALL_WHY.get(now.get("why"), STALL_WHY["io_error"])
    words = why[:1].upper() + why[1:]
    if not with_clock:
        return words
    stood = max(0.0, seat.client.clock() - now.get("since", seat.client.clock()))
    return f"{words} ({clock(stood)}) — no move is taken and every clock stands still; the " \
           "table goes on by itself once it can"


def may_pause(seat: Any) -> bool:
    return (seat.captain and not seat.spectator and seat.phase in RUNNING
            and paused(seat) is None and not seat.reconnecting and stalled(seat) is None)


def may_resume(seat: Any) -> bool:
    """The captain, whoever paused, or any person seated once the table stood 10 minutes."""
    now = paused(seat)
    if now is None or seat.spectator or seat.reconnecting or stalled(seat) is not None:
        return False
    return seat.captain or now.get("by") == seat.client.seat or \
        paused_for(seat) >= PAUSE_LIMIT


def removable(seat: Any) -> int | None:
    """The seat the captain is offered to remove: the one away longest (the fewest seconds
    still kept), never the captain's own, never one removed or gone already."""
    if not seat.captain or seat.spectator or seat.reconnecting:
        return None
    kept = [(seat.client.kept(i), i) for i in range(len(seat.seats))
            if i != seat.client.seat and not seat.seats[i].get("removed")]
    away = sorted((k, i) for k, i in kept if k is not None)
    return away[0][1] if away else None


# --- words ---------------------------------------------------------------------------------------


def pause_words(seat: Any) -> str | None:
    """What every screen says while the table is paused: who paused it and who resumes it
    (``how``: the screen's way to say a key or a button)."""
    stall = stall_words(seat)
    if stall is not None:  # (§25: the host's disk, before anyone's pause)
        return stall
    now = paused(seat)
    if now is None:
        return None
    who = "You" if now.get("by") == seat.client.seat and not seat.spectator else now["name"]
    who = who[:1].upper() + who[1:]
    head = f"{who} paused the table {clock(paused_for(seat))} ago — every clock stands still"
    if may_resume(seat):
        return f"{head}; {seat.how('P resumes it', 'press Resume the table to go on')}"
    limit = int(PAUSE_LIMIT // 60)
    return f"{head}; the captain or the host resumes it (anyone may after {limit} minutes)"


def paused_refusal(seat: Any) -> str:
    """A move refused at a paused table, said once: who paused it, without a clock (a line
    that stays on the screen would show a time that no longer ticks beside the banner's)."""
    stall = stall_words(seat, with_clock=False)
    if stall is not None:
        return stall
    now = paused(seat)
    return "the table is paused" if now is None else notice_words(seat, "pause", now)


def away_lines(seat: Any) -> list[str]:
    """Every other seat away, its time counted out loud, the one away longest first."""
    rows = []
    for i in range(len(seat.seats)):
        kept = seat.client.kept(i)
        if kept is not None and i != seat.client.seat and not seat.seats[i].get("removed"):
            rows.append((kept, away_words(seat.name(i), kept)))
    return [words for _, words in sorted(rows)]


def notice_words(seat: Any, kind: str, data: dict[str, Any]) -> str:
    """The line said when the table is paused, resumed, or a seat removed."""
    if kind == "stall":
        why = STALL_WHY.get(data.get("why"), STALL_WHY["io_error"])
        return why[:1].upper() + why[1:]
    if kind == "stall_over":
        return f"The host's disk takes the journal again after {clock(data.get('stood', 0))}: " \
               "play on"
    me = seat.client.seat if not seat.spectator else None
    who = "you" if data.get("by") == me else data.get("name", "the host")
    if kind == "pause":
        return f"{who[:1].upper() + who[1:]} paused the table: nothing moves until it resumes"
    if kind == "resume":
        return f"{who[:1].upper() + who[1:]} resumed the table after " \
               f"{clock(data.get('paused', 0))}: play on"
    by = "you" if data.get("by") == me else data.get("by_name", "the host")
    if data.get("seat") == me:
        return removed_text(by, data)
    if data.get("bot") is not None:
        return f"{by[:1].upper() + by[1:]} handed {data.get('name')}'s seat to a bot, level " \
               f"{data['bot']}: it plays on as {data.get('new_name')}"
    return f"{by[:1].upper() + by[1:]} removed {data.get('name')} from the table: their cards " \
           "stay and score, and they cannot come back"


def removed_text(by: str, data: dict[str, Any] | None = None) -> str:
    """What the removed player's own screen says, now and if they come back; ``data`` the
    ``removed`` update (with ``bot``: the seat was handed to a bot)."""
    watch = "You may watch: join again with --spectate (on the page: Watch)"
    if data and data.get("bot") is not None:
        return f"{by[:1].upper() + by[1:]} handed your seat to a bot, level {data['bot']}: it " \
               f"plays on as {data.get('new_name')}, and the score stays the seat's. {watch}"
    return f"{by[:1].upper() + by[1:]} removed you from the table: the match goes on without " \
           f"your seat, and your score so far stays in it. {watch}"


def heard(seat: Any, kind: str, data: dict[str, Any]) -> list[Any]:
    """A pause, resume or removed notice: said to this seat, as the event every screen gets
    (a removal of our own seat kept for the screens to say; a question about it dropped)."""
    if kind == "removed" and data.get("seat") == seat.client.seat:
        seat.removed_by = data
    elif kind == "removed" and data.get("bot") is not None:
        _handed(seat).add(data.get("seat"))
    if seat.confirm == f"remove:{data.get('seat')}":
        seat.confirm = None
    text = seat.say(notice_words(seat, kind, data), read=True).words
    return [Evening(text, None, kind, data.get("seat", -1), data.get("by", -1))]


def kept_seat(seat: Any, question: str | None) -> None:
    """No to "Remove Bob?" (``question`` the seat's dismissed one): said so."""
    if (question or "").startswith("remove:"):
        seat.say(f"{seat.name(int(question.split(':')[1]))} keeps their seat")


def gone(seat: Any, index: int) -> bool:
    """Seat ``index`` was removed (its presence "left" says nothing the removal did not)."""
    return 0 <= index < len(seat.seats) and bool(seat.seats[index].get("removed"))


def unsaid(seat: Any, index: int, status: Any) -> bool:
    """A presence not worth a line: of a seat removed, or the "away" then "here" of a seat just
    handed to a bot — "Bob L3 is back" would cover "Ann handed Bob's seat to a bot" at once,
    and says less."""
    if gone(seat, index):
        return True
    handed = _handed(seat)
    if index in handed and status in ("away", "here"):
        if status == "here":
            handed.discard(index)
        return True
    return False


def _handed(seat: Any) -> set[int]:
    """The seats handed to a bot whose bot has not sat down yet, as this seat heard it."""
    if not hasattr(seat, "handed_quiet"):
        seat.handed_quiet = set()
    return seat.handed_quiet


# --- intents (the page's acts and the terminal's keys) -------------------------------------------


def pause(seat: Any) -> Any:
    if not may_pause(seat):
        return seat.refuse("only the captain pauses the table, while a match runs"
                           if paused(seat) is None else "the table is paused already")
    seat.client.pause()
    seat.say("pausing the table…")
    return None


def resume(seat: Any) -> Any:
    if not may_resume(seat):
        return seat.refuse("the table is not paused" if paused(seat) is None else
                           pause_words(seat) or "")
    seat.client.resume()
    seat.say("resuming the table…")
    return None


def remove(seat: Any, index: Any, sure: bool = False, bot: Any = None) -> Any:
    """Remove seat ``index`` — the captain only; asked first (it cannot be undone). ``bot``: a
    level, to hand the seat to a bot of it instead (net/handover.py)."""
    if not seat.captain or seat.spectator:
        return seat.refuse("only the captain (or the host) removes a seat")
    if isinstance(index, bool) or not isinstance(index, int) or \
            not 0 <= index < len(seat.seats) or index == seat.client.seat:
        return seat.refuse("remove which seat? one of the others at the table")
    if bot is not None and (isinstance(bot, bool) or not isinstance(bot, int) or
                            not LOWEST <= bot <= HIGHEST):
        return seat.refuse(f"a bot's level is a whole number from {LOWEST} to {HIGHEST}")
    if not sure:
        seat.confirm = f"remove:{index}"
        return None
    seat.confirm = None
    if bot is not None:
        seat.client.remove(index, bot=bot)
        seat.say(f"handing {seat.name(index)}'s seat to a bot, level {bot}…")
        return None
    seat.client.remove(index)
    seat.say(f"removing {seat.name(index)}…")
    return None


def question(seat: Any) -> Question | None:
    """The removal's question, while it waits for its answer."""
    if not (seat.confirm or "").startswith("remove:"):
        return None
    index = int(seat.confirm.split(":")[1])
    kept = seat.client.kept(index)
    away = f", away {clock(TOKEN_LIFE - kept)}" if kept is not None else ""
    name = seat.name(index)
    if seat.seats[index].get("bot"):  # (a bot's seat is not handed to another bot)
        return Question(f"Remove {name}{away}? Their cards stay and score; they cannot come "
                        "back to this match", {"do": "remove", "seat": index, "sure": True},
                        {"do": "dismiss"}, "Remove", "Keep")
    return Question(f"{name}{away}: remove them (their cards stay and score), or let a bot "
                    f"play on for them as {level_name(name, BOT_LEVEL)}? Either way they "
                    "cannot come back to this match",
                    {"do": "remove", "seat": index, "sure": True}, {"do": "dismiss"},
                    "Remove", "Keep",
                    {"do": "remove", "seat": index, "sure": True, "bot": BOT_LEVEL},
                    f"A bot plays on (level {BOT_LEVEL})")


def acts(seat: Any) -> list[dict[str, Any]]:
    """The buttons the evening adds for this seat now (the captain's)."""
    out = []
    if may_resume(seat):
        out.append({"do": "resume", "label": "Resume the table", "key": "P"})
    elif may_pause(seat):
        out.append({"do": "pause", "label": "Pause the table", "key": "P"})
    gone = removable(seat)
    if gone is not None:
        out.append({"do": "remove", "seat": gone, "label": f"Remove {seat.name(gone)}",
                    "key": "R"})
    return out


def keys(seat: Any) -> dict[str, dict[str, Any]]:
    """The terminal's keys the evening adds, as intents (the page's keyboard does the same)."""
    return {a["key"]: {k: v for k, v in a.items() if k not in ("label", "key")}
            for a in acts(seat)}
