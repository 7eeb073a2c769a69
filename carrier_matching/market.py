"""The market model: carriers, their products and the appetites (rulesets) the products point at."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from functools import cached_property
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from insureops.engine.evaluation.compiler import CompiledRuleset

MarketType = Literal["admitted", "surplus_lines"]
Severity = Literal["error", "warning"]
CarrierType = Literal["national", "regional", "specialty", "excess_and_surplus"]
AccessPath = Literal["direct", "wholesaler", "mga"]
Strength = Literal["preferred", "standard", "limited"]
CARRIER_TYPES: tuple[str, ...] = ("national", "regional", "specialty", "excess_and_surplus")
ACCESS_PATHS: tuple[str, ...] = ("direct", "wholesaler", "mga")
STRENGTHS: tuple[str, ...] = ("preferred", "standard", "limited")
CARRIER_TYPE_NAMES = {"national": "national carrier", "regional": "regional carrier",
                      "specialty": "specialty carrier", "excess_and_surplus": "E&S carrier"}


@dataclass(frozen=True, slots=True)
class Territory:
    """An underwriting territory: the states it covers and the underwriter who answers for them."""

    name: str
    states: frozenset[str]
    underwriter: str
    email: str
    phone: str | None = None


@dataclass(frozen=True, slots=True)
class Access:
    """How an agent reaches a carrier: a direct appointment, or through a named wholesaler or
    MGA of the market (`via`, an intermediary's id)."""

    path: AccessPath
    via: str | None = None


@dataclass(frozen=True, slots=True)
class Intermediary:
    """A wholesaler or MGA of the market, through which agents reach some carriers."""

    id: str
    name: str
    kind: Literal["wholesaler", "mga"]
    states: frozenset[str]
    contact: str
    email: str
    phone: str | None = None
    portal: str | None = None


@dataclass(frozen=True, slots=True)
class CarrierProfile:
    """What an agent needs beyond the appetite: the carrier's type, how to reach it, who
    underwrites each territory, where submissions go and how current the guide is."""

    type: CarrierType
    access: Access
    territories: tuple[Territory, ...]
    submission_email: str | None
    submission_portal: str | None
    quote_url: str | None
    guide_effective: date
    guide_reviewed: date

    def territory(self, state: str | None) -> Territory | None:
        """The territory that answers for `state`, or None."""
        return next((t for t in self.territories if state in t.states), None)


@dataclass(frozen=True, slots=True)
class Carrier:
    """An insurer: `id` is its folder's name (a slug), `naic_code` the NAIC company code,
    `rating` an AM Best-style financial strength rating, `states` where it writes."""

    id: str
    name: str
    naic_code: str
    rating: str
    market: MarketType
    states: frozenset[str]
    website: str | None = None
    active: bool = True
    profile: CarrierProfile | None = None

    @property
    def admitted(self) -> bool:
        return self.market == "admitted"


@dataclass(frozen=True, slots=True)
class Product:
    """A carrier's product on one line of business; `id` is `carrier/code`, `appetite` the path
    of the appetite's `.rules` file in the market (several products may share one)."""

    id: str
    carrier_id: str
    line: str
    name: str
    description: str
    states: frozenset[str]
    minimum_premium: Decimal
    max_limit: Decimal
    max_aggregate: Decimal | None
    admitted: bool
    appetite: str
    active: bool = True
    strength: Strength | None = None
    access: Access | None = None  # None: the carrier's
    quote_url: str | None = None


@dataclass(frozen=True)
class Appetite:
    """A carrier appetite: a ruleset with `input business: Business`, its source and the sha256
    of that source; `name` is the ruleset's name, `path` the file's path in the market."""

    name: str
    path: str
    source: str = field(repr=False)
    ruleset: CompiledRuleset = field(repr=False, compare=False)

    @cached_property
    def content_hash(self) -> str:
        return content_hash(self.source)

    @property
    def title(self) -> str | None:
        return self.ruleset.ir.title


def content_hash(source: str) -> str:
    """The sha256 of an appetite's source text, as hex."""
    return hashlib.sha256(source.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Market:
    """A checked market: every product's carrier, line and appetite exist."""

    carriers: tuple[Carrier, ...]
    products: tuple[Product, ...]
    appetites: tuple[Appetite, ...]
    intermediaries: tuple[Intermediary, ...] = ()

    @cached_property
    def derived(self) -> dict[str, object]:
        """What other modules work out once per market and keep with it, by their own key
        (carrier_matching.match_plan): a market never changes, so neither does any of it."""
        return {}

    @cached_property
    def _carriers(self) -> dict[str, Carrier]:
        return {carrier.id: carrier for carrier in self.carriers}

    @cached_property
    def _appetites(self) -> dict[str, Appetite]:
        return {appetite.path: appetite for appetite in self.appetites}

    def carrier(self, carrier_id: str) -> Carrier | None:
        return self._carriers.get(carrier_id)

    def intermediary(self, intermediary_id: str | None) -> Intermediary | None:
        return next((i for i in self.intermediaries if i.id == intermediary_id), None)

    def appetite(self, path: str) -> Appetite | None:
        """The appetite stored at `path` (a product's `appetite`)."""
        return self._appetites.get(path)

    def products_of(self, carrier_id: str) -> list[Product]:
        return [product for product in self.products if product.carrier_id == carrier_id]


@dataclass(frozen=True, slots=True)
class Problem:
    """One problem in a market folder: where (file, 1-based line and column when known), a stable
    code, and what is wrong. Appetite diagnostics keep the language's code (E104, W201...)."""

    file: str
    line: int | None
    column: int | None
    code: str
    message: str
    severity: Severity = "error"

    def render(self) -> str:
        """`FILE:LINE:COL: severity[CODE]: message` (line and column left out when unknown)."""
        where = self.file
        if self.line is not None:
            where += f":{self.line}:{self.column or 1}"
        return f"{where}: {self.severity}[{self.code}]: {self.message}"


class MarketError(Exception):
    """Root of the carrier_matching package's errors; `code` is stable."""

    code = "market_error"


class MarketInvalidError(MarketError):
    """A market with problems; `problems` lists every one, `str()` renders them one a line."""

    code = "market_invalid"

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = list(problems)
        super().__init__("\n".join(problem.render() for problem in self.problems))
