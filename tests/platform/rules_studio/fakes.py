"""In-memory fakes of the rule studio's store port (`rules_studio/repository.py`
`StudioRepository`), of its units of work and database, of the rules workers and of the tenant
records' reader, for the fast tier of the studio's use cases.

The fake store keeps what the port promises: rules by workspace (another workspace's are never
seen), one rule of a name per workspace, one version of a number per rule, one case set of a
name per rule (each a unique violation, sqlalchemy's IntegrityError, as on the databases);
every `move_*`, `archive_rule` and `decide_approval` a compare-and-set on the state last
written (after writing what the use case changed, as the session's autoflush does), which
`race` moves as another request committing meanwhile would; executions and
publications numbered in order. The workers' stand-in runs the real jobs (`rules_studio/jobs.py`)
in this process, without the admission gate, the process pool or their budgets. Whether the SQL
does the same on SQLite and PostgreSQL is the database tier's question (test_rules.py,
test_models.py, the security sweeps' races); the workers' bounds are test_engine_bounds.py's.
"""

from __future__ import annotations

import datetime
import itertools
from contextlib import asynccontextmanager

from sqlalchemy.exc import IntegrityError

from insureops.platform.rules_studio import jobs
from insureops.platform.rules_studio.models import (
    Rule,
    RuleApproval,
    RuleCaseSet,
    RuleExecution,
    RulePublication,
    RuleVersion,
    StudioSettings,
)
from insureops.platform.rules_studio.records import RecordRef
from insureops.platform.rules_studio.repository import ExecutionFilters, RuleFilters
from insureops.platform.tenancy.book.errors import RecordMissingError
from tests.platform.fakes import FakeUnitOfWork


def _unique(what: str) -> IntegrityError:
    return IntegrityError(f"INSERT {what}", {}, Exception("UNIQUE constraint failed"))


def _state(rule: Rule) -> tuple:
    return rule.status, rule.published_version, rule.current_version


class FakeStudio:
    """`StudioRepository` in memory; the `session` each method receives is ignored."""

    def __init__(self) -> None:
        self.rules: dict[str, Rule] = {}
        self.written: dict[str, tuple] = {}  # rule id: its state as last written
        self.seen: dict[str, tuple] = {}  # rule id: its state as this session last wrote it
        self.versions_: dict[tuple[str, int], RuleVersion] = {}
        self.publications_: list[RulePublication] = []
        self.settings_: dict[str, StudioSettings] = {}
        self.approvals_: dict[str, RuleApproval] = {}
        self.executions_: list[RuleExecution] = []
        self.case_sets_: dict[str, RuleCaseSet] = {}
        self._ids = itertools.count(1)

    def race(self, rule_id: str, **values: object) -> None:
        """Another request commits `values` to the rule now: this one's object keeps the state
        it read, so its next compare-and-set on the rule loses."""
        status, published, current = self.written[rule_id]
        self.written[rule_id] = (values.get("status", status),
                                 values.get("published_version", published),
                                 values.get("current_version", current))

    async def add(self, session, *rows: object) -> None:
        for row in rows:
            if isinstance(row, Rule):
                if any(r.workspace_id == row.workspace_id and r.name == row.name
                       for r in self.rules.values()):
                    raise _unique("rules")
                self.rules[row.id] = row
                self.written[row.id] = self.seen[row.id] = _state(row)
            elif isinstance(row, RuleVersion):
                if (row.rule_id, row.number) in self.versions_:
                    raise _unique("rule_versions")
                self.versions_[row.rule_id, row.number] = row
            elif isinstance(row, RuleCaseSet):
                if any(r.rule_id == row.rule_id and r.name == row.name
                       for r in self.case_sets_.values()):
                    raise _unique("rule_case_sets")
                self.case_sets_[row.id] = row
            elif isinstance(row, RulePublication):
                row.id = next(self._ids)
                self.publications_.append(row)
            elif isinstance(row, RuleExecution):
                row.id = next(self._ids)
                self.executions_.append(row)
            elif isinstance(row, RuleApproval):
                self.approvals_[row.id] = row
            else:
                raise TypeError(row)

    def _autoflush(self, rule: Rule) -> None:
        """Write what the use case changed on `rule` since this session last wrote it."""
        now, seen = _state(rule), self.seen[rule.id]
        self.written[rule.id] = tuple(mine if mine != was else stored for mine, was, stored
                                      in zip(now, seen, self.written[rule.id], strict=True))
        self.seen[rule.id] = now

    def _write(self, rule: Rule, values: dict[str, object]) -> None:
        for name, value in values.items():
            setattr(rule, name, value)
        self.written[rule.id] = self.seen[rule.id] = _state(rule)

    async def saved(self, session) -> None:
        for rule in self.rules.values():
            self._autoflush(rule)

    async def rules_page(self, session, workspace_id: str, filters: RuleFilters, limit: int,
                         after: str | None) -> list[Rule]:
        def shown(rule: Rule) -> bool:
            source = self.versions_[rule.id, rule.current_version].source
            text = (filters.text or "").lower()
            return ((filters.kind is None or rule.kind == filters.kind)
                    and (filters.status is None or rule.status == filters.status)
                    and rule.name.startswith(filters.name or "")
                    and any(text in value.lower() for value in (rule.name, rule.title, source))
                    and (after is None or rule.id > after))
        mine = [r for r in self.rules.values() if r.workspace_id == workspace_id and shown(r)]
        return sorted(mine, key=lambda rule: rule.id)[:limit]

    async def rule(self, session, workspace_id: str, rule_id: str) -> Rule | None:
        rule = self.rules.get(rule_id)
        return rule if rule is not None and rule.workspace_id == workspace_id else None

    async def move_rule(self, session, rule: Rule, **values: object) -> bool:
        self._autoflush(rule)
        if self.written[rule.id] != _state(rule):
            return False
        self._write(rule, values or {"status": rule.status})
        return True

    async def archive_rule(self, session, rule: Rule, **values: object) -> bool:
        self._autoflush(rule)
        if self.written[rule.id][0] == "archived":
            return False
        self._write(rule, {"status": "archived", **values})
        return True

    async def rule_by_name(self, session, workspace_id: str, name: str) -> Rule | None:
        return next((r for r in self.rules.values()
                     if r.workspace_id == workspace_id and r.name == name), None)

    async def version(self, session, rule_id: str, number: int) -> RuleVersion | None:
        return self.versions_.get((rule_id, number))

    async def rule_with_version(self, session, workspace_id: str, rule_id: str,
                                number: int | None = None, *, published: bool = False
                                ) -> tuple[Rule, RuleVersion | None] | None:
        rule = await self.rule(session, workspace_id, rule_id)
        if rule is None:
            return None
        wanted = (number if number is not None
                  else rule.published_version if published else rule.current_version)
        return rule, self.versions_.get((rule.id, wanted))

    async def versions(self, session, rule_id: str) -> list[RuleVersion]:
        return sorted((v for (r, _), v in self.versions_.items() if r == rule_id),
                      key=lambda version: version.number)

    async def publications(self, session, rule_id: str) -> list[RulePublication]:
        return [row for row in self.publications_ if row.rule_id == rule_id]

    async def settings(self, session, workspace_id: str) -> StudioSettings | None:
        return self.settings_.get(workspace_id)

    async def put_settings(self, session, workspace_id: str, four_eyes: bool, updated_by: str,
                           updated_at: datetime.datetime) -> StudioSettings:
        row = StudioSettings(workspace_id=workspace_id, four_eyes=four_eyes,
                             updated_by=updated_by, updated_at=updated_at)
        self.settings_[workspace_id] = row
        return row

    async def approvals(self, session, rule_id: str) -> list[RuleApproval]:
        return sorted((a for a in self.approvals_.values() if a.rule_id == rule_id),
                      key=lambda row: (row.requested_at, row.id))

    async def approval(self, session, rule_id: str, approval_id: str) -> RuleApproval | None:
        row = self.approvals_.get(approval_id)
        return row if row is not None and row.rule_id == rule_id else None

    async def decide_approval(self, session, row: RuleApproval, status: str, decided_by: str,
                              decided_at: datetime.datetime, comment: str | None) -> bool:
        stored = self.approvals_[row.id]
        if stored.status != "pending":
            return False
        stored.status, stored.decided_by, stored.decided_at, stored.comment = (
            status, decided_by, decided_at, comment)
        return True

    async def approval_status(self, session, approval_id: str) -> str | None:
        row = self.approvals_.get(approval_id)
        return row and row.status

    async def pending_approval(self, session, rule_id: str, version: int) -> RuleApproval | None:
        return next((a for a in self.approvals_.values() if a.rule_id == rule_id
                     and a.version == version and a.status == "pending"), None)

    async def executions(self, session, rule_id: str, limit: int, before: int | None,
                         filters: ExecutionFilters = ExecutionFilters()) -> list[RuleExecution]:
        def shown(row: RuleExecution) -> bool:
            return ((filters.decision is None or row.decision == filters.decision)
                    and (filters.failed is None or (row.error is not None) == filters.failed)
                    and (filters.executed_from is None or row.executed_at >= filters.executed_from)
                    and (filters.executed_before is None
                         or row.executed_at < filters.executed_before)
                    and (filters.record_uuid is None or row.record_uuid == filters.record_uuid)
                    and (before is None or row.id < before))
        rows = [row for row in self.executions_ if row.rule_id == rule_id and shown(row)]
        return sorted(rows, key=lambda row: row.id, reverse=True)[:limit]

    async def execution(self, session, rule_id: str, execution_id: int) -> RuleExecution | None:
        return next((row for row in self.executions_
                     if row.id == execution_id and row.rule_id == rule_id), None)

    async def case_sets(self, session, rule_id: str) -> list[RuleCaseSet]:
        return sorted((c for c in self.case_sets_.values() if c.rule_id == rule_id),
                      key=lambda row: (row.name, row.id))

    async def case_set_count(self, session, rule_id: str) -> int:
        return len(await self.case_sets(session, rule_id))

    async def case_set(self, session, rule_id: str, case_set_id: str) -> RuleCaseSet | None:
        row = self.case_sets_.get(case_set_id)
        return row if row is not None and row.rule_id == rule_id else None

    async def workspace_case_set(self, session, workspace_id: str,
                                 case_set_id: str) -> RuleCaseSet | None:
        row = self.case_sets_.get(case_set_id)
        return (row if row is not None and self.rules[row.rule_id].workspace_id == workspace_id
                else None)

    async def move_case_set(self, session, row: RuleCaseSet, **values: object) -> bool:
        stored = self.case_sets_[row.id]
        if stored.version != row.version:
            return False
        name = values.get("name", row.name)
        if any(other.rule_id == row.rule_id and other.name == name and other.id != row.id
               for other in self.case_sets_.values()):
            raise _unique("rule_case_sets")
        for key, value in values.items():
            setattr(row, key, value)
        return True

    async def delete_case_set(self, session, row: RuleCaseSet) -> None:
        del self.case_sets_[row.id]


class FakeDatabase:
    """`Database.read` and `unit_of_work` over fake units of work (simulate, execute)."""

    async def read(self, work):
        return await work(FakeUnitOfWork())

    @asynccontextmanager
    async def _unit(self):
        yield FakeUnitOfWork()

    def unit_of_work(self):
        return self._unit()


class InlineWork:
    """`offload.StudioWork` running the real jobs in this process (no gate, pool or budget);
    `asked` lists the jobs asked for, in order."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def check(self, workspace_id: str, source: str) -> dict:
        self.asked.append("check")
        return jobs.check(source)

    async def complete(self, workspace_id, source, line, column, known_source) -> dict:
        self.asked.append("complete")
        return jobs.complete(source, line, column, known_source)

    async def hover(self, workspace_id, source, line, column) -> dict:
        self.asked.append("hover")
        return jobs.hover(source, line, column)

    async def analyse(self, workspace_id: str, source: str, today: datetime.date):
        self.asked.append("analyse")
        return jobs.analyse(source, today)

    async def execute(self, workspace_id, source, inputs, record, as_of, explain):
        self.asked.append("execute")
        return jobs.execute(source, inputs, record, as_of, explain)

    async def record_input(self, workspace_id: str, source: str, record_type: str) -> str:
        self.asked.append("record_input")
        return jobs.record_input_name(source, record_type)

    async def simulate(self, workspace_id: str, job) -> str:
        self.asked.append("simulate")
        return jobs.simulate(job, 60.0)


class Records:
    """A tenant database's clients and policies by (type, uuid): `RecordReader`; `read`
    lists the references asked for."""

    def __init__(self, records: dict[tuple[str, str], dict] | None = None) -> None:
        self.records = records or {}
        self.read: list[RecordRef] = []

    async def __call__(self, refs: list[RecordRef]) -> list[dict]:
        self.read += refs
        found = []
        for ref in refs:
            record = self.records.get((ref.type, str(ref.uuid)))
            if record is None:
                raise RecordMissingError(f"No {ref.type} {ref.uuid}.")
            found.append(record)
        return found
