"""The rule studio's view of the rules language: diagnostics, the outline, and a save's analysis."""

from __future__ import annotations

import datetime
import hashlib
from dataclasses import dataclass

from insureops.dsl import (
    CheckReport,
    Diagnostic,
    RulesetInvalidError,
    check_source,
    compile_ruleset,
)
from insureops.engine import ir

FILENAME = "ruleset.rules"  # the name diagnostics and engine errors are reported under


def content_hash(source: str) -> str:
    """SHA-256 of the source text: equal hashes, equal versions."""
    return hashlib.sha256(source.encode()).hexdigest()


def diagnostic_dict(diagnostic: Diagnostic) -> dict:
    """code, name, severity, message, hint, line, column, end_line, end_column."""
    return diagnostic.to_dict()


def invalid_details(exc: RulesetInvalidError) -> list[dict]:
    """`error.details` of a 400 rule_invalid: every diagnostic, errors and warnings."""
    return [diagnostic_dict(d) for d in exc.diagnostics]


def check(source: str) -> CheckReport:
    return check_source(source, filename=FILENAME)


def outline(ruleset: ir.Ruleset | None) -> dict:
    """The ruleset's inputs, rules and tables in file order, for an editor's outline."""
    if ruleset is None:
        return {"name": None, "title": None, "inputs": [], "rules": [], "tables": []}
    rules, tables = [], []
    for item in ruleset.items:
        line = item.span.line if item.span is not None else None
        if isinstance(item, ir.Table):
            tables.append({"name": item.name, "title": item.title, "priority": item.priority,
                           "hit": item.hit, "outputs": list(item.outputs), "line": line})
        else:
            rules.append({"name": item.name, "title": item.title, "priority": item.priority,
                          "enabled": item.enabled, "line": line})
    return {"name": ruleset.name, "title": ruleset.title,
            "inputs": [{"name": d.name, "type": d.type_name} for d in ruleset.inputs],
            "rules": rules, "tables": tables}


@dataclass(frozen=True)
class Analysis:
    """What saving a source finds: the ruleset's name and title, its warnings, and the
    outcomes of its embedded tests (plain data: it comes back from a rules worker)."""

    name: str
    title: str | None
    warnings: list[dict]
    tests: list[dict]

    @property
    def tests_passed(self) -> bool:
        return all(test["passed"] for test in self.tests)


def analyse(source: str, today: datetime.date) -> Analysis:
    """Check, compile and test `source` (CPU work: a rules worker's job).
    Raises RulesetInvalidError listing every diagnostic when the source has an error."""
    report = check(source)
    if report.errors:
        raise RulesetInvalidError(report.diagnostics, source, FILENAME)
    compiled = compile_ruleset(source, filename=FILENAME)
    tests = [{"description": o.description, "passed": o.passed, "message": o.message,
              "line": o.span.line if o.span is not None else None}
             for o in compiled.run_tests(as_of=today)]
    return Analysis(compiled.name, compiled.ir.title,
                    [diagnostic_dict(d) for d in report.warnings], tests)


def check_response(source: str) -> dict:
    """The check route's answer: ok, every diagnostic, and the outline."""
    report = check(source)
    return {"ok": report.ok, "diagnostics": [diagnostic_dict(d) for d in report.diagnostics],
            "outline": outline(report.ruleset)}
