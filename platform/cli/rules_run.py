"""`insureops rules run`: a ruleset over a tenant database's whole book, offline, with a
progress bar: the book-run code of the service (pages in id order on a tenant store, batches,
the ledger that writes each effect once) without the service, for books past its budgets."""

from __future__ import annotations

import asyncio
import datetime
import hashlib
import sys
import time

import click

RECORD_TYPES = ("client", "policy", "claim", "uw_submission")


async def _tenant(store, record_type: str, tenant: str | None) -> str:
    import sqlalchemy as sa

    from insureops.schema.sql.tables import sa_table

    if tenant:
        return tenant
    from insureops.platform.rules_studio.work.tenant_side import TABLES

    table = sa_table(TABLES[record_type])

    async def tenants(connection) -> list[str]:
        rows = await connection.all(sa.select(table.c.tenant_id).distinct().limit(2), {})
        return [row["tenant_id"] for row in rows]
    found = await store.run_statements(tenants, read_only=True)
    if len(found) != 1:
        raise click.ClickException(
            f"the database holds {'no' if not found else 'several'} tenants' "
            f"{record_type} records: name one with --tenant")
    return found[0]


async def _run(store, plan, batch: int, on_done) -> tuple[object, int, int]:
    from insureops.platform.rules_studio.work import book

    state = book.RunState.start(plan.source, plan.baseline)
    done = effects = 0
    after = None
    while page := await book.read_page(store, plan.record_type, plan.tenant_id, after, batch):
        now = datetime.datetime.now(datetime.UTC)
        outcome = await asyncio.to_thread(book.process_batch, plan, state, page, now)
        if plan.apply:  # "effects written": by this command, now
            written = (await book.write_batch(store, plan, outcome.effects, now,
                                              with_events=False)).written
            effects += sum(1 for e in written if e.kind != "error")
        done += outcome.done
        after = outcome.last_id
        if on_done is not None:
            on_done(done)
    return state, done, effects


async def _book_run(database_url: str, record_type: str, tenant: str | None, source: str,
                    old: str | None, condition: str | None, as_of, apply_: bool, batch: int,
                    compiled, bar):
    from insureops.platform.rules_studio.work import book
    from insureops.platform.rules_studio.work.effects import Execution
    from insureops.platform.tenancy.book.store import open_tenant_store

    # the operator's own URL, as `schema apply` takes it; one store of one connection (SQLite:
    # WAL, the reader beside writes); an apply batch may take longer than a request
    store = open_tenant_store(database_url, pool_size=1, operation_timeout=3600.0)
    try:
        tenant_id = await _tenant(store, record_type, tenant)
        digest = hashlib.sha256(source.encode()).hexdigest()
        execution = Execution(f"file{digest[:22]}", compiled.name, compiled.ir.version or 1,
                              "cli", digest[:16])
        plan = book.RunPlan(tenant_id, record_type, source, old, condition,
                            as_of.date() if as_of else datetime.date.today(), apply_, execution)
        total = await book.count(store, record_type, tenant_id)
        started = time.perf_counter()
        with bar(total) as on_done:
            state, done, effects = await _run(store, plan, batch, on_done)
        return state, done, effects, time.perf_counter() - started
    finally:
        await store.close()


@click.command(name="run")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--database", "database_url", required=True, metavar="URL",
              help="The tenant database (postgresql://... or sqlite:///PATH).")
@click.option("--record-type", required=True, type=click.Choice(RECORD_TYPES))
@click.option("--tenant", default=None, help="Whose records (tenant_id); default: the only one.")
@click.option("--where", "condition", default=None,
              help="A condition in the rules language on the record (`policy.premium > 5000`).")
@click.option("--baseline", type=click.Path(dir_okay=False), default=None,
              help="Compare with this ruleset (the published one): prints the impact.")
@click.option("--apply", "apply_", is_flag=True,
              help="Write the effects (uw_scores, tasks, audit rows), each once per record "
                   "version; default: a dry run that writes nothing.")
@click.option("--batch", default=2000, show_default=True, type=click.IntRange(1, 50_000))
@click.option("--as-of", "as_of", type=click.DateTime(formats=["%Y-%m-%d"]), default=None,
              metavar="DATE", help="Evaluation date; default: today.")
def run(file: str, database_url: str, record_type: str, tenant: str | None,
        condition: str | None, baseline: str | None, apply_: bool, batch: int,
        as_of: datetime.datetime | None) -> None:
    """Run FILE over every RECORD-TYPE record of a tenant database; print the summary (and,
    with --baseline, the impact). Exit status 1 when a record could not be evaluated."""
    from insureops.platform.cli.rules import _compile_or_exit, _read_source
    from insureops.platform.cli.rules_output import records_bar, render_diff, render_summary
    from insureops.platform.rules_studio.work.conditions import (
        ConditionInvalidError,
        compile_condition,
    )

    compiled = _compile_or_exit(file)
    source = _read_source(file)
    old = _read_source(baseline) if baseline else None
    if baseline:
        _compile_or_exit(baseline)
    if condition:
        try:
            compile_condition(record_type, condition)
        except ConditionInvalidError as exc:
            for detail in exc.details:
                click.echo(f"--where:{detail['message']}", err=True)
            sys.exit(1)
    state, done, effects, elapsed = asyncio.run(_book_run(
        database_url, record_type, tenant, source, old, condition, as_of, apply_, batch,
        compiled, lambda total: records_bar(sys.stderr, "applying" if apply_ else "dry run",
                                            total)))
    summary = state.summary.summary()
    click.echo(render_summary(summary, ruleset=compiled.name, elapsed=elapsed), nl=False)
    click.echo(f"{done} records in {elapsed:.2f}s ({done / elapsed if elapsed else 0:,.0f}/s)"
               + (f"; {effects} effects written" if apply_ else "; dry run: nothing written"))
    if state.impact is not None:
        click.echo(render_diff(state.impact.diff(), old=baseline, new=file, elapsed=elapsed),
                   nl=False)
    if summary.error_count:
        sys.exit(1)
