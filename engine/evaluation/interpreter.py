"""The reference tree-walking interpreter: the plain reading of the language's semantics that
the compiled form (`generator.py`, `ruleset_code.py`) is tested against.

It is slow on purpose (a dispatch on the node type at every step, no folding, no typed
shortcuts) and never serves evaluations: it is the oracle of the differential tests. It reads
the input data as the compiled form does, as given, converting a value where a rule reads it
(`Raw` marks a value not yet converted), charges the same cost model, and runs rules and tables
with the same loop semantics.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date

from insureops.engine import ir
from insureops.engine.evaluation.compiler import DEFAULT_LIMITS, _evaluate_consts
from insureops.engine.evaluation.explain import (
    cell_miss,
    condition_entries,
    item_entry,
    near_misses,
    span_dict,
    text_of,
)
from insureops.engine.evaluation.generator import check_depth
from insureops.engine.evaluation.runtime import interpolated, make_set, thaw
from insureops.engine.evaluation.runtime import result as make_result
from insureops.engine.inputs.slots import Slot, shown, value_of
from insureops.engine.ir import costs, numbers
from insureops.engine.ir import operations as ops
from insureops.engine.ir.builtins import FUNCTIONS, call_builtin
from insureops.engine.ir.context import Evaluation
from insureops.engine.ir.errors import EngineError, EvaluationError, LimitExceededError
from insureops.engine.ir.limits import Limits
from insureops.engine.ir.operators import IMPLEMENTATIONS
from insureops.engine.ir.regex import search
from insureops.engine.ir.tree import chain
from insureops.engine.ir.values import kind_of

_MISSING = object()


class Raw:
    """An input value not converted yet, and where it was read."""

    __slots__ = ("slot", "value")

    def __init__(self, value: object, slot: Slot) -> None:
        self.value, self.slot = value, slot


class Interpreter:
    """Evaluates expressions by walking the tree over `env` (name -> value or `Raw`)."""

    def __init__(self, consts: Mapping[str, object]) -> None:
        self.consts = consts

    def evaluate(self, expr, env: dict, ev: Evaluation, records: list | None) -> object:
        """The value of `expr` (a `Raw` for an input value read as it is); records
        `(node, value)` into `records` when given (whole objects are left out)."""
        value = self._evaluate(expr, env, ev, records)
        if records is not None and not isinstance(expr, ir.Literal):
            shown_value = shown(value.value, value.slot) if type(value) is Raw else thaw(value)
            if type(shown_value) is not dict:
                records.append((expr, shown_value))
        return value

    def value(self, expr, env, ev, records) -> object:
        """The runtime value of `expr` (a raw input value converted now)."""
        return plain(self.evaluate(expr, env, ev, records), ev)

    def _evaluate(self, expr, env, ev, records) -> object:
        span = getattr(expr, "span", None)
        value = self.value
        if isinstance(expr, ir.Literal):
            return expr.value
        if isinstance(expr, ir.Name):
            if expr.name in env:
                return env[expr.name]
            if expr.name in self.consts:
                return self.consts[expr.name]
            raise EngineError(f"unknown name `{expr.name}`", code="invalid_ir", span=span)
        if isinstance(expr, ir.Member):
            obj = self.evaluate(expr.obj, env, ev, records)
            if type(obj) is Raw:
                if type(obj.value) is dict:
                    return Raw(obj.value.get(expr.field), obj.slot.field(expr.field))
                if obj.value is None:
                    return None
                obj = plain(obj, ev)
            return ops.member(obj, expr.field, span)
        if isinstance(expr, ir.Index):
            obj = value(expr.obj, env, ev, records)
            return ops.index(obj, value(expr.index, env, ev, records), span)
        if isinstance(expr, ir.Unary):
            operand = value(expr.operand, env, ev, records)
            if expr.op == "not":
                return ops.logical_not(operand, span)
            return ops.negate(operand, span)
        if isinstance(expr, ir.Binary):
            return self._binary(expr, env, ev, records)
        if isinstance(expr, ir.Between):
            subject = value(expr.value, env, ev, records)
            low = value(expr.low, env, ev, records)
            return ops.between(subject, low, value(expr.high, env, ev, records), span)
        if isinstance(expr, ir.IsNull):
            return (value(expr.value, env, ev, records) is None) is not expr.negated
        if isinstance(expr, ir.Conditional):
            test = value(expr.cond, env, ev, records)
            if test is True:
                return value(expr.then, env, ev, records)
            ops.truth(test, span)
            return value(expr.else_, env, ev, records)
        if isinstance(expr, ir.Call):
            return self._call(expr, env, ev, records)
        if isinstance(expr, ir.Comprehension):
            return self._comprehension(expr, env, ev, records)
        return self._collection(expr, env, ev, records)

    def _binary(self, expr: ir.Binary, env, ev, records) -> object:
        op, span = expr.op, expr.span
        if op == "and" or op == "or":
            return self._logic(op, chain(expr, op), span, env, ev, records)
        left = self.value(expr.left, env, ev, records)
        if op == "??":
            return self.value(expr.right, env, ev, records) if left is None else left
        right = self.value(expr.right, env, ev, records)
        if op == "+":
            return ops.add(left, right, span, ev)
        if op == "matches":
            return search(left, right, span, ev)
        if op not in IMPLEMENTATIONS:
            raise EngineError(f"unknown operator `{op}`", code="invalid_ir", span=span)
        costs.binary(ev, op, left, right, span)
        return IMPLEMENTATIONS[op](left, right, span)

    def _logic(self, op, operands, span, env, ev, records) -> object:
        """Kleene `and`/`or` left to right; in a trace, an `and` already false still
        evaluates its other operands (errors ignored) so the explanation names them all."""
        stop = op == "or"
        unknown = False
        for position, operand in enumerate(operands):
            test = ops.truth(self.value(operand, env, ev, records), span)
            if test is stop:
                if records is not None and op == "and":
                    for rest in operands[position + 1:]:
                        try:
                            self.value(rest, env, ev, records)
                        except EngineError:
                            continue
                return stop
            unknown = unknown or test is None
        return None if unknown else not stop

    def _call(self, expr: ir.Call, env, ev, records) -> object:
        entry = FUNCTIONS.get(expr.func)
        if entry is None or len(expr.args) < entry.minimum or (
                entry.maximum is not None and len(expr.args) > entry.maximum):
            raise EngineError(f"bad call of `{expr.func}`", code="invalid_ir", span=expr.span)
        if expr.func == "len":
            arg = self.evaluate(expr.args[0], env, ev, records)
            if type(arg) is Raw and type(arg.value) is list:
                return ops.Decimal(len(arg.value))  # a list's items are not read
            return call_builtin("len", [plain(arg, ev)], ev, expr.span)
        args = [self.value(arg, env, ev, records) for arg in expr.args]
        return call_builtin(expr.func, args, ev, expr.span)

    def _comprehension(self, expr: ir.Comprehension, env, ev, records) -> object:
        source = self.evaluate(expr.source, env, ev, records)
        slot = None
        if type(source) is Raw:
            if type(source.value) is list:
                source, slot = source.value, source.slot.item()
            else:
                source = plain(source, ev)
        if source is None:
            return None
        if not isinstance(source, ops.COLLECTIONS):
            raise EvaluationError(f"{expr.kind}() needs a list or set, got {kind_of(source)}",
                                  code="type_mismatch", span=expr.span)
        ev.charge(len(source), expr.span)
        return self._fold(expr, source, slot, dict(env), ev)

    def _fold(self, expr: ir.Comprehension, items, slot, env: dict, ev) -> object:
        kind, span = expr.kind, expr.span
        total = ops.ZERO if kind == "sum" else None
        count, unknown = 0, False
        for item in items:
            env[expr.var] = Raw(item, slot) if slot is not None else item
            if expr.where is not None:
                test = self.value(expr.where, env, ev, None)
            else:
                test = plain(env[expr.var], ev) if kind in ("any", "all") else True
            ops.truth(test, span)
            if kind == "any" or kind == "all":
                if test is (kind == "any"):  # `or` stops at true, `and` at false
                    return test
                unknown = unknown or test is None
                continue
            if test is not True:
                continue
            count += 1
            if kind == "count":
                continue
            value = plain(env[expr.var], ev) if expr.projection is None else self.value(
                expr.projection, env, ev, None)
            if value is None:
                continue
            if kind == "sum":
                total = ops.add(total, value, span, ev)
            elif total is None or (ops.less if kind == "min" else ops.greater)(
                    value, total, span):
                total = value
        if kind in ("any", "all"):
            return None if unknown else kind == "all"
        return ops.Decimal(count) if kind == "count" else total

    def _collection(self, expr, env, ev, records) -> object:
        span = getattr(expr, "span", None)
        value = self.value
        if isinstance(expr, ir.ListExpr):
            return [value(item, env, ev, records) for item in expr.items]
        if isinstance(expr, ir.SetExpr):
            return make_set([value(item, env, ev, records) for item in expr.items], span)
        if isinstance(expr, ir.ObjectExpr):
            return {key: value(entry, env, ev, records) for key, entry in expr.entries}
        if isinstance(expr, ir.Interpolated):
            pieces = tuple(part if isinstance(part, str) else value(part, env, ev, records)
                           for part in expr.parts)
            return interpolated(pieces, span, ev)
        raise EngineError(f"not an expression node: {type(expr).__name__}", code="invalid_ir",
                          span=span)


def plain(value: object, ev) -> object:
    """A runtime value: a `Raw` input value converted where it is used."""
    if type(value) is Raw:
        return value_of(value.value, value.slot, ev)
    return value


class ReferenceRuleset:
    """A ruleset run by the interpreter, with `evaluate` as `CompiledRuleset` has it."""

    def __init__(self, ruleset: ir.Ruleset, input_schemas: Mapping[str, dict | None],
                 source: str | None) -> None:
        for item in ruleset.items:
            for expr in _expressions(item):
                check_depth(expr, DEFAULT_LIMITS)
        self.ir, self.name, self.source = ruleset, ruleset.name, source
        self.consts = _evaluate_consts(ruleset, DEFAULT_LIMITS)
        self.interpreter = Interpreter(self.consts)
        self.slots = {decl.name: Slot.root(decl.name, input_schemas.get(decl.name))
                      for decl in ruleset.inputs}
        order = sorted(range(len(ruleset.items)), key=lambda i: (-ruleset.items[i].priority, i))
        self.items = [ruleset.items[i] for i in order]
        self._regexes: dict = {}

    def evaluate(self, inputs: Mapping[str, object], *, as_of: date | None = None,
                 explain: bool = False, limits: Limits | None = None):
        limits = limits or DEFAULT_LIMITS
        ev = Evaluation.start(as_of, limits, self._regexes)
        env: dict = {}
        for name, slot in self.slots.items():
            if name not in inputs:
                raise EvaluationError(f"missing input `{name}`", code="missing_input")
            env[name] = Raw(inputs[name], slot)
        if len(inputs) != len(self.slots):
            unknown = sorted(str(name) for name in inputs if name not in self.slots)
            raise EvaluationError(f"unknown input {', '.join(unknown)}; the ruleset declares "
                                  f"{', '.join(self.slots) or 'none'}", code="unknown_input")
        env["outputs"] = {}
        try:
            return self._run(env, ev, explain)
        except RecursionError:
            raise LimitExceededError("evaluation nested too deeply", code="limit_depth") from None

    def _run(self, env: dict, ev: Evaluation, explain: bool):
        state = {"score": ops.ZERO, "decision": None, "rank": 0, "reasons": [],
                 "tags": set(), "fired": [], "stopped": False}
        trace = [] if explain else None
        active = [item for item in self.items if getattr(item, "enabled", True)]
        if not explain:
            ev.charge(len(active), None)
        for item in self.items if explain else active:
            kind = "table" if isinstance(item, ir.Table) else "rule"
            if explain:
                if state["stopped"]:
                    trace.append(item_entry(item, kind, matched=False, skipped="after_stop"))
                    continue
                if not getattr(item, "enabled", True):
                    trace.append(item_entry(item, kind, matched=False, skipped="disabled"))
                    continue
                ev.charge(1, item.span)
            window = getattr(item, "effective", None)
            if window is not None and not (
                    window.start <= ev.today(window.span or item.span) <= window.end):
                if explain:
                    trace.append(item_entry(item, kind, matched=False,
                                            skipped="outside_effective_window"))
                continue
            try:
                entry = self._item(item, kind, env, ev, state, explain)
            except EngineError as error:
                if not error.message.startswith("in "):
                    error.message = f"in {kind} `{item.name}`: {error.message}"
                    error.args = (error.message,)
                raise error.with_span(item.span) from None
            if explain:
                trace.append(entry)
            elif state["stopped"]:
                break
        decision = state["decision"] or self.ir.default_decision
        return make_result(self.name, decision, state["score"], env["outputs"],
                           state["reasons"], state["tags"], state["fired"], trace, ev.limits)

    def _item(self, item, kind, env, ev, state, explain) -> dict | None:
        records = [] if explain else None
        if kind == "table":
            return self._table(item, env, ev, state, records)
        test = self.interpreter.value(item.condition, env, ev, records)
        ops.truth(test, item.condition.span)
        entry = None
        if explain:
            entry = item_entry(item, "rule", matched=test is True, skipped=None)
            entry["condition"] = condition_entries(records, self.source)
            entry["failed"] = [] if test is True else near_misses(item.condition, records,
                                                                  self.source)
        if test is True:
            state["fired"].append(item.name)
            for action in item.actions:
                self._action(action, env, ev, state)
        return entry

    def _action(self, action, env, ev, state) -> None:
        value = self.interpreter.value
        if isinstance(action, ir.StopAction):
            state["stopped"] = True
        elif isinstance(action, ir.ScoreAction):
            amount = value(action.value, env, ev, None)
            what = f"score {action.op}"
            if type(amount) is ops.Decimal:
                state["score"] = numbers.add(state["score"], amount, action.span, what) \
                    if action.op == "+=" else numbers.subtract(state["score"], amount,
                                                                action.span, what)
            elif amount is not None:
                raise EvaluationError(f"{what} needs a number, got {kind_of(amount)}",
                                      code="type_mismatch", span=action.span)
        elif isinstance(action, ir.SetAction):
            env["outputs"][action.name] = thaw(value(action.value, env, ev, None))
        else:
            expr = action.tag if isinstance(action, ir.TagAction) else action.message
            message = value(expr, env, ev, None)
            if type(message) is not str:
                raise EvaluationError(f"expected a string, got {kind_of(message)}",
                                      code="type_mismatch", span=action.span)
            if isinstance(action, ir.TagAction):
                state["tags"].add(message)
            else:
                state["reasons"].append(message)
            if isinstance(action, ir.DecisionAction):
                rank = ir.DECISION_RANK[action.decision]
                if rank > state["rank"]:
                    state["rank"], state["decision"] = rank, action.decision

    def _table(self, table: ir.Table, env, ev, state, records) -> dict | None:
        interpreter = self.interpreter
        columns = []
        for expr in table.inputs:
            found = interpreter.evaluate(expr, env, ev, records)
            columns.append(plain(found, ev))
        texts = [text_of(e, self.source) for e in table.inputs]
        matches, rows = [], []
        for number, row in enumerate(table.rows, 1):
            why = None
            for column, cell in enumerate(row.cells):
                if isinstance(cell, ir.AnyCell):
                    continue
                if not self._cell(cell, columns[column], env, ev):
                    operands = [interpreter.value(e, env, ev, None)
                                for e in (getattr(cell, "operand", None),
                                          getattr(cell, "low", None),
                                          getattr(cell, "high", None)) if e is not None]
                    why = cell_miss(cell, texts[column], columns[column], operands)
                    break
            rows.append({"row": number, "span": span_dict(row.span), "matched": why is None,
                         "why": why})
            if why is None:
                matches.append(row)
                if table.hit == "first":
                    break
        outputs = env["outputs"]
        if table.hit == "collect":
            for position, name in enumerate(table.outputs):
                outputs[name] = [thaw(interpreter.value(row.values[position], env, ev, None))
                                 for row in matches]
        elif matches:
            if table.hit == "unique" and len(matches) > 1:
                lines = ", ".join(str(row.span.line) if row.span else "?" for row in matches)
                raise EvaluationError(f"table `{table.name}` has hit policy unique but "
                                      f"{len(matches)} rows match (lines {lines})",
                                      code="table_not_unique", span=table.span)
            for position, name in enumerate(table.outputs):
                outputs[name] = thaw(interpreter.value(matches[0].values[position], env, ev,
                                                       None))
        if matches:
            state["fired"].append(table.name)
        if records is None:
            return None
        entry = item_entry(table, "table", matched=bool(matches), skipped=None)
        entry["inputs"] = [{"expr": text, "value": value} for text, value in zip(texts, columns)]
        entry["condition"] = condition_entries(records, self.source)
        entry["rows"] = rows
        entry["outputs"] = {name: outputs.get(name) for name in table.outputs} \
            if matches or table.hit == "collect" else {}
        return entry

    def _cell(self, cell, value, env, ev) -> bool:
        """Whether a table cell matches the column's value."""
        if isinstance(cell, ir.NullCell):
            return value is None
        interpreter, span = self.interpreter, cell.span
        if isinstance(cell, ir.BetweenCell):
            low = interpreter.value(cell.low, env, ev, None)
            high = interpreter.value(cell.high, env, ev, None)
            return ops.between(value, low, high, span) is True
        operand = interpreter.value(cell.operand, env, ev, None)
        if cell.op == "matches":
            return search(value, operand, span, ev) is True
        costs.binary(ev, cell.op, value, operand, span)
        return IMPLEMENTATIONS[cell.op](value, operand, span) is True


def _expressions(item) -> list:
    from insureops.engine.evaluation.generator import item_expressions
    return item_expressions(item)


def compile_reference(ruleset: ir.Ruleset, *, input_schemas: Mapping[str, dict | None],
                      source: str | None = None) -> ReferenceRuleset:
    """The ruleset evaluated by the tree-walking interpreter: the differential tests' oracle."""
    return ReferenceRuleset(ruleset, input_schemas, source)
