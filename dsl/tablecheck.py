"""Decision-table checks: row widths, cell types, provable overlaps in `unique` tables, and gaps.

Overlaps and gaps are decided on cells that are `-`, `is null`, or comparisons, `in` sets and
`between` ranges of literal numbers, strings and booleans (consts included). A column with any
other cell (`starts_with`, a computed operand) is left out of the overlap proof, and its table
out of gap analysis. Gap analysis ignores null input values: a null rarely needs its own row,
and `is null` rows are still honoured for overlaps.
"""

from __future__ import annotations

from decimal import Decimal
from itertools import product

from insureops.dsl import domains as dm
from insureops.dsl import types as t
from insureops.dsl.diagnostics import Diagnostic, error, warning
from insureops.dsl.expressions import ExpressionChecker, relation
from insureops.dsl.overlaps import candidate_pairs
from insureops.engine import ir
from insureops.engine.ir.numbers import WIDE
from insureops.engine.ir.printer import format_expr

MAX_OVERLAP_REPORTS = 10
MAX_GAP_REPORTS = 3
MAX_REGIONS = 4096
MAX_PAIR_CHECKS = 50_000  # row pairs compared in full by the overlap check, per table
MAX_GAP_WORK = 2_000_000  # region-and-row intersections the gap analysis may do, per table


def check_table(table: ir.Table, checker: ExpressionChecker, consts: dict[str, object],
                diagnostics: list[Diagnostic]) -> None:
    """Report E300 row widths, cell type errors, E301 unique overlaps and W300 gaps."""
    column_types = [checker.check(expr) for expr in table.inputs]
    repeated = sorted({name for name in table.outputs if table.outputs.count(name) > 1})
    if repeated:
        diagnostics.append(error(
            "E106", table.name_span or table.span,
            f"table `{table.name}` has the output column `{repeated[0]}` twice",
            "give each `=> NAME` column its own name"))
    width = len(table.inputs) + len(table.outputs)
    rows: list[tuple[int, ir.TableRow]] = []
    for number, row in enumerate(table.rows, start=1):
        found = len(row.cells) + len(row.values)
        if found != width:
            diagnostics.append(error(
                "E300", row.span, f"row {number} of table `{table.name}` has {_cells(found)}, "
                f"the header has {width}", f"{len(table.inputs)} input and "
                f"{len(table.outputs)} output columns; use `-` for an input that does not matter"))
            continue
        for cell, column_type in zip(row.cells, column_types):
            _check_cell(cell, column_type, checker)
        for value in row.values:
            checker.check(value)
        rows.append((number, row))
    cells = [[cell_domain(cell, consts) for cell in row.cells] for _, row in rows]
    if table.hit == "unique":
        _overlaps(table, rows, cells, diagnostics)
    _gaps(table, column_types, cells, diagnostics)


def _cells(count: int) -> str:
    return "1 cell" if count == 1 else f"{count} cells"


def _check_cell(cell: ir.Cell, column: t.Type, checker: ExpressionChecker) -> None:
    if isinstance(cell, ir.CompareCell):
        operand = checker.check(cell.operand)
        if relation(cell.op, column, operand) is None:
            checker.report("E200", cell.span, f"type mismatch: this column is {column.a}, "
                           f"`{cell.op}` cannot compare it with {operand.a}")
    elif isinstance(cell, ir.BetweenCell):
        for bound in (cell.low, cell.high):
            found = checker.check(bound)
            if relation("<=", column, found) is None:
                checker.report("E200", cell.span, f"type mismatch: this column is {column.a}, "
                               f"`between` cannot compare it with {found.a}")


def cell_domain(cell: ir.Cell, consts: dict[str, object]) -> dm.Domain | None:
    """The values a cell matches, or None when that is not decidable statically."""
    if isinstance(cell, ir.AnyCell):
        return dm.ANYTHING
    if isinstance(cell, ir.NullCell):
        return dm.NULL_ONLY
    if isinstance(cell, ir.BetweenCell):
        low, high = dm.literal_value(cell.low, consts), dm.literal_value(cell.high, consts)
        return dm.between(low, high)
    value = dm.literal_value(cell.operand, consts)
    if not dm.is_known(value):
        return None
    return dm.compare(cell.op, value)


def _overlaps(table: ir.Table, rows: list[tuple[int, ir.TableRow]],
              cells: list[list[dm.Domain | None]], diagnostics: list[Diagnostic]) -> None:
    reported = compared = 0
    for i, j in candidate_pairs(cells, MAX_PAIR_CHECKS):
        if reported == MAX_OVERLAP_REPORTS:
            return
        compared += 1
        if compared > MAX_PAIR_CHECKS:
            diagnostics.append(warning(
                "W301", table.name_span or table.span,
                f"the overlap check of unique table `{table.name}` stopped after "
                f"{MAX_PAIR_CHECKS:,} pairs of rows that share values; it may hide overlaps",
                "split the table, or make a column's cells exclusive values or intervals"))
            return
        if _provably_overlap(cells[i], cells[j]):
            reported += 1
            diagnostics.append(error(
                "E301", rows[j][1].span, f"rows {rows[i][0]} and {rows[j][0]} of unique "
                f"table `{table.name}` can both match the same input",
                "make the rows exclusive, or use `hit first` to take the first match"))


def _provably_overlap(a: list[dm.Domain | None], b: list[dm.Domain | None]) -> bool:
    for left, right in zip(a, b):
        if left is None or right is None:
            return False
        common = left.intersect(right)
        if common is None or common.is_empty():
            return False
    return True


def _gaps(table: ir.Table, column_types: list[t.Type], cells: list[list[dm.Domain | None]],
          diagnostics: list[Diagnostic]) -> None:
    if not cells or not table.inputs:
        return
    if any(all(d is not None and d.universal for d in row) for row in cells):
        return  # a catch-all row
    if any(d is None for row in cells for d in row):
        return
    columns = []
    for index, column_type in enumerate(column_types):
        regions = _regions([row[index] for row in cells], column_type)  # type: ignore[misc]
        if regions is None:
            return
        columns.append(regions)
    total = 1
    for regions in columns:
        total *= len(regions)
    if total > MAX_REGIONS or total * len(cells) * len(columns) > MAX_GAP_WORK:
        return  # too large to decide cheaply: no gap warning rather than an unbounded check
    uncovered = [combo for combo in product(*(range(len(r)) for r in columns))
                 if not any(_covers(row, columns, combo) for row in cells)]
    gaps = _merge(uncovered, columns)
    subjects = [format_expr(expr, 5) for expr in table.inputs]
    for combo in gaps[:MAX_GAP_REPORTS]:
        described = [columns[c][lo:hi + 1] for c, (lo, hi) in enumerate(combo)]
        text = " and ".join(part for c, regions in enumerate(described)
                            if (part := _describe(subjects[c], regions, columns[c])))
        more = len(gaps) - MAX_GAP_REPORTS
        diagnostics.append(warning(
            "W300", table.name_span or table.span,
            f"no row of table `{table.name}` covers {text or 'some inputs'}",
            "add a row for it or a catch-all row of `-`"
            + (f" ({more} more gaps)" if more > 0 and combo is gaps[MAX_GAP_REPORTS - 1] else "")))


def _covers(row: list[dm.Domain], columns: list[list[dm.Domain]], combo: tuple[int, ...]) -> bool:
    for cell, regions, index in zip(row, columns, combo):
        common = cell.intersect(regions[index])
        if common is None or common.is_empty():
            return False
    return True


def _regions(column: list[dm.Domain], column_type: t.Type) -> list[dm.Domain] | None:
    numeric = {d.numeric for d in column if not d.universal and not d.valueless}
    if len(numeric) > 1:
        return None
    if numeric == {True}:
        return _number_regions(column, column_type)
    mentioned = frozenset().union(*(d.values for d in column))
    if column_type.kind == "boolean" and mentioned <= {True, False}:
        return [dm.Domain(values=frozenset([value])) for value in (True, False)]
    regions = [dm.Domain(values=frozenset([value])) for value in sorted(mentioned, key=repr)]
    regions.append(dm.Domain(values=mentioned, cofinite=True))
    return regions


def _number_regions(column: list[dm.Domain], column_type: t.Type) -> list[dm.Domain]:
    points = {bound for d in column for piece in d.intervals or ()
              for bound in (piece.low, piece.high) if bound is not None}
    minimum = column_type.minimum
    if minimum is not None:
        points.add(minimum)
    ordered = sorted(points)
    pieces = [dm.Interval(None, False, ordered[0] if ordered else None, False)]
    for index, point in enumerate(ordered):
        pieces.append(dm.Interval(point, True, point, True))
        following = ordered[index + 1] if index + 1 < len(ordered) else None
        pieces.append(dm.Interval(point, False, following, False))
    if not ordered:
        pieces = [dm.Interval(None, False, None, False)]
    kept = [p for p in pieces if _possible(p, column_type)]
    return [dm.Domain(intervals=(piece,)) for piece in kept]


def _possible(piece: dm.Interval, column_type: t.Type) -> bool:
    minimum = column_type.minimum
    if minimum is not None and piece.high is not None and (
            piece.high < minimum or (piece.high == minimum and not piece.high_closed)):
        return False
    if not column_type.integer:
        return True
    if piece.low is not None and piece.low == piece.high:
        return piece.low == piece.low.to_integral_value(context=WIDE)
    if piece.low is None or piece.high is None:
        return True
    return WIDE.add(_floor(piece.low), 1) < piece.high


def _floor(value: Decimal) -> Decimal:
    return value.to_integral_value(rounding="ROUND_FLOOR", context=WIDE)


def _merge(uncovered: list[tuple[int, ...]], columns: list[list[dm.Domain]]
           ) -> list[tuple[tuple[int, int], ...]]:
    """Adjacent uncovered regions of the last column merged: `>= 10 and < 20` rather than
    `== 10`, `> 10 and < 20` separately."""
    merged: list[tuple[tuple[int, int], ...]] = []
    last = len(columns) - 1
    for combo in uncovered:
        if merged:
            previous = merged[-1]
            same_rest = all(previous[c] == (combo[c], combo[c]) for c in range(last))
            if same_rest and previous[last][1] + 1 == combo[last] and columns[last][0].numeric:
                merged[-1] = (*previous[:last], (previous[last][0], combo[last]))
                continue
        merged.append(tuple((index, index) for index in combo))
    return merged


def _describe(subject: str, regions: list[dm.Domain], column: list[dm.Domain]) -> str:
    if len(regions) == len(column):
        return ""  # every value of this column: it constrains nothing
    first = regions[0]
    if first.numeric:
        low, high = first.intervals[0], regions[-1].intervals[0]  # type: ignore[index]
        return dm.Interval(low.low, low.low_closed, high.high, high.high_closed).describe(subject)
    if first.cofinite:
        listed = ", ".join(dm.show(v) for v in sorted(first.values, key=repr))
        return f"{subject} not in {{{listed}}}" if listed else ""
    return f"{subject} == {dm.show(next(iter(first.values)))}"
