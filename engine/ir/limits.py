"""Bounds on one evaluation (input size and depth, work, regular expressions, sizes produced)."""

from __future__ import annotations

from dataclasses import dataclass

from insureops.engine.ir import Span
from insureops.engine.ir.errors import LimitExceededError


@dataclass(frozen=True, slots=True)
class Limits:
    """The bounds one evaluation runs under; exceeding one raises `LimitExceededError`.

    - `max_input_nodes` (100,000): values in the input data a rule reads whole (and in JSON
      text the engine's reader parses), counting every object, list, and scalar once. Code
      `limit_input_size`.
    - `max_input_depth` (64): nesting of objects and lists in the input data. Code `limit_depth`
      (also raised if evaluation would recurse deeper than Python allows, and for input nested
      deeper than 400 levels whatever this limit says).
    - `max_steps` (1,000,000): the work of one evaluation, as the cost model counts it
      (`engine/ir/costs.py`: each rule and table, each item a comprehension visits or a
      list operation scans, each 64 characters a string operation scans or builds, each 8
      characters a pattern is matched against). Code `limit_steps`.
    - `max_regex_pattern_length` (500) and `max_regex_subject_length` (10,000) characters, and
      patterns with nested unbounded quantifiers, quantified alternations or back references are
      refused (they can backtrack catastrophically). Code `limit_regex`.
    - `max_list_size` (100,000): items in a list or set an expression builds (list concatenation,
      `collect` tables). Code `limit_list_size`.
    - `max_string_length` (1,000,000): characters in a string an expression builds (concatenation,
      interpolation). Code `limit_string_length`.
    - `max_result_size` (1,000,000): characters of a result's reasons, tags and outputs (an
      output's strings by their length, every other value and every list item as one). Code
      `limit_result_size`.
    - `max_expression_depth` (200): nesting of an expression in the ruleset itself, checked when
      the ruleset is compiled. Code `limit_expression_depth`.
    """

    max_input_nodes: int = 100_000
    max_input_depth: int = 64
    max_steps: int = 1_000_000
    max_regex_pattern_length: int = 500
    max_regex_subject_length: int = 10_000
    max_list_size: int = 100_000
    max_string_length: int = 1_000_000
    max_result_size: int = 1_000_000
    max_expression_depth: int = 200


DEFAULT_LIMITS = Limits()


def steps_exceeded(limit: int, span: Span | None) -> None:
    """Raise `limit_steps` for an evaluation that used more than `limit` steps."""
    raise LimitExceededError(
        f"evaluation took more than {limit:,} steps of work (Limits.max_steps; `insureops "
        f"rules simulate --max-steps` raises it for an offline run)", code="limit_steps",
        span=span)
