"""The direct path: a ruleset generated as one function reading its input JSON as it is.

No copy of the input is made: the fields the rules read are checked where they are read (once,
before the rules run, so a field a short-circuit skips is checked as on every other path),
numbers stay ints or Decimals and compare exactly as they are, dates are parsed where read.
Anything off its common path (a value of another type, a null input, a limit reached, an
error) raises `Fallback`, and the caller evaluates the same input on the generated path, which
gives the one answer or error of every path (docs/rules-language.md "Evaluation").
"""

from __future__ import annotations

import re
from datetime import date, datetime
from decimal import Decimal
from typing import NamedTuple

from insureops.engine import ir
from insureops.engine.evaluation.codetext import COMPARE, UNSET, Source, as_of_only, walk
from insureops.engine.evaluation.expressions import EVAL
from insureops.engine.inputs.conversion import _BIG, _format_of
from insureops.engine.inputs.reads import Access
from insureops.engine.ir import numbers
from insureops.engine.ir import operations as ops
from insureops.engine.ir.builtins import FUNCTIONS
from insureops.engine.ir.context import Evaluation
from insureops.engine.ir.errors import EngineError
from insureops.engine.ir.limits import Limits
from insureops.engine.ir.result import NO_ITEMS, NO_OUTPUTS, Result
from insureops.engine.ir.values import Duration, format_plain, iso_date

DEFAULT_LIMITS = Limits()
_RANK = {"accept": 1, "refer": 2, "decline": 3}
_IMMUTABLE = frozenset({Decimal, str, bool, type(None), date, datetime, Duration})


class Fallback(Exception):
    """This input leaves the direct path's common case: evaluate it on the generated path."""


# What `CompiledRuleset.evaluate` catches from the direct path before falling back.
FALLBACK = (Fallback, EngineError, ArithmeticError)


class NotDirect(Exception):
    """The ruleset uses something the direct path does not generate."""


def _fallback(*_: object) -> None:
    raise Fallback


def _decimal(value: Decimal, integer: bool) -> bool:
    """True for a read Decimal the conversion keeps (else the direct path falls back)."""
    if value.is_finite() and numbers.in_range(value) and (
            not integer or value == value.to_integral_value()):
        return True
    raise Fallback


def _raw(value: object, integer: bool) -> object:
    """A raw field value read without a typed use (a table column, `is null`, a message):
    itself when the conversion would keep it as it is, else the direct path falls back."""
    kind = type(value)
    if kind is str or value is None or (kind is int and -_BIG < value < _BIG) or (
            kind is Decimal and _decimal(value, integer)):
        return value
    raise Fallback


def _and(left: object, right: object) -> object:
    """Kleene `and` once the left side is known not to be false."""
    if right is False and (left is True or left is None):
        return False
    if (left is True or left is None) and (right is True or right is None):
        return True if left is True and right is True else None
    raise Fallback


def _or(left: object, right: object) -> object:
    """Kleene `or` once the left side is known not to be true."""
    if right is True and (left is False or left is None):
        return True
    if (left is False or left is None) and (right is False or right is None):
        return False if left is False and right is False else None
    raise Fallback


def _plain(value: object) -> str:
    """A value interpolated into a message (containers fall back: they would be converted)."""
    if type(value) is list or type(value) is dict:
        raise Fallback
    return format_plain(value)


def _per_as_of(closure, as_of: object, memo: dict) -> object:
    """A value reading only the as-of date (`today() - 1 year`), remembered per as-of date."""
    if type(as_of) is date:
        found = memo.get(as_of, UNSET)
        if found is not UNSET:
            return found
    value = closure({EVAL: Evaluation(as_of, DEFAULT_LIMITS, {})})
    if type(as_of) is date and type(value) in _IMMUTABLE and len(memo) < 256:
        memo[as_of] = value
    return value


HELPERS = {"FB": _fallback, "OKD": _decimal, "CHK": _raw, "DAY": iso_date, "AND": _and, "OR": _or,
           "PLAIN": _plain, "PER_AS_OF": _per_as_of, "UNSET": UNSET, "BIG": _BIG, "NBIG": -_BIG,
           "DECIMAL": Decimal, "DATE": date, "ZERO": ops.ZERO, "SORTED": sorted,
           "RESULT": Result, "ADD": numbers.EXACT.add,
           "NO_OUTPUTS": NO_OUTPUTS, "NO_ITEMS": NO_ITEMS}


def generate_direct(items: tuple, compiler, inputs: list[tuple[str, object, Access]],
                    finish: tuple, slow):
    """(`run(inputs, as_of)`, `evaluate`) for the active `items` (sorted), or None when the
    ruleset uses something the direct path does not generate. `inputs` lists (name,
    InputConverter, access tree) per declared input; `finish` is (ruleset name, default
    decision). `run` raises `Fallback`; `evaluate` has the signature of
    `CompiledRuleset.evaluate` and calls `slow` (the same, without the direct path) for
    options it does not handle and for inputs it falls back on."""
    try:
        return _Generator(compiler, slow).build(items, inputs, finish)
    except (NotDirect, RecursionError):
        return None


ANY, NUMBER, STRING, DATE_KIND, LIST, BOOL = "any", "number", "str", "date", "list", "bool"
_KIND_OF = {Decimal: NUMBER, str: STRING, date: DATE_KIND, bool: BOOL}


class _Value(NamedTuple):
    """Generated text of a value and its kind (the value is of that kind or null; `any`:
    a raw JSON value, checked where it is used); `integer`: a field the schema says is an
    integer."""

    text: str
    kind: str
    integer: bool = False


class _Field:
    """A read field of an input or of a list's items: where it is read, format, integer-ness,
    and the plan of its items."""

    __slots__ = ("fmt", "integer", "items")

    def __init__(self, fmt: str | None, integer: bool, items) -> None:
        self.fmt, self.integer, self.items = fmt, integer, items


class _Generator:
    def __init__(self, compiler, slow) -> None:
        self.compiler, self.slow = compiler, slow
        self.src = Source()
        self.roots: dict[str, tuple] = {}  # input name -> (variable, converter, plan)
        self.pending: list[str] = []
        self.hoisted: list[str] = []
        self.start = ""  # the line that makes the containers, set by build

    # --- the function -----------------------------------------------------------------------

    def build(self, items: tuple, inputs: list, finish: tuple):
        src = self.src
        if len(items) > DEFAULT_LIMITS.max_steps:
            raise NotDirect
        name, default = (src.const(value) for value in finish)
        # the containers are made when something fires (most evaluations fire nothing)
        src.done = (f"return RESULT({name}, decision or {default}, score, o or NO_OUTPUTS, "
                    "reasons or NO_ITEMS, SORTED(tags) if tags else NO_ITEMS, "
                    "fired or NO_ITEMS)")
        src.emit(0, "def run(inputs, as_of):")
        src.emit(1, f"if type(inputs) is not dict or len(inputs) != {len(inputs)}: FB()")
        for position, (input_name, converter, access) in enumerate(inputs):
            if access.whole or access.items is not None:
                raise NotDirect
            root = f"i{position}"
            src.emit(1, f"{root} = {_read('inputs', src.const(input_name))}")
            src.emit(1, f"if type({root}) is not dict: FB()")
            self.roots[input_name] = (root, converter, converter._plan(converter._root))
        src.emit(1, f"_st = {len(items)}")
        src.emit(1, "score = ZERO; decision = None; rank = 0")
        tagged = any(isinstance(action, ir.TagAction) for item in items
                     if item.kind == "rule" for action in item.node.actions)
        if not tagged:
            src.done = src.done.replace("SORTED(tags) if tags else NO_ITEMS", "NO_ITEMS")
        self.start = "if fired is None: fired = []; reasons = []; o = {}" + (
            "; tags = set()" if tagged else "")
        src.emit(1, "fired = reasons = o = None" + ("; tags = None" if tagged else ""))
        for item in items:
            if item.kind == "table":
                self._table(item)
            else:
                self._rule(item)
        src.emit(1, src.done)
        body = src.lines[1:]
        if not any("_st +=" in line for line in body):  # no loop: the steps are known
            body = [line for line in body if not line.startswith("    _st = ")]
        subscript = [_READ.sub(r"\1[\2]", line) for line in body]  # every key there
        get = [_READ.sub(r"\1.get(\2)", line) for line in body]  # some missing: null
        lines = ["def run_get(inputs, as_of):", *get,
                 "def run(inputs, as_of):",
                 "    try:", *("    " + line for line in subscript),
                 "    except KeyError:",
                 "        return run_get(inputs, as_of)",
                 "def evaluate(inputs, *, as_of=None, explain=False, limits=None):",
                 "    if explain or limits is not None:",
                 "        return SLOW(inputs, as_of=as_of, explain=explain, limits=limits)",
                 "    try:", *("    " + line for line in subscript),
                 "    except FALLBACK:",
                 "        return SLOW(inputs, as_of=as_of)",
                 "    except KeyError:",
                 "        pass",
                 "    try:",
                 "        return run_get(inputs, as_of)",
                 "    except FALLBACK:",
                 "        return SLOW(inputs, as_of=as_of)"]
        namespace = {**HELPERS, **src.names, "SLOW": self.slow, "FALLBACK": FALLBACK}
        text = "\n".join(lines)
        exec(compile(text, "<ruleset direct>", "exec"), namespace)  # noqa: S102
        run, evaluate = namespace["run"], namespace["evaluate"]
        run.source = evaluate.source = text
        return run, evaluate

    def _field(self, converter, schema) -> _Field:
        fmt = _format_of(schema, converter.root)
        if fmt not in (None, "date"):
            raise NotDirect
        plan = converter._plan(schema)
        return _Field(fmt, plan.integer, (converter, converter._plan(plan.items)))

    # --- rules and tables ---------------------------------------------------------------------

    def _flush(self, depth: int) -> None:
        for line in self.pending:
            self.src.emit(depth, line)
        self.pending.clear()

    def _rule(self, item) -> None:
        src, node = self.src, item.node
        src.emit(1, "while True:")
        if node.effective is not None:
            start, end = src.const(node.effective.start), src.const(node.effective.end)
            src.emit(2, f"if not (({start} <= as_of <= {end}) if type(as_of) is DATE "
                        "else FB()): break")
        conjuncts = _conjuncts(node.condition)
        if len(conjuncts) > 1:
            src.emit(2, "_n = False")
        for condition in conjuncts:
            test = self.value(condition, {})
            self._flush(2)
            src.emit(2, f"_k = {test.text}")
            src.emit(2, "if _k is not True:")
            src.emit(3, "if _k is False: break")
            if len(conjuncts) == 1:
                src.emit(3, "if _k is None: break")
                if test.kind != BOOL:
                    src.emit(3, "FB()")
                continue
            if test.kind == BOOL:
                src.emit(3, "_n = True")
            else:
                src.emit(3, "if _k is None: _n = True")
                src.emit(3, "else: FB()")
        if len(conjuncts) > 1:
            src.emit(2, "if _n: break")
        src.emit(2, self.start)
        src.emit(2, f"fired.append({src.const(node.name)})")
        stops = False
        for action in node.actions:
            stops = self._action(action) or stops
        if stops:
            src.emit(2, src.done)
        src.emit(2, "break")

    def _action(self, action) -> bool:
        src = self.src
        if isinstance(action, ir.StopAction):
            return True
        if isinstance(action, ir.ScoreAction):
            amount = self._constant(action.value)
            if type(amount) is not Decimal:
                raise NotDirect
            amount = amount if action.op == "+=" else numbers.negated(amount)
            src.emit(2, f"score = ADD(score, {src.const(amount)})")
        elif isinstance(action, ir.SetAction):
            value = self._constant(action.value)
            if value is _NOT_CONSTANT or type(value) not in _IMMUTABLE:
                raise NotDirect
            src.emit(2, f"o[{src.const(action.name)}] = {src.const(value)}")
        elif isinstance(action, (ir.DecisionAction, ir.ReasonAction, ir.TagAction)):
            text = self._message(action.tag if isinstance(action, ir.TagAction)
                                 else action.message)
            if isinstance(action, ir.TagAction):
                src.emit(2, f"tags.add({text})")
            else:
                src.emit(2, f"reasons.append({text})")
            if isinstance(action, ir.DecisionAction):
                rank = _RANK[action.decision]
                src.emit(2, f"if rank < {rank}: rank = {rank}; "
                            f"decision = {src.const(action.decision)}")
        else:
            raise NotDirect
        return False

    def _message(self, expr) -> str:
        fixed = self._constant(expr)
        if type(fixed) is str:
            return self.src.const(fixed)
        if not isinstance(expr, ir.Interpolated):
            raise NotDirect
        pieces = []
        for part in expr.parts:
            if isinstance(part, str):
                pieces.append(self.src.const(part))
                continue
            value = self.value(part, {})
            value = value._replace(text=_checked(value))
            if value.kind == STRING:
                pieces.append(f"(_a if (_a := {value.text}) is not None else 'null')")
            else:
                pieces.append(f"(_a if type(_a := {value.text}) is str else str(_a) "
                              "if type(_a) is int else PLAIN(_a))")
        self._flush(2)
        self.src.emit(2, f"_m = ''.join(({', '.join(pieces)},))")
        self.src.emit(2, f"if len(_m) > {DEFAULT_LIMITS.max_string_length}: FB()")
        return "_m"

    def _table(self, item) -> None:
        src, node = self.src, item.node
        if item.collect or item.unique:
            raise NotDirect
        columns = []
        for expr in node.inputs:
            value = self.value(expr, {})
            self._flush(1)
            column = src.fresh("_x")
            src.emit(1, f"{column} = {_checked(value)}")  # read even if no cell tests it
            columns.append(value._replace(text=column))
        src.emit(1, "while True:")
        for row in node.rows:
            tests = [self._cell(columns[column], cell) for column, cell in enumerate(row.cells)
                     if not isinstance(cell, ir.AnyCell)] or ["True"]
            src.emit(2, f"if {' and '.join(tests)}:")
            src.emit(3, self.start)
            for name, expr in zip(node.outputs, row.values):
                value = self._constant(expr)
                if value is _NOT_CONSTANT or type(value) not in _IMMUTABLE:
                    raise NotDirect
                src.emit(3, f"o[{src.const(name)}] = {src.const(value)}")
            src.emit(3, f"fired.append({src.const(node.name)})")
            src.emit(3, "break")
        src.emit(2, "break")

    def _cell(self, column: _Value, cell) -> str:
        if isinstance(cell, ir.NullCell):
            return f"{column.text} is None"
        if isinstance(cell, ir.BetweenCell):
            return f"{self._between(column, cell.low, cell.high).text} is True"
        if isinstance(cell, ir.CompareCell):
            value = self._constant(cell.operand)
            if value is _NOT_CONSTANT:
                raise NotDirect
            return f"{self._against(cell.op, column, value).text} is True"
        raise NotDirect

    # --- expressions ----------------------------------------------------------------------------

    def _constant(self, expr) -> object:
        for node in walk(expr):
            if isinstance(node, (ir.Comprehension, ir.Member)) or (
                    isinstance(node, ir.Name) and node.name not in self.compiler.consts):
                return _NOT_CONSTANT
        fn = self.compiler.compile(expr)
        return fn.value if getattr(fn, "is_constant", False) else _NOT_CONSTANT

    def value(self, expr, scope: dict) -> _Value:
        """`expr`'s value on the common path (statements it needs first go to
        `self.pending`)."""
        fixed = self._constant(expr)
        if fixed is not _NOT_CONSTANT:
            return _Value(self.src.const(fixed), _KIND_OF.get(type(fixed), ANY)
                          if fixed is not None else ANY)
        if isinstance(expr, ir.Member):
            return self._member(expr, scope)
        if isinstance(expr, ir.Binary):
            return self._binary(expr, scope)
        if isinstance(expr, ir.Unary) and expr.op == "not":
            inner = self.value(expr.operand, scope)
            if inner.kind == BOOL:
                return _Value(f"(None if (_u := {inner.text}) is None else not _u)", BOOL)
            return _Value(f"(False if (_u := {inner.text}) is True else True if _u is False "
                          "else None if _u is None else FB())", BOOL)
        if isinstance(expr, ir.IsNull):
            inner = self.value(expr.value, scope)
            return _Value(f"({_checked(inner)} is {'not ' if expr.negated else ''}None)", BOOL)
        if isinstance(expr, ir.Between):
            return self._between(self.value(expr.value, scope), expr.low, expr.high)
        if isinstance(expr, ir.Call) and len(expr.args) == 1 and (
                code := FUNCTIONS[expr.func].on_list) is not None:  # e.g. len(list)
            inner = self.value(expr.args[0], scope)
            kind = NUMBER if FUNCTIONS[expr.func].result == "number" else ANY
            return _Value(f"({code} if type(_a := {inner.text}) is list "
                          "else None if _a is None else FB())", kind)
        if isinstance(expr, ir.Comprehension) and not scope:
            return self._comprehension(expr)
        raise NotDirect

    def _member(self, expr: ir.Member, scope: dict) -> _Value:
        """A field of an input or of a loop's item, read where it is used: a date field is
        parsed; anything else stays the raw JSON value (kind `any`)."""
        if not isinstance(expr.obj, ir.Name):
            raise NotDirect
        base, key = expr.obj.name, self.src.const(expr.field)
        if base in scope:
            variable, (converter, plan) = scope[base]
            read = _read(variable, key)
        elif base == "outputs" and base not in self.compiler.consts:
            return _Value(f"(o or NO_OUTPUTS).get({key})", ANY)  # o is None until a fire
        elif base in self.roots:
            variable, converter, plan = self.roots[base]
            read = _read(variable, key)
        else:
            raise NotDirect
        field = self._field(converter, plan.children.get(expr.field, plan.extra))
        if field.fmt == "date":
            # a date is truthy: anything but a YYYY-MM-DD string falls back
            return _Value(f"(None if (_z := {read}) is None else "
                          f"(DAY(_z) if type(_z) is str else None) or FB())", DATE_KIND)
        return _Value(read, ANY, field.integer)

    def _between(self, value: _Value, low_expr, high_expr) -> _Value:
        low, high = self._constant(low_expr), self._constant(high_expr)
        if type(low) is not type(high) or type(low) not in (Decimal, date):
            raise NotDirect
        kind = _KIND_OF[type(low)]
        lo, hi = self._number(low), self._number(high)
        if value.kind == kind:
            return _Value(f"(None if (_a := {value.text}) is None else {lo} <= _a <= {hi})",
                          BOOL)
        return _Value(f"(({lo} <= _a <= {hi}) if {_is(kind, value)} "
                      "else None if _a is None else FB())", BOOL)

    def _number(self, value: object) -> str:
        """A constant; an integral Decimal as an int (an int compares with an int without
        a conversion, and exactly with a Decimal)."""
        if type(value) is Decimal and value == value.to_integral_value() \
                and abs(value) < 10**30:
            return self.src.const(int(value))
        return self.src.const(value)

    def _binary(self, expr: ir.Binary, scope: dict) -> _Value:
        op = expr.op
        if op in ("and", "or"):
            left, right = self.value(expr.left, scope), self.value(expr.right, scope)
            stop, helper = ("False", "AND") if op == "and" else ("True", "OR")
            held = self.src.fresh("_p")
            return _Value(f"({stop} if ({held} := {left.text}) is {stop} "
                          f"else {helper}({held}, {right.text}))", BOOL)
        value = self._constant(expr.right)
        if value is not _NOT_CONSTANT:
            return self._against(op, self.value(expr.left, scope), value)
        if op in COMPARE and scope and not any(
                isinstance(node, ir.Name) and node.name in scope for node in walk(expr.right)) \
                and as_of_only(expr.right, self.compiler, {}):
            left = self.value(expr.left, scope)
            if left.kind != DATE_KIND:
                raise NotDirect
            held = self.src.fresh("_h")
            self.hoisted.append(held)
            closure = self.src.const(self.compiler.compile(expr.right))
            right = (f"({held} if {held} is not UNSET else "
                     f"({held} := PER_AS_OF({closure}, as_of, {self.src.const({})})))")
            return _Value(f"((_a {COMPARE[op]} _b) if (_a := {left.text}) is not None and "
                          f"type(_b := {right}) is DATE else None if _a is None or _b is None "
                          "else FB())", BOOL)
        raise NotDirect

    def _against(self, op: str, left: _Value, value: object) -> _Value:
        """`left OP constant`."""
        if op in COMPARE and type(value) in (Decimal, str, date):
            kind = _KIND_OF[type(value)]
            k = self._number(value)
            if left.kind == kind:
                return _Value(f"(None if (_a := {left.text}) is None else "
                              f"_a {COMPARE[op]} {k})", BOOL)
            return _Value(f"((_a {COMPARE[op]} {k}) if {_is(kind, left)} "
                          "else None if _a is None else FB())", BOOL)
        k = self.src.const(value)
        if op in ("in", "not in") and type(value) is frozenset and value and all(
                type(item) is str for item in value):
            return _Value(f"((_a {op} {k}) if type(_a := {left.text}) is str "
                          "else None if _a is None else FB())", BOOL)
        if op in ("starts_with", "ends_with") and type(value) is str:
            method = "startswith" if op == "starts_with" else "endswith"
            return _Value(f"(_a.{method}({k}) if type(_a := {left.text}) is str "
                          "else None if _a is None else FB())", BOOL)
        raise NotDirect

    def _comprehension(self, expr: ir.Comprehension) -> _Value:
        if expr.kind not in ("count", "any", "all") or expr.projection is not None:
            raise NotDirect
        if not (isinstance(expr.source, ir.Member) and isinstance(expr.source.obj, ir.Name)
                and expr.source.obj.name in self.roots):
            raise NotDirect
        source = self.value(expr.source, {})
        if source.kind != ANY:
            raise NotDirect
        field = self._field(*self._owner(expr.source))
        if expr.where is not None and any(isinstance(node, ir.Comprehension)
                                          for node in walk(expr.where)):
            raise NotDirect
        item, result = self.src.fresh("_v"), self.src.fresh("_q")
        outer, self.pending = self.pending, []
        saved, self.hoisted = self.hoisted, []
        test = _Value(item, ANY) if expr.where is None else self.value(
            expr.where, {expr.var: (item, field.items)})
        inner, hoisted = self.pending, self.hoisted
        self.pending, self.hoisted = outer, saved
        if inner:
            raise NotDirect
        lines = [f"_s = {source.text}",
                 f"if _s is None: {result} = None",
                 "elif type(_s) is list:",
                 "    _st += len(_s)",
                 f"    if _st > {DEFAULT_LIMITS.max_steps}: FB()",
                 *(f"    {held} = UNSET" for held in hoisted)]
        loop = [f"    for {item} in _s:", f"        if type({item}) is not dict: FB()"]
        if expr.kind == "count" and expr.where is None:
            lines.append(f"    {result} = len(_s)")
        elif expr.kind == "count":
            lines += [f"    {result} = 0", *loop,
                      f"        _w = {test.text}",
                      f"        if _w is True: {result} += 1",
                      "        elif _w is not False: FB()"]
        else:
            decides, other = ("True", "False") if expr.kind == "any" else ("False", "True")
            lines += [f"    {result} = {other}", *loop,
                      f"        _w = {test.text}",
                      f"        if _w is {decides}: {result} = {decides}; break",
                      f"        if _w is None: {result} = None",
                      f"        elif _w is not {other}: FB()"]
        lines.append("else: FB()")
        self.pending.extend(lines)
        return _Value(result, NUMBER if expr.kind == "count" else BOOL)

    def _owner(self, expr: ir.Member) -> tuple:
        """(converter, schema) of an input's field."""
        _, converter, plan = self.roots[expr.obj.name]
        return converter, plan.children.get(expr.field, plan.extra)


_NOT_CONSTANT = object()
_READ = re.compile(r"\x00(\w+)\x01(\w+)\x02")


def _read(variable: str, key: str) -> str:
    """A field read, written as a subscript or as `.get` in the two variants of the text."""
    return f"\x00{variable}\x01{key}\x02"


def _checked(value: _Value) -> str:
    """The text of `value`, checked as the conversion would check it when it is a raw
    field value (kind `any`) that no typed use checks."""
    if value.kind != ANY:
        return value.text
    # a string, null or an int in range inline (the usual values); anything else through CHK
    return (f"(_y if (type(_y := {value.text}) is str or _y is None or "
            f"(type(_y) is int and NBIG < _y < BIG)) else CHK(_y, {value.integer}))")


def _is(kind: str, value: _Value) -> str:
    """A test that `value` (bound to `_a`) is of `kind` on the common path: a number is an
    int of a plain size or a Decimal the conversion keeps."""
    if kind == NUMBER:
        return (f"((type(_a := {value.text}) is int and NBIG < _a < BIG) "
                f"or (type(_a) is DECIMAL and OKD(_a, {value.integer})))")
    return f"type(_a := {value.text}) is {'str' if kind == STRING else 'DATE'}"


def _conjuncts(expr: object) -> list:
    if isinstance(expr, ir.Binary) and expr.op == "and":
        return _conjuncts(expr.left) + _conjuncts(expr.right)
    return [expr]
