"""`matches`: Python `re` search semantics, with the pattern's cost guarded before it runs.

A pattern matches when it is found anywhere in the subject (`re.search`); anchor it with `^...$`
to match the whole string. Patterns that can backtrack catastrophically are refused: nested
unbounded quantifiers (`(a+)+`), unbounded repetition of an alternation whose branches do not each
start with a distinct literal character (`(a|aa)*`), and back references. Pattern and subject
lengths are capped (see `Limits`).
"""

from __future__ import annotations

import re
from re import _constants as sre_constants  # the parser `re` itself uses; stable across 3.11+
from re import _parser as sre_parser

from insureops.engine.context import Evaluation
from insureops.engine.errors import EvaluationError, LimitExceededError
from insureops.engine.ir import Span
from insureops.engine.operations import mismatch

_REPEATS = {sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT,
            getattr(sre_constants, "POSSESSIVE_REPEAT", sre_constants.MAX_REPEAT)}
_BACKREFS = {sre_constants.GROUPREF, sre_constants.GROUPREF_EXISTS}
_UNBOUNDED_FROM = 50  # a repeat allowing more than this many copies counts as unbounded


def compile_pattern(pattern: str, ev: Evaluation, span: Span | None) -> re.Pattern:
    """The compiled `pattern`, from the ruleset's cache when it was seen before."""
    cache = ev.regexes
    key = (pattern, ev.limits.max_regex_pattern_length)
    found = cache.get(key)
    if found is None:
        found = _guarded_compile(pattern, ev.limits.max_regex_pattern_length)
        if len(cache) < 1024:
            cache[key] = found
    if isinstance(found, Exception):
        raise type(found)(found.message, code=found.code, span=span)
    return found


def _guarded_compile(pattern: str, max_length: int) -> re.Pattern | EvaluationError:
    if len(pattern) > max_length:
        return LimitExceededError(
            f"regular expression is {len(pattern)} characters long (limit {max_length})",
            code="limit_regex")
    try:
        parsed = sre_parser.parse(pattern)
    except (re.error, RecursionError, OverflowError) as error:
        return EvaluationError(f"invalid regular expression {pattern!r}: {error}",
                               code="invalid_regex")
    danger = _danger(parsed, inside_unbounded=False)
    if danger:
        return LimitExceededError(f"regular expression {pattern!r} is refused: {danger}",
                                  code="limit_regex")
    return re.compile(pattern)


def _danger(parsed, *, inside_unbounded: bool) -> str | None:
    for op, argument in parsed:
        found = None
        if op in _REPEATS:
            low, high, body = argument
            unbounded = high is sre_constants.MAXREPEAT or high > _UNBOUNDED_FROM
            if unbounded and inside_unbounded:
                return "nested unbounded quantifiers can backtrack catastrophically"
            found = _danger(body, inside_unbounded=inside_unbounded or unbounded)
        elif op in _BACKREFS:
            return "back references are not supported"
        elif op is sre_constants.SUBPATTERN:
            found = _danger(argument[-1], inside_unbounded=inside_unbounded)
        elif op is sre_constants.BRANCH:
            if inside_unbounded and _ambiguous_alternation(argument[1]):
                return "a repeated alternation with overlapping branches can backtrack"
            for branch in argument[1]:
                found = found or _danger(branch, inside_unbounded=inside_unbounded)
        elif op in (sre_constants.ASSERT, sre_constants.ASSERT_NOT):
            found = _danger(argument[1], inside_unbounded=inside_unbounded)
        elif op is getattr(sre_constants, "ATOMIC_GROUP", None):
            found = _danger(argument, inside_unbounded=inside_unbounded)
        if found:
            return found
    return None


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
    limit = ev.limits.max_regex_subject_length
    if len(subject) > limit:
        raise LimitExceededError(
            f"text of {len(subject)} characters is too long to match (limit {limit})",
            code="limit_regex", span=span)
    return compile_pattern(pattern, ev, span).search(subject) is not None
