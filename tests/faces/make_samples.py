import json, random
rnd = random.Random(28)
names = ["Ann","Ann ²","Cy","Dee","Eve","Finn","Gus","Wolfgang Max","Ivo","Jo","Kai","Lena","Mo","Nia","Olu","Pia","Quincy Adams","Rosalind Fox","🃏Bob🎉👨👩","Tomasz"]  # (names of 12 cells at most, two alike, issue 29: drawn whole)
ranks = "A 2 3 4 5 6 7 8 9 10 J Q K".split()
suits = "SHDC"
def card(): return rnd.choice(ranks) + rnd.choice(suits)
def seats(n, you=0, **kw):
    return [{"seat": i, "name": names[i], "bot": i in (3, 7), "level": "strong" if i in (3, 7) else None,
             "ready": i % 3 != 1, "status": "away" if i == 5 else "left" if i == 9 else "here",
             "captain": i == 0, "you": i == you} for i in range(n)]
def common(game, phase, n, you=0, **kw):
    f = {"notes": [], "state": "ok", "gone": None, "game": game, "title": {"racing-demon": "Racing Demon — round 2 of 5",
          "racing-demon-german": "German Racing Demon — round 1 of 5", "racko": "Rack-O — round 3",
          "gin-solitaire": "Gin Solitaire — round 1"}[game], "phase": phase,
         "you": you, "spectator": you is None, "captain": you == 0, "seats": seats(n, you),
         "ping": "ping 1.2 ms", "line": None, "line_id": 0, "banner": None, "alarms": [],
         "deal": {"verdict": "checked", "words": "this round's deal was checked: the one promised before Go"},
         "question": None, "countdown": None, "waiting_for": [], "acts": [], "keys": {},
         "table": None, "scores": None, "review": None, "hint": None}
    f.update(kw); return f
demon_keys = {"1": {"do": "play", "from": "c1"}, "2": {"do": "play", "from": "c2"}, "3": {"do": "play", "from": "c3"},
  "4": {"do": "play", "from": "c4"}, "p": {"do": "play", "from": "pile"}, "w": {"do": "play", "from": "waste"},
  " ": {"do": "turn"}, "s": {"do": "stuck"}, "t": {"do": "choose"}, "h": {"do": "highlight"}, "q": {"do": "leave"}}
def demon_table(n, german=False, me=True):
    stacks = [{"id": i, "top": card(), "owner": rnd.randrange(n), "count": rnd.randint(1, 9), "lit": i in (2, 5)} for i in range(14)]
    others = [{"seat": i, "name": names[i], "pile_top": card(), "pile_count": rnd.randint(0, 13),
               "columns_tops": [card() for _ in range(4)], "voted": i == 2, "status": "away" if i == 5 else "here",
               "out": False} for i in range(1, n)]
    t = {"stacks": stacks, "others": others, "rotations": 1, "german": german, "me": None}
    if me:
        t["me"] = {"pile_top": "7H", "pile_count": 9, "waste_top": "QC", "pack_count": 21, "waste_count": 3, "pending": 0,
                   "columns": [["KS", "QH", "JC", "10D"], ["5H"], [], ["9C", "8H"]] if not german else [["KS"], ["5H"], ["2D"], ["9C"]],
                   "score_so_far": 4 if not german else 9, "voted": False, "lit": ["pile", "c2"],
                   "places": {"pile": [{"to": "s5", "words": "the 6♥ stack"}, {"to": "c4", "words": "column 4 (8♥)"}],
                              "c2": [{"to": "s2", "words": "the 4♥ stack"}], "c1": [], "waste": [], "c3": [], "c4": [{"to": "s7", "words": "the 7♣ stack"}]}}
    return t
play_acts = [{"do": "turn", "label": "Turn the Pack", "key": " "}, {"do": "stuck", "label": "Stuck", "key": "s"},
             {"do": "leave", "label": "Leave", "key": "q"}]
faces = {}
faces["demon_playing"] = common("racing-demon", "playing", 20, 0, table=demon_table(20), acts=play_acts, keys=demon_keys,
    line={"words": "Ann beat you to the A♥ stack, by 12 ms", "rule": "RD-11", "kind": "race"}, line_id=7)
faces["demon_german_playing"] = common("racing-demon-german", "playing", 4, 1, table=demon_table(4, german=True),
    acts=play_acts, keys=demon_keys,
    line={"words": "9♣ fits no stack (needs an 8); no laddering here", "rule": "RG-3, RG-4", "kind": "refusal"}, line_id=3)
faces["demon_spectator"] = common("racing-demon", "playing", 20, None, table=demon_table(20, me=False),
    acts=[{"do": "leave", "label": "Leave", "key": "q"}], keys={"q": {"do": "leave"}}, captain=False)
faces["demon_spectator"]["table"]["others"].insert(0, {"seat": 0, "name": "Ann", "pile_top": "4D", "pile_count": 7,
    "columns_tops": ["KS", "5H", None, "8H"], "voted": False, "status": "here", "out": False})
faces["lobby"] = common("racing-demon", "lobby", 5, 0, waiting_for=["Bo", "Eve"],
    acts=[{"do": "ready", "label": "I'm ready", "key": "enter"}, {"do": "start", "label": "Start the match", "key": "s"},
          {"do": "leave", "label": "Leave", "key": "q"}], keys={"enter": {"do": "ready"}, "q": {"do": "leave"}})
faces["lobby_question"] = dict(faces["lobby"], acts=[], question={"words": "Bo and Eve are not ready yet",
    "yes": {"do": "start_anyway"}, "no": {"do": "dismiss"}, "yes_label": "Start now", "no_label": "Wait"})
faces["countdown"] = common("racing-demon", "countdown", 5, 1, countdown=4.5, table=None,
    acts=[{"do": "leave", "label": "Leave", "key": "q"}])
rows = []
parts_cols = [{"key": "stacked", "heading": "stacked"}, {"key": "kings", "heading": "kings"},
              {"key": "out", "heading": "out"}, {"key": "pile_left", "heading": "pile left"}]
for i in range(6):
    rows.append({"side": i, "name": names[i], "score": 20 - 5 * i,
                 "parts": {"stacked": 15 - i, "kings": i % 2, "out": i == 0, "pile_left": i * 2},
                 "total": 50 - 7 * i, "best": i == 0, "leads": i == 0, "you": i == 2})
faces["demon_between"] = common("racing-demon", "between", 6, 2, banner={"words": "Ann is OUT!", "id": 2},
    countdown=12.0, waiting_for=["Bo"], deal={"verdict": "not checked", "words": "this round's deal was NOT checked by this screen: it missed the round's end"},
    acts=[{"do": "ready", "label": "I'm ready", "key": "enter"}, {"do": "leave", "label": "Leave", "key": "q"}],
    scores={"round": 2, "rounds": 5, "over": False, "word": "score (RD-14)", "lower_is_better": False,
            "parts": parts_cols, "rows": rows, "winners": [],
            "next_piles": [{"name": n, "pile": 13 + (2 - i)} for i, n in enumerate(names[:6])],
            "chart": {"first_round": 1, "names": names[:6], "series": [[20 - 2 * i, 50 - 7 * i] for i in range(6)]}},
    review=["You played 14 cards to the stacks; the strong bot would have played 17.",
            "Twice your Pile top fitted a stack for over 3 s: look at the Pile first."])
faces["demon_over"] = dict(faces["demon_between"], phase="over", countdown=None, waiting_for=[], review=None,
    acts=[{"do": "leave", "label": "Leave", "key": "q"}],
    alarms=["DEAL CHECK FAILED: the host dealt round 2 differently from what it promised (§22)"],
    deal={"verdict": "DEAL CHECK FAILED", "words": "DEAL CHECK FAILED — see above"})
faces["demon_over"]["scores"] = dict(faces["demon_between"]["scores"], over=True, winners=["Ann"], next_piles=None)
racko_keys = {k: {"do": "slot", "slot": 5 * (i + 1)} for i, k in enumerate("1234567890")}
racko_keys.update({"d": {"do": "discard_pile"}, "n": {"do": "draw"}, "x": {"do": "discard"}, "h": {"do": "hint"}})
faces["racko_playing"] = common("racko", "playing", 4, 0, keys=racko_keys,
    acts=[{"do": "hint", "label": "Hint", "key": "h"}, {"do": "discard", "label": "Discard it", "key": "x"},
          {"do": "leave", "label": "Leave", "key": "q"}],
    hint="Put 23 in slot 20: it keeps 5, 10, 15 in order.",
    table={"rack": [3, 9, 14, 27, 21, 33, 40, 38, 52, 60], "in_order": 3, "turn_name": "Ann", "over": False, "slots": [5, 10, 15, 20, 25, 30, 35, 40, 45, 50],
           "discard_top": 17, "draw_count": 23, "held": 23, "turn": 0, "your_turn": True, "source": None,
           "prompt": "You drew 23: tap a slot to put it there, or Discard it", "deck": 60,
           "others": [{"seat": 1, "name": "Bo", "total": 120, "stood_in": None}, {"seat": 2, "name": "Cy", "total": 75,
                       "stood_in": "Cy (away): their turn was played for them — drew and discarded 44 (RK-4)"},
                      {"seat": 3, "name": "Dee", "total": 0, "stood_in": None}]})
gin_hand = [("4H", "a", 0), ("5H", "b", 0), ("6H", "c", 0), ("QS", "e", 1), ("QD", "f", 1), ("QC", "g", 1),
            ("2C", "i", None), ("9D", "j", None), ("KS", "k", None), ("7S", "o", None), ("3D", "l", None)]
faces["gin_playing"] = common("gin-solitaire", "playing", 3, 0,
    keys={**{l: {"do": "card", "card": c} for c, l, _ in gin_hand}, "n": {"do": "draw"}, "K": {"do": "knock"}, "B": {"do": "big_gin"}, "h": {"do": "hint"}},
    key_help=[["n", "draw"], ["letter", "discard that card"], ["B", "Big Gin"], ["h", "hint"], ["q", "leave"]],
    acts=[{"do": "hint", "label": "Hint", "key": "h"}, {"do": "knock", "label": "Knock", "key": "K"},
          {"do": "leave", "label": "Leave", "key": "q"}],
    table={"hand": [{"card": c, "letter": l, "meld": m, "group": "meld" if m is not None else "deadwood"} for c, l, m in gin_hand],
           "drawn": "7S", "phase": "discard", "phase_words": "discard, knock or Big Gin (GS-4, GS-6)", "unknown": False,
           "best_discard": "KS", "draw_count": 30, "discards": 2, "big_gin": False, "result": None,
           "deadwood": 31, "prompt": "Discard a card: its letter (k discards K♠: the least deadwood left)", "can_knock": False,
           "others": [{"seat": 1, "name": "Bo", "state": "draw", "draw": 31}, {"seat": 2, "name": "Cy", "state": "knock", "draw": 25}]})
faces["gin_knock_question"] = dict(faces["gin_playing"], acts=[], question={"words": "Knock with 2♣ face down, deadwood 8?",
    "yes": {"do": "knock", "card": "2C", "sure": True}, "no": {"do": "dismiss"}, "yes_label": "Knock", "no_label": "Keep playing"})
# Nothing cut at a phone's size: twenty seats whose names are as wide as the table
# seats them (12 terminal cells: net/cells.py), two alike, emoji (a joined family among
# them), wide CJK and the widest Latin letters; a page must show each whole in every game.
wide = ["Ann", "Ann ²", "🃏Bob🎉👨\u200d👩", "WWWWWWWWWWWW", "山田太郎さん", "Wolfgang Max",
        "MMMMMMMMMMMM", "Zoë", "Mañana😀Jo", "Bo", "Cy L10", "Dee", "Eve", "Finn", "Gus",
        "Hana", "Ivo", "Jo", "Kai", "Lena"]
def wide_names(face):
    face = json.loads(json.dumps(face))
    for s in face["seats"]:
        s["name"] = wide[s["seat"]]
    for p in (face.get("table") or {}).get("others") or []:
        p["name"] = wide[p["seat"]]
    return face
faces["demon_twenty_names"] = wide_names(dict(faces["demon_playing"], you=9,
    line={"words": "🃏Bob🎉👨\u200d👩 beat you to the A♥ stack, by 12 ms", "rule": "RD-11", "kind": "race"}))
faces["demon_twenty_names"]["seats"] = [dict(s, you=s["seat"] == 9) for s in faces["demon_twenty_names"]["seats"]]
faces["demon_twenty_names"]["table"]["others"] = [
    dict(p, seat=0, name=wide[0]) if p["seat"] == 9 else p for p in faces["demon_twenty_names"]["table"]["others"]]
twenty_rows = [{"side": i, "name": wide[i], "score": 20 - 2 * i,
                "parts": {"stacked": 15 - i // 2, "kings": i % 2, "out": i == 0, "pile_left": i},
                "total": 60 - 3 * i, "best": i == 0, "leads": i == 0, "you": i == 2} for i in range(20)]
faces["demon_twenty_between"] = wide_names(common("racing-demon", "between", 20, 2,
    banner={"words": "WWWWWWWWWWWW is OUT!", "id": 4}, countdown=12.0, waiting_for=wide[3:9],
    acts=[{"do": "ready", "label": "I'm ready", "key": "enter"}, {"do": "leave", "label": "Leave", "key": "q"}],
    scores=dict(faces["demon_between"]["scores"], rows=twenty_rows,
                next_piles=[{"name": n, "pile": 13} for n in wide],
                chart={"first_round": 1, "names": wide,
                       "series": [[20 - 2 * i, 40 - i, 60 - 3 * i] for i in range(20)]}),
    review=faces["demon_between"]["review"]))
faces["racko_twenty_names"] = wide_names(dict(faces["racko_playing"],
    seats=seats(20, 0), table=dict(faces["racko_playing"]["table"],
    others=[{"seat": i, "name": "", "total": 5 * i, "stood_in": None} for i in range(1, 20)])))
faces["gin_twenty_names"] = wide_names(dict(faces["gin_playing"],
    seats=seats(20, 0), table=dict(faces["gin_playing"]["table"],
    others=[{"seat": i, "name": "", "state": "draw", "draw": 30 - i} for i in range(1, 20)])))
faces["lobby_twenty_names"] = wide_names(dict(faces["lobby"], seats=seats(20, 0),
                                           waiting_for=wide[1:20:3]))
faces["demon_paused"] = dict(faces["demon_playing"],  # §24: the captain paused; two seats away
    paused="You paused the table 1:23 ago — every clock stands still; press Resume the table to go on",
    away=["Finn away 4:10 — seat kept 0:50 more", "Jo away 1:23 — seat kept 3:37 more"],
    acts=[{"do": "resume", "label": "Resume the table", "key": "P"},
          {"do": "remove", "seat": 5, "label": "Remove Finn", "key": "R"},
          {"do": "leave", "label": "Leave", "key": "q"}],
    line={"words": "You paused the table: nothing moves until it resumes", "rule": None, "kind": "said"})
for k, v in faces.items():
    json.dump(v, open(f"{k}.json", "w"), ensure_ascii=False, indent=1)
print(sorted(faces))
