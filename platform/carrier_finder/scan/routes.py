"""HTTP routes of the scan sub-area: POST /scan/ and POST /similar-businesses/ (session auth).

Included by the area's table (carrier_finder/routes.py); the work is in service.py.
"""

from __future__ import annotations

import datetime

from insureops.carrier_matching import naics_reference
from insureops.carrier_matching.similarity import SimilarityQueryError
from insureops.platform.auth.requirements import Auth
from insureops.platform.carrier_finder.classification import page_classifier, workspace_llm_key
from insureops.platform.carrier_finder.market.offload import matching
from insureops.platform.carrier_finder.market.payloads import CarrierRef, ProductRef
from insureops.platform.carrier_finder.scan import service as scan_service
from insureops.platform.carrier_finder.scan.payloads import (
    Classification,
    RecommendedLine,
    ReferenceBusinessBody,
    ScanCarrier,
    ScanRequest,
    ScanResponse,
    SimilarBusinessBody,
    SimilarBusinessesRequest,
    SimilarBusinessesResponse,
)
from insureops.platform.carrier_finder.scan.website import SCAN_ERRORS
from insureops.platform.carrier_finder.view import view_for
from insureops.platform.http.ratelimit import RateKey, RateLimit
from insureops.platform.http.routing import Call, RouteTable
from insureops.platform.keys import CLOCK

# A scan makes the service fetch from the internet: bounded per workspace.
SCAN_RATE_LIMIT = RateLimit("carrier_finder_scan", 30, 60, key=RateKey.WORKSPACE)

routes = RouteTable("carrier_finder")  # included by the area's table (carrier_finder/routes.py)
for error in SCAN_ERRORS:
    routes.map_error(error, 400, error.code)
routes.map_error(SimilarityQueryError, 400, SimilarityQueryError.code)


def scan_response(result: scan_service.ScanResult, matches=()) -> ScanResponse:
    return ScanResponse(
        url=result.url, final_url=result.final_url, title=result.title,
        description=result.description, excerpt=result.excerpt, naics=result.naics,
        classification=[Classification(naics=c.naics, title=c.title, confidence=c.confidence)
                        for c in result.classification],
        method=result.method, fallback_reason=result.fallback_reason,
        recommendations=[RecommendedLine(line=r.line, name=r.name, reasons=list(r.reasons))
                         for r in result.recommendations],
        business=result.business,
        carriers=[ScanCarrier(
            carrier=CarrierRef(id=m.carrier.id, name=m.carrier.name, rating=m.carrier.rating),
            product=ProductRef(id=m.product.id, name=m.product.name, line=m.product.line),
            decision=m.decision, score=float(m.score), reasons=list(m.reasons))
            for m in matches])


def _today(call: Call) -> datetime.date:
    return datetime.datetime.fromtimestamp(call.request.config_dict[CLOCK](), datetime.UTC).date()


def similar_response(results, considered: int, prospects: int) -> SimilarBusinessesResponse:
    return SimilarBusinessesResponse(considered=considered, prospects=prospects, results=[
        SimilarBusinessBody(
            source=s.business.source,
            business=ReferenceBusinessBody(
                id=s.business.id, name=s.business.name, naics=s.business.naics,
                naics_title=naics_reference.title(s.business.naics) if s.business.naics else None,
                description=s.business.description, state=s.business.state,
                city=s.business.city, annual_revenue=s.business.annual_revenue,
                employee_count=s.business.employee_count,
                years_in_business=s.business.years_in_business),
            score=s.score, parts=dict(s.parts), reasons=list(s.reasons)) for s in results])


@routes.post("/scan/", body=ScanRequest, response=ScanResponse, auth=Auth.SESSION,
             rate_limit=SCAN_RATE_LIMIT,
             summary="Scan a business's website: classify it and recommend lines",
             description="Fetches the page safely (public addresses only, checked on every "
             "redirect; size and time limits; HTML only), reads its title, meta description "
             "and visible text, classifies it (with the workspace's LLM key when one is "
             "configured), runs examples/coverage_recommendations.rules and matches the "
             "business against the market on the recommended lines (the best 5 products)."
             " Refusals are 400 with scan_url_invalid, scan_address_refused, scan_too_large, "
             "scan_timeout, scan_failed or scan_not_html.")
async def scan(call: Call[ScanRequest, None]) -> ScanResponse:
    key = await workspace_llm_key(call.request, call.principal.active_workspace_id)
    result, matches = await scan_service.scan_and_match(
        call.body.url, call.settings, page_classifier(key, call.settings),
        lambda: view_for(call), matching(call), _today(call))
    return scan_response(result, matches)


@routes.post("/similar-businesses/", body=SimilarBusinessesRequest,
             response=SimilarBusinessesResponse, auth=Auth.SESSION,
             summary="Businesses like this one, from the reference set and the workspace's "
             "prospects, with reasons",
             description="Ranked by NAICS hierarchy distance, description similarity, size "
             "band and state; each result has its score (0..1), its parts, the reasons and "
             "its source: `reference` (the shipped set) or `prospect` (saved by a member of "
             "the session's workspace, docs/prospects.md).")
async def similar_businesses(call: Call[SimilarBusinessesRequest, None]
                             ) -> SimilarBusinessesResponse:
    async with call.unit_of_work() as uow:
        prospects = await scan_service.workspace_businesses(
            uow, call.principal.active_workspace_id)
    results = scan_service.find_similar_businesses(call.body.query(), call.body.limit,
                                                   prospects)
    return similar_response(results, scan_service.reference_size() + len(prospects),
                            len(prospects))
