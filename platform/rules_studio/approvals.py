"""Four eyes on publishing: the workspace setting, and approval requests with their decisions.

With `four_eyes` on, PATCH cannot publish: an admin requests approval of a version, and an
admin other than the version's author approves it (which publishes it) or rejects it. Each
step records who and when; withdrawing a publication needs no approval.
"""

from __future__ import annotations

from ulid import ULID

from insureops.platform.db import UnitOfWork
from insureops.platform.rules_studio import repository as repo
from insureops.platform.rules_studio.errors import (
    ApprovalNotFoundError,
    ApprovalStateError,
    RuleArchivedError,
    SelfApprovalError,
    TestsFailingError,
)
from insureops.platform.rules_studio.models import RuleApproval, StudioSettings
from insureops.platform.rules_studio.service import (
    Actor,
    StudioDeps,
    find,
    publish,
    version_of,
)


async def four_eyes(uow: UnitOfWork, workspace_id: str) -> bool:
    found = await repo.settings(uow.session, workspace_id)
    return bool(found and found.four_eyes)


async def settings(uow: UnitOfWork, workspace_id: str) -> StudioSettings | None:
    return await repo.settings(uow.session, workspace_id)


async def set_four_eyes(uow: UnitOfWork, deps: StudioDeps, actor: Actor,
                        enabled: bool) -> StudioSettings:
    found = await repo.settings(uow.session, actor.workspace_id)
    if found is None:
        found = StudioSettings(workspace_id=actor.workspace_id, four_eyes=enabled)
        uow.session.add(found)
    found.four_eyes, found.updated_by, found.updated_at = enabled, actor.user_id, deps.now()
    await uow.session.flush()
    return found


async def request(uow: UnitOfWork, deps: StudioDeps, actor: Actor, rule_id: str,
                  number: int | None) -> RuleApproval:
    """Ask for version `number` (default: current) to be approved for publishing."""
    rule = await find(uow, actor.workspace_id, rule_id, lock=True)
    if rule.status == "archived":
        raise RuleArchivedError("The rule is archived; it cannot be published.")
    version = await version_of(uow, rule, number)
    if not version.tests_passed:
        raise TestsFailingError(f"Version {version.number} cannot be published: its embedded "
                                "tests failed. Fix them and save a new version.")
    if await repo.pending_approval(uow.session, rule.id, version.number) is not None:
        raise ApprovalStateError(f"An approval of version {version.number} is pending already.")
    row = RuleApproval(id=str(ULID.from_timestamp(deps.clock())), rule_id=rule.id,
                       version=version.number, status="pending", requested_by=actor.user_id,
                       requested_at=deps.now())
    await repo.add(uow.session, row)
    return row


async def _pending(uow: UnitOfWork, actor: Actor, rule_id: str, approval_id: str):
    rule = await find(uow, actor.workspace_id, rule_id, lock=True)
    row = await repo.approval(uow.session, rule.id, approval_id)
    if row is None:
        raise ApprovalNotFoundError("No such approval request for this rule.")
    if row.status != "pending":
        raise ApprovalStateError(f"The request was {row.status} already.")
    return rule, row


async def approve(uow: UnitOfWork, deps: StudioDeps, actor: Actor, rule_id: str,
                  approval_id: str, comment: str | None) -> RuleApproval:
    """Approve a pending request and publish its version, as an admin who did not write it."""
    rule, row = await _pending(uow, actor, rule_id, approval_id)
    if rule.status == "archived":
        raise RuleArchivedError("The rule is archived; it cannot be published.")
    version = await version_of(uow, rule, row.version)
    if version.author_id == actor.user_id:
        raise SelfApprovalError("Four eyes: an admin other than the version's author must "
                                "approve it.")
    now = deps.now()
    row.status, row.decided_by, row.decided_at, row.comment = (
        "approved", actor.user_id, now, comment)
    await publish(uow, rule, row.version, actor, now)
    await uow.session.flush()
    return row


async def reject(uow: UnitOfWork, deps: StudioDeps, actor: Actor, rule_id: str,
                 approval_id: str, comment: str | None) -> RuleApproval:
    _, row = await _pending(uow, actor, rule_id, approval_id)
    row.status, row.decided_by, row.decided_at, row.comment = (
        "rejected", actor.user_id, deps.now(), comment)
    await uow.session.flush()
    return row


async def list_for(uow: UnitOfWork, workspace_id: str, rule_id: str) -> list[RuleApproval]:
    rule = await find(uow, workspace_id, rule_id)
    return await repo.approvals(uow.session, rule.id)
