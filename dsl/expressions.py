"""Static typing of expressions: names, fields, functions, operators; reports into a list.

A subexpression with an error gets type `any`, so one mistake is reported once, not at every
enclosing operator.
"""

from __future__ import annotations

import difflib
import functools
import heapq
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from insureops.dsl import types as t
from insureops.dsl.diagnostics import Diagnostic, error
from insureops.dsl.functions import FUNCTIONS, check_call
from insureops.engine import ir
from insureops.engine.ir.operators import OPERATORS, ORDERING

RESULT_NAMES: dict[str, t.Type] = {
    "decision": t.STRING, "score": t.NUMBER, "reasons": t.list_of(t.STRING),
    "tags": t.list_of(t.STRING), "fired": t.list_of(t.STRING),
}
_ARITHMETIC = {name for name, entry in OPERATORS.items() if entry.group == "arithmetic"}
_ORDERING = ORDERING
_ORDERED_KINDS = {"number", "string", "date", "datetime"}  # durations do not order: 1 month ? 30 days


@dataclass
class Scope:
    """What names mean where an expression stands."""

    inputs: Mapping[str, t.Type]
    consts: Mapping[str, t.Type]
    const_lines: Mapping[str, int]
    outputs: frozenset[str]
    in_test: bool = False
    variables: dict[str, t.Type] = field(default_factory=dict)


def suggest(name: str, candidates: list[str]) -> str | None:
    """A "did you mean" hint for a misspelt name, or None.

    A full comparison (difflib) costs about the product of the two lengths, so only a bounded
    shortlist is compared: the candidates sharing the name's rarest trigrams, ranked by a cheap
    distance. A ruleset of thousands of names and misspellings is then checked in near-linear
    time (a comparison with every name made 500 misspellings of 500 constants take 18 s).
    """
    if len(candidates) > SHORTLIST:
        candidates = _shortlist(name, _TrigramIndex.of(tuple(candidates)))
    close = difflib.get_close_matches(name, candidates, n=1, cutoff=0.7)
    return f"did you mean `{close[0]}`?" if close else None


SHORTLIST = 8  # candidates compared in full for one hint
_POSTINGS = 24  # candidates taken from each of the name's rarest trigrams
_RAREST = 3  # how many of its trigrams


def _trigrams(word: str) -> set[str]:
    padded = f"  {word.lower()} "
    return {padded[i:i + 3] for i in range(len(padded) - 2)}


class _TrigramIndex:
    """Candidate names by trigram (built once per candidate list, a few lists cached)."""

    def __init__(self, candidates: tuple[str, ...]) -> None:
        self.candidates = candidates
        self.postings: dict[str, list[str]] = {}
        for candidate in candidates:
            for gram in _trigrams(candidate):
                self.postings.setdefault(gram, []).append(candidate)

    @staticmethod
    @functools.lru_cache(maxsize=8)
    def of(candidates: tuple[str, ...]) -> _TrigramIndex:
        return _TrigramIndex(candidates)


def _shortlist(name: str, index: _TrigramIndex) -> list[str]:
    grams = sorted((g for g in _trigrams(name) if g in index.postings),
                   key=lambda g: len(index.postings[g]))[:_RAREST]
    pool = {c for g in grams for c in index.postings[g][:_POSTINGS]}
    letters = set(name.lower())
    return heapq.nsmallest(SHORTLIST, pool, key=lambda c: (
        abs(len(c) - len(name)) + len(letters.symmetric_difference(c.lower())), c))


class ExpressionChecker:
    """Infers types and collects E1xx/E2xx diagnostics for expressions in one scope."""

    def __init__(self, scope: Scope, diagnostics: list[Diagnostic]) -> None:
        self.scope = scope
        self.diagnostics = diagnostics

    def report(self, code: str, span: ir.Span | None, message: str, hint: str | None = None) -> t.Type:
        self.diagnostics.append(error(code, span, message, hint))
        return t.ANY

    def condition(self, expr: ir.Expr, what: str) -> None:
        """Check an expression that must be boolean (a `when`, an `expect`, a `where`)."""
        found = self.check(expr)
        if not found.is_any and found.kind != "boolean":
            self.report("E201", expr.span, f"{what} must be true or false, but this is {found.a}",
                        "compare it, e.g. `x > 0`, `x is not null`")

    def check(self, expr: ir.Expr) -> t.Type:
        """The type of `expr`; problems are recorded, never raised."""
        method = getattr(self, "_" + type(expr).__name__.lower(), None)
        return method(expr) if method is not None else t.ANY  # a node this checker predates

    # --- names and access ----------------------------------------------------------------------

    def _literal(self, expr: ir.Literal) -> t.Type:
        return t.type_of_value(expr.value)

    def _name(self, expr: ir.Name) -> t.Type:
        scope, name = self.scope, expr.name
        if name in scope.variables:
            return scope.variables[name]
        if name in scope.inputs and not scope.in_test:
            return scope.inputs[name]
        if name in scope.consts:
            defined = scope.const_lines.get(name, 0)
            if expr.span is not None and defined > expr.span.line:
                self.report("E108", expr.span, f"constant `{name}` is used before its "
                            f"definition at line {defined}", "move the `const` above its first use")
            return scope.consts[name]
        if name == "outputs":
            return t.object_of({key: t.ANY for key in scope.outputs}, "outputs")
        if scope.in_test:
            if name in RESULT_NAMES:
                return RESULT_NAMES[name]
            known = [*RESULT_NAMES, "outputs"]
            return self.report("E113", expr.span, f"`{name}` is not part of a result",
                               suggest(name, known) or "a test's `expect` reads decision, score, "
                               "outputs.NAME, reasons, tags and fired")
        if name in RESULT_NAMES:
            return self.report("E100", expr.span, f"unknown name `{name}`",
                               f"`{name}` is a result name, readable only in a test's `expect`")
        known = [*scope.variables, *scope.inputs, *scope.consts, "outputs"]
        return self.report("E100", expr.span, f"unknown name `{name}`",
                           suggest(name, known) or "declare it with `input` or `const`")

    def _member(self, expr: ir.Member) -> t.Type:
        owner = self.check(expr.obj)
        if owner.is_any:
            return t.ANY
        if owner.kind != "object":
            hint = ("use any(x in LIST where x.FIELD ...) to look inside a list"
                    if owner.is_collection else None)
            return self.report("E200", expr.span, f"{owner.a} has no field `{expr.field}`", hint)
        fields = owner.fields or {}
        if expr.field in fields:
            return fields[expr.field]
        if owner.name == "outputs" and isinstance(expr.obj, ir.Name):
            return self.report("E105", expr.span, f"`outputs.{expr.field}` is never set",
                               suggest(expr.field, list(fields)) or
                               "set it with `set NAME = ...` in a rule or `=> NAME` in a table")
        if not owner.closed:
            return t.ANY
        return self.report("E104", expr.span, f"unknown field `{expr.field}` on {owner}",
                           suggest(expr.field, list(fields)))

    def _index(self, expr: ir.Index) -> t.Type:
        owner, key = self.check(expr.obj), self.check(expr.index)
        if owner.is_any:
            return t.ANY
        if owner.kind == "list" and key.kind in ("number", "any", "null"):
            return owner.item or t.ANY
        if owner.kind == "string" and key.kind in ("number", "any", "null"):
            return t.STRING
        if owner.kind == "object" and key.kind in ("string", "any", "null"):
            if isinstance(expr.index, ir.Literal) and owner.fields is not None:
                return owner.fields.get(str(expr.index.value), t.ANY)
            return t.ANY
        return self.report("E200", expr.span, f"cannot index {owner.a} with {key.a}",
                           "lists and strings take a number, objects a string")

    def _call(self, expr: ir.Call) -> t.Type:
        if expr.func not in FUNCTIONS:
            return self.report("E101", expr.span, f"unknown function `{expr.func}`",
                               suggest(expr.func, sorted(FUNCTIONS)))
        argument_types = [self.check(argument) for argument in expr.args]
        result, problem = check_call(expr.func, argument_types)
        if problem is not None:
            code, message, hint = problem
            return self.report(code, expr.span, message, hint)
        return result

    # --- operators -----------------------------------------------------------------------------

    def _unary(self, expr: ir.Unary) -> t.Type:
        operand = self.check(expr.operand)
        wanted = ("boolean",) if expr.op == "not" else ("number", "duration")
        if operand.is_any or operand.kind in wanted:
            return t.BOOLEAN if expr.op == "not" else operand
        return self.report("E200", expr.span, f"`{expr.op}` cannot apply to {operand.a}")

    def _binary(self, expr: ir.Binary) -> t.Type:
        op = expr.op
        left, right = self.check(expr.left), self.check(expr.right)
        if op in ("and", "or"):
            for side, found in ((expr.left, left), (expr.right, right)):
                if not found.is_any and found.kind != "boolean":
                    self.report("E200", side.span, f"`{op}` needs true or false, not {found.a}")
            return t.BOOLEAN
        if op == "??":
            return t.unify(left, right)
        if op in _ARITHMETIC:
            return self._arithmetic(expr, left, right)
        if op == "matches":
            self._regex(expr.right)
        result = relation(op, left, right)
        if result is None:
            hint = ("`in` needs a list or set on its right" if op in ("in", "not in") else None)
            return self.report("E200", expr.span, _mismatch_message(op, left, right), hint)
        return result

    def _arithmetic(self, expr: ir.Binary, left: t.Type, right: t.Type) -> t.Type:
        result = _arithmetic(expr.op, left, right)
        if result is None:
            return self.report("E200", expr.span, _mismatch_message(expr.op, left, right))
        return result

    def _regex(self, pattern: ir.Expr) -> None:
        if isinstance(pattern, ir.Literal) and isinstance(pattern.value, str):
            try:
                re.compile(pattern.value)
            except re.error as exc:
                self.report("E114", pattern.span, f"invalid regular expression: {exc}")

    def _between(self, expr: ir.Between) -> t.Type:
        value, low, high = (self.check(e) for e in (expr.value, expr.low, expr.high))
        for bound in (low, high):
            if relation("<=", value, bound) is None:
                return self.report("E200", expr.span, _mismatch_message("between", value, bound))
        return t.BOOLEAN

    def _isnull(self, expr: ir.IsNull) -> t.Type:
        self.check(expr.value)
        return t.BOOLEAN

    def _conditional(self, expr: ir.Conditional) -> t.Type:
        self.condition(expr.cond, "the `if` condition")
        return t.unify(self.check(expr.then), self.check(expr.else_))

    # --- collections ---------------------------------------------------------------------------

    def _listexpr(self, expr: ir.ListExpr) -> t.Type:
        return t.list_of(self._items(expr.items))

    def _setexpr(self, expr: ir.SetExpr) -> t.Type:
        return t.set_of(self._items(expr.items))

    def _items(self, items: tuple[ir.Expr, ...]) -> t.Type:
        found = t.NULL
        for item in items:
            found = t.unify(found, self.check(item))
        return t.ANY if found.kind == "null" else found

    def _objectexpr(self, expr: ir.ObjectExpr) -> t.Type:
        return t.object_of({key: self.check(value) for key, value in expr.entries}, closed=False)

    def _interpolated(self, expr: ir.Interpolated) -> t.Type:
        for part in expr.parts:
            if not isinstance(part, str):
                self.check(part)
        return t.STRING

    def _comprehension(self, expr: ir.Comprehension) -> t.Type:
        source = self.check(expr.source)
        if not source.is_any and not source.is_collection:
            self.report("E200", expr.source.span, f"`{expr.kind}` needs a list or set, "
                        f"not {source.a}")
            source = t.ANY
        variables = self.scope.variables
        saved = variables.get(expr.var)
        variables[expr.var] = (source.item or t.ANY) if source.is_collection else t.ANY
        try:
            if expr.where is not None:
                self.condition(expr.where, "a `where` condition")
            projected = self.check(expr.projection) if expr.projection is not None else None
        finally:
            if saved is None:
                del variables[expr.var]
            else:
                variables[expr.var] = saved
        if expr.kind in ("any", "all"):
            return t.BOOLEAN
        if expr.kind in ("count", "sum"):
            if expr.kind == "sum" and projected is not None and projected.kind not in (
                    "number", "any", "null"):
                self.report("E200", expr.span, f"`sum` adds numbers, not {projected} values")
            return t.NUMBER
        return projected or t.ANY


def _arithmetic(op: str, left: t.Type, right: t.Type) -> t.Type | None:
    kinds = (left.kind, right.kind)
    if left.is_any and right.is_any:
        return t.ANY
    if left.is_any or right.is_any:
        known = right if left.is_any else left
        if op in ("*", "/", "%"):
            return t.NUMBER if known.kind == "number" else None
        return t.ANY if known.kind in ("number", "string", "list", "date", "datetime",
                                        "duration") else None
    if kinds == ("number", "number"):
        return t.NUMBER
    if op == "+":
        if kinds in (("string", "string"),):
            return t.STRING
        if left.kind == "list" and right.kind == "list":
            return t.list_of(t.unify(left.item or t.ANY, right.item or t.ANY))
        if kinds in (("date", "duration"), ("datetime", "duration"), ("duration", "duration")):
            return left
        if kinds in (("duration", "date"), ("duration", "datetime")):
            return right
    if op == "-":
        if kinds in (("date", "duration"), ("datetime", "duration"), ("duration", "duration")):
            return left
        if kinds in (("date", "date"), ("datetime", "datetime")):
            return t.DURATION
    return None


def relation(op: str, left: t.Type, right: t.Type) -> t.Type | None:
    """BOOLEAN when `left op right` is well typed, else None."""
    if op in ("==", "!="):
        return t.BOOLEAN if t.compatible(left, right) else None
    if op in _ORDERING:
        if left.is_any or right.is_any:
            known = right if left.is_any else left
            return t.BOOLEAN if known.is_any or known.kind in _ORDERED_KINDS else None
        return t.BOOLEAN if left.kind == right.kind and left.kind in _ORDERED_KINDS else None
    if op in ("in", "not in", "contains"):
        item, collection = (right, left) if op == "contains" else (left, right)
        if collection.is_any:
            return t.BOOLEAN
        if collection.kind == "string":
            return t.BOOLEAN if item.is_any or item.kind == "string" else None
        if collection.is_collection:
            return t.BOOLEAN if t.compatible(item, collection.item or t.ANY) else None
        return None
    # starts_with, ends_with, matches
    ok = all(side.is_any or side.kind == "string" for side in (left, right))
    return t.BOOLEAN if ok else None


def _mismatch_message(op: str, left: t.Type, right: t.Type) -> str:
    return f"type mismatch: `{op}` cannot combine {left.a} with {right.a}"
