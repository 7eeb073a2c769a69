"""The per-call state of one evaluation: as-of time, limits, the work budget, regex cache."""

from __future__ import annotations

from datetime import date, datetime, time, timezone

import msgspec

from insureops.engine.ir import Span
from insureops.engine.ir.errors import EvaluationError
from insureops.engine.ir.limits import Limits, steps_exceeded


class Evaluation(msgspec.Struct, gc=False):
    """Options and counters of one call to `evaluate` (never shared between calls, except the
    regex cache, which belongs to the compiled ruleset and only holds compiled patterns).

    `remaining` is the work budget left (`Limits.max_steps`, charged by the cost model of
    `engine/ir/costs.py`); `input_left` the input values a rule may still read whole
    (`Limits.max_input_nodes`), each value counted once: `wholes` keeps what was converted.
    `conversions`, when the caller gives one, is a dict shared by the evaluations of one
    batch of rulesets over the same inputs (a market match): a value converted whole by one
    is taken from it by the next, still counted against each one's `input_left`. A msgspec
    struct: made from positional arguments in C, as every evaluation makes one."""

    remaining: int
    as_of: date | None
    limits: Limits
    regexes: dict
    input_left: int
    wholes: dict | None = None  # input values converted whole, by (id(raw), id(slot))
    conversions: dict | None = None  # the same, shared by several evaluations (the caller's)

    @classmethod
    def start(cls, as_of: date | None, limits: Limits, regexes: dict) -> Evaluation:
        """A fresh evaluation under `limits`."""
        return cls(limits.max_steps, as_of, limits, regexes, limits.max_input_nodes)

    @property
    def budget(self) -> Evaluation:
        """The work budget of this evaluation (the evaluation itself)."""
        return self

    def charge(self, steps: int, span: Span | None) -> None:
        """Take `steps`; raise `limit_steps` once the evaluation has used more than allowed."""
        self.remaining -= steps
        if self.remaining < 0:
            steps_exceeded(self.limits.max_steps, span)

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
