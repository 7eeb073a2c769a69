"""The JSON Schemas generated from the catalog enforce the specification's field rules."""

from __future__ import annotations

import pytest
from jsonschema import Draft202012Validator

from insureops.schema.jsonschemas import resource_names, resource_schema
from insureops.schema.registry import default_registry

CLIENT = {"name": "Ada Lovelace", "email": "ada@example.org", "date_of_birth": "1815-12-10",
          "marketing_opt_in": True, "tax_id_last4": "1234"}
CLAIM = {"claim_number": "CLM-1", "policy_id": "6f1c1f5e-6a39-4c59-9d0e-2f3b1d1f4a10",
         "insured_id": "1b6b2b4e-30f3-4a52-8f6e-5a3d0a6f9e21", "claim_type": "first_party",
         "loss_cause": "fire", "loss_occurred_at": "2026-03-01T12:30:00Z",
         "reported_loss_amount": 12500.5, "fraud_flags": ["late_report"]}


def errors(resource: str, mode: str, payload: dict) -> list[tuple[str, str]]:
    """(field path, validator keyword) of every error; formats are checked."""
    validator = Draft202012Validator(resource_schema(resource, mode),
                                     format_checker=Draft202012Validator.FORMAT_CHECKER)
    return sorted((".".join(map(str, e.absolute_path)), e.validator)
                  for e in validator.iter_errors(payload))


@pytest.mark.parametrize("resource", resource_names())
@pytest.mark.parametrize("mode", ["read", "create", "update"])
def test_every_schema_is_valid_draft_2020_12(resource, mode):
    Draft202012Validator.check_schema(resource_schema(resource, mode))


def test_valid_payloads_pass_when_they_follow_the_field_rules():
    assert errors("Client", "create", CLIENT) == []
    assert errors("Claim", "create", CLAIM) == []
    assert errors("Policy", "update", {"status": "active", "premium": 1200.0}) == []


@pytest.mark.parametrize(("resource", "payload", "expected"), [
    ("Client", {**CLIENT, "name": "x" * 256}, ("name", "maxLength")),
    ("Client", {**CLIENT, "tax_id_last4": "12345"}, ("tax_id_last4", "maxLength")),
    ("Client", {**CLIENT, "date_of_birth": "10/12/1815"}, ("date_of_birth", "format")),
    ("Client", {**CLIENT, "nickname": "Ada"}, ("", "additionalProperties")),
    ("Client", {**CLIENT, "tenant_id": "01JD0000000000000000000000"}, ("", "additionalProperties")),
    ("Client", {"email": "a@b.c"}, ("", "required")),
    ("Claim", {**CLAIM, "loss_cause": "meteor"}, ("loss_cause", "enum")),
    ("Claim", {**CLAIM, "policy_id": "not-a-uuid"}, ("policy_id", "format")),
    ("Claim", {**CLAIM, "loss_occurred_at": "2026-03-01"}, ("loss_occurred_at", "format")),
    ("Claim", {**CLAIM, "status": "approved"}, ("status", "enum")),
    ("Claim", {**CLAIM, "reported_loss_amount": 1e12}, ("reported_loss_amount",
                                                        "exclusiveMaximum")),
    ("Claim", {**CLAIM, "currency_code": "EURO"}, ("currency_code", "maxLength")),
    ("Claim", {**CLAIM, "priority": None}, ("priority", "type")),
    ("Claim", {**CLAIM, "net_amount": 5}, ("", "additionalProperties")),
    ("PolicyBeneficiary", {"policy_id": "6f1c1f5e-6a39-4c59-9d0e-2f3b1d1f4a10", "name": "B",
                           "share_percent": 100.5}, ("share_percent", "maximum")),
    ("PolicyBeneficiary", {"policy_id": "6f1c1f5e-6a39-4c59-9d0e-2f3b1d1f4a10", "name": "B",
                           "share_percent": -1}, ("share_percent", "minimum")),
    ("ClaimNote", {"claim_id": "6f1c1f5e-6a39-4c59-9d0e-2f3b1d1f4a10", "body": "b",
                   "visibility": "public"}, ("visibility", "enum")),
    ("AuditLog", {"action": "create", "entity_type": "client", "ip_address": "999.1.1.1"},
     ("ip_address", "anyOf")),
])
def test_invalid_create_payload_is_refused_naming_the_field(resource, payload, expected):
    assert expected in errors(resource, "create", payload)


def test_update_payload_needs_no_field_but_refuses_null_for_a_required_one():
    assert errors("Client", "update", {}) == []
    assert errors("Client", "update", {"name": None}) == [("name", "type")]
    assert errors("Client", "update", {"email": None}) == []


def test_status_may_be_any_state_on_update_and_only_the_initial_one_on_create():
    assert errors("Invoice", "update", {"status": "paid"}) == []
    assert errors("Invoice", "create", {"status": "paid"}) == [("status", "enum")]
    assert errors("Invoice", "create", {"status": "draft"}) == []


def test_read_shape_lists_every_column_including_server_managed_ones():
    properties = resource_schema("Claim", "read")["properties"]
    assert {"id", "uuid", "tenant_id", "reopen_count", "updated_at", "created_at"} <= set(
        properties)
    assert "required" not in resource_schema("Claim", "read")


@pytest.mark.parametrize("resource", ["Client", "Policy", "Claim", "AuditLog", "PolicyCoverage"])
@pytest.mark.parametrize("mode", ["create", "update"])
def test_payloads_leave_out_the_record_creation_time(resource, mode):
    properties = resource_schema(resource, mode)["properties"]
    assert not {"created", "created_at", "tenant_id", "id"} & set(properties)


def test_payloads_keep_timestamps_that_record_a_business_event():
    assert "reported_at" in resource_schema("Claim", "create")["properties"]
    assert "uploaded_at" in resource_schema("ClaimDocument", "create")["properties"]


def test_unknown_resource_or_mode_is_refused_with_the_known_names():
    with pytest.raises(KeyError, match="Client"):
        resource_schema("Customer")
    with pytest.raises(ValueError, match="mode"):
        resource_schema("Client", "delete")


def test_registry_exposes_every_resource_with_date_formats_when_built():
    registry = default_registry()
    assert {"Business", "Client", "Policy", "Claim", "Producer", "Invoice",
            "ClaimStatusHistory"} <= set(registry.names())
    claim = registry.get("Claim")["properties"]
    assert claim["loss_occurred_at"]["format"] == "date-time"
    assert registry.get("Policy")["properties"]["start_date"]["format"] == "date"
    assert claim["status"]["enum"][0] == "open"
    assert "Any" in registry and registry.get("Any") is None


def test_returned_schema_is_a_copy_when_the_caller_mutates_it():
    resource_schema("Client")["properties"].clear()
    assert "name" in resource_schema("Client")["properties"]
