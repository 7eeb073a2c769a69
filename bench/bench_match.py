"""Speed of carrier matching: the example market's first load, detailed matching, classification.

    python bench/bench_match.py [--rounds 15] [--copies 13]

Prints, in one run: the example market's check-and-compile and store time (the embedded
service's first start); the median and p90 server-side time of one detailed match against the
example market and against a generated market of about 2,000 products (`--copies` of it), with
pruning on and off and the share pruned; and the median time to classify one description.
Targets are in docs/performance.md.
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
from insureops.engine.compiler import GENERATE_AFTER
from insureops.platform.carrier_finder import service
from insureops.platform.carrier_finder.loading import store_market
from insureops.platform.carrier_finder.market_store import MarketStore
from insureops.platform.cli.market import read_market_folder
from insureops.platform.db import Database
from insureops.platform.migrations import upgrade

ROOT = Path(__file__).resolve().parents[1]
MARKET = ROOT / "examples" / "market"
EVAL_SET = ROOT / "tests" / "carrier_matching" / "classifier_eval.jsonl"
AS_OF = datetime.date(2026, 3, 1)
# the engine generates a ruleset's fast path after GENERATE_AFTER untraced evaluations: matches
# are measured once every appetite has it (the steady state of a running service)
WARM_UP_EVALUATIONS = GENERATE_AFTER + 1
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


def pruning_index(market: Market):
    """The candidate index of carrier_matching.pruning, or None while it does not exist."""
    try:
        from insureops.carrier_matching.pruning import build_candidate_index
    except ImportError:
        return None
    return build_candidate_index(market.appetites)


async def first_start(folder: Path) -> tuple[float, float, float, Database]:
    """Check-and-compile time, store time and the first read-back of the stored market."""
    started = time.perf_counter()
    market = load_market(read_market_folder(folder))
    compiled = time.perf_counter() - started
    path = Path(tempfile.mkdtemp()) / "bench.db"
    database = Database.connect(f"sqlite+aiosqlite:///{path}")
    await upgrade(database.engine)
    started = time.perf_counter()
    async with database.unit_of_work() as uow:
        await store_market(uow.session, market, now=datetime.datetime.now(datetime.UTC))
    stored = time.perf_counter() - started
    started = time.perf_counter()
    async with database.unit_of_work() as uow:
        await MarketStore().market(uow.session)
    read = time.perf_counter() - started
    return compiled, stored, read, database


async def served_match(database: Database, rounds: int) -> list[float]:
    """The handler's work per request: the market's freshness check, matching, JSON values."""
    store = MarketStore()
    async with database.unit_of_work() as uow:
        market = await store.market(uow.session)
    for _ in range(WARM_UP_EVALUATIONS):
        match(service.business_data(BUSINESS), market, as_of=AS_OF)
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        async with database.unit_of_work() as uow:
            market = await store.market(uow.session)
        report = match(service.business_data(BUSINESS), market, as_of=AS_OF)
        [service.plain(r.outputs) for r in report.results]
        times.append(time.perf_counter() - started)
    return times


def timed_matches(market: Market, rounds: int, warm_up: int,
                  index=None) -> tuple[list[float], float, int, int]:
    """Times of `rounds` matches after `warm_up` ones, and the first match's time."""
    started = time.perf_counter()
    match(BUSINESS, market, as_of=AS_OF, index=index)
    first = time.perf_counter() - started
    for _ in range(warm_up):
        match(BUSINESS, market, as_of=AS_OF, index=index)
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        report = match(BUSINESS, market, as_of=AS_OF, index=index)
        times.append(time.perf_counter() - started)
    return times, first, report.considered, report.pruned


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

    compiled, stored, read, database = asyncio.run(first_start(MARKET))
    print(f"first start: check and compile {compiled:.2f}s, store {stored:.2f}s, "
          f"read back {read:.2f}s")
    served = asyncio.run(served_match(database, args.rounds))
    asyncio.run(database.engine.dispose())
    market = load_market(read_market_folder(MARKET))
    median, p90 = _median_p90(served)
    print(f"example market, served ({len(market.products)} products): median {median:.1f} ms, "
          f"p90 {p90:.1f} ms")
    # the copies share their original's compiled code, so the fast paths come `copies` times sooner
    for name, chosen, copies in (("example market", market, 1),
                                 ("generated market", copied_market(market, args.copies),
                                  args.copies)):
        warm_up = -(-WARM_UP_EVALUATIONS // copies)
        times, first, considered, _ = timed_matches(chosen, args.rounds, warm_up)
        median, p90 = _median_p90(times)
        print(f"{name}, core match, pruning off ({considered} products): median "
              f"{median:.1f} ms, p90 {p90:.1f} ms (first match {first * 1000:.1f} ms)")
        index = pruning_index(chosen)
        if index is None:
            print(f"{name}, pruning on: not yet wired (carrier_matching.pruning is absent)")
            continue
        times, _, considered, pruned = timed_matches(chosen, args.rounds, 1, index)
        median, p90 = _median_p90(times)
        print(f"{name}, core match, pruning on: median {median:.1f} ms, p90 {p90:.1f} ms, "
              f"{pruned} of {considered} pruned ({pruned / max(considered, 1):.0%})")
    median, p90 = _median_p90(classification_times(200))
    print(f"classification: median {median:.2f} ms, p90 {p90:.2f} ms per description")


if __name__ == "__main__":
    main()
