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


# --- the single appetite rule of issue 12 and its lambda ---------------------------------------

SINGLE_RULE = """ruleset bench.single "One appetite rule"
input r: Any
default decision decline

rule appetite
when r.naics starts_with "2382"
    and r.state in {"CA", "TX", "AZ"}
    and r.annual_revenue between 100_000 and 5_000_000
    and r.employee_count < 50
    and r.years_in_business >= 3
    and len(r.prior_claims) <= 2
then
    accept "in appetite"
end
"""
_SINGLE_STATES = frozenset({"CA", "TX", "AZ"})
# The same test as SINGLE_RULE in plain Python, on the same JSON dicts (the fastest honest
# baseline: nothing converted, a missing field is a KeyError where the rule reads null).
single_rule_lambda = (  # noqa: E731 (a lambda is the baseline being measured)
    lambda r: r["naics"].startswith("2382") and r["state"] in _SINGLE_STATES
    and 100_000 <= r["annual_revenue"] <= 5_000_000 and r["employee_count"] < 50
    and r["years_in_business"] >= 3 and len(r["prior_claims"]) <= 2)


# --- the appetite example as a plain Python function ------------------------------------------

CORE_STATES = frozenset({"CA", "TX", "AZ"})
EXCLUDED_STATES = frozenset({"NY", "NJ", "FL"})
TERRITORY_TX_AZ = frozenset({"TX", "AZ"})
FACTORS = {"1.20": Decimal("1.20"), "1.35": Decimal("1.35"), "1.10": Decimal("1.10"),
           "1.00": Decimal("1.00")}
YOUNG_FROM, YOUNG_TO = date(2025, 1, 1), date(2026, 12, 31)
_CUTOFFS: dict[date, date] = {}  # as-of date -> a year before (the engine remembers it too)
_fromisoformat = date.fromisoformat


def _year_before(day: date) -> date:
    try:
        return day.replace(year=day.year - 1)
    except ValueError:  # Feb 29
        return day.replace(year=day.year - 1, day=28)


def _result(decision: str | None, score: int, outputs: dict, reasons: list, tags: list,
            fired: list) -> dict:
    return {"ruleset": "appetite.acme_contractors", "decision": decision or "refer",
            "score": score, "outputs": outputs, "reasons": reasons, "tags": sorted(tags),
            "fired": fired}


def plain_appetite(business: dict, as_of: date) -> dict:
    """examples/appetite_acme_contractors.rules by hand, on the raw JSON dict (numbers as the
    json module reads them, claim dates as ISO strings): the same result for the same input,
    null handled as the language does, converting only what it needs (claim dates; the
    table's factors are Decimal constants made once)."""
    get = business.get
    state, naics, claims = get("state"), get("naics"), get("prior_claims")
    if state in EXCLUDED_STATES:
        return _result("decline", 0, {}, [f"Acme does not write contractors in {state}"],
                       ["excluded_state"], ["excluded_states"])
    if naics == "238160":
        return _result("decline", 0, {}, ["Roofing contractors are excluded"],
                       ["excluded_class"], ["roofing"])
    score, decision, fired, reasons, tags = 0, None, [], [], []
    if claims is not None:
        large = 0
        for claim in claims:
            amount = claim.get("amount")
            if amount is not None and amount > 10_000:
                large += 1
        if large > 2:
            return _result("decline", 0, {}, [f"{large} large losses in five years"], [],
                           ["large_losses"])
        cutoff = _CUTOFFS.get(as_of)
        if cutoff is None:
            cutoff = _CUTOFFS[as_of] = _year_before(as_of)
        for claim in claims:
            day = claim.get("date")
            if day is not None and _fromisoformat(day) > cutoff:
                fired.append("recent_loss")
                score -= 10
                reasons.append("A claim in the last twelve months")
                tags.append("recent_loss")
                break
    revenue = get("annual_revenue")
    in_band = revenue is not None and 100_000 <= revenue <= 5_000_000
    if in_band and naics is not None and naics.startswith("238"):
        if naics.startswith("2382"):
            if state in CORE_STATES:
                fired.append("core_trades")
                score += 40
                decision = "accept"
                reasons.append("Trade contractor in a core state")
        else:
            fired.append("other_specialty")
            score += 20
            reasons.append("Specialty trade outside the core classes")
    limit = get("requested_limit")
    if limit is not None and limit > 2_000_000:
        fired.append("high_limit")
        decision = "refer"
        reasons.append(f"Requested limit {limit} exceeds the line authority")
        tags.append("high_limit")
    years = get("years_in_business")
    if YOUNG_FROM <= as_of <= YOUNG_TO and years is not None and years < 3:
        fired.append("young_business")
        score -= 15
        decision = "refer"
        reasons.append("Less than three years in business")
        tags.append("new_venture")
    fired.append("territory_factor")
    employees = get("employee_count")
    if state == "CA" and employees is not None and employees < 10:
        outputs = {"factor": FACTORS["1.20"], "tier": "B"}
    elif state == "CA" and employees is not None and employees >= 10:
        outputs = {"factor": FACTORS["1.35"], "tier": "C"}
        if employees >= 25:
            fired.append("large_crew_tier_c")
            decision = "refer"
            reasons.append(f"{employees} employees in a tier C territory")
            tags.append("large_crew")
    elif state in TERRITORY_TX_AZ:
        outputs = {"factor": FACTORS["1.10"], "tier": "B"}
    else:
        outputs = {"factor": FACTORS["1.00"], "tier": "A"}
    return _result(decision, score, outputs, reasons, tags, fired)
