"""Rule-derived pruning on the example market: the index's build and lookup time, and the share
of appetites it prunes for a few typical businesses.

    /work/.venv/bin/python bench/bench_pruning.py [--rounds 20]

For each business: the appetites kept, the share pruned, and the median time to evaluate every
appetite against evaluating the kept ones only, after warming every appetite up to the engine's
generated code (the decisions are the same, which the test
tests/carrier_matching/test_pruning_market.py proves on generated businesses).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from datetime import date
from pathlib import Path

from insureops.carrier_matching import load_market
from insureops.carrier_matching.pruning import build_candidate_index

MARKET = Path(__file__).resolve().parents[1] / "examples" / "market"
AS_OF = date(2026, 3, 1)
PROFILE = {"description": "A family-owned business serving local customers.",
           "annual_revenue": 1_750_000, "payroll": 600_000, "employee_count": 12,
           "years_in_business": 15, "requested_limit": 1_000_000, "prior_claims": []}
TYPICAL = {
    "electrician, AZ (238210)": {"naics": "238210", "state": "AZ"},
    "restaurant, TX (722511)": {"naics": "722511", "state": "TX"},
    "software firm, NY (541511)": {"naics": "541511", "state": "NY"},
    "trucker, OH (484121)": {"naics": "484121", "state": "OH"},
    "dentist, FL (621210)": {"naics": "621210", "state": "FL"},
    "no class given, CA": {"state": "CA"},
}


def _median_ms(action, rounds: int) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        action()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    rounds = parser.parse_args().rounds
    texts = {path.relative_to(MARKET).as_posix(): path.read_text(encoding="utf-8")
             for path in sorted(MARKET.rglob("*")) if path.suffix in {".toml", ".rules"}}
    market = load_market(texts, as_of=AS_OF)
    rulesets = {appetite.name: appetite.ruleset for appetite in market.appetites}
    start = time.perf_counter()
    index = build_candidate_index(rulesets)
    print(f"index of {len(rulesets)} appetites built in "
          f"{(time.perf_counter() - start) * 1000:.0f} ms")
    warm = {**PROFILE, **TYPICAL["electrician, AZ (238210)"]}
    for ruleset in rulesets.values():  # past the engine's first 64 runs on closures
        for _ in range(70):
            ruleset.evaluate({"business": warm}, as_of=AS_OF)
    print(f"{'business':<28} {'kept':>5} {'pruned':>7} {'all ms':>7} {'kept ms':>8}")
    for label, fields in TYPICAL.items():
        business = {**PROFILE, **fields}
        kept = index.candidates(business)

        def evaluate(names, business=business):
            for name in names:
                rulesets[name].evaluate({"business": business}, as_of=AS_OF)
        every = _median_ms(lambda: evaluate(rulesets), rounds)
        only = _median_ms(lambda kept=kept: evaluate(kept), rounds)
        share = 1 - len(kept) / len(rulesets)
        print(f"{label:<28} {len(kept):>5} {share:>7.0%} {every:>7.2f} {only:>8.2f}")
    lookups = [{**PROFILE, **fields} for fields in TYPICAL.values()] * 2000
    start = time.perf_counter()
    for business in lookups:
        index.candidates(business)
    per = (time.perf_counter() - start) / len(lookups) * 1e6
    print(f"lookup: {per:.1f} us per business (mean of {len(lookups)})")
    print("load average: " + " ".join(f"{load:.2f}" for load in os.getloadavg()))


if __name__ == "__main__":
    main()
