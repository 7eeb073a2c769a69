"""Accuracy and speed of the offline NAICS classifier on the project's labelled evaluation set.

    python bench/bench_classify.py [--rounds 3] [--misses]

Prints top-1 and top-3 accuracy for the tuning and the held-out parts of
tests/carrier_matching/classifier_eval.jsonl (a hit: any accepted code is there), apart for the
lines written after the index existed (the nearest this set comes to unseen wording), how well
the top result's confidence tracks its accuracy, and the first and later calls' CPU and wall
time per description. `--misses` lists tuning lines missed in the top 3, never held-out ones.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from insureops.carrier_matching.classifier import classify

EVAL_SET = Path(__file__).resolve().parents[1] / "tests" / "carrier_matching" / "classifier_eval.jsonl"


def _rows() -> list[dict]:
    return [json.loads(line) for line in EVAL_SET.read_text().splitlines() if line.strip()]


def _classify(row: dict) -> list[str]:
    return [r.naics for r in classify(row["description"], name=row.get("name"),
                                      website=row.get("website"))]


def _accuracy(rows: list[dict], split: str, written: str | None = None) -> tuple[int, float, float]:
    part = [row for row in rows
            if row["split"] == split and (written is None or row.get("written") == written)]
    top1 = sum(bool(set(_classify(r)[:1]) & set(r["expected"])) for r in part)
    top3 = sum(bool(set(_classify(r)[:3]) & set(r["expected"])) for r in part)
    return len(part), top1 / len(part), top3 / len(part)


def _calibration(rows: list[dict]) -> list[tuple[str, int, float, float]]:
    """Per confidence band of the top result: lines, mean confidence, top-1 accuracy."""
    bands = [(0.0, 0.3), (0.3, 0.5), (0.5, 0.7), (0.7, 1.01)]
    found = {band: [] for band in bands}
    for row in rows:
        results = classify(row["description"], name=row.get("name"), website=row.get("website"))
        if not results:
            continue
        top = results[0]
        band = next(b for b in bands if b[0] <= top.confidence < b[1])
        found[band].append((top.confidence, top.naics in row["expected"]))
    return [(f"{low:.1f}-{min(high, 1.0):.1f}", len(items),
             statistics.fmean(c for c, _ in items), sum(h for _, h in items) / len(items))
            for (low, high), items in found.items() if items]


def _timings(rows: list[dict], rounds: int) -> tuple[list[float], list[float]]:
    """CPU and wall seconds per call: CPU time leaves out the waits for a core on a shared
    machine; the first round also pays the stemming and typo look-ups of unseen words."""
    cpu, wall = [], []
    for _ in range(rounds):
        for row in rows:
            wall_start, cpu_start = time.perf_counter(), time.process_time()
            classify(row["description"], name=row.get("name"), website=row.get("website"))
            cpu.append(time.process_time() - cpu_start)
            wall.append(time.perf_counter() - wall_start)
    return sorted(cpu), sorted(wall)


def _print_times(label: str, times: list[float]) -> None:
    p99 = times[min(len(times) - 1, int(len(times) * 0.99))]
    print(f"  {label}: median {statistics.median(times) * 1000:.3f} ms  p99 {p99 * 1000:.3f} ms"
          f"  max {times[-1] * 1000:.3f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--misses", action="store_true", help="list the tuning lines missed")
    args = parser.parse_args()
    rows = _rows()
    started = time.perf_counter()
    classify(rows[0]["description"])
    first_call = time.perf_counter() - started
    print(f"evaluation set: {len(rows)} descriptions ({EVAL_SET.name})")
    for split in ["tuning", "held-out"]:
        for written in [None, "after-index"]:
            count, top1, top3 = _accuracy(rows, split, written)
            label = split if written is None else "  of which written after the index"
            print(f"{label:>35}: {count:3d} lines  top-1 {top1:6.1%}  top-3 {top3:6.1%}")
    print("confidence of the top result against its top-1 accuracy (all lines):")
    for band, count, mean, accuracy in _calibration(rows):
        print(f"  {band}: {count:3d} lines  mean confidence {mean:.2f}  top-1 accuracy {accuracy:.2f}")
    cpu, wall = _timings(rows, args.rounds)
    print(f"first call (index build included): {first_call * 1000:.0f} ms")
    print(f"per description ({len(cpu)} calls, {args.rounds} rounds):")
    _print_times("CPU ", cpu)
    _print_times("wall", wall)
    if args.misses:
        for row in rows:
            if row["split"] == "tuning":
                got = _classify(row)
                if not set(got[:3]) & set(row["expected"]):
                    print(f"  MISS {row['expected']} {row['description']!r} -> {got[:3]}")


if __name__ == "__main__":
    main()
