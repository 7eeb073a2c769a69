"""The jurisdictions the carrier finder lists: states, DC and territories from the `us` package."""

from __future__ import annotations

from functools import cache

import us


@cache
def jurisdictions() -> tuple[tuple[str, str, str], ...]:
    """(code, name, kind) of the 50 states, DC and the inhabited territories, by code."""
    rows = [(s.abbr, s.name, "state") for s in us.states.STATES]
    rows.append((us.states.DC.abbr, us.states.DC.name, "district"))
    rows += [(t.abbr, t.name, "territory") for t in us.states.TERRITORIES]
    return tuple(sorted(rows))
