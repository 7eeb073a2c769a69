"""`insureops market check DIR` checks a market folder; `market load DIR` (carrier finder) stores it."""

from __future__ import annotations

import sys
import time
from dataclasses import replace
from datetime import date, datetime
from pathlib import Path

import click

from insureops.platform.cli import LazyGroup

MARKET_SUFFIXES = (".toml", ".rules")


def read_market_folder(folder: Path) -> dict[str, str]:
    """The texts of a market folder's manifests and appetites, by path relative to the folder
    (with `/`); raises OSError or UnicodeDecodeError for a file that cannot be read."""
    texts: dict[str, str] = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file() and path.suffix in MARKET_SUFFIXES:
            texts[path.relative_to(folder).as_posix()] = path.read_text(encoding="utf-8")
    return texts


@click.group(cls=LazyGroup, lazy_subcommands={
    "check": ("insureops.platform.cli.market:check", "Check a market folder without loading it."),
    "load": ("insureops.platform.carrier_finder.cli:load",
             "Check a market folder and store it in the platform database."),
})
def market() -> None:
    """Check and load market folders (carriers, products and appetites)."""


@click.command()
@click.argument("folder", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--as-of", "as_of", type=click.DateTime(formats=["%Y-%m-%d"]), default=None,
              metavar="DATE", help="Date for appetite tests without their own `as of`; "
              "default: today.")
@click.option("--no-tests", is_flag=True, help="Skip the appetites' embedded tests.")
def check(folder: Path, as_of: datetime | None, no_tests: bool) -> None:
    """Check every manifest, appetite and reference in FOLDER; run the appetites' tests."""
    from insureops.carrier_matching.checking import check_market

    started = time.perf_counter()
    try:
        texts = read_market_folder(folder)
    except (OSError, UnicodeDecodeError) as exc:
        click.echo(f"error: cannot read {getattr(exc, 'filename', None) or folder}: {exc}",
                   err=True)
        sys.exit(1)
    # the CLI is the platform shell: the one place allowed to read the local clock
    day = as_of.date() if as_of is not None else date.today()
    report = check_market(texts, as_of=day, run_tests=not no_tests)
    for problem in report.problems:
        click.echo(replace(problem, file=f"{folder}/{problem.file}").render(), err=True)
    elapsed = time.perf_counter() - started
    if report.market is None:
        click.echo(f"{folder}: {len(report.problems)} problem(s)", err=True)
        sys.exit(1)
    found = report.market
    click.echo(f"{folder}: ok: {len(found.carriers)} carrier(s), {len(found.products)} "
               f"product(s), {len(found.appetites)} appetite(s), {report.tests_run} test(s) "
               f"passed in {elapsed:.2f}s")
