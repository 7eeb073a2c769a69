"""Coverage recommendations: a recommendations ruleset's result read as lines of business with reasons."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from insureops.carrier_matching.lines import line_by_code
from insureops.dsl import CompiledRuleset

LINE_OUTPUT = "line"  # the collect table's line codes, one per matching row
REASON_OUTPUT = "why"  # the reason of each row, at the same position


class RecommendationsError(ValueError):
    """The ruleset's outputs are not a recommendations result (code `recommendations_invalid`)."""

    code = "recommendations_invalid"


@dataclass(frozen=True, slots=True)
class Recommendation:
    """One line of business to offer, with every reason the rules gave for it."""

    line: str
    name: str
    reasons: tuple[str, ...]


def read_recommendations(outputs: Mapping[str, Any]) -> list[Recommendation]:
    """Each line once, in the order its first row matched, with its distinct reasons in order.

    Raises RecommendationsError when the outputs are not parallel lists of known line codes and
    reasons (examples/coverage_recommendations.rules describes the shape)."""
    lines = outputs.get(LINE_OUTPUT) or []
    reasons = outputs.get(REASON_OUTPUT) or []
    if not isinstance(lines, list) or not isinstance(reasons, list) or len(lines) != len(reasons):
        raise RecommendationsError(f"outputs.{LINE_OUTPUT} and outputs.{REASON_OUTPUT} must be "
                                   "lists of the same length")
    collected: dict[str, list[str]] = {}
    for code, reason in zip(lines, reasons, strict=True):
        if line_by_code(str(code)) is None:
            raise RecommendationsError(f"unknown line of business {code!r}")
        kept = collected.setdefault(str(code), [])
        if reason is not None and str(reason) not in kept:
            kept.append(str(reason))
    return [Recommendation(code, line_by_code(code).name, tuple(kept))  # type: ignore[union-attr]
            for code, kept in collected.items()]


def recommend(ruleset: CompiledRuleset, business: Mapping[str, Any]) -> list[Recommendation]:
    """Evaluate the recommendations ruleset (input `business`) and read its result."""
    return read_recommendations(ruleset.evaluate({"business": dict(business)}).outputs)
