"""Payload validation against the data model's JSON Schemas: one message per field, no values."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from insureops.platform.tenancy.book.payloads import ClientCreate, PolicyCreate, PolicyUpdate
from insureops.platform.tenancy.book.validation import payload_errors
from insureops.schema.jsonschemas import resource_schema


@pytest.mark.parametrize("payload, field, message", [
    ({"name": "x" * 256}, "name", "is too long (at most 255 characters)"),
    ({"name": "A", "tax_id_last4": "12345"}, "tax_id_last4", "is too long (at most 4 characters)"),
    ({"name": 7}, "name", "must be a string"),
    ({"name": "A", "email": 7}, "email", "must be a string or null"),
    ({"name": "A", "date_of_birth": "1980-13-01"}, "date_of_birth",
     "must be a date (YYYY-MM-DD)"),
    ({"name": "A", "marketing_opt_in": "yes"}, "marketing_opt_in", "must be true or false"),
    ({"name": "A", "id": "x"}, "id", "is not a field of this resource (unknown field)"),
    ({}, "name", "is required"),
])
def test_client_payload_errors_name_the_field_when_a_rule_fails(payload, field, message):
    assert payload_errors("Client", "create", payload) == [{"field": field, "message": message}]


def test_policy_payload_errors_cover_decimals_enums_and_uuids_when_all_are_wrong():
    errors = payload_errors("Policy", "update", {
        "premium": 10**10, "commission_rate": "ten", "line_of_business": "pets",
        "client_id": "42", "status": "lost"})
    fields = {error["field"]: error["message"] for error in errors}
    assert fields["premium"] == "must be less than 10000000000"
    assert fields["commission_rate"] == "must be a number or null"
    assert fields["line_of_business"].startswith("must be one of: property, auto")
    assert fields["client_id"] == "must be a UUID"
    assert fields["status"].startswith("must be one of: quote, bound")


def test_body_that_is_not_an_object_is_one_error_when_validated():
    assert payload_errors("Client", "create", ["Ann"]) == [
        {"field": "body", "message": "must be a JSON object"}]


def test_payload_models_raise_field_errors_without_the_value_when_invalid():
    with pytest.raises(ValidationError) as failure:
        PolicyCreate.model_validate({"policy_number": "P" * 51, "tenant_id": "secret-tenant"})
    errors = failure.value.errors(include_url=False)
    assert [(e["loc"], e["msg"]) for e in errors] == [
        (("policy_number",), "is too long (at most 50 characters)"),
        (("tenant_id",), "is not a field of this resource (unknown field)")]
    assert "secret-tenant" not in str(failure.value) and "PPPP" not in str(failure.value)


def test_payload_models_publish_the_data_model_schema_when_documented():
    for model, resource, mode in [(ClientCreate, "Client", "create"),
                                  (PolicyUpdate, "Policy", "update")]:
        published = model.model_json_schema()
        expected = resource_schema(resource, mode)
        for name, description in model.descriptions.items():  # the service's own words
            assert published["properties"][name].pop("description") == description
        for name, (_, further) in model.spellings.items():  # e.g. ACORD codes (issue 33)
            field = expected["properties"][name]
            expected["properties"][name] = {**field, "enum": [*field["enum"], *further]}
        assert published["properties"] == expected["properties"]
        assert published.get("required") == expected.get("required")
        assert published["additionalProperties"] is False


def test_values_are_the_fields_sent_when_a_partial_update_is_parsed():
    update = PolicyUpdate.model_validate({"notes": None, "status": "bound"})
    assert update.values == {"notes": None, "status": "bound"}
