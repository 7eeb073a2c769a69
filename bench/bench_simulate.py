"""`insureops rules simulate` throughput, JSON in and out included.

    python bench/bench_simulate.py [--cases 100000] [--rounds 5] [--profile]
        [--instructions] [--baseline-python PYTHON]

Runs the real CLI on a seeded cases file and prints the median cases per second; `--profile`
adds cProfile, `--baseline-python` alternates rounds with another checkout's CLI, and
`--instructions` counts instructions per case with callgrind. It also runs issue 12's
three-rule workload (`bench/three_rules.rules`) in rounds alternating with the same job done by
a json-module script (`bench/plain_simulate.py`) and prints their CPU ratio. Method:
docs/performance.md.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import itertools
import json
import os
import pstats
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from workload import APPETITE, write_cases

CLI = [str(Path(sys.executable).with_name("insureops"))]  # the installed console script
# as users run it: with bytecode caches, whatever this shell's PYTHONDONTWRITEBYTECODE says
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


THREE_RULES = Path(__file__).resolve().with_name("three_rules.rules")
PLAIN_SCRIPT = Path(__file__).resolve().with_name("plain_simulate.py")


def _command(cases: Path, out: Path, rules: Path = APPETITE) -> list[str]:
    return ["rules", "simulate", str(rules), "--cases", str(cases), "--out", str(out)]


def _cpu_of(command: list[str]) -> float:
    cpu = _children_cpu()
    completed = subprocess.run(command, capture_output=True, text=True, check=False, env=ENV)
    if completed.returncode != 0:
        raise SystemExit(f"{command[:3]} failed ({completed.returncode}):\n{completed.stderr}")
    return _children_cpu() - cpu


def versus_json(cases: Path, folder: Path, rounds: int) -> tuple[list[float], list[float], int]:
    """CPU seconds of `rules simulate` on THREE_RULES and of the plain json-module script,
    in alternating rounds, and the number of result lines on which they differ."""
    ours, plain = folder / "three_engine.jsonl", folder / "three_plain.jsonl"
    cli = [*CLI, *_command(cases, ours, THREE_RULES)]
    script = [sys.executable, str(PLAIN_SCRIPT), str(cases), str(plain)]
    engine_cpu, plain_cpu = [], []
    _cpu_of(cli)  # warm-up: bytecode caches
    for _ in range(rounds):
        engine_cpu.append(_cpu_of(cli))
        plain_cpu.append(_cpu_of(script))
    with ours.open(encoding="utf-8") as a, plain.open(encoding="utf-8") as b:
        differing = sum(json.loads(x) != json.loads(y)
                        for x, y in itertools.zip_longest(a, b, fillvalue="null"))
    return engine_cpu, plain_cpu, differing


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_subprocess(cases: Path, out: Path, cli: list[str] = CLI) -> tuple[float, float]:
    """Wall and CPU seconds of one CLI run, process start included. CPU time is what one
    uncontended core would take; wall time also counts waiting for a shared core."""
    cpu, started = _children_cpu(), time.perf_counter()
    completed = subprocess.run([*cli, *_command(cases, out)], capture_output=True, text=True,
                               check=False, env=ENV)
    elapsed = time.perf_counter() - started
    if completed.returncode != 0:
        raise SystemExit(f"simulate failed ({completed.returncode}):\n{completed.stderr}")
    return elapsed, _children_cpu() - cpu


def profile_in_process(cases: Path, out: Path, top: int = 25) -> str:
    """cProfile of one in-process run, sorted by own time."""
    from click.testing import CliRunner

    from insureops.platform.cli import main

    profiler = cProfile.Profile()
    profiler.enable()
    result = CliRunner().invoke(main, _command(cases, out))
    profiler.disable()
    if result.exit_code != 0:
        raise SystemExit(f"simulate failed in-process: {result.output}")
    report = io.StringIO()
    pstats.Stats(profiler, stream=report).sort_stats("tottime").print_stats(top)
    return report.getvalue()


def stage_costs(cases: Path) -> list[tuple[str, float]]:
    """CPU microseconds per case of each step of the simulate loop on the three rules, and of
    the json-module script's steps, measured in-process one step at a time (no profiler
    overhead): where the time of a case goes."""
    from datetime import date

    import plain_simulate

    from insureops.dsl.api import compile_ruleset
    from insureops.engine.evaluation.simulation import SummaryAccumulator
    from insureops.platform.batch.cases import CaseEvaluator, CaseReader, result_line

    compiled = compile_ruleset(THREE_RULES.read_text(encoding="utf-8"), filename=str(THREE_RULES))
    raw = cases.read_bytes()
    count = raw.count(b"\n")
    costs = []

    def timed(label, step):
        started = time.process_time()
        value = step()
        costs.append((label, (time.process_time() - started) / count * 1e6))
        return value

    parsed = timed("read + parse JSON line", lambda: list(
        CaseReader(io.BytesIO(raw), default_as_of=date(2026, 3, 1))))
    evaluator = CaseEvaluator(compiled, filename=str(THREE_RULES))
    results = timed("evaluate (conversion included)", lambda: [
        outcome for _, outcome in evaluator.outcomes(parsed)])
    memo: dict = {}
    timed("write result line", lambda: [
        result_line(case, result, memo) for case, result in zip(parsed, results, strict=True)])
    summary = SummaryAccumulator.for_ruleset(compiled.ir)
    timed("aggregate summary", lambda: [summary.add(result) for result in results])
    lines = raw.splitlines()
    plain = timed("script: json.loads", lambda: [json.loads(line) for line in lines])
    decided = timed("script: evaluate", lambda: [
        plain_simulate.evaluate(case["inputs"]["business"]) for case in plain])
    timed("script: json.dumps", lambda: [json.dumps({"id": case["id"], "result": result})
                                         for case, result in zip(plain, decided, strict=True)])
    return costs


def whole_process_instructions(cases: Path, folder: Path) -> dict[str, int]:
    """Instructions of the whole `rules simulate` process on THREE_RULES and of the plain
    script, start-up included, under callgrind (same cases, same environment)."""
    env = {**ENV, "PYTHONHASHSEED": "0"}
    commands = {"rules simulate": [*CLI, *_command(cases, folder / "i.jsonl", THREE_RULES)],
                "plain script": [sys.executable, str(PLAIN_SCRIPT), str(cases),
                                 str(folder / "p.jsonl")]}
    found = {}
    for label, command in commands.items():
        subprocess.run(command, capture_output=True, check=False, env=env)  # caches written
        run = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                              *command], capture_output=True, text=True, check=False, env=env)
        counted = re.search(r"Collected : (\d+)", run.stderr)
        if counted is None:
            raise SystemExit(f"callgrind gave no count:\n{run.stderr[-2000:]}")
        found[label] = int(counted.group(1))
    return found


def instructions_per_case(python: str, cases: Path, out: Path,
                          counts: tuple[int, int] = (1000, 5000)) -> float:
    """Instructions per case of the in-process command under callgrind: run on the first
    `counts[0]` and the first `counts[1]` cases, the difference divided by the extra cases
    (start-up, compile and code generation cancel out). Needs valgrind."""
    code = ("import sys; from insureops.platform.cli import main; "
            "main(sys.argv[1:], standalone_mode=False)")
    env = {**ENV, "PYTHONHASHSEED": "0"}  # set and dict orders, hence counts, repeatable
    collected = []
    for count in counts:
        part = cases.with_name(f"first_{count}.jsonl")
        with cases.open("rb") as source, part.open("wb") as target:
            target.writelines(itertools.islice(source, count))
        command = [python, "-c", code, *_command(part, out)]
        subprocess.run(command, capture_output=True, check=False, env=env)  # bytecode caches
        run = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                              *command], capture_output=True, text=True, check=False, env=env)
        found = re.search(r"Collected : (\d+)", run.stderr)
        if found is None:
            raise SystemExit(f"callgrind gave no count:\n{run.stderr[-2000:]}")
        collected.append(int(found.group(1)))
    return (collected[1] - collected[0]) / (counts[1] - counts[0])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--instructions", action="store_true")
    parser.add_argument("--baseline-python")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as folder:
        cases, out = Path(folder) / "cases.jsonl", Path(folder) / "results.jsonl"
        write_cases(cases, args.cases)
        size = cases.stat().st_size
        # With a baseline, its rounds alternate with ours, so that the neighbours' noise hits
        # both sides of the ratio.
        clis = {"this checkout": CLI}
        if args.baseline_python:
            clis["baseline"] = [str(Path(args.baseline_python).with_name("insureops"))]
        rounds: dict[str, list[tuple[float, float]]] = {label: [] for label in clis}
        for cli in clis.values():
            run_subprocess(cases, out, cli)  # warm-up: writes the bytecode caches
        for _ in range(args.rounds):
            for label, cli in clis.items():
                rounds[label].append(run_subprocess(cases, out, cli))
        run_subprocess(cases, out)  # leave this checkout's results to count
        runs = rounds["this checkout"]
        with out.open(encoding="utf-8") as results:
            lines = sum(1 for _ in results)
        wall = statistics.median(r[0] for r in runs)
        cpu = statistics.median(r[1] for r in runs)
        print(f"rules simulate, appetite example, {args.cases:,} cases "
              f"({size / 1e6:.1f} MB in), {args.rounds} rounds, subprocess, medians")
        print(f"  wall time      {wall:8.2f} s   rounds {' '.join(f'{r[0]:.2f}' for r in runs)}")
        print(f"  CPU time       {cpu:8.2f} s   rounds {' '.join(f'{r[1]:.2f}' for r in runs)}")
        print(f"  throughput     {args.cases / wall:10,.0f} cases/s wall, "
              f"{args.cases / cpu:,.0f} cases/CPU-s   (target >= 20,000)")
        if "baseline" in rounds:
            base = statistics.median(r[1] for r in rounds["baseline"])
            print(f"  baseline       {args.cases / base:10,.0f} cases/CPU-s   rounds "
                  f"{' '.join(f'{r[1]:.2f}' for r in rounds['baseline'])} s;  ratio "
                  f"{base / cpu:.2f}x (baseline CPU / this checkout's)")
        print(f"  result lines   {lines:,}   load average {os.getloadavg()[0]:.1f}")
        engine_cpu, plain_cpu, differing = versus_json(cases, Path(folder), args.rounds)
        ratio = statistics.median(e / p for e, p in zip(engine_cpu, plain_cpu, strict=True))
        print(f"  issue 12 workload (three rules): rules simulate {statistics.median(engine_cpu):.2f}"
              f" s CPU, plain json-module script {statistics.median(plain_cpu):.2f} s;  ratio "
              f"{ratio:.2f}x (median of alternating rounds; target <= 1x); results differing "
              f"{differing}")
        print("  CPU per case, in-process, step by step (three rules; then the script's steps):")
        for label, micros in stage_costs(cases):
            print(f"    {label:34s} {micros:7.1f} us")
        if args.instructions:
            pythons = [("this checkout", sys.executable)]
            if args.baseline_python:
                pythons.append(("baseline", args.baseline_python))
            for label, python in pythons:
                per_case = instructions_per_case(python, cases, out)
                print(f"  instructions per case ({label}, callgrind)  {per_case:,.0f}")
            whole = whole_process_instructions(cases, Path(folder))
            engine, script = whole["rules simulate"], whole["plain script"]
            print(f"  whole process, three rules, callgrind: rules simulate {engine:,}, "
                  f"plain script {script:,} instructions;  ratio {engine / script:.2f}x")
        if args.profile:
            small = Path(folder) / "small.jsonl"
            write_cases(small, max(1, args.cases // 5), seed=7)
            print(profile_in_process(small, out))


if __name__ == "__main__":
    main()
