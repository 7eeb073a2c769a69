"""The rules by API key, for tools (`insureops rules pull` / `push`, CI): list and read a
workspace's rules and case sets with a read key; create rules, save new versions and case sets
with a write key. A change must name the version it is based on (`If-Match`, 428 without):
a push from a stale folder is refused with 409 version_conflict instead of overwriting.

Publishing, archiving, approvals and execution stay with the people of the workspace (the
session routes): a key saves drafts; what it saves is attributed to the key's creator.
"""

from __future__ import annotations

from aiohttp import web

from insureops.platform.auth.requirements import Auth, Scope
from insureops.platform.http.bodies import if_match_version
from insureops.platform.http.routing import BodyLimit, Call, Owner, RouteTable
from insureops.platform.rules_studio import calls, case_set_routes, case_sets, service, views
from insureops.platform.rules_studio.errors import PreconditionRequiredError
from insureops.platform.rules_studio.payloads import (
    CaseSetCreate,
    CaseSetInfo,
    CaseSetList,
    CaseSetPath,
    CaseSetUpdate,
    RuleCreate,
    RuleInfo,
    RuleListQuery,
    RulePage,
    RulePath,
    RuleSourceUpdate,
    VersionQuery,
)

ULID = "[0-9A-HJKMNP-TV-Z]+"
RULES = "/sync/rules"
RULE = f"{RULES}/{{rule_id:{ULID}}}"
CASE_SET = f"{RULE}/case-sets/{{case_set_id:{ULID}}}"
READ, WRITE = Auth.api_key(Scope.READ), Auth.api_key(Scope.WRITE)
MINE = Owner.WORKSPACE  # rules are rows of the key's workspace, not tenant database records

routes = RouteTable("rules_studio", "Rules: CRUD, simulate and execute.")


def _if_match(call: Call) -> int:
    version = if_match_version(call.request)
    if version is None:
        raise PreconditionRequiredError(
            "Send If-Match with the version your change is based on (the ETag of your last "
            "read), so a change made meanwhile is not overwritten.")
    return version


@routes.get(f"{RULES}/", query=RuleListQuery, response=RulePage, auth=READ,
            summary="List rules (API key)", description="As GET /rules/, by API key.")
async def key_list_rules(call: Call[None, RuleListQuery]) -> RulePage:
    return await calls.rule_page(call)


@routes.post(f"{RULES}/", body=RuleCreate, response=RuleInfo, status=201, auth=WRITE,
             errors=(400, 409), summary="Create a rule (API key)",
             description="As POST /rules/: version 1, a draft.")
async def key_create_rule(call: Call[RuleCreate, None]) -> web.Response:
    body = call.body
    async with call.unit_of_work() as uow:
        rule, version = await service.create(uow, calls.deps(call), await calls.key_actor(
            call, uow), body.source, body.title, body.kind)
    return views.tagged(views.rule_info(rule, version), rule.current_version, status=201)


@routes.get(f"{RULE}/", path_model=RulePath, query=VersionQuery, response=RuleInfo, auth=READ,
            owner=MINE, errors=(404,), summary="Get a rule (API key)",
            description="As GET /rules/<id>/; `ETag: \"N\"` names the current version.")
async def key_get_rule(call: Call[None, VersionQuery]) -> web.Response:
    return await calls.tagged_rule(call)


@routes.patch(f"{RULE}/", path_model=RulePath, body=RuleSourceUpdate, response=RuleInfo,
            auth=WRITE, owner=MINE, errors=(400, 404, 409, 428),
            summary="Save a rule's source (API key)",
            description="A source that differs from the current version's is checked, tested "
            "and saved as a new version (a draft: publishing is the session's). `If-Match: "
            "\"N\"` is required (428 precondition_required): 409 version_conflict unless N is "
            "still the current version.")
async def key_save_source(call: Call[RuleSourceUpdate, None]) -> web.Response:
    body = call.body
    changes = service.Changes(source=body.source, title=body.title, kind=body.kind)
    async with call.unit_of_work() as uow:
        await service.find(uow, call.principal.active_workspace_id, call.path.rule_id)
        if_match = _if_match(call)  # after the lookup: another workspace's rule is 404
        rule, version = await service.update(uow, calls.deps(call), await calls.key_actor(
            call, uow), call.path.rule_id, changes, if_match)
    return views.tagged(views.rule_info(rule, version), rule.current_version)


@routes.get(f"{RULE}/case-sets/", path_model=RulePath, response=CaseSetList, auth=READ,
            owner=MINE, errors=(404,), summary="List a rule's case sets (API key)")
async def key_list_case_sets(call: Call[None, None]) -> CaseSetList:
    return await case_set_routes.listed(call)


@routes.post(f"{RULE}/case-sets/", path_model=RulePath, body=CaseSetCreate,
             response=CaseSetInfo, status=201, auth=WRITE, owner=MINE,
             body_limit=BodyLimit.SIMULATION, errors=(404, 409, 413),
             summary="Save a case set for a rule (API key)")
async def key_create_case_set(call: Call[CaseSetCreate, None]) -> web.Response:
    async with call.unit_of_work() as uow:
        actor = await calls.key_actor(call, uow)
    return await case_set_routes.created(call, actor)


@routes.get(f"{CASE_SET}/", path_model=CaseSetPath, response=CaseSetInfo, auth=READ,
            owner=MINE, errors=(404,), summary="Read a case set (API key)")
async def key_get_case_set(call: Call[None, None]) -> web.Response:
    return await case_set_routes.read(call)


@routes.patch(f"{CASE_SET}/", path_model=CaseSetPath, body=CaseSetUpdate,
              response=CaseSetInfo, auth=WRITE, owner=MINE, body_limit=BodyLimit.SIMULATION,
              errors=(404, 409, 413, 428), summary="Change a case set (API key)",
              description="`If-Match` required, as for a rule's source.")
async def key_update_case_set(call: Call[CaseSetUpdate, None]) -> web.Response:
    changes = case_sets.CaseSetChanges(call.body.name, call.body.cases)
    async with call.unit_of_work() as uow:
        await case_sets.get(uow, call.principal.active_workspace_id, call.path.rule_id,
                            call.path.case_set_id)
        if_match = _if_match(call)  # after the lookup: another workspace's set is 404
        row = await case_sets.update(uow, calls.deps(call), await calls.key_actor(call, uow),
                                     call.path.rule_id, call.path.case_set_id, changes,
                                     if_match)
    return views.tagged(views.case_set_info(row), row.version)
