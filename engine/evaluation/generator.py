"""The one compiled form: a ruleset generated as Python source, run as Python functions.

One generator serves every evaluation: `run(inputs, ev)` (plain evaluation, also what
`evaluate_many` calls per item) and, made on the first explanation, `run_traced(inputs, ev)`,
the same code with every sub-expression's value recorded. Both read the input JSON as it is
(`engine/inputs/slots.py`): a field stays the raw int, float, Decimal or string until a use
needs a runtime value, and the common uses (a comparison with a constant, `between`, a set of
strings, `starts_with`) test the raw value directly when its type allows (an int against an
integral constant, a float against the float bounds of the decimal constant, a string as it
is), so money with cents compares exactly as its shortest text without a Decimal being made.
The text holds no user text: every literal, name, span and node is reached through the
constants table (`K0`, `K1`, ...). Helpers it calls are `runtime.HELPERS`.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import date
from decimal import Decimal
from types import CodeType
from typing import NamedTuple, Protocol

from insureops.engine import ir
from insureops.engine.evaluation import text_runs
from insureops.engine.evaluation.float_filter import FloatFilter, constant_floats
from insureops.engine.evaluation.runtime import HELPERS, OPERATIONS
from insureops.engine.inputs.slots import BIG, Slot
from insureops.engine.ir.builtins import CLOCK, FUNCTIONS, arity_text
from insureops.engine.ir.context import Evaluation
from insureops.engine.ir.costs import CHARS_PER_STEP
from insureops.engine.ir.errors import EngineError, LimitExceededError
from insureops.engine.ir.limits import DEFAULT_LIMITS, Limits
from insureops.engine.ir.operators import PYTHON
from insureops.engine.ir.tree import chain, children, expression_depth

NOT_CONSTANT = object()
COUNT_SLOT = Slot.root("count", None)  # a count (an int, or the Decimal of one)
_NUMBER_TESTS = frozenset({"==", "!=", "<", "<=", ">", ">="})
_ORDERING = frozenset({"<", "<=", ">", ">="})
_FAST = (Decimal, str, date)
# nesting of one generated expression before a sub-expression becomes a function of its own
# (Python's parser refuses about 200 nested parentheses)
_DEEPEST = 12
_TEXT_SCANS = frozenset({"contains", "in", "not in"})  # a text's scan charged by its length
_AFFIXES = {"starts_with": "startswith", "ends_with": "endswith"}  # their str methods
_SHORT = 120  # an operand's text short enough to be written twice
_CHUNK = 8  # operands of an `and`/`or` chain per generated expression


class Code(NamedTuple):
    """Generated text of an expression. `slot` is set when the text yields a raw input value
    read at that slot (to be converted where used); `constant` holds a folded value."""

    text: str
    slot: Slot | None = None
    constant: object = NOT_CONSTANT


class CodeCache(Protocol):
    """Where compiled generated text may be kept between processes (the shell's choice: the
    engine does no I/O). `get` answers the code object of exactly `text` compiled under
    `filename`, or None; `put` offers one. Compiling the generated text is most of what
    compiling a ruleset costs, so a warm start with a cache skips it."""

    def get(self, text: str, filename: str) -> CodeType | None: ...

    def put(self, text: str, filename: str, code: CodeType) -> None: ...


_code_cache: ContextVar[CodeCache | None] = ContextVar("code_cache", default=None)


@contextmanager
def code_cache(cache: CodeCache | None) -> Iterator[None]:
    """Compile the rulesets compiled inside this block (in this thread or task) through
    `cache`: only what the caller chooses is kept (the market's appetites, never a studio
    user's rules)."""
    token = _code_cache.set(cache)
    try:
        yield
    finally:
        _code_cache.reset(token)


def compile_text(text: str, filename: str) -> CodeType:
    """The code object of generated `text`, from the code cache when it has it."""
    cache = _code_cache.get()
    if cache is not None:
        found = cache.get(text, filename)
        if found is not None:
            return found
    code = compile(text, filename, "exec")
    if cache is not None:
        cache.put(text, filename, code)
    return code


FLOATS = "__floats__"  # the namespace's float filter table, by the identity of its constants
GENERATED = frozenset({"<ruleset>", "<ruleset traced>", "<expression>", "<constants>"})


class Source:
    """Generated lines, the functions beside them, and the constants table they refer to."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.functions: list[list[str]] = []
        self.names: dict[str, object] = {}
        self._ids: dict[int, str] = {}
        self._kept: list[object] = []  # keeps every constant alive, so ids stay its own
        self.serial = 0
        self.floats: dict[int, float] = {}  # the float filter's constants, filled by build

    def const(self, value: object) -> str:
        key = id(value)
        found = self._ids.get(key)
        if found is None:
            found = self._ids[key] = f"K{len(self.names)}"
            self.names[found] = value
            self._kept.append(value)
        return found

    def fresh(self, prefix: str) -> str:
        self.serial += 1
        return f"{prefix}{self.serial}"

    def build(self, filename: str) -> dict:
        """Compile the module; its namespace (the functions by name)."""
        text = "\n".join(line for function in self.functions for line in function)
        self.floats.update(constant_floats(self.names))
        namespace = {**HELPERS, **self.names}
        exec(compile_text(text, filename), namespace)  # noqa: S102
        namespace["__source__"] = text
        namespace[FLOATS] = self.floats  # for frozen.py, which computes it again
        return namespace


class Column:
    """A value already computed by generated code (a table column), standing in an
    expression tree for the generated text that holds it."""

    __slots__ = ("code", "span")

    def __init__(self, code: Code) -> None:
        self.code = code
        self.span = None


class Scope(NamedTuple):
    """A name an expression can read: its variable, the slot of a raw input value (None for
    a runtime value), and the variable saying whether it is an object (inputs: read once, so
    a field read is one `dict.get`; for a runtime value, its own name: always a dict)."""

    var: str
    slot: Slot | None = None
    is_object: str | None = None


class Emitter:
    """Expressions -> Python expression text, within one function being generated."""

    def __init__(self, src: Source, consts: dict, folded: dict | None = None,
                 clocked: frozenset = frozenset(), *, traced: bool) -> None:
        self.src = src
        self.consts = consts
        self.folded = folded or {}  # id(node) -> value computed at compile time
        self.clocked = clocked  # ids of nodes computed once per as-of date
        self.traced = traced
        self.depth = 0
        self.used: set[str] = set()  # the scope's variables the text being made reads
        self.hoisted: list[str] | None = None  # per-call values of the function being made
        # the text of the evaluation's state: `ev` (a parameter), or in the rule loop of the
        # default call the form that makes it on first use (`ruleset_code.LAZY`)
        self.ev = "ev"
        self.inlined: dict[int, Code] = {}  # comprehensions computed by statements before
        # an output's float kept in a local by every write of it (`ruleset_code.py`): output
        # name -> local, for the float filter in the rule loop (not in a function of its own)
        self.shadows: dict[str, str] = {}

    @contextmanager
    def nested(self) -> Iterator[None]:
        """Emitting the body of a function of its own: `ev` is its parameter there."""
        outer, self.ev = self.ev, "ev"
        shadows, self.shadows = self.shadows, {}
        try:
            yield
        finally:
            self.ev, self.shadows = outer, shadows

    def arguments(self, params: list[str]) -> str:
        """The call's arguments for a function of its own taking `params`."""
        return ", ".join(self.ev if param == "ev" else param for param in params)

    # --- entry points --------------------------------------------------------------------

    def expr(self, node, scope: dict[str, Scope]) -> Code:
        """The code of `node`: folded constants as constants; in a trace, every value but a
        literal's recorded."""
        if type(node) is Column:
            return node.code
        if self.inlined and id(node) in self.inlined:
            return self.inlined[id(node)]
        if not self.traced:
            found = self.folded.get(id(node), NOT_CONSTANT)
            if found is not NOT_CONSTANT:
                return self.constant(found)
            if id(node) in self.clocked:
                return self._per_as_of(node)
        self.depth += 1
        try:
            if self.depth > _DEEPEST:
                code = self._function(node, scope)
            else:
                code = self._expr(node, scope)
        finally:
            self.depth -= 1
        if self.traced and not isinstance(node, ir.Literal):
            k = self.src.const(node)
            if code.slot is not None:
                return Code(f"REC_RAW(rec, {k}, {code.text}, {self.src.const(code.slot)})",
                            code.slot)
            return Code(f"REC(rec, {k}, {code.text})")
        return code

    def value(self, node, scope) -> str:
        """The text of `node`'s runtime value (a raw read converted where it is used)."""
        return self.converted(self.expr(node, scope))

    def converted(self, code: Code) -> str:
        if code.slot is None:
            return code.text
        return f"VAL({code.text}, {self.src.const(code.slot)}, {self.ev})"

    def checked(self, code: Code) -> Code:
        """A raw value checked now (where it is read) but kept raw when its raw form is
        already a valid runtime value's (a string, an int in range, a finite float, null,
        a boolean): a table column, read once and tested by many cells."""
        return self.checked_typed(code)[0]

    def checked_typed(self, code: Code) -> tuple[Code, str | None]:
        """`checked`, and the text of a variable holding the raw value's type once the
        checked text has run (None when there is none): a plain `str` there is the value."""
        if code.slot is None:
            return code, None
        slot, a = code.slot, self.src.fresh("_k")
        k = self.src.const(slot)
        if slot.fmt == "date":
            return Code(self.date_of(code)), None
        if slot.fmt is not None:
            return Code(self.converted(code)), None
        whole = f" and {a}.is_integer()" if slot.integer else ""
        return Code(f"({a} if (_t{a} := type({a} := {code.text})) is STR or _t{a} is INT and "
                    f"{_IN_RANGE.format(a)} or {a} is None or _t{a} is BOOL or _t{a} is FLOAT "
                    f"and NINF < {a} < INF{whole} else VAL({a}, {k}, {self.ev}))", slot), f"_t{a}"

    def constant(self, value: object) -> Code:
        if value is None or value is True or value is False:
            return Code(repr(value), None, value)
        return Code(self.src.const(value), None, value)

    # --- the node types ------------------------------------------------------------------

    def _expr(self, node, scope) -> Code:
        if isinstance(node, ir.Literal):
            return self.constant(node.value)
        if isinstance(node, ir.Name):
            return self._name(node, scope)
        if isinstance(node, ir.Member):
            return self._member(node, scope)
        if isinstance(node, ir.Binary):
            return self.binary_expr(node, scope)
        if isinstance(node, ir.Between):
            return self.between_expr(node, scope)
        if isinstance(node, ir.Comprehension):
            return self._comprehension(node, scope)
        if isinstance(node, ir.Call):
            return self._call(node, scope)
        span = self.src.const(node.span)
        if isinstance(node, ir.Unary):
            operand = self.expr(node.operand, scope)
            if node.op == "-":
                return Code(f"NEG({self.converted(operand)}, {span})")
            u = self.src.fresh("_u")
            wrong = self.converted(Code(u, operand.slot))
            return Code(f"(False if ({u} := {operand.text}) is True else True if {u} is False "
                        f"else NOT({wrong}, {span}))")
        if isinstance(node, ir.IsNull):
            test = "is not" if node.negated else "is"
            value = self.expr(node.value, scope)
            if value.slot is None:
                return Code(f"({value.text} {test} None)")
            # a raw read: null, or a string that stays a string, tested as it is (no
            # Evaluation made for it); anything else converted (and checked) first
            z = self.src.fresh("_z")
            null, other = ("False", "True") if node.negated else ("True", "False")
            string = f"{other} if type({z}) is STR else " if value.slot.fmt is None else ""
            return Code(f"({null} if ({z} := {value.text}) is None else {string}"
                        f"({self.converted(Code(z, value.slot))} {test} None))")
        if isinstance(node, ir.Conditional):
            cond = self.expr(node.cond, scope)
            c = self.src.fresh("_c")
            wrong = self.converted(Code(c, cond.slot))
            then, else_ = self.value(node.then, scope), self.value(node.else_, scope)
            return Code(f"({then} if ({c} := {cond.text}) is True else {else_} if {c} is None "
                        f"or {c} is False else TRUTH({wrong}, {span}))")
        if isinstance(node, ir.Index):
            return Code(f"INDEX({self.value(node.obj, scope)}, "
                        f"{self.value(node.index, scope)}, {span})")
        if isinstance(node, ir.ListExpr):
            return Code("[" + "".join(f"{self.value(item, scope)}, " for item in node.items)
                        + "]")
        if isinstance(node, ir.SetExpr):
            items = "".join(f"{self.value(item, scope)}, " for item in node.items)
            return Code(f"MAKE_SET([{items}], {span})")
        if isinstance(node, ir.ObjectExpr):
            entries = "".join(f"{self.src.const(key)}: {self.value(value, scope)}, "
                              for key, value in node.entries)
            return Code("{" + entries + "}")
        if isinstance(node, ir.Interpolated):
            pieces = []
            for part in node.parts:
                if isinstance(part, str):
                    pieces.append(self.src.const(part))
                    continue
                code, p = self.expr(part, scope), self.src.fresh("_p")
                pieces.append(f"({p} if type({p} := {code.text}) is STR else "
                              f"PLAIN({self.converted(Code(p, code.slot))}))"
                              if code.slot is None or code.slot.fmt is None else
                              f"PLAIN({self.converted(code)})")
            made = f"''.join(({''.join(p + ', ' for p in pieces)}))"
            if self.ev == "ev":
                return Code(f"TEXT_MADE({made}, {span}, ev)")
            # the rule loop: a short text costs no step, and needs no check but the length
            # limit (the default one until the Evaluation is made)
            j = self.src.fresh("_j")
            return Code(f"({j} if len({j} := {made}) < {CHARS_PER_STEP} and (ev is None or "
                        f"len({j}) <= ev.limits.max_string_length) else "
                        f"TEXT_MADE({j}, {span}, {self.ev}))")
        raise EngineError(f"not an expression node: {type(node).__name__}", code="invalid_ir",
                          span=getattr(node, "span", None))

    def _name(self, node: ir.Name, scope) -> Code:
        found = scope.get(node.name)
        if found is not None:
            self.used.add(found.var)
            return Code(found.var, found.slot)
        if node.name in self.consts:
            return self.constant(self.consts[node.name])
        raise EngineError(f"unknown name `{node.name}`", code="invalid_ir", span=node.span)

    def _member(self, node: ir.Member, scope) -> Code:
        field = self.src.const(node.field)
        if not self.traced and isinstance(node.obj, ir.Name):
            found = scope.get(node.obj.name)
            if found is not None and found.is_object is not None and found.slot is None:
                self.used.add(found.var)  # the outputs so far: always a dict
                return Code(f"{found.var}.get({field})")
            if found is not None and found.is_object is not None:
                self.used.update((found.var, found.is_object))
                return Code(f"({found.var}.get({field}) if {found.is_object} else RAW_MEMBER("
                            f"{found.var}, {field}, {self.src.const(found.slot)}, "
                            f"{self.src.const(node.span)}, {self.ev}))", found.slot.field(node.field))
        obj = self.expr(node.obj, scope)
        o, span = self.src.fresh("_o"), self.src.const(node.span)
        if obj.slot is not None:
            return Code(f"({o}.get({field}) if type({o} := {obj.text}) is DICT else "
                        f"RAW_MEMBER({o}, {field}, {self.src.const(obj.slot)}, {span}, {self.ev}))",
                        obj.slot.field(node.field))
        return Code(f"({o}.get({field}) if type({o} := {obj.text}) is DICT else "
                    f"MEMBER({o}, {field}, {span}))")

    def _call(self, node: ir.Call, scope) -> Code:
        entry = FUNCTIONS.get(node.func)
        span = self.src.const(node.span)
        if entry is None:
            raise EngineError(f"unknown function `{node.func}`", code="invalid_ir",
                              span=node.span)
        count = len(node.args)
        if count < entry.minimum or (entry.maximum is not None and count > entry.maximum):
            raise EngineError(f"{node.func}() takes {arity_text(entry)} arguments, not "
                              f"{count}", code="invalid_ir", span=node.span)
        if node.func in CLOCK:
            return Code(f"{self.ev}.{node.func}({span})")
        if node.func == "len":
            arg = self.expr(node.args[0], scope)
            if arg.slot is not None:  # a list's length as an int, read as a number
                items = self.src.fresh("_n")
                return Code(f"(len({items}) if type({items} := {arg.text}) is LIST else "
                            f"RAW_LEN({items}, {self.src.const(arg.slot)}, {span}, {self.ev}))",
                            COUNT_SLOT)
            return Code(f"CALL('len', [{arg.text}], {self.ev}, {span})")
        if node.func == "days_between":
            first, second = (self.expr(arg, scope) for arg in node.args)
            if all(code.slot is not None and code.slot.fmt == "date"
                   for code in (first, second)):  # two date fields: days as an int
                b, e = self.src.fresh("_b"), self.src.fresh("_e")
                return Code(f"(({e} - {b}).days if type({b} := {self._typed_value(first)}) is "
                            f"type({e} := {self._typed_value(second)}) is DATE else "
                            f"CALL('days_between', [{b}, {e}], {self.ev}, {span}))", COUNT_SLOT)
            args = f"{self.converted(first)}, {self.converted(second)}, "
            return Code(f"CALL('days_between', [{args}], {self.ev}, {span})")
        args = "".join(f"{self.value(arg, scope)}, " for arg in node.args)
        return Code(f"CALL({self.src.const(node.func)}, [{args}], {self.ev}, {span})")

    # --- operators -----------------------------------------------------------------------

    def binary_expr(self, node: ir.Binary, scope, filtered: bool = True) -> Code:
        op, span = node.op, self.src.const(node.span)
        if filtered and not self.traced and op in PYTHON:
            decided = FloatFilter(self).compare(node, scope)
            if decided is not None:
                return decided
        if op in ("and", "or"):
            return self._logic(op, chain(node, op), node.span, scope)
        if op == "??":
            c = self.src.fresh("_c")
            left = self.value(node.left, scope)
            return Code(f"({self.value(node.right, scope)} if ({c} := {left}) is None "
                        f"else {c})")
        left = self.expr(node.left, scope)
        right = self.expr(node.right, scope)
        if op == "+":
            return Code(f"ADD({self.converted(left)}, {self.converted(right)}, {span}, {self.ev})")
        if op == "matches":
            return Code(f"MATCHES({self.converted(left)}, {self.converted(right)}, {span}, "
                        f"{self.ev})")
        if op not in OPERATIONS:
            raise EngineError(f"unknown operator `{op}`", code="invalid_ir", span=node.span)
        if right.constant is not NOT_CONSTANT and left.constant is NOT_CONSTANT:
            fast = self.against(op, left, right.constant, span)
            if fast is not None:
                return Code(fast)
        slow, ev = self.operation(op), self._ev(op)
        if op in _TEXT_SCANS:
            return Code(self._scan(op, left, right, span, slow))
        if op in _AFFIXES and not self.traced:
            return Code(self._affix(op, left, right, span, slow))
        if op in PYTHON and left.constant is NOT_CONSTANT and right.constant is NOT_CONSTANT:
            a, b = self.src.fresh("_a"), self.src.fresh("_b")
            left_value = self._typed_value(left)
            return Code(f"(({a} {PYTHON[op]} {b}) if type({a} := {left_value}) is "
                        f"type({b} := {self.converted(right)}) and type({a}) in FAST_TYPES "
                        f"else {slow}({a}, {b}, {span}{ev}))")
        return Code(f"{slow}({self.converted(left)}, {self.converted(right)}, {span}{ev})")

    def _scan(self, op: str, left: Code, right: Code, span: str, slow: str) -> str:
        """`contains`/`in`/`not in` of two strings tested directly, its scan charged inline
        (as `costs.binary` would); anything else through the operator's implementation."""
        a, b = self.src.fresh("_a"), self.src.fresh("_b")
        text, item = (a, b) if op == "contains" else (b, a)
        test = f"{item} {'in' if op == 'contains' else op} {text}"
        return (f"(({test}) if type({a} := {self.converted(left)}) is type({b} := "
                f"{self.converted(right)}) is STR and (len({text}) < {CHARS_PER_STEP} or "
                f"{self.scan_charged(f'len({text})', span)}) else {slow}({a}, {b}, {span}, "
                f"{self.ev}))")

    def _affix(self, op: str, left: Code, right: Code, span: str, slow: str) -> str:
        """`starts_with`/`ends_with` of two strings tested directly (a prefix from a
        comprehension's item, an output); anything else through the operator's
        implementation. A raw text read is its own value: tested as it is, the right operand
        read after it as before; any other raw value converted first, as it was."""
        a, b = self.src.fresh("_a"), self.src.fresh("_b")
        method, other = _AFFIXES[op], self.converted(right)
        if left.slot is None or left.slot.fmt is not None or len(other) > _SHORT:
            return (f"(({a}.{method}({b})) if type({a} := {self.converted(left)}) is "
                    f"type({b} := {other}) is STR else {slow}({a}, {b}, {span}))")
        return (f"(({a}.{method}({b})) if type({a} := {left.text}) is STR and type({b} := "
                f"{other}) is STR else {slow}({self.converted(Code(a, left.slot))}, {b} if "
                f"type({a}) is STR else {other}, {span}))")

    def _typed_value(self, code: Code) -> str:
        """A value for a typed comparison: a date field's string parsed inline."""
        if code.slot is not None and code.slot.fmt == "date":
            return self.date_of(code)
        return self.converted(code)

    def date_of(self, code: Code) -> str:
        """A `format: date` field's date: a string seen before from the cache of read dates
        (`runtime.DATES`), else parsed and checked (`runtime.date_of`)."""
        r, d = self.src.fresh("_r"), self.src.fresh("_d")
        return (f"({d} if type({r} := {code.text}) is STR and ({d} := DATES_GET({r})) is not "
                f"None else DATE_OF({r}, {self.src.const(code.slot)}, {self.ev}))")

    def _logic(self, op: str, operands: list, span, scope, runs: bool = True) -> Code:
        """Kleene `and`/`or`, left to right, stopping at the first false (true) operand; each
        operand is checked to be a boolean (or null) before the next one runs."""
        where = self.src.const(span)
        if self.traced and op == "and":
            lambdas = ", ".join(f"lambda: {self.expr(o, scope).text}" for o in operands)
            return Code(f"AND_T({where}, {lambdas})")
        if op == "or" and not self.traced and runs:  # a field's text tested once (text_runs.py)
            gathered = text_runs.runs(operands, scope, self)
            if len(gathered) < len(operands):
                return self._logic_runs(gathered, span, scope)
        if len(operands) > _CHUNK:
            groups = [operands[i:i + _CHUNK] for i in range(0, len(operands), _CHUNK)]
            parts = [self._group(op, group, span, scope) for group in groups]
            return self._fold_logic(op, parts, where)
        parts = [self.expr(o, scope) for o in operands]
        return self._fold_logic(op, [Code(p.text, p.slot) for p in parts], where)

    def _logic_runs(self, gathered: list, span, scope) -> Code:
        """An `or` whose runs of text tests (tuples of operands) are each one part."""
        where = self.src.const(span)

        if len(gathered) > _CHUNK:
            parts = [self._group("or", gathered[i:i + _CHUNK], span, scope, gathered=True)
                     for i in range(0, len(gathered), _CHUNK)]
            return self._fold_logic("or", parts, where)

        def one_by_one(run: tuple):  # a value not a string: the tests as they are made
            return lambda: self._group("or", list(run), span, scope, whole=True).text

        return self._fold_logic("or", [
            Code(text_runs.run_code(o, scope, self, one_by_one(o))) if type(o) is tuple
            else self.expr(o, scope) for o in gathered], where)

    def _group(self, op: str, group: list, span, scope, whole: bool = False,
               gathered: bool = False) -> Code:
        """Operands of a chain as a function of its own: `whole`, any number of operands
        (chunked again); `gathered`, the units of `_logic_runs`."""
        outer, self.used = self.used, set()
        try:
            with self.nested():
                if whole:
                    inner = self._logic(op, group, span, scope, runs=False)
                elif gathered:
                    inner = self._logic_runs(group, span, scope)
                else:
                    inner = self._fold_logic(op, [self.expr(o, scope) for o in group],
                                             self.src.const(span))
            used = self.used
        finally:
            self.used = outer | self.used
        return self._as_function(inner, scope, used)

    def _fold_logic(self, op: str, parts: list[Code], where: str) -> Code:
        stop, other = ("False", "True") if op == "and" else ("True", "False")
        names = []
        text = ""
        for part in parts:
            name = self.src.fresh("_l")
            value = part.text
            if names:
                previous = Code(names[-1], parts[len(names) - 1].slot)
                check = self.converted(previous)
                value = (f"({part.text} if {names[-1]} is {other} or {names[-1]} is None "
                         f"else TRUTH({check}, {where}))")
            text += f"{stop} if ({name} := {value}) is {stop} else "
            names.append(name)
        last = Code(names[-1], parts[-1].slot)
        combine = "BOTH" if op == "and" else "EITHER"
        # no operand stopped it: all of them `other` (the usual case) gives `other` at once
        settled = " and ".join(f"{name} is {other}" for name in names)
        return Code(f"({text}{other} if {settled} else {combine}("
                    f"{', '.join(names[:-1] + [self.converted(last)])}, span={where}))")

    def operation(self, op: str) -> str:
        """The text calling operator `op`'s implementation: `<text>(left, right, span)`
        (with `, ev` appended by `_call_op` for those that charge their cost)."""
        function, _ = OPERATIONS[op]
        return self.src.const(function)

    def _ev(self, op: str) -> str:
        return f", {self.ev}" if OPERATIONS[op][1] else ""

    def against(self, op: str, left: Code, constant: object, span: str) -> str | None:
        """`left op constant` tested directly when the operand's type allows, else through
        the operator's implementation; None when nothing better than the general form."""
        k, kind = self.src.const(constant), type(constant)
        slow = self.operation(op)
        ev = self._ev(op)
        a = self.src.fresh("_a")
        if left.slot is None:
            return self._against_value(op, left, constant, span, a, k, slow, ev)
        slot = left.slot
        general = f"{slow}(VAL({a}, {self.src.const(slot)}, {self.ev}), {k}, {span}{ev})"
        if kind is Decimal and op in _NUMBER_TESTS and constant.is_finite():
            number, real = self._number_tests(op, constant, a)
            whole = f" and {a}.is_integer()" if slot.integer else ""
            t = self.src.fresh("_t")
            # an ordering with null is null (nothing charged): no Evaluation needed
            null = f"None if {a} is None else " if op in _ORDERING else ""
            return (f"(({number}) if ({t} := type({a} := {left.text})) is INT and "
                    f"{_IN_RANGE.format(a)} else ({real}) if {t} is FLOAT and NINF < {a} < INF"
                    f"{whole} else {null}{general})")
        if kind is date and slot.fmt == "date" and op in PYTHON:
            return (f"(({a} {PYTHON[op]} {k}) if type({a} := {self.date_of(left)}) is DATE "
                    f"else {slow}({a}, {k}, {span}{ev}))")
        if slot.fmt is not None:
            return None
        test = self._string_test(op, constant, a, k, lambda n: self.scan_charged(n, span))
        if test is None:
            return None
        return f"(({test[0]}) if type({a} := {left.text}) is STR{test[1]} else {general})"

    def _against_value(self, op, left: Code, constant, span, a, k, slow, ev) -> str | None:
        kind = type(constant)
        if op in PYTHON and kind in _FAST:
            return (f"(({a} {PYTHON[op]} {k}) if type({a} := {left.text}) is "
                    f"{self.src.const(kind)} else {slow}({a}, {k}, {span}{ev}))")
        test = self._string_test(op, constant, a, k, lambda n: self.scan_charged(n, span))
        if test is None:
            return None
        return (f"(({test[0]}) if type({a} := {left.text}) is STR{test[1]} else "
                f"{slow}({a}, {k}, {span}{ev}))")

    @staticmethod
    def _string_test(op: str, constant, a: str, k: str,
                     scanned=None) -> tuple[str, str] | None:
        """(the direct test of a string `a` against the constant, a further condition for
        taking it), when there is one; `scanned(length)` is the text charging the scan of a
        text of that length (without it only a text too short to cost a step is tested)."""
        kind = type(constant)
        if kind is frozenset and constant and all(type(item) is str for item in constant):
            if op == "in":
                return f"{a} in {k}", ""
            if op == "not in":
                return f"{a} not in {k}", ""
        if kind is not str:
            return None
        if op in ("in", "not in"):  # scanning the constant costs what its length does
            steps = len(constant) // CHARS_PER_STEP
            if steps and scanned is None:
                return None
            return f"{a} {op} {k}", f" and {scanned(str(len(constant)))}" if steps else ""
        if op in PYTHON:
            return f"{a} {PYTHON[op]} {k}", ""
        if op == "starts_with":
            return f"{a}.startswith({k})", ""
        if op == "ends_with":
            return f"{a}.endswith({k})", ""
        if op == "contains":  # a text long enough to cost a step is charged its scan
            if scanned is None:
                return f"{k} in {a}", f" and len({a}) < {CHARS_PER_STEP}"
            return f"{k} in {a}", f" and (len({a}) < {CHARS_PER_STEP} or {scanned(f'len({a})')})"
        return None

    def _number_tests(self, op: str, constant: Decimal, a: str) -> tuple[str, str]:
        """(the test on an int `a`, the test on a finite float `a`) equal to comparing their
        exact decimal values (a float's through its shortest text) with the constant."""
        integral = constant == constant.to_integral_value() and abs(constant) < BIG
        ki = repr(int(constant)) if integral else self.src.const(constant)
        low, high = (_float_text(bound) for bound in float_bounds(constant))
        number = f"{a} {PYTHON[op]} {ki}"
        real = {"<": f"{a} < {low}", ">=": f"{a} >= {low}", "<=": f"{a} < {high}",
                ">": f"{a} >= {high}", "==": f"{low} <= {a} < {high}",
                "!=": f"not ({low} <= {a} < {high})"}[op]
        return number, real

    def between_expr(self, node: ir.Between, scope) -> Code:
        span = self.src.const(node.span)
        value = self.expr(node.value, scope)
        low, high = self.expr(node.low, scope), self.expr(node.high, scope)
        lo, hi = low.constant, high.constant
        if value.constant is NOT_CONSTANT and type(lo) is Decimal and type(hi) is Decimal \
                and lo.is_finite() and hi.is_finite():
            a = self.src.fresh("_a")
            klo, khi = self.src.const(lo), self.src.const(hi)
            if value.slot is None:
                return Code(f"(({klo} <= {a} <= {khi}) if type({a} := {value.text}) is DECIMAL "
                            f"else BETWEEN({a}, {klo}, {khi}, {span}))")
            slot = self.src.const(value.slot)
            n_low, _ = self._number_tests(">=", lo, a)
            n_high, _ = self._number_tests("<=", hi, a)
            f_low, f_high = float_bounds(lo)[0], float_bounds(hi)[1]
            whole = f" and {a}.is_integer()" if value.slot.integer else ""
            t = self.src.fresh("_t")
            return Code(f"(({n_low} and {n_high}) if ({t} := type({a} := {value.text})) is INT "
                        f"and {_IN_RANGE.format(a)} else ({_float_text(f_low)} <= {a} < "
                        f"{_float_text(f_high)}) if {t} is FLOAT and NINF < {a} < INF{whole} "
                        f"else BETWEEN(VAL({a}, {slot}, {self.ev}), {klo}, {khi}, {span}))")
        return Code(f"BETWEEN({self.converted(value)}, {self.converted(low)}, "
                    f"{self.converted(high)}, {span})")

    # --- functions of their own ----------------------------------------------------------

    def _params(self, scope, used: set | None = None) -> list[str]:
        """The parameters of a function made from text reading `used` (all of the scope's
        variables when None)."""
        found = ["ev"]
        for entry in scope.values():
            for var in (entry.var, entry.is_object):
                if var is not None and (used is None or var in used):
                    found.append(var)
        if self.traced:
            found.append("rec")
        return list(dict.fromkeys(found))

    def _function(self, node, scope) -> Code:
        """`node` as a function of its own (a deep expression split for Python's parser)."""
        saved, self.depth = self.depth, 0
        outer, self.used = self.used, set()
        try:
            with self.nested():
                code = self._expr(node, scope)
            used = self.used
        finally:
            self.depth = saved
            self.used = outer | self.used
        return self._as_function(code, scope, used)

    def _as_function(self, code: Code, scope, used: set) -> Code:
        params = self._params(scope, used)
        if self.hoisted:  # per-call values are locals of the function being made
            params += [held for held in self.hoisted if held in code.text]
        name = self.src.fresh("_e")
        self.src.functions.append([f"def {name}({', '.join(params)}):",
                                   f"    return {code.text}"])
        return Code(f"{name}({self.arguments(params)})", code.slot)

    def _per_as_of(self, node) -> Code:
        """An expression reading only the as-of date and constants (`today() - 1 year`),
        computed once per as-of date (`runtime.per_as_of`)."""
        clocked, self.clocked = self.clocked, frozenset()
        try:
            with self.nested():
                text = self.value(node, {})
        finally:
            self.clocked = clocked
        name = self.src.fresh("_d")
        self.src.functions.append([f"def {name}(ev):", f"    return {text}"])
        memo: dict = {}
        value = f"PER_AS_OF({name}, {self.ev}, {self.src.const(memo)})"
        if self.ev != "ev":  # the default call, its Evaluation not made: the memo read here
            f = self.src.fresh("_f")
            value = (f"({f}[1] if ev is None and type(as_of) is DATE and ({f} := "
                     f"{self.src.const(memo)}.get(as_of)) is not None and {f}[0] is "
                     f"{self.src.const(DEFAULT_LIMITS)} else {value})")
        if self.hoisted is None:
            return Code(value)
        held = self.src.fresh("_h")  # inside a loop: computed once per call, on first use
        self.hoisted.append(held)
        return Code(f"({held} if {held} is not UNSET else ({held} := {value}))")

    def _comprehension(self, node: ir.Comprehension, scope, fold=None) -> Code:
        """A comprehension as a function of its own, called with its source's value; `fold`
        (node, inner scope, item variable, span) -> body lines replaces the language's fold
        (the float filter's sum, `float_filter.py`), returning None if it cannot."""
        source = self.expr(node.source, scope)
        span = self.src.const(node.span)
        kind = self.src.const(node.kind)
        name, item = self.src.fresh("_q"), self.src.fresh("_v")
        inner = {**scope, node.var: Scope(item, source.slot.item() if source.slot else None)}
        traced, depth, used, hoisted = self.traced, self.depth, self.used, self.hoisted
        self.traced, self.depth, self.used, self.hoisted = False, 0, set(), []
        try:
            with self.nested():
                body = (fold or self._fold)(node, inner, item, span)
            inner_used, held = self.used, self.hoisted
        finally:
            self.traced, self.depth, self.used, self.hoisted = traced, depth, used, hoisted
        if body is None:
            return None
        self.used |= inner_used
        params = self._params(scope, inner_used)
        lines = [f"def {name}(_s, {', '.join(params)}):"]
        if fold is not None:  # only a list of raw items, else the exact path
            lines.append("    if type(_s) is not LIST: BAIL()")
        elif source.slot is not None:
            lines.append(f"    if type(_s) is not LIST: _s = RAW_ITEMS(_s, "
                         f"{self.src.const(source.slot)}, {kind}, {span}, ev)")
        else:
            lines.append(f"    if type(_s) is not LIST: _s = ITEMS(_s, {kind}, {span})")
        lines += ["    if _s is None: return None",
                  "    ev.remaining -= len(_s)",
                  f"    if ev.remaining < 0: ev.charge(0, {span})",
                  *(f"    {variable} = UNSET" for variable in held),
                  *("    " + line for line in body)]
        self.src.functions.append(lines)
        return Code(f"{name}({source.text}, {self.arguments(params)})")

    def scan_charged(self, length: str, span: str) -> str:
        """A test, true once it has charged the scan of a text of `length` characters (the
        cost model's steps, `costs.size_cost`): to the Evaluation, or while the default call
        has made none, to its count of the steps left (`_st`); limit_steps when over."""
        steps = f"{length} // {CHARS_PER_STEP}"
        if self.ev == "ev":
            return f"SCANNED(ev, {steps}, {span})"
        return (f"(((_st := _st - {steps}) >= 0 or STEPS_OVER({DEFAULT_LIMITS.max_steps}, "
                f"{span})) if ev is None else SCANNED(ev, {steps}, {span}))")

    def charge_lines(self, amount: str, span: str) -> list[str]:
        """Statements charging `amount` steps: to the Evaluation, or while the default call
        has made none, to its count of the steps left (`_st`)."""
        charged = [f"ev.remaining -= {amount}", f"if ev.remaining < 0: ev.charge(0, {span})"]
        if self.ev == "ev":
            return charged
        return ["if ev is None:", f"    _st -= {amount}",
                f"    if _st < 0: STEPS_OVER({DEFAULT_LIMITS.max_steps}, {span})",
                "else:", *("    " + line for line in charged)]

    def inline_comprehension(self, node: ir.Comprehension, scope) -> list[str]:
        """Statements computing comprehension `node` into a variable that `expr` then reads
        for it (a rule's condition that starts with one: no call of a function of its own);
        the same work, charges and errors as the function `_comprehension` makes."""
        source = self.expr(node.source, scope)
        span = self.src.const(node.span)
        kind = self.src.const(node.kind)
        target, item = self.src.fresh("_q"), self.src.fresh("_v")
        inner = {**scope, node.var: Scope(item, source.slot.item() if source.slot else None)}
        hoisted, self.hoisted = self.hoisted, []
        try:
            body = self._fold(node, inner, item, span)
            held = self.hoisted
        finally:
            self.hoisted = hoisted
        if source.slot is not None:
            items = (f"RAW_ITEMS(_s, {self.src.const(source.slot)}, {kind}, {span}, "
                     f"{self.ev})")
        else:
            items = f"ITEMS(_s, {kind}, {span})"
        *body, last = body
        if not last.startswith("return "):
            raise EngineError("a comprehension's fold must end in its value", code="invalid_ir")
        self.inlined[id(node)] = Code(target)
        return [f"_s = {source.text}", f"if type(_s) is not LIST: _s = {items}",
                f"if _s is None: {target} = None", "else:",
                *("    " + line for line in self.charge_lines("len(_s)", span)),
                *(f"    {variable} = UNSET" for variable in held),
                *("    " + line for line in body), f"    {target} = {last[len('return '):]}"]

    def _fold(self, node: ir.Comprehension, scope, item: str, span: str) -> list[str]:
        kind = node.kind
        test = None
        if node.where is not None:
            where = self.expr(node.where, scope)
            test = (where.text, self.converted(Code("_w", where.slot)))
        elif kind in ("any", "all"):
            item_code = Code(item, scope[node.var].slot)
            test = (item, self.converted(Code("_w", item_code.slot)))
        if kind == "count" and test is None:
            return ["return SMALL[len(_s)] if len(_s) < 1024 else DECIMAL(len(_s))"]
        lines = []
        if kind in ("any", "all"):
            decides, other = ("True", "False") if kind == "any" else ("False", "True")
            return [f"found = {other}", f"for {item} in _s:", f"    _w = {test[0]}",
                    f"    if _w is {decides}:", f"        found = {decides}", "        break",
                    "    if _w is None: found = None",
                    f"    elif _w is not {other}: TRUTH({test[1]}, {span})",
                    "return found"]
        select = []
        if test is not None:
            select = [f"    _w = {test[0]}", "    if _w is not True:",
                      f"        if _w is not False and _w is not None: TRUTH({test[1]}, {span})",
                      "        continue"]
        if kind == "count":
            return ["total = 0", f"for {item} in _s:", *select, "    total += 1",
                    "return SMALL[total] if total < 1024 else DECIMAL(total)"]
        projected = self.value(node.projection, scope) if node.projection is not None \
            else self.converted(Code(item, scope[node.var].slot))
        lines = [f"for {item} in _s:", *select, f"    _p = {projected}",
                 "    if _p is None: continue"]
        if kind == "sum":
            return ["total = ZERO", *lines, f"    total = ADD_ITEM(total, _p, {span}, {self.ev})",
                    "return total"]
        better = "LESS" if kind == "min" else "GREATER"
        return ["best = None", *lines,
                f"    if best is None or {better}(_p, best, {span}): best = _p",
                "return best"]


# an int the conversion takes as it is (the bounds written out: Python does not fold 10**100)
_IN_RANGE = f"-{BIG} < {{0}} < {BIG}"


def _float_text(number: float) -> str:
    """A float as Python text (digits only; the infinities by name)."""
    if number == math.inf:
        return "INF"
    if number == -math.inf:
        return "NINF"
    return repr(number)


def float_bounds(constant: Decimal) -> tuple[float, float]:
    """(the least float whose exact decimal value, through its shortest text, is >= the
    constant; the least whose is > it): a float f compares with the constant as
    `f < low`, `f >= low`, `f < high`, `f >= high`. Infinite bounds when no finite float is."""
    biggest = Decimal(repr(1.7976931348623157e308))  # comparisons need no decimal context

    def least(test) -> float:
        if constant > biggest:
            return math.inf
        if constant < biggest.copy_negate():
            candidate = -1.7976931348623157e308
        else:
            candidate = float(constant)
            for _ in range(3):
                lower = math.nextafter(candidate, -math.inf)
                if lower == -math.inf or not test(Decimal(repr(lower))):
                    break
                candidate = lower
        while candidate != math.inf and not test(Decimal(repr(candidate))):
            candidate = math.nextafter(candidate, math.inf)
        return candidate

    return least(lambda d: d >= constant), least(lambda d: d > constant)


# --- the whole ruleset --------------------------------------------------------------------------

class Generated(NamedTuple):
    """The functions made for a ruleset, and the text they were made from (for tests)."""

    run: object
    text: str


def static_nodes(expressions: list, consts: dict, bound: frozenset) -> tuple[list, list]:
    """(the largest sub-expressions that read only literals and consts, the largest that
    read only those and the as-of date): computed once, not per evaluation. `bound` are the
    names an expression may bind or read as inputs (never consts)."""
    folded, clocked = [], []
    memo: dict[int, str] = {}

    def kind(node) -> str:  # "static", "clock" or "dynamic"
        found = memo.get(id(node))
        if found is not None:
            return found
        if isinstance(node, ir.Literal):
            found = "static"
        elif isinstance(node, ir.Name):
            found = "static" if node.name in consts and node.name not in bound else "dynamic"
        elif isinstance(node, (ir.Comprehension, ir.ObjectExpr)):
            found = "dynamic"
        else:
            parts = {kind(child) for child in children(node)}
            if isinstance(node, ir.Call) and node.func in CLOCK:
                parts.add("clock")
            found = "dynamic" if "dynamic" in parts else "clock" if "clock" in parts \
                else "static"
        memo[id(node)] = found
        return found

    stack = list(expressions)
    while stack:
        node = stack.pop()
        found = kind(node)
        if found == "static":
            if not isinstance(node, (ir.Literal, ir.Name)):
                folded.append(node)
        elif found == "clock":
            if not (isinstance(node, ir.Call) and node.func in CLOCK):  # more than `today()`
                clocked.append(node)
        else:
            stack.extend(children(node))
    return folded, clocked


def fold(nodes: list, consts: dict, limits: Limits) -> dict:
    """id(node) -> value for each static node whose value can be computed now (one generated
    module for all of them); a node whose computation fails is left to evaluation time,
    where its error is raised with its span."""
    if not nodes:
        return {}
    src = Source()
    emitter = Emitter(src, consts, traced=False)
    names = []
    for node in nodes:
        name = src.fresh("_f")
        src.functions.append([f"def {name}(ev):", f"    return {emitter.value(node, {})}"])
        names.append(name)
    namespace = src.build("<constants>")
    values = {}
    for node, name in zip(nodes, names):
        try:
            value = namespace[name](Evaluation.start(None, limits, {}))
        except (EngineError, RecursionError, ArithmeticError, ValueError, TypeError):
            continue
        values[id(node)] = freeze(value)
    return values


def freeze(value: object) -> object:
    """A computed constant made immutable (lists become tuples): it is shared by every
    evaluation and may end up in a result the caller owns (thawed there)."""
    if type(value) is list:
        return tuple(freeze(item) for item in value)
    return value


def check_depth(expr, limits: Limits) -> None:
    if expression_depth(expr) > limits.max_expression_depth:
        raise LimitExceededError(
            f"expression nested deeper than {limits.max_expression_depth} levels",
            code="limit_expression_depth", span=getattr(expr, "span", None))


def item_expressions(item) -> list:
    """Every expression of a rule (condition, actions) or table (inputs, cells, values)."""
    if isinstance(item, ir.Rule):
        found = [item.condition]
        for action in item.actions:
            for attribute in ("value", "message", "tag"):
                expr = getattr(action, attribute, None)
                if expr is not None:
                    found.append(expr)
        return found
    found = list(item.inputs)
    for row in item.rows:
        found.extend(row.values)
        for cell in row.cells:
            found.extend(e for e in (getattr(cell, "operand", None), getattr(cell, "low", None),
                                     getattr(cell, "high", None)) if e is not None)
    return found


def bound_names(ruleset: ir.Ruleset) -> frozenset:
    """Input names and every comprehension variable of the ruleset (never a const's)."""
    names = {decl.name for decl in ruleset.inputs} | {"outputs"}
    stack = [e for item in ruleset.items for e in item_expressions(item)]
    while stack:
        node = stack.pop()
        if isinstance(node, ir.Comprehension):
            names.add(node.var)
        stack.extend(children(node))
    return frozenset(names)


def expression_function(expr, consts: dict, names: tuple = ()):
    """`expr` as a function `f(ev, *values)` of the runtime values of `names` (an embedded
    test's givens and expectation, a const), from the same emitter as the rules."""
    src = Source()
    emitter = Emitter(src, consts, traced=False)
    scope = {name: Scope(f"n{number}") for number, name in enumerate(names)}
    params = "".join(f", n{number}" for number in range(len(names)))
    src.functions.append([f"def f(ev{params}):", f"    return {emitter.value(expr, scope)}"])
    return src.build("<expression>")["f"]
