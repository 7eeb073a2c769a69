"""Catalog: claims and their 7 child tables (status history, reserves, payments, recoveries...)."""

from __future__ import annotations

from decimal import Decimal

from insureops.schema.model import (
    Table,
    created,
    currency,
    decimal,
    enum,
    many,
    plain,
    serial_key,
    tenant,
    text,
    timestamp,
    updated,
    uuid,
    uuid_key,
)

CLAIMS = Table(
    "claims", "Claim", "Claims against policies.",
    (
        uuid_key(),
        uuid("uuid", required=True, generated=True, unique=True),
        text("claim_number", required=True, unique=True),
        tenant(),
        uuid("policy_id", required=True, references="policies", on_delete="RESTRICT"),
        uuid("insured_id", required=True, references="clients", on_delete="RESTRICT"),
        uuid("claimant_id", references="clients", on_delete="SET NULL"),
        enum("claim_type", "claim_type", required=True),
        enum("status", "claim_status", required=True, default="open"),
        enum("priority", "priority", required=True, default="normal"),
        text("source"),
        enum("loss_cause", "cause_of_loss", required=True),
        text("loss_description"),
        timestamp("loss_occurred_at", required=True),
        timestamp("reported_at", now=True),
        currency(),
        *many(decimal, "reported_loss_amount approved_amount salvage_estimate_amount "
                       "subrogation_potential_amount", 14, 2),
        decimal("deductible_amount", 14, 2, default=Decimal(0)),
        text("coverage_type"),
        *many(decimal, "coverage_limit_amount remaining_limit_amount", 14, 2),
        *many(timestamp, "policy_effective_at policy_expires_at"),
        *many(text, "loss_address_line1 loss_address_line2 loss_city loss_state loss_postal "
                    "loss_country"),
        *many(plain, "loss_lat loss_lng", "double"),
        uuid("assigned_adjuster_id"),
        decimal("liability_percent_insured", 5, 2),
        decimal("fraud_score", 6, 2),
        plain("fraud_flags", "text_array"),
        plain("pci_phi_contains", "boolean", default=False),
        *many(timestamp, "sla_due_at next_action_at"),
        *many(text, "incident_report_ref police_report_number injury_severity litigation_status "
                    "subrogation_status"),
        text("closure_reason"),
        plain("reopen_count", "integer", default=0),
        timestamp("reopened_last_at"),
        created(),
        updated(),
        *many(uuid, "created_by updated_by"),
    ),
    status_field="status",
)


def claim_child(name: str, resource: str, description: str, key, *fields, **extra) -> Table:
    """A child of a claim: its key, claim_id (CASCADE) and its fields; no tenant_id."""
    return Table(name, resource, description, (
        key, uuid("claim_id", required=True, references="claims", on_delete="CASCADE"), *fields,
    ), **extra)


CHILDREN: tuple[Table, ...] = (
    claim_child("claim_status_history", "ClaimStatusHistory",
                "Append-only record of every change of a claim's status.", serial_key(),
                enum("old_status", "claim_status"),
                enum("new_status", "claim_status", required=True),
                uuid("changed_by"),
                timestamp("changed_at", now=True),
                text("note"), append_only=True),
    claim_child("claim_reserves", "ClaimReserve", "Reserves set on a claim.", uuid_key(),
                decimal("amount", 14, 2, required=True),
                text("reason"),
                created(),
                uuid("created_by")),
    claim_child("claim_payments", "ClaimPayment", "Payments made on a claim.", uuid_key(),
                uuid("payee_id"),
                enum("type", "payment_type", required=True),
                enum("method", "payment_method", required=True),
                decimal("gross_amount", 14, 2, required=True),
                decimal("tax_amount", 14, 2, default=Decimal(0)),
                decimal("net_amount", 14, 2, computed="gross_amount - tax_amount",
                        note="gross_amount minus tax_amount, read-only"),
                timestamp("paid_at", required=True),
                text("reference")),
    claim_child("claim_recoveries", "ClaimRecovery", "Recoveries (subrogation, salvage...).",
                uuid_key(),
                enum("type", "recovery_type", required=True),
                text("counterparty"),
                decimal("amount", 14, 2, required=True),
                timestamp("received_at", required=True),
                text("reference")),
    claim_child("claim_parties", "ClaimParty", "People and firms involved in a claim.",
                serial_key(),
                uuid("party_id"),
                text("role", required=True,
                     hints=("insured", "claimant", "witness", "attorney", "tp_driver", "shop")),
                plain("contact_info", "json", note="snapshot")),
    claim_child("claim_documents", "ClaimDocument", "Documents of a claim.", uuid_key(),
                text("kind", hints=("photo", "police_report", "invoice", "estimate", "medical",
                                    "pdf")),
                *many(text, "filename storage_uri content_hash"),
                plain("meta", "json"),
                uuid("uploaded_by"),
                timestamp("uploaded_at", now=True)),
    claim_child("claim_notes", "ClaimNote", "Notes on a claim.", serial_key(),
                uuid("author_id"),
                text("body", required=True),
                text("visibility", default="internal", hints=("internal", "external"),
                     allowed=("internal", "external")),
                created()),
)

TABLES: tuple[Table, ...] = (CLAIMS, *CHILDREN)
