"""Errors of the rule engine: one root, each error with a stable snake_case code and a span."""

from __future__ import annotations

from insureops.engine.ir import Span


class EngineError(Exception):
    """The root of every error the engine raises. `code` is stable and documented in
    docs/rules-language.md ("Evaluation errors"); `span` points into the ruleset source when
    known."""

    default_code = "engine_error"

    def __init__(self, message: str, *, code: str | None = None, span: Span | None = None) -> None:
        super().__init__(message)
        self.code = code or self.default_code
        self.message = message
        self.span = span

    def __str__(self) -> str:
        if self.span is None:
            return f"{self.message} [{self.code}]"
        return f"{self.message} [{self.code}] at line {self.span.line}, column {self.span.column}"

    def with_span(self, span: Span | None) -> EngineError:
        """Attach `span` if this error has none yet, and return self (for `raise ... from`)."""
        if self.span is None and span is not None:
            self.span = span
        return self


class EvaluationError(EngineError):
    """A failure while evaluating a ruleset on some input (type mismatch, bad date, ...)."""

    default_code = "evaluation_error"


class LimitExceededError(EvaluationError):
    """An evaluation exceeded one of the bounds of `insureops.engine.ir.limits.Limits`."""

    default_code = "limit_exceeded"
