"""The catalog states the specification's tables, fields, types, lengths and enumerations."""

from __future__ import annotations

import pytest

from insureops.schema.catalog import TABLES, TABLES_BY_NAME
from insureops.schema.enums import ENUMS

SPEC_TABLES = """audit_logs clients client_health_profiles producers policies policy_coverages
policy_exclusions policy_risks policy_risk_properties policy_risk_vehicles policy_risk_trips
policy_endorsements policy_renewals policy_cancellations policy_dependents policy_beneficiaries
policy_cessions policy_documents invoices invoice_items invoice_payments reinsurers
reinsurance_agreements uw_submissions uw_scores tasks consents claims claim_status_history
claim_reserves claim_payments claim_recoveries claim_parties claim_documents claim_notes""".split()

TYPES = [
    ("clients", "email", "string(255)", False), ("clients", "name", "string(255)", True),
    ("clients", "phone", "string(50)", False), ("clients", "postal_code", "string(20)", False),
    ("clients", "tax_id_last4", "string(4)", False), ("clients", "kyc_level", "string(20)", False),
    ("audit_logs", "request_method", "string(10)", False), ("audit_logs", "id", "integer", True),
    ("audit_logs", "ip_address", "IP address", False),
    ("policies", "status", "policy_status", True),
    ("policies", "policy_number", "string(50)", False),
    ("policies", "master_policy_number", "string(100)", False),
    ("policies", "premium", "decimal(12,2)", False),
    ("policies", "commission_rate", "decimal(5,2)", False),
    ("claims", "claim_number", "text", True), ("claims", "fraud_flags", "array of text", False),
    ("claims", "loss_lat", "double", False), ("claims", "fraud_score", "decimal(6,2)", False),
    ("claims", "currency_code", "3 characters", True),
    ("claim_payments", "net_amount", "decimal(14,2)", False),
    ("claim_status_history", "id", "integer", True), ("claim_parties", "id", "integer", True),
    ("claim_notes", "id", "integer", True), ("client_health_profiles", "weight_kg",
                                              "decimal(6,2)", False),
]


def test_catalog_has_every_table_of_the_specification():
    assert sorted(t.name for t in TABLES) == sorted(SPEC_TABLES)


def test_catalog_has_the_13_enumerations():
    assert len(ENUMS) == 13
    assert ENUMS["claim_status"] == ("open", "pending_info", "under_review", "approved", "denied",
                                     "litigated", "closed")
    assert len(ENUMS["party_role"]) == 12


@pytest.mark.parametrize(("table_name", "field", "label", "not_null"), TYPES)
def test_field_has_the_specified_type_when_declared(table_name, field, label, not_null):
    item = TABLES_BY_NAME[table_name].field(field)
    assert (item.type_label, item.not_null) == (label, not_null)


def test_tenant_id_is_on_every_table_except_claim_children_and_risk_details():
    without = {t.name for t in TABLES if not t.tenant_scoped}
    assert without == {"claim_status_history", "claim_reserves", "claim_payments",
                       "claim_recoveries", "claim_parties", "claim_documents", "claim_notes",
                       "policy_risk_properties", "policy_risk_vehicles", "policy_risk_trips"}


def test_only_audit_logs_and_claim_history_are_append_only():
    assert {t.name for t in TABLES if t.append_only} == {"audit_logs", "claim_status_history"}


def test_every_resource_name_is_unique_when_listed():
    assert len({t.resource for t in TABLES}) == len(TABLES)
