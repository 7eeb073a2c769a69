"""Compiled rules, tables and actions, and the loop that runs them in priority order.

Rules and tables run once each by descending priority, ties in file order (sorted once when the
ruleset is compiled). The untraced loop skips disabled items entirely; the traced loop (a
separate method per item, chosen once per item) also reports skipped items and records every
evaluated sub-expression.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal

from insureops.engine import ir
from insureops.engine.evaluation.explain import (
    cell_miss,
    condition_entries,
    item_entry,
    near_misses,
    span_dict,
    text_of,
)
from insureops.engine.evaluation.expressions import TRACE
from insureops.engine.evaluation.fastpaths import cell_against_constant
from insureops.engine.ir import numbers
from insureops.engine.ir import operations as ops
from insureops.engine.ir.context import Evaluation
from insureops.engine.ir.errors import EngineError, EvaluationError
from insureops.engine.ir.values import kind_of

SEVERITY = {"accept": 1, "refer": 2, "decline": 3}


class RunState:
    """What the rules have done so far in one evaluation."""

    __slots__ = ("score", "decision", "rank", "reasons", "tags", "fired", "stopped")

    def __init__(self) -> None:
        self.score = ops.ZERO
        self.decision: str | None = None
        self.rank = 0
        self.reasons: list[str] = []
        self.tags: set[str] = set()
        self.fired: list[str] = []
        self.stopped = False


Action = Callable[[dict, RunState], None]


def compile_action(action: object, compile_expr) -> Action:
    """One `then` action as a closure over (env, state)."""
    span = getattr(action, "span", None)
    if isinstance(action, ir.StopAction):
        def stop(env: dict, state: RunState) -> None:
            state.stopped = True
        return stop
    if isinstance(action, ir.ScoreAction):
        value, sign = compile_expr(action.value), action.op == "+="
        what = f"score {action.op}"
        if getattr(value, "is_constant", False) and type(value.value) is Decimal:
            amount = value.value if sign else numbers.negated(value.value)

            def add_constant(env: dict, state: RunState) -> None:
                state.score = numbers.add(state.score, amount, span, what)
            return add_constant

        def score(env: dict, state: RunState) -> None:
            amount = value(env)
            if type(amount) is Decimal:
                state.score = numbers.add(state.score, amount, span, what) if sign \
                    else numbers.subtract(state.score, amount, span, what)
            elif amount is not None:  # a null amount leaves the score as it is
                raise EvaluationError(f"score {action.op} needs a number, got "
                                      f"{kind_of(amount)}", code="type_mismatch", span=span)
        return score
    if isinstance(action, ir.SetAction):
        value, name = compile_expr(action.value), action.name

        def assign(env: dict, state: RunState) -> None:
            env["outputs"][name] = value(env)
        return assign
    if isinstance(action, (ir.DecisionAction, ir.ReasonAction, ir.TagAction)):
        return _message_action(action, compile_expr, span)
    raise EngineError(f"unknown action {type(action).__name__}", code="invalid_ir", span=span)


def _message_action(action: object, compile_expr, span) -> Action:
    expr = action.tag if isinstance(action, ir.TagAction) else action.message
    text = compile_expr(expr)
    fixed = text.value if getattr(text, "is_constant", False) else None
    if type(fixed) is not str:
        fixed = None

    def message(env: dict) -> str:
        if fixed is not None:
            return fixed
        value = text(env)
        if type(value) is not str:
            raise EvaluationError(f"expected a string, got {kind_of(value)}",
                                  code="type_mismatch", span=span)
        return value
    if isinstance(action, ir.TagAction):
        return lambda env, state: state.tags.add(message(env))
    if isinstance(action, ir.ReasonAction):
        return lambda env, state: state.reasons.append(message(env))
    decision, rank = action.decision, SEVERITY[action.decision]

    def decide(env: dict, state: RunState) -> None:
        state.reasons.append(fixed if fixed is not None else message(env))
        if rank > state.rank:
            state.rank, state.decision = rank, decision
    return decide


class RuleProgram:
    """A compiled rule: its condition (plain and traced) and its actions."""

    kind = "rule"
    __slots__ = ("node", "name", "compiler", "plain", "traced", "actions", "window")

    def __init__(self, node: ir.Rule, compiler) -> None:
        self.node, self.name, self.compiler = node, node.name, compiler
        # Both forms of the condition are compiled on first use: the generated fast path
        # (codegen.py) usually needs neither.
        self.plain = None
        self.traced = None
        self.actions = tuple(compile_action(a, compiler.compile) for a in node.actions)
        self.window = node.effective

    def prepare(self) -> None:
        """Compile the plain condition now (for when no generated fast path exists)."""
        if self.plain is None:
            self.plain = self.compiler.compile(self.node.condition)

    def condition(self, env: dict) -> object:
        """The value of the rule's `when` in `env`."""
        if self.plain is None:
            self.prepare()
        return self.plain(env)

    def run(self, env: dict, state: RunState) -> bool:
        test = self.condition(env)
        if test is True:
            state.fired.append(self.name)
            for action in self.actions:
                action(env, state)
            return True
        if test is not False and test is not None:
            ops.truth(test, self.node.condition.span)
        return False

    def run_traced(self, env: dict, state: RunState, source: str | None) -> dict:
        records = env[TRACE] = []
        if self.traced is None:
            self.traced = self.compiler.compile(self.node.condition, traced=True)
        test = self.traced(env)
        if test is not True and test is not False and test is not None:
            ops.truth(test, self.node.condition.span)
        entry = item_entry(self, matched=test is True, skipped=None)
        entry["condition"] = condition_entries(records, source)
        entry["failed"] = [] if test is True else near_misses(self.node.condition, records,
                                                               source)
        if test is True:
            state.fired.append(self.name)
            for action in self.actions:
                action(env, state)
        return entry


class TableProgram:
    """A compiled decision table: input expressions, rows of cell matchers, row values."""

    kind = "table"
    window = None
    __slots__ = ("node", "name", "inputs", "compiler", "traced", "rows", "collect", "unique")

    def __init__(self, node: ir.Table, compiler) -> None:
        self.node, self.name, self.compiler = node, node.name, compiler
        self.inputs = tuple(compiler.compile(e) for e in node.inputs)
        self.traced = None  # the traced inputs, compiled on the first explanation
        self.rows = tuple(_compile_row(row, compiler, node) for row in node.rows)
        self.collect = node.hit == "collect"
        self.unique = node.hit == "unique"

    def run(self, env: dict, state: RunState) -> bool:
        values = [read(env) for read in self.inputs]
        matches = []
        for row in self.rows:
            for column, match, _, _ in row[0]:
                if match(values[column], env) is not True:
                    break
            else:
                matches.append(row)
                if not (self.collect or self.unique):
                    break
        return self._apply(matches, env, state)

    def _apply(self, matches: list, env: dict, state: RunState) -> bool:
        outputs, names = env["outputs"], self.node.outputs
        if self.collect:
            for position, name in enumerate(names):
                outputs[name] = [row[1][position](env) for row in matches]
        elif matches:
            if self.unique and len(matches) > 1:
                lines = ", ".join(str(row[2].span.line) if row[2].span else "?"
                                  for row in matches)
                raise EvaluationError(f"table `{self.name}` has hit policy unique but "
                                      f"{len(matches)} rows match (lines {lines})",
                                      code="table_not_unique", span=self.node.span)
            for position, name in enumerate(names):
                outputs[name] = matches[0][1][position](env)
        if matches:
            state.fired.append(self.name)
            return True
        return False

    def run_traced(self, env: dict, state: RunState, source: str | None) -> dict:
        records = env[TRACE] = []
        if self.traced is None:
            self.traced = tuple(self.compiler.compile(e, traced=True) for e in self.node.inputs)
        values = [read(env) for read in self.traced]
        texts = [text_of(e, source) for e in self.node.inputs]
        rows, matches = [], []
        for number, row in enumerate(self.rows, 1):
            why = None
            for column, match, operands, cell in row[0]:
                if match(values[column], env) is not True:
                    why = cell_miss(cell, texts[column], values[column],
                                    [operand(env) for operand in operands])
                    break
            rows.append({"row": number, "span": span_dict(row[2].span),
                         "matched": why is None, "why": why})
            if why is None:
                matches.append(row)
                if not (self.collect or self.unique):
                    break
        matched = self._apply(matches, env, state)
        entry = item_entry(self, matched=matched, skipped=None)
        entry["inputs"] = [{"expr": text, "value": value} for text, value in zip(texts, values)]
        entry["condition"] = condition_entries(records, source)
        entry["rows"] = rows
        entry["outputs"] = {name: env["outputs"].get(name) for name in self.node.outputs} \
            if matched or self.collect else {}
        return entry


def _compile_row(row: ir.TableRow, compiler, node: ir.Table) -> tuple:
    if len(row.cells) != len(node.inputs) or len(row.values) != len(node.outputs):
        raise EngineError(f"a row of table `{node.name}` has {len(row.cells)} cells and "
                          f"{len(row.values)} values for {len(node.inputs)} inputs and "
                          f"{len(node.outputs)} outputs", code="invalid_ir",
                          span=row.span or node.span)
    cells = []
    for column, cell in enumerate(row.cells):
        if isinstance(cell, ir.AnyCell):
            continue
        matcher, operands = _compile_cell(cell, compiler)
        cells.append((column, matcher, operands, cell))
    values = tuple(compiler.compile(v) for v in row.values)
    return (tuple(cells), values, row)


def _compile_cell(cell: object, compiler) -> tuple[Callable, tuple]:
    span = getattr(cell, "span", None)
    if isinstance(cell, ir.NullCell):
        return (lambda value, env: value is None), ()
    if isinstance(cell, ir.BetweenCell):
        low, high = compiler.compile(cell.low), compiler.compile(cell.high)
        return (lambda value, env: ops.between(value, low(env), high(env), span)), (low, high)
    if isinstance(cell, ir.CompareCell):
        operand = compiler.compile(cell.operand)
        if getattr(operand, "is_constant", False):
            direct = cell_against_constant(cell.op, operand.value, span)
            if direct is not None:
                return direct, (operand,)
        probe = ir.Binary(cell.op, ir.Name(_CELL_VALUE), cell.operand, span=span)
        test = compiler.compile(probe, scope=frozenset({_CELL_VALUE}))

        def compare(value: object, env: dict) -> object:
            env[_CELL_VALUE] = value
            return test(env)
        return compare, (operand,)
    raise EngineError(f"unknown table cell {type(cell).__name__}", code="invalid_ir", span=span)


_CELL_VALUE = "$cell"  # not an identifier of the language, so it never clashes with a name


def in_window(window: ir.Effective, ev: Evaluation, span) -> bool:
    """Whether the evaluation's as-of date lies in an `effective` window (inclusive)."""
    return window.start <= ev.today(window.span or span) <= window.end


def run_items(items, env: dict, ev: Evaluation, state: RunState) -> None:
    """The untraced loop: rules and tables in order until the end or a `stop`. Every item
    is charged to the step budget up front."""
    ev.budget.charge(len(items), None)
    fired = state.fired
    for item in items:
        if item.window is not None and not in_window(item.window, ev, item.node.span):
            continue
        try:
            if item.kind == "table":
                item.run(env, state)
                continue
            test = item.condition(env)
            if test is True:
                fired.append(item.name)
                for action in item.actions:
                    action(env, state)
                if state.stopped:
                    return
            elif test is not False and test is not None:
                ops.truth(test, item.node.condition.span)
        except EngineError as error:
            raise located(error, item) from None


def run_items_traced(items, env: dict, ev: Evaluation, state: RunState,
                     source: str | None) -> list[dict]:
    """The traced loop: every rule and table, with skipped ones and why."""
    trace = []
    for item in items:
        if state.stopped:
            trace.append(item_entry(item, matched=False, skipped="after_stop"))
            continue
        if not getattr(item.node, "enabled", True):
            trace.append(item_entry(item, matched=False, skipped="disabled"))
            continue
        ev.budget.charge(1, item.node.span)
        if item.window is not None and not in_window(item.window, ev, item.node.span):
            trace.append(item_entry(item, matched=False, skipped="outside_effective_window"))
            continue
        try:
            trace.append(item.run_traced(env, state, source))
        except EngineError as error:
            raise located(error, item) from None
    env.pop(TRACE, None)
    return trace


def located(error: EngineError, item) -> EngineError:
    """`error` with the rule or table it happened in named, and its span if it had none."""
    prefix = f"in {item.kind} `{item.name}`: "
    if not error.message.startswith("in "):
        error.message = prefix + error.message
        error.args = (error.message,)
    error.with_span(item.node.span)
    return error
