"""`insureops rules`: check, test, simulate and diff rulesets offline.

Every command exits 0 on success and 1 on failure (an unreadable file, an invalid ruleset, a
failing test, a case that could not be evaluated); diagnostics go to stderr. The language and
engine are imported inside the commands, so `insureops rules --help` stays fast.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Iterator
from datetime import date, datetime
from typing import IO, Any

import click

AS_OF_HELP = "Evaluation date (YYYY-MM-DD) for today() and effective windows; default: today."


def _max_steps_option(func: Any) -> Any:
    return click.option(
        "--max-steps", "max_steps", type=click.IntRange(min=1), default=None,
        help="The work budget of one case (the engine's Limits.max_steps, default 1,000,000): "
             "raise it for rulesets that scan long lists offline.")(func)


def _limits(max_steps: int | None):
    """The engine's limits for a run: its defaults, with --max-steps when given."""
    if max_steps is None:
        return None
    from insureops.engine.ir.limits import Limits
    return Limits(max_steps=max_steps)


def _as_of_option(func: Any) -> Any:
    return click.option("--as-of", "as_of", type=click.DateTime(formats=["%Y-%m-%d"]),
                        default=None, metavar="DATE", help=AS_OF_HELP)(func)


def _as_of_date(value: datetime | None) -> date:
    # the CLI is the platform shell: the one place allowed to read the local clock
    return value.date() if value is not None else date.today()


def _fail(message: str) -> None:
    click.echo(f"error: {message}", err=True)


def _read_source(path: str) -> str | None:
    """The text of a .rules file, or None after reporting why it cannot be read."""
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except (OSError, UnicodeDecodeError) as exc:
        _fail(f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}")
        return None


def _compile_or_exit(path: str) -> Any:
    """The compiled ruleset in `path`; exits 1 with the rendered diagnostics when invalid."""
    from insureops.dsl.errors import RulesetInvalidError
    from insureops.engine.ir.errors import EngineError
    from insureops.platform.cli.ruleset_cache import compile_rules_file

    source = _read_source(path)
    if source is None:
        sys.exit(1)
    try:
        return compile_rules_file(path, source)
    except RulesetInvalidError as exc:
        click.echo(str(exc).rstrip("\n"), err=True)
        sys.exit(1)
    except EngineError as exc:  # the checker lets nothing through; if it did, no traceback
        where = f"{path}:{exc.span.line}:{exc.span.column}" if exc.span else path
        _fail(f"{where}: cannot compile: {exc.message} [{exc.code}]")
        sys.exit(1)


@contextlib.contextmanager
def _open_cases(path: str) -> Iterator[IO[bytes]]:
    """The cases file, read in bytes; a line over the reader's bound ends the command (1)."""
    from insureops.platform.batch.cases import CaseLineTooLongError

    try:
        stream = open(path, "rb", buffering=1 << 20)  # noqa: SIM115 - closed below
    except OSError as exc:
        _fail(f"cannot read {path}: {exc.strerror or exc}")
        sys.exit(1)
    try:
        with stream:
            yield stream
    except CaseLineTooLongError as exc:
        _fail(f"{path}:{exc.line}: {exc}")
        sys.exit(1)


@contextlib.contextmanager
def _open_out(path: str | None) -> Iterator[IO[str]]:
    if path is None:
        try:
            yield sys.stdout
            sys.stdout.flush()
        except BrokenPipeError:  # `... | head`: the reader is gone, so stop quietly
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            sys.exit(1)
        return
    try:
        sink = open(path, "w", encoding="utf-8", newline="\n", buffering=1 << 20)  # noqa: SIM115
    except OSError as exc:
        _fail(f"cannot write {path}: {exc.strerror or exc}")
        sys.exit(1)
    with sink:
        yield sink


@click.group()
def rules() -> None:
    """Check, test, simulate and diff rulesets (.rules files)."""


@rules.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
def check(files: tuple[str, ...]) -> None:
    """Parse and type-check FILES; print every error and warning."""
    from insureops.dsl.api import check_source
    from insureops.dsl.diagnostics import render_diagnostics

    errors = warnings = 0
    for path in files:
        source = _read_source(path)
        if source is None:
            errors += 1
            continue
        report = check_source(source, filename=path)
        if report.diagnostics:
            click.echo(render_diagnostics(report.diagnostics, source, path).rstrip("\n"), err=True)
        errors += len(report.errors)
        warnings += len(report.warnings)
        status = "ok" if not report.errors else f"{len(report.errors)} error(s)"
        if report.warnings:
            status += f", {len(report.warnings)} warning(s)"
        click.echo(f"{path}: {status}")
    click.echo(f"{len(files)} file(s) checked: {errors} error(s), {warnings} warning(s)")
    if errors:
        sys.exit(1)


@rules.command(name="test")
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
@_as_of_option
def test_command(files: tuple[str, ...], as_of: datetime | None) -> None:
    """Run the `test` blocks embedded in FILES."""
    from insureops.dsl.errors import RulesetInvalidError
    from insureops.platform.cli.rules_output import render_test_counts
    from insureops.platform.cli.ruleset_cache import compile_rules_file

    started = time.perf_counter()
    day = _as_of_date(as_of)
    passed = errors = 0
    failures: list[str] = []
    for path in files:
        source = _read_source(path)
        if source is None:
            errors += 1
            continue
        try:
            compiled = compile_rules_file(path, source)
        except RulesetInvalidError as exc:
            click.echo(str(exc).rstrip("\n"), err=True)
            errors += 1
            continue
        outcomes = compiled.run_tests(as_of=day)
        click.echo(f"{path} {''.join('.' if o.passed else 'F' for o in outcomes)}".rstrip())
        passed += sum(1 for o in outcomes if o.passed)
        for outcome in (o for o in outcomes if not o.passed):
            line = f":{outcome.span.line}" if outcome.span is not None else ""
            failures.append(f"FAILED {path}{line}: {outcome.description}: "
                            f"{outcome.message or 'expectation not met'}")
    if failures:
        click.echo("\n".join(["", "failures:", *failures]), err=True)
    counts = render_test_counts(passed, len(failures), errors, time.perf_counter() - started)
    click.echo(counts, err=bool(failures or errors))
    if failures or errors:
        sys.exit(1)


@rules.command()
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--cases", required=True, type=click.Path(dir_okay=False),
              help="JSON Lines: {\"id\", \"as_of\"?, \"inputs\": {name: value}, "
              "\"expect\"?} per line.")
@click.option("--out", type=click.Path(dir_okay=False),
              help="Write results here (JSON Lines); default: stdout, summary on stderr.")
@click.option("--explain", is_flag=True, help="Add each case's evaluation trace to its result.")
@_max_steps_option
@_as_of_option
def simulate(file: str, cases: str, out: str | None, explain: bool, max_steps: int | None,
             as_of: datetime | None) -> None:
    """Evaluate FILE on each case of --cases, then summarise.

    Writes one result line per case, in input order.

    A case that cannot be read or evaluated gets an error line and the run goes on; the exit
    status is then 1. A case's `expect` (decision, score, reasons, tags, fired, outputs or
    error) is checked: each mismatch is reported on stderr and the exit status is 1.
    """
    from insureops.engine.evaluation.simulation import SummaryAccumulator
    from insureops.platform.batch.cases import CaseError, CaseEvaluator, CaseReader, result_line
    from insureops.platform.batch.runs import ExpectationTally, describe_mismatch
    from insureops.platform.cli.rules_output import progress_bar, render_summary

    compiled = _compile_or_exit(file)
    evaluator = CaseEvaluator(compiled, filename=file, explain=explain,
                              limits=_limits(max_steps))
    summary = SummaryAccumulator.for_ruleset(compiled.ir)
    expectations = ExpectationTally()
    started = time.perf_counter()
    with (_open_cases(cases) as stream, _open_out(out) as sink,
          progress_bar(stream, sys.stderr, "simulating") as on_progress):
        write, memo = sink.write, {}
        reader = CaseReader(stream, default_as_of=_as_of_date(as_of), on_progress=on_progress)
        for case, outcome in evaluator.outcomes(reader):
            if type(outcome) is CaseError:
                summary.add_error(outcome.code)
            else:
                summary.add(outcome)
            if case.expect is not None:
                expectations.check(case.id, case.expect, outcome)
            write(result_line(case, outcome, memo))
    result = summary.summary()
    text = render_summary(result, ruleset=compiled.name, elapsed=time.perf_counter() - started,
                          expectations=expectations)
    for case_id, mismatches in expectations.failures:
        click.echo(f"expectation not met: {describe_mismatch(case_id, mismatches)}", err=True)
    click.echo(text, err=out is None, nl=False)
    if result.error_count or expectations.not_met:
        sys.exit(1)


@rules.command()
@click.argument("old", type=click.Path(dir_okay=False))
@click.argument("new", type=click.Path(dir_okay=False))
@click.option("--cases", required=True, type=click.Path(dir_okay=False),
              help="JSON Lines cases, as for `rules simulate`.")
@click.option("--json", "as_json", is_flag=True, help="Print the impact as one JSON object.")
@click.option("--examples", default=3, show_default=True, help="Case ids kept per transition.")
@_max_steps_option
@_as_of_option
def diff(old: str, new: str, cases: str, as_json: bool, examples: int, max_steps: int | None,
         as_of: datetime | None) -> None:
    """Compare OLD and NEW rulesets on the same cases.

    Reports decision transitions, score shifts and how often each rule fires under each.

    Exit status 1 when a case fails under either version (it still counts, as "error").
    """
    from insureops.engine.evaluation.simulation import DiffAccumulator
    from insureops.engine.inputs import jsonio
    from insureops.platform.batch.cases import (
        CaseError,
        CaseEvaluator,
        CaseReader,
        paired_outcomes,
    )
    from insureops.platform.cli.rules_output import progress_bar, render_diff

    old_compiled, new_compiled = _compile_or_exit(old), _compile_or_exit(new)
    limits = _limits(max_steps)
    evaluator_old = CaseEvaluator(old_compiled, filename=old, limits=limits)
    evaluator_new = CaseEvaluator(new_compiled, filename=new, limits=limits)
    impact = DiffAccumulator.for_rulesets(old_compiled.ir, new_compiled.ir, examples=examples)
    started = time.perf_counter()
    with _open_cases(cases) as stream, progress_bar(stream, sys.stderr, "comparing") as on_progress:
        reader = CaseReader(stream, default_as_of=_as_of_date(as_of), on_progress=on_progress)
        for case, after, before in paired_outcomes(evaluator_new, evaluator_old, reader):
            impact.add(case.id, before.code if type(before) is CaseError else before,
                       after.code if type(after) is CaseError else after)
    result = impact.diff()
    if as_json:
        click.echo(jsonio.dumps({"old": old_compiled.name, "new": new_compiled.name,
                                 **result.to_dict()}))
    else:
        click.echo(render_diff(result, old=f"{old} ({old_compiled.name})",
                               new=f"{new} ({new_compiled.name})",
                               elapsed=time.perf_counter() - started), nl=False)
    if result.old_errors or result.new_errors:
        sys.exit(1)


def _add_run_command() -> None:
    from insureops.platform.cli.rules_run import run

    rules.add_command(run)


_add_run_command()
