"""The carrier-matching business profile as a JSON Schema: the `Business` type of rulesets."""

from __future__ import annotations

BUSINESS_SCHEMA: dict = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "Business",
    "description": "A business looking for coverage, as agency staff describe it to find carriers.",
    "type": "object",
    "properties": {
        "name": {"type": ["string", "null"], "maxLength": 255},
        "description": {"type": ["string", "null"]},
        "website": {"type": ["string", "null"], "maxLength": 2048},
        "naics": {"type": ["string", "null"], "pattern": "^[0-9]{2,6}$"},
        "state": {"type": ["string", "null"], "minLength": 2, "maxLength": 2},
        "postal_code": {"type": ["string", "null"], "maxLength": 20},
        "country": {"type": ["string", "null"], "maxLength": 100},
        "annual_revenue": {"type": ["number", "null"], "minimum": 0},
        "payroll": {"type": ["number", "null"], "minimum": 0},
        "employee_count": {"type": ["integer", "null"], "minimum": 0},
        "years_in_business": {"type": ["number", "null"], "minimum": 0},
        "founded_on": {"type": ["string", "null"], "format": "date"},
        "lines_of_business": {"type": ["array", "null"], "items": {"type": "string"}},
        "requested_limit": {"type": ["number", "null"], "minimum": 0},
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
