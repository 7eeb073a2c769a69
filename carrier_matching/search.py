"""Searching a market without scoring: which products may write a NAICS class, state and line, and why."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from insureops.carrier_matching.lines import line_by_code
from insureops.carrier_matching.market import Appetite, Carrier, Market, Product
from insureops.carrier_matching.matching import CandidateIndex, candidate_products

# NAICS codes appear in appetites as quoted digit strings: "238210", "2382".
NAICS_LITERAL = re.compile(r'"([0-9]{2,6})"')


@dataclass(frozen=True, slots=True)
class Criteria:
    """What a search narrows by (each optional): a NAICS code or prefix, a state, line codes and
    words of a carrier's or product's name or description."""

    naics: str | None = None
    state: str | None = None
    lines: tuple[str, ...] = ()
    text: str | None = None

    @property
    def empty(self) -> bool:
        return not (self.naics or self.state or self.lines or self.text)


@dataclass(frozen=True, slots=True)
class Candidate:
    """A product that may write the criteria, with why it is a candidate."""

    carrier: Carrier
    product: Product
    appetite: Appetite
    reasons: tuple[str, ...]


@lru_cache(maxsize=4096)
def named_classes(source: str) -> frozenset[str]:
    """The NAICS codes and prefixes an appetite's source names (targets, groups and exclusions)."""
    return frozenset(NAICS_LITERAL.findall(source))


def class_reason(appetite: Appetite, naics: str) -> str | None:
    """Why the appetite may write `naics` (a code or a prefix), or None when it names no class
    that `naics` falls in or contains. An appetite naming no class at all may write any."""
    classes = named_classes(appetite.source)
    if not classes:
        return "its appetite names no NAICS class, so it may write any"
    related = sorted(c for c in classes if c.startswith(naics) or naics.startswith(c))
    if not related:
        return None
    shown = ", ".join(related[:5]) + (" ..." if len(related) > 5 else "")
    return f"its appetite names NAICS {shown}"


def search(market: Market, criteria: Criteria,
           index: CandidateIndex | None = None) -> list[Candidate]:
    """The active products that may write `criteria`, by carrier then product name, each with
    its reasons. With `index` (carrier_matching.pruning), the index decides the NAICS class and
    state; without it, the class is judged from the codes the appetite names."""
    words = [w for w in (criteria.text or "").lower().split() if w]
    kept = None
    if index is not None and (criteria.naics or criteria.state):
        # the rest of the business is unknown here: some business of this class (a code or a
        # prefix) and state, not this exact record
        kept = index.for_criteria(naics=criteria.naics or None, state=criteria.state or None)
    found = []
    for product in candidate_products(market, criteria.lines or None):
        carrier = market.carrier(product.carrier_id)
        appetite = market.appetite(product.appetite)
        reasons = _reasons(carrier, product, appetite, criteria, words, kept)
        if reasons is not None:
            found.append(Candidate(carrier, product, appetite, tuple(reasons)))
    found.sort(key=lambda c: (c.carrier.name, c.product.name, c.product.id))
    return found


def _reasons(carrier: Carrier, product: Product, appetite: Appetite, criteria: Criteria,
             words: list[str], kept: frozenset[str] | None) -> list[str] | None:
    reasons = []
    if criteria.lines:
        line = line_by_code(product.line)
        reasons.append(f"writes {product.line} ({line.name if line else product.line})")
    if criteria.state:
        if criteria.state not in product.states:
            return None
        reasons.append(f"offered in {criteria.state}")
    if kept is not None:
        if appetite.name not in kept:
            return None
        if criteria.naics:
            reasons.append(f"its appetite may accept or refer NAICS {criteria.naics}")
    elif criteria.naics:
        reason = class_reason(appetite, criteria.naics)
        if reason is None:
            return None
        reasons.append(reason)
    if words:
        haystack = f'{carrier.name} {product.name} {product.description}'.lower()
        if not all(word in haystack for word in words):
            return None
        reasons.append(f"its name or description mentions {' '.join(words)!r}")
    return reasons


def count_candidates(market: Market, criteria: Criteria, index: CandidateIndex | None = None,
                     *, states: Iterable[str] = (), lines: Iterable[str] = ()) -> dict[str, int]:
    """For each state (or each line) given, how many products are candidates when the criteria
    are narrowed to it; pass `states` or `lines`, not both."""
    counts = {}
    for state in states:
        counts[state] = len(search(market, _with(criteria, state=state), index))
    for line in lines:
        if criteria.lines and line not in criteria.lines:
            counts[line] = 0
            continue
        counts[line] = len(search(market, _with(criteria, lines=(line,)), index))
    return counts


def _with(criteria: Criteria, **changes) -> Criteria:
    values = {"naics": criteria.naics, "state": criteria.state, "lines": criteria.lines,
              "text": criteria.text}
    values.update(changes)
    return Criteria(**values)
