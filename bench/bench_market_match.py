"""One business matched against the whole example market in-process, for businesses of several
shapes (issue 29's market target; figures in docs/performance.md).

    python bench/bench_market_match.py [--rounds 40] [--instructions] [--index]

No candidate index: every appetite of a product offered in the business's state is evaluated;
`--index` matches as `serve` and the CLI do, with the market's candidate index (its accepts
and refers checked equal to the run without it; the pruned are declined unevaluated).
Rounds interleave BUSINESSES (median and p90 CPU time); `--instructions` adds callgrind's
instructions per match (the market from a compiled market cache in a temporary folder; a dump
at each `os.getppid()`). Both measure the service's steady state: each business matched WARM
times first (CPython specialises code), then the market frozen out of the collector's passes.
"""

from __future__ import annotations

import argparse
import datetime
import gc
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MARKET = ROOT / "examples" / "market"
AS_OF = datetime.date(2026, 3, 1)
COUNT = 10  # matches per business under callgrind
WARM = 40  # matches per business before measuring

_BASE = {"name": "Summit Roofing", "description": "Residential reroofing, asphalt shingles.",
         "naics": "238160", "state": "TX", "annual_revenue": 1_500_000, "employee_count": 12,
         "years_in_business": 9, "requested_limit": 1_000_000, "prior_claims": []}
BUSINESSES: dict[str, dict] = {
    "electrician AZ (README)": json.loads((ROOT / "examples" / "business.json").read_text()),
    "roofer TX": _BASE,
    "tavern GA": dict(_BASE, naics="722410", state="GA",
                      description="Neighborhood tavern with pub food, live music on weekends."),
    "clinic NY": dict(_BASE, naics="621111", state="NY", description="Family medicine group."),
    "software CA, CYBER+EO": dict(_BASE, naics="541511", state="CA", requested_limit=2_000_000,
                                  description="Custom software development for retailers.",
                                  lines_of_business=["CYBER", "EO"]),
    "trucker MO, AUTOB": dict(_BASE, naics="484121", state="MO", employee_count=20,
                              description="Regional dry van trucking.",
                              lines_of_business=["AUTOB"]),
    "hardware store IA": dict(_BASE, naics="444140", state="IA", annual_revenue=900_000.5,
                              description="Hardware store with key cutting.",
                              prior_claims=[{"amount": 12_500.75, "date": "2025-01-09"}]),
    "restaurant OH, WORK+CGL": dict(_BASE, naics="722511", state="OH",
                                    description="Family restaurant, no liquor.",
                                    lines_of_business=["WORK", "CGL"]),
}


def load(cache: Path | None = None):
    from insureops.carrier_matching import load_market
    from insureops.platform.cli.market import read_market_folder

    if cache is None:
        return load_market(read_market_folder(MARKET))
    from insureops.platform.carrier_finder.market.appetite_cache import AppetiteCache

    return load_market(read_market_folder(MARKET), cache=AppetiteCache(cache))


def warm(market, match) -> None:
    """Every business matched WARM times (the appetites compile on their first evaluation),
    then what lives as long as the market frozen, as the service does."""
    for _ in range(WARM):
        for business in BUSINESSES.values():
            match(business, market, as_of=AS_OF)
    gc.collect()
    gc.freeze()


def indexed(market, on: bool):
    """`match` as the bench runs it: with the market's candidate index when `on`."""
    from insureops.carrier_matching.matching import match
    from insureops.carrier_matching.pruning import index_market_appetites

    if not on:
        return match
    index = index_market_appetites(market.appetites)
    written = {name: _written(match(business, market, as_of=AS_OF))
               for name, business in BUSINESSES.items()}
    for name, business in BUSINESSES.items():
        found = _written(match(business, market, as_of=AS_OF, index=index))
        if found != written[name]:
            raise SystemExit(f"{name}: the index changed an accept or refer")

    def with_index(business, market, *, as_of):
        return match(business, market, as_of=as_of, index=index)
    return with_index


def _written(report) -> list[tuple]:
    return [(r.product.id, r.decision, r.score, r.reasons) for r in report.results
            if r.decision != "decline"]


def timed(rounds: int, index: bool) -> None:
    started = time.process_time()
    market = load()
    match = indexed(market, index)
    warm(market, match)
    print(f"example market: {len(market.products)} products, {len(market.appetites)} "
          f"appetites, loaded, compiled and warmed in {time.process_time() - started:.1f} s "
          f"CPU; load average {os.getloadavg()[0]:.1f}; candidate index "
          f"{'on' if index else 'off'}")
    times: dict[str, list[float]] = {name: [] for name in BUSINESSES}
    for _ in range(rounds):
        for name, business in BUSINESSES.items():
            started = time.process_time()
            match(business, market, as_of=AS_OF)
            times[name].append(time.process_time() - started)
    for name, found in times.items():
        report = match(BUSINESSES[name], market, as_of=AS_OF)
        ran = len({r.product.appetite for r in report.results if r.evaluated})
        found.sort()
        print(f"  {name:26s} {statistics.median(found) * 1000:6.2f} ms median, "
              f"{found[int(len(found) * 0.9)] * 1000:6.2f} ms p90; {len(report.results):3d} "
              f"answers, {ran:3d} appetites run")


def instructions(index: bool) -> None:
    with tempfile.TemporaryDirectory() as folder:
        cache = Path(folder) / "market"
        from insureops.carrier_matching.matching import match

        market = load(cache)  # checks and compiles into the cache, so the child does not
        for business in BUSINESSES.values():
            match(business, market, as_of=AS_OF)
        out = Path(folder) / "callgrind.out"
        run = subprocess.run(
            ["valgrind", "--tool=callgrind", "--dump-before=getppid",
             f"--callgrind-out-file={out}", sys.executable, __file__, "--child", str(cache),
             *(["--index"] if index else [])],
            capture_output=True, text=True, check=False,
            env={**os.environ, "PYTHONHASHSEED": "0"})
        dumps = sorted(Path(folder).glob("callgrind.out.*"),
                       key=lambda p: int(p.name.rsplit(".", 1)[1]))
        totals = [int(re.search(r"^(?:summary|totals): (\d+)", p.read_text(), re.M).group(1))
                  for p in dumps]
        if len(totals) < len(BUSINESSES) + 1:
            raise SystemExit(f"callgrind gave {len(totals)} dumps:\n{run.stderr[-2000:]}")
        print(f"callgrind, instructions per match ({COUNT} matches each):")
        for name, total in zip(BUSINESSES, totals[1:]):
            print(f"  {name:26s} {total / COUNT / 1e6:6.2f} M")


def child(cache: str, index: bool) -> None:
    market = load(Path(cache))
    match = indexed(market, index)
    warm(market, match)
    for business in BUSINESSES.values():
        os.getppid()  # callgrind dumps here: what follows is this business's
        for _ in range(COUNT):
            match(business, market, as_of=AS_OF)
    os.getppid()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--instructions", action="store_true")
    parser.add_argument("--index", action="store_true",
                        help="match with the candidate index, as serve and the CLI do")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.index)
        return
    timed(args.rounds, args.index)
    if args.instructions:
        instructions(args.index)


if __name__ == "__main__":
    main()
