"""bench/three_rules.rules as a plain Python script with the json module: the baseline of
`bench_simulate.py --versus-json` (issue 12: simulate should cost no more CPU than this).

    python bench/plain_simulate.py CASES OUT

Reads the JSON Lines cases line by line, writes one result line per case with the same
fields as `insureops rules simulate` (numbers as the json module reads and writes them) and
prints the decision counts, as the command prints its summary.
"""

from __future__ import annotations

import json
import sys
from collections import Counter

CORE_STATES = frozenset({"CA", "TX", "AZ"})


def evaluate(business: dict) -> dict:
    """The three rules on one raw business dict, null read as the language reads it."""
    decision, score, reasons, tags, fired = None, 0, [], [], []
    naics, state, revenue = business.get("naics"), business.get("state"), \
        business.get("annual_revenue")
    if (type(naics) is str and naics.startswith("2382") and state in CORE_STATES
            and revenue is not None and 100_000 <= revenue <= 5_000_000):
        decision = "accept"
        reasons.append("Core class in a core state")
        fired.append("core_class")
    employees = business.get("employee_count")
    if employees is not None and employees >= 10:
        score += 10
        fired.append("size")
    claims = business.get("prior_claims") or ()
    large = sum(1 for c in claims if (c.get("amount") or 0) > 10_000)
    if large >= 2:
        decision = "refer"
        reasons.append(f"{large} large losses")
        tags.append("losses")
        fired.append("large_losses")
    return {"ruleset": "bench.three_rules", "decision": decision or "refer", "score": score,
            "outputs": {}, "reasons": reasons, "tags": tags, "fired": fired}


def main() -> None:
    decisions: Counter = Counter()
    with open(sys.argv[1], encoding="utf-8") as cases, \
            open(sys.argv[2], "w", encoding="utf-8") as out:
        for line in cases:
            case = json.loads(line)
            result = evaluate(case["inputs"]["business"])
            decisions[result["decision"]] += 1
            out.write(json.dumps({"id": case["id"], "result": result}) + "\n")
    print(dict(decisions), file=sys.stderr)


if __name__ == "__main__":
    main()
