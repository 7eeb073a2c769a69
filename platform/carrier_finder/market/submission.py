"""Starting an underwriting submission from a matched product (the finder page's "Start a
submission"): what the submission records, and its one transaction on the tenant database.

The record is written by the tenant API's own use cases (`tenancy.book.service`: the client,
then `create_submission`), on the store of the session's workspace, so the page and an API key
write the same rows with the same checks and audit, and the bindings on `uw_submission` score it.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Any

from insureops.carrier_matching.lines import line_by_code
from insureops.carrier_matching.market import Carrier, Market, Product
from insureops.carrier_matching.normalise import normalise_business
from insureops.platform.carrier_finder.market.service import CarrierNotFoundError, plain
from insureops.platform.tenancy.book import service as book
from insureops.platform.tenancy.book.payloads import ClientCreate, UwSubmissionCreate
from insureops.platform.tenancy.book.repository import TenantRecords

SOURCE = "carrier-finder"


class ProductNotFoundError(CarrierNotFoundError):
    """No active product with that id in the market the workspace sees (404)."""


@dataclass(frozen=True)
class Chosen:
    """The product chosen, with its carrier, as the market the workspace sees has them."""

    carrier: Carrier
    product: Product


def chosen_product(market: Market, product_id: str) -> Chosen:
    """The active product `product_id` of an active carrier; ProductNotFoundError otherwise."""
    product = next((p for p in market.products if p.id == product_id and p.active), None)
    carrier = market.carrier(product.carrier_id) if product is not None else None
    if product is None or carrier is None or not carrier.active:
        raise ProductNotFoundError(f"No product {product_id} in the market this workspace sees.")
    return Chosen(carrier, product)


def submission_values(chosen: Chosen, business: dict[str, Any], answered: dict[str, Any],
                      as_of: datetime.date) -> dict[str, Any]:
    """The uw_submission's fields (client aside): the line the product is written on, and the
    answers: the business as the appetites read it (a state by name as its code, ...; a bad
    field is BusinessInputError), the questions answered, the carrier and the product."""
    carrier, product = chosen.carrier, chosen.product
    read = normalise_business(business, as_of=as_of)
    line = line_by_code(product.line)
    profile = carrier.profile
    return {
        "lob": line.policy_line if line is not None else "other",
        "answers": {
            "source": SOURCE,
            "carrier": {"id": carrier.id, "name": carrier.name, "naic_code": carrier.naic_code,
                        "market": carrier.market},
            "product": {"id": product.id, "name": product.name, "line": product.line,
                        "minimum_premium": plain(product.minimum_premium),
                        "max_limit": plain(product.max_limit)},
            "submit_to": {"email": profile.submission_email if profile else None,
                          "portal": profile.submission_portal if profile else None},
            "business": plain(read.business),
            "read_as": list(read.warnings),
            "answered": plain(answered),
        },
    }


async def start_submission(records: TenantRecords, tenant_id: str, actor: book.Actor,
                           values: dict[str, Any], client_id: Any = None,
                           client: ClientCreate | None = None
                           ) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """Save the new `client` (when given) and the submission for it (or for the workspace's
    client `client_id`, by `id` or `uuid`), in the caller's one transaction: both or neither.
    Returns (submission, the client saved or None)."""
    saved = None
    if client is not None:
        saved = await book.create(records, book.CLIENT, tenant_id, actor, client)
        client_id = saved["id"]
    payload = UwSubmissionCreate.model_validate(
        {**values, "client_id": None if client_id is None else str(client_id)})
    return await book.create_submission(records, tenant_id, actor, payload), saved
