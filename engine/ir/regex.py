"""`matches`: Python `re` search semantics, with the pattern's cost bounded before it runs.

Patterns that can backtrack exponentially (a variable-length quantifier inside a repeated part,
repeated alternations whose branches do not start with distinct literals, back references) are
refused; polynomial backtracking is bounded by capping the subject's length from the pattern's
variable-length quantifiers and `STEP_BUDGET` (docs/rules-language.md, "Limits").
"""

from __future__ import annotations

import re
from re import _constants as sre_constants  # the parser `re` itself uses; stable across 3.11+
from re import _parser as sre_parser

from insureops.engine.ir import Span, costs
from insureops.engine.ir.context import Evaluation
from insureops.engine.ir.errors import EvaluationError, LimitExceededError
from insureops.engine.ir.operations import mismatch

STEP_BUDGET = 20_000_000  # backtracking steps allowed for one match (well under a second)
_REPEATS = {sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT,
            getattr(sre_constants, "POSSESSIVE_REPEAT", sre_constants.MAX_REPEAT)}
_BACKREFS = {sre_constants.GROUPREF, sre_constants.GROUPREF_EXISTS}
_ANCHORS = {sre_constants.AT_BEGINNING, sre_constants.AT_BEGINNING_STRING}


class GuardedPattern:
    """A compiled pattern and the longest subject it may be matched against."""

    __slots__ = ("pattern", "max_subject")

    def __init__(self, pattern: re.Pattern, max_subject: int) -> None:
        self.pattern = pattern
        self.max_subject = max_subject


def compile_pattern(pattern: str, ev: Evaluation, span: Span | None) -> GuardedPattern:
    """The guarded `pattern`, from the ruleset's cache when it was seen before."""
    cache = ev.regexes
    limits = ev.limits
    key = (pattern, limits.max_regex_pattern_length, limits.max_regex_subject_length)
    found = cache.get(key)
    if found is None:
        found = _guarded_compile(pattern, limits.max_regex_pattern_length,
                                 limits.max_regex_subject_length)
        if len(cache) < 1024:
            cache[key] = found
    if isinstance(found, Exception):
        raise type(found)(found.message, code=found.code, span=span)
    return found


def _guarded_compile(pattern: str, max_length: int,
                     max_subject: int) -> GuardedPattern | EvaluationError:
    if len(pattern) > max_length:
        return LimitExceededError(
            f"regular expression is {len(pattern)} characters long (limit {max_length})",
            code="limit_regex")
    try:
        parsed = sre_parser.parse(pattern)
        compiled = re.compile(pattern)
    except (re.error, RecursionError, OverflowError) as error:
        return EvaluationError(f"invalid regular expression {pattern!r}: {error}",
                               code="invalid_regex")
    danger = _danger(parsed, inside_repeat=False)
    if danger:
        return LimitExceededError(f"regular expression {pattern!r} is refused: {danger}",
                                  code="limit_regex")
    items = list(parsed)
    anchored = bool(items) and items[0][0] is sre_constants.AT and items[0][1] in _ANCHORS
    power = _variable_count(parsed) + (0 if anchored else 1)
    allowed = max_subject if power <= 1 else min(max_subject,
                                                  int(STEP_BUDGET ** (1 / power)))
    return GuardedPattern(compiled, allowed)


def _variable(low, high) -> bool:
    return low != high


def _danger(parsed, *, inside_repeat: bool) -> str | None:
    for op, argument in parsed:
        found = None
        if op in _REPEATS:
            low, high, body = argument
            if inside_repeat and _variable(low, high):
                return "a variable-length quantifier inside a repeated part can backtrack " \
                       "exponentially"
            repeats = high is sre_constants.MAXREPEAT or high > 1
            found = _danger(body, inside_repeat=inside_repeat or repeats)
        elif op in _BACKREFS:
            return "back references are not supported"
        elif op is sre_constants.SUBPATTERN:
            found = _danger(argument[-1], inside_repeat=inside_repeat)
        elif op is sre_constants.BRANCH:
            if inside_repeat and _ambiguous_alternation(argument[1]):
                return "a repeated alternation with overlapping branches can backtrack"
            for branch in argument[1]:
                found = found or _danger(branch, inside_repeat=inside_repeat)
        elif op in (sre_constants.ASSERT, sre_constants.ASSERT_NOT):
            found = _danger(argument[1], inside_repeat=inside_repeat)
        elif op is getattr(sre_constants, "ATOMIC_GROUP", None):
            found = _danger(argument, inside_repeat=inside_repeat)
        if found:
            return found
    return None


def _variable_count(parsed) -> int:
    """How many variable-length quantifiers the pattern has (alternatives count as one)."""
    count = 0
    for op, argument in parsed:
        if op in _REPEATS:
            count += _variable(argument[0], argument[1]) + _variable_count(argument[2])
        elif op is sre_constants.SUBPATTERN:
            count += _variable_count(argument[-1])
        elif op is sre_constants.BRANCH:
            count += max((_variable_count(branch) for branch in argument[1]), default=0)
        elif op in (sre_constants.ASSERT, sre_constants.ASSERT_NOT):
            count += _variable_count(argument[1])
        elif op is getattr(sre_constants, "ATOMIC_GROUP", None):
            count += _variable_count(argument)
    return count


def _ambiguous_alternation(branches) -> bool:
    firsts = []
    for branch in branches:
        branch = list(branch)
        if not branch or branch[0][0] is not sre_constants.LITERAL:
            return True
        firsts.append(branch[0][1])
    return len(set(firsts)) != len(firsts)


def search(subject: object, pattern: object, span: Span | None, ev: Evaluation) -> bool | None:
    """`subject matches pattern`: true when the pattern is found in the subject."""
    if subject is None or pattern is None:
        return None
    if type(subject) is not str or type(pattern) is not str:
        raise mismatch("matches", subject, pattern, span)
    guarded = compile_pattern(pattern, ev, span)
    if len(subject) > guarded.max_subject:
        raise LimitExceededError(
            f"text of {len(subject)} characters is too long to match against {pattern!r} "
            f"(limit {guarded.max_subject} for this pattern)", code="limit_regex", span=span)
    costs.regex(ev, subject, span)
    return guarded.pattern.search(subject) is not None
