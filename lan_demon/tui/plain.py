"""The line-mode table (``join --plain``, ``play --plain``): one line per event, typed commands.

A grid that redraws is noise to a screen reader and a puzzle to a script, so this player prints
what happens as it happens, one line each, ``tag: words``, and never redraws: what was played
where and by whom, what you hold now (when it changes), whose turn it is, questions, refusals
with their rule, a round's end with its scores, the match's end. The tag is a stable word for
scripts (``said``, ``refused``, ``race``, ``play``, ``hold``, ``turn``, ``round``, ``scores``,
``seats``, ``question``, ``look``, ``help``, ``alarm``, ``note``, ``deal``, ``table``); the
words are the ones every screen shows, from the seat layer (:class:`~lan_demon.seat.seat.Seat`,
:func:`~lan_demon.seat.face.face`). Input is a typed line naming an intent of
:mod:`lan_demon.seat.acts` (``play c2``, ``take 25``, ``card QS``, ``ready``) or a key of the
terminal table (``p``, ``1``, ``space``); ``help`` lists what can be typed now, ``look`` says the
whole table once.
"""

from __future__ import annotations

import selectors
import sys
import time
from collections.abc import Callable
from typing import Any, TextIO

from lan_demon.net.client import Client
from lan_demon.seat import events as ev
from lan_demon.seat.acts import act, key_map
from lan_demon.seat.face import face
from lan_demon.seat.outcomes import Line
from lan_demon.seat.scores import score_data
from lan_demon.seat.seat import Seat
from lan_demon.seat.words import code_card

PUMP_EVERY = 0.01
SOURCE_WORDS = {"pile": "the Pile", "waste": "the waste", "c1": "column 1", "c2": "column 2",
                "c3": "column 3", "c4": "column 4"}

#: Every command, by game ("" for every game), with its words for ``help``.
COMMANDS: dict[str, list[tuple[str, str]]] = {
    "": [("ready", "say you are ready (the lobby, between rounds)"),
         ("start", "the captain starts the match"),
         ("yes / no", "answer the question asked"),
         ("pause / resume", "the captain stops every clock, or starts them again (§24)"),
         ("remove NAME|NUMBER", "the captain removes a seat that went away (asks first: yes "
                                "removes it, bot lets a bot play on)"),
         ("look", "say the whole table once"),
         ("help", "this list"),
         ("leave", "leave the table (asks first during a match)")],
    "demon": [("play SOURCE [PLACE]", "play the card of SOURCE (pile, waste, c1-c4) to its "
               "best place, or to PLACE (s3 a stack, middle a new one, c2 a column)"),
              ("turn", "turn the Pack (three cards to the waste)"),
              ("stuck", "vote stuck (RD-13)")],
    "racko": [("draw", "draw the top card of the Draw pile"),
              ("take SLOT", "take the Discard into SLOT (5, 10, ... 50)"),
              ("slot SLOT", "put the card you drew into SLOT"),
              ("discard", "discard the card you drew"),
              ("hint", "the coach's advice for this turn")],
    "gin": [("draw", "draw a card"),
            ("card CODE", "discard CODE (such as QS, 10H) — asks first"),
            ("knock CODE", "knock, discarding CODE (GS-6)"),
            ("big_gin", "call Big Gin"),
            ("hint", "the coach's advice for this turn")],
}

#: Typed words → intents whose arguments follow (the rest are taken as they are).
ALIASES = {"quit": "leave", "exit": "leave", "?": "help", "big": "big_gin",
           "bigin": "big_gin", "pass": "dismiss", "wait": "dismiss"}


def symbol(code: Any) -> str:
    """A card code (``5H@2``, ``QS``, a Rack-O number) as a player reads it: ``5♥``, ``42``."""
    if isinstance(code, int):
        return str(code)
    card = code_card(code) if isinstance(code, str) else None
    return card.symbol if card is not None else "—"


class PlainTable(Seat):
    """A seat that speaks in lines to ``out`` and takes typed commands (:meth:`command`)."""

    def __init__(self, client: Client, out: TextIO, coach: Any = None,
                 clock: Callable[[], float] = time.monotonic, local: Any = None):
        super().__init__(client, coach=coach, clock=clock, local=local)
        self.out = out
        client.tell_moves = True  # every move, to say it
        # the words name the terminal's keys, and a key typed on a line does what it does there
        self.keyed = True
        self.last: dict[str, str] = {}  # what was last said under a tag that repeats
        self.tops: dict[int, str] = {}  # Racing Demon: each stack's top card, by stack id
        self.tops_round: int | None = None  # the round those tops are of

    # --- saying -----------------------------------------------------------------------------

    def tell(self, tag: str, words: str) -> None:
        """One line: ``tag: words`` (no newline inside: a line is one event)."""
        self.out.write(f"{tag}: {' '.join(words.split())}\n")
        self.out.flush()

    def tell_once(self, tag: str, words: str) -> None:
        """Say ``words`` under ``tag`` unless it is what was last said there."""
        if words and self.last.get(tag) != words:
            self.last[tag] = words
            self.tell(tag, words)

    def heard(self, line: Line, read: bool) -> None:
        tag = {"refusal": "refused", "race": "race"}.get(line.kind, "said")
        self.tell(tag, line.words + (f" ({line.rule})" if line.rule else ""))

    # --- the table --------------------------------------------------------------------------

    def step(self) -> list[ev.Event]:
        """Pump the client and say what happened; the events."""
        events = self.pump()
        if any(isinstance(event, ev.Go) for event in events):
            self.tops = {}
            self.tops_round = self.client.table.get("round")
        elif self.phase == "playing":
            self.watch_stacks()
        for event in events:
            self.tell_event(event)
        self.tell_state()
        return events

    def tell_event(self, event: ev.Event) -> None:
        if isinstance(event, ev.Played):
            for words in self.move_words(event):
                self.tell("play", words)
        elif isinstance(event, ev.RoundEnd):
            self.tell("round", f"over: {event.words}")
            self.tell_scores(final=False)
        elif isinstance(event, ev.MatchEnd):
            self.tell_scores(final=True)
        elif isinstance(event, ev.KingClaimed):  # said already, unless over a refusal
            if self.line is None or self.line.words != event.words:
                self.tell("play", event.words + (f" ({event.rule})" if event.rule else ""))
        elif isinstance(event, (ev.Alarm, ev.StoodIn)):
            self.tell("alarm" if isinstance(event, ev.Alarm) else "play", event.words)
        elif isinstance(event, ev.DealNote):
            self.tell("note", event.words)
        elif isinstance(event, (ev.Reconnecting, ev.Gone, ev.Closed)):
            self.tell("table", event.words)

    def tell_state(self) -> None:
        """What changed since the last line: the phase, the seats in the lobby, the question
        waiting, whose turn it is, what you hold."""
        phase = self.phase
        self.tell_once("phase", phase)
        made = face(self)  # (once a step: what follows reads parts of it)
        if phase in ("lobby", "between"):
            self.tell_once("seats", self.seats_words(made))
        if phase in ("between", "over"):  # what this screen's check of the deal found (§22)
            deal = made["deal"]
            self.tell_once("deal", deal["words"] if deal else "")
        question = self.question()
        self.tell_once("question", "" if question is None else
                       f"{question.words} — yes: {question.yes_label}, no: {question.no_label}"
                       + (f", bot: {question.other_label}" if question.other else ""))
        if question is None:
            self.last.pop("question", None)
        if phase == "playing" and not self.spectator and not self.client.pending:
            self.tell_once("turn", self.turn_words())  # (a move in flight: not known yet)
            self.tell_once("hold", self.hold_words(made))

    def seats_words(self, made: dict[str, Any]) -> str:
        out = []
        for s in made["seats"]:
            # (a bot's name carries its level, "Ada L2": the arbiter's rule, on every screen)
            marks = [m for m, on in (("you", s["you"]), ("captain", s["captain"]),
                                     ("bot", s["bot"]), ("ready", s["ready"]),
                                     (s["status"], s["status"] != "here")) if on]
            out.append(s["name"] + (f" ({', '.join(marks)})" if marks else ""))
        return "; ".join(out)

    def tell_scores(self, final: bool) -> None:
        """The round's scores, best first, with the totals; at the match's end the totals
        and the winner (the scoreboard's rows, :func:`~lan_demon.seat.scores.score_data`)."""
        data = score_data(self)  # (not the face's: with no pause the next round has begun)
        if not data:
            return
        if final:
            rows = sorted(data["rows"], key=lambda r: r["total"],
                          reverse=not data["lower_is_better"])
            said = ", ".join(f"{r['name']} {r['total']}" for r in rows)
            winners = f"; winner: {', '.join(data['winners'])}" if data["winners"] else ""
            self.tell("scores", f"match over, totals: {said}{winners}")
            return
        rows = ", ".join(f"{r['name']} {r['score']:+d} (total {r['total']})"
                         for r in data["rows"])
        self.tell("scores", f"round {data['round']}: {rows}")

    # --- moves in words ---------------------------------------------------------------------

    def move_words(self, played: ev.Played) -> list[str]:
        """A move at the table, said as who did what where (nothing for the moves nobody
        sees: another seat turning its Pack or moving cards between its own columns)."""
        who = "you" if played.mine else self.name(played.seat)
        out = []
        for e in played.events:
            kind = e.get("e")
            if kind == "play":
                words = self.play_words(who, e)
                if words and (played.mine or not e.get("to", "").startswith("c")):
                    out.append(words)
            elif kind == "king":  # (said by the seat: KingClaimed, "Ann took the ♥ King")
                self.tops.pop(e.get("stack"), None)
            elif kind == "stuck":
                out.append(f"{who} voted stuck (RD-13)")
            elif kind == "rotate":
                continue  # the seat says the rotation itself
            elif kind == "take":
                out.append(f"{who} took {e.get('card')} from the Discard into slot "
                           f"{e.get('slot')}, discarding {e.get('out')}")
            elif kind == "place":
                out.append(f"{who} put the card drawn into slot {e.get('slot')}, discarding "
                           f"{e.get('out')}")
            elif kind == "discard" and "first" not in e:
                out.append(f"{who} discarded {e.get('card')}, the card drawn")
            elif kind == "discard":
                card = (e.get("private") or {}).get("card")
                out.append(f"{who} discarded" + (f" {symbol(card)}" if card else " a card"))
            elif kind == "draw":
                card = (e.get("private") or {}).get("card")
                out.append(f"{who} drew" + (f" {symbol(card)}" if card is not None else
                                            " a card"))
            elif kind == "racko":
                out.append(f"{who}: Rack-O! (RK-5)")
            elif kind in ("knock", "gin", "big-gin", "joker"):
                out.append(f"{who}: " + {"knock": "knocked (GS-6)", "gin": "Gin! (GS-6)",
                                         "big-gin": "Big Gin! (GS-6)",
                                         "joker": "drew the Joker (GS-7)"}[kind])
        return out

    def play_words(self, who: str, e: dict[str, Any]) -> str:
        """A card (or a run) played: from where, to a column or onto a stack's top card as
        this seat last saw it (stacks are named by their tops on every screen)."""
        cards = e.get("cards") or []
        where, source = e.get("to", ""), SOURCE_WORDS.get(e.get("from"), "?")
        said = " ".join(symbol(c) for c in cards)
        if where.startswith("c"):
            return f"{who}: {said} from {source} to column {where[1:]}"
        stack = int(where[1:]) if where[1:].isdigit() else None
        before = self.tops.get(stack)
        if stack is not None and cards:
            self.tops[stack] = cards[-1]
        if before is None and symbol(cards[0] if cards else None).startswith("A"):
            return f"{who}: {said} from {source}, starting a stack"
        onto = f"onto {symbol(before)}" if before is not None else "onto a stack"
        return f"{who}: {said} from {source} {onto}"

    def watch_stacks(self) -> None:
        """The stacks' tops as this seat knows them, from the view: at Go (none), and when
        this screen first sees a round (a rejoin) — then kept move by move."""
        view = self.client.view()
        if view is not None and "stacks" in view and self.tops_round != self.client.table.get(
                "round"):
            self.tops = {st["id"]: st["top"] for st in view["stacks"]}
            self.tops_round = self.client.table.get("round")

    def turn_words(self) -> str:
        """Whose turn it is (Rack-O: the prompt), "" where turns are not taken."""
        view = self.client.view()
        kind = type(self.game).__name__
        if view is None or kind != "RackOSeat" or "rack" not in view:
            return ""
        return self.game.prompt(view)

    def hold_words(self, made: dict[str, Any]) -> str:
        """What you hold now, in one line (from ``made``, the face every screen draws)."""
        t = made["table"]
        if not t:
            return ""
        if made["game"].startswith("racing-demon") and t.get("me"):
            me = t["me"]
            cols = " · ".join(f"{i}: {' '.join(symbol(c) for c in col) or 'empty'}"
                              for i, col in enumerate(me["columns"], 1))
            return (f"Pile {symbol(me['pile_top'])} ({me['pile_count']} left), waste "
                    f"{symbol(me['waste_top'])} ({me['waste_count']}), Pack "
                    f"{me['pack_count']}; columns {cols}; "
                    f"{'penalty' if t['german'] else 'score'} {me['score_so_far']}")
        if made["game"] == "racko" and t.get("rack"):
            rack = " ".join(f"{slot}:{card}" for slot, card in zip(t["slots"], t["rack"]))
            held = f"; you drew {t['held']}" if t["held"] else ""
            return f"rack {rack} ({t['in_order']} in order); Discard {t['discard_top']}{held}"
        if made["game"] == "gin-solitaire" and t.get("hand"):
            hand = " ".join(f"{c['letter'] or '?'} {symbol(c['card'])}" +
                            ("*" if c["group"] == "meld" else "") for c in t["hand"])
            return (f"hand {hand} (a letter is the card's key; * in a meld); deadwood "
                    f"{t['deadwood']}; {t['phase_words']}")
        return ""

    def look(self) -> None:
        """The whole table once, as ``look:`` lines."""
        made = face(self)
        self.tell("look", f"{made['title']} · {made['phase']} · {made['ping']}")
        self.tell("look", "seats: " + self.seats_words(made))
        t = made["table"]
        if t and made["game"].startswith("racing-demon"):
            tops = ", ".join(symbol(s["top"]) + ("*" if s["lit"] else "") for s in t["stacks"])
            self.tell("look", f"stacks: {tops or 'none yet'} (* yours fit)")
            if t.get("me"):
                fits = ", ".join(SOURCE_WORDS[s] for s in t["me"]["lit"]) or "none"
                self.tell("look", f"fits a stack now: {fits}")
            for p in t["others"]:
                self.tell("look", f"{p['name']}: Pile {symbol(p['pile_top'])} "
                          f"({p['pile_count']} left), columns "
                          f"{' '.join(symbol(c) for c in p['columns_tops'])}"
                          + (", stuck" if p["voted"] else "")
                          + (f", {p['status']}" if p["status"] != "here" else ""))
        elif t and made["game"] == "racko":
            for p in t["others"]:
                self.tell("look", f"{p['name']}: total {p['total']}")
        elif t and made["game"] == "gin-solitaire":
            for p in t["others"]:
                self.tell("look", f"{p['name']}: {p['state']}")
        hold = self.hold_words(made) if made["phase"] == "playing" else ""
        if hold:
            self.tell("look", "you hold: " + hold)
        if made["hint"]:
            self.tell("look", made["hint"])

    # --- typed commands ---------------------------------------------------------------------

    def help(self) -> None:
        kind = {"DemonSeat": "demon", "RackOSeat": "racko", "GinSeat": "gin"}.get(
            type(self.game).__name__, "")
        for name, words in COMMANDS[kind] + COMMANDS[""]:
            self.tell("help", f"{name} — {words}")
        keys = ", ".join(k for k in key_map(self) if k != " ")
        self.tell("help", f"a key of the terminal table works too: {keys}")

    def command(self, text: str) -> None:
        """Do what a typed line says; anything else is answered in one line, nothing done."""
        words = text.split()
        if not words:
            return
        head, rest = ALIASES.get(words[0].lower(), words[0].lower()), words[1:]
        question = self.question()
        if head == "help":
            return self.help()
        if head == "look":
            return self.look()
        answers = {} if question is None else {"y": "yes", "n": "no", **(
            {"b": "bot"} if question.other else {})}  # (no question: n is Rack-O's draw key)
        head = answers.get(head, head)
        if head in ("yes", "no") or (head == "bot" and question is not None and question.other):
            if question is None:
                self.refuse("there is no question to answer")
                return None
            intent = dict({"yes": question.yes, "no": question.no}.get(head, question.other))
            act(self, intent.pop("do"), intent)
            return None
        intent = self.intent(head, rest)
        if intent is None:
            keys = key_map(self)
            if words[0] in keys and not rest:
                intent = dict(keys[words[0]])
            elif len(words) == 1 and head in keys:
                intent = dict(keys[head])
        if intent is None:
            self.refuse(f"'{text.strip()}' is not a command here — type help for the list")
            return None
        do = intent.pop("do")
        act(self, do, intent)
        if do == "hint":  # the advice is drawn by a screen, not said: say it here
            self.say_hint()
        return None

    def say_hint(self) -> None:
        """The coach's advice as the face holds it now (its numbers too, on a second hint)."""
        made = face(self)
        if made["hint"]:
            self.tell("hint", made["hint"])
        if made["hint_numbers"]:
            self.tell("hint", made["hint_numbers"])

    def seat_called(self, typed: str) -> int | None:
        """The seat a typed name or number means (its letters as typed: "ann 2" is "Ann ²")."""
        if typed.isdigit() and 1 <= int(typed) <= len(self.seats):
            return int(typed) - 1
        hits = [i for i, s in enumerate(self.seats)
                if _letters(typed) and _letters(s["name"]).startswith(_letters(typed))]
        exact = [i for i in hits if _letters(self.seats[i]["name"]) == _letters(typed)]
        return (exact or hits)[0] if len(exact or hits) == 1 else None

    def intent(self, head: str, rest: list[str]) -> dict[str, Any] | None:
        """The intent a command names, with its arguments (None: not a command)."""
        if head == "play" and rest:
            return {"do": "play", "from": rest[0].lower(),
                    **({"to": rest[1].lower()} if len(rest) > 1 else {})}
        if head in ("take", "slot") and rest:
            number = rest[0]
            return {"do": head, "slot": int(number) if number.isdigit() else number}
        if head in ("card", "knock") and rest:
            code = rest[0].upper().replace("10", "T")
            return {"do": head, "card": code, **({"sure": True} if rest[1:2] == ["sure"] else {})}
        if head == "leave":
            return {"do": "leave", **({"sure": True} if rest[:1] == ["sure"] else {})}
        if head in ("pause", "resume") and not rest:
            return {"do": head}
        if head == "remove" and rest:
            index = self.seat_called(" ".join(rest))
            return {"do": "remove", "seat": index} if index is not None else \
                {"do": "remove", "seat": " ".join(rest)}
        if not rest and head in ("ready", "start", "start_anyway", "dismiss", "turn", "stuck",
                                 "draw", "discard", "discard_pile", "cancel", "hint", "big_gin"):
            return {"do": head}
        return None


def _letters(name: str) -> str:
    from lan_demon.net.names import name_key
    return "".join(ch for ch in name_key(name) if ch.isalnum())


def run(table: PlainTable, stdin: TextIO | None = None) -> None:
    """Read typed lines (``stdin``: the process's) and pump the table until the seat leaves
    or the input ends."""
    stdin = sys.stdin if stdin is None else stdin
    table.tell("table", f"{table.client.game.title if table.client.game else 'a table'}: "
               "one line per event; type help for the commands")
    try:
        _read_and_pump(table, stdin)
    except KeyboardInterrupt:  # Ctrl-C: leave as q does on the full-screen table
        table.tell("said", "interrupted: leaving the table")


def _read_and_pump(table: PlainTable, stdin: TextIO) -> None:
    with selectors.DefaultSelector() as sel:
        sel.register(stdin, selectors.EVENT_READ)
        while not table.quit:
            if sel.select(PUMP_EVERY):
                text = stdin.readline()
                if not text:  # the input ended: leave, as the last command would
                    table.tell("said", "the input ended: leaving the table")
                    break
                table.command(text)
            table.step()
            if table.gone:
                break
