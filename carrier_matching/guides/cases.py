"""The tests written into each appetite, derived from the guide's own numbers: the sample risk
accepted with its exact score, and each class, state, operation, band, loss, limit and
question rule shown deciding (or asking) once."""

from __future__ import annotations

import copy
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from insureops.carrier_matching.description import activities
from insureops.carrier_matching.guides.sections import PRIMARY_LIABILITY_LINES
from insureops.carrier_matching.guides.spec import Band, ProductSpec
from insureops.carrier_matching.guides.text import json_value
from insureops.carrier_matching.naics_reference import national_industries
from insureops.carrier_matching.regulation import MONOPOLISTIC_COMP_STATES, WORKERS_COMP

AS_OF = "2026-03-01"
BAND_PATHS = {"revenue": ("annual_revenue",), "payroll": ("payroll",),
              "employees": ("employee_count",), "years": ("years_in_business",),
              "units": ("fleet", "power_units")}
GOOD_ANSWERS = {
    "property": {"construction": "joisted_masonry", "year_built": 2004, "roof_age": 6,
                 "protection_class": 3, "sprinklered": True},
    "fleet": {"hazmat": False, "radius_miles": 150, "dot_number": "2201847"},
    "liquor": {"liquor_sales_percent": 12, "open_past_midnight": False,
               "live_entertainment": False},
    "cyber": {"records": 8000, "mfa": True, "backups": True},
    "contractor": {"subcontracted_percent": 10, "residential_percent": 20, "max_stories": 2},
}
PAST = {"decline": "declined", "refer": "referred", "accept": "accepted"}
GROUP = {"liquor": "operations", "contractor": "operations", "property": "property",
         "fleet": "fleet", "cyber": "cyber"}


def cases(spec: ProductSpec) -> list[str]:
    """Every test block of the appetite."""
    base, score = sample(spec)
    out = [_test(f"{base['name']} is accepted as a core class", base,
                 f'decision == "accept" and score == {score} and outputs.class_fit == "core"')]
    out += _class_cases(spec, base) + _operation_cases(spec, base) + _band_cases(spec, base)
    out += _loss_cases(spec, base) + _limit_cases(spec, base) + _question_cases(spec, base)
    out.append(_test("without a NAICS class the risk is referred", _without(base, "naics"),
                     'decision == "refer" and "missing_information" in tags'))
    if spec.tests:
        out += [spec.tests, ""]
    return out


def sample(spec: ProductSpec) -> tuple[dict[str, Any], int]:
    """The guide's sample risk made to sit in the core of every band, and its expected score."""
    data = dict(spec.sample)
    code, points = _core_code(spec)
    state = data.get("state")
    if state not in spec.states or state in spec.excluded_states:
        state = next(s for s in spec.states if s not in spec.excluded_states
                     and not (spec.line == WORKERS_COMP and s in MONOPOLISTIC_COMP_STATES))
    business: dict[str, Any] = {"name": data.get("name", "Sample risk"),
                                "description": data.get("description", "A typical risk."),
                                "naics": code, "state": state}
    score = points
    for name, band in spec.bands.items():
        _put(business, BAND_PATHS[name], _core_value(name, band))
        score += band.points[0]
    if spec.losses is not None:
        business["prior_claims"] = []
        score += spec.losses.points[0]
    business["requested_limit"] = spec.authority or spec.max_limit
    for topic, settings in spec.topics.items():
        if topic == "comp":
            payroll = business.get("payroll", 100_000)
            business["payroll_by_class"] = [{"code": "8810", "payroll": payroll}]
            continue
        business.setdefault(GROUP[topic], {}).update(good_answers(topic, settings))
        if topic == "property" and spec.topics[topic].get("sprinklers") == "credit":
            score += int(spec.topics[topic].get("points", 5))
    business["activities"] = activities(business["description"])
    return business, score


def good_answers(topic: str, settings: dict) -> dict:
    """Answers the topic's rules accept without referral."""
    answers = dict(GOOD_ANSWERS[topic])
    if topic == "fleet":
        limits = [v for v in (settings.get("refer_radius"), settings.get("max_radius")) if v]
        answers["radius_miles"] = int(min(limits) // 2) if limits else 150
    return answers


def _core_code(spec: ProductSpec) -> tuple[str, int]:
    if spec.core:
        return spec.core[0][0], spec.core[0][1]
    prefix, points, _ = spec.groups[0]
    return _member(spec, prefix), points


def _member(spec: ProductSpec, prefix: str) -> str:
    """A real NAICS code under `prefix` that no other class row or exclusion claims."""
    taken = {c for c, _, _ in spec.core} | {c for c, _ in spec.excluded}
    for code in sorted(national_industries()):
        if code.startswith(prefix) and code not in taken and not _excluded(spec, code) \
                and not any(code.startswith(r) for r, _, _ in spec.referral):
            return code
    return prefix.ljust(6, "0")


def _excluded(spec: ProductSpec, code: str) -> bool:
    return code in {c for c, _ in spec.excluded} or any(
        code.startswith(p) for p, _ in spec.excluded_groups)


def _core_value(name: str, band: Band) -> Decimal | int:
    if len(band.core) == 2:
        middle = (band.core[0] + band.core[1]) / 2
    else:
        middle = band.core[0] + (3 if name == "years" else band.core[0])
    step = Decimal(10_000) if middle >= 100_000 else Decimal(1)
    value = (middle / step).quantize(Decimal(1), ROUND_HALF_UP) * step
    return int(value)


def _put(business: dict, path: tuple[str, ...], value: Any) -> None:
    target = business
    for key in path[:-1]:
        target = target.setdefault(key, {})
    target[path[-1]] = value


def _with(base: dict, **changes: Any) -> dict:
    business = copy.deepcopy(base)
    business.update(changes)
    if "description" in changes:
        business["activities"] = activities(changes["description"])
    return business


def _without(base: dict, *path: str) -> dict:
    business = copy.deepcopy(base)
    target = business
    for key in path[:-1]:
        target = target[key]
    target.pop(path[-1], None)
    return business


def _test(title: str, business: dict, expect: str) -> str:
    return (f"test {json_value(title)}\ngiven business = {json_value(business)}\n"
            f"      as of {AS_OF}\nexpect {expect}\nend\n")


def _class_cases(spec: ProductSpec, base: dict) -> list[str]:
    out = []
    if spec.groups:
        prefix = spec.groups[0][0]
        code = _member(spec, prefix)
        if code != base["naics"]:
            out.append(_test(f"a class of the {prefix} group ({code}) is accepted",
                             _with(base, naics=code),
                             'decision == "accept" and outputs.class_fit == "group"'))
    if spec.referral:
        code = spec.referral[0][0]
        code = code if len(code) == 6 else _member_of(code, spec)
        out.append(_test(f"{code} is written on referral", _with(base, naics=code),
                         'decision == "refer" and "referral_class" in tags'))
    if spec.excluded:
        code = spec.excluded[0][0]
        out.append(_test(f"an excluded class ({code}) is declined whatever else is true",
                         _with(base, naics=code),
                         'decision == "decline" and tags == ["excluded_class"]'))
    outside = _outside_code(spec)
    if outside is not None:
        expect = ('decision == "refer" and "outside_class" in tags' if spec.outside == "refer"
                  else 'decision == "decline" and tags == ["outside_class"]')
        out.append(_test(f"a class outside the program ({outside}) is {PAST[spec.outside]}",
                         _with(base, naics=outside), expect))
    away = next((s for s in ("AK", "HI", "ME", "ND", "DC", "VT", "WY", "NY", "CA", "FL", "TX")
                 if s not in spec.states), None)
    if away is not None:
        out.append(_test(f"a business in {away} is outside the product's states",
                         _with(base, state=away), 'decision == "decline" and tags == ["state"]'))
    if spec.excluded_states:
        state = spec.excluded_states[0]
        out.append(_test(f"{state} is excluded", _with(base, state=state),
                         'decision == "decline" and tags == ["state"]'))
    return out


def _member_of(prefix: str, spec: ProductSpec) -> str:
    for code in sorted(national_industries()):
        if code.startswith(prefix) and not _excluded(spec, code) and \
                code not in {c for c, _, _ in spec.core}:
            return code
    return prefix.ljust(6, "0")


def _outside_code(spec: ProductSpec) -> str | None:
    for code in ("921110", "722511", "541511", "238220", "484121", "111110"):
        if not _claimed(spec, code):
            return code
    return None


def _claimed(spec: ProductSpec, code: str) -> bool:
    rows = [c for c, _, _ in spec.core + spec.groups + spec.referral]
    return any(code.startswith(r) for r in rows) or _excluded(spec, code) or any(
        code.startswith(p) for p in _screen_codes(spec))


def _screen_codes(spec: ProductSpec) -> list[str]:
    from insureops.carrier_matching.guides.screens import SCREENS
    found: list[str] = []
    for name in spec.screens:
        found += [c for c, _ in SCREENS[name].classes + SCREENS[name].groups]
    return found


def _operation_cases(spec: ProductSpec, base: dict) -> list[str]:
    out = []
    for op in spec.operations:
        phrase = op.phrases[0]
        text = f"{base['description']} Also {phrase}."
        expect = (f'decision == "decline" and tags == ["{op.tag}"]' if op.decision == "decline"
                  else f'decision == "refer" and "{op.tag}" in tags')
        out.append(_test(f"{op.title.lower()}: {PAST[op.decision]} from the description",
                         _with(base, description=text), expect))
    if spec.operations:
        op = spec.operations[0]
        text = f"{base['description']} No {op.phrases[0]}."
        out.append(_test(f"a description that denies it (\"no {op.phrases[0]}\") is not "
                         f"{PAST[op.decision]}", _with(base, description=text),
                         'decision == "accept"'))
    return out


def _band_cases(spec: ProductSpec, base: dict) -> list[str]:
    out = []
    for name, band in spec.bands.items():
        path = BAND_PATHS[name]
        field = ".".join(path)
        missing = _without(base, *path)
        missing.pop("payroll_by_class", None) if name == "payroll" else None
        out.append(_test(f"without {field} the risk is accepted and the client asked",
                         missing, f'decision == "accept" and "ask:{field}" in tags'))
        if band.min is not None:
            floor = band.below if band.below is not None else band.min
            value = floor / 2 if floor >= 2 else 0
            out.append(_test(f"{field} below the minimum is declined",
                             _set(base, path, _whole(value)),
                             f'decision == "decline" and "{name}" in tags'))
        if band.max is not None:
            ceiling = band.above if band.above is not None else band.max
            out.append(_test(f"{field} beyond the program is declined",
                             _set(base, path, _whole(ceiling * 2 + 1)),
                             f'decision == "decline" and "{name}" in tags'))
            if band.above is not None:
                out.append(_test(f"{field} just above the band is referred",
                                 _set(base, path, _whole((band.max + band.above) / 2)),
                                 f'decision == "refer" and "{name}" in tags'))
    return out


def _whole(value: Decimal | int) -> int:
    return int(Decimal(value).quantize(Decimal(1), ROUND_HALF_UP))


def _set(base: dict, path: tuple[str, ...], value: Any) -> dict:
    business = copy.deepcopy(base)
    _put(business, path, value)
    return business


def _loss_cases(spec: ProductSpec, base: dict) -> list[str]:
    if spec.losses is None:
        return []
    lo = spec.losses
    many = [{"amount": 1000, "date": "2025-10-01", "type": "liability"}] * (lo.max_claims + 1)
    old = [{"amount": 1000, "date": "2019-06-01", "type": "liability"}] * (lo.max_claims + 1)
    out = [_test(f"{lo.max_claims + 1} claims in {lo.lookback} years are declined",
                 _with(base, prior_claims=many),
                 'decision == "decline" and "loss_history" in tags'),
           _test(f"claims older than {lo.lookback} years do not count", _with(base, prior_claims=old),
                 'decision == "accept"')]
    if lo.large and lo.max_claims >= 1 and lo.large <= lo.max_incurred:
        big = [{"amount": int(lo.large), "date": "2025-10-01", "type": "liability"}]
        out.append(_test("a single large loss is referred", _with(base, prior_claims=big),
                         'decision == "refer" and "large_loss" in tags'))
    if lo.require_runs:
        out.append(_test("loss runs are needed to quote", _without(base, "prior_claims"),
                         'decision == "refer" and "missing_information" in tags'))
    else:
        out.append(_test("without loss runs the client is asked", _without(base, "prior_claims"),
                         'decision == "accept" and "ask:prior_claims" in tags'))
    return out


def _limit_cases(spec: ProductSpec, base: dict) -> list[str]:
    over = _whole(spec.max_limit * 2)
    primary = spec.line in PRIMARY_LIABILITY_LINES
    out = [_test("a limit above the product maximum is declined",
                 _with(base, requested_limit=over), 'decision == "decline" and tags == ["limit"]')
           if primary else
           _test("the one requested limit (a primary liability limit) does not apply to this line",
                 _with(base, requested_limit=over), 'decision == "accept"'),
           _test("a request on this line with its own limit is read before the one limit",
                 _with(base, requests=[{"line": spec.line, "limit": over},
                                       {"line": "ZZZ", "limit": 1}]),
                 'decision == "decline" and tags == ["limit"]'),
           _test("a request on another line leaves this line's limit alone",
                 _with(base, requests=[{"line": "ZZZ", "limit": over}]), 'decision == "accept"')]
    if spec.authority and spec.authority < spec.max_limit:
        out.append(_test("a limit above the line authority is referred",
                         _with(base, requests=[{"line": spec.line, "limit": _whole(spec.max_limit)}]),
                         'decision == "refer" and tags == ["limit"]'))
    return out


def _question_cases(spec: ProductSpec, base: dict) -> list[str]:
    out = []
    for topic, settings in spec.topics.items():
        if topic == "comp":
            out += _comp_cases(settings, base)
            continue
        classes = settings.get("classes")
        if classes and not any(base["naics"].startswith(str(c)) for c in classes):
            continue
        group = GROUP[topic]
        for key, value in good_answers(topic, settings).items():
            field = f"{group}.{key}"
            if f"ask:{field}" not in _asked(spec, topic, key):
                continue
            out.append(_test(f"without {field} the client is asked", _without(base, group, key),
                             f'"ask:{field}" in tags and decision == "accept"'))
        bad = _bad_answer(topic, settings)
        if bad is not None:
            key, value, decision = bad
            out.append(_test(f"{group}.{key} = {json_value(value)} is {PAST[decision]}",
                             _set(base, (group, key), value), f'decision == "{decision}"'))
    return out


def _asked(spec: ProductSpec, topic: str, key: str) -> set[str]:
    """The ask tags the topic's rules can set (what `topics.py` writes for these settings)."""
    s = spec.topics[topic]
    group = GROUP[topic]
    asked = {
        "property": {"construction": s.get("frame") in ("decline", "refer"),
                     "year_built": s.get("min_year") is not None or s.get("refer_year") is not None,
                     "roof_age": s.get("max_roof_age") is not None or s.get("refer_roof_age") is not None,
                     "protection_class": s.get("max_protection_class") is not None
                     or s.get("refer_protection_class") is not None,
                     "sprinklered": s.get("sprinklers") in ("decline", "refer")},
        "fleet": {"hazmat": s.get("hazmat") in ("decline", "refer"),
                  "radius_miles": s.get("max_radius") is not None or s.get("refer_radius") is not None,
                  "dot_number": bool(s.get("dot"))},
        "liquor": {"liquor_sales_percent": s.get("max_percent") is not None
                   or s.get("refer_percent") is not None,
                   "open_past_midnight": s.get("late_night") in ("decline", "refer"),
                   "live_entertainment": s.get("entertainment") in ("decline", "refer")},
        "cyber": {"records": s.get("max_records") is not None or s.get("refer_records") is not None,
                  "mfa": s.get("mfa") in ("decline", "refer"),
                  "backups": s.get("backups") in ("decline", "refer")},
        "contractor": {"subcontracted_percent": s.get("max_subcontracted") is not None
                       or s.get("refer_subcontracted") is not None,
                       "residential_percent": s.get("max_residential") is not None
                       or s.get("refer_residential") is not None,
                       "max_stories": s.get("max_stories") is not None
                       or s.get("refer_stories") is not None},
    }[topic]
    return {f"ask:{group}.{k}" for k, on in asked.items() if on}


def _bad_answer(topic: str, s: dict) -> tuple[str, Any, str] | None:
    """One answer the settings decline (or refer), to show the rule deciding."""
    if topic == "property":
        if s.get("frame") in ("decline", "refer"):
            return "construction", "frame", s["frame"]
        if s.get("max_roof_age") is not None:
            return "roof_age", int(s["max_roof_age"]) + 5, "decline"
    if topic == "fleet" and s.get("hazmat") in ("decline", "refer"):
        return "hazmat", True, s["hazmat"]
    if topic == "liquor" and s.get("max_percent") is not None:
        return "liquor_sales_percent", min(100, int(s["max_percent"]) + 10), "decline"
    if topic == "cyber" and s.get("mfa") in ("decline", "refer"):
        return "mfa", False, s["mfa"]
    if topic == "contractor" and s.get("max_subcontracted") is not None:
        return "subcontracted_percent", min(100, int(s["max_subcontracted"]) + 10), "decline"
    return None


def _comp_cases(settings: dict, base: dict) -> list[str]:
    out = []
    excluded = settings.get("excluded_codes") or []
    if excluded:
        code = str(excluded[0][0])
        out.append(_test(f"payroll in excluded class code {code} is declined",
                         _with(base, payroll_by_class=[{"code": code, "payroll": 50000}]),
                         'decision == "decline" and "excluded_class" in tags'))
        out.append(_test("without payroll by class the client is asked",
                         _without(base, "payroll_by_class"),
                         '"ask:payroll_by_class" in tags and decision == "accept"'))
    return out
