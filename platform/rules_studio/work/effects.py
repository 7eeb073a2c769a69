"""What a decision does to the tenant database: the uw_scores and tasks rows (and an audit
row for each) one evaluation of one record calls for. Pure: rows as values, written by
`tenant_side.write_effects` under the ledger's unique key.

A decision on a `uw_submission` writes a `uw_scores` row; a `refer` or `decline`, or a rule
that sets `outputs.task`, opens a `tasks` row on the record: subject, priority, due date and
meta as docs/rules-at-work.md ("Effects") describes.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import uuid
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal, InvalidOperation
from typing import Any

from insureops.engine.inputs import jsonio
from insureops.schema.enums import ENUMS

PRIORITIES = tuple(ENUMS["priority"])
SCORE_LIMIT = Decimal("9999.99")  # uw_scores.score is decimal(6,2)
SUBJECT_LIMIT = 500
UW_DECISIONS = {"accept": "approve", "refer": "refer", "decline": "decline"}


@dataclass(frozen=True)
class Execution:
    """Who decided: the ruleset (rule id, name, version) and the binding or run that ran it."""

    rule_id: str
    ruleset: str
    version: int
    source: str  # "binding" or "run"
    source_id: str

    @property
    def label(self) -> str:
        return f"{self.source}:{self.source_id}"

    def execution_id(self, record_id: uuid.UUID, record_version: str) -> str:
        """The id of one evaluation, stable across replays (the audit trail's and events')."""
        return f"{self.rule_id}:{self.version}:{record_id}:{record_version}"


@dataclass(frozen=True)
class Effect:
    """One row to write: `kind` uw_score or task (or error: only the ledger row, with
    `error`), its table's values, and the record version it was decided on."""

    kind: str
    record_type: str
    record_id: uuid.UUID
    record_version: str
    values: dict[str, Any]
    error: str | None = None
    decided: dict[str, Any] | None = None  # the decision (for its webhook event)


def plain(value: Any) -> Any:
    """`value` as JSON values (exact decimals kept as numbers through jsonio's text)."""
    return json.loads(jsonio.dumps(value))


def _task_spec(outputs: dict[str, Any]) -> dict[str, Any] | None:
    task = outputs.get("task")
    if task is None or task is False:
        return None
    if isinstance(task, dict):
        return task
    return {"subject": str(task)}


def _priority(spec: dict[str, Any], outputs: dict[str, Any], tags: list[str],
              decision: str | None) -> str:
    for candidate in (spec.get("priority"), outputs.get("task_priority"),
                      outputs.get("priority")):
        if isinstance(candidate, str) and candidate in PRIORITIES:
            return candidate
    for tag in tags:
        name = tag.removeprefix("priority:")
        if name in PRIORITIES and (name != tag or name in ("high", "low")):
            return name
    return "high" if decision == "decline" else "normal"


def _due(spec: dict[str, Any], now: datetime.datetime) -> datetime.datetime | None:
    days = spec.get("due_in_days")
    if isinstance(days, int | Decimal) and not isinstance(days, bool) and 0 <= days <= 3650:
        return now + datetime.timedelta(days=int(days))
    return None


def _score(score: Any) -> Decimal | None:
    try:
        value = Decimal(score).quantize(Decimal("0.01"), rounding=ROUND_HALF_EVEN)
    except (InvalidOperation, TypeError, ValueError):
        return None
    return max(-SCORE_LIMIT, min(SCORE_LIMIT, value))


def has_effects(result: Any, record_type: str) -> bool:
    """Whether `effects_of` gives anything for this result (checked before the record's
    version is digested: most records of a book have no effect)."""
    return (record_type == "uw_submission" or result.decision in ("refer", "decline")
            or result.outputs.get("task") not in (None, False))


def effects_of(result: Any, execution: Execution, tenant_id: str, record_type: str,
               record_id: uuid.UUID, record_version: str,
               now: datetime.datetime) -> list[Effect]:
    """The effects of one engine Result on one record."""
    outputs = plain(dict(result.outputs))
    reasons, tags, fired = list(result.reasons), list(result.tags), list(result.fired)
    decision = result.decision
    decided = {"decision": decision, "score": float(result.score) if result.score is not None
               else None, "fired": fired, "reasons": reasons, "outputs": outputs}
    found: list[Effect] = []
    if record_type == "uw_submission":
        found.append(Effect("uw_score", record_type, record_id, record_version, {
            "id": uuid.uuid4(), "tenant_id": tenant_id, "submission_id": record_id,
            "score": _score(result.score), "decision": UW_DECISIONS.get(decision, decision),
            "factors": {"fired": fired, "reasons": reasons, "tags": tags, "outputs": outputs,
                        "ruleset": execution.ruleset, "version": execution.version,
                        "execution": execution.label},
            "decided_at": now}, decided=decided))
    spec = _task_spec(outputs)
    if spec is not None or decision in ("refer", "decline"):
        spec = spec or {}
        subject = (spec.get("subject") or (reasons[0] if reasons else None)
                   or f"{execution.ruleset}: {decision}")
        found.append(Effect("task", record_type, record_id, record_version, {
            "id": uuid.uuid4(), "tenant_id": tenant_id, "subject": str(subject)[:SUBJECT_LIMIT],
            "due_at": _due(spec, now), "status": "open",
            "priority": _priority(spec, outputs, tags, decision),
            "entity_type": record_type, "entity_id": record_id, "created_at": now,
            "meta": {"ruleset": execution.ruleset, "rule_id": execution.rule_id,
                     "version": execution.version, "execution": execution.label,
                     "execution_id": execution.execution_id(record_id, record_version),
                     "record_version": record_version, "decision": decision,
                     "reasons": reasons, "tags": tags}}, decided=decided))
    return found


def record_version(values: dict[str, Any]) -> str:
    """A digest of the record as read (JSON values, `modified`/`updated_at` included where the
    table has them): equal for an unchanged record however it is read, new after any write."""
    text = json.dumps(values, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def effects_for(result: Any, error: tuple[str, str] | None, execution: Execution,
                tenant_id: str, record_type: str, record_id: uuid.UUID,
                values: dict[str, Any], now: datetime.datetime) -> list[Effect]:
    """The effects of one evaluation (a Result, or the (code, message) of its error) on one
    record (`values` as read); the record's version is digested only when there are some."""
    if result is None:
        return [error_of(*error, record_type, record_id, record_version(values))]
    if not has_effects(result, record_type):
        return []
    return effects_of(result, execution, tenant_id, record_type, record_id,
                      record_version(values), now)


def error_of(code: str, message: str, record_type: str, record_id: uuid.UUID,
             record_version: str) -> Effect:
    """A failed evaluation, kept in the ledger (once per record version) with its error."""
    return Effect("error", record_type, record_id, record_version, {},
                  f"{code}: {message}"[:2000])
