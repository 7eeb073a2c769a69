"""HTTP routes of the market sub-area: carriers, products and appetites, search, scored matching,
jurisdictions, product lines and classification. Included by the area's table
(carrier_finder/routes.py)."""

from __future__ import annotations

import datetime

from insureops.carrier_matching import search as market_search
from insureops.carrier_matching.market import Carrier, Market, Product
from insureops.carrier_matching.normalise import BusinessInputError
from insureops.engine.ir.errors import EvaluationError
from insureops.platform.auth.requirements import Auth
from insureops.platform.carrier_finder.classification import (
    classify_text,
    request_workspace,
    workspace_llm_key,
)
from insureops.platform.carrier_finder.market import answers, listing, service, submission
from insureops.platform.carrier_finder.market.offload import matching
from insureops.platform.carrier_finder.market.payloads import (
    AppetiteInfo,
    AppetitePage,
    CarrierDetail,
    CarrierInfo,
    CarrierPage,
    CarrierPath,
    CarrierRef,
    Classification,
    ClassifyRequest,
    ClassifyResponse,
    Criteria,
    Jurisdiction,
    JurisdictionList,
    ListQuery,
    MatchItem,
    MatchRequest,
    MatchResponse,
    ProductInfo,
    ProductLine,
    ProductLineList,
    ProductPage,
    ProductRef,
    SearchItem,
    SearchRequest,
    SearchResponse,
    SubmissionCreated,
    SubmissionRequest,
)
from insureops.platform.carrier_finder.view import View, market_store, view_for
from insureops.platform.compute.heavy_work import map_heavy_work_errors
from insureops.platform.http.ratelimit import RateKey, RateLimit
from insureops.platform.http.routing import Call, Owner, RouteTable
from insureops.platform.keys import CLOCK, TENANT_POOLS
from insureops.platform.tenancy.book import service as book
from insureops.platform.tenancy.book.errors import (
    PayloadInvalidError,
    RecordMissingError,
    StateConflictError,
)
from insureops.platform.tenancy.book.payloads import ClientRecord, UwSubmissionRecord
from insureops.platform.tenancy.workspaces import map_tenant_database_errors, request_tenant_store

CLASSIFY_LIMIT = RateLimit("classify", 30, 60, key=RateKey.CLIENT_IP)

routes = RouteTable("carrier_finder")  # included by the area's table (carrier_finder/routes.py)
routes.map_error(EvaluationError, 400, "business_invalid")
routes.map_error(BusinessInputError, 400, "business_invalid", details=lambda e: [
    {"field": f"business.{d['field']}", "message": d["message"]} for d in e.details])
routes.map_error(service.CarrierNotFoundError, 404, "not_found")
routes.map_error(service.CursorInvalidError, 400, "validation_error",
                 message="The query is invalid.", details=lambda e: [
                     {"field": "cursor", "message": "is not a cursor this service issued; pass "
                      "next_cursor of the previous page unchanged"}])
map_heavy_work_errors(routes)
# a submission is written by the tenant API's use cases: their errors, answered as that API does
routes.map_error(PayloadInvalidError, 400, "validation_error", details=lambda e: e.details)
routes.map_error(RecordMissingError, 404, "not_found")
routes.map_error(StateConflictError, 409, "conflict", details=lambda e: e.details)
map_tenant_database_errors(routes)


async def _market(call: Call) -> Market:
    """The market the session's workspace sees: the shared one with its own entries."""
    return (await view_for(call)).market


def _filters(query: ListQuery) -> service.Filters:
    lines = frozenset(str(code) for code in query.line) if query.line else None
    return service.Filters(lines=lines, state=query.state,
                           carrier=query.carrier, naics=query.naics, q=query.q,
                           limit=query.limit, cursor=query.cursor)


def _product(market: Market, product: Product, view: View | None = None) -> ProductInfo:
    carrier = market.carrier(product.carrier_id)
    return ProductInfo(
        id=product.id, carrier_id=carrier.id, carrier_name=carrier.name, line=product.line,
        line_name=service.line_name(product.line), name=product.name,
        description=product.description, states=sorted(product.states),
        minimum_premium=float(product.minimum_premium), max_limit=float(product.max_limit),
        max_aggregate=None if product.max_aggregate is None else float(product.max_aggregate),
        admitted=product.admitted, appetite=market.appetite(product.appetite).name,
        **(listing.product_marks(view, product.id) if view else {}))


def _carrier(carrier: Carrier, products: list[Product], view: View | None = None) -> dict:
    return {"id": carrier.id, "name": carrier.name, "naic_code": carrier.naic_code,
            "rating": carrier.rating, "market": carrier.market,
            "states": sorted(carrier.states), "website": carrier.website,
            "lines": sorted({p.line for p in products}), "product_count": len(products),
            "own": view is not None and carrier.id in view.own_carriers}


@routes.get("/carriers/", query=ListQuery, response=CarrierPage, auth=Auth.SESSION,
            summary="List active carriers",
            description="Filters (line, state, carrier, naics prefix, q) combine with AND; follow "
            "`next_cursor` for the next page.")
async def list_carriers(call: Call[None, ListQuery]) -> CarrierPage:
    filters, view = _filters(call.query), await view_for(call)
    found, cursor = service.page(service.carriers(view.market, filters),
                                 lambda row: row[0].id, filters)
    return CarrierPage(items=[CarrierInfo(**_carrier(c, ps, view)) for c, ps in found],
                       next_cursor=cursor)


@routes.get("/carriers/{carrier_id}/", path_model=CarrierPath, response=CarrierDetail,
            auth=Auth.SESSION, owner=Owner.WORKSPACE, errors=(404,),
            summary="Carrier details, with its products")
async def carrier_detail(call: Call[None, None]) -> CarrierDetail:
    view = await view_for(call)
    market = view.market
    carrier = service.active_carrier(market, call.path.carrier_id)
    own = service.products(market, service.Filters(carrier=carrier.id))
    items = [_product(market, p, view) for p in own]
    items += listing.unmatched_products(view, service.Filters(carrier=carrier.id))
    return CarrierDetail(**_carrier(carrier, own, view),
                         products=sorted(items, key=lambda p: p.id))


@routes.get("/products/", query=ListQuery, response=ProductPage, auth=Auth.SESSION,
            summary="List carrier products",
            description="Active products of active carriers; filters combine with AND.")
async def list_products(call: Call[None, ListQuery]) -> ProductPage:
    view, filters = await view_for(call), _filters(call.query)
    items = [_product(view.market, p, view) for p in service.products(view.market, filters)]
    items += listing.unmatched_products(view, filters)
    found, cursor = service.page(items, lambda p: p.id, filters)
    return ProductPage(items=found, next_cursor=cursor)


@routes.get("/appetites/", query=ListQuery, response=AppetitePage, auth=Auth.SESSION,
            summary="List carrier appetites",
            description="Each appetite's metadata and source, with the products naming it.")
async def list_appetites(call: Call[None, ListQuery]) -> AppetitePage:
    view, filters = await view_for(call), _filters(call.query)
    store = market_store(call)
    found, cursor = service.page(service.appetites(view.market, filters),
                                 lambda row: row[0].name, filters)
    items = [AppetiteInfo(**{"name": a.name, "title": a.title, "path": a.path,
                             "carrier_id": a.path.split("/", 1)[0],
                             "content_hash": a.content_hash,
                             "version": store.version(a.content_hash),
                             "products": sorted(p.id for p in ps), "source": a.source,
                             **listing.appetite_fields(view, a, ps)})
             for a, ps in found]
    return AppetitePage(items=items, next_cursor=cursor)


def _refs(carrier: Carrier, product: Product) -> dict:
    return {"carrier": CarrierRef(id=carrier.id, name=carrier.name, rating=carrier.rating),
            "product": ProductRef(id=product.id, name=product.name, line=product.line)}


@routes.post("/search/", body=SearchRequest, response=SearchResponse, auth=Auth.SESSION,
             summary="Search carriers by business criteria",
             description="Candidate products for a NAICS code or prefix, a state, lines and "
             "words, each with why it is a candidate; nothing is scored.")
async def search(call: Call[SearchRequest, None]) -> SearchResponse:
    body = call.body
    wanted = service.criteria(body.naics, body.state, body.lines, body.q)
    view = await view_for(call)
    index = view.source.index
    found = market_search.search(view.market, wanted, index)
    return SearchResponse(results=[SearchItem(**_refs(c.carrier, c.product),
                                              appetite=c.appetite.name, reasons=list(c.reasons))
                                   for c in found],
                          index="named_classes" if index is None else "pruning")


def _today(call: Call) -> datetime.date:
    return datetime.datetime.fromtimestamp(call.request.config_dict[CLOCK](), datetime.UTC).date()


@routes.post("/match-carriers-detailed/", body=MatchRequest, response=MatchResponse,
             auth=Auth.SESSION, summary="Detailed carrier matching with scoring",
             description="Every candidate product's appetite evaluated by the rules engine; "
             "ranked accept, refer, decline, then score, then name. Declines are included "
             "with their reasons; `explain` adds the engine's trace.")
async def match_detailed(call: Call[MatchRequest, None]) -> MatchResponse:
    body = call.body
    view = await view_for(call)
    market = view.market
    business = service.business_data(body.business.model_dump(mode="json"))
    lines = [str(line) for line in body.lines] if body.lines else None
    report, elapsed = await service.match_business(matching(call), market, business, lines=lines,
                                                   explain=body.explain, limit=body.limit,
                                                   as_of=_today(call), index=view.source.index)
    items = [MatchItem(**_refs(r.carrier, r.product), **answers.product_fields(market, r),
                       decision=r.decision, score=float(r.score),
                       reasons=list(r.reasons), tags=list(r.tags), outputs=service.plain(r.outputs),
                       evaluated=r.evaluated,
                       trace=service.plain(r.trace) if r.trace is not None else None,
                       own=r.product.id in view.own_products)
             for r in report.results]
    return MatchResponse(results=items, considered=report.considered, pruned=report.pruned,
                         elapsed_ms=round(elapsed, 3),
                         unmatched=listing.unmatched_items(view, business, lines),
                         **answers.report_fields(report, market, business.get("state")))


@routes.post("/submissions/", body=SubmissionRequest, response=SubmissionCreated, status=201,
             auth=Auth.SESSION, errors=(400, 404, 503), summary="Start an underwriting "
             "submission to a product",
             description="Writes a `uw_submission` to the session workspace's own database, as "
             "POST /api/v2/mcp/uw_submissions/ does (same checks, same audit): `lob` from the "
             "product's line; `answers` the business, the questions answered, the carrier and "
             "the product. For an existing client (`client_id`, the workspace's own) or a new "
             "one saved with it (`client`). The workspace's bindings on `uw_submission` then "
             "score it (docs/rules-at-work.md).")
async def start_submission(call: Call[SubmissionRequest, None]) -> SubmissionCreated:
    body = call.body
    chosen = submission.chosen_product((await view_for(call)).market, body.product_id)
    values = submission.submission_values(
        chosen, service.business_data(body.business.model_dump(mode="json", exclude_none=True)),
        body.answered, _today(call))
    tenant_id = call.principal.active_workspace_id
    store = await request_tenant_store(call.request, call.request.config_dict[TENANT_POOLS],
                                       tenant_id)
    request, user = call.request, call.principal.user
    actor = book.Actor(key_id="", method=request.method, path=request.path,
                       email=user.email if user else None)
    row, client = await store.run(submission.start_submission, tenant_id, actor, values,
                                  body.client_id, body.client)
    carrier, product = chosen.carrier, chosen.product
    profile = carrier.profile
    return SubmissionCreated(
        submission=UwSubmissionRecord.model_validate(row),
        client=None if client is None else ClientRecord.model_construct(**client),
        **_refs(carrier, product),
        submission_email=profile.submission_email if profile else None,
        submission_portal=profile.submission_portal if profile else None)


@routes.post("/jurisdictions/", body=Criteria, response=JurisdictionList, auth=Auth.SESSION,
             summary="Available jurisdictions",
             description="The 50 states and DC (the jurisdictions carrier manifests accept) with "
             "the count of candidate products; with criteria, only those where the market has "
             "appetite.")
async def jurisdictions(call: Call[Criteria, None]) -> JurisdictionList:
    body = call.body
    wanted = service.criteria(body.naics, body.state, body.lines)
    rows = service.jurisdiction_counts(await _market(call), wanted, body.state)
    return JurisdictionList(jurisdictions=[
        Jurisdiction(code=row.code, name=row.name, kind=row.kind, product_count=row.count)
        for row in rows])


@routes.post("/product-lines/", body=Criteria, response=ProductLineList, auth=Auth.SESSION,
             summary="Available product lines",
             description="Lines of business with the count of candidate products; with "
             "criteria, only those where the market has appetite.")
async def product_lines(call: Call[Criteria, None]) -> ProductLineList:
    body = call.body
    wanted = service.criteria(body.naics, body.state, body.lines)
    rows = service.line_counts(await _market(call), wanted)
    return ProductLineList(product_lines=[
        ProductLine(code=line.code, name=line.name, description=line.description,
                    product_count=count)
        for line, count in rows if wanted.empty or count > 0])


@routes.post("/classify/", body=ClassifyRequest, response=ClassifyResponse, auth=Auth.NONE,
             rate_limit=CLASSIFY_LIMIT, summary="Classify a business using AI",
             description="NAICS 2022 codes for a description (at most 5, best first). No "
             "authentication, 30 requests a minute per client address; with a session whose "
             "workspace has an LLM key, the provider chooses among the offline candidates "
             "(`method` llm), and falls back to the offline result with `fallback_reason`.")
async def classify_business(call: Call[ClassifyRequest, None]) -> ClassifyResponse:
    return await classify_for(call, await request_workspace(call.request))


async def classify_for(call: Call[ClassifyRequest, None],
                       workspace_id: str | None) -> ClassifyResponse:
    """Classify the body's business with `workspace_id`'s LLM key (None: offline only)."""
    body = call.body
    key = await workspace_llm_key(call.request, workspace_id)
    found = await classify_text(body.description, name=body.name, website=body.website,
                                key=key, settings=call.settings)
    return ClassifyResponse(results=[Classification(naics=r.naics, title=r.title,
                                                    confidence=round(r.confidence, 4))
                                     for r in found.results], method=found.method,
                            fallback_reason=found.fallback_reason, provider=found.provider)
