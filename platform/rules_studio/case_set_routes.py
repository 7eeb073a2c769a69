"""HTTP routes of a rule's saved case sets (by session): members read them, admins save,
change and delete them; simulate takes one by `case_set_id` (routes.py)."""

from __future__ import annotations

from aiohttp import web

from insureops.platform.auth.requirements import Auth, Role
from insureops.platform.http.bodies import if_match_version
from insureops.platform.http.routing import BodyLimit, Call, RouteTable
from insureops.platform.rules_studio import calls, case_sets, views
from insureops.platform.rules_studio.payloads import (
    CaseSetCreate,
    CaseSetInfo,
    CaseSetList,
    CaseSetPath,
    CaseSetUpdate,
    RulePath,
)
from insureops.platform.rules_studio.service import Actor

ULID = "[0-9A-HJKMNP-TV-Z]+"
CASE_SETS = f"/rules/{{rule_id:{ULID}}}/case-sets"
CASE_SET = f"{CASE_SETS}/{{case_set_id:{ULID}}}"
MEMBER, ADMIN = Auth.session(Role.MEMBER), Auth.session(Role.ADMIN)
BOUNDS = ("At most 5,000 cases and 2 MiB of them as JSON, at most 100 naming a tenant record "
          "(413 case_set_too_large); at most 50 sets per rule (409 case_set_limit).")

routes = RouteTable("rules_studio", "Rules: CRUD, simulate and execute.")


# What a session's and an API key's routes (key_routes.py) both answer, given who acts.
async def listed(call: Call) -> CaseSetList:
    async with call.unit_of_work() as uow:
        rows = await case_sets.list_for(uow, call.principal.active_workspace_id,
                                        call.path.rule_id)
    return CaseSetList(case_sets=[views.case_set_summary(row) for row in rows])


async def read(call: Call) -> web.Response:
    async with call.unit_of_work() as uow:
        row = await case_sets.get(uow, call.principal.active_workspace_id, call.path.rule_id,
                                  call.path.case_set_id)
    return views.tagged(views.case_set_info(row), row.version)


async def created(call: Call[CaseSetCreate, None], actor: Actor) -> web.Response:
    async with call.unit_of_work() as uow:
        row = await case_sets.create(uow, calls.deps(call), actor, call.path.rule_id,
                                     call.body.name, call.body.cases)
    return views.tagged(views.case_set_info(row), row.version, status=201)


@routes.get(f"{CASE_SETS}/", path_model=RulePath, response=CaseSetList, auth=MEMBER,
            errors=(404,), summary="List a rule's saved case sets",
            description="By name; without their cases (read one for them).")
async def list_case_sets(call: Call[None, None]) -> CaseSetList:
    return await listed(call)


@routes.post(f"{CASE_SETS}/", path_model=RulePath, body=CaseSetCreate, response=CaseSetInfo,
             status=201, auth=ADMIN, body_limit=BodyLimit.SIMULATION, errors=(404, 409, 413),
             summary="Save a case set for a rule",
             description=f"Simulate's cases under a name unique for the rule. {BOUNDS}")
async def create_case_set(call: Call[CaseSetCreate, None]) -> web.Response:
    return await created(call, calls.actor(call))


@routes.get(f"{CASE_SET}/", path_model=CaseSetPath, response=CaseSetInfo, auth=MEMBER,
            errors=(404,), summary="Read a saved case set with its cases",
            description="`ETag: \"N\"` names its version, which `If-Match` of a change sends "
            "back.")
async def get_case_set(call: Call[None, None]) -> web.Response:
    return await read(call)


@routes.patch(f"{CASE_SET}/", path_model=CaseSetPath, body=CaseSetUpdate, response=CaseSetInfo,
              auth=ADMIN, body_limit=BodyLimit.SIMULATION, errors=(404, 409, 413),
              summary="Rename a case set or replace its cases",
              description="Its version moves by one. With `If-Match: \"N\"` the change is "
              f"refused with 409 version_conflict unless N is still its version. {BOUNDS}")
async def update_case_set(call: Call[CaseSetUpdate, None]) -> web.Response:
    changes = case_sets.CaseSetChanges(call.body.name, call.body.cases)
    if_match = if_match_version(call.request)
    async with call.unit_of_work() as uow:
        row = await case_sets.update(uow, calls.deps(call), calls.actor(call),
                                     call.path.rule_id, call.path.case_set_id, changes, if_match)
    return views.tagged(views.case_set_info(row), row.version)


@routes.delete(f"{CASE_SET}/", path_model=CaseSetPath, response=None, status=204, auth=ADMIN,
               errors=(404,), summary="Delete a saved case set")
async def delete_case_set(call: Call[None, None]) -> None:
    async with call.unit_of_work() as uow:
        await case_sets.delete(uow, calls.actor(call), call.path.rule_id,
                               call.path.case_set_id)
