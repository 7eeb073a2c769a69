"""Catalog: the audit trail, clients (policyholders), their health profiles, and producers."""

from __future__ import annotations

from insureops.schema.model import (
    Table,
    created,
    decimal,
    many,
    plain,
    serial_key,
    string,
    tenant,
    text,
    timestamp,
    updated,
    uuid,
    uuid_key,
)

AUDIT_LOGS = Table(
    "audit_logs", "AuditLog", "Append-only trail of every create, update, delete, read and export.",
    (
        serial_key(),
        tenant(),
        string("action", 50, required=True, hints=("create", "update", "delete", "read", "export")),
        string("entity_type", 100, required=True, hints=("client", "policy", "claim", "user")),
        uuid("entity_id"),
        uuid("actor_id"),
        string("actor_email", 255, note="snapshot"),
        plain("ip_address", "ip_address"),
        text("user_agent"),
        string("request_method", 10),
        text("request_path"),
        plain("old_values", "json", note="state before"),
        plain("new_values", "json", note="state after"),
        timestamp("created_at", now=True),
    ),
    append_only=True,
)

CLIENTS = Table(
    "clients", "Client", "Policyholders.",
    (
        uuid_key(),
        uuid("uuid", required=True, generated=True, unique=True),
        tenant(),
        string("email", 255),
        string("name", 255, required=True),
        string("company", 255),
        string("phone", 50),
        text("address"),
        *many(string, "city region country", 100),
        string("postal_code", 20),
        text("external_ref"),
        plain("date_of_birth", "date"),
        string("tax_id_last4", 4),
        string("preferred_language", 10),
        plain("marketing_opt_in", "boolean", default=False),
        string("kyc_level", 20, hints=("basic", "enhanced")),
        created("created"),
        updated("modified"),
    ),
)

CLIENT_HEALTH_PROFILES = Table(
    "client_health_profiles", "ClientHealthProfile", "Segregated private area: health data.",
    (
        uuid_key(),
        tenant(),
        uuid("client_id", required=True, references="clients", on_delete="CASCADE"),
        plain("smoker", "boolean"),
        plain("height_cm", "integer"),
        decimal("weight_kg", 6, 2),
        plain("conditions", "json", note="object keyed by condition"),
        plain("last_medical_exam", "date"),
        created(),
        updated(),
    ),
)

PRODUCERS = Table(
    "producers", "Producer", "Producers (agents) credited on policies.",
    (
        uuid_key(),
        tenant(),
        text("name", required=True),
        *many(text, "email phone license_no license_region"),
        plain("active", "boolean", default=True),
        created(),
    ),
)

TABLES: tuple[Table, ...] = (AUDIT_LOGS, CLIENTS, CLIENT_HEALTH_PROFILES, PRODUCERS)
