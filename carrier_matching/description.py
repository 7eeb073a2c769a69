"""What a business's own description affirms: its words with denied phrases removed, and the few
answers a description states plainly (hazmat, late hours, the year a building was built).

Appetites search `activities`, never the raw description, so "no hazmat" does not decline a
trucker and "no late night hours" does not refer a diner. A negation cue (no, not, never,
without, ...) removes the rest of its clause; clauses end at punctuation and at "but".
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_CLAUSE = re.compile(r"[.;:!?()\n,]|\bbut\b|\bhowever\b|\bexcept that\b")
_NEGATION = re.compile(
    r"\b(?:no|not|never|without|none|nor|non|nothing|zero|excluding|free of|"
    r"do not|does not|did not|don'?t|doesn'?t|didn'?t|isn'?t|aren'?t|won'?t|cannot|can'?t|"
    r"neither|avoid|avoids|refuse|refuses)\b")
_WORD = re.compile(r"[a-z0-9]+")
_YEAR_BUILT = re.compile(r"\b(?:built|constructed|erected)\s+(?:in\s+|circa\s+|around\s+|c\.\s*)?"
                         r"(1[6-9]\d\d|20\d\d)\b")


def affirmed_clauses(description: str | None) -> list[str]:
    """The description's clauses in lower case, each cut where a negation cue starts."""
    if not description:
        return []
    kept = []
    for clause in _CLAUSE.split(description.lower().replace("’", "'")):
        negation = _NEGATION.search(clause)
        if negation is not None:
            clause = clause[:negation.start()]
        if clause.strip():
            kept.append(clause)
    return kept


def activities(description: str | None) -> str | None:
    """The affirmed words of `description`, lower case, one space apart and with a space at each
    end, so `activities contains " hazmat "` finds the whole word and never a denied one."""
    if description is None:
        return None
    words = [word for clause in affirmed_clauses(description) for word in _WORD.findall(clause)]
    return " " + " ".join(words) + " " if words else " "


def phrase_pattern(phrase: str) -> str:
    """A phrase as `activities` holds it: its words, one space apart, a space at each end."""
    return " " + " ".join(_WORD.findall(phrase.lower())) + " "


def mentions(text: str | None, phrases: Iterable[str]) -> bool:
    """Whether the affirmed words of `text` hold any of `phrases` as whole words."""
    found = activities(text)
    return found is not None and any(phrase_pattern(p) in found for p in phrases)


def denies(text: str | None, phrases: Iterable[str]) -> bool:
    """Whether `text` names one of `phrases` only to deny it ("no hazmat")."""
    if not text:
        return False
    named = any(phrase_pattern(p) in all_words(text) for p in phrases)
    return named and not mentions(text, phrases)


def all_words(text: str) -> str:
    """Every word of `text`, denied or not, as `activities` writes them."""
    return " " + " ".join(_WORD.findall(text.lower())) + " "


def year_built(text: str | None) -> int | None:
    """The year a description says the building was built ("built in 1998"), or None."""
    if not text:
        return None
    found = _YEAR_BUILT.search(text.lower())
    return int(found.group(1)) if found else None
