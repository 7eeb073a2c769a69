"""Compile time of a generated 50-rule ruleset, and the import time of the CLI.

    /work/.venv/bin/python bench/bench_compile.py [--rules 50] [--rounds 5]

Cold: the first compile in a fresh interpreter (grammar loading included). Uncached: a compile
in a warm interpreter under a new file name, so the source-hash cache misses. Cached: the same
call again. Targets: compile < 50 ms; `import insureops.platform.cli` and `insureops --help`
< 150 ms.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from workload import generate_ruleset

COLD = """
import sys, time
source = sys.stdin.read()
started = time.perf_counter()
from insureops.dsl.api import compile_ruleset
compile_ruleset(source, filename="cold.rules")
print(time.perf_counter() - started)
"""


def _median_ms(samples: list[float]) -> str:
    return f"{statistics.median(samples) * 1000:8.1f} ms   rounds " + " ".join(
        f"{s * 1000:.1f}" for s in samples)


def cold_compile(source: str) -> float:
    done = subprocess.run([sys.executable, "-c", COLD], input=source, capture_output=True,
                          text=True, check=True)
    return float(done.stdout.strip())


def process_time(arguments: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(arguments, capture_output=True, check=True)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()

    from insureops.dsl.api import compile_ruleset

    source = generate_ruleset(args.rules)
    cold = [cold_compile(source) for _ in range(args.rounds)]
    uncached, cached = [], []
    for round_ in range(args.rounds):
        started = time.perf_counter()
        compile_ruleset(source, filename=f"warm-{round_}.rules")
        uncached.append(time.perf_counter() - started)
        started = time.perf_counter()
        compile_ruleset(source, filename=f"warm-{round_}.rules")
        cached.append(time.perf_counter() - started)
    python = [process_time([sys.executable, "-c", "pass"]) for _ in range(args.rounds)]
    imports = [process_time([sys.executable, "-c", "import insureops.platform.cli"])
               for _ in range(args.rounds)]
    helps = [process_time([str(Path(sys.executable).with_name("insureops")), "rules", "--help"])
             for _ in range(args.rounds)]

    print(f"compile, generated {args.rules}-rule ruleset ({len(source.splitlines())} lines), "
          f"{args.rounds} rounds, medians (target < 50 ms)")
    print(f"  cold (fresh process)     {_median_ms(cold)}")
    print(f"  uncached (warm process)  {_median_ms(uncached)}")
    print(f"  cached                   {_median_ms(cached)}")
    print("CLI start-up, wall time of a fresh process (target < 150 ms)")
    print(f"  python -c pass                     {_median_ms(python)}")
    print(f"  import insureops.platform.cli      {_median_ms(imports)}")
    print(f"  insureops rules --help             {_median_ms(helps)}")


if __name__ == "__main__":
    main()
