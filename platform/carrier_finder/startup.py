"""Start-up of the carrier finder: the example market on an empty embedded database, the classifier."""

from __future__ import annotations

import asyncio
import datetime
import logging
import time
from pathlib import Path

from aiohttp import web

from insureops.carrier_matching import MarketInvalidError, load_market
from insureops.platform.carrier_finder.loading import LoadSummary, store_market
from insureops.platform.carrier_finder.market_store import MarketStore, market_is_empty
from insureops.platform.cli.market import read_market_folder
from insureops.platform.db import Database
from insureops.platform.keys import CLOCK, DATABASE, SETTINGS

log = logging.getLogger("insureops.carrier_finder")
MARKET_STORE = web.AppKey("carrier_finder_market_store", MarketStore)


def example_market_folder() -> Path:
    """examples/market next to the package (a source checkout or an editable install)."""
    return Path(__file__).resolve().parents[2] / "examples" / "market"


async def load_folder(database: Database, folder: Path, *, now: datetime.datetime,
                      workspace_id: str | None = None) -> LoadSummary:
    """Check the market in `folder` and store it; raises MarketInvalidError (nothing stored)."""
    texts = read_market_folder(folder)
    market = await asyncio.get_running_loop().run_in_executor(None, load_market, texts)
    async with database.unit_of_work() as uow:
        summary = await store_market(uow.session, market, now=now, workspace_id=workspace_id)
        await uow.commit()
    return summary


async def load_example_market(app: web.Application) -> None:
    """On an embedded (SQLite) database without a market, load examples/market once."""
    settings, database = app[SETTINGS], app[DATABASE]
    if not settings.is_sqlite or not settings.load_example_market:
        return
    async with database.unit_of_work() as uow:
        if not await market_is_empty(uow.session):
            return
    folder = example_market_folder()
    if not folder.is_dir():
        log.warning("no example market at %s: starting without a carrier market", folder)
        return
    started = time.perf_counter()
    now = datetime.datetime.fromtimestamp(app[CLOCK](), datetime.UTC)
    try:
        summary = await load_folder(database, folder, now=now)
    except (MarketInvalidError, OSError, UnicodeDecodeError) as exc:
        log.error("the example market did not load, starting without it: %s", exc)
        return
    log.info("example market loaded in %.2fs: %s", time.perf_counter() - started,
             summary.render())


async def load_classifier(app: web.Application) -> None:
    """Read the classifier's keyword index (and the NAICS titles) before the first request."""
    from insureops.carrier_matching.classifier import classify

    await asyncio.get_running_loop().run_in_executor(None, classify, "warm up the index")


STARTUP_HOOKS = (load_example_market, load_classifier)
