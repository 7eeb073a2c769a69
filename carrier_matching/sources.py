"""Where a match takes its candidates from: a market with its candidate index, optionally with a
workspace's own carriers, products and appetites laid over it.

`matching.match` reads one `CandidateSource` (its `market` and `index`); the shell decides what
goes into it (the shared market, a workspace's published appetite rules) and this module only
combines them. Appetites laid over a market are never pruned: the union index always names them,
so pruning stays correct whatever the base index knows.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Protocol

from insureops.carrier_matching.market import Appetite, Carrier, Market, Product
from insureops.carrier_matching.matching import CandidateIndex, MatchReport, match
from insureops.engine import ir

BUSINESS_INPUT = ("business", "Business")


class CandidateSource(Protocol):
    """The repository a match takes its carriers, products and appetites from."""

    @property
    def market(self) -> Market: ...

    @property
    def index(self) -> CandidateIndex | None: ...


@dataclass(frozen=True)
class MarketSource:
    """A market as it is, with its candidate index (None: every candidate is evaluated)."""

    market: Market
    index: CandidateIndex | None = None


class UnionIndex:
    """A base index, plus appetite names that are always candidates (never pruned)."""

    def __init__(self, base: CandidateIndex, always: Iterable[str]) -> None:
        self._base = base
        self.always = frozenset(always)

    def candidates(self, business: Mapping) -> frozenset[str]:
        return self._base.candidates(business) | self.always

    def why_pruned(self, name: str, business: Mapping) -> str | None:
        if name in self.always:
            return None
        return self._base.why_pruned(name, business)

    def screen(self, business: Mapping) -> _UnionScreen:
        return _UnionScreen(self._base.screen(business), self.always)

    def for_criteria(self, naics: str | None = None,
                     state: str | None = None) -> frozenset[str]:
        return self._base.for_criteria(naics, state) | self.always

    def constraints(self, name: str):
        """The base index's constraints of `name` (KeyError for an appetite laid over it)."""
        return self._base.constraints(name)  # type: ignore[attr-defined]


class _UnionScreen:
    """The base index's screen of a business, with the always-candidates added."""

    __slots__ = ("candidates", "_base", "_always")

    def __init__(self, base, always: frozenset[str]) -> None:
        self.candidates = base.candidates | always
        self._base, self._always = base, always

    def why(self, name: str) -> str | None:
        return None if name in self._always else self._base.why(name)


@dataclass(frozen=True)
class LayeredSource:
    """`base` with `own` carriers, products and appetites laid over it: an own carrier hides a
    base carrier of the same id; own appetites are always evaluated (never pruned)."""

    base: CandidateSource
    own: Market

    @cached_property
    def market(self) -> Market:
        if not self.own.carriers and not self.own.products:
            return self.base.market
        mine = {carrier.id for carrier in self.own.carriers}
        carriers = tuple(c for c in self.base.market.carriers if c.id not in mine)
        products = tuple(p for p in self.base.market.products if p.carrier_id not in mine)
        return Market(carriers + self.own.carriers, products + self.own.products,
                      self.base.market.appetites + self.own.appetites)

    @cached_property
    def index(self) -> CandidateIndex | None:
        base = self.base.index
        if base is None or not self.own.appetites:
            return base
        return UnionIndex(base, (appetite.name for appetite in self.own.appetites))


def own_market(carriers: Iterable[Carrier], products: Iterable[Product],
               appetites: Iterable[Appetite]) -> Market:
    """A workspace's own part of a market (products whose appetite is missing left out)."""
    appetites = tuple(appetites)
    paths = {appetite.path for appetite in appetites}
    return Market(tuple(carriers), tuple(p for p in products if p.appetite in paths), appetites)


def appetite_input_problem(ruleset: ir.Ruleset) -> str | None:
    """Why a ruleset cannot be an appetite (its inputs are not exactly `business: Business`),
    or None when it can."""
    found = [(i.name, i.type_name) for i in ruleset.inputs]
    if found == [BUSINESS_INPUT]:
        return None
    declared = ", ".join(f"{name}: {type_name}" for name, type_name in found) or "no input"
    return (f"an appetite declares exactly one input, `input business: Business`; ruleset "
            f"{ruleset.name} declares {declared}")


def match_source(business: Mapping, source: CandidateSource, *, as_of: datetime.date,
                 lines: Iterable[str] | None = None, explain: bool = False,
                 limit: int | None = None) -> MatchReport:
    """`matching.match` over what `source` holds."""
    return match(business, source.market, as_of=as_of, lines=lines, explain=explain,
                 limit=limit, index=source.index)
