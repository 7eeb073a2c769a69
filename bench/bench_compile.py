"""Compile time of a generated 50-rule ruleset, and the import time of the CLI.

    /work/.venv/bin/python bench/bench_compile.py [--rules 50] [--rounds 5]

Cold: the first compile in a fresh interpreter (grammar loading included). Uncached: a compile
in a warm interpreter under a new file name, so the source-hash cache misses. Cached: the same
call again. Targets: compile < 50 ms; `import insureops.platform.cli` and `insureops --help`
< 150 ms.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
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


def _median_ms(samples: list[float]) -> str:
    return f"{statistics.median(samples) * 1000:8.1f} ms   rounds " + " ".join(
        f"{s * 1000:.1f}" for s in samples)


def cold_compile(source: str) -> float:
    done = subprocess.run([sys.executable, "-c", COLD], input=source, capture_output=True,
                          text=True, check=True, env=ENV)
    return float(done.stdout.strip())


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def process_time(arguments: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds of a fresh process running `arguments`."""
    cpu, started = _children_cpu(), time.perf_counter()
    subprocess.run(arguments, capture_output=True, check=True, env=ENV)
    return time.perf_counter() - started, _children_cpu() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()

    from insureops.dsl.api import compile_ruleset

    source = generate_ruleset(args.rules)
    cold_compile(source)  # warm-up: writes the bytecode caches
    cold = [cold_compile(source) for _ in range(args.rounds)]
    uncached, cached = [], []
    for round_ in range(args.rounds):
        started = time.process_time()
        compile_ruleset(source, filename=f"warm-{round_}.rules")
        uncached.append(time.process_time() - started)
        started = time.perf_counter()
        compile_ruleset(source, filename=f"warm-{round_}.rules")
        cached.append(time.perf_counter() - started)
    python = [process_time([sys.executable, "-c", "pass"]) for _ in range(args.rounds)]
    imports = [process_time([sys.executable, "-c", "import insureops.platform.cli"])
               for _ in range(args.rounds)]
    helps = [process_time([str(Path(sys.executable).with_name("insureops")), "rules", "--help"])
             for _ in range(args.rounds)]

    print(f"compile, generated {args.rules}-rule ruleset ({len(source.splitlines())} lines), "
          f"{args.rounds} rounds, medians (target < 50 ms), load average "
          f"{os.getloadavg()[0]:.1f}")
    print(f"  cold (fresh process, CPU)     {_median_ms(cold)}")
    print(f"  uncached (warm process, CPU)  {_median_ms(uncached)}")
    print(f"  cached (wall)                 {_median_ms(cached)}")
    print("CLI start-up of a fresh process (target < 150 ms)")
    for label, runs in (("python -c pass", python), ("import insureops.platform.cli", imports),
                        ("insureops rules --help", helps)):
        print(f"  {label:30s} wall {_median_ms([r[0] for r in runs])}")
        print(f"  {'':30s} CPU  {_median_ms([r[1] for r in runs])}")


if __name__ == "__main__":
    main()
