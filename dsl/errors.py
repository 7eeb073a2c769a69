"""The dsl package's exceptions: DslError and RulesetInvalidError (a ruleset that does not check)."""

from __future__ import annotations

from collections.abc import Sequence

from insureops.dsl.diagnostics import Diagnostic, render_diagnostics


class DslError(Exception):
    """Root of the dsl errors; `code` is stable and snake-case."""

    code = "dsl_error"


class RulesetInvalidError(DslError):
    """A ruleset with at least one error diagnostic; `str()` is the full rendering."""

    code = "rule_invalid"

    def __init__(self, diagnostics: Sequence[Diagnostic], source: str, filename: str) -> None:
        self.diagnostics = list(diagnostics)
        self.source = source
        self.filename = filename
        super().__init__(render_diagnostics(self.diagnostics, source, filename))

    def __reduce__(self) -> tuple:
        """Rebuilt from its fields: it crosses from a rules worker process to the service."""
        return type(self), (self.diagnostics, self.source, self.filename)

    @property
    def errors(self) -> list[Diagnostic]:
        """Only the error diagnostics."""
        return [d for d in self.diagnostics if d.severity == "error"]
