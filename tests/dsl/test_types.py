"""The type model and JSON Schema -> types."""

from __future__ import annotations

from insureops.dsl import types as t
from insureops.schema.business import BUSINESS_SCHEMA


def test_business_schema_maps_to_typed_fields_when_converted():
    business = t.from_json_schema(BUSINESS_SCHEMA, "Business")
    fields = business.fields
    assert business.kind == "object" and business.closed and str(business) == "Business"
    assert fields["annual_revenue"].kind == "number"
    assert fields["employee_count"].integer and fields["employee_count"].minimum == 0
    assert fields["founded_on"] == t.DATE
    assert fields["lines_of_business"] == t.list_of(t.STRING)
    claim = fields["prior_claims"].item
    assert claim.kind == "object" and claim.fields["date"] == t.DATE


def test_unknown_schema_shapes_become_any_when_converted():
    assert t.from_json_schema({"anyOf": [{"type": "string"}, {"type": "number"}]}) == t.ANY
    assert t.from_json_schema(None) == t.ANY
    assert t.from_json_schema({"enum": ["a", "b"]}) == t.STRING


def test_unify_falls_back_to_any_when_kinds_differ():
    assert t.unify(t.NUMBER, t.NULL) == t.NUMBER
    assert t.unify(t.NUMBER, t.STRING) == t.ANY
    assert t.unify(t.list_of(t.NUMBER), t.list_of(t.NULL)) == t.list_of(t.NUMBER)


def test_compatible_accepts_any_when_one_side_is_unknown():
    assert t.compatible(t.ANY, t.DATE) and not t.compatible(t.DATE, t.DATETIME)
