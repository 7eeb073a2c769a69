"""A ruleset's rule loop as generated code: `run(inputs, ev)` and `run_traced(inputs, ev)`.

Rules and tables run once each by descending priority, ties in file order (sorted once). The
plain function skips disabled items entirely, charges every item to the work budget up front,
keeps the run's score, decision and lists in locals (made when something first fires) and
builds the `Result` itself. The traced function, generated from the same emitter with
recording on, also reports skipped items and every evaluated sub-expression.
"""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal

from insureops.engine import ir
from insureops.engine.evaluation.float_filter import FloatFilter, leaf_float, shadowed_outputs
from insureops.engine.evaluation.generator import (
    NOT_CONSTANT,
    Code,
    Column,
    Emitter,
    Scope,
    Source,
    item_expressions,
)
from insureops.engine.inputs.slots import Slot
from insureops.engine.ir import numbers
from insureops.engine.ir.builtins import CLOCK
from insureops.engine.ir.errors import EngineError
from insureops.engine.ir.limits import DEFAULT_LIMITS
from insureops.engine.ir.operations import ZERO
from insureops.engine.ir.operators import PYTHON
from insureops.engine.ir.printer import format_expr
from insureops.engine.ir.result import NO_ITEMS, NO_OUTPUTS, Outputs, Result
from insureops.engine.ir.tree import children, conjuncts

FEW_ITEMS = 16


class RulesetCode:
    """Generates one ruleset's functions. `items` are its rules and tables in run order
    (disabled ones included: the trace reports them), `slots` the input slots in declared
    order, `finish` (ruleset name, default decision), `source` the ruleset's text (for the
    trace's expression texts)."""

    def __init__(self, items: tuple, slots: dict[str, Slot], finish: tuple, consts: dict,
                 folded: dict, clocked: frozenset, source: str | None) -> None:
        self.items, self.slots, self.finish = items, slots, finish
        self.consts, self.folded, self.clocked = consts, folded, clocked
        self.source = source
        self.text_columns: set[str] = set()  # table columns with a `_s<column>` string flag
        # a ruleset of a few items keeps `fired` and `reasons` as tuples (no list to make and
        # copy at the end); a long one as lists (growing a tuple item by item is quadratic)
        self.few = len(items) <= FEW_ITEMS
        self.outputs = any(isinstance(item, ir.Table) or any(
            isinstance(action, ir.SetAction) for action in item.actions) for item in items)

    def generate(self, traced: bool, general=None, regexes: dict | None = None):
        """The function `run(inputs, ev) -> Result` (traced: the Result carries the trace).
        Untraced, also `evaluate(inputs, *, as_of, explain, limits, conversions)`: the same
        body entered with the default limits, its Evaluation made inside (one call frame for
        the common call), handing any other call to `general`."""
        src = Source()
        self.tuples = self.few and not traced
        emitter = Emitter(src, self.consts, self.folded, self.clocked, traced=traced)
        self.traced = traced
        if not traced:  # the default call makes its Evaluation only where a path needs one
            limits = DEFAULT_LIMITS
            emitter.ev = (f"(ev or (ev := EVALUATION(_st, as_of, {src.const(limits)}, "
                          f"{src.const(regexes)}, {limits.max_input_nodes}, None, "
                          f"conversions)))")
        self.ev = emitter.ev
        if not traced:  # outputs the float filter reads in the rule loop: their floats kept
            read = set()
            for item in self.items:
                if isinstance(item, ir.Rule) and item.enabled:
                    read |= shadowed_outputs(item.condition)
            emitter.shadows = {name: f"_fo{n}" for n, name in enumerate(sorted(read))}
        self.shadows = tuple(emitter.shadows.values())
        # the item that first writes outputs, when it writes only constants: each of its
        # branches sets `o` to the read-only outputs it leaves (made once), which the result
        # shares; a later writer copies them into a dict first
        self.known = None if traced else self._first_writer()
        # what an item generated so far may have set (`fired`, `reasons`, `decision`): the
        # first that can set one needs not test whether another has
        self.pushed: set[str] = set()
        scope = self._scope()
        body = []
        for item in self.items:
            if not traced and not getattr(item, "enabled", True):
                continue
            body += self._item(src, emitter, item, scope, traced)
        entries = ["run"] if traced else ["run", "evaluate"]
        for entry in entries:
            lines = self._head(src, traced, entry, general, regexes)
            lines += ["    try:", *("        " + line for line in body or ["pass"]),
                      "    except ENGINE_ERROR as _e:",
                      "        raise LOCATED(_e, _i[0], _i[1]) from None",
                      "    except RecursionError:", "        TOO_DEEP()",
                      f"    return {self._finish(src, traced, entry)}"]
            src.functions.append(lines)
        name = "<ruleset traced>" if traced else "<ruleset>"
        namespace = src.build(name)
        run = namespace["run"]
        run.source = namespace["__source__"]
        return run if traced else (run, namespace["evaluate"])

    # --- the function's frame --------------------------------------------------------------

    def _scope(self) -> dict[str, Scope]:
        scope = {name: Scope(f"i{n}", slot, f"d{n}")
                 for n, (name, slot) in enumerate(self.slots.items())}
        # the outputs so far: a dict when the ruleset can set one (else None, read as null)
        scope["outputs"] = Scope("o", None, "o") if self.outputs or self.traced else Scope("o")
        return scope

    def _head(self, src: Source, traced: bool, entry: str, general, regexes) -> list[str]:
        declared = src.const(tuple(self.slots))
        active = sum(1 for item in self.items if getattr(item, "enabled", True))
        if entry == "run":
            bounded = not traced and self._bounded()
            lines = ["def run(inputs, ev):",
                     f"    sized = ev.limits is not {src.const(DEFAULT_LIMITS)}" if bounded
                     else "    sized = True", "    as_of = ev.as_of"]
        else:
            limits = DEFAULT_LIMITS
            # as_of, explain and limits are keywords (as `CompiledRuleset.evaluate` has them);
            # declared positional-or-keyword here, where their defaults cost no lookups
            lines = ["def evaluate(inputs, as_of=None, explain=False, limits=None, "
                     "conversions=None):",
                     "    if explain or limits is not None:",
                     f"        return {src.const(general)}(inputs, as_of=as_of, explain=explain, "
                     f"limits=limits, conversions=conversions)",
                     # (read only by a `stop`'s return: the end's is made knowing it)
                     *([f"    sized = {not self._bounded()}"] if self._stops() else []),
                     # the steps left (every rule and table charged up front), kept here
                     # until a path needs the Evaluation (made from them: `self.ev`)
                     f"    _st = {limits.max_steps - active}",
                     "    ev = None"]
            if active > limits.max_steps:
                lines.append(f"    {self.ev}.charge(0, None)")
        for n, (name, slot) in enumerate(self.slots.items()):
            k = src.const(name)
            lines += ["    try:", f"        i{n} = inputs[{k}]",
                      f"    except KeyError: MISSING({k})",
                      f"    except (TypeError, AttributeError): UNKNOWN(inputs, {declared})",
                      f"    d{n} = type(i{n}) is DICT"]
        lines += [f"    if len(inputs) != {len(self.slots)}: UNKNOWN(inputs, {declared})"]
        if entry == "run" and not traced and active:
            lines += [f"    ev.remaining -= {active}",
                      "    if ev.remaining < 0: ev.charge(0, None)"]
        # (`_i`: each item sets it; `score`, `rank`, `tags` only where a rule can change them)
        kept = self._locals(traced)
        lines += ["    " + "; ".join(f"{local} = {value}" for local, value in (
                      ("score", "ZERO"), ("decision", "None"), ("rank", "0")) if local in kept),
                  "    o = None" if not (self.outputs or traced) else
                  "    o = NO_OUTPUTS" if self.known is not None else "    o = {}",
                  *(f"    {local} = None" for local in self.shadows)]
        if traced:
            lines += ["    fired = []; reasons = []; tags = set(); trace = []; stopped = False"]
        else:
            lines += [f"    fired = reasons = {'tags = ' if 'tags' in kept else ''}None"]
        return lines

    def _finish(self, src: Source, traced: bool, entry: str = "run") -> str:
        """The result's text; at the end of the default call (`entry` "evaluate"), whether it
        is sized is known here."""
        name, default = (src.const(value) for value in self.finish)
        if traced:
            return (f"RESULT({name}, decision or {default}, score, o, reasons, tags, fired, "
                    f"trace, ev.limits)")
        # nothing fired and no outputs (most evaluations): nothing to size or copy; under the
        # default limits a ruleset whose results cannot grow past them is not sized, and its
        # Result is made here, each list only where the ruleset can fill it
        score = "score" if "score" in self._locals(False) else "ZERO"
        tags = "tags" if "tags" in self._locals(False) else "None"
        made = (f"MADE({name}, decision or {default}, {score}, "
                f"{self._outputs_made() if self.outputs else 'NO_OUTPUTS'}, "
                f"{self._kept_list('reasons') if self.fills('reasons') else 'NO_ITEMS'}, "
                f"{'tuple(sorted(tags)) if tags else NO_ITEMS' if self.fills('tags') else 'NO_ITEMS'}, "
                f"{self._kept_list('fired')})")
        limits = "ev.limits" if self.ev == "ev" else \
            f"(ev.limits if ev is not None else {src.const(DEFAULT_LIMITS)})"
        sized = f"RESULT({name}, decision or {default}, {score}, o, reasons, {tags}, fired, None, " \
            f"{limits})"
        if entry == "evaluate":
            chosen = sized if not self._bounded() else made
        else:
            chosen = f"({sized} if sized else {made})"
        # nothing fired and no outputs: no decision, a zero score, the same Result each time
        nothing = src.const(Result(self.finish[0], self.finish[1], ZERO, NO_OUTPUTS, NO_ITEMS,
                                   NO_ITEMS, NO_ITEMS))
        return f"{chosen} if fired or o else {nothing}"

    def _locals(self, traced: bool) -> set[str]:
        """The run's state a rule can change (the traced run keeps them all): `score` with a
        score action, `tags` with a tag, `rank` (the decision's severity so far) with two
        decisions or more; `decision` always."""
        if traced:
            return {"score", "decision", "rank", "tags"}
        actions = [type(action) for item in self.items if getattr(item, "enabled", True)
                   for action in getattr(item, "actions", ())]
        found = {"decision"}
        if ir.ScoreAction in actions:
            found.add("score")
        if ir.TagAction in actions:
            found.add("tags")
        if actions.count(ir.DecisionAction) > 1:
            found.add("rank")
        return found

    def _stops(self) -> bool:
        """Whether an enabled rule has a `stop` (whose return is made in the body)."""
        return any(isinstance(action, ir.StopAction) for item in self.items
                   if getattr(item, "enabled", True) for action in getattr(item, "actions", ()))

    def _outputs_made(self) -> str:
        """The result's outputs: the first writer's constant outputs when nothing else wrote
        any (`known`), else a read-only copy of the outputs."""
        if self.known is None:
            return "OUTPUTS(o) if o else NO_OUTPUTS"
        if not self._other_writers():  # o is always the first writer's, never copied
            return "o"
        return "(OUTPUTS(o) if type(o) is DICT else o)"

    def _first_writer(self):
        """The enabled item that runs first of those writing outputs, if it is the only one,
        every value it writes is a constant scalar and it writes them in each of its branches
        together (a rule's `set`s, a `first` or `unique` table's row); else None."""
        for item in self.items:
            if not getattr(item, "enabled", True):
                continue
            if isinstance(item, ir.Table):
                if item.hit == "collect":
                    return None
                values = [value for row in item.rows for value in row.values]
            else:
                values = [action.value for action in item.actions
                          if isinstance(action, ir.SetAction)]
                if not values:
                    continue
            if self._reads_outputs_whole() or any(self._scalar(value) is NOT_CONSTANT
                                                  for value in values):
                return None
            self.known = item
            # only the sole writer: with a later one, its copy and the result's would be two
            return None if self._other_writers() else item
        return None

    def _other_writers(self) -> bool:
        """Whether an enabled item other than the constant first writer writes outputs."""
        return any(item is not self.known and getattr(item, "enabled", True) and (
            isinstance(item, ir.Table) or any(isinstance(action, ir.SetAction)
                                              for action in item.actions))
            for item in self.items)

    def _reads_outputs_whole(self) -> bool:
        """Whether an expression reads `outputs` other than as `outputs.NAME` (then it must
        be a plain dict, not the read-only constant outputs of the first writer)."""
        stack = [(expr, False) for item in self.items for expr in item_expressions(item)]
        while stack:
            node, owner = stack.pop()
            if isinstance(node, ir.Name) and node.name == "outputs" and not owner:
                return True
            if isinstance(node, ir.Member):
                stack.append((node.obj, True))
            else:
                stack.extend((child, False) for child in children(node))
        return False

    def _scalar(self, expr) -> object:
        """The immutable scalar constant `expr` is (folded, literal or a const), else
        NOT_CONSTANT."""
        if isinstance(expr, ir.Literal):
            value = expr.value
        elif isinstance(expr, ir.Name) and expr.name in self.consts \
                and expr.name not in self.slots:
            value = self.consts[expr.name]
        else:
            value = self.folded.get(id(expr), NOT_CONSTANT)
        if value is None or type(value) in (Decimal, str, bool, date, datetime):
            return value
        return NOT_CONSTANT

    def _known(self, src, item, pairs) -> list[str]:
        """For a branch of the constant first writer `item` writing `pairs` (name,
        expression): `o` set to the read-only outputs it leaves."""
        if self.known is None or item is not self.known:
            return []
        made = {name: self._scalar(expr) for name, expr in pairs}
        return [f"o = {src.const(Outputs(made))}"]

    def _private(self) -> list[str]:
        """Before a write of outputs by any item but the constant first writer: the outputs
        it left copied into a dict of this evaluation's own."""
        return [] if self.known is None else ["if type(o) is not DICT: o = dict(o)"]

    def _kept_list(self, kind: str) -> str:
        return f"{kind} or NO_ITEMS" if self.tuples else f"tuple({kind}) if {kind} else NO_ITEMS"

    def fills(self, kind: str) -> bool:
        """Whether a rule of the ruleset can add to its `reasons` or its `tags`."""
        actions = (ir.TagAction,) if kind == "tags" else (ir.DecisionAction, ir.ReasonAction)
        return any(isinstance(action, actions) for item in self.items
                   for action in getattr(item, "actions", ()))

    def _bounded(self) -> bool:
        """Whether every result of the ruleset is within the default result size: every
        message, tag and output a constant scalar, and all of them together small enough."""
        total = 0
        for item in self.items:
            if isinstance(item, ir.Table):
                values = [value for row in item.rows for value in row.values]
                total += sum(len(name) for name in item.outputs)
            else:
                values = []
                for action in item.actions:
                    expr = getattr(action, "value", None) or getattr(action, "message", None) \
                        or getattr(action, "tag", None)
                    if expr is not None:
                        values.append(expr)
                    total += len(getattr(action, "name", "") or "")
            for expr in values:
                value = expr.value if isinstance(expr, ir.Literal) else self.folded.get(
                    id(expr), NOT_CONSTANT)
                if isinstance(expr, ir.Name) and expr.name in self.consts:
                    value = self.consts[expr.name]
                if type(value) is str:
                    total += len(value)
                elif type(value) in (Decimal, bool) or value is None:
                    total += 1
                else:
                    return False
        return total <= DEFAULT_LIMITS.max_result_size

    # --- rules ---------------------------------------------------------------------------

    def _item(self, src, emitter, item, scope, traced: bool) -> list[str]:
        kind = "table" if isinstance(item, ir.Table) else "rule"
        handle = src.const((kind, item))
        lines = [f"_i = {handle}"]
        if traced:
            skip = src.const(item)
            lines += [f"if stopped: trace.append(SKIPPED({skip}, {src.const(kind)}, "
                      f"'after_stop'))"]
            if not getattr(item, "enabled", True):
                lines += [f"else: trace.append(SKIPPED({skip}, {src.const(kind)}, 'disabled'))"]
                return lines
            lines += ["else:", f"    ev.charge(1, {src.const(item.span)})"]
            body = self._traced_item(src, emitter, item, scope, kind)
            return lines + ["    " + line for line in body]
        if kind == "table":
            return lines + self._table(src, emitter, item, scope)
        return lines + self._rule(src, emitter, item, scope)

    def _window(self, src, emitter, item) -> str | None:
        window = getattr(item, "effective", None)
        if window is None:
            return None
        start, end = src.const(window.start), src.const(window.end)
        return (f"(({start} <= _d <= {end}) if type(_d := as_of) is DATE else "
                f"{start} <= {emitter.ev}.today({src.const(window.span or item.span)}) <= {end})")

    def _rule(self, src, emitter, node: ir.Rule, scope) -> list[str]:
        lines = ["while True:"]
        window = self._window(src, emitter, node)
        if window is not None:
            lines.append(f"    if not {window}: break")
        parts = conjuncts(node.condition)
        several = len(parts) > 1  # `_n`: an earlier condition was null
        if several:
            lines.append("    _n = False")
        span = src.const(node.condition.span)
        for condition in parts:
            inline = FloatFilter(emitter).statements(condition, scope, "_c") \
                if isinstance(condition, ir.Binary) and condition.op in PYTHON else None
            if inline is not None:  # a comparison of computed money, decided in floats
                code = Code("_c")
                lines += ["    " + line for line in inline]
            else:
                first = _leading_comprehension(condition)
                if first is not None:  # computed by statements here, not a call
                    lines += ["    " + line
                              for line in emitter.inline_comprehension(first, scope)]
                code = emitter.expr(condition, scope)
                emitter.inlined.clear()  # its variable is this condition's only
                lines.append(f"    _c = {code.text}")
            wrong = emitter.converted(Code("_c", code.slot))
            lines += ["    if _c is not True:",
                      "        if _c is False: break",
                      f"        _n = _c is None or NULLISH({wrong}, {span})" if several else
                      f"        if _c is not None: NULLISH({wrong}, {span})"]
        lines += ["    else:", *(["        if _n: break"] if several else []),
                  *("        " + line for line in self._push(src, "fired", node.name))]
        stops = False
        for action in node.actions:
            if isinstance(action, ir.StopAction):
                stops = True
                continue
            lines += ["        " + line
                      for line in self._action(src, emitter, action, scope, node)]
        sets = [(action.name, action.value) for action in node.actions
                if isinstance(action, ir.SetAction)]
        if sets:
            lines += ["        " + line for line in self._known(src, node, sets)]
        if stops:
            lines.append(f"        return {self._finish(src, False)}")
        lines.append("    break")
        return lines

    def _action(self, src, emitter, action, scope, item=None) -> list[str]:
        span = src.const(action.span)
        if isinstance(action, ir.ScoreAction):
            value = emitter.expr(action.value, scope)
            what = src.const(f"score {action.op}")
            if type(value.constant) is Decimal:
                amount = value.constant if action.op == "+=" else numbers.negated(value.constant)
                return [f"try: score = EXACT_ADD(score, {src.const(amount)})",
                        f"except ARITHMETIC as _x: raise ARITH({what}, {span}, _x) from None"]
            return [f"score = SCORE(score, {emitter.converted(value)}, "
                    f"{action.op == '+='}, {what}, {span})"]
        if isinstance(action, ir.SetAction):
            return self._output(src, emitter, action.name, action.value, scope, item)
        if isinstance(action, ir.DecisionAction):
            rank = ir.DECISION_RANK[action.decision]
            decided = f"rank = {rank}; decision = {src.const(action.decision)}"
            if "decision" in self.pushed or self.traced:
                decided = f"if rank < {rank}: {decided}"
            elif not rank:  # the first decision, of the least rank: nothing to change
                decided = "pass"
            elif "rank" not in self._locals(False):  # the only decision: no rank to keep
                decided = f"decision = {src.const(action.decision)}"
            self.pushed.add("decision")
            return [f"_t = {self._message(src, emitter, action.message, scope)}",
                    *self._push(src, "reasons", None), decided]
        if isinstance(action, ir.ReasonAction):
            return [f"_t = {self._message(src, emitter, action.message, scope)}",
                    *self._push(src, "reasons", None)]
        if isinstance(action, ir.TagAction):
            return [f"_t = {self._message(src, emitter, action.tag, scope)}",
                    "if tags is None: tags = {_t}",
                    "else: tags.add(_t)"]
        raise EngineError(f"unknown action {type(action).__name__}", code="invalid_ir",
                          span=action.span)

    def _push(self, src, kind: str, name: str | None) -> list[str]:
        """Add to `fired` (the item's `name`) or `reasons` (`_t`), made on the first (known
        to be the first when no item before could add to it)."""
        first = kind not in self.pushed and not self.traced
        self.pushed.add(kind)
        if not self.tuples:
            value = "_t" if name is None else src.const(name)
            if first:
                return [f"{kind} = [{value}]"]
            return [f"if {kind} is None: {kind} = [{value}]", f"else: {kind}.append({value})"]
        one = "(_t,)" if name is None else src.const((name,))
        if first:
            return [f"{kind} = {one}"]
        return [f"{kind} = {one} if {kind} is None else {kind} + {one}"]

    @staticmethod
    def _kept(emitter, expr, scope) -> Code:
        """The code of a value a result keeps: a shared constant list is copied (thawed)."""
        code = emitter.expr(expr, scope)
        if code.constant is not NOT_CONSTANT and type(code.constant) is not tuple:
            return code
        return Code(f"THAW({emitter.converted(code)})")

    def _output(self, src, emitter, name: str, expr, scope, item) -> list[str]:
        """Statements setting output `name` of `item` to `expr`'s value (by the constant first
        writer: by `_known`, after them) and, when the float filter reads that output in the
        rule loop, the float it reads (`_fo<n>`: the constant's float, None for any other
        value, which the filter leaves to the exact path)."""
        code = self._kept(emitter, expr, scope)
        if self.known is not None and item is self.known:
            lines = []
        else:
            lines = [*self._private(), f"o[{src.const(name)}] = {code.text}"]
        local = emitter.shadows.get(name)
        if local is not None:
            lines.append(f"{local} = {leaf_float(code.constant)!r}")
        return lines

    @staticmethod
    def _message(src, emitter, expr, scope) -> str:
        code = emitter.expr(expr, scope)
        if type(code.constant) is str:
            return code.text
        if isinstance(expr, ir.Interpolated) and not emitter.traced:
            return code.text
        return f"TEXT({emitter.converted(code)}, {src.const(getattr(expr, 'span', None))})"

    # --- tables --------------------------------------------------------------------------

    def _columns(self, src, emitter, node: ir.Table, scope) -> tuple[list[str], list[Code]]:
        if any(len(row.cells) != len(node.inputs) or len(row.values) != len(node.outputs)
               for row in node.rows):
            raise EngineError(f"a row of table `{node.name}` has the wrong number of cells or "
                              f"values for {len(node.inputs)} inputs and {len(node.outputs)} "
                              f"outputs", code="invalid_ir", span=node.span)
        lines, columns = [], []
        for expr in node.inputs:
            code, typed = emitter.checked_typed(emitter.expr(expr, scope))
            column = src.fresh("_x")
            lines.append(f"{column} = {code.text}")
            if self._string_cells(node, len(columns)):  # tested as text by several cells
                # a raw value of type str is the column's value (`checked` keeps it)
                lines.append(f"_s{column} = {typed or f'type({column})'} is STR")
                self.text_columns.add(column)
            columns.append(Code(column, code.slot))
        return lines, columns

    @staticmethod
    def _string_cells(node: ir.Table, position: int) -> bool:
        """Whether a column's cells compare it with string constants (then whether it is a
        string is asked once per table run, not once per cell)."""
        return any(isinstance(row.cells[position], ir.CompareCell)
                   and isinstance(row.cells[position].operand, (ir.Literal, ir.SetExpr))
                   for row in node.rows)

    def _cell(self, src, emitter, cell, column: Code, scope) -> str | None:
        """The text of one cell's test, true only when the cell matches; None for `-`."""
        if isinstance(cell, ir.AnyCell):
            return None
        if isinstance(cell, ir.NullCell):
            return f"({column.text} is None)"
        span = cell.span
        if isinstance(cell, ir.BetweenCell):
            test = emitter.between_expr(
                ir.Between(Column(column), cell.low, cell.high, span=span), scope)
            return f"({test.text} is True)"
        test = emitter.binary_expr(ir.Binary(cell.op, Column(column), cell.operand, span=span),
                                   scope)
        operand = emitter.expr(cell.operand, scope) if column.text in self.text_columns \
            else None
        if operand is not None and operand.constant is not NOT_CONSTANT:
            direct = Emitter._string_test(cell.op, operand.constant, column.text, operand.text)
            if direct is not None and not direct[1]:
                return f"(({direct[0]}) if _s{column.text} else ({test.text} is True))"
        return f"({test.text} is True)"


    def _table(self, src, emitter, node: ir.Table, scope) -> list[str]:
        lines, columns = self._columns(src, emitter, node, scope)
        fire = self._push(src, "fired", node.name)
        rows = [[t for t in (self._cell(src, emitter, cell, columns[n], scope)
                             for n, cell in enumerate(row.cells)) if t is not None]
                for row in node.rows]
        if node.hit == "first":
            lines.append("while True:")
            for row, tests in zip(node.rows, rows):
                lines.append(f"    if {' and '.join(tests) or 'True'}:")
                for out, value in zip(node.outputs, row.values):
                    lines += ["        " + line
                              for line in self._output(src, emitter, out, value, scope,
                                                       node)]
                pairs = list(zip(node.outputs, row.values))
                lines += ["        " + line for line in self._known(src, node, pairs)]
                lines += ["        " + line for line in fire] + ["        break"]
            lines.append("    break")
            return lines
        lines.append("_m = []")
        for number, tests in enumerate(rows, 1):
            lines.append(f"if {' and '.join(tests) or 'True'}: _m.append({number})")
        lines += self._apply(src, emitter, node, scope)
        lines += ["if _m:", *("    " + line for line in fire)]
        return lines

    def _apply(self, src, emitter, node: ir.Table, scope) -> list[str]:
        """Outputs from the matched rows `_m` of a `unique` or `collect` table."""
        lines = []
        if node.hit == "unique":
            lines_of = src.const(tuple(str(row.span.line) if row.span else "?"
                                       for row in node.rows))
            lines.append(f"if len(_m) > 1: NOT_UNIQUE({src.const(node)}, "
                         f"[{lines_of}[n - 1] for n in _m])")
            for number, row in enumerate(node.rows, 1):
                lines.append(f"if _m and _m[0] == {number}:")
                for out, value in zip(node.outputs, row.values):
                    lines += ["    " + line
                              for line in self._output(src, emitter, out, value, scope, node)]
                pairs = list(zip(node.outputs, row.values))
                lines += ["    " + line for line in self._known(src, node, pairs)]
            return lines
        for position, out in enumerate(node.outputs):
            lines.append("_l = []")
            for number, row in enumerate(node.rows, 1):
                lines.append(f"if {number} in _m: _l.append("
                             f"{self._kept(emitter, row.values[position], scope).text})")
            lines += [*self._private(), f"o[{src.const(out)}] = _l"]
            if out in emitter.shadows:
                lines.append(f"{emitter.shadows[out]} = None")
        return lines

    # --- the trace -------------------------------------------------------------------------

    def _traced_item(self, src, emitter, item, scope, kind: str) -> list[str]:
        window = self._window(src, emitter, item)
        skip = src.const(item)
        lines = []
        if window is not None:
            lines += [f"if not {window}: trace.append(SKIPPED({skip}, {src.const(kind)}, "
                      f"'outside_effective_window'))", "else:"]
            indent = "    "
        else:
            indent = ""
        body = self._traced_rule(src, emitter, item, scope) if kind == "rule" \
            else self._traced_table(src, emitter, item, scope)
        return lines + [indent + line for line in body]

    def _traced_rule(self, src, emitter, node: ir.Rule, scope) -> list[str]:
        code = emitter.expr(node.condition, scope)
        wrong = emitter.converted(Code("_c", code.slot))
        span = src.const(node.condition.span)
        lines = ["rec = []", f"_c = {code.text}",
                 f"if _c is not True and _c is not False and _c is not None: "
                 f"TRUTH({wrong}, {span})",
                 f"trace.append(RULE_ENTRY({src.const(node)}, _c is True, rec, "
                 f"{src.const(self.source)}))",
                 "if _c is True:", f"    fired.append({src.const(node.name)})"]
        for action in node.actions:
            if isinstance(action, ir.StopAction):
                lines.append("    stopped = True")
                continue
            lines += ["    " + line for line in self._action(src, emitter, action, scope)]
        return lines

    def _traced_table(self, src, emitter, node: ir.Table, scope) -> list[str]:
        lines = ["rec = []"]
        column_lines, columns = self._columns(src, emitter, node, scope)
        lines += column_lines
        emitter.traced = False  # the trace shows the columns, then each row's first miss
        try:
            return lines + self._traced_rows(src, emitter, node, scope, columns)
        finally:
            emitter.traced = True

    def _traced_rows(self, src, emitter, node: ir.Table, scope, columns) -> list[str]:
        lines = []
        texts = [_text(expr, self.source) for expr in node.inputs]
        shown = ", ".join(f"REC_SHOWN({c.text}, {src.const(c.slot)})" if c.slot is not None
                          else f"THAW({c.text})" for c in columns)
        lines += [f"_vals = [{shown}]", "_rows = []", "_m = []", "while True:"]
        collect = node.hit != "first"
        for number, row in enumerate(node.rows, 1):
            lines.append("    _why = None")
            first = True
            for n, cell in enumerate(row.cells):
                test = self._cell(src, emitter, cell, columns[n], scope)
                if test is None:
                    continue
                operands = [e for e in (getattr(cell, "operand", None),
                                        getattr(cell, "low", None),
                                        getattr(cell, "high", None)) if e is not None]
                values = ", ".join(emitter.value(e, scope) for e in operands)
                keyword = "if" if first else "elif"
                first = False
                lines.append(f"    {keyword} not {test}: _why = CELL_MISS({src.const(cell)}, "
                             f"{src.const(texts[n])}, _vals[{n}], [{values}])")
            lines += [f"    _rows.append(ROW_ENTRY({number}, {src.const(row)}, _why))",
                      f"    if _why is None: _m.append({number})"]
            if not collect:
                lines.append("    if _m: break")
        lines.append("    break")
        if node.hit == "first":
            for number, row in enumerate(node.rows, 1):
                lines.append(f"if _m and _m[0] == {number}:")
                for out, value in zip(node.outputs, row.values):
                    lines += ["    " + line
                              for line in self._output(src, emitter, out, value, scope, node)]
        else:
            lines += self._apply(src, emitter, node, scope)
        lines += ["if _m: fired.append(" + src.const(node.name) + ")",
                  f"trace.append(TABLE_ENTRY({src.const(node)}, bool(_m), rec, "
                  f"{src.const(tuple(texts))}, _vals, _rows, o, {node.hit == 'collect'}, "
                  f"{src.const(self.source)}))"]
        return lines


def _text(expr, source: str | None) -> str:
    span = getattr(expr, "span", None)
    if source and span is not None and 0 <= span.start < span.end <= len(source):
        return source[span.start:span.end]
    try:
        return format_expr(expr)
    except ValueError:
        return f"<{type(expr).__name__}>"


def _leading_comprehension(node) -> ir.Comprehension | None:
    """The comprehension a condition computes first, if it starts with one within a few
    levels (`count(...) > 2`, `any(...)`): nothing is evaluated before it, so computing it
    ahead changes no charge or error. Not a sum (the float filter has its own loop)."""
    for _ in range(4):
        if isinstance(node, ir.Binary) and node.op not in ("and", "or", "??"):
            node = node.left
        elif isinstance(node, ir.Between):
            node = node.value
        elif isinstance(node, ir.Unary):
            node = node.operand
        elif isinstance(node, ir.IsNull):
            node = node.value
        elif isinstance(node, ir.Call) and node.args and node.func not in CLOCK:
            node = node.args[0]
        else:
            break
    if isinstance(node, ir.Comprehension) and node.kind != "sum":
        return node
    return None
