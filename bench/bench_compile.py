"""Compile time of a generated 50-rule ruleset, and the start-up time of the CLI.

    python bench/bench_compile.py [--rules 50] [--rounds 9] [--baseline OTHER_PYTHON]

Cold and warm compiles (split into phases) and CLI start-up, as CPU time in child processes, with
another checkout's Python (`--baseline`) interleaved round by round. Method and targets:
docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from workload import generate_ruleset

# Fresh processes as users run them: with bytecode caches (an environment that sets
# PYTHONDONTWRITEBYTECODE would otherwise recompile every module of ours at each start).
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

COLD = """
import sys, time
source = sys.stdin.read()
started = time.process_time()
from insureops.dsl.api import compile_ruleset
compile_ruleset(source, filename="cold.rules")
print(time.process_time() - started)
"""

# Phase names follow dsl/api.py: parse_file, build_ruleset, check_ruleset, compile_ir.
WARM = """
import json, sys, time
source, compiles = sys.stdin.read(), int(sys.argv[1])
from insureops.dsl.api import compile_ruleset, parse_file, build_ruleset, check_ruleset
from insureops.engine.evaluation.compiler import compile_ir
from insureops.schema.registry import default_registry
registry = default_registry()
compile_ruleset(source, filename="warm-up.rules")
whole, phases = [], {"parse": [], "build": [], "check": [], "compile IR": []}
for n in range(compiles):
    started = time.process_time()
    compile_ruleset(source, filename=f"warm-{n}.rules")
    whole.append(time.process_time() - started)
    t0 = time.process_time()
    tree, _ = parse_file(source)
    t1 = time.process_time()
    ruleset, _ = build_ruleset(tree, source)
    t2 = time.process_time()
    check_ruleset(ruleset, registry)
    t3 = time.process_time()
    compile_ir(ruleset, input_schemas={d.name: registry.get(d.type_name) for d in ruleset.inputs})
    t4 = time.process_time()
    for name, spent in zip(phases, (t1 - t0, t2 - t1, t3 - t2, t4 - t3)):
        phases[name].append(spent)
print(json.dumps({"whole": whole, **phases}))
"""


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_python(python: str, script: str, source: str, *arguments: str) -> str:
    done = subprocess.run([python, "-c", script, *arguments], input=source, capture_output=True,
                          text=True, check=True, env=ENV)
    return done.stdout


def process_cpu(arguments: list[str]) -> float:
    """CPU seconds of a fresh process running `arguments`."""
    cpu = _children_cpu()
    subprocess.run(arguments, capture_output=True, check=True, env=ENV)
    return _children_cpu() - cpu


def measure(python: str, source: str, compiles: int) -> dict[str, list[float]]:
    """One round for one interpreter: a cold compile, `compiles` warm ones (with phases), and
    the CLI's start-up."""
    figures = json.loads(run_python(python, WARM, source, str(compiles)))
    figures["cold"] = [float(run_python(python, COLD, source))]
    figures["import CLI"] = [process_cpu([python, "-c", "import insureops.platform.cli"])]
    figures["rules --help"] = [process_cpu([str(Path(python).with_name("insureops")),
                                            "rules", "--help"])]
    figures["python -c pass"] = [process_cpu([python, "-c", "pass"])]
    return figures


def _ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--compiles", type=int, default=5, help="warm compiles per round")
    parser.add_argument("--baseline", help="the Python of a baseline checkout")
    args = parser.parse_args()

    source = generate_ruleset(args.rules)
    sides = {"this checkout": sys.executable}
    if args.baseline:
        sides["baseline"] = args.baseline
    for python in sides.values():
        run_python(python, COLD, source)  # writes the bytecode caches
    results: dict[str, dict[str, list[float]]] = {side: {} for side in sides}
    for _ in range(args.rounds):
        for side, python in sides.items():
            for name, samples in measure(python, source, args.compiles).items():
                results[side].setdefault(name, []).extend(samples)

    print(f"compile of a generated {args.rules}-rule ruleset ({len(source.splitlines())} lines), "
          f"{args.rounds} rounds, CPU medians in ms, load average {os.getloadavg()[0]:.1f}")
    header = "".join(f"{side:>16}" for side in sides) + ("     ratio" if args.baseline else "")
    print(f"  {'':32}{header}")
    rows = ["cold", "whole", "parse", "build", "check", "compile IR", "import CLI",
            "rules --help", "python -c pass"]
    labels = {"cold": "compile, fresh process", "whole": "compile, warm (target < 50)",
              "parse": "  parse", "build": "  build IR", "check": "  check",
              "compile IR": "  compile IR", "import CLI": "import insureops.platform.cli",
              "rules --help": "insureops rules --help", "python -c pass": "python -c pass"}
    for row in rows:
        values = [_ms(results[side][row]) for side in sides]
        line = f"  {labels[row]:32}" + "".join(f"{value:16.1f}" for value in values)
        if args.baseline:
            line += f"{values[1] / values[0]:9.2f}x"
        print(line)
    if args.baseline:
        print("  ratio: baseline / this checkout (above 1: this checkout is faster)")


if __name__ == "__main__":
    main()
