"""The rulesets people write, beside the plain Python a programmer would write for the same job,
on the same raw JSON dicts (money as floats with cents, dates as ISO strings, lists): issue 29's
targets. Each shape has a ruleset, its input schemas, a seeded record generator and a plain
function giving the same decision, score and fired names (checked by bench_engine.py)."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from datetime import date, timedelta

from workload import APPETITE, SINGLE_RULE, generate_businesses, plain_appetite

from insureops.schema.business import BUSINESS_SCHEMA

AS_OF = date(2026, 3, 1)
DATE = {"type": "string", "format": "date"}
MONEY = {"type": "number"}


@dataclass(frozen=True)
class Shape:
    name: str
    text: str
    schemas: dict
    records: object  # (count, seed) -> list of inputs mappings
    plain: object  # (inputs, as_of) -> (decision, score as str, fired tuple)


def _cents(rng: random.Random, low: int, high: int) -> float:
    """An amount with cents, as the json module reads `1234.56`."""
    return json.loads(f"{rng.randint(low, high)}.{rng.randint(0, 99):02d}")


# --- the peer rule, money in cents --------------------------------------------------------------

PEER = SINGLE_RULE  # issue 12's single appetite rule, the "peer rule" of issue 29
_PEER_STATES = frozenset({"CA", "TX", "AZ"})
NAICS = ["238210", "238220", "238160", "541110", "238290", "236220"]
STATES = ["CA", "TX", "AZ", "NY", "FL", "OR"]


def peer_records(count: int, seed: int = 7) -> list[dict]:
    rng = random.Random(seed)
    return [{"r": {"naics": rng.choice(NAICS), "state": rng.choice(STATES),
                   "annual_revenue": _cents(rng, 20_000, 8_000_000),
                   "employee_count": rng.randint(1, 80), "years_in_business": rng.randint(0, 30),
                   "prior_claims": [{}] * rng.choice([0, 0, 1, 2, 3])}}
            for _ in range(count)]


def peer_lambda(inputs: dict, as_of: date) -> bool:
    r = inputs["r"]
    return (r["naics"].startswith("2382") and r["state"] in _PEER_STATES
            and 100_000 <= r["annual_revenue"] <= 5_000_000 and r["employee_count"] < 50
            and r["years_in_business"] >= 3 and len(r["prior_claims"]) <= 2)


def peer_plain(inputs: dict, as_of: date) -> tuple:
    fired = ("appetite",) if peer_lambda(inputs, as_of) else ()
    return ("accept" if fired else "decline", "0", fired)


# --- a claims triage: dates as strings, payments with cents ------------------------------------

TRIAGE = """ruleset bench.triage "Claims triage"
input claim: Any
default decision accept

const LATE_DAYS = 30
const LARGE_PAYMENT = 2_500.50

rule late_report "Reported late" priority 10
when days_between(claim.loss_date, claim.reported_date) > LATE_DAYS
then
    score += 20
    refer "Reported late"
end

rule many_large_payments "Several large payments"
when count(p in claim.payments where p.amount > LARGE_PAYMENT) >= 3
then
    score += 30
    refer "Several large payments"
end

rule stale "Loss before the look-back"
when claim.loss_date < today() - 1 year
then
    score += 5
end
"""
TRIAGE_SCHEMAS = {"claim": {"type": "object", "properties": {
    "loss_date": DATE, "reported_date": DATE,
    "payments": {"type": "array", "items": {"type": "object",
                                            "properties": {"amount": MONEY}}}}}}


def triage_records(count: int, seed: int = 11) -> list[dict]:
    rng = random.Random(seed)
    found = []
    for _ in range(count):
        loss = AS_OF - timedelta(days=rng.randint(1, 700))
        reported = loss + timedelta(days=rng.choice([1, 3, 10, 45, 90]))
        payments = [{"amount": _cents(rng, 10, 9_000)} for _ in range(rng.randint(0, 6))]
        found.append({"claim": {"loss_date": loss.isoformat(),
                                "reported_date": reported.isoformat(), "payments": payments}})
    return found


_YEAR_BEFORE: dict = {}


def triage_plain(inputs: dict, as_of: date) -> tuple:
    claim = inputs["claim"]
    loss = date.fromisoformat(claim["loss_date"])
    reported = date.fromisoformat(claim["reported_date"])
    score, fired, decision = 0, [], None
    if (reported - loss).days > 30:
        score += 20
        fired.append("late_report")
        decision = "refer"
    if sum(1 for p in claim["payments"] if p["amount"] > 2500.50) >= 3:
        score += 30
        fired.append("many_large_payments")
        decision = "refer"
    cutoff = _YEAR_BEFORE.get(as_of)
    if cutoff is None:
        cutoff = _YEAR_BEFORE[as_of] = as_of.replace(year=as_of.year - 1)
    if loss < cutoff:
        score += 5
        fired.append("stale")
    return (decision or "accept", str(score), tuple(fired))


# --- a hit-first pricing table whose factor feeds a rule --------------------------------------

PRICING = """ruleset bench.pricing "Property pricing"
input risk: Any
default decision accept

table rate "Territory and construction" hit first priority 10
    | risk.state     | risk.construction | => factor |
    | "FL"           | "frame"           | 1.45      |
    | in {"FL", "LA"} | -                | 1.30      |
    | "CA"           | "frame"           | 1.25      |
    | -              | "masonry"         | 0.95      |
    | -              | -                 | 1.00      |
end

rule above_authority "Premium above the underwriter's authority"
when risk.base_premium * outputs.factor > 12_000
then
    refer "Premium above authority"
end
"""
PRICING_SCHEMAS = {"risk": {"type": "object", "properties": {"base_premium": MONEY}}}


def pricing_records(count: int, seed: int = 13) -> list[dict]:
    rng = random.Random(seed)
    return [{"risk": {"state": rng.choice(["FL", "LA", "CA", "TX", "NY"]),
                      "construction": rng.choice(["frame", "masonry", "steel"]),
                      "base_premium": _cents(rng, 500, 14_000)}} for _ in range(count)]


def pricing_plain(inputs: dict, as_of: date) -> tuple:
    """The same job as a programmer writes it: float arithmetic (faster than the engine's
    exact decimals, and able to misjudge a premium landing on the threshold)."""
    risk = inputs["risk"]
    state, construction = risk["state"], risk["construction"]
    if state == "FL" and construction == "frame":
        factor = 1.45
    elif state in ("FL", "LA"):
        factor = 1.30
    elif state == "CA" and construction == "frame":
        factor = 1.25
    elif construction == "masonry":
        factor = 0.95
    else:
        factor = 1.00
    fired = ("rate", "above_authority") if risk["base_premium"] * factor > 12_000 else ("rate",)
    return ("refer" if len(fired) == 2 else "accept", "0", fired)


# --- a sum over payments against half the reserve ----------------------------------------------

RESERVE = """ruleset bench.reserve "Payments against the reserve"
input claim: Any
default decision accept

rule half_paid "Half the reserve paid"
when sum(p.amount for p in claim.payments) > claim.reserve / 2
then
    refer "Over half the reserve is paid"
end
"""
RESERVE_SCHEMAS = {"claim": {"type": "object", "properties": {
    "reserve": MONEY,
    "payments": {"type": "array", "items": {"type": "object",
                                            "properties": {"amount": MONEY}}}}}}


def reserve_records(count: int, seed: int = 17) -> list[dict]:
    rng = random.Random(seed)
    return [{"claim": {"reserve": _cents(rng, 1_000, 60_000),
                       "payments": [{"amount": _cents(rng, 10, 9_000)}
                                    for _ in range(rng.randint(0, 6))]}}
            for _ in range(count)]


def reserve_plain(inputs: dict, as_of: date) -> tuple:
    """Float arithmetic, as a programmer writes it (the engine's sum is exact)."""
    claim = inputs["claim"]
    fired = ("half_paid",) if sum(p["amount"] for p in claim["payments"]) > \
        claim["reserve"] / 2 else ()
    return ("refer" if fired else "accept", "0", fired)


# --- issue 12's appetite example (examples/appetite_acme_contractors.rules) -------------------

def appetite_records(count: int, seed: int = 42) -> list[dict]:
    """The appetite benchmark's businesses as the json module reads them."""
    return [{"business": json.loads(json.dumps(b))} for b in generate_businesses(count, seed)]


def appetite_plain(inputs: dict, as_of: date) -> tuple:
    """workload.plain_appetite (the hand-written function bench_evaluate.py compares with)."""
    result = plain_appetite(inputs["business"], as_of)
    return (result["decision"], str(result["score"]), tuple(result["fired"]))


SHAPES = (
    Shape("peer rule, revenue with cents", PEER, {"r": None}, peer_records, peer_plain),
    Shape("claims triage: dates as strings, payments with cents", TRIAGE, TRIAGE_SCHEMAS,
          triage_records, triage_plain),
    Shape("hit-first pricing table feeding a rule", PRICING, PRICING_SCHEMAS,
          pricing_records, pricing_plain),
    Shape("sum of payments against half the reserve", RESERVE, RESERVE_SCHEMAS,
          reserve_records, reserve_plain),
    Shape("issue 12's appetite example (10 items)", APPETITE.read_text(encoding="utf-8"),
          {"business": BUSINESS_SCHEMA}, appetite_records, appetite_plain),
)
