"""The cost model: what one operation charges to an evaluation's work budget (`max_steps`).

A rule or table costs 1 and a comprehension 1 per item (charged where they run). Operations
whose work grows with their operands charge it here, so one step of a rule cannot hide a scan
of a long list or text: a list or tuple scanned (`in`, `contains`, `==` of two lists, `sum`/
`min`/`max` of a list) its length, a string scanned or built (`in`/`contains` on text,
`+`, `lower`/`upper`/`trim`, interpolation) one step per `CHARS_PER_STEP` characters, and a
regular expression one step per `REGEX_CHARS_PER_STEP` characters of its subject. The
generated code and the reference interpreter call the same functions, so both stop at the
same point of the same evaluation.
"""

from __future__ import annotations

from insureops.engine.ir import Span
from insureops.engine.ir.limits import steps_exceeded

CHARS_PER_STEP = 64
REGEX_CHARS_PER_STEP = 8
_SEQUENCES = (list, tuple)


def charge(ev, steps: int, span: Span | None) -> None:
    """Take `steps` from the evaluation `ev`'s budget (limit_steps when it runs out)."""
    ev.remaining -= steps
    if ev.remaining < 0:
        steps_exceeded(ev.limits.max_steps, span)


def size_cost(value: object) -> int:
    """What scanning `value` costs: a list's or tuple's length, a string's characters per
    CHARS_PER_STEP; nothing for anything else (a set is a hash lookup)."""
    kind = type(value)
    if kind is list or kind is tuple:
        return len(value)
    if kind is str:
        return len(value) // CHARS_PER_STEP
    return 0


def scan(ev, collection: object, span: Span | None) -> None:
    """Charge the scan of `collection` (membership, `contains`)."""
    cost = size_cost(collection)
    if cost:
        charge(ev, cost, span)


def compare(ev, left: object, right: object, span: Span | None) -> None:
    """Charge `==`/`!=` of two lists (item by item); scalars cost nothing more."""
    if type(left) in _SEQUENCES and type(right) in _SEQUENCES:
        charge(ev, min(len(left), len(right)), span)


def built(ev, made: object, span: Span | None) -> None:
    """Charge a string or list an operation built (by its size)."""
    cost = size_cost(made)
    if cost:
        charge(ev, cost, span)


def regex(ev, subject: str, span: Span | None) -> None:
    """Charge a pattern search over `subject`."""
    cost = len(subject) // REGEX_CHARS_PER_STEP
    if cost:
        charge(ev, cost, span)


#: binary operators whose operands are scanned, and which operand: 0 left, 1 right
SCANNED = {"in": 1, "not in": 1, "contains": 0}
COMPARED = frozenset({"==", "!="})


def binary(ev, op: str, left: object, right: object, span: Span | None) -> None:
    """Charge what operator `op` costs on these operands, before it runs."""
    side = SCANNED.get(op)
    if side is not None:
        scan(ev, right if side else left, span)
    elif op in COMPARED:
        compare(ev, left, right, span)
