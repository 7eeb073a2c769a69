"""A business as the matcher reads it: states in any case or by name, NAICS 2017 codes mapped
to 2022 with a warning, line codes by their aliases, construction in words, plain answers
the description states, whole numbers whole; and what cannot be read, refused with its field.

`normalise_business` never guesses silently: every change it makes is a warning, and every
value it cannot read is a `BusinessInputError` naming the field (the service answers 400
`business_invalid`; the error is also the engine's EvaluationError, which every caller of
`match` already handles).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any

from insureops.carrier_matching import description as described
from insureops.carrier_matching import naics_reference
from insureops.carrier_matching.lines import canonical_line
from insureops.carrier_matching.market import MarketError
from insureops.carrier_matching.naics_concordance import replacement
from insureops.carrier_matching.states import state_code
from insureops.engine.ir.errors import EvaluationError
from insureops.schema.business import BUSINESS_SCHEMA, CONSTRUCTION_CLASSES

_NAICS = re.compile(r"^[0-9]{2,6}$")
AMOUNT_FIELDS = ("annual_revenue", "payroll", "employee_count", "years_in_business",
                 "requested_limit")
CONSTRUCTION_WORDS: dict[str, str] = {
    "frame": "frame", "wood frame": "frame", "wood": "frame", "timber": "frame", "1": "frame",
    "joisted masonry": "joisted_masonry", "masonry": "joisted_masonry", "brick": "joisted_masonry",
    "block": "joisted_masonry", "concrete block": "joisted_masonry", "cmu": "joisted_masonry",
    "2": "joisted_masonry",
    "non combustible": "non_combustible", "noncombustible": "non_combustible",
    "steel": "non_combustible", "metal": "non_combustible", "3": "non_combustible",
    "masonry non combustible": "masonry_non_combustible",
    "masonry noncombustible": "masonry_non_combustible", "4": "masonry_non_combustible",
    "modified fire resistive": "modified_fire_resistive", "5": "modified_fire_resistive",
    "fire resistive": "fire_resistive", "fire resistant": "fire_resistive",
    "reinforced concrete": "fire_resistive", "concrete": "fire_resistive", "6": "fire_resistive",
}
# Answers a description may state plainly: (group, field, phrases that say yes)
DESCRIBED_FLAGS = (
    ("fleet", "hazmat", ("hazmat", "hazardous materials", "hazardous material", "placarded")),
    ("operations", "open_past_midnight", ("late night", "after midnight", "past midnight",
                                          "open late", "late hours")),
    ("operations", "live_entertainment", ("live music", "live entertainment", "live bands",
                                          "dj", "dance floor")),
    ("property", "sprinklered", ("sprinklered", "fully sprinklered", "sprinkler system",
                                 "sprinklers")),
)

_DESCRIBED_PATTERNS = tuple((group, field, tuple(described.phrase_pattern(p) for p in phrases))
                            for group, field, phrases in DESCRIBED_FLAGS)

# What a caller may send where `normalise_business` reads more than the Business type allows
# (each value is still refused here when it cannot be read): the JSON Schema of a field as the
# matcher's input, by the field's path in the Business type.
_AMOUNT_TEXT = {"type": ["number", "string", "null"], "minimum": 0, "maxLength": 40}
_LINE_TEXT = {"type": ["string", "null"], "maxLength": 60}
INPUT_SCHEMA_CHANGES: dict[tuple[str, ...], dict] = {
    ("state",): {"type": ["string", "null"], "minLength": 2, "maxLength": 60,
                 "description": "A state code in any case (az) or name (Arizona)."},
    ("naics",): {"type": ["string", "null"], "pattern": r"^\s*[0-9][0-9 .-]*$", "maxLength": 20,
                 "description": "A NAICS 2022 code or prefix (2-6 digits); a 2017 code that "
                                "2022 replaced is read as its 2022 code, with a warning."},
    **{(field,): _AMOUNT_TEXT for field in AMOUNT_FIELDS},
    ("lines_of_business", "items"): {"type": "string", "maxLength": 60,
                                     "description": "An ACORD line code or a line's name."},
    ("requests", "items", "line"): _LINE_TEXT,
    ("property", "construction"): {"type": ["string", "null"], "maxLength": 60,
                                   "description": "An ISO construction class, or words "
                                                  "(brick, steel, 1 to 6)."},
}


def input_schema() -> dict:
    """The JSON Schema of what `normalise_business` reads: the Business type, with the fields
    it reads more freely (states by name, amounts as text, line names, construction in words)
    widened. The service derives its request model from this, so it accepts what the core
    reads and nothing else."""
    schema = copy.deepcopy(BUSINESS_SCHEMA)
    for path, widened in INPUT_SCHEMA_CHANGES.items():
        node = schema["properties"]
        for step in path[:-1]:
            node = node[step]
            node = node.get("properties", node)
        node[path[-1]] = copy.deepcopy(widened)
    return schema


class BusinessInputError(MarketError, EvaluationError):
    """A business the matcher cannot read: `code` says what (`unknown_naics`, `invalid_state`,
    `unknown_line`, `invalid_construction`), `details` lists `{"field", "message"}`."""

    default_code = "business_invalid"

    def __init__(self, problems: list[tuple[str, str, str]]) -> None:
        self.details = [{"field": field, "message": message} for field, _, message in problems]
        text = "; ".join(f"{field}: {message}" for field, _, message in problems)
        EvaluationError.__init__(self, text, code=problems[0][1])


@dataclass(frozen=True)
class Normalised:
    """The business as appetites read it, and what was changed to get there."""

    business: dict
    warnings: tuple[str, ...]


def normalise_business(business: Mapping, *, as_of: date | None = None) -> Normalised:
    """Read `business` as appetites read it; raises BusinessInputError naming each bad field."""
    data = _whole_numbers(dict(business))
    warnings: list[str] = []
    problems: list[tuple[str, str, str]] = []
    _amounts(data, warnings, problems)
    _state(data, warnings, problems)
    _naics(data, warnings, problems)
    _lines(data, warnings, problems)
    _construction(data, warnings, problems)
    if problems:
        raise BusinessInputError(problems)
    _years(data, as_of, warnings)
    activities = described.activities(data.get("description"))
    _described(data, activities, warnings)
    data["activities"] = activities
    return Normalised(data, tuple(warnings))


def _amounts(data: dict, warnings: list[str], problems: list) -> None:
    """Amounts written as text ("$1,500,000", "12") read as numbers."""
    for field in AMOUNT_FIELDS:
        value = data.get(field)
        if not isinstance(value, str):
            continue
        text = value.strip().replace(",", "").replace("$", "").replace("_", "")
        try:
            amount = Decimal(text)
        except ArithmeticError:
            problems.append((field, "invalid_number", f"{value!r} is not a number"))
            continue
        data[field] = int(amount) if amount == amount.to_integral_value() else amount
        warnings.append(f"{field} {value!r} read as {data[field]}")


def _state(data: dict, warnings: list[str], problems: list) -> None:
    value = data.get("state")
    if value is None:
        return
    if not isinstance(value, str):
        problems.append(("state", "invalid_state", "must be a state code or name"))
        return
    code = state_code(value)
    if code is None:
        problems.append(("state", "invalid_state", f"{value!r} is not a US state or DC: give "
                         "its two-letter code (OR) or its name (Oregon)"))
        return
    if code != value.strip().upper():
        warnings.append(f"state {value!r} read as {code}")
    data["state"] = code


def _naics(data: dict, warnings: list[str], problems: list) -> None:
    value = data.get("naics")
    if value is None:
        return
    code = re.sub(r"[\s.-]", "", str(value))
    if not _NAICS.match(code):
        problems.append(("naics", "invalid_naics", f"{value!r} is not a NAICS code (2 to 6 "
                         "digits)"))
        return
    if naics_reference.title(code) is not None:
        data["naics"] = code
        return
    found = replacement(code)
    if found is None:
        problems.append(("naics", "unknown_naics", f"{code} is not a NAICS 2022 code (nor a "
                         "2017 code that 2022 replaced): check it, or classify the business "
                         "from its description"))
        return
    title = naics_reference.title(found.naics_2022)
    warnings.append(f"NAICS {code} ({found.title_2017}) is a 2017 code: read as NAICS 2022 "
                    f"{found.naics_2022} ({title})" + (f"; {found.note}" if found.note else ""))
    data["naics"] = found.naics_2022


def _lines(data: dict, warnings: list[str], problems: list) -> None:
    lines = data.get("lines_of_business")
    if isinstance(lines, list):
        data["lines_of_business"] = [_line(f"lines_of_business[{i}]", line, warnings, problems)
                                     for i, line in enumerate(lines)]
    requests = data.get("requests")
    if isinstance(requests, list):
        fixed = []
        for index, request in enumerate(requests):
            if isinstance(request, Mapping) and isinstance(request.get("line"), str):
                request = {**request, "line": _line(f"requests[{index}].line", request["line"],
                                                     warnings, problems)}
            fixed.append(request)
        data["requests"] = fixed


def _line(field: str, value: Any, warnings: list[str], problems: list) -> Any:
    if not isinstance(value, str):
        return value
    code = canonical_line(value)
    if code is None:
        problems.append((field, "unknown_line", f"{value!r} is not a line of business code "
                         "(BOP, CGL, WORK, AUTOB, GARAG, PROPC, EO, CYBER, UMBRC, LIQUR, EPLI, "
                         "INMRC, DO, CRIM) nor a line's name"))
        return value
    if code != value.strip().upper():
        warnings.append(f"line {value!r} read as {code}")
    return code


def _construction(data: dict, warnings: list[str], problems: list) -> None:
    building = data.get("property")
    if not isinstance(building, Mapping) or building.get("construction") is None:
        return
    value = building["construction"]
    if value in CONSTRUCTION_CLASSES:
        return
    words = re.sub(r"[^a-z0-9]+", " ", str(value).lower()).strip()
    found = CONSTRUCTION_WORDS.get(words)
    if found is None:
        problems.append(("property.construction", "invalid_construction", f"{value!r} is not a "
                         f"construction class ({', '.join(CONSTRUCTION_CLASSES)})"))
        return
    warnings.append(f"construction {value!r} read as {found}")
    data["property"] = {**building, "construction": found}


def _years(data: dict, as_of: date | None, warnings: list[str]) -> None:
    founded = data.get("founded_on")
    if data.get("years_in_business") is not None or as_of is None or not isinstance(founded, str):
        return
    try:
        start = date.fromisoformat(founded)
    except ValueError:
        return
    years = as_of.year - start.year - ((as_of.month, as_of.day) < (start.month, start.day))
    if years >= 0:
        data["years_in_business"] = years
        warnings.append(f"years_in_business {years}, counted from founded_on {founded}")


def _described(data: dict, activities: str | None, warnings: list[str]) -> None:
    """The plain answers of DESCRIBED_FLAGS the description states: yes when its `activities`
    (what it affirms) hold a phrase, no when it names one only to deny it."""
    text = data.get("description")
    if not isinstance(text, str) or not text:
        return
    named = None  # every word of the description, read when first needed
    for group, field, patterns in _DESCRIBED_PATTERNS:
        current = data.get(group)
        if isinstance(current, Mapping) and current.get(field) is not None:
            continue
        if any(pattern in activities for pattern in patterns):
            answer = True
        else:
            if named is None:
                named = described.all_words(text)
            if not any(pattern in named for pattern in patterns):
                continue
            answer = False
        data[group] = {**(current if isinstance(current, Mapping) else {}), field: answer}
        warnings.append(f"{group}.{field} read from the description: {'yes' if answer else 'no'}")
    building = data.get("property")
    if not (isinstance(building, Mapping) and building.get("year_built") is not None):
        year = described.year_built(text)
        if year is not None:
            data["property"] = {**(building if isinstance(building, Mapping) else {}),
                                "year_built": year}
            warnings.append(f"property.year_built read from the description: {year}")


def _whole_numbers(value: Any) -> Any:
    """Whole floats and decimals as ints, all the way down (so no reason reads `1000000.0`)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, Decimal) and value.is_finite() and value == value.to_integral_value():
        return int(value)
    if isinstance(value, dict):
        return {key: _whole_numbers(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_whole_numbers(item) for item in value]
    return value
