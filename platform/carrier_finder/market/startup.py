"""Start-up of the carrier finder: the example market on an empty embedded database; the market
read, indexed and compiled and the classifier's index read before the service listens (within a
bound of CPU time), the rest in the background."""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import functools
import gc
import logging
import time
from pathlib import Path

from aiohttp import web
from sqlalchemy.exc import SQLAlchemyError

from insureops.carrier_matching import MarketInvalidError, load_market
from insureops.platform.carrier_finder.market.appetite_cache import shared_cache
from insureops.platform.carrier_finder.market.folder import read_market_folder
from insureops.platform.carrier_finder.market.loading import LoadSummary, store_market
from insureops.platform.carrier_finder.market.repository import is_empty as market_is_empty
from insureops.platform.carrier_finder.market.store import MarketStore
from insureops.platform.data.database import Database
from insureops.platform.keys import CLOCK, DATABASE, SETTINGS

log = logging.getLogger("insureops.carrier_finder")


def example_market_folder() -> Path:
    """examples/market next to the package (a source checkout or an editable install)."""
    return Path(__file__).resolve().parents[3] / "examples" / "market"


async def load_folder(database: Database, folder: Path, *, now: datetime.datetime,
                      workspace_id: str | None = None) -> LoadSummary:
    """Check the market in `folder` and store it; raises MarketInvalidError (nothing stored)."""
    texts = read_market_folder(folder)
    cache = shared_cache()  # checked appetites kept by content, shared with the service's store
    market = await asyncio.get_running_loop().run_in_executor(
        None, functools.partial(load_market, texts, cache=cache))
    async with database.unit_of_work() as uow:
        summary = await store_market(uow.session, market, now=now, workspace_id=workspace_id)
        await uow.commit()
    return summary


async def load_first_market(database: Database, folder: Path, *,
                            now: datetime.datetime) -> LoadSummary | None:
    """Store the market in `folder` when no carrier is stored yet; None when there was a market
    already, or no folder (logged), or a broken one (logged: the service starts without it)."""
    try:
        async with database.unit_of_work() as uow:
            if not await market_is_empty(uow.session):
                return None
    except SQLAlchemyError as exc:  # not migrated, or unreachable: requests will say so
        log.warning("cannot read the carrier market, starting without loading one: %s",
                    type(exc).__name__)
        return None
    if not folder.is_dir():
        log.warning("no example market at %s: starting without a carrier market", folder)
        return None
    started = time.perf_counter()
    try:
        summary = await load_folder(database, folder, now=now)
    except (MarketInvalidError, OSError, UnicodeDecodeError, SQLAlchemyError) as exc:
        log.error("the example market did not load, starting without it: %s", exc)
        return None
    log.info("example market loaded in %.2fs: %s", time.perf_counter() - started,
             summary.render())
    return summary


async def load_example_market(app: web.Application) -> None:
    """On an embedded (SQLite) database the service migrates and that has no market yet, load
    examples/market once."""
    settings = app[SETTINGS]
    if settings.is_sqlite and settings.load_example_market and settings.migrate_on_start:
        now = datetime.datetime.fromtimestamp(app[CLOCK](), datetime.UTC)
        await load_first_market(app[DATABASE], example_market_folder(), now=now)


def _load_classifier() -> None:
    """Read the classifier's keyword index (and the NAICS titles)."""
    from insureops.carrier_matching.classifier import classify

    classify("warm up the index")


BEFORE_LISTENING = 0.75  # CPU seconds a start spends on the market before it listens anyway


def warm_market(store: MarketStore):
    """A start-up hook: read the shared market into `store`, index it and compile its
    appetites (restored whole from the appetite cache when it has them), then read the
    classifier's index, on the warm-up's own thread. The service listens once that is done, or
    after BEFORE_LISTENING seconds of CPU (a cold cache, a large market): the first match
    after a restart finds everything ready, or waits only for the rest (a workspace
    without entries of its own shares the snapshot; a match compiles the few appetites it
    evaluates that the warm-up has not reached). A failure is logged: requests then read the
    market (or the index) as they would without it."""

    async def hook(app: web.Application) -> None:
        ready = asyncio.Event()

        async def warm() -> None:
            started = time.perf_counter()
            try:
                async with app[DATABASE].unit_of_work() as uow:
                    market = await store.market(uow.session, None)
                # the snapshot and its index live on: out of the collector's passes, which
                # would otherwise scan them again while a first match compiles its candidates
                gc.freeze()
                compiled = await store.warm_threads.run(store.compile_all, market)
                # before listening too: read after it, it took the interpreter from first matches
                await store.warm_threads.run(_load_classifier)
            except (SQLAlchemyError, OSError, ValueError) as exc:
                log.warning("the carrier market was not warmed: %s", type(exc).__name__)
                return
            finally:
                ready.set()
            log.info("carrier market warm in %.2fs: %d appetite(s) compiled",
                     time.perf_counter() - started, compiled)

        task = asyncio.get_running_loop().create_task(warm())
        store.warming.add(task)  # kept from garbage collection; cancelled on cleanup
        task.add_done_callback(store.warming.discard)
        # a bound on the work, not on the wall clock (a loaded machine gives it less of it);
        # and ten times that in wall time for a slow database
        cpu, wall = time.process_time(), time.monotonic()
        while (not ready.is_set() and time.process_time() - cpu < BEFORE_LISTENING
               and time.monotonic() - wall < 10 * BEFORE_LISTENING):
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(ready.wait(), 0.05)

    return hook


STARTUP_HOOKS = (load_example_market,)
