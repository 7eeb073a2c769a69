"""The outcome of one evaluation (`Result`) and of one embedded test (`TestOutcome`)."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

import msgspec

from insureops.engine.ir import Span


class _EmptyList(list):
    """The empty list every result without reasons, tags or fired items shares: read-only."""

    __slots__ = ()

    def _read_only(self, *_: object, **__: object) -> None:
        raise TypeError("a Result is immutable: copy its lists to change them")

    append = extend = insert = remove = pop = clear = sort = reverse = _read_only
    __setitem__ = __delitem__ = __iadd__ = __imul__ = _read_only


class _EmptyMapping(dict):
    """The empty outputs every result without outputs shares: read-only."""

    __slots__ = ()

    def _read_only(self, *_: object, **__: object) -> None:
        raise TypeError("a Result is immutable: copy its outputs to change them")

    __setitem__ = __delitem__ = __ior__ = _read_only
    clear = pop = popitem = setdefault = update = _read_only


NO_ITEMS: list = _EmptyList()
NO_OUTPUTS: dict = _EmptyMapping()


class Result(msgspec.Struct, frozen=True, gc=False):
    """What an evaluation decided (immutable). `tags` is sorted and unique; `fired` and
    `reasons` are in firing order; `trace` is None unless an explanation was asked for.

    Built lazily: an evaluation that fills no list or outputs (most fire nothing) makes none,
    and its result holds the shared read-only `NO_ITEMS` and `NO_OUTPUTS`, which compare
    equal to `[]` and `{}`. A msgspec struct rather than a named tuple: made from positional
    arguments in C. Not tracked by the garbage collector (`gc=False`): a result holds
    strings, numbers and containers the engine made, never itself."""

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
