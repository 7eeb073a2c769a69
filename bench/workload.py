"""Seeded workloads for the benchmarks: businesses, cases files, a generated many-rule ruleset,
and the appetite example's logic written as a plain Python function (the baseline)."""

from __future__ import annotations

import json
import random
from datetime import date, timedelta
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
APPETITE = ROOT / "examples" / "appetite_acme_contractors.rules"
AS_OF = date(2026, 3, 1)

STATES = ["CA", "TX", "AZ", "NY", "NJ", "FL", "OR", "WA", "NV", "CO", "UT", "GA"]
NAICS = ["238210", "238220", "238160", "238130", "238290", "238310", "236220", "541110",
         "238990", "238140"]


def generate_businesses(count: int, seed: int = 42) -> list[dict]:
    """`count` JSON-shaped business profiles, the same for the same seed."""
    rng = random.Random(seed)
    businesses = []
    for _ in range(count):
        claims = []
        for _ in range(rng.choice([0, 0, 0, 1, 1, 2, 3, 4])):
            claims.append({"amount": rng.randint(500, 40_000),
                           "date": (AS_OF - timedelta(days=rng.randint(10, 1800))).isoformat()})
        businesses.append({
            "naics": rng.choice(NAICS), "state": rng.choice(STATES),
            "annual_revenue": rng.randint(20_000, 8_000_000),
            "employee_count": rng.randint(1, 60), "years_in_business": rng.randint(0, 40),
            "requested_limit": rng.choice([None, 1_000_000, 2_000_000, 3_000_000]),
            "prior_claims": claims,
        })
    return businesses


def write_cases(path: Path, count: int, seed: int = 42) -> None:
    """A cases file of `count` businesses for the appetite example."""
    with path.open("w", encoding="utf-8") as handle:
        for number, business in enumerate(generate_businesses(count, seed), start=1):
            case = {"id": number, "as_of": AS_OF.isoformat(), "inputs": {"business": business}}
            handle.write(json.dumps(case, separators=(",", ":")) + "\n")


def generate_ruleset(rules: int) -> str:
    """A ruleset of `rules` rules over Business plus one decision table, for compile timing."""
    lines = ['ruleset bench.generated "Generated"', "input business: Business",
             "default decision refer", 'const STATES = {"CA", "TX", "AZ"}']
    for n in range(rules):
        lines += [
            f"rule r{n} priority {n % 7}",
            f'when business.naics starts_with "{238000 + n}" and business.state in STATES',
            f"     and business.annual_revenue between {n * 1000} and {n * 1000 + 500_000}",
            f"     and count(c in business.prior_claims where c.amount > {n * 100}) < 3",
            "then",
            f"    score += {n % 13}",
            f'    {["accept", "refer", "decline"][n % 3]} "rule {n}: {{business.state}}"',
            f'    tag "t{n % 5}"',
            "end",
        ]
    lines += ["table factor hit first", "    | business.state | business.employee_count | => f |",
              '    | "CA" | < 10 | 1.20 |', '    | "CA" | >= 10 | 1.35 |', "    | - | - | 1.00 |",
              "end"]
    return "\n".join(lines) + "\n"


# --- the appetite example as a plain Python function ------------------------------------------

CORE_STATES = frozenset({"CA", "TX", "AZ"})
EXCLUDED_STATES = frozenset({"NY", "NJ", "FL"})
MAX_REVENUE = Decimal(5_000_000)
LINE_AUTHORITY = Decimal(2_000_000)
SEVERITY = {"accept": 1, "refer": 2, "decline": 3}
YOUNG_FROM, YOUNG_TO = date(2025, 1, 1), date(2026, 12, 31)


def _year_before(day: date) -> date:
    try:
        return day.replace(year=day.year - 1)
    except ValueError:  # Feb 29
        return day.replace(year=day.year - 1, day=28)


def plain_appetite(business: dict, as_of: date) -> dict:
    """examples/appetite_acme_contractors.rules by hand: the same result for the same input
    (numbers as Decimal, claim dates as ISO strings), null handled as the language does."""
    score = Decimal(0)
    decision = None
    reasons: list[str] = []
    tags: set[str] = set()
    fired: list[str] = []
    outputs: dict = {}

    def decide(kind: str, reason: str) -> None:
        nonlocal decision
        if decision is None or SEVERITY[kind] > SEVERITY[decision]:
            decision = kind
        reasons.append(reason)

    def result() -> dict:
        return {"ruleset": "appetite.acme_contractors", "decision": decision or "refer",
                "score": score, "outputs": outputs, "reasons": reasons, "tags": sorted(tags),
                "fired": fired}

    state, naics = business.get("state"), business.get("naics")
    revenue, employees = business.get("annual_revenue"), business.get("employee_count")
    claims = business.get("prior_claims")
    if state in EXCLUDED_STATES:
        fired.append("excluded_states")
        decide("decline", f"Acme does not write contractors in {state}")
        tags.add("excluded_state")
        return result()
    if naics == "238160":
        fired.append("roofing")
        decide("decline", "Roofing contractors are excluded")
        tags.add("excluded_class")
        return result()
    if claims is not None:
        large = sum(1 for c in claims if c.get("amount") is not None and c["amount"] > 10_000)
        if large > 2:
            fired.append("large_losses")
            decide("decline", f"{large} large losses in five years")
            return result()
        cutoff = _year_before(as_of)
        if any(c.get("date") is not None and date.fromisoformat(c["date"]) > cutoff
               for c in claims):
            fired.append("recent_loss")
            score -= 10
            reasons.append("A claim in the last twelve months")
            tags.add("recent_loss")
    in_band = revenue is not None and 100_000 <= revenue <= MAX_REVENUE
    if naics is not None and naics.startswith("2382") and state in CORE_STATES and in_band:
        fired.append("core_trades")
        score += 40
        decide("accept", "Trade contractor in a core state")
    if naics is not None and naics.startswith("238") and not naics.startswith("2382") and in_band:
        fired.append("other_specialty")
        score += 20
        reasons.append("Specialty trade outside the core classes")
    limit = business.get("requested_limit")
    if limit is not None and limit > LINE_AUTHORITY:
        fired.append("high_limit")
        decide("refer", f"Requested limit {limit} exceeds the line authority")
        tags.add("high_limit")
    years = business.get("years_in_business")
    if YOUNG_FROM <= as_of <= YOUNG_TO and years is not None and years < 3:
        fired.append("young_business")
        score -= 15
        decide("refer", "Less than three years in business")
        tags.add("new_venture")
    fired.append("territory_factor")
    if state == "CA" and employees is not None and employees < 10:
        outputs.update(factor=Decimal("1.20"), tier="B")
    elif state == "CA" and employees is not None and employees >= 10:
        outputs.update(factor=Decimal("1.35"), tier="C")
    elif state in ("TX", "AZ"):
        outputs.update(factor=Decimal("1.10"), tier="B")
    else:
        outputs.update(factor=Decimal("1.00"), tier="A")
    if outputs["tier"] == "C" and employees is not None and employees >= 25:
        fired.append("large_crew_tier_c")
        decide("refer", f"{employees} employees in a tier C territory")
        tags.add("large_crew")
    return result()
