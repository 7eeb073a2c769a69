"""Ruleset IR -> `CompiledRuleset`: compiled once, evaluated many times, on one compiled form.

Compiling computes the consts, folds the sub-expressions that read only constants, sorts rules
and tables by descending priority (ties in file order) and generates the ruleset as Python
(`ruleset_code.py`, `generator.py`); each input gets the slot that remembers its JSON Schema.
`evaluate` then runs the generated function on the input data as it is given.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from datetime import date
from typing import NamedTuple

from insureops.engine import ir
from insureops.engine.evaluation.generator import (
    bound_names,
    check_depth,
    expression_function,
    fold,
    freeze,
    item_expressions,
    static_nodes,
)
from insureops.engine.evaluation.ruleset_code import RulesetCode
from insureops.engine.evaluation.selftest import run_tests
from insureops.engine.inputs.slots import Slot
from insureops.engine.ir.context import Evaluation
from insureops.engine.ir.errors import EngineError, EvaluationError, LimitExceededError
from insureops.engine.ir.limits import DEFAULT_LIMITS, Limits
from insureops.engine.ir.result import Result, TestOutcome
from insureops.engine.ir.tree import children

RESULT_NAMES = ("decision", "score", "outputs", "reasons", "tags", "fired")


class BatchItem(NamedTuple):
    """One input of `CompiledRuleset.evaluate_many` with its own as-of date (None: the
    batch's)."""

    inputs: Mapping[str, object]
    as_of: date | None = None


def _internal(error: Exception) -> EngineError:
    """An unexpected failure of one evaluation (an engine bug) as an error value."""
    wrapped = EngineError(f"{type(error).__name__}: {error}", code="internal_error")
    wrapped.__cause__ = error
    return wrapped


def compile_ir(ruleset: ir.Ruleset, *, input_schemas: Mapping[str, dict | None],
               source: str | None = None) -> CompiledRuleset:
    """Compile a checked ruleset. `input_schemas` maps each input name to its JSON Schema
    (None for `Any`); `source`, when given, lets explanations quote the author's own text.
    Raises `EngineError` (code `invalid_ir`, `invalid_const`, `limit_expression_depth`) for
    a malformed tree."""
    limits = DEFAULT_LIMITS
    consts = _evaluate_consts(ruleset, limits)
    expressions = [expr for item in ruleset.items for expr in item_expressions(item)]
    for expr in expressions:
        check_depth(expr, limits)
    for test in ruleset.tests:
        check_depth(test.expect, limits)
        _check_names(test.expect, frozenset(RESULT_NAMES) | frozenset(consts))
    folded, clocked = static_nodes(expressions, consts, bound_names(ruleset))
    values = fold(folded, consts, limits)
    order = sorted(range(len(ruleset.items)),
                   key=lambda i: (-ruleset.items[i].priority, i))
    items = tuple(ruleset.items[i] for i in order)
    slots = {decl.name: Slot.root(decl.name, input_schemas.get(decl.name))
             for decl in ruleset.inputs}
    code = RulesetCode(items, slots, (ruleset.name, ruleset.default_decision), consts, values,
                       frozenset(id(node) for node in clocked), source)
    try:
        return CompiledRuleset(ruleset, consts, code, source)
    except RecursionError:
        raise LimitExceededError("the ruleset is nested too deeply to compile",
                                 code="limit_expression_depth") from None


def _evaluate_consts(ruleset: ir.Ruleset, limits: Limits) -> dict:
    consts, errors = _compute_consts(ruleset, limits)
    if errors:
        raise errors[0]
    return consts


def evaluate_consts(ruleset: ir.Ruleset) -> dict:
    """The ruleset's consts by name, computed as compiling computes them (without generating
    or compiling any code); raises EngineError `invalid_const` as compiling does."""
    return _evaluate_consts(ruleset, DEFAULT_LIMITS)


def const_errors(ruleset: ir.Ruleset) -> list[EngineError]:
    """The `invalid_const` error of every const that cannot be computed under the default
    limits (a list doubled 40 times, a number squared beyond 100 digits), for the checker to
    report; a const reading one that failed is not computed, so it is not reported."""
    return _compute_consts(ruleset, DEFAULT_LIMITS)[1]


def _compute_consts(ruleset: ir.Ruleset, limits: Limits) -> tuple[dict, list[EngineError]]:
    consts: dict[str, object] = {}
    errors: list[EngineError] = []
    failed: set[str] = set()
    for const in ruleset.consts:
        if _reads_any(const.value, failed):
            failed.add(const.name)
            continue
        try:
            check_depth(const.value, limits)
            compute = expression_function(const.value, consts)
            value = compute(Evaluation.start(None, limits, {}))
        except (EvaluationError, RecursionError) as error:
            why = error.message if isinstance(error, EngineError) else "it is nested too deeply"
            errors.append(EngineError(f"const `{const.name}` cannot be computed: {why}",
                                      code="invalid_const", span=const.span))
            failed.add(const.name)
            continue
        consts[const.name] = freeze(value)
    return consts, errors


def _check_names(expr: object, known: frozenset) -> None:
    """`invalid_ir` for a name `expr` reads that is neither known nor a comprehension's
    variable in scope (an expectation reads results and consts, never inputs)."""
    stack = [(expr, known)]
    while stack:
        node, names = stack.pop()
        if isinstance(node, ir.Name) and node.name not in names:
            raise EngineError(f"unknown name `{node.name}`", code="invalid_ir", span=node.span)
        if isinstance(node, ir.Comprehension):
            stack.append((node.source, names))
            inner = names | {node.var}
            stack.extend((part, inner) for part in (node.where, node.projection)
                         if part is not None)
            continue
        stack.extend((child, names) for child in children(node))


def _reads_any(expr: object, names: set[str]) -> bool:
    stack = [expr]
    while names and stack:
        node = stack.pop()
        if isinstance(node, ir.Name) and node.name in names:
            return True
        stack.extend(children(node))
    return False


class CompiledRuleset:
    """A ruleset ready to evaluate. Immutable after construction apart from the regex cache
    and the traced function made on first use, so one instance can serve many evaluations
    (also from several threads)."""

    def __init__(self, ruleset: ir.Ruleset, consts: dict, code: RulesetCode,
                 source: str | None) -> None:
        self.name = ruleset.name
        self.ir = ruleset
        self.consts = consts
        self.source = source
        self._code = code
        self._traced = None
        self._regexes: dict = {}
        # `evaluate` on the instance: the generated entry for the default call, which hands
        # any other call to the method below
        self._run, self.evaluate = code.generate(False, self._evaluate, self._regexes)

    @property
    def generated_source(self) -> str:
        """The Python text of the plain evaluation (for tests and debugging)."""
        return self._run.source

    def evaluate(self, inputs: Mapping[str, object], *, as_of: date | None = None,
                 explain: bool = False, limits: Limits | None = None,
                 conversions: dict | None = None) -> Result:
        """Run the ruleset on `inputs` (input name -> JSON-like data). `as_of` is what
        `today()`/`now()` and `effective` windows see; `explain` adds the trace. A value is
        checked where a rule reads it (docs/rules-language.md, "Input data"). `conversions`:
        a dict the caller passes to each of several evaluations over the same inputs (left
        unchanged between them), where an input value one converts whole is kept for the
        others (`inputs.slots.whole_value`). (Replaced on
        each instance by its generated entry, which calls `_evaluate` for any call but the
        default one; it declares the options positional-or-keyword, which costs the call no
        lookup of their defaults: pass them by keyword.)"""
        return self._evaluate(inputs, as_of=as_of, explain=explain, limits=limits,
                              conversions=conversions)

    def _evaluate(self, inputs: Mapping[str, object], *, as_of: date | None = None,
                  explain: bool = False, limits: Limits | None = None,
                  conversions: dict | None = None) -> Result:
        """Run the ruleset on `inputs` (input name -> JSON-like data). `as_of` is what
        `today()`/`now()` and `effective` windows see; `explain` adds the trace. A value is
        checked where a rule reads it (docs/rules-language.md, "Input data")."""
        if limits is None:
            limits = DEFAULT_LIMITS
        ev = Evaluation(limits.max_steps, as_of, limits, self._regexes, limits.max_input_nodes,
                        None, conversions)
        run = self._run if not explain else (self._traced or self._make_traced())
        try:
            return run(inputs, ev)
        except RecursionError:
            raise LimitExceededError("evaluation nested too deeply", code="limit_depth") from None

    def _make_traced(self):
        traced = self._code.generate(traced=True)
        self._traced = traced  # a race makes it twice, harmlessly
        return traced

    def evaluate_many(self, items: Iterable[Mapping[str, object] | BatchItem], *,
                      as_of: date | None = None, explain: bool = False,
                      limits: Limits | None = None) -> Iterator[Result | EngineError]:
        """`evaluate` over many inputs, one result per item, in order and lazily (an item is
        read only when its result is asked for, so a stream of millions stays flat). An item
        is an inputs mapping, or a `BatchItem` carrying its own as-of date. A failing item
        yields its `EngineError` as a value (an unexpected exception, which is an engine bug,
        becomes one with code `internal_error`), and the batch goes on."""
        if limits is None:
            limits = DEFAULT_LIMITS
        run = self._run if not explain else (self._traced or self._make_traced())
        regexes, steps, nodes = self._regexes, limits.max_steps, limits.max_input_nodes
        for item in items:
            if type(item) is BatchItem:
                inputs, when = item
                if when is None:
                    when = as_of
            else:
                inputs, when = item, as_of
            try:
                yield run(inputs, Evaluation(steps, when, limits, regexes, nodes))
            except EngineError as error:
                yield error
            except RecursionError:
                yield LimitExceededError("evaluation nested too deeply", code="limit_depth")
            except (ArithmeticError, ValueError, TypeError, AttributeError) as error:
                yield _internal(error)

    def run_tests(self, *, as_of: date | None = None) -> list[TestOutcome]:
        """Run the ruleset's embedded `test` blocks (see `engine.selftest`). A test's
        `given ... as of DATE` wins over `as_of`."""
        return run_tests(self, RESULT_NAMES, as_of)
