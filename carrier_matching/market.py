"""The market model: carriers, their products and the appetites (rulesets) the products point at."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from decimal import Decimal
from functools import cached_property
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from insureops.engine.evaluation.compiler import CompiledRuleset

MarketType = Literal["admitted", "surplus_lines"]
Severity = Literal["error", "warning"]


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

    @cached_property
    def _carriers(self) -> dict[str, Carrier]:
        return {carrier.id: carrier for carrier in self.carriers}

    @cached_property
    def _appetites(self) -> dict[str, Appetite]:
        return {appetite.path: appetite for appetite in self.appetites}

    def carrier(self, carrier_id: str) -> Carrier | None:
        return self._carriers.get(carrier_id)

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
