"""Evaluations per second of compiled rulesets vs the same logic in plain Python, same input.

    python bench/bench_evaluate.py [--cases 100000] [--rounds 5] [--instructions]
        [--baseline DIR]

Issue 12's single appetite rule beside a plain lambda, and the appetite example beside its
hand-written function, both sides given the same raw JSON dicts, rounds interleaved; prints both
ratios, `--instructions` adds callgrind counts per evaluation and `--baseline DIR` runs another
checkout unpacked as `DIR/insureops` in alternating child rounds. Method: docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from workload import (
    APPETITE,
    AS_OF,
    SINGLE_RULE,
    generate_businesses,
    plain_appetite,
    single_rule_lambda,
)

VARIANTS = ("lambda", "single", "plain", "appetite")
COUNTS = (1000, 3000)  # records evaluated by the two callgrind runs of a variant


def records(count: int) -> list[dict]:
    """`count` generated businesses as the json module reads them from text."""
    return [json.loads(json.dumps(b)) for b in generate_businesses(count)]


def runners(variant: str):
    """`run(items)` evaluating every item with one of the four variants."""
    from insureops.dsl import compile_ruleset

    if variant == "lambda":
        test = single_rule_lambda

        def run(items):
            for r in items:
                test(r)
    elif variant == "single":
        compiled = compile_ruleset(SINGLE_RULE, filename="bench-single.rules")

        def run(items):  # `compiled.evaluate` looked up per call, as a caller writes it
            for r in items:
                compiled.evaluate({"r": r})
    elif variant == "plain":
        def run(items):
            for b in items:
                plain_appetite(b, AS_OF)
    else:
        appetite = compile_ruleset(APPETITE.read_text(encoding="utf-8"),
                                   filename="bench-appetite.rules")

        def run(items):
            for b in items:
                appetite.evaluate({"business": b}, as_of=AS_OF)
    return run


def _cpu_rate(run, items: list) -> float:
    """Evaluations per CPU-second (process time: on a shared machine, wall time also counts
    the waits for a core)."""
    started = time.process_time()
    run(items)
    return len(items) / (time.process_time() - started)


def mismatches(items: list[dict]) -> tuple[int, int]:
    """Records on which the compiled rulesets and their plain versions disagree: the single
    rule's decision vs the lambda; every field of the appetite result vs the function's."""
    from insureops.dsl import compile_ruleset

    single = compile_ruleset(SINGLE_RULE, filename="check-single.rules")
    appetite = compile_ruleset(APPETITE.read_text(encoding="utf-8"), filename="check.rules")
    single_bad = appetite_bad = 0
    for r in items:
        expected = "accept" if single_rule_lambda(r) else "decline"
        single_bad += single.evaluate({"r": r}).decision != expected
        got = appetite.evaluate({"business": r}, as_of=AS_OF).to_dict()
        want = plain_appetite(r, AS_OF)
        appetite_bad += got != want
    return single_bad, appetite_bad


def _env(baseline: str | None) -> dict:
    env = {**os.environ, "PYTHONHASHSEED": "0"}  # set and dict orders, hence counts, repeatable
    if baseline:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [baseline, env.get("PYTHONPATH")]))
    return env


def instructions(variant: str, baseline: str | None = None) -> float:
    """Instructions per evaluation of `variant` under callgrind (see the module docstring)."""
    env = _env(baseline)
    collected = []
    for count in COUNTS:
        command = [sys.executable, __file__, "--child", variant, "--cases", str(count)]
        run = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                              *command], capture_output=True, text=True, check=False, env=env)
        found = re.search(r"Collected : (\d+)", run.stderr)
        if found is None:
            raise SystemExit(f"callgrind gave no count:\n{run.stderr[-2000:]}")
        collected.append(int(found.group(1)))
    return (collected[1] - collected[0]) / (COUNTS[1] - COUNTS[0])


def rates_child(count: int) -> None:
    """One round of every variant on `count` records, printed as JSON (for `--baseline`)."""
    items = records(count)
    runs = {variant: runners(variant) for variant in VARIANTS}
    for run in runs.values():
        run(items[:1000])
    print(json.dumps({variant: _cpu_rate(run, items) for variant, run in runs.items()}))


def versus_baseline(baseline: str, count: int, rounds: int) -> dict[str, list[dict]]:
    """Rounds of `rates_child` alternating between this checkout and the baseline."""
    found: dict[str, list[dict]] = {"this checkout": [], "baseline": []}
    for _ in range(rounds):
        for label, where in (("this checkout", None), ("baseline", baseline)):
            run = subprocess.run([sys.executable, __file__, "--rates-child", "--cases",
                                  str(count)], capture_output=True, text=True, check=True,
                                 env=_env(where))
            found[label].append(json.loads(run.stdout))
    return found


def child(variant: str, count: int) -> None:
    """The measured process of `instructions`: the same records made for every count, the
    first `count` evaluated."""
    items = records(max(COUNTS))
    runners(variant)(items[:count])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--instructions", action="store_true")
    parser.add_argument("--baseline", metavar="DIR")
    parser.add_argument("--child", choices=VARIANTS, help=argparse.SUPPRESS)
    parser.add_argument("--rates-child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.cases)
        return
    if args.rates_child:
        rates_child(args.cases)
        return

    items = records(args.cases)
    single_bad, appetite_bad = mismatches(items[:5000])
    runs = {variant: runners(variant) for variant in VARIANTS}
    for run in runs.values():
        run(items[:1000])  # warm-up: the generated fast paths are made
    rates: dict[str, list[float]] = {variant: [] for variant in VARIANTS}
    for _ in range(args.rounds):  # interleaved: both sides of a ratio see the same noise
        for variant, run in runs.items():
            rates[variant].append(_cpu_rate(run, items))
    single_ratio = statistics.median(
        lam / one for lam, one in zip(rates["lambda"], rates["single"], strict=True))
    appetite_ratio = statistics.median(
        p / a for p, a in zip(rates["plain"], rates["appetite"], strict=True))
    print(f"{args.cases:,} generated businesses (raw JSON dicts), {args.rounds} rounds, "
          f"medians of CPU-time rates, load average {os.getloadavg()[0]:.1f}")
    labels = {"lambda": "plain lambda (single rule)", "single": "compiled single rule",
              "plain": "plain appetite function", "appetite": "compiled appetite example"}
    for variant in VARIANTS:
        median = statistics.median(rates[variant])
        print(f"  {labels[variant]:28s} {median:11,.0f} /s  ({1e6 / median:6.2f} us)  rounds "
              f"{' '.join(f'{r:,.0f}' for r in rates[variant])}")
    print(f"  single rule: compiled / lambda      {single_ratio:6.2f}x  (target <= 4x)")
    print(f"  appetite: compiled / plain function {appetite_ratio:6.2f}x  (target <= 2x)")
    print(f"  mismatches on the first 5,000: single rule {single_bad}, appetite {appetite_bad}")
    if args.baseline:
        found = versus_baseline(args.baseline, args.cases, args.rounds)
        print(f"  child processes, {args.rounds} alternating rounds each, medians "
              f"(load average {os.getloadavg()[0]:.1f}):")
        for label, runs in found.items():
            us = {v: statistics.median(1e6 / run[v] for run in runs) for v in VARIANTS}
            single = statistics.median(run["lambda"] / run["single"] for run in runs)
            appetite = statistics.median(run["plain"] / run["appetite"] for run in runs)
            print(f"    {label:14s} single rule {us['single']:6.2f} us ({single:5.2f}x the "
                  f"lambda), appetite {us['appetite']:6.2f} us ({appetite:5.2f}x the function)")
    if args.instructions:
        counts = {variant: instructions(variant) for variant in VARIANTS}
        for variant in VARIANTS:
            print(f"  instructions per evaluation, {labels[variant]:28s} {counts[variant]:9,.0f}")
        print(f"  instruction ratios: single rule {counts['single'] / counts['lambda']:.2f}x, "
              f"appetite {counts['appetite'] / counts['plain']:.2f}x")
        if args.baseline:
            base = {variant: instructions(variant, args.baseline)
                    for variant in ("single", "appetite")}
            print(f"  baseline: single rule {base['single']:,.0f} "
                  f"({base['single'] / counts['lambda']:.2f}x), appetite "
                  f"{base['appetite']:,.0f} ({base['appetite'] / counts['plain']:.2f}x)")


if __name__ == "__main__":
    main()
