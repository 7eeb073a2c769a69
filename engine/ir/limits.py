"""Bounds on one evaluation (input size and depth, steps, regular expressions, sizes produced)."""

from __future__ import annotations

from dataclasses import dataclass

from insureops.engine.ir import Span
from insureops.engine.ir.errors import LimitExceededError


@dataclass(frozen=True, slots=True)
class Limits:
    """The bounds one evaluation runs under; exceeding one raises `LimitExceededError`.

    - `max_input_nodes` (100,000): values in the input data, counting every object, list, and
      scalar once. Code `limit_input_size`.
    - `max_input_depth` (64): nesting of objects and lists in the input data. Code `limit_depth`
      (also raised if evaluation would recurse deeper than Python allows, and for input nested
      deeper than 400 levels whatever this limit says).
    - `max_steps` (1,000,000): rule and table evaluations plus comprehension iterations in one
      evaluation. Code `limit_steps`.
    - `max_regex_pattern_length` (500) and `max_regex_subject_length` (10,000) characters, and
      patterns with nested unbounded quantifiers, quantified alternations or back references are
      refused (they can backtrack catastrophically). Code `limit_regex`.
    - `max_list_size` (100,000): items in a list or set an expression builds (list concatenation,
      `collect` tables). Code `limit_list_size`.
    - `max_string_length` (1,000,000): characters in a string an expression builds (concatenation,
      interpolation). Code `limit_string_length`.
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
    max_expression_depth: int = 200


class Budget:
    """The steps left in one evaluation; charged by rules, tables and comprehension loops."""

    __slots__ = ("remaining", "limit")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.remaining = limit

    def charge(self, steps: int, span: Span | None) -> None:
        """Take `steps`; raise `limit_steps` once the evaluation has used more than allowed."""
        self.remaining -= steps
        if self.remaining < 0:
            raise LimitExceededError(
                f"evaluation took more than {self.limit} steps", code="limit_steps", span=span)
