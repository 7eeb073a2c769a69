"""Database triggers: auto-updated timestamps, append-only tables, claim status history.

Triggers hold for every writer, plain SQL included; the rules of each are in docs/data-model.md
(generated from schema/reference.py).
"""

from __future__ import annotations

from insureops.schema.catalog import TABLES
from insureops.schema.sql.types import SQLITE_NOW

APPEND_ONLY_MESSAGE = "append_only"
OUTSIDE_NOTE = "recorded by the database: status changed outside the application"


def _touched() -> list[tuple[str, str]]:
    return [(t.name, f.name) for t in TABLES for f in t.fields if f.auto_updated]


def _append_only() -> list[str]:
    return [t.name for t in TABLES if t.append_only]


def _postgresql_statements() -> list[str]:
    statements = []
    for column in sorted({column for _, column in _touched()}):
        statements.append(
            f"CREATE OR REPLACE FUNCTION insureops_touch_{column}() RETURNS trigger "
            f"LANGUAGE plpgsql AS $$ BEGIN NEW.{column} := now(); RETURN NEW; END $$")
    for table, column in _touched():
        statements.append(f"CREATE TRIGGER trg_{table}_touch BEFORE UPDATE ON {table} "
                          f"FOR EACH ROW EXECUTE FUNCTION insureops_touch_{column}()")
    statements.append(
        "CREATE OR REPLACE FUNCTION insureops_append_only() RETURNS trigger LANGUAGE plpgsql AS $$ "
        "BEGIN IF TG_OP = 'DELETE' THEN IF TG_TABLE_NAME = 'claim_status_history' THEN "
        "IF NOT EXISTS (SELECT 1 FROM claims WHERE id = OLD.claim_id) THEN RETURN OLD; END IF; "
        "END IF; END IF; "
        f"RAISE EXCEPTION '{APPEND_ONLY_MESSAGE}: % rows cannot be changed (% refused)', "
        "TG_TABLE_NAME, TG_OP USING ERRCODE = 'restrict_violation'; END $$")
    for table in _append_only():
        statements.append(f"CREATE TRIGGER trg_{table}_append_only BEFORE UPDATE OR DELETE ON "
                          f"{table} FOR EACH ROW EXECUTE FUNCTION insureops_append_only()")
        statements.append(f"CREATE TRIGGER trg_{table}_no_truncate BEFORE TRUNCATE ON {table} "
                          "FOR EACH STATEMENT EXECUTE FUNCTION insureops_append_only()")
    statements.append(
        "CREATE OR REPLACE FUNCTION insureops_claim_status_history() RETURNS trigger "
        "LANGUAGE plpgsql AS $$ DECLARE last_old text; last_new text; BEGIN "
        "IF TG_OP = 'INSERT' THEN INSERT INTO claim_status_history "
        "(claim_id, old_status, new_status, changed_by) VALUES (NEW.id, NULL, NEW.status, "
        "NEW.created_by); RETURN NULL; END IF; "
        "IF NEW.status IS NOT DISTINCT FROM OLD.status THEN RETURN NULL; END IF; "
        "SELECT old_status, new_status INTO last_old, last_new FROM claim_status_history "
        "WHERE claim_id = NEW.id ORDER BY id DESC LIMIT 1; "
        "IF FOUND AND last_new = NEW.status AND last_old IS NOT DISTINCT FROM OLD.status "
        "THEN RETURN NULL; END IF; "
        "INSERT INTO claim_status_history (claim_id, old_status, new_status, changed_by, note) "
        f"VALUES (NEW.id, OLD.status, NEW.status, NEW.updated_by, '{OUTSIDE_NOTE}'); "
        "RETURN NULL; END $$")
    statements.append(
        "CREATE TRIGGER trg_claims_status_history AFTER INSERT OR UPDATE OF status ON claims "
        "FOR EACH ROW EXECUTE FUNCTION insureops_claim_status_history()")
    return statements


def _sqlite_statements() -> list[str]:
    statements = []
    for table, column in _touched():
        statements.append(
            f"CREATE TRIGGER trg_{table}_touch AFTER UPDATE ON {table} FOR EACH ROW BEGIN "
            f"UPDATE {table} SET {column} = {SQLITE_NOW} WHERE rowid = NEW.rowid; END")
    for table in _append_only():
        statements.append(
            f"CREATE TRIGGER trg_{table}_no_update BEFORE UPDATE ON {table} BEGIN SELECT "
            f"RAISE(ABORT, '{APPEND_ONLY_MESSAGE}: {table} rows cannot be changed "
            "(UPDATE refused)'); END")
        parent_gone = (" WHEN EXISTS (SELECT 1 FROM claims WHERE id = OLD.claim_id)"
                       if table == "claim_status_history" else "")
        statements.append(
            f"CREATE TRIGGER trg_{table}_no_delete BEFORE DELETE ON {table}{parent_gone} BEGIN "
            f"SELECT RAISE(ABORT, '{APPEND_ONLY_MESSAGE}: {table} rows cannot be changed "
            "(DELETE refused)'); END")
    statements.append(
        "CREATE TRIGGER trg_claims_status_history_insert AFTER INSERT ON claims BEGIN "
        "INSERT INTO claim_status_history (claim_id, old_status, new_status, changed_by, "
        f"changed_at) VALUES (NEW.id, NULL, NEW.status, NEW.created_by, {SQLITE_NOW}); END")
    statements.append(
        "CREATE TRIGGER trg_claims_status_history AFTER UPDATE OF status ON claims "
        "WHEN NEW.status IS NOT OLD.status AND NOT EXISTS (SELECT 1 FROM claim_status_history h "
        "WHERE h.id = (SELECT max(id) FROM claim_status_history WHERE claim_id = NEW.id) "
        "AND h.old_status IS OLD.status AND h.new_status = NEW.status) BEGIN "
        "INSERT INTO claim_status_history (claim_id, old_status, new_status, changed_by, "
        f"changed_at, note) VALUES (NEW.id, OLD.status, NEW.status, NEW.updated_by, {SQLITE_NOW}, "
        f"'{OUTSIDE_NOTE}'); END")
    return statements


def trigger_statements(dialect: str) -> list[str]:
    """The CREATE FUNCTION / CREATE TRIGGER statements for `dialect` ("postgresql" or "sqlite")."""
    if dialect == "postgresql":
        return _postgresql_statements()
    if dialect == "sqlite":
        return _sqlite_statements()
    raise ValueError(f"unsupported dialect {dialect!r}: use postgresql or sqlite")

