"""`insureops rules simulate` throughput, JSON in and out included.

    /work/.venv/bin/python bench/bench_simulate.py [--cases 100000] [--rounds 5] [--profile]

Writes a seeded cases file for the appetite example, runs the real CLI in a subprocess
`--rounds` times (`--out` to a file) and prints the median cases per second (target >= 20,000
on one core). `--profile` also runs the same command in-process under cProfile on a fifth of the
cases and prints where the time goes.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from workload import APPETITE, write_cases

CLI = [str(Path(sys.executable).with_name("insureops"))]  # the installed console script


def _command(cases: Path, out: Path) -> list[str]:
    return ["rules", "simulate", str(APPETITE), "--cases", str(cases), "--out", str(out)]


def run_subprocess(cases: Path, out: Path) -> float:
    """Seconds for one CLI run, process start included."""
    started = time.perf_counter()
    completed = subprocess.run([*CLI, *_command(cases, out)], capture_output=True, text=True,
                               check=False)
    elapsed = time.perf_counter() - started
    if completed.returncode != 0:
        raise SystemExit(f"simulate failed ({completed.returncode}):\n{completed.stderr}")
    return elapsed


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as folder:
        cases, out = Path(folder) / "cases.jsonl", Path(folder) / "results.jsonl"
        write_cases(cases, args.cases)
        size = cases.stat().st_size
        times = [run_subprocess(cases, out) for _ in range(args.rounds)]
        lines = sum(1 for _ in out.open(encoding="utf-8"))
        median = statistics.median(times)
        print(f"rules simulate, appetite example, {args.cases:,} cases "
              f"({size / 1e6:.1f} MB in), {args.rounds} rounds, subprocess, medians")
        print(f"  wall time      {median:8.2f} s   rounds {' '.join(f'{t:.2f}' for t in times)}")
        print(f"  throughput     {args.cases / median:10,.0f} cases/s   (target >= 20,000)")
        print(f"  result lines   {lines:,}")
        if args.profile:
            small = Path(folder) / "small.jsonl"
            write_cases(small, max(1, args.cases // 5), seed=7)
            print(profile_in_process(small, out))


if __name__ == "__main__":
    main()
