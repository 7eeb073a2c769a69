"""`insureops rules run` (issue 31): the example renewal review over a tenant database's book,
offline; a dry run writes nothing, an apply run writes each effect once however often it runs."""

from __future__ import annotations

import asyncio
import datetime
import uuid
from pathlib import Path

from click.testing import CliRunner

from insureops.dsl import compile_ruleset
from insureops.platform.cli import main
from insureops.platform.rules_studio.work import book as run_book
from insureops.platform.rules_studio.work.effects import Execution
from insureops.platform.tenancy.book.store import open_tenant_store
from tests.databases import Template
from tests.platform.rules_studio.work_helpers import tenant_execute, tenant_rows

EXAMPLE = str(Path(__file__).resolve().parents[3] / "examples" / "renewal_review.rules")
TENANT = "01ARZ3NDEKTSV4RRFFQ69G5FAV"


def book(url: str) -> None:
    sqlite = url.startswith("sqlite")
    soon = (datetime.date.today() + datetime.timedelta(days=20)).isoformat()
    year_ago = (datetime.date.today() - datetime.timedelta(days=345)).isoformat()
    for line, premium in [("property", 150000), ("auto", 900), ("cyber", 20000)] * 4:
        record_id = uuid.uuid4()
        tenant_execute(url, "INSERT INTO policies (id, uuid, tenant_id, status, premium, "
                       "line_of_business, start_date, end_date) VALUES (:id, :uuid, :tenant, "
                       "'active', :premium, :line, :start, :end)",
                       id=record_id.hex if sqlite else str(record_id),
                       uuid=uuid.uuid4().hex if sqlite else str(uuid.uuid4()), tenant=TENANT,
                       premium=premium, line=line, start=year_ago, end=soon)


def test_rules_run_writes_each_task_once_when_applied_twice(test_databases):
    url = test_databases.copy(Template.TENANT).sync
    book(url)
    runner = CliRunner()
    dry = runner.invoke(main, ["rules", "run", EXAMPLE, "--database", url,
                               "--record-type", "policy", "--batch", "5"])
    assert dry.exit_code == 0, dry.output
    assert "12 records" in dry.output and "dry run: nothing written" in dry.output
    assert "refer" in dry.output and tenant_rows(url, "SELECT id FROM tasks") == []
    for expected in (8, 0):  # 4 referrals and 4 pricing reviews; then nothing new
        applied = runner.invoke(main, ["rules", "run", EXAMPLE, "--database", url,
                                       "--record-type", "policy", "--apply"])
        assert applied.exit_code == 0, applied.output
        assert f"{expected} effects written" in applied.output
    tasks = tenant_rows(url, "SELECT subject, priority FROM tasks ORDER BY subject")
    assert len(tasks) == 8
    assert {t["priority"] for t in tasks} == {"high", "normal"}
    assert len(tenant_rows(url, "SELECT id FROM audit_logs WHERE entity_type = 'task'")) == 8


def test_rules_run_reports_where_errors_with_line_and_column(test_databases):
    url = test_databases.copy(Template.TENANT).sync
    result = CliRunner().invoke(main, ["rules", "run", EXAMPLE, "--database", url,
                                       "--record-type", "policy", "--tenant", TENANT,
                                       "--where", "policy.premum > 1"])
    assert result.exit_code == 1
    assert "--where:1:1: error[E104]" in result.output


def test_a_batch_redone_after_a_crash_counts_the_effects_its_run_wrote(test_databases):
    """A run killed after a batch's effects committed and before its checkpoint redoes the
    batch: nothing is written again, and the run still counts those effects as its own (its
    final counts are exact); another execution's effects on the same keys are not its own."""
    url = test_databases.copy(Template.TENANT).sync
    book(url)  # this module's twelve policies
    source = Path(EXAMPLE).read_text()
    compiled = compile_ruleset(source)

    def plan(label: str):
        execution = Execution("01ARZ3NDEKTSV4RRFFQ69G5FAW", compiled.name, 1, label, "d")
        return run_book.RunPlan(TENANT, "policy", source, None, None, datetime.date.today(),
                                True, execution)

    async def batches():
        store = open_tenant_store(url)
        try:
            first = plan("run:01ARZ3NDEKTSV4RRFFQ69G5FAX")
            rows = await run_book.read_page(store, "policy", TENANT, None, 100)
            now = datetime.datetime.now(datetime.UTC)
            state = run_book.RunState.start(source, None)
            effects = run_book.process_batch(first, state, rows, now).effects
            once = await run_book.write_batch(store, first, effects, now)
            again = await run_book.write_batch(store, first, effects, now)
            other = await run_book.write_batch(
                store, plan("binding:01ARZ3NDEKTSV4RRFFQ69G5FAY"), effects, now)
            return once, again, other
        finally:
            await store.close()

    once, again, other = asyncio.run(batches())
    assert (len(once.written), once.effects) == (8, 8)
    assert (again.written, again.effects) == ([], 8)
    assert (other.written, other.effects) == ([], 0)
    assert len(tenant_rows(url, "SELECT id FROM tasks")) == 8
