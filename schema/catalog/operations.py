"""Catalog: billing, reinsurance, underwriting, tasks and consents."""

from __future__ import annotations

from insureops.schema.model import (
    Table,
    created,
    currency,
    decimal,
    enum,
    many,
    plain,
    tenant,
    text,
    timestamp,
    uuid,
    uuid_key,
)

BILLING: tuple[Table, ...] = (
    Table("invoices", "Invoice", "Invoices billed to clients.", (
        uuid_key(), tenant(),
        uuid("policy_id", references="policies", on_delete="SET NULL"),
        text("invoice_number", unique=True),
        uuid("billed_to_client_id", references="clients", on_delete="SET NULL"),
        enum("status", "billing_status", required=True, default="draft"),
        currency(),
        timestamp("issued_at", now=True),
        timestamp("due_at"),
        text("notes"),
    ), status_field="status"),
    Table("invoice_items", "InvoiceItem", "Lines of an invoice.", (
        uuid_key(), tenant(),
        uuid("invoice_id", required=True, references="invoices", on_delete="CASCADE"),
        enum("item_type", "receivable_type", required=True),
        text("description"),
        decimal("amount", 12, 2, required=True),
    )),
    Table("invoice_payments", "InvoicePayment", "Payments received against an invoice.", (
        uuid_key(), tenant(),
        uuid("invoice_id", required=True, references="invoices", on_delete="CASCADE"),
        enum("method", "payment_method", required=True),
        decimal("amount", 12, 2, required=True),
        timestamp("paid_at", required=True),
        text("reference"),
    )),
)

REINSURANCE: tuple[Table, ...] = (
    Table("reinsurers", "Reinsurer", "Reinsurers.", (
        uuid_key(), tenant(),
        text("name", required=True),
        text("rating"),
        plain("contact", "json"),
    )),
    Table("reinsurance_agreements", "ReinsuranceAgreement", "Treaty and facultative agreements.", (
        uuid_key(), tenant(),
        text("type", hints=("treaty", "facultative")),
        text("name"),
        *many(plain, "effective_from effective_to", "date"),
        decimal("share_percent", 5, 2, note="quota share"),
        *many(decimal, "retention_amount limit_amount", 14, 2),
        plain("terms", "json"),
    )),
)

WORKFLOW: tuple[Table, ...] = (
    Table("uw_submissions", "UwSubmission", "Underwriting submissions.", (
        uuid_key(), tenant(),
        uuid("policy_id", references="policies", on_delete="SET NULL"),
        uuid("client_id", references="clients", on_delete="SET NULL"),
        enum("lob", "lob"),
        *many(plain, "answers attachments", "json"),
        created(),
    )),
    Table("uw_scores", "UwScore", "Scores and decisions on submissions.", (
        uuid_key(), tenant(),
        uuid("submission_id", required=True, references="uw_submissions", on_delete="CASCADE"),
        decimal("score", 6, 2),
        plain("factors", "json"),
        text("decision", hints=("approve", "decline", "refer")),
        timestamp("decided_at", now=True),
    )),
    Table("tasks", "Task", "Work items on policies, claims, clients and invoices.", (
        uuid_key(), tenant(),
        text("subject", required=True),
        timestamp("due_at"),
        text("status", default="open", note="free text; documented values in the task machine"),
        enum("priority", "priority", default="normal"),
        uuid("assigned_to"),
        text("entity_type", hints=("policy", "claim", "client", "invoice")),
        uuid("entity_id"),
        plain("meta", "json"),
        created(),
    ), status_field="status"),
    Table("consents", "Consent", "Consents a client gave or refused.", (
        uuid_key(), tenant(),
        uuid("client_id", references="clients", on_delete="CASCADE"),
        text("consent_type", hints=("privacy", "marketing", "terms")),
        plain("granted", "boolean", required=True),
        text("version"),
        timestamp("captured_at", now=True),
        text("channel", hints=("web", "phone", "paper", "api")),
    )),
)

TABLES: tuple[Table, ...] = (*BILLING, *REINSURANCE, *WORKFLOW)
