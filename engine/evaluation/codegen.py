"""The fast path: a ruleset's untraced rule loop generated as one Python function.

Common conditions, comprehensions, `hit first` tables and constant actions are inlined; anything
else calls the closure the expression compiler made. The text holds no user text: every literal,
name, span and closure is reached through a constants table. It is generated only after
`compiler.GENERATE_AFTER` untraced evaluations, so a ruleset run a few times never pays for it
(docs/performance.md, docs/rules-language.md "Evaluation").
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from insureops.engine import ir
from insureops.engine.evaluation.codetext import (
    COMPARE,
    HELPERS,
    SLOW,
    NotInline,
    Source,
    as_of_only,
    loop_names,
    mentions,
    walk,
)
from insureops.engine.ir import numbers


def generate(items: tuple, compiler, roots: list[str], finish: tuple):
    """A function `run(env, ev)` equivalent to `program.run_items` for `items`, returning the
    `Result`. `roots` are the input names, then "outputs" (a new dict the function puts in
    `env`); `finish` is (ruleset name, default decision). The run's score, decision and lists
    are locals; an action or table left to its closure gets a `RunState` synchronised with
    them around the call."""

    src = Source()
    local = {name: f"r{i}" for i, name in enumerate(roots)}
    name, default = (src.const(value) for value in finish)
    src.done = (f"return RESULT({name}, decision or {default}, score, "
                f"{local['outputs']}, reasons, SORTED(tags), fired)")
    src.emit(0, "def run(env, ev):")
    src.emit(1, f"ev.remaining -= {len(items)}")  # the evaluation is its own step budget
    src.emit(1, "if ev.remaining < 0: ev.charge(0, None)")
    src.emit(1, "score = ZERO; decision = None; rank = 0")
    src.emit(1, "fired = []; reasons = []; tags = set()")
    state_line = len(src.lines)
    for position, (root, variable) in enumerate(local.items()):
        if root == "outputs":
            src.emit(1, f"{variable} = env[{src.const(root)}] = {{}}")
            src.emit(1, f"g{position} = {variable}.get")
            continue
        src.emit(1, f"{variable} = env[{src.const(root)}]")
        # g0(field) reads input 0's field (an unconvertible one raises its error here)
        src.emit(1, f"g{position} = GETTER({variable})")
    src.emit(1, "_i = None")
    src.emit(1, "try:")
    for item in items:
        _item(src, item, compiler, local)
    src.emit(2, src.done)
    src.emit(1, "except ENGINE_ERROR as _e:")
    src.emit(2, "raise LOCATED(_e, _i) from None")
    if src.state:  # the RunState the closures are handed, sharing the lists
        src.lines.insert(state_line, "    st = STATE(); st.fired = fired; st.reasons = reasons; "
                                     "st.tags = tags")
    namespace = {**HELPERS, **src.names}
    text = "\n".join(src.lines)
    exec(compile(text, "<ruleset>", "exec"), namespace)  # noqa: S102
    run = namespace["run"]
    run.source = text  # for tests and debugging: the generated text
    return run


def _item(src: Source, item, compiler, local: dict) -> None:
    handle = src.const(item)
    src.emit(2, f"_i = {handle}")  # the item an error is reported in
    if item.kind == "table":
        if item.collect or item.unique:
            src.state = True  # the table only appends to `fired`, shared with `st`
            src.emit(2, f"{handle}.run(env, st)")
        else:
            _first_hit_table(src, item, compiler, local)
    else:
        _rule(src, item, handle, compiler, local)


def _first_hit_table(src: Source, item, compiler, local: dict) -> None:
    """A `hit first` table: every input read once, then the rows tested in order; constant
    comparisons are inlined, other cells call their compiled matcher."""
    columns = []
    for expr in item.node.inputs:
        operand = _operand(src, expr, compiler, local)
        for line in src.pending:
            src.emit(2, line)
        src.pending.clear()
        column = src.fresh("_x")
        src.emit(2, f"{column} = {operand}")
        columns.append(column)
    outputs = local["outputs"]
    src.emit(2, "while True:")
    for cells, values, _ in item.rows:
        tests = [_cell(src, columns[column], match, cell)
                 for column, match, _, cell in cells] or ["True"]
        src.emit(3, f"if {' and '.join(tests)}:")
        for name, value in zip(item.node.outputs, values):
            fixed = value.value if getattr(value, "is_constant", False) else _NOT_CONSTANT
            text = src.const(fixed) if fixed is not _NOT_CONSTANT and type(fixed) is not tuple \
                else f"{src.const(value)}(env)"
            src.emit(4, f"{outputs}[{src.const(name)}] = {text}")
        src.emit(4, f"fired.append({src.const(item.name)})")
        src.emit(4, "break")
    src.emit(3, "break")


def _cell(src: Source, column: str, match, cell) -> str:
    """One cell's test of its column's value, true only when the cell matches."""
    if isinstance(cell, ir.NullCell):
        return f"{column} is None"
    operand = getattr(cell, "operand", None)
    if isinstance(cell, ir.CompareCell) and isinstance(operand, ir.Literal):
        value, op, where = operand.value, cell.op, src.const(cell.span)
        if op in COMPARE and type(value) in (Decimal, str, date):
            k, kind, slow = src.const(value), src.const(type(value)), src.const(SLOW[op])
            return (f"(((_a {COMPARE[op]} {k}) if type(_a := {column}) is {kind} "
                    f"else {slow}(_a, {k}, {where})) is True)")
    return f"({src.const(match)}({column}, env) is True)"


def _rule(src: Source, item, handle: str, compiler, local: dict) -> None:
    node: ir.Rule = item.node
    src.emit(2, "while True:")
    if node.effective is not None:
        window = node.effective
        start, end = src.const(window.start), src.const(window.end)
        src.emit(3, f"if not (({start} <= _d <= {end}) if type(_d := ev.as_of) is DATE else "
                    f"IN_WINDOW({src.const(window)}, ev, {src.const(node.span)})): break")
    src.emit(3, "_n = False")
    span = src.const(node.condition.span)
    for condition in _conjuncts(node.condition):
        atom = _atom(src, condition, compiler, local)
        for line in src.pending:
            src.emit(3, line)
        src.pending.clear()
        src.emit(3, f"_c = {atom}")
        src.emit(3, "if _c is not True:")
        src.emit(4, "if _c is False: break")
        src.emit(4, f"_n = _c is None or NULLISH(_c, {span})")
    src.emit(3, "else:")
    src.emit(4, "if _n: break")
    src.emit(4, f"fired.append({src.const(node.name)})")
    stops = False
    for action, compiled in zip(node.actions, item.actions):
        stops = _action(src, action, compiled, compiler, local) or stops
    if stops:  # after the rule's other actions, as `program.run_items` does
        src.emit(4, src.done)
    src.emit(3, "break")


def _conjuncts(expr: object) -> list:
    if isinstance(expr, ir.Binary) and expr.op == "and":
        return _conjuncts(expr.left) + _conjuncts(expr.right)
    return [expr]


def _action(src: Source, action: object, compiled, compiler, local: dict) -> bool:
    """Emit one action; True for `stop`."""
    if isinstance(action, ir.StopAction):
        return True
    fixed = _constant(action, compiler)
    if isinstance(action, ir.ScoreAction) and type(fixed) is Decimal:
        amount = fixed if action.op == "+=" else numbers.negated(fixed)
        src.emit(4, f"try: score = ADD(score, {src.const(amount)})")
        src.emit(4, f"except ARITHMETIC as _x: raise ARITH({src.const(f'score {action.op}')}, "
                    f"{src.const(action.span)}, _x) from None")
    elif isinstance(action, ir.DecisionAction) and type(fixed) is str:
        rank = {"accept": 1, "refer": 2, "decline": 3}[action.decision]
        src.emit(4, f"reasons.append({src.const(fixed)})")
        src.emit(4, f"if rank < {rank}:")
        src.emit(5, f"rank = {rank}; decision = {src.const(action.decision)}")
    elif isinstance(action, ir.ReasonAction) and type(fixed) is str:
        src.emit(4, f"reasons.append({src.const(fixed)})")
    elif isinstance(action, ir.TagAction) and type(fixed) is str:
        src.emit(4, f"tags.add({src.const(fixed)})")
    elif (text := _interpolation(src, action, compiler, local)) is not None:
        if isinstance(action, ir.DecisionAction):
            rank = {"accept": 1, "refer": 2, "decline": 3}[action.decision]
            src.emit(4, f"reasons.append({text})")
            src.emit(4, f"if rank < {rank}:")
            src.emit(5, f"rank = {rank}; decision = {src.const(action.decision)}")
        else:
            src.emit(4, f"{'tags.add' if isinstance(action, ir.TagAction) else 'reasons.append'}"
                        f"({text})")
    else:
        src.state = True
        src.emit(4, "st.score = score; st.rank = rank; st.decision = decision")
        src.emit(4, f"{src.const(compiled)}(env, st)")
        src.emit(4, "score = st.score; rank = st.rank; decision = st.decision")
    return False


def _interpolation(src: Source, action: object, compiler, local: dict) -> str | None:
    """An interpolated message (`"{business.state} is out"`) built inline into `_m`, with the
    closures' string length limit; None for any other message."""
    if not isinstance(action, (ir.DecisionAction, ir.ReasonAction, ir.TagAction)):
        return None
    expr = action.tag if isinstance(action, ir.TagAction) else action.message
    if not isinstance(expr, ir.Interpolated):
        return None
    pieces = []
    for part in expr.parts:
        if isinstance(part, str):
            pieces.append(src.const(part))
            continue
        field = isinstance(part, ir.Member) and isinstance(part.obj, ir.Name) \
            and part.obj.name in local
        value = _operand(src, part, compiler, local) if field else \
            _closure(src, part, compiler, local)
        pieces.append(f"(_a if type(_a := {value}) is str else PLAIN(_a))")
    src.emit(4, f"_m = ''.join(({', '.join(pieces)},))")
    src.emit(4, f"if len(_m) > ev.limits.max_string_length: TOO_LONG({src.const(expr.span)})")
    return "_m"


def _constant(action: object, compiler) -> object:
    for attribute in ("value", "message", "tag"):
        expr = getattr(action, attribute, None)
        if expr is not None:
            value = _literal(expr, compiler)
            return None if value is _NOT_CONSTANT else value
    return None


def _atom(src: Source, expr: object, compiler, local: dict) -> str:
    """A Python expression computing one condition (inline when the shape allows it)."""
    span = getattr(expr, "span", None)
    if isinstance(expr, ir.IsNull):
        left = _operand(src, expr.value, compiler, local)
        return f"({left} is {'not ' if expr.negated else ''}None)"
    if isinstance(expr, ir.Between):
        low, high = _literal(expr.low, compiler, local), _literal(expr.high, compiler, local)
        if type(low) is Decimal and type(high) is Decimal:
            left = _operand(src, expr.value, compiler, local)
            lo, hi, where = src.const(low), src.const(high), src.const(span)
            return (f"(({lo} <= _a <= {hi}) if type(_a := {left}) is DECIMAL "
                    f"else None if _a is None else BETWEEN(_a, {lo}, {hi}, {where}))")
    if isinstance(expr, ir.Binary):
        inline = _binary(src, expr, compiler, local)
        if inline is not None:
            return inline
    if isinstance(expr, ir.Comprehension):
        return _operand(src, expr, compiler, local)
    if isinstance(expr, ir.Unary) and expr.op == "not" and not loop_names(local):
        inner = _atom(src, expr.operand, compiler, local)
        return (f"(False if (_u := {inner}) is True else True if _u is False "
                f"else NOT(_u, {src.const(span)}))")
    return _closure(src, expr, compiler, local)


def _binary(src: Source, expr: ir.Binary, compiler, local: dict) -> str | None:
    value = _literal(expr.right, compiler, local)
    where, op = src.const(expr.span), expr.op
    if value is _NOT_CONSTANT:
        return _hoisted_compare(src, expr, compiler, local) if op in COMPARE else None
    if op in COMPARE and type(value) in (Decimal, str, date):
        left = _operand(src, expr.left, compiler, local)
        k, kind, slow = src.const(value), src.const(type(value)), src.const(SLOW[op])
        return (f"((_a {COMPARE[op]} {k}) if type(_a := {left}) is {kind} "
                f"else None if _a is None else {slow}(_a, {k}, {where}))")
    if op in ("in", "not in") and isinstance(value, frozenset) and value and all(
            type(item) is str for item in value):
        left = _operand(src, expr.left, compiler, local)
        k = src.const(value)
        slow = "MEMBER_OF" if op == "in" else "NOT_MEMBER_OF"
        return (f"((_a {op} {k}) if type(_a := {left}) is str "
                f"else None if _a is None else {slow}(_a, {k}, {where}))")
    if op in ("starts_with", "ends_with") and type(value) is str:
        left = _operand(src, expr.left, compiler, local)
        k = src.const(value)
        method, slow = ("startswith", "STARTS") if op == "starts_with" else ("endswith", "ENDS")
        return (f"(_a.{method}({k}) if type(_a := {left}) is str "
                f"else None if _a is None else {slow}(_a, {k}, {where}))")
    return None


_NOT_CONSTANT = object()


def _literal(expr: object, compiler, local: dict | None = None) -> object:
    """The value of a constant expression (a literal, a const, a folded sub-tree), or
    _NOT_CONSTANT."""
    if local is not None and mentions(expr, loop_names(local)):
        return _NOT_CONSTANT
    fn = compiler.compile(expr)
    if getattr(fn, "is_constant", False):
        return fn.value
    return _NOT_CONSTANT


def _operand(src: Source, expr: object, compiler, local: dict) -> str:
    """`input.field` read inline, anything else through its closure."""
    if isinstance(expr, ir.Member) and isinstance(expr.obj, ir.Name) \
            and expr.obj.name in local:
        variable, field = local[expr.obj.name], src.const(expr.field)
        if variable.startswith("_v"):  # a loop variable: an item of the list
            return f"MEMBER({variable}, {field}, {src.const(expr.span)})"
        return f"g{variable[1:]}({field})"
    if isinstance(expr, ir.Comprehension) and not loop_names(local):
        inline = inline_comprehension(src, expr, compiler, local)
        if inline is not None:
            return inline
    return _closure(src, expr, compiler, local)


def _closure(src: Source, expr: object, compiler, local: dict) -> str:
    """A call of the closure computing `expr`; not inside a loop if it reads the loop
    variable (the closure would look for it in the env)."""
    if mentions(expr, loop_names(local)):
        raise NotInline
    return f"{src.const(compiler.compile(expr))}(env)"


# --- comprehensions inlined as loops ------------------------------------------------------------


def _hoisted_compare(src: Source, expr: ir.Binary, compiler, local: dict) -> str | None:
    """Inside a loop, `item.field OP expr` where expr does not depend on the item: the right
    side is computed once, when the first item needs it (so in the closures' order)."""
    if not loop_names(local) or mentions(expr.right, loop_names(local)):
        return None
    left = _operand(src, expr.left, compiler, local)
    held = src.fresh("_h")
    src.hoisted.append(held)
    if as_of_only(expr.right, compiler, local):  # the same for every case of an as-of date
        closure = src.const(compiler.compile(expr.right))
        value = f"PER_AS_OF({closure}, env, ev, {src.const({})})"
    else:
        value = _closure(src, expr.right, compiler, local)
    right = f"({held} if {held} is not UNSET else ({held} := {value}))"
    slow, where = src.const(SLOW[expr.op]), src.const(expr.span)
    return (f"((_a {COMPARE[expr.op]} _b) if type(_a := {left}) is type(_b := {right}) "
            f"and type(_a) in FAST else {slow}(_a, _b, {where}))")


def inline_comprehension(src: Source, expr: ir.Comprehension, compiler,
                         local: dict) -> str | None:
    """`count`/`any`/`all` over a list as a loop in the generated function (statements put in
    `src.pending`); returns the variable holding its value, or None to use the closure. The
    loop charges the same steps and raises the same errors as `comprehensions.py`; a source
    that is not a list (null, a set, a wrong type) takes the closure."""
    if expr.kind not in ("count", "any", "all"):
        return None
    if any(isinstance(node, ir.Comprehension) for node in walk(expr.source)):
        return None
    item, result = src.fresh("_v"), src.fresh("_q")
    inner = {**local, expr.var: item}
    src.hoisted = []
    try:
        test = item if expr.where is None else _atom(src, expr.where, compiler, inner)
    except NotInline:
        return None
    source = _operand(src, expr.source, compiler, local)
    span, closure = src.const(expr.span), src.const(compiler.compile(expr))
    lines = [f"_s = {source}",
             f"if _s is None: {result} = None",
             "elif type(_s) is list:",
             "    ev.remaining -= len(_s)",
             f"    if ev.remaining < 0: ev.charge(0, {span})",
             *(f"    {held} = UNSET" for held in src.hoisted)]
    if expr.kind == "count" and expr.where is None:
        lines.append(f"    {result} = DECIMAL(len(_s))")
    elif expr.kind == "count":
        lines += ["    _t = 0", f"    for {item} in _s:", f"        _w = {test}",
                  "        if _w is True: _t += 1",
                  f"        elif _w is not False: TRUTH(_w, {span})",
                  f"    {result} = DECIMAL(_t)"]
    else:  # `or` (any) or `and` (all) over the items, Kleene: a null test leaves null
        decides, other = ("True", "False") if expr.kind == "any" else ("False", "True")
        lines += [f"    {result} = {other}", f"    for {item} in _s:", f"        _w = {test}",
                  f"        if _w is {decides}: {result} = {decides}; break",
                  f"        if _w is None: {result} = None",
                  f"        elif _w is not {other}: TRUTH(_w, {span})"]
    lines.append(f"else: {result} = {closure}(env)")
    src.hoisted = []
    src.pending.extend(lines)
    return result


