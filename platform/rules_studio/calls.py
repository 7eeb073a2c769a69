"""What every rule studio handler builds from its call: the use cases' dependencies (the
reader of tenant records among them) and who acts (a session's user, or the creator of the API
key a tool pushes with); and the reads the session's and the API key's routes answer alike."""

from __future__ import annotations

from aiohttp import web

from insureops.platform.data.database import UnitOfWork
from insureops.platform.http.routing import Call
from insureops.platform.keys import CLOCK, HEAVY_WORK, SECRET_KEYS, SIMULATION_BUDGET, TENANT_POOLS
from insureops.platform.records.api_keys import key_creator
from insureops.platform.rules_studio import execution, service, views
from insureops.platform.rules_studio.offload import StudioWork
from insureops.platform.rules_studio.payloads import RulePage
from insureops.platform.rules_studio.records import RecordReader, RecordRef
from insureops.platform.rules_studio.repository import RuleFilters
from insureops.platform.tenancy.workspaces import tenant_store


def deps(call: Call) -> service.StudioDeps:
    config = call.request.config_dict
    settings = call.settings
    work = StudioWork(config[HEAVY_WORK], settings.rules_check_seconds,
                      settings.rules_execute_seconds, config[SIMULATION_BUDGET])
    return service.StudioDeps(config[CLOCK], work)


def actor(call: Call) -> service.Actor:
    """The session's user in its active workspace."""
    return service.Actor(call.principal.active_workspace_id, call.principal.user.id)


def record_reader(call: Call) -> RecordReader:
    """The reader of the workspace's clients and policies (its tenant database's store)."""
    async def read(refs: list[RecordRef]) -> list[dict]:
        tenant_id, config = call.principal.active_workspace_id, call.request.config_dict
        async with call.unit_of_work() as uow:
            store = await tenant_store(uow, config[SECRET_KEYS].fernet, config[TENANT_POOLS],
                                       tenant_id, call.settings)
        return await store.run(execution.read_records, tenant_id, refs)
    return read


async def key_actor(call: Call, uow: UnitOfWork) -> service.Actor:
    """An API key's workspace, and the user who created the key: the author of what it saves
    (so four eyes still tells the author from the approver)."""
    creator = await key_creator(uow.session, call.principal.subject)
    return service.Actor(call.principal.active_workspace_id, creator)


async def rule_page(call: Call) -> RulePage:
    """A page of the workspace's rules, as the list query asks."""
    query = call.query
    filters = RuleFilters(query.kind, query.status, query.name, query.text)
    async with call.unit_of_work() as uow:
        page = await service.list_page(uow, call.principal.active_workspace_id, filters,
                                       query.limit, query.cursor)
    return RulePage(items=[views.rule_summary(r) for r in page.rules],
                    next_cursor=page.next_cursor)


async def tagged_rule(call: Call) -> web.Response:
    """The rule with the version asked for, and `ETag` naming its current version."""
    async with call.unit_of_work() as uow:
        rule, version = await service.get(uow, call.principal.active_workspace_id,
                                          call.path.rule_id, call.query.version)
    return views.tagged(views.rule_info(rule, version), rule.current_version)
