"""Diagnostics: the problems found in a ruleset as values, their stable codes, and their rendering.

Every code is listed in CODES with its snake-case name; docs/rules-language.md ("Diagnostics")
explains each with an example. Codes never change meaning once released.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from insureops.engine.ir import Span

Severity = Literal["error", "warning"]

CODES: dict[str, str] = {
    # syntax (parser.py, transform.py)
    "E001": "syntax_error",
    "E002": "unexpected_end_of_file",
    "E003": "invalid_character",
    "E004": "reserved_keyword",
    "E005": "invalid_literal",
    "E006": "invalid_comprehension",
    "E007": "nesting_too_deep",
    # names and declarations (checker.py)
    "E100": "unknown_name",
    "E101": "unknown_function",
    "E102": "wrong_argument_count",
    "E103": "unknown_type",
    "E104": "unknown_field",
    "E105": "unknown_output",
    "E106": "duplicate_name",
    "E107": "const_not_literal",
    "E108": "const_used_before_definition",
    "E109": "invalid_default_decision",
    "E110": "invalid_effective_window",
    "E111": "unknown_given_input",
    "E112": "invalid_hit_policy",
    "E113": "unknown_result_name",
    "E114": "invalid_regex",
    "E115": "invalid_const",
    # types (expressions.py)
    "E200": "type_mismatch",
    "E201": "condition_not_boolean",
    "E202": "argument_type",
    # tables (tablecheck.py)
    "E300": "row_width",
    "E301": "unique_overlap",
    # warnings (reachability.py, tablecheck.py)
    "W200": "unreachable_rule",
    "W201": "shadowed_rule",
    "W300": "table_gap",
    "W301": "overlap_check_incomplete",
}


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One problem: a stable code, error or warning, where it is, what it is, and how to fix it."""

    code: str
    severity: Severity
    span: Span | None
    message: str
    hint: str | None = None

    @property
    def name(self) -> str:
        """The code's snake-case name, e.g. `unknown_field` for E104."""
        return CODES[self.code]

    def to_dict(self) -> dict:
        """The JSON shape the studio API and `rules check --json` report."""
        span = self.span
        return {
            "code": self.code,
            "name": self.name,
            "severity": self.severity,
            "message": self.message,
            "hint": self.hint,
            "line": span.line if span else None,
            "column": span.column if span else None,
            "end_line": span.end_line if span else None,
            "end_column": span.end_column if span else None,
        }


def error(code: str, span: Span | None, message: str, hint: str | None = None) -> Diagnostic:
    """An error diagnostic."""
    return Diagnostic(code, "error", span, message, hint)


def warning(code: str, span: Span | None, message: str, hint: str | None = None) -> Diagnostic:
    """A warning diagnostic."""
    return Diagnostic(code, "warning", span, message, hint)


def sort_diagnostics(diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    """Source order (errors and warnings mixed), stable for equal positions."""
    def key(diagnostic: Diagnostic) -> tuple[int, int]:
        span = diagnostic.span
        return (span.line, span.column) if span else (0, 0)
    return sorted(diagnostics, key=key)


def render_diagnostics(diagnostics: Iterable[Diagnostic], source: str, filename: str) -> str:
    """`FILE:LINE:COL: severity[CODE]: message`, the source line, a caret under the span, a hint."""
    lines = source.splitlines()
    return "\n".join(_render_one(d, lines, filename) for d in diagnostics)


def _render_one(diagnostic: Diagnostic, lines: list[str], filename: str) -> str:
    span = diagnostic.span
    where = f"{filename}:{span.line}:{span.column}" if span else filename
    out = [f"{where}: {diagnostic.severity}[{diagnostic.code}]: {diagnostic.message}"]
    if span is not None and 1 <= span.line <= len(lines):
        text = lines[span.line - 1].replace("\t", " ")
        number = str(span.line)
        gutter = " " * len(number)
        last = span.end_column if span.end_line == span.line else len(text) + 1
        width = max(1, last - span.column)
        out.append(f" {number} | {text}".rstrip())
        out.append(f" {gutter} | {' ' * (span.column - 1)}{'^' * width}")
        if diagnostic.hint:
            out.append(f" {gutter} = hint: {diagnostic.hint}")
    elif diagnostic.hint:
        out.append(f"    = hint: {diagnostic.hint}")
    return "\n".join(out)
