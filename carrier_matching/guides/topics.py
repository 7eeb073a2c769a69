"""The questions a line's application asks, written as rules: the building for property, the
fleet for auto, alcohol for hospitality, controls for cyber, the work for contractors and class
codes for comp. An unanswered question is asked ("ask the client"), never guessed."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from insureops.carrier_matching.guides.sections import ask, rule
from insureops.carrier_matching.guides.spec import GuideError, ProductSpec
from insureops.carrier_matching.guides.text import message, number, plain, quote, string_set

PRIORITY = 350
TOPIC_KEYS = {
    "property": ("frame", "min_year", "refer_year", "max_roof_age", "refer_roof_age",
                 "max_protection_class", "refer_protection_class", "sprinklers", "vacant",
                 "points"),
    "fleet": ("hazmat", "max_radius", "refer_radius", "dot"),
    "liquor": ("max_percent", "refer_percent", "late_night", "entertainment", "classes"),
    "cyber": ("max_records", "refer_records", "mfa", "backups"),
    "contractor": ("max_subcontracted", "refer_subcontracted", "max_residential",
                   "refer_residential", "max_stories", "refer_stories", "classes"),
    "comp": ("excluded_codes", "referral_codes"),
}


def topics(spec: ProductSpec) -> list[str]:
    out: list[str] = []
    for topic, settings in spec.topics.items():
        unknown = sorted(set(settings) - set(TOPIC_KEYS[topic]))
        if unknown:
            raise GuideError(f"{spec.carrier_id}/{spec.product_id}: {topic}: unknown key(s) {unknown}")
        out += [f"# --- {topic.capitalize()} questions ---", ""]
        written = WRITERS[topic](settings)
        classes = settings.get("classes")
        if classes:  # asked only of the classes the topic concerns (alcohol: bars, restaurants)
            const = f"{topic.upper()}_CLASSES"
            out += ["# The classes these questions concern (NAICS prefixes)",
                    f"const {const} = {string_set(str(c) for c in classes)}", ""]
            scope = f"any(p in {const} where business.naics starts_with p)"
            written = [f"when ({line[5:]}) and {scope}" if line.startswith("when ") else line
                       for line in written]
        out += written
    return out


def _threshold(name: str, field: str, expr: str, reads: str, settings: dict[str, Any],
               maximum: str, refer: str, what: str, tag: str, unit: str = "") -> list[str]:
    """Decline above `settings[maximum]`, refer above `settings[refer]`, ask when unknown."""
    top, edge = settings.get(maximum), settings.get(refer)
    if top is None and edge is None:
        return []
    if top is not None and edge is not None:
        why = f"(above {plain(edge)}{unit} the program refers, above {plain(top)}{unit} it declines)"
    else:
        why = f"(above {plain(top if top is not None else edge)}{unit} the program " \
              f"{'declines' if top is not None else 'refers'})"
    out = rule(f"ask_{name}", f"Not answered: {what}", PRIORITY, f"{expr} is null",
               ask(field, why))
    if top is not None:
        out += rule(f"{name}_above_maximum", f"{what.capitalize()} beyond the program", PRIORITY,
                    f"{expr} > {number(top)}",
                    [f"decline {message(reads + f' is more than the {plain(top)}{unit} this program writes')}",
                     f"tag {quote(tag)}"])
    if edge is not None:
        cond = f"{expr} > {number(edge)}" + (f" and {expr} <= {number(top)}" if top is not None else "")
        out += rule(f"{name}_high", f"{what.capitalize()} above the program's comfort", PRIORITY,
                    cond,
                    [f"refer {message(reads + f' is above the {plain(edge)}{unit} the program writes without review')}",
                     f"tag {quote(tag)}"])
    return out


def _flag(name: str, field: str, expr: str, bad: bool, decision: str | None, reason: str,
          what: str, tag: str) -> list[str]:
    """Ask when unknown; `decision` with `reason` when the answer is `bad`."""
    if decision not in ("decline", "refer"):
        return []
    verb = "declines" if decision == "decline" else "refers"
    out = rule(f"ask_{name}", f"Not answered: {what}", PRIORITY, f"{expr} is null",
               ask(field, f"(the program {verb} {'if so' if bad else 'if not'})"))
    out += rule(name, what.capitalize(), PRIORITY, f"{expr} == {'true' if bad else 'false'}",
                [f"{decision} {message(reason)}", f"tag {quote(tag)}"])
    return out


def _property(s: dict[str, Any]) -> list[str]:
    out: list[str] = []
    frame = s.get("frame")
    if frame in ("decline", "refer"):
        out += rule("ask_construction", "Not answered: construction", PRIORITY,
                    "business.property.construction is null",
                    ask("property.construction", f"(frame buildings: the program {frame}s)"))
        out += rule("frame_construction", "Frame buildings", PRIORITY,
                    'business.property.construction == "frame"',
                    [f"{frame} \"Frame construction: {'outside the program' if frame == 'decline' else 'the underwriter reviews the building and its fire protection'}\"",
                     'tag "property"'])
    points = int(s.get("points", 5))
    out += ['table better_construction "Construction that burns less" hit first priority 355',
            "    | business.property.construction | => better_construction |",
            '    | "masonry_non_combustible" | "masonry non-combustible" |',
            '    | "modified_fire_resistive" | "modified fire resistive" |',
            '    | "fire_resistive" | "fire resistive" |',
            "    | - | null |", "end", ""]
    out += rule("noncombustible_credit", "Score: non-combustible construction", PRIORITY,
                "outputs.better_construction is not null",
                [f"score += {points}", "reason \"Construction: {outputs.better_construction}, "
                 "a better fire risk\""])
    if s.get("min_year") is not None or s.get("refer_year") is not None:
        out += rule("ask_year_built", "Not answered: year built", PRIORITY,
                    "business.property.year_built is null",
                    ask("property.year_built", "(older buildings need updates to wiring, plumbing, "
                        "heating and roof)"))
    if s.get("min_year") is not None:
        out += rule("building_too_old", "Buildings older than the program writes", PRIORITY,
                    f"business.property.year_built < {s['min_year']}",
                    [f"decline \"Built in {{business.property.year_built}}: the program writes "
                     f"buildings from {s['min_year']} on\"", 'tag "property"'])
    if s.get("refer_year") is not None:
        low = f" and business.property.year_built >= {s['min_year']}" if s.get("min_year") else ""
        out += rule("older_building", "Older buildings", PRIORITY,
                    f"business.property.year_built < {s['refer_year']}{low}",
                    [f"refer \"Built in {{business.property.year_built}}: buildings before "
                     f"{s['refer_year']} need updates to wiring, plumbing, heating and roof "
                     "confirmed\"", 'tag "property"'])
    out += _threshold("roof_age", "property.roof_age", "business.property.roof_age",
                      "A roof {business.property.roof_age} years old", s, "max_roof_age",
                      "refer_roof_age", "roof age", "property", " years")
    out += _threshold("protection_class", "property.protection_class",
                      "business.property.protection_class",
                      "Protection class {business.property.protection_class}", s,
                      "max_protection_class", "refer_protection_class", "protection class",
                      "property")
    sprinklers = s.get("sprinklers")
    if sprinklers in ("decline", "refer"):
        out += _flag("unsprinklered", "property.sprinklered", "business.property.sprinklered",
                     False, sprinklers, "The building is not sprinklered: the program needs "
                     "automatic sprinklers", "unsprinklered building", "property")
    elif sprinklers == "credit":
        out += rule("sprinkler_credit", "Score: sprinklered", PRIORITY,
                    "business.property.sprinklered == true",
                    [f"score += {points}", 'reason "Fully sprinklered"'])
    vacant = s.get("vacant")
    if vacant in ("decline", "refer"):
        out += rule("vacant_building", "Vacant buildings", PRIORITY,
                    "business.property.vacant == true",
                    [f"{vacant} \"A vacant building is {'outside the program' if vacant == 'decline' else 'referred for a vacancy permit'}\"",
                     'tag "property"'])
    return out


def _fleet(s: dict[str, Any]) -> list[str]:
    out = _flag("hazmat_hauled", "fleet.hazmat", "business.fleet.hazmat", True, s.get("hazmat"),
                "Hauls hazardous materials: " + ("outside the program" if s.get("hazmat") ==
                                                 "decline" else "the hazmat supplement is needed"),
                "hazardous materials", "prohibited_operation" if s.get("hazmat") == "decline"
                else "operations_review")
    out += _threshold("radius", "fleet.radius_miles", "business.fleet.radius_miles",
                      "A radius of {business.fleet.radius_miles} miles", s, "max_radius",
                      "refer_radius", "radius of operation", "radius", " miles")
    if s.get("dot"):
        out += rule("ask_dot_number", "Not answered: USDOT number", PRIORITY,
                    "business.fleet.dot_number is null",
                    ask("fleet.dot_number", "(underwriting checks the carrier's safety record)"))
    return out


def _liquor(s: dict[str, Any]) -> list[str]:
    out = _threshold("liquor_share", "operations.liquor_sales_percent",
                     "business.operations.liquor_sales_percent",
                     "Alcohol at {business.operations.liquor_sales_percent}% of sales", s,
                     "max_percent", "refer_percent", "alcohol share of sales", "liquor", "%")
    out += _flag("late_hours", "operations.open_past_midnight",
                 "business.operations.open_past_midnight", True, s.get("late_night"),
                 "Open past midnight: late hours are " + ("outside the program" if
                 s.get("late_night") == "decline" else "referred"), "late hours", "liquor")
    out += _flag("live_entertainment", "operations.live_entertainment",
                 "business.operations.live_entertainment", True, s.get("entertainment"),
                 "Live entertainment or dancing: " + ("outside the program" if
                 s.get("entertainment") == "decline" else "referred for the security plan"),
                 "live entertainment", "liquor")
    return out


def _cyber(s: dict[str, Any]) -> list[str]:
    out = _threshold("records", "cyber.records", "business.cyber.records",
                     "{business.cyber.records} records", s, "max_records", "refer_records",
                     "records held", "records")
    out += _flag("no_mfa", "cyber.mfa", "business.cyber.mfa", False, s.get("mfa"),
                 "No multi-factor authentication on e-mail and remote access: "
                 + ("the program requires it" if s.get("mfa") == "decline" else "referred"),
                 "multi-factor authentication", "controls")
    out += _flag("no_backups", "cyber.backups", "business.cyber.backups", False, s.get("backups"),
                 "No offline or immutable backups: " + ("the program requires them" if
                 s.get("backups") == "decline" else "referred"), "backups", "controls")
    return out


def _contractor(s: dict[str, Any]) -> list[str]:
    out = _threshold("subcontracted", "operations.subcontracted_percent",
                     "business.operations.subcontracted_percent",
                     "{business.operations.subcontracted_percent}% subcontracted", s,
                     "max_subcontracted", "refer_subcontracted", "subcontracted work",
                     "operations_review", "%")
    out += _threshold("residential", "operations.residential_percent",
                      "business.operations.residential_percent",
                      "{business.operations.residential_percent}% residential work", s,
                      "max_residential", "refer_residential", "residential share",
                      "operations_review", "%")
    out += _threshold("height", "operations.max_stories", "business.operations.max_stories",
                      "Work on buildings of {business.operations.max_stories} stories", s,
                      "max_stories", "refer_stories", "working height", "operations_review",
                      " stories")
    return out


def _comp(s: dict[str, Any]) -> list[str]:
    excluded = [(str(c), str(n)) for c, n in s.get("excluded_codes", ())]
    referral = [(str(c), str(n)) for c, n in s.get("referral_codes", ())]
    if not excluded and not referral:
        return []
    out = rule("ask_payroll_by_class", "Not answered: payroll by class code", PRIORITY,
               "business.payroll_by_class is null",
               ask("payroll_by_class", "(some class codes are excluded or referred)"))
    # one rule per code, so that a reason names the client's code, not the whole list
    if excluded:
        names = "; ".join(f"{c} {n}" for c, n in excluded)
        out += [f"# Class codes the program does not write: {names}", ""]
        for code, name in excluded:
            out += rule(f"excluded_comp_class_{code}", f"Excluded class code {code} ({name})",
                        PRIORITY, f'any(c in business.payroll_by_class where c.code == "{code}")',
                        [f'decline "Payroll in class code {code} ({name}): the program does not '
                         'write it"', 'tag "excluded_class"'])
    if referral:
        names = "; ".join(f"{c} {n}" for c, n in referral)
        out += [f"# Class codes written on referral: {names}", ""]
        for code, name in referral:
            out += rule(f"referral_comp_class_{code}", f"Class code {code} ({name}) on referral",
                        PRIORITY, f'any(c in business.payroll_by_class where c.code == "{code}")',
                        [f'refer "Payroll in class code {code} ({name}): written on referral '
                         'only"', 'tag "referral_class"'])
    return out


WRITERS: dict[str, Callable[[dict[str, Any]], list[str]]] = {
    "property": _property, "fleet": _fleet, "liquor": _liquor, "cyber": _cyber,
    "contractor": _contractor, "comp": _comp,
}
