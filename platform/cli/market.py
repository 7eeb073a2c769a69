"""`insureops market check DIR` checks a market folder; `market match DIR BUSINESS.json` matches a
business against it offline; `market load DIR` stores it in the platform database (the carrier
finder's market)."""

from __future__ import annotations

import asyncio
import gc
import sys
import time
from dataclasses import replace
from datetime import UTC, date, datetime
from pathlib import Path

import click

from insureops.platform.carrier_finder.market.folder import read_market_folder
from insureops.platform.cli import LazyGroup


def _read_business(path: Path) -> object:
    """The JSON of BUSINESS.json (numbers as Decimals), nested at most as deep as the engine
    reads input; raises ValueError naming the file, or OSError."""
    from insureops.engine.inputs import jsonio

    try:
        return jsonio.read(path.read_text(encoding="utf-8"))
    except ValueError as exc:  # json.JSONDecodeError, jsonio.JsonLimitError, UnicodeDecodeError
        raise ValueError(f"{path}: {exc}") from None


@click.group(cls=LazyGroup, lazy_subcommands={
    "check": ("insureops.platform.cli.market:check", "Check a market folder without loading it."),
    "load": ("insureops.platform.cli.market:load",
             "Check a market folder and store it in the platform database."),
    "match": ("insureops.platform.cli.market:match",
              "Match a business (a JSON file) against a market folder, offline."),
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


@click.command()
@click.argument("folder", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.argument("business_file", metavar="BUSINESS.json",
                type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--lines", default=None, metavar="CODES", help="Line codes to match, comma "
              "separated (default: the business's lines_of_business, else the lines of its "
              "requests, else every line).")
@click.option("--limit", type=click.IntRange(1, 1000), default=10, show_default=True,
              help="Show the best N products.")
@click.option("--as-of", "as_of", type=click.DateTime(formats=["%Y-%m-%d"]), default=None,
              metavar="DATE", help="The date appetites see (loss look-backs); default: today.")
@click.option("--no-cache", "no_cache", is_flag=True, help="Neither read nor keep checked "
              "appetites and compiled code in the user's cache folder.")
def match(folder: Path, business_file: Path, lines: str | None, limit: int,
          as_of: datetime | None, no_cache: bool) -> None:
    """Rank FOLDER's products for the business in BUSINESS.json (the Business fields, as
    POST /match-carriers-detailed/ takes them), as the service does, without a database."""
    from insureops.carrier_matching import MarketInvalidError, load_market
    from insureops.carrier_matching.matching import match as match_business
    from insureops.carrier_matching.presentation import render
    from insureops.carrier_matching.pruning import index_market_appetites
    from insureops.carrier_matching.states import state_code
    from insureops.carrier_matching.unwritten import asked_lines, render_unwritten, unwritten_lines
    from insureops.engine.ir.errors import EvaluationError
    from insureops.platform.carrier_finder.market.appetite_cache import shared_cache

    try:
        business = _read_business(business_file)
        # checked appetites and their compiled code kept by content (appetite_cache.py); the
        # ones it lacks are checked on every CPU first
        texts = read_market_folder(folder)
        cache = None if no_cache else shared_cache()
        if cache is not None:
            cache.prime({path: text for path, text in texts.items() if path.endswith(".rules")})
        market = load_market(texts, cache=cache)
    except MarketInvalidError as exc:
        for problem in exc.problems:
            click.echo(replace(problem, file=f"{folder}/{problem.file}").render(), err=True)
        click.echo(f"{folder}: {len(exc.problems)} problem(s)", err=True)
        sys.exit(1)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(1)
    # the market lives as long as the process: out of the collector's passes while the match
    # compiles and runs its appetites, as `serve` freezes its market (docs/performance.md)
    gc.freeze()
    if not isinstance(business, dict):
        click.echo(f"error: {business_file} must hold one JSON object (a Business)", err=True)
        sys.exit(1)
    # the CLI is the platform shell: the one place allowed to read the local clock
    day = as_of.date() if as_of is not None else date.today()
    wanted = [code.strip() for code in lines.split(",") if code.strip()] if lines else None
    # the candidate index too is read back when these appetites were indexed before
    index = (index_market_appetites(market.appetites) if cache is None
             else cache.index(market.appetites, index_market_appetites))
    try:
        report = match_business(business, market, as_of=day, lines=wanted, limit=limit,
                                index=index)
        # a line asked for with nothing listed: match it again listing the declines, to say why
        shown = {result.product.line for result in report.results}
        missing = [line for line in asked_lines(business, wanted) if line not in shown]
        unwritten = unwritten_lines(missing, report, match_business(
            business, market, as_of=day, lines=missing, index=index)) if missing else ()
    except EvaluationError as exc:
        click.echo(f"error: the business does not fit the Business type: {exc}", err=True)
        sys.exit(1)
    click.echo(f"{report.considered} product(s) considered, {report.pruned} pruned by the "
               f"candidate index, as of {day.isoformat()}; the best {len(report.results)}, "
               "by carrier:")
    state = business.get("state")
    click.echo(render(report, market, state_code(state) if isinstance(state, str) else None),
               nl=False)
    if unwritten:
        click.echo("")
        click.echo(render_unwritten(unwritten), nl=False)


@click.command()
@click.argument("folder", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--database-url", default=None,
              help="Platform database URL [INSUREOPS_DATABASE_URL, ./insureops.db].")
@click.option("--workspace", "workspace_id", default=None, metavar="TENANT_ID",
              help="Load as this workspace's own market; default: the shared market.")
def load(folder: Path, database_url: str | None, workspace_id: str | None) -> None:
    """Check FOLDER and store it in the platform database (safe to run again: unchanged files
    are no-ops, changed appetites get a new version, removed products are deactivated)."""
    from sqlalchemy.exc import SQLAlchemyError

    from insureops.carrier_matching import MarketInvalidError
    from insureops.platform.carrier_finder.market.startup import load_folder
    from insureops.platform.cli.serve import _settings
    from insureops.platform.data.database import Database

    # env_models: every model, so that the market tables' foreign keys (workspaces) resolve; on a
    # database already at head the migrations import none (issue 17: load failed after migrate).
    from insureops.platform.migrations import (
        env_models,  # noqa: F401
        upgrade,
    )

    settings = _settings(database_url=database_url)
    started = time.perf_counter()

    async def run():
        database = Database.connect(settings.database_url)
        try:
            await upgrade(database.engine)
            # the CLI is the platform shell: the one place allowed to read the local clock
            return await load_folder(database, folder, now=datetime.now(UTC),
                                     workspace_id=workspace_id)
        finally:
            await database.engine.dispose()

    try:
        summary = asyncio.run(run())
    except MarketInvalidError as exc:
        for problem in exc.problems:
            click.echo(replace(problem, file=f"{folder}/{problem.file}").render(), err=True)
        click.echo(f"{folder}: {len(exc.problems)} problem(s); nothing loaded", err=True)
        sys.exit(1)
    except (OSError, UnicodeDecodeError, SQLAlchemyError) as exc:
        click.echo(f"error: {type(exc).__name__}: {exc}", err=True)
        sys.exit(1)
    verb = "loaded" if summary.changed else "unchanged"
    click.echo(f"{folder}: {verb} in {time.perf_counter() - started:.2f}s: {summary.render()}")
