"""The outcome of one evaluation (`Result`) and of one embedded test (`TestOutcome`)."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import NamedTuple

from insureops.engine.ir import Span


class Result(NamedTuple):
    """What an evaluation decided (immutable). `tags` is sorted and unique; `fired` and
    `reasons` are in firing order; `trace` is None unless an explanation was asked for.

    A named tuple rather than a frozen dataclass: building one is several times cheaper,
    and one is built per evaluation."""

    ruleset: str
    decision: str | None
    score: Decimal
    outputs: dict
    reasons: list[str]
    tags: list[str]
    fired: list[str]
    trace: list | None = None

    def to_dict(self) -> dict:
        """The JSON result object of the specification (Decimals stay Decimal objects; write it
        with `insureops.engine.inputs.jsonio.dumps` to keep their scale)."""
        data = {
            "ruleset": self.ruleset,
            "decision": self.decision,
            "score": self.score,
            "outputs": dict(self.outputs),
            "reasons": list(self.reasons),
            "tags": list(self.tags),
            "fired": list(self.fired),
        }
        if self.trace is not None:
            data["trace"] = self.trace
        return data


@dataclass(frozen=True, slots=True)
class TestOutcome:
    """One embedded `test` block's outcome; `message` says why it failed (None if it passed)."""

    description: str
    passed: bool
    message: str | None = None
    span: Span | None = None

    __test__ = False  # not a pytest test class
