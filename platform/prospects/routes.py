"""HTTP routes of the prospects area: the browser extension's prospects, authenticated by an
identity-provider JWT; the owner of everything here is the token's (issuer, subject)."""

from __future__ import annotations

import datetime

from aiohttp import web

from insureops.platform.auth.requirements import Auth
from insureops.platform.http.routing import Call, RouteTable
from insureops.platform.keys import CLOCK
from insureops.platform.prospects import service
from insureops.platform.prospects.errors import (
    CursorInvalidError,
    ProspectNotFoundError,
    TermsNotAcceptedError,
    TermsVersionError,
)
from insureops.platform.prospects.payloads import (
    Duplicate,
    DuplicateQuery,
    Duplicates,
    ListQuery,
    Prospect,
    ProspectCreate,
    ProspectPage,
    ProspectPath,
    ProspectUpdate,
    SearchHit,
    SearchQuery,
    SearchResults,
    TermsAccept,
    TermsStatus,
)

routes = RouteTable(
    "prospects",
    "Prospects saved by the browser extension (identity-provider JWT).",
)
routes.map_error(ProspectNotFoundError, 404, "not_found", message="No such prospect.")
routes.map_error(TermsNotAcceptedError, 403, "terms_not_accepted",
                 message="Accept the current terms first (POST /clients/accept-terms/).")
routes.map_error(TermsVersionError, 409, "terms_version_outdated",
                 message="Only the current version of the terms can be accepted; see "
                 "GET /clients/terms-status/.")
routes.map_error(CursorInvalidError, 400, "validation_error", message="The query string is "
                 "invalid.", details=lambda e: [{"field": "cursor", "message": "is not a cursor "
                                                 "this service issued for this ordering"}])
JWT_ERRORS = (503,)


def _owner(call: Call) -> service.Owner:
    return (call.principal.issuer, call.principal.subject)


def _now(call: Call) -> datetime.datetime:
    return datetime.datetime.fromtimestamp(call.request.config_dict[CLOCK](), datetime.UTC)


def _terms_version(call: Call) -> str:
    return call.settings.prospects_terms_version


@routes.post("/", body=ProspectCreate, response=Prospect, status=201, auth=Auth.JWT,
             errors=(403, 503), summary="Save a prospect",
             description="Needs the current terms accepted (403 terms_not_accepted).")
async def create_prospect(call: Call[ProspectCreate, None]) -> Prospect:
    async with call.unit_of_work() as uow:
        row = await service.create(uow, _owner(call), call.body, _now(call), _terms_version(call),
                                   owner_email=call.principal.email)
        return Prospect.model_validate(row)


@routes.get("/", query=ListQuery, response=ProspectPage, auth=Auth.JWT, errors=JWT_ERRORS,
            summary="List prospects", description="The caller's prospects, filtered by status "
            "and state, in `ordering` (default newest first), a page at a time.")
async def list_prospects(call: Call[None, ListQuery]) -> ProspectPage:
    async with call.unit_of_work() as uow:
        rows, cursor = await service.page(uow, _owner(call), call.query)
        return ProspectPage(items=[Prospect.model_validate(row) for row in rows],
                            next_cursor=cursor)


# Ids are upper-case ULIDs: the pattern keeps /accept-terms/ and the other fixed paths out of it,
# so PATCH on those is 405, not a 404 from the id route.
@routes.patch("/{prospect_id:[0-9A-Z]+}/", path_model=ProspectPath, body=ProspectUpdate,
              response=Prospect, auth=Auth.JWT, errors=(403, 404, 503), summary="Update a prospect",
              description="Only the caller's own prospects (another owner's id is 404).")
async def update_prospect(call: Call[ProspectUpdate, None]) -> Prospect:
    async with call.unit_of_work() as uow:
        row = await service.update(uow, _owner(call), call.path.prospect_id, call.body,
                                   _now(call), _terms_version(call),
                                   owner_email=call.principal.email)
        return Prospect.model_validate(row)


def _terms(terms: service.Terms) -> TermsStatus:
    return TermsStatus(accepted=terms.accepted, version=terms.version,
                       accepted_at=terms.accepted_at, current_version=terms.current_version)


@routes.post("/accept-terms/", body=TermsAccept, response=TermsStatus, auth=Auth.JWT,
             errors=(409, 503), summary="Record acceptance of terms and conditions")
async def accept_terms(call: Call[TermsAccept, None]) -> TermsStatus:
    async with call.unit_of_work() as uow:
        terms = await service.accept_terms(uow, _owner(call), call.body.version,
                                           _terms_version(call), _now(call))
    return _terms(terms)


@routes.get("/terms-status/", response=TermsStatus, auth=Auth.JWT, errors=JWT_ERRORS,
            summary="Check terms acceptance status")
async def terms_status(call: Call[None, None]) -> TermsStatus:
    async with call.unit_of_work() as uow:
        terms = await service.terms_status(uow, _owner(call), _terms_version(call))
    return _terms(terms)


@routes.get("/search-prospects/", query=SearchQuery, response=SearchResults, auth=Auth.JWT,
            errors=JWT_ERRORS, summary="Search prospects",
            description="Name, domain, e-mail, phone digits and notes; best matches first.")
async def search_prospects(call: Call[None, SearchQuery]) -> SearchResults:
    async with call.unit_of_work() as uow:
        hits = await service.search(uow, _owner(call), call.query.q, call.query.limit)
        return SearchResults(items=[SearchHit(prospect=Prospect.model_validate(row), score=score,
                                              matched=matched) for row, score, matched in hits])


@routes.get("/check-duplicate/", query=DuplicateQuery, response=Duplicates, auth=Auth.JWT,
            errors=JWT_ERRORS, summary="Check for duplicate prospects",
            description="Same domain, e-mail or phone digits, or a near-identical name; "
            "strongest first, each with why it matched.")
async def check_duplicate(call: Call[None, DuplicateQuery]) -> Duplicates:
    async with call.unit_of_work() as uow:
        matches = await service.duplicates(uow, _owner(call), call.query)
        return Duplicates(duplicates=[
            Duplicate(prospect=Prospect.model_validate(match.prospect), reasons=match.reasons,
                      name_similarity=match.name_similarity, score=match.score)
            for match in matches])


def create_app() -> web.Application:
    """The area's sub-application, mounted by insureops.platform.app.create_app."""
    return routes.build_app()
