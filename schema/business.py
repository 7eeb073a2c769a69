"""The carrier-matching business profile as a JSON Schema: the `Business` type of rulesets.

Beyond who the business is, it holds the answers real applications ask per line (liquor share
of sales, the fleet, the building, cyber controls, payroll by class) and the coverage asked for
per line with its own limit. Every field may be absent: appetites ask for what they need.
"""

from __future__ import annotations

_NUMBER = {"type": ["number", "null"], "minimum": 0}
_PERCENT = {"type": ["number", "null"], "minimum": 0, "maximum": 100}
_FLAG = {"type": ["boolean", "null"]}
_COUNT = {"type": ["integer", "null"], "minimum": 0}

# ISO construction classes, 1 to 6, as the property questions name them.
CONSTRUCTION_CLASSES = ("frame", "joisted_masonry", "non_combustible", "masonry_non_combustible",
                        "modified_fire_resistive", "fire_resistive")


def _group(description: str, properties: dict) -> dict:
    return {"type": ["object", "null"], "description": description, "properties": properties,
            "additionalProperties": False}


BUSINESS_SCHEMA: dict = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "Business",
    "description": "A business looking for coverage, as agency staff describe it to find carriers.",
    "type": "object",
    "properties": {
        "name": {"type": ["string", "null"], "maxLength": 255},
        "description": {"type": ["string", "null"]},
        "activities": {"type": ["string", "null"], "description": (
            "Set by the matcher: the description in lower case with what it denies removed "
            "(\"no hazmat\", \"never after 10pm\"), so appetites search operations without "
            "tripping on negations.")},
        "website": {"type": ["string", "null"], "maxLength": 2048},
        "naics": {"type": ["string", "null"], "pattern": "^[0-9]{2,6}$"},
        "state": {"type": ["string", "null"], "minLength": 2, "maxLength": 2},
        "postal_code": {"type": ["string", "null"], "maxLength": 20},
        "country": {"type": ["string", "null"], "maxLength": 100},
        "annual_revenue": _NUMBER,
        "payroll": _NUMBER,
        "employee_count": _COUNT,
        "years_in_business": _NUMBER,
        "founded_on": {"type": ["string", "null"], "format": "date"},
        "lines_of_business": {"type": ["array", "null"], "items": {"type": "string"}},
        "requested_limit": _NUMBER,
        "requests": {
            "type": ["array", "null"],
            "description": "The coverage asked for, one entry per line with its own limits.",
            "items": {
                "type": "object",
                "properties": {
                    "line": {"type": ["string", "null"]},
                    "limit": _NUMBER,
                    "aggregate": _NUMBER,
                    "deductible": _NUMBER,
                },
                "additionalProperties": False,
            },
        },
        "operations": _group("What the business does that underwriters ask about.", {
            "liquor_sales_percent": _PERCENT,
            "open_past_midnight": _FLAG,
            "live_entertainment": _FLAG,
            "delivery": _FLAG,
            "subcontracted_percent": _PERCENT,
            "residential_percent": _PERCENT,
            "max_stories": _COUNT,
            "products_sold_percent": _PERCENT,
        }),
        "fleet": _group("Vehicles the business runs (business auto, trucking).", {
            "power_units": _COUNT,
            "drivers": _COUNT,
            "radius_miles": _NUMBER,
            "hazmat": _FLAG,
            "dot_number": {"type": ["string", "null"], "maxLength": 20},
            "for_hire": _FLAG,
        }),
        "property": _group("The building the business occupies or owns.", {
            "construction": {"type": ["string", "null"], "enum": [*CONSTRUCTION_CLASSES, None]},
            "year_built": {"type": ["integer", "null"], "minimum": 1600, "maximum": 2200},
            "roof_age": _NUMBER,
            "protection_class": {"type": ["integer", "null"], "minimum": 1, "maximum": 10},
            "sprinklered": _FLAG,
            "stories": _COUNT,
            "square_feet": _NUMBER,
            "building_value": _NUMBER,
            "contents_value": _NUMBER,
            "distance_to_coast_miles": _NUMBER,
            "vacant": _FLAG,
        }),
        "cyber": _group("Data held and the controls over it.", {
            "records": _COUNT,
            "mfa": _FLAG,
            "backups": _FLAG,
            "payment_cards": _FLAG,
            "prior_incident": _FLAG,
        }),
        "payroll_by_class": {
            "type": ["array", "null"],
            "description": "Workers compensation payroll by class code (NCCI or state).",
            "items": {
                "type": "object",
                "properties": {
                    "code": {"type": ["string", "null"]},
                    "payroll": _NUMBER,
                    "description": {"type": ["string", "null"]},
                },
                "additionalProperties": False,
            },
        },
        "prior_claims": {
            "type": ["array", "null"],
            "items": {
                "type": "object",
                "properties": {
                    "amount": {"type": ["number", "null"]},
                    "date": {"type": ["string", "null"], "format": "date"},
                    "type": {"type": ["string", "null"]},
                    "description": {"type": ["string", "null"]},
                },
                "additionalProperties": False,
            },
        },
    },
    "additionalProperties": False,
}
