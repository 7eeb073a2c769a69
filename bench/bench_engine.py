"""The engine beside plain Python on the rulesets people write (issue 29's targets).

    python bench/bench_engine.py [--cases 50000] [--rounds 5] [--instructions] [--market]

For each shape of `engine_shapes.py` (the peer rule with money in cents, a claims triage with
dates as strings and payments with cents, a hit-first pricing table feeding a rule, a sum of
payments against half the reserve): the compiled ruleset's `evaluate` and the plain function
on the same raw JSON dicts, rounds interleaved; medians of CPU-time rates and of per-round
ratios; every record checked to agree (decision, score, fired). `--instructions` adds
callgrind's instructions per evaluation (the difference between two record counts).
`--market` also times matching one business against the whole example market in-process
(`carrier_matching.match`, every product's appetite evaluated by the engine; pruning off).
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from engine_shapes import AS_OF, SHAPES

COUNTS = (1000, 3000)


def compiled(shape):
    from insureops.dsl.api import parse_ruleset
    from insureops.engine.evaluation.compiler import compile_ir

    return compile_ir(parse_ruleset(shape.text), input_schemas=shape.schemas,
                      source=shape.text)


def runners(shape):
    ruleset, plain = compiled(shape), shape.plain

    def engine(items):
        for inputs in items:
            ruleset.evaluate(inputs, as_of=AS_OF)

    def python(items):
        for inputs in items:
            plain(inputs, AS_OF)
    return engine, python


def mismatches(shape, items) -> int:
    ruleset = compiled(shape)
    bad = 0
    for inputs in items:
        result = ruleset.evaluate(inputs, as_of=AS_OF)
        got = (result.decision, str(result.score), tuple(result.fired))
        bad += got != shape.plain(inputs, AS_OF)
    return bad


def _rate(run, items) -> float:
    started = time.process_time()
    run(items)
    return len(items) / (time.process_time() - started)


def instructions(index: int, side: str) -> float:
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    found = []
    for count in COUNTS:
        command = [sys.executable, __file__, "--child", str(index), side, str(count)]
        run = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                              *command], capture_output=True, text=True, check=False, env=env)
        match = re.search(r"Collected : (\d+)", run.stderr)
        if match is None:
            raise SystemExit(f"callgrind gave no count:\n{run.stderr[-2000:]}")
        found.append(int(match.group(1)))
    return (found[1] - found[0]) / (COUNTS[1] - COUNTS[0])


def child(index: int, side: str, count: int) -> None:
    shape = SHAPES[index]
    items = shape.records(max(COUNTS))
    engine, python = runners(shape)
    (engine if side == "engine" else python)(items[:count])


MARKET_BUSINESSES = [
    {"name": "Bright Spark Electric", "naics": "238210", "state": "AZ",
     "annual_revenue": 1750000.25, "payroll": 620000, "employee_count": 8,
     "years_in_business": 15, "requested_limit": 1000000,
     "description": "Residential and light commercial electrical service.",
     "prior_claims": [{"amount": 8200.5, "date": "2024-05-02", "type": "property_damage"}]},
    {"name": "Harbor Bistro", "naics": "722511", "state": "CA", "annual_revenue": 1850000.75,
     "employee_count": 22, "years_in_business": 6,
     "description": "Full-service restaurant with a bar.", "prior_claims": []},
    {"name": "Ledger Labs", "naics": "541511", "state": "NY", "annual_revenue": 4200000.1,
     "employee_count": 35, "years_in_business": 11, "description": "SaaS for accountants",
     "prior_claims": [{"amount": 48000, "date": "2023-02-01"}]},
]


def market_match(rounds: int) -> None:
    """Median time to match one business against the example market, in-process."""
    from insureops.carrier_matching import load_market
    from insureops.carrier_matching.matching import match
    from insureops.platform.cli.market import read_market_folder

    started = time.process_time()
    market = load_market(read_market_folder(Path(__file__).resolve().parents[1] / "examples"
                                            / "market"))
    loaded = time.process_time() - started
    for business in MARKET_BUSINESSES:
        match(business, market, as_of=AS_OF)
    times = []
    for _ in range(rounds * 20):
        for business in MARKET_BUSINESSES:
            started = time.process_time()
            match(business, market, as_of=AS_OF)
            times.append(time.process_time() - started)
    print(f"  example market ({len(market.products)} products, {len(market.appetites)} "
          f"appetites; loaded and compiled in {loaded:.2f} s CPU): one business matched in "
          f"{statistics.median(times) * 1000:.2f} ms median, "
          f"{sorted(times)[int(len(times) * 0.9)] * 1000:.2f} ms p90 (target < 2 ms)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=50_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--instructions", action="store_true")
    parser.add_argument("--market", action="store_true")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(int(args.child[0]), args.child[1], int(args.child[2]))
        return
    print(f"{args.cases:,} records per shape, {args.rounds} interleaved rounds, medians of "
          f"CPU-time rates; load average {os.getloadavg()[0]:.1f}")
    for index, shape in enumerate(SHAPES):
        items = shape.records(args.cases)
        bad = mismatches(shape, items)
        engine, python = runners(shape)
        engine(items[:1000])
        python(items[:1000])
        rates = {"engine": [], "python": []}
        for _ in range(args.rounds):
            rates["engine"].append(_rate(engine, items))
            rates["python"].append(_rate(python, items))
        ratio = statistics.median(p / e for p, e in zip(rates["python"], rates["engine"]))
        us = {side: 1e6 / statistics.median(found) for side, found in rates.items()}
        line = (f"  {shape.name:54s} engine {us['engine']:6.2f} us, plain {us['python']:6.2f} us,"
                f" ratio {ratio:5.2f}x (target <= 3x); {bad} of {len(items):,} disagree")
        if args.instructions:
            counts = {side: instructions(index, side) for side in ("engine", "python")}
            line += (f"; instructions {counts['engine']:,.0f} vs {counts['python']:,.0f} "
                     f"({counts['engine'] / counts['python']:.2f}x)")
        print(line, flush=True)
    if args.market:
        market_match(args.rounds)


if __name__ == "__main__":
    main()
