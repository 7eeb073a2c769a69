"""Four eyes on publishing: the workspace setting, and approval requests with their decisions.

With `four_eyes` on, PATCH cannot publish: an admin requests approval of a version, and an
admin other than the version's author and the requester approves it (which publishes it) or rejects it. Each
step records who and when; withdrawing a publication needs no approval. Every step is a
compare-and-set, so of two racing decisions exactly one wins, on SQLite too.
"""

from __future__ import annotations

import datetime

from ulid import ULID

from insureops.platform.data.database import UnitOfWork
from insureops.platform.rules_studio import repository
from insureops.platform.rules_studio.errors import (
    ApprovalDecidedError,
    ApprovalNotFoundError,
    ApprovalStateError,
    RuleArchivedError,
    SelfApprovalError,
    TestsFailingError,
)
from insureops.platform.rules_studio.models import RuleApproval, StudioSettings
from insureops.platform.rules_studio.service import (
    Actor,
    Store,
    StudioDeps,
    claim,
    find,
    publish,
    version_of,
)


async def four_eyes(uow: UnitOfWork, workspace_id: str, *, store: Store = repository) -> bool:
    found = await store.settings(uow.session, workspace_id)
    return bool(found and found.four_eyes)


async def settings(uow: UnitOfWork, workspace_id: str,
                   *, store: Store = repository) -> StudioSettings | None:
    return await store.settings(uow.session, workspace_id)


async def set_four_eyes(uow: UnitOfWork, deps: StudioDeps, actor: Actor,
                        enabled: bool, *, store: Store = repository) -> StudioSettings:
    return await store.put_settings(uow.session, actor.workspace_id, enabled, actor.user_id,
                                    deps.now())


async def request(uow: UnitOfWork, deps: StudioDeps, actor: Actor, rule_id: str,
                  number: int | None, *, store: Store = repository) -> RuleApproval:
    """Ask for version `number` (default: current) to be approved for publishing. The rule is
    claimed before the one-pending-request check, so two requests at once make one."""
    rule = await find(uow, actor.workspace_id, rule_id, store=store)
    if rule.status == "archived":
        raise RuleArchivedError("The rule is archived; it cannot be published.")
    version = await version_of(uow, rule, number, store=store)
    if not version.tests_passed:
        raise TestsFailingError(f"Version {version.number} cannot be published: its embedded "
                                "tests failed. Fix them and save a new version.")
    await claim(uow, rule, store=store)
    if await store.pending_approval(uow.session, rule.id, version.number) is not None:
        raise ApprovalStateError(f"An approval of version {version.number} is pending already.")
    row = RuleApproval(id=str(ULID.from_timestamp(deps.clock())), rule_id=rule.id,
                       version=version.number, status="pending", requested_by=actor.user_id,
                       requested_at=deps.now())
    await store.add(uow.session, row)
    return row


async def _pending(uow: UnitOfWork, actor: Actor, rule_id: str, approval_id: str,
                   *, store: Store = repository):
    rule = await find(uow, actor.workspace_id, rule_id, store=store)
    row = await store.approval(uow.session, rule.id, approval_id)
    if row is None:
        raise ApprovalNotFoundError("No such approval request for this rule.")
    if row.status != "pending":
        raise ApprovalStateError(f"The request was {row.status} already.")
    return rule, row


async def _decide(uow: UnitOfWork, row: RuleApproval, status: str, actor: Actor,
                  now: datetime.datetime, comment: str | None,
                  *, store: Store = repository) -> None:
    """pending -> `status` as a compare-and-set (issue 28: approve and reject of one request
    both succeeded on SQLite, where the row lock is a no-op); the loser is 409 `conflict`."""
    if not await store.decide_approval(uow.session, row, status, actor.user_id, now, comment):
        stored = await store.approval_status(uow.session, row.id)
        raise ApprovalDecidedError(f"Another decision was made at the same time: the request "
                                   f"is {stored} now.")


async def approve(uow: UnitOfWork, deps: StudioDeps, actor: Actor, rule_id: str,
                  approval_id: str, comment: str | None,
                  *, store: Store = repository) -> RuleApproval:
    """Approve a pending request and publish its version, as an admin who did not write it.
    The publish and the decision are two compare-and-sets in one transaction: either both
    win or nothing is written."""
    rule, row = await _pending(uow, actor, rule_id, approval_id, store=store)
    if rule.status == "archived":
        raise RuleArchivedError("The rule is archived; it cannot be published.")
    version = await version_of(uow, rule, row.version, store=store)
    if version.author_id == actor.user_id:
        raise SelfApprovalError("Four eyes: an admin other than the version's author must "
                                "approve it.")
    if row.requested_by == actor.user_id:  # issue 34: nor the one who asked for it
        raise SelfApprovalError("Four eyes: an admin other than the one who requested the "
                                "approval must approve it.")
    now = deps.now()
    await publish(uow, rule, row.version, actor, now, store=store)
    await _decide(uow, row, "approved", actor, now, comment, store=store)
    return row


async def reject(uow: UnitOfWork, deps: StudioDeps, actor: Actor, rule_id: str,
                 approval_id: str, comment: str | None,
                 *, store: Store = repository) -> RuleApproval:
    _, row = await _pending(uow, actor, rule_id, approval_id, store=store)
    await _decide(uow, row, "rejected", actor, deps.now(), comment, store=store)
    return row


async def list_for(uow: UnitOfWork, workspace_id: str, rule_id: str,
                   *, store: Store = repository) -> list[RuleApproval]:
    rule = await find(uow, workspace_id, rule_id, store=store)
    return await store.approvals(uow.session, rule.id)
