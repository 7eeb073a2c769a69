"""Bindings: create, list, read, pause, resume and delete (platform database), and keeping the
tenant database's outbox switches in step with the workspace's active bindings."""

from __future__ import annotations

import datetime
from collections.abc import Callable
from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy import select
from ulid import ULID

from insureops.platform.data.database import Database, UnitOfWork
from insureops.platform.rules_studio.errors import BindingNotFoundError
from insureops.platform.rules_studio.execution import published
from insureops.platform.rules_studio.models import Rule, RuleVersion
from insureops.platform.rules_studio.service import Actor
from insureops.platform.rules_studio.work import tenant_side
from insureops.platform.rules_studio.work.models import RuleBinding
from insureops.platform.tenancy.book.store import TenantStore


@dataclass(frozen=True)
class BindingSpec:
    rule_id: str
    record_type: str
    events: list[str]
    condition: str | None


@dataclass(frozen=True)
class BindingPlan:
    """An active binding as the dispatcher runs it: its rule's published version's source."""

    binding_id: str
    rule_id: str
    ruleset: str
    version: int
    source: str
    record_type: str
    events: frozenset[str]
    condition: str | None


async def check_and_create(database: Database, actor: Actor, spec: BindingSpec,
                           check: Callable, now: datetime.datetime) -> RuleBinding:
    """A new active binding, after `check(source, record_type, condition)` (the rules
    workers: the ruleset takes such a record, the condition checks) on the rule's published
    version (409 when it has none or is archived)."""
    _, version = await database.read(lambda uow: published(uow, actor.workspace_id,
                                                           spec.rule_id))
    await check(version.source, spec.record_type, spec.condition)
    binding = RuleBinding(
        id=str(ULID()), workspace_id=actor.workspace_id, rule_id=spec.rule_id,
        record_type=spec.record_type, on_created="created" in spec.events,
        on_updated="updated" in spec.events, condition=spec.condition, status="active",
        created_by=actor.user_id, created_at=now, updated_at=now, evaluated=0, effects=0,
        errors=0)
    async with database.unit_of_work() as uow:
        uow.session.add(binding)
    return binding


async def listing(uow: UnitOfWork, workspace_id: str) -> list[RuleBinding]:
    statement = (select(RuleBinding).where(RuleBinding.workspace_id == workspace_id)
                 .order_by(RuleBinding.id))
    return list((await uow.session.execute(statement)).scalars())


async def find(uow: UnitOfWork, workspace_id: str, binding_id: str) -> RuleBinding:
    binding = await uow.session.get(RuleBinding, binding_id)
    if binding is None or binding.workspace_id != workspace_id:
        raise BindingNotFoundError("No such binding in this workspace.")
    return binding


async def set_status(uow: UnitOfWork, workspace_id: str, binding_id: str, status: str,
                     now: datetime.datetime) -> RuleBinding:
    binding = await find(uow, workspace_id, binding_id)
    if binding.status != status:
        binding.status, binding.updated_at = status, now
    return binding


async def delete(uow: UnitOfWork, workspace_id: str, binding_id: str) -> None:
    await uow.session.delete(await find(uow, workspace_id, binding_id))


async def switches(uow: UnitOfWork, workspace_id: str) -> set[tuple[str, str]]:
    """The (record type, event) pairs the workspace's active bindings listen to."""
    rows = await uow.session.execute(
        select(RuleBinding.record_type, RuleBinding.on_created, RuleBinding.on_updated)
        .where(RuleBinding.workspace_id == workspace_id, RuleBinding.status == "active"))
    wanted = set()
    for record_type, on_created, on_updated in rows:
        wanted |= {(record_type, event) for event, on in (("created", on_created),
                                                           ("updated", on_updated)) if on}
    return wanted


async def apply_switches(store: TenantStore, wanted: set[tuple[str, str]]) -> None:
    """Set the outbox switches of the workspace's tenant database."""
    await store.run_statements(tenant_side.set_switches, wanted)


async def workspaces_bound(uow: UnitOfWork) -> list[str]:
    """Workspaces with at least one active binding."""
    rows = await uow.session.execute(select(RuleBinding.workspace_id).where(
        RuleBinding.status == "active").distinct())
    return sorted(rows.scalars())


async def plans(uow: UnitOfWork, workspace_id: str) -> list[BindingPlan]:
    """The workspace's active bindings whose rule has a published version, not archived."""
    statement = (select(RuleBinding, Rule.name, RuleVersion)
                 .join(Rule, Rule.id == RuleBinding.rule_id)
                 .join(RuleVersion, sa.and_(RuleVersion.rule_id == Rule.id,
                                            RuleVersion.number == Rule.published_version))
                 .where(RuleBinding.workspace_id == workspace_id,
                        RuleBinding.status == "active", Rule.status != "archived")
                 .order_by(RuleBinding.id))
    return [BindingPlan(b.id, b.rule_id, name, version.number, version.source, b.record_type,
                        frozenset(b.events), b.condition)
            for b, name, version in await uow.session.execute(statement)]


async def record_outcome(uow: UnitOfWork, binding_id: str, evaluated: int, effects: int,
                         errors: int, last_error: str | None,
                         now: datetime.datetime) -> None:
    """Add a drain's counts to the binding (one UPDATE: concurrent drains add up)."""
    values = {"evaluated": RuleBinding.evaluated + evaluated,
              "effects": RuleBinding.effects + effects,
              "errors": RuleBinding.errors + errors, "last_evaluated_at": now}
    if last_error is not None:
        values["last_error"] = last_error[:2000]
    await uow.session.execute(sa.update(RuleBinding).where(RuleBinding.id == binding_id)
                              .values(**values))
