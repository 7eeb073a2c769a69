"""Evaluations per second of the compiled appetite example vs the same logic in plain Python.

    python bench/bench_evaluate.py [--cases 100000] [--rounds 5]

Prints the compile time, each variant's median rate and their ratio; inputs are parsed up front,
so the timed loop is evaluation only. Method and target: docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from workload import APPETITE, AS_OF, generate_businesses, plain_appetite

from insureops.engine import jsonio


def _cpu_rate(run, items: list) -> float:
    """Evaluations per CPU-second (process time: on a shared machine, wall time also counts
    the waits for a core)."""
    started = time.process_time()
    run(items)
    return len(items) / (time.process_time() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()

    from insureops.dsl.api import compile_ruleset

    source = APPETITE.read_text(encoding="utf-8")
    compile_times = []
    for round_ in range(args.rounds):
        started = time.process_time()
        compiled = compile_ruleset(source, filename=f"bench-{round_}.rules")  # uncached
        compile_times.append(time.process_time() - started)
    businesses = [jsonio.loads(json.dumps(b)) for b in generate_businesses(args.cases)]

    mismatches = sum(
        1 for b in businesses[:2000]
        if (r := compiled.evaluate({"business": b}, as_of=AS_OF)).decision
        != (p := plain_appetite(b, AS_OF))["decision"] or r.score != p["score"])
    evaluate = compiled.evaluate

    def run_compiled(items):
        for b in items:
            evaluate({"business": b}, as_of=AS_OF)

    def run_traced(items):
        for b in items:
            evaluate({"business": b}, as_of=AS_OF, explain=True)

    def run_plain(items):
        for b in items:
            plain_appetite(b, AS_OF)

    traced_items = businesses[: max(1, args.cases // 5)]
    rounds = []  # interleaved, so that both sides of a ratio see the same machine noise
    for _ in range(args.rounds):
        rounds.append((_cpu_rate(run_plain, businesses), _cpu_rate(run_compiled, businesses),
                       _cpu_rate(run_traced, traced_items)))
    plain_all, fast_all, traced_all = (list(column) for column in zip(*rounds, strict=True))
    plain, fast, traced = (statistics.median(c) for c in (plain_all, fast_all, traced_all))
    ratio = statistics.median(p / f for p, f, _ in rounds)
    traced_ratio = statistics.median(f / t for _, f, t in rounds)
    print(f"appetite example, {args.cases:,} generated businesses, {args.rounds} rounds, "
          f"medians of CPU-time rates, load average {os.getloadavg()[0]:.1f}")
    print(f"  compile (uncached)     {statistics.median(compile_times) * 1000:8.1f} ms CPU")
    print(f"  plain Python function  {plain:10,.0f} evaluations/s   rounds {_fmt(plain_all)}")
    print(f"  compiled ruleset       {fast:10,.0f} evaluations/s   rounds {_fmt(fast_all)}")
    print(f"  compiled, traced       {traced:10,.0f} evaluations/s   rounds {_fmt(traced_all)}"
          f"  ({len(traced_items):,} cases)")
    print(f"  ratio plain/compiled   {ratio:8.2f}x   (median of per-round ratios; target <= 3x)")
    print(f"  ratio compiled/traced  {traced_ratio:8.2f}x")
    print(f"  result mismatches vs plain on the first 2,000: {mismatches}")


def _fmt(rates: list[float]) -> str:
    return " ".join(f"{r:,.0f}" for r in rates)


if __name__ == "__main__":
    main()
