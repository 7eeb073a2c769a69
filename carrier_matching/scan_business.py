"""The Business a website scan describes: its words, its best class and the state its address names.

The scan hands this profile to the recommendations ruleset and to the matcher, so both read the
same business. The state is read from "City, ST" or "City, State" (optionally with a ZIP code:
"Portland, Oregon 97232") in the title, meta description or text; the state named most often
wins, the first named on a tie.
"""

from __future__ import annotations

from typing import Any

from insureops.carrier_matching.states import states_in_addresses

MAX_DESCRIPTION_CHARS = 2_000  # what the classifier reads of a text, too
MAX_NAME_CHARS = 255  # Business.name


def find_state(*texts: str | None) -> str | None:
    """The state code the texts name most often as "City, ST" or "City, State", or None."""
    found = states_in_addresses(*texts)
    if not found:
        return None
    return found.most_common(1)[0][0]


def scan_business(
    *, url: str, title: str | None, words: str, naics: str | None, state: str | None
) -> dict[str, Any]:
    """The Business fields a scan knows: website, description, name, naics and state."""
    business: dict[str, Any] = {
        "website": url,
        "description": words[:MAX_DESCRIPTION_CHARS] or None,
    }
    if title:
        business["name"] = title[:MAX_NAME_CHARS]
    if naics:
        business["naics"] = naics
    if state:
        business["state"] = state
    return business
