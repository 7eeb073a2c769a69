"""Catalog: policies and their 13 child tables (coverages, risks, risk details, endorsements...)."""

from __future__ import annotations

from decimal import Decimal

from insureops.schema.model import (
    Table,
    created,
    decimal,
    enum,
    many,
    plain,
    string,
    tenant,
    text,
    timestamp,
    updated,
    uuid,
    uuid_key,
)

POLICIES = Table(
    "policies", "Policy", "Insurance policies (quotes to completed).",
    (
        uuid_key(),
        uuid("uuid", required=True, generated=True, unique=True),
        tenant(),
        uuid("client_id", references="clients", on_delete="SET NULL"),
        uuid("producer_id", references="producers", on_delete="SET NULL"),
        string("created_by", 255),
        string("location", 255),
        enum("line_of_business", "lob"),
        enum("status", "policy_status", required=True, default="quote"),
        plain("is_endorsement", "boolean", default=False),
        string("policy_number", 50, note="unique together with tenant_id"),
        string("certificate_number", 50),
        string("master_policy_number", 100),
        string("invoice_number", 100),
        *many(plain, "start_date end_date purchased cancellation_date retroactive_date "
                     "last_completed_endorsement", "date"),
        created("created"),
        updated("modified"),
        *many(decimal, "premium service_fee commission", 12, 2, note="calculated amount"),
        *many(decimal, "override_premium override_service_fee override_taxes", 12, 2),
        decimal("commission_rate", 5, 2),
        string("insurer", 255),
        *many(text, "underwriting_company rating_tier"),
        text("installment_plan", note="a cadence word, a hyphen and a count, e.g. monthly-12"),
        string("billing_email", 255),
        plain("expiry_reminders_disabled", "boolean", default=False),
        *many(text, "policy_url renewal_link owner_policy_link"),
        *many(text, "validation_log price_log questions_answers policyholder endorsement_message "
                    "notes override_message"),
    ),
    unique_together=(("tenant_id", "policy_number"),),
    status_field="status",
)


def policy_child(name: str, resource: str, description: str, *fields) -> Table:
    """A child of a policy: id, tenant_id, policy_id (CASCADE), its fields, created_at."""
    return Table(name, resource, description, (
        uuid_key(), tenant(),
        uuid("policy_id", required=True, references="policies", on_delete="CASCADE"),
        *fields, created(),
    ))


def risk_detail(name: str, resource: str, description: str, *fields) -> Table:
    """A risk-detail record: reached through its risk, no tenant_id of its own."""
    return Table(name, resource, description, (
        uuid_key(),
        uuid("risk_id", required=True, references="policy_risks", on_delete="CASCADE"),
        *fields, created(),
    ))


CHILDREN: tuple[Table, ...] = (
    policy_child(
        "policy_coverages", "PolicyCoverage", "Coverages, limits and deductibles of a policy.",
        text("coverage_code", required=True, hints=("COV_A", "BI", "PD", "MED_PAY", "TRIP_CANCEL")),
        text("coverage_name"),
        *many(decimal, "limit_amount sublimit_amount aggregate_limit_amount", 14, 2),
        decimal("deductible_amount", 14, 2, default=Decimal(0)),
        plain("waiting_period_days", "integer"),
        decimal("coinsurance_percent", 5, 2),
        text("territory"),
        plain("retroactive_date", "date"),
        *many(plain, "is_primary is_excess", "boolean"),
    ),
    policy_child("policy_exclusions", "PolicyExclusion", "Exclusions of a policy.",
                 *many(text, "exclusion_code exclusion_text")),
    policy_child(
        "policy_risks", "PolicyRisk", "Insured risks (property, vehicle, trip, person...).",
        text("risk_type", required=True,
             hints=("property", "vehicle", "trip", "person", "business_location", "equipment")),
        text("description"),
        *many(plain, "address attributes", "json"),
        decimal("sums_insured", 14, 2),
    ),
    risk_detail("policy_risk_properties", "PolicyRiskProperty", "Property details of a risk.",
                *many(text, "occupancy construction"),
                *many(plain, "year_built square_feet", "integer"),
                *many(plain, "sprinklered alarm", "boolean")),
    risk_detail("policy_risk_vehicles", "PolicyRiskVehicle", "Vehicle details of a risk.",
                *many(text, "vin make model"),
                plain("year", "integer"),
                text("usage", hints=("personal", "commercial")),
                plain("radius_miles", "integer")),
    risk_detail("policy_risk_trips", "PolicyRiskTrip", "Trip details of a risk.",
                *many(plain, "depart_date return_date", "date"),
                text("destination_country"),
                decimal("trip_cost", 12, 2)),
    policy_child("policy_endorsements", "PolicyEndorsement", "Endorsements (mid-term changes).",
                 text("number"),
                 enum("action", "endorsement_action", required=True),
                 plain("effective_date", "date", required=True),
                 decimal("premium_delta", 12, 2, default=Decimal(0)),
                 text("summary")),
    policy_child("policy_renewals", "PolicyRenewal", "Renewal offers.",
                 *many(plain, "renew_from renew_to", "date", required=True),
                 decimal("offered_premium", 12, 2),
                 plain("accepted", "boolean")),
    policy_child("policy_cancellations", "PolicyCancellation", "Cancellations.",
                 plain("cancel_date", "date", required=True),
                 text("cancel_reason"),
                 decimal("pro_rata_return", 12, 2)),
    policy_child("policy_dependents", "PolicyDependent", "Dependents covered by a policy.",
                 uuid("client_id", references="clients", on_delete="SET NULL"),
                 *many(text, "name relationship"),
                 plain("date_of_birth", "date")),
    policy_child("policy_beneficiaries", "PolicyBeneficiary", "Beneficiaries and their shares.",
                 text("name", required=True),
                 text("relationship"),
                 decimal("share_percent", 5, 2, required=True, minimum=Decimal(0),
                         maximum=Decimal(100)),
                 plain("attributes", "json", note="carries primary versus contingent")),
    policy_child("policy_cessions", "PolicyCession", "Shares of a policy ceded to reinsurance.",
                 uuid("agreement_id", required=True, references="reinsurance_agreements",
                      on_delete="RESTRICT"),
                 decimal("ceded_percent", 5, 2),
                 decimal("ceded_premium", 12, 2)),
    policy_child("policy_documents", "PolicyDocument", "Documents of a policy.",
                 text("kind", hints=("policy_pdf", "endorsement_pdf", "invoice_pdf")),
                 *many(text, "filename storage_uri content_hash"),
                 plain("meta", "json"),
                 uuid("uploaded_by"),
                 timestamp("uploaded_at", now=True)),
)

TABLES: tuple[Table, ...] = (POLICIES, *CHILDREN)
