"""How a workspace's own products show in the finder's listings and match answers: marked as
its own, and, when their appetite rule has no usable published version, listed with why."""

from __future__ import annotations

from collections.abc import Mapping

from insureops.carrier_matching.matching import requested_lines
from insureops.platform.carrier_finder.market import service
from insureops.platform.carrier_finder.market.payloads import (
    CarrierRef,
    ProductInfo,
    ProductRef,
    UnmatchedItem,
)
from insureops.platform.carrier_finder.own.service import UNRATED
from insureops.platform.carrier_finder.view import View


def product_marks(view: View, product_id: str) -> dict:
    """ProductInfo's own fields for a product of the view's market."""
    row = view.own_products.get(product_id)
    if row is None:
        return {}
    state = view.state_of(row)
    return {"own": True, "appetite_rule_id": row.appetite_rule_id,
            "appetite_status": state.status}


def appetite_fields(view: View, appetite, products: list) -> dict:
    """AppetiteInfo's carrier and version for an own appetite (a published rule version)."""
    rule_id = next((view.own_products[p.id].appetite_rule_id for p in products
                    if p.id in view.own_products), None)
    if rule_id is None:
        return {}
    state = view.appetites[rule_id]
    return {"carrier_id": products[0].carrier_id, "version": state.version}


def _kept(view: View, filters: service.Filters, row, carrier) -> bool:
    if filters.naics:  # no published appetite: nothing says which classes it writes
        return False
    if filters.lines and row.line not in filters.lines:
        return False
    if filters.state and filters.state not in row.states:
        return False
    if filters.carrier and carrier.slug != filters.carrier:
        return False
    if filters.q:
        haystack = f"{carrier.name} {row.name} {row.description}".lower()
        return all(word in haystack for word in filters.q.lower().split())
    return True


def unmatched_products(view: View, filters: service.Filters) -> list[ProductInfo]:
    """The own products that are listed but not matched (no usable published appetite)."""
    carriers = {row.id: row for row in view.own_carriers.values()}
    found = []
    for row, state in view.unmatched:
        carrier = carriers[row.carrier_id]
        if not _kept(view, filters, row, carrier):
            continue
        found.append(ProductInfo(
            id=row.slug, carrier_id=carrier.slug, carrier_name=carrier.name, line=row.line,
            line_name=service.line_name(row.line), name=row.name, description=row.description,
            states=sorted(row.states), minimum_premium=float(row.minimum_premium),
            max_limit=float(row.max_limit),
            max_aggregate=None if row.max_aggregate is None else float(row.max_aggregate),
            admitted=row.admitted, appetite=state.name or state.rule_id, own=True,
            appetite_rule_id=row.appetite_rule_id, appetite_status=state.status))
    return found


def unmatched_items(view: View, business: Mapping, lines: list[str] | None
                    ) -> list[UnmatchedItem]:
    """The own products on the lines of a match that it could not evaluate, with why."""
    wanted = requested_lines(business, lines)
    carriers = {row.id: row for row in view.own_carriers.values()}
    found = []
    for row, state in view.unmatched:
        if wanted is not None and row.line not in wanted:
            continue
        carrier = carriers[row.carrier_id]
        found.append(UnmatchedItem(
            carrier=CarrierRef(id=carrier.slug, name=carrier.name,
                               rating=carrier.rating or UNRATED),
            product=ProductRef(id=row.slug, name=row.name, line=row.line),
            appetite_rule_id=row.appetite_rule_id, appetite_status=state.status,
            reason=state.reason or ""))
    return found
