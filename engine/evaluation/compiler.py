"""Ruleset IR -> `CompiledRuleset`: compiled once, evaluated many times.

Expressions become Python closures (`expressions.py`); consts are evaluated once; rules and
tables are sorted by descending priority (ties in file order) once; each input gets a converter
that remembers its JSON Schema. `evaluate` then only converts the input data and runs closures.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from datetime import date
from typing import NamedTuple

from insureops.engine import ir
from insureops.engine.evaluation.codegen import generate
from insureops.engine.evaluation.direct import FALLBACK, generate_direct
from insureops.engine.evaluation.expressions import EVAL, ExpressionCompiler, freeze
from insureops.engine.evaluation.program import (
    RuleProgram,
    RunState,
    TableProgram,
    run_items,
    run_items_traced,
)
from insureops.engine.evaluation.selftest import run_tests
from insureops.engine.inputs.conversion import InputConverter
from insureops.engine.inputs.projection import ProjectedConverter
from insureops.engine.inputs.reads import input_reads
from insureops.engine.ir.context import Evaluation
from insureops.engine.ir.errors import EngineError, EvaluationError, LimitExceededError
from insureops.engine.ir.limits import Limits
from insureops.engine.ir.result import Result, TestOutcome
from insureops.engine.ir.tree import children

_PENDING = object()
RESULT_NAMES = frozenset({"decision", "score", "outputs", "reasons", "tags", "fired"})
# Untraced evaluations that run on the closures before the rule loop is generated as code
# (`codegen.py`): generating costs about a compile (Python's own compile of the text; figures
# in docs/performance.md), which a ruleset evaluated a few times (embedded tests, one API call)
# never earns back, while a bulk run pays it once, after its first cases.
GENERATE_AFTER = 64


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
               source: str | None = None, generate_after: int | None = None) -> CompiledRuleset:
    """Compile a checked ruleset. `input_schemas` maps each input name to its JSON Schema
    (None for `Any`); `source`, when given, lets explanations quote the author's own text;
    `generate_after` is how many untraced evaluations run on closures before the fast path is
    generated (default GENERATE_AFTER; 0: from the first one).
    Raises `EngineError` (code `invalid_ir`, `invalid_const`, ...) for a malformed tree."""
    return build_ruleset(ruleset, input_schemas=input_schemas, source=source,
                         compiler_class=ExpressionCompiler,
                         generate_after=GENERATE_AFTER if generate_after is None
                         else generate_after)


def build_ruleset(ruleset: ir.Ruleset, *, input_schemas: Mapping[str, dict | None],
                  source: str | None, compiler_class,
                  generate_after: int | None = None) -> CompiledRuleset:
    """Compile with a given expression compiler class (the closure compiler, or the reference
    interpreter's adapter in `interpreter.compile_reference`); `generate_after`, when not None,
    adds the generated fast path for untraced evaluations (`codegen.py`) after that many."""
    limits = Limits()
    consts = _evaluate_consts(ruleset, compiler_class, limits)
    inputs = frozenset(decl.name for decl in ruleset.inputs)
    compiler = compiler_class(consts, inputs | {"outputs"}, limits)
    expect_compiler = compiler_class(consts, RESULT_NAMES, limits)
    try:
        programs = [RuleProgram(item, compiler) if isinstance(item, ir.Rule)
                    else TableProgram(item, compiler) for item in ruleset.items]
        expectations = [expect_compiler.compile(test.expect) for test in ruleset.tests]
    except RecursionError:
        raise LimitExceededError("the ruleset is nested too deeply to compile",
                                 code="limit_expression_depth") from None
    order = sorted(range(len(programs)), key=lambda i: (-programs[i].node.priority, i))
    ordered = tuple(programs[i] for i in order)
    converters = {decl.name: InputConverter(input_schemas.get(decl.name))
                  for decl in ruleset.inputs}
    # Compile (and so validate) every condition now; the generated fast path, when asked for,
    # is made later (GENERATE_AFTER): it costs more than the rest of the compile, and checking
    # a ruleset needs none of it.
    for item in ordered:
        if item.kind == "rule":
            item.prepare()
    return CompiledRuleset(ruleset, ordered, converters, consts, expectations, source, compiler,
                           generate_after)


def _evaluate_consts(ruleset: ir.Ruleset, compiler_class, limits: Limits) -> dict:
    consts, errors = _compute_consts(ruleset, compiler_class, limits)
    if errors:
        raise errors[0]
    return consts


def const_errors(ruleset: ir.Ruleset) -> list[EngineError]:
    """The `invalid_const` error of every const that cannot be computed under the default
    limits (a list doubled 40 times, a number squared beyond 100 digits), for the checker to
    report; a const reading one that failed is not computed, so it is not reported."""
    return _compute_consts(ruleset, ExpressionCompiler, Limits())[1]


def _compute_consts(ruleset: ir.Ruleset, compiler_class,
                    limits: Limits) -> tuple[dict, list[EngineError]]:
    consts: dict[str, object] = {}
    errors: list[EngineError] = []
    failed: set[str] = set()
    for const in ruleset.consts:
        if _reads_any(const.value, failed):
            failed.add(const.name)
            continue
        compiler = compiler_class(consts, frozenset(), limits)
        try:
            value = compiler.compile(const.value)({EVAL: Evaluation(None, limits, {})})
        except (EvaluationError, RecursionError) as error:
            why = error.message if isinstance(error, EngineError) else "it is nested too deeply"
            errors.append(EngineError(f"const `{const.name}` cannot be computed: {why}",
                                      code="invalid_const", span=const.span))
            failed.add(const.name)
            continue
        consts[const.name] = freeze(value)
    return consts, errors


def _reads_any(expr: object, names: set[str]) -> bool:
    stack = [expr]
    while names and stack:
        node = stack.pop()
        if isinstance(node, ir.Name) and node.name in names:
            return True
        stack.extend(children(node))
    return False


class CompiledRuleset:
    """A ruleset ready to evaluate. Immutable after construction apart from the regex cache,
    so one instance can serve many evaluations (also from several threads)."""

    def __init__(self, ruleset: ir.Ruleset, items: tuple, converters: dict, consts: dict,
                 expectations: list, source: str | None, compiler,
                 generate_after: int | None = None) -> None:
        self.name = ruleset.name
        self.ir = ruleset
        self.consts = consts
        self.source = source
        self._all_items = items
        self._active_items = tuple(item for item in items if getattr(item.node, "enabled", True))
        self._converters = converters
        # every path converts (and validates) only what the rules read (`projection.py`),
        # made on the first evaluation
        self._projected = converters
        self._expectations = expectations
        self._compiler = compiler
        # the fast path, made on demand after `generate_after` untraced evaluations
        self._generated = _PENDING if generate_after is not None else None
        self._generate_after = generate_after or 0
        self._untraced = 0
        self._regexes: dict = {}
        self._default_limits = Limits()
        self._direct = None  # the direct path (`direct.py`), made with the fast path

    def evaluate(self, inputs: Mapping[str, object], *, as_of: date | None = None,
                 explain: bool = False, limits: Limits | None = None) -> Result:
        """Run the ruleset on `inputs` (input name -> JSON-like data). `as_of` is what
        `today()`/`now()` and `effective` windows see; `explain` adds the trace. The input
        limits are counted on what the rules read (docs/rules-language.md, "What the input
        limits count")."""
        if not explain and limits is None:
            direct = self._direct  # for a caller holding this method from before it was made
            if direct is not None:
                try:
                    return direct(inputs, as_of)
                except FALLBACK:
                    pass  # the generated path gives this input's one answer or error
        return self._evaluate(inputs, as_of=as_of, explain=explain, limits=limits)

    def _evaluate(self, inputs: Mapping[str, object], *, as_of: date | None = None,
                  explain: bool = False, limits: Limits | None = None) -> Result:
        """`evaluate` without the direct path (the generated `evaluate` that replaces the
        method on the instance once made, `direct.py`, calls it for what it leaves)."""
        limits = limits or self._default_limits
        if not explain:
            fast = self._generated
            if fast is _PENDING:
                fast = self._warming_up()
            if fast is not None:  # the generated fast path builds the Result itself
                env = self._bind(inputs, limits)
                env[EVAL] = ev = Evaluation(as_of, limits, self._regexes)
                try:
                    return fast(env, ev)
                except RecursionError:
                    raise LimitExceededError("evaluation nested too deeply",
                                             code="limit_depth") from None
        ev = Evaluation(as_of, limits, self._regexes)
        if self._projected is self._converters:
            self._project()  # every path converts and validates the same: what the rules read
        env = self._bind(inputs, limits)
        env[EVAL] = ev
        outputs: dict = {}
        env["outputs"] = outputs
        state = RunState()
        trace = None
        try:
            if explain:
                trace = run_items_traced(self._all_items, env, ev, state, self.source)
            else:
                run_items(self._active_items, env, ev, state)
        except RecursionError:
            raise LimitExceededError("evaluation nested too deeply", code="limit_depth") from None
        decision = state.decision or self.ir.default_decision
        return Result(self.name, decision, state.score, outputs, state.reasons,
                      sorted(state.tags), state.fired, trace)

    def evaluate_many(self, items: Iterable[Mapping[str, object] | BatchItem], *,
                      as_of: date | None = None, explain: bool = False,
                      limits: Limits | None = None) -> Iterator[Result | EngineError]:
        """`evaluate` over many inputs, one result per item, in order and lazily (an item is
        read only when its result is asked for, so a stream of millions stays flat). An item
        is an inputs mapping, or a `BatchItem` carrying its own as-of date. The options are set up once for the batch. A failing item yields its
        `EngineError` as a value (an unexpected exception, which is an engine bug, becomes
        one with code `internal_error`), and the batch goes on."""
        if not explain and limits is None:
            yield from self._evaluate_direct(items, as_of)
            return
        limits = limits or self._default_limits
        regexes, evaluate, bind = self._regexes, self.evaluate, self._bind
        for item in items:
            if type(item) is BatchItem:
                inputs, when = item
                if when is None:
                    when = as_of
            else:
                inputs, when = item, as_of
            fast = self._generated
            try:
                if explain or fast is None or fast is _PENDING:
                    outcome = evaluate(inputs, as_of=when, explain=explain, limits=limits)
                else:  # evaluate's fast path, with the set-up above done once
                    env = bind(inputs, limits)
                    env[EVAL] = ev = Evaluation(when, limits, regexes)
                    try:
                        outcome = fast(env, ev)
                    except RecursionError:
                        raise LimitExceededError("evaluation nested too deeply",
                                                 code="limit_depth") from None
            except EngineError as error:
                outcome = error
            except (ArithmeticError, ValueError, TypeError, RecursionError) as error:
                outcome = _internal(error)
            yield outcome

    def _evaluate_direct(self, items, as_of: date | None) -> Iterator[Result | EngineError]:
        """`evaluate_many` with the default limits: the direct path first for every item."""
        evaluate = self._evaluate
        for item in items:
            if type(item) is BatchItem:
                inputs, when = item
                if when is None:
                    when = as_of
            else:
                inputs, when = item, as_of
            direct = self._direct
            if direct is not None:
                try:
                    yield direct(inputs, when)
                    continue
                except FALLBACK:
                    pass
            try:
                outcome = evaluate(inputs, as_of=when)
            except EngineError as error:
                outcome = error
            except (ArithmeticError, ValueError, TypeError, RecursionError) as error:
                outcome = _internal(error)
            yield outcome

    @property
    def _fast(self):
        """The generated fast path (`codegen.py`), made now if it was not yet; None when the
        ruleset runs on closures alone."""
        return self._generate() if self._generated is _PENDING else self._generated

    def _warming_up(self):
        """None while the ruleset is new: its first `generate_after` untraced evaluations run
        on the closures, over the same projected input conversion as the fast path (so both
        read and check the same fields). Then the generated fast path."""
        if self._projected is self._converters:
            self._project()
        self._untraced += 1  # a race only moves the moment of generation
        if self._untraced <= self._generate_after:
            return None
        return self._generate()

    def _project(self) -> None:
        reads = input_reads(self.ir)
        projected = {name: ProjectedConverter(converter, reads[name])
                     for name, converter in self._converters.items()}
        self._projected = projected

    def _generate(self):
        if self._projected is self._converters:
            self._project()
        roots = [*(decl.name for decl in self.ir.inputs), "outputs"]
        try:
            fast = generate(self._active_items, self._compiler, roots,
                            (self.name, self.ir.default_decision))
        except (SyntaxError, RecursionError, MemoryError):
            fast = None  # the closures alone are correct, only slower
        if fast is not None:
            reads = input_reads(self.ir)
            made = generate_direct(
                self._active_items, self._compiler,
                [(decl.name, self._converters[decl.name], reads[decl.name])
                 for decl in self.ir.inputs], (self.name, self.ir.default_decision),
                self._evaluate)
            if made is not None:
                self._direct, self.evaluate = made  # the instance's evaluate from now on
        self._generated = fast  # set last: another thread may read it at any time
        return fast

    def _bind(self, inputs: Mapping[str, object], limits: Limits,
              converters: dict | None = None) -> dict:
        if converters is None:
            converters = self._projected
        env = {}
        for name, converter in converters.items():
            if name not in inputs:
                raise EvaluationError(f"missing input `{name}`", code="missing_input")
            env[name] = converter.convert(name, inputs[name], limits)
        if len(inputs) != len(env):
            unknown = sorted(str(name) for name in inputs if name not in converters)
            raise EvaluationError(f"unknown input {', '.join(unknown)}; the ruleset declares "
                                  f"{', '.join(converters) or 'none'}", code="unknown_input")
        return env

    def run_tests(self, *, as_of: date | None = None) -> list[TestOutcome]:
        """Run the ruleset's embedded `test` blocks (see `engine.selftest`). A test's
        `given ... as of DATE` wins over `as_of`."""
        return run_tests(self, self._expectations, as_of)

    def expression_compiler(self):
        """The expression compiler this ruleset was built with (for embedded tests)."""
        return self._compiler
