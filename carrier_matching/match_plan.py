"""What matching works out once per market rather than per business: the products it may answer
(active, of an active carrier) in market order, each with its carrier, appetite, rank among
equals, surplus lines note and the regulatory reason that does not depend on the state; and,
filled on first use, each appetite's entry point and the kind of each rule's reasons.

A market is immutable, so the plan is kept on it (`Market.derived`) and a matcher in several
threads shares it; the only state it gains later is each entry's resolved entry point and rule
kinds, written once with the same value by whichever thread gets there first.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from insureops.carrier_matching.compiled import LazyRuleset
from insureops.carrier_matching.market import Appetite, Carrier, Market, Product
from insureops.carrier_matching.reasons import rule_kinds
from insureops.carrier_matching.regulation import (
    DILIGENT_SEARCH_NOTE,
    WORKERS_COMP,
    surplus_lines_forbidden,
)

PLAN_KEY = "carrier_matching.match_plan"


@dataclass(slots=True, eq=False)
class Entry:
    """One product the matcher may answer, with what does not depend on the business.
    `position` is its place in the market ordered by carrier name, product name and id (ties
    in market order): the ranking among answers of equal decision and score."""

    carrier: Carrier
    product: Product
    appetite: Appetite
    position: int
    line: str
    states: frozenset[str]
    surplus_reason: str | None   # a non-admitted product on a line surplus lines may not write
    comp: bool                   # workers compensation: barred in the monopolistic states
    notes: tuple[str, ...]       # for an answer that is not a decline
    run: Callable | None = field(default=None)   # the compiled evaluate, resolved on first use
    kinds: dict | None = field(default=None)     # rule name -> the kinds of its reasons

    def evaluate(self) -> Callable:
        """The appetite's compiled entry point (compiled now, the first time)."""
        found = self.run
        if found is None:
            ruleset = self.appetite.ruleset
            found = ruleset.compiled.evaluate if isinstance(ruleset, LazyRuleset) \
                else ruleset.evaluate
            self.run = found
        return found

    def rule_kinds(self) -> dict:
        found = self.kinds
        if found is None:
            ruleset = self.appetite.ruleset
            kept = getattr(ruleset, "rule_kinds", None)  # LazyRuleset's, read without IR
            found = self.kinds = kept() if callable(kept) else rule_kinds(ruleset.ir)
        return found


@dataclass(frozen=True, slots=True)
class MatchPlan:
    """A market's entries in market order (`entries`), and their lines."""

    entries: tuple[Entry, ...]
    lines: frozenset[str]

    def candidates(self, wanted: Iterable[str] | None) -> tuple[Entry, ...] | list[Entry]:
        """The entries on `wanted` lines (all when None), in market order."""
        if wanted is None:
            return self.entries
        wanted = frozenset(wanted)
        if self.lines <= wanted:
            return self.entries
        return [entry for entry in self.entries if entry.line in wanted]


def match_plan(market: Market) -> MatchPlan:
    """The market's plan, made on its first match and kept with it."""
    kept = market.derived
    found = kept.get(PLAN_KEY)
    if found is None:
        found = kept.setdefault(PLAN_KEY, _plan(market))
    return found


def _plan(market: Market) -> MatchPlan:
    chosen: list[tuple[Carrier, Product, Appetite]] = []
    for product in market.products:
        carrier = market.carrier(product.carrier_id)
        if not product.active or carrier is None or not carrier.active:
            continue
        chosen.append((carrier, product, market.appetite(product.appetite)))
    order = sorted(range(len(chosen)), key=lambda i: (chosen[i][0].name, chosen[i][1].name,
                                                      chosen[i][1].id))
    position = {item: rank for rank, item in enumerate(order)}
    entries = tuple(
        Entry(carrier, product, appetite, position[i], product.line, product.states,
              surplus_lines_forbidden(product.line, product.admitted),
              product.line == WORKERS_COMP,
              () if product.admitted else (DILIGENT_SEARCH_NOTE,))
        for i, (carrier, product, appetite) in enumerate(chosen))
    return MatchPlan(entries, frozenset(entry.line for entry in entries))
