"""Similar businesses: a business ranked against a reference set by class, words, size and place.

The score (0..1) is a weighted mean of four parts, over the parts the query can be compared on
(a query without a state or a size is not penalised for it):
- class: how deep the NAICS codes agree (same 6-digit code 1.0, 5 digits 0.85, 4 digits 0.7,
  3 digits 0.5, same two-digit sector 0.3, same ranged sector such as 31-33 0.2);
- description: rapidfuzz's token_set_ratio of the two descriptions without stop words;
- size: annual revenue and employee count compared on a log scale (a factor of 100 apart is 0);
- location: the same state.
Ranking is by score, then by the reference's id, so it depends on the arguments alone. Further
candidates (a workspace's prospects) join the shipped set with `ReferenceSet.plus`; each keeps
its `source`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from rapidfuzz import fuzz, process, utils

from insureops.carrier_matching import naics_reference
from insureops.carrier_matching.classifier_text import STOP_WORDS

REFERENCE_FILE = Path(__file__).parent / "reference_data" / "businesses.jsonl"
WEIGHTS = {"class": 0.45, "description": 0.30, "size": 0.15, "location": 0.10}
CLASS_DEPTH_SCORES = {6: 1.0, 5: 0.85, 4: 0.7, 3: 0.5, 2: 0.3}
RANGED_SECTOR_SCORE = 0.2
CLASS_REASONS = {6: "same NAICS industry {code}", 5: "same NAICS 5-digit industry {code}",
                 4: "same NAICS industry group {code}", 3: "same NAICS subsector {code}",
                 2: "same NAICS sector {code}"}
SIZE_ORDERS = 2.0  # this many orders of magnitude apart scores 0
DESCRIPTION_REASON_MIN = 50  # percent: below this the words are not called alike
SIZE_REASON_MIN = 0.75
MAX_LIMIT = 50


class SimilarityQueryError(ValueError):
    """A query that cannot be compared (code `similarity_query_invalid`)."""

    code = "similarity_query_invalid"


REFERENCE, PROSPECT = "reference", "prospect"


@dataclass(frozen=True, slots=True)
class ReferenceBusiness:
    """A business to compare with: one of the shipped reference set (`source` "reference"), or
    a saved prospect ("prospect"), whose size, city and age may be unknown."""

    id: str
    name: str
    naics: str | None
    description: str
    state: str | None
    city: str | None = None
    annual_revenue: int | None = None
    employee_count: int | None = None
    years_in_business: int | None = None
    source: str = REFERENCE


@dataclass(frozen=True, slots=True)
class SimilarBusiness:
    """A reference business with its score (0..1), the score's parts and the reasons in words."""

    business: ReferenceBusiness
    score: float
    parts: Mapping[str, float]
    reasons: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class _Query:
    naics: str | None
    words: str | None  # processed description
    state: str | None
    log_size: tuple[float | None, float | None]  # log10(1 + revenue), log10(1 + employees)


@dataclass(frozen=True, slots=True)
class ReferenceSet:
    """Reference businesses with their descriptions processed and sizes logged once."""

    businesses: tuple[ReferenceBusiness, ...]
    words: tuple[str, ...]
    # log10(1 + revenue), log10(1 + employees); None when unknown
    log_sizes: tuple[tuple[float | None, float | None], ...]

    @classmethod
    def of(cls, businesses: Iterable[ReferenceBusiness]) -> ReferenceSet:
        kept = tuple(businesses)
        return cls(kept, tuple(_words(b.description) for b in kept),
                   tuple((_log(b.annual_revenue), _log(b.employee_count)) for b in kept))

    def plus(self, businesses: Iterable[ReferenceBusiness]) -> ReferenceSet:
        """This set and `businesses` (processed once here; this set's work is reused)."""
        extra = ReferenceSet.of(businesses)
        return ReferenceSet(self.businesses + extra.businesses, self.words + extra.words,
                            self.log_sizes + extra.log_sizes)

    def __len__(self) -> int:
        return len(self.businesses)


def _log(size: int | None) -> float | None:
    return None if size is None or size < 0 else math.log10(1 + size)


def _words(text: str) -> str:
    return " ".join(word for word in utils.default_process(text).split() if word not in STOP_WORDS)


def parse_reference(lines: Iterable[str]) -> ReferenceSet:
    """A reference set from JSON lines (one ReferenceBusiness's fields per line)."""
    return ReferenceSet.of(ReferenceBusiness(**json.loads(line)) for line in lines if line.strip())


@cache
def load_reference() -> ReferenceSet:
    """The reference set shipped with the package (reference_data/businesses.jsonl)."""
    return parse_reference(REFERENCE_FILE.read_text("utf-8").splitlines())


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        return None
    return float(value)


def _query(query: Mapping[str, Any]) -> _Query:
    naics = query.get("naics")
    if naics is not None and not (isinstance(naics, str) and naics.isdigit()
                                  and 2 <= len(naics) <= 6):
        raise SimilarityQueryError("naics must be 2 to 6 digits")
    description = query.get("description")
    words = _words(description) if isinstance(description, str) else ""
    if not naics and not words:
        raise SimilarityQueryError("give a NAICS code or a description to compare")
    state = query.get("state")
    sizes = (_number(query.get("annual_revenue")), _number(query.get("employee_count")))
    return _Query(naics or None, words or None, state.upper() if isinstance(state, str) else None,
                  tuple(None if size is None else math.log10(1 + size) for size in sizes))


def class_depth(query: str, other: str) -> int:
    """How many leading digits two NAICS codes share (0 when the sectors differ)."""
    depth = 0
    for a, b in zip(query, other, strict=False):
        if a != b:
            break
        depth += 1
    return depth if depth >= 2 else 0


def _class_part(query: str, other: str) -> tuple[float, str | None]:
    depth = class_depth(query, other)
    if depth:
        code = other[:depth]
        reason = CLASS_REASONS[depth].format(code=code)
        title = naics_reference.title(code)
        return CLASS_DEPTH_SCORES[depth], f"{reason} ({title})" if title and depth < 6 else reason
    sector = naics_reference.sector_code(query)
    if "-" in sector and sector == naics_reference.sector_code(other):
        return RANGED_SECTOR_SCORE, f"same NAICS sector {sector} ({naics_reference.title(sector)})"
    return 0.0, None


def _log_closeness(a: float, b: float) -> float:
    """Closeness of two sizes already on a log10(1 + x) scale."""
    return max(0.0, 1.0 - abs(a - b) / SIZE_ORDERS)


def _parts(query: _Query, other: ReferenceBusiness, ratio: float | None,
           log_size: tuple[float | None, float | None], class_part: float) -> dict[str, float]:
    parts: dict[str, float] = {}
    if query.naics:
        parts["class"] = class_part
    if ratio is not None:
        parts["description"] = ratio / 100
    if query.state:
        parts["location"] = 1.0 if query.state == other.state else 0.0
    sizes = [_log_closeness(mine, theirs) for mine, theirs in zip(query.log_size, log_size,
                                                                   strict=True)
             if mine is not None and theirs is not None]
    if sizes:
        parts["size"] = sum(sizes) / len(sizes)
    return parts


def _score(parts: Mapping[str, float]) -> float:
    weight = sum(WEIGHTS[name] for name in parts)
    return round(sum(WEIGHTS[name] * value for name, value in parts.items()) / weight, 4)


def _reasons(query: _Query, other: ReferenceBusiness, parts: Mapping[str, float]) -> tuple[str, ...]:
    reasons: list[str] = []
    if query.naics and other.naics:
        reason = _class_part(query.naics, other.naics)[1]
        if reason:
            reasons.append(reason)
    if parts.get("description", 0) * 100 >= DESCRIPTION_REASON_MIN:
        reasons.append(f"description {round(parts['description'] * 100)}% alike")
    if parts.get("location") == 1.0:
        reasons.append("same state")
    if parts.get("size", 0) >= SIZE_REASON_MIN:
        reasons.append("similar size")
    return tuple(reasons)


def similar_businesses(query: Mapping[str, Any], reference: ReferenceSet | Sequence[ReferenceBusiness],
                       limit: int = 10) -> list[SimilarBusiness]:
    """The `limit` reference businesses most like `query`, best first.

    `query` is a Business (its `naics`, `description`, `state`, `annual_revenue` and
    `employee_count` are read) or just `{naics, description}`; it needs a NAICS code or a
    description. Raises SimilarityQueryError otherwise."""
    if not isinstance(reference, ReferenceSet):
        reference = ReferenceSet.of(reference)
    parsed = _query(query)
    limit = max(1, min(limit, MAX_LIMIT))
    ratios: list[float | None] = [None] * len(reference)
    if parsed.words:  # one call: rapidfuzz scores every description in its C loop
        for _, ratio, position in process.extract(parsed.words, reference.words,
                                                  scorer=fuzz.token_set_ratio, processor=None,
                                                  limit=None):
            ratios[position] = ratio
    class_parts: dict[str, float] = {}
    scored = []
    for business, ratio, log_size in zip(reference.businesses, ratios, reference.log_sizes,
                                         strict=True):
        if parsed.naics and business.naics and business.naics not in class_parts:
            class_parts[business.naics] = _class_part(parsed.naics, business.naics)[0]
        class_part = class_parts.get(business.naics, 0.0) if business.naics else 0.0
        parts = _parts(parsed, business, ratio, log_size, class_part)
        scored.append((-_score(parts), business.id, business, parts))
    scored.sort(key=lambda row: (row[0], row[1]))
    return [SimilarBusiness(business, -negative, {k: round(v, 4) for k, v in parts.items()},
                            _reasons(parsed, business, parts))
            for negative, _, business, parts in scored[:limit]]
