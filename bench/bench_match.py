"""Speed of carrier matching: the example market's first load, detailed matching, classification.

    python bench/bench_match.py [--rounds 15] [--copies 13]

Prints, in one run: the example market's check-and-compile and store time (the embedded
service's first start); the median and p90 server-side time of one detailed match (the handler's
work: the stored market's freshness check, matching, JSON values) against the example market and
against a generated market of about 2,000 products (`--copies` of it, stored in SQLite too), with
pruning on and off measured alternately in the same rounds, and the share pruned; and the median
time to classify one description. Targets are in docs/performance.md.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import statistics
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from insureops.carrier_matching import Market, load_market
from insureops.carrier_matching.classifier import classify
from insureops.carrier_matching.market import Appetite
from insureops.carrier_matching.matching import match
from insureops.carrier_matching.pruning import index_market_appetites
from insureops.platform.carrier_finder.market import service
from insureops.platform.carrier_finder.market.folder import read_market_folder
from insureops.platform.carrier_finder.market.loading import store_market
from insureops.platform.carrier_finder.market.store import MarketStore
from insureops.platform.data.database import Database
from insureops.platform.migrations import upgrade

ROOT = Path(__file__).resolve().parents[1]
MARKET = ROOT / "examples" / "market"
EVAL_SET = ROOT / "tests" / "carrier_matching" / "classifier_eval.jsonl"
AS_OF = datetime.date(2026, 3, 1)
# matches are measured after a few (the steady state of a running service: caches warm)
WARM_UP_EVALUATIONS = 3
BUSINESS = {
    "name": "Bright Spark Electric",
    "description": "Residential and light commercial electrical service and panel upgrades.",
    "naics": "238210", "state": "AZ", "annual_revenue": 1750000, "payroll": 620000,
    "employee_count": 8, "years_in_business": 15, "requested_limit": 1000000,
    "prior_claims": [{"amount": 8200, "date": "2024-05-02", "type": "property_damage"}],
}


def copied_market(market: Market, copies: int) -> Market:
    """`copies` copies of every carrier, product and appetite under new ids (each copy's
    appetites are objects of their own, sharing the compiled code of the original)."""
    carriers, products, appetites = [], [], []
    for k in range(copies):
        carriers += [replace(c, id=f"{c.id}-{k}", name=f"{c.name} {k}") for c in market.carriers]
        products += [replace(p, id=f"{p.carrier_id}-{k}/{p.id.split('/', 1)[1]}",
                             carrier_id=f"{p.carrier_id}-{k}",
                             appetite=f"{p.carrier_id}-{k}/{p.appetite.split('/', 1)[1]}")
                     for p in market.products]
        appetites += [Appetite(f"{a.name}_{k}", f"{a.path.split('/', 1)[0]}-{k}/"
                               f"{a.path.split('/', 1)[1]}", a.source, a.ruleset)
                      for a in market.appetites]
    return Market(tuple(carriers), tuple(products), tuple(appetites))


def _median_p90(times: list[float]) -> tuple[float, float]:
    ordered = sorted(times)
    return statistics.median(ordered) * 1000, ordered[int(len(ordered) * 0.9)] * 1000


async def first_start(folder: Path) -> tuple[float, float, float, Market]:
    """Check-and-compile time, store time and the first read-back of the stored market."""
    started = time.perf_counter()
    market = load_market(read_market_folder(folder))
    compiled = time.perf_counter() - started
    database = await _database()
    started = time.perf_counter()
    async with database.unit_of_work() as uow:
        await store_market(uow.session, market, now=datetime.datetime.now(datetime.UTC))
    stored = time.perf_counter() - started
    started = time.perf_counter()
    async with database.unit_of_work() as uow:
        await MarketStore().market(uow.session)
    read = time.perf_counter() - started
    await database.engine.dispose()
    return compiled, stored, read, market


async def _database() -> Database:
    path = Path(tempfile.mkdtemp()) / "bench.db"
    database = Database.connect(f"sqlite+aiosqlite:///{path}")
    await upgrade(database.engine)
    return database


async def served_matches(market: Market, rounds: int, warm_up: int) -> dict[str, list[float]]:
    """The handler's work per request (the stored market's freshness check, matching with the
    store's index or none, JSON values), pruning off and on alternately in each round; `market`
    is stored in a fresh SQLite database first."""
    database = await _database()
    async with database.unit_of_work() as uow:
        await store_market(uow.session, market, now=datetime.datetime.now(datetime.UTC))
    stores = {"off": MarketStore(None), "on": MarketStore(index_market_appetites)}
    for store in stores.values():
        async with database.unit_of_work() as uow:
            stored = await store.market(uow.session)
        store.index(stored)  # built once per snapshot, at the first request
        for _ in range(warm_up):
            match(service.business_data(BUSINESS), stored, as_of=AS_OF)
    times: dict[str, list[float]] = {"off": [], "on": []}
    for _ in range(rounds):
        for name, store in stores.items():
            started = time.perf_counter()
            async with database.unit_of_work() as uow:
                stored = await store.market(uow.session)
            report = match(service.business_data(BUSINESS), stored, as_of=AS_OF,
                           index=store.index(stored))
            [service.plain(r.outputs) for r in report.results]
            times[name].append(time.perf_counter() - started)
    await database.engine.dispose()
    return times


def core_matches(market: Market, rounds: int, warm_up: int) -> tuple[dict, float, dict]:
    """Matching alone, pruning off and on alternately; the index's build time, and per mode the
    products considered, pruned and evaluated, and the appetites evaluated."""
    started = time.perf_counter()
    index = index_market_appetites(market.appetites)
    built = time.perf_counter() - started
    for _ in range(warm_up):
        match(BUSINESS, market, as_of=AS_OF)
    times: dict[str, list[float]] = {"off": [], "on": []}
    counts: dict[str, dict[str, int]] = {}
    for _ in range(rounds):
        for name, chosen in (("off", None), ("on", index)):
            started = time.perf_counter()
            report = match(BUSINESS, market, as_of=AS_OF, index=chosen)
            times[name].append(time.perf_counter() - started)
            evaluated = [r for r in report.results if r.evaluated]
            counts[name] = {"considered": report.considered, "pruned": report.pruned,
                            "evaluated": len(evaluated),
                            "appetites": len({r.product.appetite for r in evaluated})}
    return times, built, counts


def classification_times(limit: int) -> list[float]:
    rows = [json.loads(line) for line in EVAL_SET.read_text().splitlines() if line.strip()]
    classify("warm up")
    times = []
    for row in rows[:limit]:
        started = time.perf_counter()
        classify(row["description"], name=row.get("name"), website=row.get("website"))
        times.append(time.perf_counter() - started)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--copies", type=int, default=13)
    args = parser.parse_args()

    compiled, stored, read, market = asyncio.run(first_start(MARKET))
    print(f"first start: check and compile {compiled:.2f}s, store {stored:.2f}s, "
          f"read back {read:.2f}s")
    # the copies share their original's compiled code, so the fast paths come `copies` times sooner
    for name, chosen, copies in (("example market", market, 1),
                                 ("generated market", copied_market(market, args.copies),
                                  args.copies)):
        warm_up = -(-WARM_UP_EVALUATIONS // copies)
        times, built, counts = core_matches(chosen, args.rounds, warm_up)
        off, on = counts["off"], counts["on"]
        print(f"{name} ({off['considered']} products, {len(chosen.appetites)} appetites): index "
              f"built in {built * 1000:.0f} ms; {on['pruned']} of {on['considered']} products "
              f"pruned ({on['pruned'] / max(on['considered'], 1):.0%}); products evaluated "
              f"{off['evaluated']} -> {on['evaluated']}, appetites evaluated {off['appetites']} "
              f"-> {on['appetites']} "
              f"({1 - on['appetites'] / max(off['appetites'], 1):.0%} of evaluations pruned)")
        for mode in ("off", "on"):
            median, p90 = _median_p90(times[mode])
            print(f"  core match, pruning {mode}: median {median:.1f} ms, p90 {p90:.1f} ms")
        served = asyncio.run(served_matches(chosen, args.rounds, warm_up))
        for mode in ("off", "on"):
            median, p90 = _median_p90(served[mode])
            print(f"  served (freshness check, match, JSON), pruning {mode}: median "
                  f"{median:.1f} ms, p90 {p90:.1f} ms")
    median, p90 = _median_p90(classification_times(200))
    print(f"classification: median {median:.2f} ms, p90 {p90:.2f} ms per description")


if __name__ == "__main__":
    main()
