"""NAICS 2017 codes that NAICS 2022 replaced, and the 2022 code each maps to, read from
`reference_data/naics_2017_to_2022.csv` (the Census concordance's one-to-one and many-to-one
rows; where 2017 split a code, the row names the usual target and a note says what to check)."""

from __future__ import annotations

import csv
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import MappingProxyType

CONCORDANCE_FILE = Path(__file__).parent / "reference_data" / "naics_2017_to_2022.csv"


@dataclass(frozen=True, slots=True)
class Replacement:
    """A NAICS 2017 code, its 2017 title, the 2022 code it became and a note when the map is
    approximate."""

    naics_2017: str
    naics_2022: str
    title_2017: str
    note: str


@cache
def replacements() -> Mapping[str, Replacement]:
    """Every replaced NAICS 2017 code, by code."""
    with CONCORDANCE_FILE.open(encoding="utf-8", newline="") as handle:
        rows = [Replacement(r["naics_2017"], r["naics_2022"], r["title_2017"], r["note"] or "")
                for r in csv.DictReader(handle)]
    return MappingProxyType({row.naics_2017: row for row in rows})


def replacement(code: str) -> Replacement | None:
    """The 2022 replacement of a NAICS 2017 code, or None when the code did not change."""
    return replacements().get(code)
