"""Which rows of a `unique` table may overlap, found without comparing every pair of rows.

Rows can only overlap where every column's cells share a value. One column whose cells are all
finite value sets or single number intervals splits the rows: by value into buckets, or by
sorting the intervals and sweeping them. Only rows that meet in that column are compared in
full, so a table of thousands of exclusive rows is checked in n log n, not n squared; the full
comparisons are capped per table, and a table past the cap is reported as not fully checked.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator
from decimal import Decimal
from itertools import combinations, islice

from insureops.dsl import domains as dm

Row = list[dm.Domain | None]
NULL = object()  # the bucket of cells that accept null


def candidate_pairs(cells: list[Row], limit: int) -> Iterator[tuple[int, int]]:
    """Pairs (i, j), i < j, of rows that meet in the splitting column (every pair when no
    column splits them), in increasing order, at most `limit` + 1 of them (one more says the
    limit was reached). Rows with an undecidable cell never overlap provably: left out."""
    rows = [i for i, row in enumerate(cells) if all(d is not None for d in row)]
    column = _splitting_column([cells[i] for i in rows])
    if column is None:
        yield from islice(combinations(rows, 2), limit + 1)
        return
    domains = [cells[i][column] for i in rows]
    meet = _sweep if domains and domains[0].numeric else _buckets
    partners: dict[int, set[int]] = {i: set() for i in rows}
    for found, (i, j) in enumerate(meet(rows, domains)):
        if found > limit:
            break
        partners[min(i, j)].add(max(i, j))
    for i in rows:
        for j in sorted(partners[i]):
            yield i, j


def _splitting_column(cells: list[Row]) -> int | None:
    """A column every cell of which is a finite value set or one number interval (null
    allowed), with the most distinct keys; None when there is none."""
    best, best_keys = None, 1
    for column in range(len(cells[0]) if cells else 0):
        domains = [row[column] for row in cells]
        if all(_single_interval(d) for d in domains):
            keys = len({d.intervals[0] for d in domains})
        elif all(d is not None and not d.numeric and not d.cofinite for d in domains):
            keys = len({value for d in domains for value in d.values})
        else:
            continue
        if keys > best_keys:
            best, best_keys = column, keys
    return best


def _single_interval(domain: dm.Domain | None) -> bool:
    return domain is not None and domain.numeric and len(domain.intervals or ()) == 1


def _buckets(rows: list[int], domains: list[dm.Domain]) -> Iterator[tuple[int, int]]:
    """Pairs of rows whose value sets share a value (or both accept null), row by row in
    order: each row meets the later rows of its values' buckets."""
    buckets: dict[object, list[int]] = {}
    keys = []
    for row, domain in zip(rows, domains):
        mine = sorted(domain.values, key=repr) + ([NULL] if domain.null else [])
        keys.append(mine)
        for key in mine:
            buckets.setdefault(key, []).append(row)
    for row, mine in zip(rows, keys):
        for key in mine:
            members = buckets[key]
            for other in members[bisect_right(members, row):]:
                yield row, other


def _sweep(rows: list[int], domains: list[dm.Domain]) -> Iterator[tuple[int, int]]:
    """Pairs of rows whose intervals intersect (or that both accept null), by sorting on the
    low bound and keeping the intervals still open."""
    nulls = [row for row, domain in zip(rows, domains) if domain.null]
    yield from combinations(nulls, 2)
    low = Decimal("-Infinity")
    order = sorted(zip(rows, (d.intervals[0] for d in domains)),
                   key=lambda item: (low if item[1].low is None else item[1].low,
                                     not item[1].low_closed))
    open_: list[tuple[int, dm.Interval]] = []
    for row, interval in order:
        open_ = [(other, seen) for other, seen in open_ if not _ends_before(seen, interval)]
        for other, seen in open_:
            if seen.intersect(interval) is not None:
                yield other, row
        open_.append((row, interval))


def _ends_before(seen: dm.Interval, interval: dm.Interval) -> bool:
    """True when `seen` ends before `interval` starts (so before every later one too)."""
    if seen.high is None or interval.low is None:
        return False
    return seen.high < interval.low or (seen.high == interval.low
                                        and not (seen.high_closed and interval.low_closed))
