"""The outcome of one evaluation (`Result`) and of one embedded test (`TestOutcome`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal

import msgspec

from insureops.engine.ir import Span


class Outputs(dict):
    """A result's outputs: a dict that refuses changes (so a Result stays as the engine made
    it), still a dict to every reader and writer of JSON, and picklable (results cross from
    the rules workers' processes)."""

    __slots__ = ()

    def _read_only(self, *_: object, **__: object) -> None:
        raise TypeError("a Result is immutable: copy its outputs (dict(result.outputs)) to "
                        "change them")

    __setitem__ = __delitem__ = __ior__ = _read_only
    clear = pop = popitem = setdefault = update = _read_only

    def __reduce__(self) -> tuple:
        return (Outputs, (dict(self),))


NO_ITEMS: tuple = ()
NO_OUTPUTS: Mapping = Outputs()


class Result(msgspec.Struct, frozen=True, gc=False):
    """What an evaluation decided, immutable: `reasons`, `tags` (sorted, unique) and `fired`
    (in firing order) are tuples, `outputs` a read-only dict (`Outputs`); `trace` is None unless an
    explanation was asked for.

    An evaluation that fills no list or outputs (most fire nothing) makes none: its result
    holds the shared `NO_ITEMS` and `NO_OUTPUTS`. A msgspec struct rather than a named tuple:
    made from positional arguments in C. Not tracked by the garbage collector (`gc=False`): a
    result holds strings, numbers and containers the engine made, never itself."""

    ruleset: str
    decision: str | None
    score: Decimal
    outputs: Mapping
    reasons: tuple[str, ...]
    tags: tuple[str, ...]
    fired: tuple[str, ...]
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
