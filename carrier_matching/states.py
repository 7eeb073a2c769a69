"""States read as people write them: codes in any case, full names, common abbreviations, and
"City, State ZIP" addresses (a scanned page's "Portland, Oregon 97232")."""

from __future__ import annotations

import re
from collections import Counter

from insureops.carrier_matching.jurisdictions import STATE_CODES, STATES

_BY_NAME = {name.lower(): code for code, name in STATES.items()}
_BY_NAME.update({"washington dc": "DC", "washington d c": "DC", "d c": "DC", "dc": "DC"})
_NAMES = "|".join(sorted((re.escape(name) for name in STATES.values()), key=len, reverse=True))
# "City, ST 12345", "City, State 12345" (ZIP optional): the place name is capitalised words.
_PLACE = re.compile(
    r"\b[A-Z][A-Za-z.'\-]*(?: [A-Z][A-Za-z.'\-]*){0,3},\s+"
    rf"([A-Z]{{2}}|{_NAMES})(?:\s+\d{{5}}(?:-\d{{4}})?)?\b")


def state_code(text: str) -> str | None:
    """The state `text` names: a code in any case, a name ("oregon"), or None."""
    cleaned = re.sub(r"[^a-z ]+", " ", text.lower()).strip()
    cleaned = re.sub(r"\s+", " ", cleaned)
    if cleaned.upper() in STATE_CODES:
        return cleaned.upper()
    if cleaned.startswith("state of "):
        cleaned = cleaned[len("state of "):]
    return _BY_NAME.get(cleaned)


def states_in_addresses(*texts: str | None) -> Counter:
    """How often each state is named as "City, ST" or "City, State" (with or without a ZIP)."""
    found: Counter = Counter()
    for text in texts:
        if not text:
            continue
        for match in _PLACE.findall(text):
            code = match if match in STATE_CODES else _BY_NAME.get(match.lower())
            if code is not None:
                found[code] += 1
    return found
