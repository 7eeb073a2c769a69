"""Saved case sets of a rule: named lists of simulate's cases, kept on the server so the page,
the API and `insureops rules pull` simulate and compare on the same cases again.

A case set belongs to a rule, so it is reached only through a rule of the caller's workspace
(another workspace's is "not found"). Its size is bounded (payloads: cases, bytes, sets per
rule, record cases) and every save moves its `version` by one as a compare-and-set, so a
change based on an older version (If-Match) is refused and two racing saves cannot both win.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from sqlalchemy import exc as sa_exc
from ulid import ULID

from insureops.platform.data.database import UnitOfWork
from insureops.platform.rules_studio import repository, simulation
from insureops.platform.rules_studio.errors import (
    CaseSetLimitError,
    CaseSetNameTakenError,
    CaseSetNotFoundError,
    CaseSetTooLargeError,
    StaleVersionError,
)
from insureops.platform.rules_studio.models import RuleCaseSet
from insureops.platform.rules_studio.payloads import (
    MAX_CASE_SET_BYTES,
    MAX_CASE_SET_CASES,
    MAX_CASE_SETS,
    SimulateCase,
)
from insureops.platform.rules_studio.service import Actor, Store, StudioDeps, find


@dataclass(frozen=True)
class CaseSetChanges:
    name: str | None = None
    cases: list[SimulateCase] | None = None


def stored_cases(cases: list[SimulateCase]) -> list[dict]:
    """The cases as kept (JSON, absent fields left out); 413 past the set's bounds."""
    if len(cases) > MAX_CASE_SET_CASES:
        raise CaseSetTooLargeError(f"A case set holds at most {MAX_CASE_SET_CASES:,} cases; "
                                   f"this one has {len(cases):,}. Split it, or keep it as a "
                                   "cases file for `insureops rules simulate`.")
    records = sum(1 for case in cases if case.record is not None)
    if records > simulation.MAX_RECORD_CASES:
        raise CaseSetTooLargeError(f"A case set names at most {simulation.MAX_RECORD_CASES} "
                                   f"tenant records (simulate reads each); this one names "
                                   f"{records}.")
    rows = [case.model_dump(mode="json", exclude_none=True) for case in cases]
    size = len(json.dumps(rows, separators=(",", ":"), ensure_ascii=False).encode())
    if size > MAX_CASE_SET_BYTES:
        raise CaseSetTooLargeError(f"A case set holds at most {MAX_CASE_SET_BYTES // 1024:,} "
                                   f"KiB of cases as JSON; this one has {size // 1024:,} KiB.")
    return rows


def _taken(name: str) -> CaseSetNameTakenError:
    return CaseSetNameTakenError(f"The rule has a case set named {name!r} already; choose "
                                 "another name or change that one.")


async def create(uow: UnitOfWork, deps: StudioDeps, actor: Actor, rule_id: str, name: str,
                 cases: list[SimulateCase], *, store: Store = repository) -> RuleCaseSet:
    """A new case set of the workspace's rule, version 1."""
    rule = await find(uow, actor.workspace_id, rule_id, store=store)
    rows = stored_cases(cases)
    if await store.case_set_count(uow.session, rule.id) >= MAX_CASE_SETS:
        raise CaseSetLimitError(f"A rule keeps at most {MAX_CASE_SETS} case sets; delete one "
                                "first.")
    now = deps.now()
    row = RuleCaseSet(id=str(ULID.from_timestamp(deps.clock())), rule_id=rule.id, name=name,
                      version=1, cases=rows, case_count=len(rows), created_by=actor.user_id,
                      created_at=now, updated_by=actor.user_id, updated_at=now)
    try:  # a unique violation: a set of that name was saved meanwhile (the uow rolls back)
        await store.add(uow.session, row)
    except sa_exc.IntegrityError:
        raise _taken(name) from None
    return row


async def get(uow: UnitOfWork, workspace_id: str, rule_id: str, case_set_id: str,
              *, store: Store = repository) -> RuleCaseSet:
    rule = await find(uow, workspace_id, rule_id, store=store)
    row = await store.case_set(uow.session, rule.id, case_set_id)
    if row is None:
        raise CaseSetNotFoundError("No such case set for this rule.")
    return row


async def in_workspace(uow: UnitOfWork, workspace_id: str, case_set_id: str,
                       *, store: Store = repository) -> RuleCaseSet:
    """A case set of any rule of the workspace (simulate's `case_set_id`)."""
    row = await store.workspace_case_set(uow.session, workspace_id, case_set_id)
    if row is None:
        raise CaseSetNotFoundError("No such case set in this workspace.")
    return row


async def list_for(uow: UnitOfWork, workspace_id: str, rule_id: str,
                   *, store: Store = repository) -> list[RuleCaseSet]:
    rule = await find(uow, workspace_id, rule_id, store=store)
    return await store.case_sets(uow.session, rule.id)


async def update(uow: UnitOfWork, deps: StudioDeps, actor: Actor, rule_id: str,
                 case_set_id: str, changes: CaseSetChanges,
                 if_match: int | None, *, store: Store = repository) -> RuleCaseSet:
    """Rename it or replace its cases: version + 1, as a compare-and-set on the version read
    (or the one If-Match names: 409 version_conflict when it is no longer current)."""
    row = await get(uow, actor.workspace_id, rule_id, case_set_id, store=store)
    if if_match is not None and if_match != row.version:
        raise StaleVersionError(
            f"Version {if_match} of case set {row.name!r} is no longer current: version "
            f"{row.version} was saved meanwhile. Read it again and reapply your change.")
    values: dict[str, object] = {"version": row.version + 1, "updated_by": actor.user_id,
                                 "updated_at": deps.now()}
    if changes.name is not None:
        values["name"] = changes.name
    if changes.cases is not None:
        rows = stored_cases(changes.cases)
        values.update(cases=rows, case_count=len(rows))
    try:
        moved = await store.move_case_set(uow.session, row, **values)
    except sa_exc.IntegrityError:
        raise _taken(changes.name or row.name) from None
    if not moved:
        raise StaleVersionError("Another change of this case set was saved at the same time; "
                                "read it again and reapply your change.")
    return row


async def delete(uow: UnitOfWork, actor: Actor, rule_id: str, case_set_id: str,
                 *, store: Store = repository) -> None:
    row = await get(uow, actor.workspace_id, rule_id, case_set_id, store=store)
    await store.delete_case_set(uow.session, row)
