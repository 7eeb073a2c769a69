"""What the generated code calls: the operators on runtime values with their costs charged,
raw input reads, result assembly and the explanation's records (`HELPERS`, by the names the
generated text uses). Kept apart from the generator so the generated text stays short: the
common cases are inline, everything else is one call here."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal

from insureops.engine.evaluation.explain import (
    cell_miss,
    condition_entries,
    item_entry,
    near_misses,
    span_dict,
)
from insureops.engine.evaluation.text_runs import HELPERS as TEXT_RUNS
from insureops.engine.inputs.slots import BIG, SMALL, shown, value_of
from insureops.engine.ir import costs, numbers
from insureops.engine.ir import operations as ops
from insureops.engine.ir.builtins import call_builtin
from insureops.engine.ir.context import Evaluation
from insureops.engine.ir.errors import EngineError, EvaluationError, LimitExceededError
from insureops.engine.ir.limits import steps_exceeded
from insureops.engine.ir.operators import IMPLEMENTATIONS
from insureops.engine.ir.regex import search
from insureops.engine.ir.result import NO_ITEMS, NO_OUTPUTS, Outputs, Result
from insureops.engine.ir.values import Duration, format_plain, kind_of


def raw_member(obj: object, field: str, slot, span, ev) -> object:
    """`obj.field` for a raw value that is not an object: null for null, else the value read
    whole (an invalid one raises its error) and the language's member rule."""
    if obj is None:
        return None
    return ops.member(value_of(obj, slot, ev), field, span)


def date_of(raw: object, slot, ev) -> object:
    """A `format: date` field read for a comparison: the date of its `YYYY-MM-DD` string
    (`values.iso_date`'s reading, inline; remembered in DATES), else its value (or its
    error)."""
    if type(raw) is str and len(raw) == 10 and raw[4] == "-" and raw[7] == "-":
        try:
            day = _from_iso(raw)
        except ValueError:
            pass
        else:
            if len(DATES) < MAX_DATES:
                DATES[raw] = day
            return day
    return value_of(raw, slot, ev)


_from_iso = date.fromisoformat
# Valid `YYYY-MM-DD` strings read as dates (immutable values, shared by every ruleset and
# thread): records repeat dates, and a dict look-up costs less than a parse.
DATES: dict[str, date] = {}
MAX_DATES = 8192


def text_made(made: str, span, ev) -> str:
    """An interpolated string, bounded (Limits.max_string_length) and charged."""
    if len(made) > ev.limits.max_string_length:
        raise LimitExceededError(f"an interpolated string grew beyond the limit of "
                                 f"{ev.limits.max_string_length:,} characters",
                                 code="limit_string_length", span=span)
    if len(made) >= costs.CHARS_PER_STEP:
        costs.built(ev, made, span)
    return made


def raw_length(raw: object, slot, span, ev) -> object:
    """`len` of a raw value: a list's items are not read (nor converted)."""
    if type(raw) is list:
        return SMALL[len(raw)] if len(raw) < 1024 else Decimal(len(raw))
    return call_builtin("len", [value_of(raw, slot, ev)], ev, span)


def raw_items(raw: object, slot, kind: str, span, ev) -> object:
    """The items a comprehension over a raw value visits: a list as it is, null as null, any
    other collection converted; a type error for anything else."""
    if type(raw) is list or raw is None:
        return raw
    return items(value_of(raw, slot, ev), kind, span)


def items(value: object, kind: str, span) -> object:
    """The items a comprehension visits (null stays null): a type error unless a collection."""
    if value is None or isinstance(value, ops.COLLECTIONS):
        return value
    raise EvaluationError(f"{kind}() needs a list or set, got {kind_of(value)}",
                          code="type_mismatch", span=span)


def nullish(value: object, span) -> bool:
    """After a condition that is not true and not false: true for null, else the error."""
    if value is not None:
        ops.truth(value, span)
    return True


def both(*values: object, span) -> object:
    """Kleene `and` of operands none of which is false: true, or null if one is null."""
    for value in values:
        ops.truth(value, span)
    return None if None in values else True


def either(*values: object, span) -> object:
    """Kleene `or` of operands none of which is true: false, or null if one is null."""
    for value in values:
        ops.truth(value, span)
    return None if None in values else False


def charged(op: str):
    """The implementation of operator `op` with its cost charged first: `(left, right, span,
    ev)`."""
    implementation, charge = IMPLEMENTATIONS[op], costs.binary

    def run(left, right, span, ev):
        charge(ev, op, left, right, span)
        return implementation(left, right, span)
    return run


def scanned(ev, steps: int, span) -> bool:
    """Charge `steps` for a text scan the generated code does itself (`costs.charge`'s
    arithmetic and error); true, so the code can test it."""
    ev.remaining -= steps
    if ev.remaining < 0:
        ev.charge(0, span)
    return True


#: operator -> (function, whether it takes the evaluation): operators whose cost grows with
#: their operands charge it; the others are the registry's implementations as they are
OPERATIONS = {op: (charged(op), True) if op in costs.SCANNED or op in costs.COMPARED
              else (IMPLEMENTATIONS[op], False) for op in IMPLEMENTATIONS}


def matches(subject: object, pattern: object, span, ev) -> object:
    return search(subject, pattern, span, ev)


def score_by(score: Decimal, amount: object, plus: bool, what: str, span) -> Decimal:
    """`score += amount` / `-=`: a null amount leaves the score as it is."""
    if type(amount) is Decimal:
        return numbers.add(score, amount, span, what) if plus \
            else numbers.subtract(score, amount, span, what)
    if amount is None:
        return score
    raise EvaluationError(f"{what} needs a number, got {kind_of(amount)}",
                          code="type_mismatch", span=span)


def text(value: object, span) -> str:
    """A reason, decision message or tag: it must be a string."""
    if type(value) is str:
        return value
    raise EvaluationError(f"expected a string, got {kind_of(value)}", code="type_mismatch",
                          span=span)


def interpolated(pieces: tuple, span, ev) -> str:
    """The text of an interpolated string from its pieces (strings, and values to print):
    the reference interpreter's form of the generated `''.join` and `text_made`."""
    return text_made("".join(piece if type(piece) is str else format_plain(piece)
                             for piece in pieces), span, ev)


def make_set(values: list, span) -> frozenset:
    """A set literal's value: lists (a constant list is a tuple) and objects are refused."""
    try:
        if any(type(value) is tuple for value in values):
            raise TypeError
        return frozenset(values)
    except TypeError:
        raise EvaluationError("a set can hold only numbers, strings, booleans, dates and null",
                              code="type_mismatch", span=span) from None


def thaw(value: object) -> object:
    """A fresh list for a frozen (shared, constant) one, so a result never holds a constant."""
    if type(value) is tuple:
        return [thaw(item) for item in value]
    return value


def add_item(total: Decimal, value: object, span, ev) -> object:
    """One value of `sum(...)` added to the total."""
    if type(value) is Decimal:
        return numbers.add(total, value, span)
    return ops.add(total, value, span, ev)


def result_size(value: object, left: int) -> int:
    """What `value` leaves of `left` (Limits.max_result_size): strings by their length, other
    values and list items one each; stops early once nothing is left."""
    stack = [value]
    while stack and left >= 0:
        item = stack.pop()
        kind = type(item)
        if kind is str:
            left -= len(item) or 1
        elif kind is list or kind is tuple or kind is frozenset:
            left -= 1
            stack.extend(item)
        elif kind is dict:
            left -= 1
            for key, entry in item.items():
                left -= len(key)
                stack.append(entry)
        else:
            left -= 1
    return left


_SCALARS = frozenset({Decimal, bool, type(None), date, datetime, Duration})


def result(name: str, decision, score, outputs, reasons, tags, fired, trace,
           limits) -> Result:
    """The immutable Result of a run, its size checked (`limits.max_result_size`)."""
    limit = limits.max_result_size
    if reasons or tags or outputs:
        left = limit - sum(map(len, reasons or ())) - sum(map(len, tags or ()))
        if outputs:
            for key, value in outputs.items():
                kind = type(value)
                if kind is str:
                    left -= len(key) + len(value)
                elif kind in _SCALARS:
                    left -= len(key) + 1
                else:
                    left = result_size(value, left - len(key))
        if left < 0:
            raise LimitExceededError(f"the result's reasons, tags and outputs are more than "
                                     f"{limit:,} characters (Limits.max_result_size)",
                                     code="limit_result_size")
    return Result(name, decision, score,
                  Outputs(outputs) if outputs else NO_OUTPUTS,
                  tuple(reasons) if reasons else NO_ITEMS,
                  tuple(sorted(tags)) if tags else NO_ITEMS,
                  tuple(fired) if fired else NO_ITEMS, trace)


def located(error: EngineError, kind: str, node) -> EngineError:
    """`error` with the rule or table it happened in named, and its span if it had none."""
    if not error.message.startswith("in "):
        error.message = f"in {kind} `{node.name}`: {error.message}"
        error.args = (error.message,)
    error.with_span(node.span)
    return error


class FloatBail(Exception):
    """The float filter (`float_filter.py`) cannot decide: take the exact path."""


def bail() -> None:
    raise FloatBail


def too_deep() -> None:
    raise LimitExceededError("evaluation nested too deeply", code="limit_depth")


def missing_input(name: str) -> None:
    raise EvaluationError(f"missing input `{name}`", code="missing_input")


def unknown_input(inputs, declared: tuple) -> None:
    """The error for inputs the ruleset does not declare (or not a mapping at all)."""
    if not hasattr(inputs, "keys"):
        raise EvaluationError("inputs must be an object of input name -> data",
                              code="invalid_input")
    for name in declared:
        if name not in inputs:
            missing_input(name)
    unknown = sorted(str(name) for name in inputs if name not in declared)
    raise EvaluationError(f"unknown input {', '.join(unknown)}; the ruleset declares "
                          f"{', '.join(declared) or 'none'}", code="unknown_input")


def per_as_of(compute, ev, memo: dict) -> object:
    """`compute(ev)` for an expression that reads only the as-of date (`today() - 1 year`),
    remembered per as-of date and limits; only immutable values are kept, and an error is
    raised every time, as it was."""
    as_of = ev.as_of
    if type(as_of) is date:
        found = memo.get(as_of)
        if found is not None and found[0] is ev.limits:
            return found[1]
    value = compute(ev)
    if type(as_of) is date and type(value) in _IMMUTABLE and len(memo) < 256:
        memo[as_of] = (ev.limits, value)
    return value


_IMMUTABLE = frozenset({Decimal, str, bool, type(None), date, datetime, Duration})
UNSET = object()  # a per-call value not computed yet


# --- explanations ------------------------------------------------------------------------------

def record(records: list, node, value: object) -> object:
    """Record a sub-expression's value for the trace (whole objects are left out)."""
    if type(value) is not dict:
        records.append((node, thaw(value)))
    return value


def record_raw(records: list, node, raw: object, slot) -> object:
    """Record a raw input value as the explanation shows it; return it raw."""
    if type(raw) is not dict:
        records.append((node, shown(raw, slot)))
    return raw


def explained_and(span, *operands):
    """`and` in a trace: once false, the remaining operands are still evaluated (errors
    ignored, the result unchanged) so the explanation names every failed condition."""
    unknown = False
    for position, operand in enumerate(operands):
        value = operand()
        if value is False:
            for rest in operands[position + 1:]:
                try:
                    rest()
                except EngineError:
                    continue
            return False
        if value is None:
            unknown = True
        elif value is not True:
            ops.truth(value, span)
    return None if unknown else True


def rule_entry(node, matched: bool, records: list, source) -> dict:
    entry = item_entry(node, "rule", matched=matched, skipped=None)
    entry["condition"] = condition_entries(records, source)
    entry["failed"] = [] if matched else near_misses(node.condition, records, source)
    return entry


def table_entry(node, matched: bool, records: list, texts: list, values: list, rows: list,
                outputs, collect: bool, source) -> dict:
    entry = item_entry(node, "table", matched=matched, skipped=None)
    entry["inputs"] = [{"expr": text, "value": value} for text, value in zip(texts, values)]
    entry["condition"] = condition_entries(records, source)
    entry["rows"] = rows
    entry["outputs"] = {name: (outputs or {}).get(name) for name in node.outputs} \
        if matched or collect else {}
    return entry


def row_entry(number: int, row, why) -> dict:
    return {"row": number, "span": span_dict(row.span), "matched": why is None, "why": why}


def skipped(node, kind: str, why: str) -> dict:
    return item_entry(node, kind, matched=False, skipped=why)


def not_unique(node, lines: list) -> None:
    raise EvaluationError(f"table `{node.name}` has hit policy unique but {len(lines)} rows "
                          f"match (lines {', '.join(lines)})", code="table_not_unique",
                          span=node.span)


HELPERS = {
    "DECIMAL": Decimal, "DATE": date, "STR": str, "INT": int, "FLOAT": float, "BOOL": bool,
    "DICT": dict, "LIST": list, "SMALL": SMALL, "BIG": BIG,
    "INF": float("inf"), "NINF": float("-inf"), "ZERO": ops.ZERO,
    "VAL": value_of, "RAW_MEMBER": raw_member, "DATE_OF": date_of,
    "DATES_GET": DATES.get, "TEXT_MADE": text_made,
    "RAW_LEN": raw_length, "RAW_ITEMS": raw_items, "ITEMS": items,
    "MEMBER": ops.member, "INDEX": ops.index, "TRUTH": ops.truth, "NOT": ops.logical_not,
    "NEG": ops.negate, "BETWEEN": ops.between, "ADD": ops.add, "ADD_ITEM": add_item,
    "LESS": ops.less, "GREATER": ops.greater, "MATCHES": matches, "CALL": call_builtin,
    "NULLISH": nullish, "BOTH": both, "EITHER": either,
    "EXACT_ADD": numbers.EXACT.add, "ARITHMETIC": numbers.ARITHMETIC_ERRORS,
    "ARITH": numbers.arithmetic_error, "SCORE": score_by, "TEXT": text,
    "PLAIN": format_plain, "MAKE_SET": make_set, "THAW": thaw,
    "RESULT": result, "MADE": Result, "OUTPUTS": Outputs, "NO_OUTPUTS": NO_OUTPUTS, "NO_ITEMS": NO_ITEMS,
    "LOCATED": located, "TOO_DEEP": too_deep, "EVALUATION": Evaluation, "ENGINE_ERROR": EngineError,
    "MISSING": missing_input, "UNKNOWN": unknown_input, "PER_AS_OF": per_as_of,
    "REC": record, "REC_RAW": record_raw, "AND_T": explained_and,
    "RULE_ENTRY": rule_entry, "TABLE_ENTRY": table_entry, "ROW_ENTRY": row_entry,
    "SKIPPED": skipped, "CELL_MISS": cell_miss, "NOT_UNIQUE": not_unique,
    "REC_SHOWN": shown, "UNSET": UNSET, "BAIL": bail, "STEPS_OVER": steps_exceeded,
    "SCANNED": scanned, **TEXT_RUNS,
    "FLOAT_BAIL": (FloatBail, ZeroDivisionError, OverflowError),
    "FAST_TYPES": frozenset({Decimal, str, date}),
}
