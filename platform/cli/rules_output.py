"""Text output of the rules commands: test reports, simulation summaries, impact diffs, progress.

Plain aligned text (stable, so tests snapshot it); rich is imported only to draw a progress bar
when stderr is a terminal.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator, Sequence
from decimal import Decimal
from typing import IO, Any

from insureops.engine.evaluation.simulation import ImpactDiff, SimulationSummary


def format_number(value: Decimal | int | None, places: int | None = None) -> str:
    """A score for people: `-` for none, exact otherwise, or rounded to `places` digits."""
    if value is None:
        return "-"
    if places is not None and isinstance(value, Decimal):
        value = value.quantize(Decimal(1).scaleb(-places))
    return str(value)


def _share(count: int, total: int) -> str:
    return f"{100 * count / total:5.1f}%" if total else "    -"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]], align: str = "") -> list[str]:
    """Aligned, indented columns; `align` has an `l` or `r` per column (default: names flush
    left in the first column, numbers flush right in the others)."""
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    align = align or "l" + "r" * (len(header) - 1)

    def line(cells: Sequence[str]) -> str:
        padded = [cell.ljust(width) if side == "l" else cell.rjust(width)
                  for cell, width, side in zip(cells, widths, align, strict=True)]
        return ("  " + "  ".join(padded)).rstrip()

    return [line(header), *(line(row) for row in rows)]


def render_summary(summary: SimulationSummary, *, ruleset: str, elapsed: float,
                   expectations: Any = None) -> str:
    """The summary table printed at the end of `rules simulate`; `expectations` (an
    ExpectationTally) adds the count of cases whose `expect` was met, when any had one."""
    lines = [f"Simulation of {ruleset}",
             (f"  cases {summary.cases}, evaluated {summary.evaluated}, "
              f"errors {summary.error_count}"), "", "Decisions"]
    decision_rows = [[label, str(n), _share(n, summary.evaluated)]
                     for label, n in summary.decisions.items()]
    lines += _table(["decision", "cases", "share"], decision_rows) if decision_rows else ["  -"]
    scores = summary.scores
    approximate = "" if scores.exact else " (percentiles binned)"
    lines += ["", f"Score{approximate}"]
    lines += _table(["min", "p50", "p90", "max", "mean"], align="rrrrr", rows=[[
        format_number(scores.minimum), format_number(scores.percentiles.get(50)),
        format_number(scores.percentiles.get(90)), format_number(scores.maximum),
        format_number(scores.mean, 2)]])
    lines += ["", "Fired"]
    fired_rows = [[name, summary.kinds.get(name, "rule"), str(n), _share(n, summary.evaluated)]
                  for name, n in summary.fired.items()]
    lines += _table(["name", "kind", "cases", "share"], fired_rows, "llrr") if fired_rows else ["  -"]
    if summary.errors:
        lines += ["", "Errors"]
        lines += _table(["code", "cases"], [[code, str(n)] for code, n in summary.errors.items()])
    if expectations is not None and expectations.checked:
        lines += ["", "Expectations",
                  (f"  checked {expectations.checked}, met {expectations.met}, "
                   f"not met {expectations.not_met}")]
    lines += ["", f"{summary.cases} cases in {elapsed:.2f}s ({_rate(summary.cases, elapsed)})"]
    return "\n".join(lines) + "\n"


def _rate(cases: int, elapsed: float) -> str:
    return f"{cases / elapsed:,.0f} cases/s" if elapsed > 0 else "- cases/s"


def render_diff(diff: ImpactDiff, *, old: str, new: str, elapsed: float) -> str:
    """The human-readable impact report of `rules diff`."""
    changed = diff.decisions_changed
    lines = [f"Impact of {old} -> {new}",
             (f"  cases {diff.cases}, decisions changed {changed} "
              f"({_share(changed, diff.cases).strip()})"),
             "", "Decisions (old -> new)"]
    rows = [[f"{a} -> {b}", str(n), "changed" if a != b else "",
             ", ".join(str(i) for i in diff.examples.get((a, b), []))]
            for (a, b), n in diff.transitions.items()]
    lines += _table(["transition", "cases", "", "examples"], rows, "lrll") if rows else ["  -"]
    shift = diff.scores
    lines += ["", "Score"]
    lines += _table(["compared", "changed", "up", "down", "mean delta", "min delta", "max delta"],
                    align="rrrrrrr", rows=[[
        str(shift.compared), str(shift.changed), str(shift.increased), str(shift.decreased),
        format_number(shift.mean_delta, 2), format_number(shift.min_delta),
        format_number(shift.max_delta)]])
    moved = [r for r in diff.rules if r.delta]
    lines += ["", "Rules that fire more or less"]
    lines += _table(["name", "kind", "old", "new", "delta"],
                    [[r.name, r.kind, str(r.old), str(r.new), f"{r.delta:+d}"] for r in moved],
                    "llrrr") if moved else ["  none"]
    steady = len(diff.rules) - len(moved)
    if steady:
        lines.append(f"  ({steady} unchanged)")
    for title, errors in (("old", diff.old_errors), ("new", diff.new_errors)):
        if errors:
            lines += ["", f"Errors ({title})"]
            lines += _table(["code", "cases"], [[c, str(n)] for c, n in errors.items()])
    lines += ["", f"{diff.cases} cases in {elapsed:.2f}s ({_rate(diff.cases, elapsed)})"]
    return "\n".join(lines) + "\n"


def render_test_counts(passed: int, failed: int, errors: int, elapsed: float) -> str:
    """pytest's closing line: `3 passed, 1 failed in 0.02s`."""
    parts = [f"{passed} passed"] if passed or not (failed or errors) else []
    if failed:
        parts.append(f"{failed} failed")
    if errors:
        parts.append(f"{errors} error{'s' if errors != 1 else ''}")
    return f"{', '.join(parts)} in {elapsed:.2f}s"


@contextlib.contextmanager
def progress_bar(stream: IO[bytes], stderr: IO[str], label: str) -> Iterator[Callable[[int], None] | None]:
    """A bytes-read progress callback drawing a rich bar when `stderr` is a terminal, else None."""
    if not _is_terminal(stderr):
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn

    total = os.fstat(stream.fileno()).st_size
    columns = (TextColumn("{task.description}"), BarColumn(), DownloadColumn(),
               TimeRemainingColumn())
    with Progress(*columns, console=Console(file=stderr), transient=True) as progress:
        task = progress.add_task(label, total=total)
        yield lambda done: progress.update(task, completed=done)


@contextlib.contextmanager
def records_bar(stderr: IO[str], label: str,
                total: int) -> Iterator[Callable[[int], None] | None]:
    """A records-done progress callback (rate and time left) drawing a rich bar when
    `stderr` is a terminal, else None."""
    if not _is_terminal(stderr):
        yield None
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TaskProgressColumn,
        TextColumn,
        TimeRemainingColumn,
    )

    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TaskProgressColumn(), TimeRemainingColumn())
    with Progress(*columns, console=Console(file=stderr), transient=True) as progress:
        task = progress.add_task(label, total=total)
        yield lambda done: progress.update(task, completed=done)


def _is_terminal(stream: Any) -> bool:
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())
