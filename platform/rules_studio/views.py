"""Rule studio rows as response payloads (the routes' serialisation)."""

from __future__ import annotations

from aiohttp import web
from pydantic import BaseModel

from insureops.platform.rules_studio.models import (
    Rule,
    RuleApproval,
    RuleCaseSet,
    RuleExecution,
    RuleVersion,
)
from insureops.platform.rules_studio.payloads import (
    ApprovalInfo,
    CaseSetInfo,
    CaseSetSummary,
    ExecutionInfo,
    RecordRef,
    RuleInfo,
    RuleSummary,
    VersionDetail,
    VersionInfo,
)


def summary_fields(rule: Rule) -> dict:
    return {"id": rule.id, "name": rule.name, "title": rule.title, "kind": rule.kind,
            "status": rule.status, "current_version": rule.current_version,
            "published_version": rule.published_version, "created_by": rule.created_by,
            "created_at": rule.created_at, "updated_by": rule.updated_by,
            "updated_at": rule.updated_at}


def version_fields(version: RuleVersion) -> dict:
    return {"number": version.number, "content_hash": version.content_hash,
            "author_id": version.author_id, "created_at": version.created_at,
            "tests_passed": version.tests_passed,
            "tests_failed": sum(1 for test in version.tests if not test["passed"])}


def rule_info(rule: Rule, version: RuleVersion) -> RuleInfo:
    detail = VersionDetail(**version_fields(version), source=version.source,
                           warnings=version.warnings, tests=version.tests)
    return RuleInfo(**summary_fields(rule), version=detail)


def approval(row: RuleApproval) -> ApprovalInfo:
    return ApprovalInfo(id=row.id, version=row.version, status=row.status,
                        requested_by=row.requested_by, requested_at=row.requested_at,
                        decided_by=row.decided_by, decided_at=row.decided_at,
                        comment=row.comment)


def execution_info(row: RuleExecution) -> ExecutionInfo:
    record = (RecordRef(type=row.record_type, uuid=row.record_uuid)
              if row.record_type is not None else None)
    return ExecutionInfo(id=row.id, rule_id=row.rule_id, version=row.version,
                         executed_by=row.executed_by, executed_at=row.executed_at,
                         input_digest=row.input_digest, record=record, as_of=row.as_of,
                         decision=row.decision, score=row.score, fired=row.fired,
                         error=row.error, duration_ms=row.duration_us / 1000)


def rule_summary(rule: Rule) -> RuleSummary:
    return RuleSummary(**summary_fields(rule))


def version_info(version: RuleVersion) -> VersionInfo:
    return VersionInfo(**version_fields(version))


def case_set_summary(row: RuleCaseSet) -> CaseSetSummary:
    return CaseSetSummary(id=row.id, rule_id=row.rule_id, name=row.name, version=row.version,
                          case_count=row.case_count, created_by=row.created_by,
                          created_at=row.created_at, updated_by=row.updated_by,
                          updated_at=row.updated_at)


def case_set_info(row: RuleCaseSet) -> CaseSetInfo:
    return CaseSetInfo(**case_set_summary(row).model_dump(), cases=row.cases)


def tagged(model: BaseModel, version: int, status: int = 200) -> web.Response:
    """`model` as the response, with `ETag: "N"`: the version a change sends back in
    `If-Match` (a rule's current version, a case set's version)."""
    return web.Response(text=model.model_dump_json(), status=status,
                        content_type="application/json", headers={"ETag": f'"{version}"'})
