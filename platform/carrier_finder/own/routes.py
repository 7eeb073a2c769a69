"""HTTP routes of a workspace's own carriers and products (admins and owners change them)."""

from __future__ import annotations

import datetime
from decimal import Decimal

from insureops.platform.auth.requirements import Auth, Role
from insureops.platform.carrier_finder.own import service as own
from insureops.platform.carrier_finder.own.models import WorkspaceCarrier, WorkspaceProduct
from insureops.platform.carrier_finder.own.payloads import (
    AppetiteState,
    CarrierCreate,
    CarrierUpdate,
    OwnCarrierInfo,
    OwnCarrierPath,
    OwnProductInfo,
    OwnProductPath,
    ProductCreate,
    ProductUpdate,
)
from insureops.platform.carrier_finder.view import compiled_cache, market_store, rule_catalog
from insureops.platform.http.errors import ApiError
from insureops.platform.http.routing import Call, RouteTable
from insureops.platform.keys import CLOCK

ADMIN = Auth.session(Role.ADMIN)
CARRIER = "/carriers/{carrier_id}/"
PRODUCT = "/products/{carrier_id}/{code}/"

routes = RouteTable("carrier_finder")  # included by the area's table (carrier_finder/routes.py)
routes.map_error(own.OwnEntryNotFoundError, 404, "not_found")
routes.map_error(own.OwnEntryTakenError, 409, "conflict")
routes.map_error(own.OwnCarrierUnknownError, 400, "validation_error", details=lambda e: [
    {"field": "carrier_id", "message": str(e)}])
routes.map_error(own.OwnLimitsError, 400, "validation_error", details=lambda e: [
    {"field": e.field, "message": str(e)}])
routes.map_error(own.AppetiteRuleInvalidError, 422, "appetite_rule_invalid",
                 details=lambda e: [{"field": "appetite_rule_id", "message": str(e)}])


def _actor(call: Call) -> own.Actor:
    return own.Actor(call.principal.active_workspace_id, call.principal.user.id)


def _now(call: Call) -> datetime.datetime:
    return datetime.datetime.fromtimestamp(call.request.config_dict[CLOCK](), datetime.UTC)


def carrier_info(row: WorkspaceCarrier) -> OwnCarrierInfo:
    return OwnCarrierInfo(id=row.slug, name=row.name, naic_code=row.naic_code,
                          rating=row.rating or own.UNRATED, market=row.market,
                          states=sorted(row.states), website=row.website, active=row.active,
                          submission_email=row.submission_email,
                          submission_portal=row.submission_portal, quote_url=row.quote_url,
                          created_at=row.created_at, updated_at=row.updated_at)


def product_info(row: WorkspaceProduct, carrier: WorkspaceCarrier,
                 state: own.AppetiteState) -> OwnProductInfo:
    return OwnProductInfo(
        id=row.slug, carrier_id=carrier.slug, line=row.line, name=row.name,
        description=row.description, states=sorted(row.states),
        minimum_premium=float(row.minimum_premium), max_limit=float(row.max_limit),
        max_aggregate=None if row.max_aggregate is None else float(row.max_aggregate),
        admitted=row.admitted, active=row.active, strength=row.strength,
        quote_url=row.quote_url,
        appetite=AppetiteState(rule_id=state.rule_id, name=state.name, status=state.status,
                               version=state.version, reason=state.reason),
        created_at=row.created_at, updated_at=row.updated_at)


NULLABLE = frozenset({"naic_code", "rating", "website", "max_aggregate"})
AMOUNTS = ("minimum_premium", "max_limit", "max_aggregate")


def _values(model, *, exclude: set[str] = frozenset()) -> dict:
    """The fields the body sets, as column values; null only where a column may be null."""
    values = model.model_dump(exclude_unset=True, exclude=exclude)
    nulls = sorted(key for key, value in values.items() if value is None and key not in NULLABLE)
    if nulls:
        raise ApiError(400, "validation_error", "The request body is invalid.", details=[
            {"field": key, "message": "cannot be null; leave it out to keep it"}
            for key in nulls])
    if "line" in values:
        values["line"] = str(values["line"])
    for key in AMOUNTS:
        if values.get(key) is not None:
            values[key] = Decimal(str(values[key]))
    return values


@routes.post("/carriers/", body=CarrierCreate, response=OwnCarrierInfo, status=201,
             auth=ADMIN, errors=(409,), summary="Add a carrier of the workspace's own",
             description="A carrier the workspace is appointed with outside the market "
             "(admins and owners). Listed and matched in this workspace only; an id the "
             "market or the workspace already has is 409 conflict.")
async def create_carrier(call: Call[CarrierCreate, None]) -> OwnCarrierInfo:
    async with call.unit_of_work() as uow:
        row = await own.create_carrier(uow.session, market_store(call), _actor(call), call.body.id,
                                       _values(call.body, exclude={"id"}), _now(call))
    return carrier_info(row)


@routes.patch(CARRIER, path_model=OwnCarrierPath, body=CarrierUpdate,
              response=OwnCarrierInfo, auth=ADMIN, errors=(404,),
              summary="Change one of the workspace's own carriers",
              description="`active: false` deactivates it (as DELETE does), `true` "
              "reactivates it. Market carriers and other workspaces' are 404.")
async def update_carrier(call: Call[CarrierUpdate, None]) -> OwnCarrierInfo:
    async with call.unit_of_work() as uow:
        row = await own.update_carrier(uow.session, _actor(call), call.path.carrier_id,
                                       _values(call.body), _now(call))
    return carrier_info(row)


@routes.delete(CARRIER, path_model=OwnCarrierPath, response=None, status=204, auth=ADMIN,
               errors=(404,), summary="Deactivate one of the workspace's own carriers",
               description="Kept, no longer listed or matched (with its products); PATCH "
               "`active: true` brings it back.")
async def deactivate_carrier(call: Call[None, None]) -> None:
    async with call.unit_of_work() as uow:
        await own.update_carrier(uow.session, _actor(call), call.path.carrier_id,
                                 {"active": False}, _now(call))


@routes.post("/products/", body=ProductCreate, response=OwnProductInfo, status=201,
             auth=ADMIN, errors=(409, 422), summary="Add a product to an own carrier",
             description="Its appetite is `appetite_rule_id`, a rule of the rule studio of "
             "kind appetite in this workspace declaring `input business: Business` (else "
             "422 appetite_rule_invalid). Its published version is matched beside the "
             "market; until one is published the product is listed but not matched.")
async def create_product(call: Call[ProductCreate, None]) -> OwnProductInfo:
    body = call.body
    async with call.unit_of_work() as uow:
        row = await own.create_product(uow.session, rule_catalog(call), _actor(call),
                                       body.carrier_id, body.code,
                                       _values(body, exclude={"carrier_id", "code"}),
                                       _now(call))
        carrier = await own.carrier_of(uow.session, row)
        state = await own.product_state(uow.session, rule_catalog(call), compiled_cache(call), row)
    return product_info(row, carrier, state)


@routes.patch(PRODUCT, path_model=OwnProductPath, body=ProductUpdate,
              response=OwnProductInfo, auth=ADMIN, errors=(404, 422),
              summary="Change one of the workspace's own products",
              description="`appetite_rule_id` rebinds it (checked as on creation); "
              "`active: false` deactivates it.")
async def update_product(call: Call[ProductUpdate, None]) -> OwnProductInfo:
    path = call.path
    async with call.unit_of_work() as uow:
        row = await own.update_product(uow.session, rule_catalog(call), _actor(call),
                                       f"{path.carrier_id}/{path.code}", _values(call.body),
                                       _now(call))
        carrier = await own.carrier_of(uow.session, row)
        state = await own.product_state(uow.session, rule_catalog(call), compiled_cache(call), row)
    return product_info(row, carrier, state)


@routes.delete(PRODUCT, path_model=OwnProductPath, response=None, status=204, auth=ADMIN,
               errors=(404,), summary="Deactivate one of the workspace's own products")
async def deactivate_product(call: Call[None, None]) -> None:
    path = call.path
    async with call.unit_of_work() as uow:
        await own.update_product(uow.session, rule_catalog(call), _actor(call),
                                 f"{path.carrier_id}/{path.code}", {"active": False},
                                 _now(call))
