"""`where`: a condition in the rules language on one record, checked when a binding or run is
created (every error with its line and column in the condition's own text) and evaluated
before the ruleset on each record.

The condition names the record by its type: `policy.premium > 5000 and policy.status ==
"active"`, `claim.reported_loss_amount > 10000`, `client.country == "US"`,
`uw_submission.lob == "cyber"`. It is checked and compiled as the one rule of a small ruleset
whose input is the record, so it means exactly what the same text means in a ruleset.
"""

from __future__ import annotations

from insureops.dsl import CompiledRuleset, RulesetInvalidError, compile_ruleset

TYPES = {"client": "Client", "policy": "Policy", "claim": "Claim",
         "uw_submission": "UwSubmission"}
MAX_LENGTH = 2000
FILENAME = "where"
_HEAD_LINES = 4  # the wrapper's lines before the condition's first line
_WHEN = "when "


class ConditionInvalidError(Exception):
    """The condition does not check: `details` lists each error with its line and column in
    the condition's text."""

    def __init__(self, details: list[dict]) -> None:
        super().__init__("The condition (`where`) does not check; error.details lists every "
                         "error with its line and column.")
        self.details = details

    def __reduce__(self):  # crosses back from a rules worker process
        return type(self), (self.details,)


def wrapper_source(record_type: str, condition: str) -> str:
    """The ruleset whose rule `holds` fires when `condition` holds for the record."""
    return (f'ruleset binding.condition "Condition"\n'
            f"input {record_type}: {TYPES[record_type]}\n"
            f"default decision accept\n"
            f'rule holds "The condition holds"\n'
            f"{_WHEN}{condition}\n"
            f'then\n    tag "holds"\nend\n')


def _shifted(diagnostic) -> dict:
    found = diagnostic.to_dict()
    span = diagnostic.span
    if span is not None:
        line = span.line - _HEAD_LINES
        column = span.column - (len(_WHEN) if line == 1 else 0)
        found.update(line=max(1, line), column=max(1, column),
                     end_line=max(1, span.end_line - _HEAD_LINES))
    return {"field": "where", "message": f"{found['line']}:{found['column']}: "
            f"error[{found['code']}] {found['message']}", **{
                key: found[key] for key in ("code", "line", "column", "end_line", "hint")}}


def compile_condition(record_type: str, condition: str) -> CompiledRuleset:
    """The condition compiled (cached by text); ConditionInvalidError when it does not check."""
    if len(condition) > MAX_LENGTH or not condition.strip():
        raise ConditionInvalidError([{"field": "where", "message": f"must be a condition of "
                                      f"1 to {MAX_LENGTH} characters", "line": 1, "column": 1}])
    if "\n" in condition.strip() and any(
            line.strip() in ("then", "end") for line in condition.splitlines()):
        raise ConditionInvalidError([{"field": "where", "message": "a condition, not rules: "
                                      "`then` and `end` cannot stand on a line of their own",
                                      "line": 1, "column": 1}])
    try:
        return compile_ruleset(wrapper_source(record_type, condition), filename=FILENAME)
    except RulesetInvalidError as exc:
        errors = [d for d in exc.diagnostics if d.severity == "error"]
        raise ConditionInvalidError([_shifted(d) for d in errors or exc.diagnostics]) from None


def holds(result) -> bool:
    """Whether the condition's evaluation says it holds (its rule fired)."""
    return "holds" in result.fired


