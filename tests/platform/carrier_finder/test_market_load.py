"""`insureops market load DIR` and the stored market: idempotent loads, new appetite versions,
deactivation without deletion, broken folders loading nothing, the example market on first start."""

from __future__ import annotations

import asyncio
import os
import subprocess
from pathlib import Path

from click.testing import CliRunner
from sqlalchemy import func, select

from insureops.platform.carrier_finder.market.models import (
    MarketAppetite,
    MarketCarrier,
    MarketProduct,
)
from insureops.platform.carrier_finder.market.startup import load_first_market
from insureops.platform.carrier_finder.market.store import MarketStore
from insureops.platform.cli import main
from insureops.platform.data.database import Database
from tests.carrier_matching.example_market import carrier_count, product_count
from tests.carrier_matching.market_texts import APPETITE, MANIFEST, market_texts
from tests.platform.carrier_finder.conftest import NOW
from tests.platform.cli.test_market import write_market
from tests.platform.test_serve_command import insureops_command


def run_load(folder: Path, url: str):
    return CliRunner().invoke(main, ["market", "load", str(folder), "--database-url", url])


def stored(url: str) -> dict:
    async def read():
        database = Database.connect(url)
        try:
            async with database.unit_of_work() as uow:
                session = uow.session
                appetites = (await session.execute(select(MarketAppetite).order_by(
                    MarketAppetite.id))).scalars().all()
                products = (await session.execute(select(MarketProduct).order_by(
                    MarketProduct.slug))).scalars().all()
                carriers = (await session.execute(select(func.count()).select_from(
                    MarketCarrier))).scalar_one()
                market = await MarketStore().market(session)
            return {"appetites": [(a.path, a.version, a.current) for a in appetites],
                    "products": [(p.slug, p.active, p.appetite_id) for p in products],
                    "appetite_ids": [a.id for a in appetites], "carriers": carriers,
                    "market": market}
        finally:
            await database.dispose()
    return asyncio.run(read())


def test_market_load_stores_carriers_products_and_appetites_when_the_folder_is_valid(
        tmp_path, platform_database_urls):
    result = run_load(write_market(tmp_path, market_texts()), platform_database_urls.async_)
    assert result.exit_code == 0, result.output
    assert "loaded" in result.output and "products: 2 new" in result.output
    found = stored(platform_database_urls.async_)
    assert found["carriers"] == 1
    assert found["appetites"] == [("alpha/electricians.rules", 1, True)]
    assert [p[:2] for p in found["products"]] == [("alpha/gl", True), ("alpha/umbrella", True)]
    market = found["market"]
    assert market.carrier("alpha").name == "Alpha Mutual"
    assert market.appetite("alpha/electricians.rules").ruleset.evaluate(
        {"business": {"naics": "238210"}}).decision == "accept"


def test_market_load_changes_nothing_when_run_again_on_unchanged_files(
        tmp_path, platform_database_urls):
    folder = write_market(tmp_path, market_texts())
    run_load(folder, platform_database_urls.async_)
    before = stored(platform_database_urls.async_)
    again = run_load(folder, platform_database_urls.async_)
    assert again.exit_code == 0, again.output
    assert "unchanged" in again.output and "new" in again.output
    assert "appetites: 0 new, 0 changed, 0 deactivated, 1 unchanged" in again.output
    after = stored(platform_database_urls.async_)
    assert (after["appetites"], after["products"]) == (before["appetites"], before["products"])


def test_market_load_stores_a_new_version_when_an_appetite_changes(tmp_path,
                                                                   platform_database_urls):
    folder = write_market(tmp_path, market_texts())
    run_load(folder, platform_database_urls.async_)
    (folder / "alpha/electricians.rules").write_text(
        APPETITE.replace("score += 30", "score += 35").replace("score == 30", "score == 35"))
    result = run_load(folder, platform_database_urls.async_)
    assert result.exit_code == 0, result.output
    found = stored(platform_database_urls.async_)
    assert found["appetites"] == [("alpha/electricians.rules", 1, False),
                                  ("alpha/electricians.rules", 2, True)]
    assert {p[2] for p in found["products"]} == {found["appetite_ids"][1]}
    rule = found["market"].appetite("alpha/electricians.rules").ruleset
    assert rule.evaluate({"business": {"naics": "238210"}}).score == 35


def test_market_load_deactivates_without_deleting_when_a_product_is_removed(
        tmp_path, platform_database_urls):
    folder = write_market(tmp_path, market_texts())
    run_load(folder, platform_database_urls.async_)
    (folder / "alpha/carrier.toml").write_text(MANIFEST.split("[[products]]\nid = \"umbrella\"")[0])
    result = run_load(folder, platform_database_urls.async_)
    assert result.exit_code == 0, result.output
    assert "products: 0 new, 0 changed, 1 deactivated, 1 unchanged" in result.output
    found = stored(platform_database_urls.async_)
    assert [p[:2] for p in found["products"]] == [("alpha/gl", True), ("alpha/umbrella", False)]


def test_market_load_reports_file_line_and_column_and_loads_nothing_when_an_appetite_is_broken(
        tmp_path, platform_database_urls):
    texts = market_texts()
    texts["alpha/electricians.rules"] = APPETITE.replace("business.naics ==", "business.nacis ==")
    result = run_load(write_market(tmp_path, texts), platform_database_urls.async_)
    assert result.exit_code == 1
    assert f"{tmp_path}/alpha/electricians.rules:8:6: error[E104]: unknown field" in result.stderr
    assert "nothing loaded" in result.stderr
    found = stored(platform_database_urls.async_)
    assert (found["carriers"], found["products"], found["appetites"]) == (0, [], [])


async def test_service_loads_the_example_market_when_the_embedded_database_starts_empty(
        make_client, settings):
    if not settings.is_sqlite:
        started = await make_client(settings.model_copy(update={"load_example_market": True}))
        async with started.app[_database_key()].unit_of_work() as uow:
            count = (await uow.session.execute(select(func.count()).select_from(
                MarketCarrier))).scalar_one()
        assert count == 0  # PostgreSQL is loaded with `market load`, never on start
        return
    started = await make_client(settings.model_copy(update={"load_example_market": True}))
    async with started.app[_database_key()].unit_of_work() as uow:
        carriers = (await uow.session.execute(select(func.count()).select_from(
            MarketCarrier).where(MarketCarrier.active.is_(True)))).scalar_one()
        products = (await uow.session.execute(select(func.count()).select_from(
            MarketProduct))).scalar_one()
    assert (carriers, products) == (carrier_count(), product_count())


def _database_key():
    from insureops.platform.keys import DATABASE
    return DATABASE


async def test_first_start_goes_on_without_a_market_when_the_example_folder_is_absent(
        platform_database_urls, tmp_path, caplog):
    database = Database.connect(platform_database_urls.async_)
    try:
        loaded = await load_first_market(database, tmp_path / "no-market", now=NOW)
        async with database.unit_of_work() as uow:
            market = await MarketStore().market(uow.session)
    finally:
        await database.dispose()
    assert loaded is None and market.products == ()
    assert "no example market at" in caplog.text and "starting without" in caplog.text


async def test_first_start_loads_nothing_more_when_a_market_is_stored(platform_database_urls,
                                                                     tmp_path):
    folder = write_market(tmp_path, market_texts())
    database = Database.connect(platform_database_urls.async_)
    try:
        first = await load_first_market(database, folder, now=NOW)
        second = await load_first_market(database, folder, now=NOW)
    finally:
        await database.dispose()
    assert first.created["products"] == 2 and second is None


async def test_first_start_goes_on_without_a_market_when_the_database_is_not_migrated(
        database_urls, caplog):
    database = Database.connect(database_urls.async_)
    try:
        loaded = await load_first_market(database, Path("examples/market"), now=NOW)
    finally:
        await database.dispose()
    assert loaded is None and "cannot read the carrier market" in caplog.text


def test_market_load_stores_the_market_when_a_fresh_process_finds_the_database_migrated(
        tmp_path, platform_database_urls):
    """Issue 17: `insureops migrate` then `insureops market load` failed (NoReferencedTableError:
    the migrations, a no-op at head, no longer imported the workspaces model). A process of its
    own: in this one every model is already imported."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("INSUREOPS_")}
    result = subprocess.run(
        [insureops_command(), "market", "load", str(write_market(tmp_path, market_texts())),
         "--database-url", platform_database_urls.async_],
        check=False, env=environment, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert stored(platform_database_urls.async_)["carriers"] > 0
