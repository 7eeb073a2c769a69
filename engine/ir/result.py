"""The outcome of one evaluation (`Result`) and of one embedded test (`TestOutcome`)."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

import msgspec

from insureops.engine.ir import Span


class Result(msgspec.Struct, frozen=True, eq=False, gc=False):
    """What an evaluation decided (immutable). `tags` is sorted and unique; `fired` and
    `reasons` are in firing order; `trace` is None unless an explanation was asked for.

    Built lazily: the generated code passes None for a list or mapping it never filled (most
    evaluations fire nothing), and the properties give a new empty one on each read, so no
    container is made that nobody reads. A msgspec struct rather than a named tuple: made from
    positional arguments in C. Not tracked by the garbage collector (`gc=False`): a result
    holds strings, numbers and containers the engine made, never itself."""

    ruleset: str
    decision: str | None
    score: Decimal
    _outputs: dict | None = None
    _reasons: list[str] | None = None
    _tags: list[str] | None = None
    _fired: list[str] | None = None
    trace: list | None = None

    @property
    def outputs(self) -> dict:
        found = self._outputs
        return {} if found is None else found

    @property
    def reasons(self) -> list[str]:
        found = self._reasons
        return [] if found is None else found

    @property
    def tags(self) -> list[str]:
        found = self._tags
        return [] if found is None else found

    @property
    def fired(self) -> list[str]:
        found = self._fired
        return [] if found is None else found

    def __eq__(self, other: object) -> bool:
        if type(other) is not Result:
            return NotImplemented
        return (self.ruleset == other.ruleset and self.decision == other.decision
                and self.score == other.score and self.outputs == other.outputs
                and self.reasons == other.reasons and self.tags == other.tags
                and self.fired == other.fired and self.trace == other.trace)

    def __repr__(self) -> str:
        return (f"Result(ruleset={self.ruleset!r}, decision={self.decision!r}, "
                f"score={self.score!r}, outputs={self.outputs!r}, reasons={self.reasons!r}, "
                f"tags={self.tags!r}, fired={self.fired!r}, trace={self.trace!r})")

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
