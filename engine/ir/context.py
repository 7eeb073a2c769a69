"""The per-call state of one evaluation: as-of time, limits, step budget, regex cache."""

from __future__ import annotations

from datetime import date, datetime, time, timezone

from insureops.engine.ir import Span
from insureops.engine.ir.errors import EvaluationError
from insureops.engine.ir.limits import Budget, Limits


class Evaluation(Budget):
    """Options and counters of one call to `evaluate` (never shared between calls, except the
    regex cache, which belongs to the compiled ruleset and only holds compiled patterns).
    It is its own step budget (one object less to build per evaluation)."""

    __slots__ = ("as_of", "limits", "regexes")

    def __init__(self, as_of: date | None, limits: Limits, regexes: dict) -> None:
        self.limit = self.remaining = limits.max_steps
        self.as_of = as_of
        self.limits = limits
        self.regexes = regexes

    @property
    def budget(self) -> Budget:
        """The step budget of this evaluation (the evaluation itself)."""
        return self

    def today(self, span: Span | None) -> date:
        """The as-of date (`today()`); an error when the caller gave none."""
        if self.as_of is None:
            raise EvaluationError("today() needs an as-of date and none was given",
                                  code="as_of_required", span=span)
        if isinstance(self.as_of, datetime):
            return self.as_of.date()
        return self.as_of

    def now(self, span: Span | None) -> datetime:
        """The as-of moment (`now()`): the as-of datetime if one was given, else midnight UTC
        at the start of the as-of date."""
        if self.as_of is None:
            raise EvaluationError("now() needs an as-of date and none was given",
                                  code="as_of_required", span=span)
        if isinstance(self.as_of, datetime):
            if self.as_of.tzinfo is None:
                return self.as_of.replace(tzinfo=timezone.utc)
            return self.as_of
        return datetime.combine(self.as_of, time(0), tzinfo=timezone.utc)
