"""Sentences about a seat, grammatical for whoever reads them.

The same event is told to every seat: to its own seat in the second person ("You are OUT!",
"You took the ♥ King"), to the others by name ("Cy is OUT!"). A seat's name may itself read
like a pronoun — ``lan-demon play`` seats you as "you" — so a sentence is never made by pasting
a name before a verb written for "he or she" (that gave "you is OUT!" on the banner and the
scoreboard): it goes through :func:`clause`, which picks the verb's form for the subject.
"""

from __future__ import annotations

from collections.abc import Sequence

#: Third-person verbs the table's sentences use, with the form "you" (and any plural) takes.
#: Past tenses ("took", "knocked", "drew") are the same for both and need no entry.
_PLURAL = {"is": "are", "has": "have", "was": "were", "does": "do", "goes": "go",
           "wins": "win", "leads": "lead", "draws": "draw", "takes": "take",
           "plays": "play", "knocks": "knock", "shares": "share"}


def reads_as_you(name: str) -> bool:
    """A name that a sentence would read as the pronoun ("you", "You")."""
    return name.strip().casefold() == "you"


def subject(name: str, you: bool, start: bool = True) -> str:
    """Who a sentence is about: "You" (or "you" mid-sentence) for your own seat, else the
    name."""
    if you:
        return "You" if start else "you"
    return name


def verb(word: str, plural: bool) -> str:
    """``word`` (written for "Cy": "is", "has", "wins") in the form its subject takes: "you"
    and any two people take the plural ("are", "have", "win")."""
    return _PLURAL.get(word, word) if plural else word


def clause(name: str, you: bool, word: str, rest: str = "", start: bool = True) -> str:
    """``Cy is OUT!`` / ``You are OUT!``: the subject, the verb in its form, the rest.
    A seat whose name reads as "you" takes the plural verb too, so no screen ever says
    "you is"."""
    who = subject(name, you, start)
    said = f"{who} {verb(word, you or reads_as_you(name))}"
    return f"{said} {rest}" if rest else said


def group_clause(people: Sequence[tuple[str, bool]], word: str, rest: str = "") -> str:
    """``Cy and Ann are OUT!``, ``You and Cy are OUT!``, ``Cy is OUT!``: several subjects
    (each a name and whether it is you; you are named first), one verb."""
    if len(people) == 1:
        return clause(people[0][0], people[0][1], word, rest)
    ordered = sorted(people, key=lambda p: not p[1])
    names = [subject(n, you, start=i == 0) for i, (n, you) in enumerate(ordered)]
    said = f"{', '.join(names[:-1])} and {names[-1]} {verb(word, True)}"
    return f"{said} {rest}" if rest else said


def possessive(name: str, you: bool, start: bool = False) -> str:
    """``your`` / ``Ann's`` (``Your`` at the start of a sentence); a name that reads as "you"
    is "your" too, never "you's"."""
    if you or reads_as_you(name):
        return "Your" if start else "your"
    return f"{name}'s"
