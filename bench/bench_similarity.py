"""Time per similar-businesses query over the shipped reference set, and per page extraction.

    python bench/bench_similarity.py [--rounds 50]

Prints the median and p95 wall time (and the median CPU time) per query for a few query shapes (full business, NAICS and
description, description only) after a first call that loads the set, and the time to extract
a test page's text (tests/platform/carrier_finder/site/).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

from insureops.carrier_matching.similarity import load_reference, similar_businesses
from insureops.carrier_matching.website_text import extract_page_text

SITE = Path(__file__).resolve().parents[1] / "tests" / "platform" / "carrier_finder" / "site"
QUERIES = {
    "business": {"naics": "238220", "description": "We fix leaky pipes and install water heaters",
                 "state": "AZ", "annual_revenue": 900_000, "employee_count": 6},
    "naics+description": {"naics": "722511", "description": "Italian restaurant with a wine bar"},
    "description": {"description": "custom software development agency"},
}


def _times(call, rounds: int) -> tuple[float, float, float]:
    """Median and p95 wall time, and median CPU time (steadier on a shared machine), in ms."""
    wall, cpu = [], []
    for _ in range(rounds):
        start, start_cpu = time.perf_counter(), time.process_time()
        call()
        wall.append((time.perf_counter() - start) * 1000)
        cpu.append((time.process_time() - start_cpu) * 1000)
    wall.sort()
    return statistics.median(wall), wall[int(len(wall) * 0.95) - 1], statistics.median(cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=50)
    rounds = parser.parse_args().rounds
    start = time.perf_counter()
    reference = load_reference()
    similar_businesses(QUERIES["business"], reference)
    print(f"load average {os.getloadavg()[0]:.1f}")
    print(f"first query (set loaded, {len(reference)} businesses): "
          f"{(time.perf_counter() - start) * 1000:.1f} ms")
    for name, query in QUERIES.items():
        median, p95, cpu = _times(lambda q=query: similar_businesses(q, reference), rounds)
        print(f"similar_businesses, {name:18}: median {median:.2f} ms, p95 {p95:.2f} ms, "
              f"CPU median {cpu:.2f} ms")
    for page in sorted(SITE.glob("*.html")):
        html = page.read_text()
        median, p95, cpu = _times(lambda h=html: extract_page_text(h), rounds)
        print(f"extract_page_text, {page.name:19}: median {median:.3f} ms, p95 {p95:.3f} ms, "
              f"CPU median {cpu:.3f} ms")


if __name__ == "__main__":
    main()
