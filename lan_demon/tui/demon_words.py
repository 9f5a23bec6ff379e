"""Racing Demon in words on the terminal: the keys and the rules in short (classic and German).
A lost race and the names of ranks are the seat's (:mod:`lan_demon.seat.words`), re-exported."""

from __future__ import annotations

from lan_demon.seat.acts import key_help
from lan_demon.seat.words import (RACE_GRACE, SeenTops, pad_name, race_text, rank_name,
                                  short_name, with_article)

__all__ = ["CLASSIC_RULES", "GERMAN_RULES", "PLAYER_KEYS", "RACE_GRACE", "SeenTops",
           "pad_name", "race_text", "rank_name", "short_name", "with_article"]

PLAYER_KEYS = [(k.key, k.words) for k in key_help("DemonSeat")]  # (the seat's, one order)

CLASSIC_RULES = """
Everybody plays at once. Empty your Pile: first OUT
  ends the round (RD-12).
Stacks start on aces, build up in suit (RD-5); the King
  claims the stack (RD-6). Anyone plays on any stack.
Columns build down, red on black (RD-7); an empty one
  refills from your Pile (RD-8). Only tops play (RD-10).
The Pack turns three at a time (RD-9).
Two cards for one place: the first counts (RD-11).
Stuck: all vote or have turned through their Pack, or
  a minute passes with no card played: Packs rotate;
  three in a row end the round (RD-13).
Score: +1 a card on a stack, +5 a King, +10 OUT, −1 a
  card left in your Pile (RD-14).
A letter marks each player's pack (yours is beside
  "You"); on a stack it says whose card is on top."""

GERMAN_RULES = """
Everybody plays at once. Empty your Pile of 11 (RG-2):
  the first OUT ends the round (RG-6).
Stacks start on aces and build up in rank, whatever
  the suit (RG-3). The King claims the stack (RD-6).
No laddering: a Line card (keys 1-4) goes to a stack
  only; the Pile refills its place (RG-4).
The Pack turns one card at a time (RG-5).
Two cards for one place: the first counts (RD-11).
Stuck: all vote or have turned through their Pack, or
  a minute passes with no card played: Packs rotate;
  three in a row end the round (RD-13).
Penalty: the cards left in your Pile; the lowest total
  wins the match (RG-6, RG-7).
A letter marks each player's pack (yours is beside
  "You"); on a stack it says whose card is on top."""


