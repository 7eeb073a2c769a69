"""What every rule studio handler builds from its call: the use cases' dependencies and who
acts (a session's user, or the creator of the API key a tool pushes with)."""

from __future__ import annotations

from insureops.platform.data.database import UnitOfWork
from insureops.platform.http.routing import Call
from insureops.platform.keys import CLOCK, HEAVY_WORK, SIMULATION_BUDGET
from insureops.platform.records.api_keys import key_creator
from insureops.platform.rules_studio import service
from insureops.platform.rules_studio.offload import StudioWork


def deps(call: Call) -> service.StudioDeps:
    config = call.request.config_dict
    settings = call.settings
    work = StudioWork(config[HEAVY_WORK], settings.rules_check_seconds,
                      settings.rules_execute_seconds, config[SIMULATION_BUDGET])
    return service.StudioDeps(config[CLOCK], work)


def actor(call: Call) -> service.Actor:
    """The session's user in its active workspace."""
    return service.Actor(call.principal.active_workspace_id, call.principal.user.id)


async def key_actor(call: Call, uow: UnitOfWork) -> service.Actor:
    """An API key's workspace, and the user who created the key: the author of what it saves
    (so four eyes still tells the author from the approver)."""
    creator = await key_creator(uow.session, call.principal.subject)
    return service.Actor(call.principal.active_workspace_id, creator)
