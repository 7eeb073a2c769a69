"""Where the time of one evaluation goes: the single appetite rule of issue 12, step by step.

    /work/.venv/bin/python bench/breakdown_evaluate.py [--cases 50000] [--rounds 5] [--profile]

Times, per evaluation and in one process, on the same raw JSON dicts: the plain lambda, the
whole `evaluate`, the input conversion alone (the engine's binding step, while it exists), the
generated rule function on already converted input, and the rest (call set-up and `Result`).
Medians of CPU time over `--rounds` interleaved rounds. `--profile` adds a cProfile of
`evaluate`. The step names are private engine functions: the script reports what it cannot
find rather than fail.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_evaluate import records
from workload import SINGLE_RULE, single_rule_lambda


def _micros(run, items: list) -> float:
    started = time.process_time()
    run(items)
    return (time.process_time() - started) / len(items) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=50_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()

    from insureops.dsl import Limits, compile_ruleset
    from insureops.engine.evaluation.expressions import EVAL
    from insureops.engine.ir.context import Evaluation

    items = records(args.cases)
    compiled = compile_ruleset(SINGLE_RULE, filename="breakdown.rules")
    evaluate, limits, lam = compiled.evaluate, Limits(), single_rule_lambda
    for r in items[:1000]:
        evaluate({"r": r})  # past the warm-up: the generated function exists
    fast, bind = compiled._generated, compiled._bind
    bound = [bind({"r": r}, limits) for r in items]
    regexes = compiled._regexes

    def run_generated(envs):
        for env in envs:
            env[EVAL] = ev = Evaluation(None, limits, regexes)
            fast(env, ev)

    def run_lambda(rs):
        for r in rs:
            lam(r)

    def run_evaluate(rs):
        for r in rs:
            evaluate({"r": r})

    def run_bind(rs):
        for r in rs:
            bind({"r": r}, limits)

    steps = {  # each discards what it makes: holding 50,000 results would time the collector
        "plain lambda": run_lambda,
        "evaluate, whole call": run_evaluate,
        "input conversion (_bind)": run_bind,
        "rule function + Result": None,
    }
    costs: dict[str, list[float]] = {name: [] for name in steps}
    for _ in range(args.rounds):
        for name, run in steps.items():
            costs[name].append(_micros(run_generated, bound) if run is None
                               else _micros(run, items))
    median = {name: statistics.median(values) for name, values in costs.items()}
    rest = median["evaluate, whole call"] - median["input conversion (_bind)"] \
        - median["rule function + Result"]
    print(f"single rule, {args.cases:,} raw records, {args.rounds} rounds, CPU us per evaluation")
    for name, value in median.items():
        print(f"  {name:28s} {value:7.2f} us")
    print(f"  {'rest (call set-up)':28s} {rest:7.2f} us")
    print(f"  whole call / lambda          {median['evaluate, whole call'] / median['plain lambda']:7.1f}x")
    if args.profile:
        profile = cProfile.Profile()
        profile.enable()
        for r in items:
            evaluate({"r": r})
        profile.disable()
        text = io.StringIO()
        pstats.Stats(profile, stream=text).sort_stats("tottime").print_stats(15)
        print(text.getvalue())


if __name__ == "__main__":
    main()
