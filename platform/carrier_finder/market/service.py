"""What the carrier finder's routes do over the stored market: listings, pages, matching, counts."""

from __future__ import annotations

import datetime
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from insureops.carrier_matching import STATES
from insureops.carrier_matching import search as market_search
from insureops.carrier_matching.lines import LINES, line_by_code
from insureops.carrier_matching.market import Appetite, Carrier, Market, Product
from insureops.carrier_matching.matching import CandidateIndex, MatchReport, match
from insureops.platform.http import cursors

# Runs a function off the event loop for the caller's workspace (the matching threads).
Offload = Callable[[Callable[[], Any]], Awaitable[Any]]


@dataclass(frozen=True)
class Filters:
    """The listings' filters (each optional) and page."""

    lines: frozenset[str] | None = None  # ACORD codes: a policy line asks for all of its codes
    state: str | None = None
    carrier: str | None = None
    naics: str | None = None
    q: str | None = None
    limit: int = 50
    cursor: str | None = None


class CarrierNotFoundError(Exception):
    """No active carrier with that id in the market the workspace sees."""


class CursorInvalidError(Exception):
    """A listing's cursor this service did not issue."""


encode_cursor = cursors.encode_cursor


def decode_cursor(cursor: str) -> str:
    """The id a listing's cursor continues after; CursorInvalidError for another one."""
    try:
        return cursors.decode_cursor(cursor)
    except cursors.CursorInvalidError:
        raise CursorInvalidError(cursor) from None


def page(items: list, key, filters: Filters) -> tuple[list, str | None]:
    """Keyset page of `items` ordered by `key` (a string id): after the cursor, `limit` long."""
    ordered = sorted(items, key=key)
    if filters.cursor:
        after = decode_cursor(filters.cursor)
        ordered = [item for item in ordered if key(item) > after]
    chosen = ordered[:filters.limit]
    more = len(ordered) > filters.limit
    return chosen, encode_cursor(key(chosen[-1])) if more and chosen else None


def _product_matches(market: Market, product: Product, filters: Filters) -> bool:
    carrier = market.carrier(product.carrier_id)
    if not product.active or carrier is None or not carrier.active:
        return False
    if filters.lines and product.line not in filters.lines:
        return False
    if filters.state and filters.state not in product.states:
        return False
    if filters.carrier and product.carrier_id != filters.carrier:
        return False
    if filters.naics and market_search.class_reason(market.appetite(product.appetite),
                                                    filters.naics) is None:
        return False
    if filters.q:
        haystack = f"{carrier.name} {product.name} {product.description}".lower()
        return all(word in haystack for word in filters.q.lower().split())
    return True


def products(market: Market, filters: Filters) -> list[Product]:
    return [p for p in market.products if _product_matches(market, p, filters)]


def carriers(market: Market, filters: Filters) -> list[tuple[Carrier, list[Product]]]:
    """Active carriers with their active products; a carrier matches when it has a product that
    matches the product filters (or, for `state` and `q`, by its own states and name)."""
    found = []
    product_filters = Filters(lines=filters.lines, state=filters.state, carrier=filters.carrier,
                              naics=filters.naics)
    for carrier in market.carriers:
        if not carrier.active or (filters.carrier and carrier.id != filters.carrier):
            continue
        own = [p for p in market.products_of(carrier.id) if _product_matches(market, p, Filters())]
        narrowed = [p for p in own if _product_matches(market, p, product_filters)]
        if (filters.lines or filters.naics or filters.state) and not narrowed:
            continue
        if filters.q:
            haystack = " ".join([carrier.name, carrier.id] + [p.name for p in own]).lower()
            if not all(word in haystack for word in filters.q.lower().split()):
                continue
        found.append((carrier, own))
    return found


def appetites(market: Market, filters: Filters) -> list[tuple[Appetite, list[Product]]]:
    """Appetites named by at least one product that matches the filters, with those products."""
    chosen: dict[str, list[Product]] = {}
    for product in products(market, filters):
        chosen.setdefault(product.appetite, []).append(product)
    return [(market.appetite(path), items) for path, items in chosen.items()]


def criteria(naics: str | None, state: str | None, lines: list | None,
             text: str | None = None) -> market_search.Criteria:
    return market_search.Criteria(naics=naics, state=state,
                                  lines=tuple(str(line) for line in lines or ()), text=text)


async def match_business(run: Offload, market: Market, business: dict, *,
                         lines: list[str] | None, explain: bool, limit: int | None,
                         as_of: datetime.date, index: CandidateIndex | None = None
                         ) -> tuple[MatchReport, float]:
    """Match off the event loop, through `run` (the matching threads, admitted for the
    caller's workspace: the engine's work is CPU-bound); the report and its time in ms."""
    def work() -> tuple[MatchReport, float]:
        started = time.perf_counter()
        report = match(business, market, as_of=as_of, lines=lines, explain=explain, limit=limit,
                       index=index)
        return report, (time.perf_counter() - started) * 1000
    return await run(work)


def business_data(model_dump: dict) -> dict:
    """A validated Business (JSON mode dump) as engine input: numbers as Decimal."""
    return _decimals(model_dump)


def _decimals(value: Any) -> Any:
    if isinstance(value, float):
        return Decimal(str(value))
    if isinstance(value, dict):
        return {key: _decimals(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_decimals(item) for item in value]
    return value


def plain(value: Any) -> Any:
    """Engine values as JSON: Decimals as numbers, dates as ISO text, containers recursively."""
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, dict):
        return {str(key): plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [plain(item) for item in value]
    if isinstance(value, datetime.date | datetime.datetime):
        return value.isoformat()
    return value


def line_counts(market: Market, wanted: market_search.Criteria) -> list[tuple[Any, int]]:
    counts = market_search.count_candidates(market, wanted, lines=[line.code for line in LINES])
    return [(line, counts[line.code]) for line in LINES]


def line_name(code: str) -> str:
    line = line_by_code(code)
    return line.name if line else code


def active_carrier(market: Market, carrier_id: str) -> Carrier:
    """The market's active carrier `carrier_id`; CarrierNotFoundError otherwise."""
    carrier = market.carrier(carrier_id)
    if carrier is None or not carrier.active:
        raise CarrierNotFoundError("No such carrier.")
    return carrier


@dataclass(frozen=True)
class JurisdictionCount:
    code: str
    name: str
    kind: str  # state | district
    count: int


def jurisdictions() -> list[tuple[str, str, str]]:
    """(code, name, kind) of the jurisdictions a carrier can write in, by code: the core's one
    list (carrier_matching.STATES, what manifests accept), the District of Columbia a district."""
    return [(code, name, "district" if code == "DC" else "state")
            for code, name in sorted(STATES.items())]


def jurisdiction_counts(market: Market, wanted: market_search.Criteria,
                        state: str | None) -> list[JurisdictionCount]:
    """Each jurisdiction (only `state` when given) with its count of candidate products; with
    criteria, only those where the market has appetite."""
    rows = [row for row in jurisdictions() if not state or row[0] == state]
    counts = market_search.count_candidates(market, wanted, states=[code for code, _, _ in rows])
    return [JurisdictionCount(code, name, kind, counts[code]) for code, name, kind in rows
            if code in counts and (wanted.empty or counts[code] > 0)]
