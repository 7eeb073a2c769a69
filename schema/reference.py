"""docs/data-model.md, generated from the catalog and state machines (`insureops schema docs`)."""

from __future__ import annotations

from insureops.schema.catalog import TABLES
from insureops.schema.enums import ENUMS
from insureops.schema.model import DATA_MODEL_VERSION, NOW, Field, Table
from insureops.schema.state_machines import MACHINES

DECISIONS = """\
## Decisions (where the specification leaves a choice)

- **One source of truth.** `schema/catalog/` declares every table and field as plain data
  (`schema/model.py`); the SQLAlchemy Core tables (`schema/sql/tables.py`), the JSON Schemas
  (`schema/jsonschemas.py`), the type registry of the rules language and this page derive from it.
- **Not null.** A field is NOT NULL when the specification says required, or when it has a default
  (a default makes null meaningless: `marketing_opt_in`, `deductible_amount`, `tasks.status`...).
- **created_at on policy children.** "created_at is a timestamp defaulting to now unless said
  otherwise" is read as: every policy child table (risk details included) has one.
- **Lengths, enumerations, ranges: CHECK constraints** on both engines, named
  `ck_<table>_<field>_{length,enum,range,precision}` (SQLite ignores VARCHAR lengths; a CHECK is
  simpler to migrate than a PostgreSQL enum type). Enumerated columns are TEXT.
- **Decimals.** PostgreSQL NUMERIC(p,s). SQLite declares NUMERIC(p,s) and stores a double: every
  decimal(p<=15) round-trips exactly because values are rounded half-up to s places on the way
  in and out (`Money` type); readers through plain SQL on SQLite may see binary floating noise.
  A value over the precision is refused (PostgreSQL by the type, SQLite by a CHECK).
- **Timestamps** are `timestamp with time zone`; the code refuses naive datetimes and returns aware
  UTC ones. SQLite stores UTC text. Defaults come from the database (`now()`; SQLite `strftime`).
- **Identifiers.** uuid keys get a uuid4 from the code and a database default for plain-SQL inserts
  (`gen_random_uuid()`; SQLite a random v4 in its 32-hex-digit storage). Integer keys are
  identity columns (SQLite rowid).
- **JSON** is JSONB on PostgreSQL; `fraud_flags` is ARRAY(TEXT) on PostgreSQL and a JSON array on
  SQLite; `ip_address` is INET on PostgreSQL, text (<= 45) on SQLite, validated by the code.
- **net_amount** is a stored generated column `gross_amount - tax_amount`; writing it is refused.
- **Auto-updated timestamps** (`modified`, `updated_at`) are reset to now by a trigger on every
  UPDATE, plain SQL included (PostgreSQL BEFORE UPDATE; SQLite AFTER UPDATE rewriting the column).
- **Append-only.** `audit_logs` and `claim_status_history` refuse UPDATE and DELETE (and TRUNCATE on
  PostgreSQL) by trigger, error code `append_only`. One DELETE is allowed: the specification's
  CASCADE of a claim's history when the claim itself is deleted.
- **Claim status history.** The product's path (`schema.sql.status.change_claim_status`) validates
  the move, needs `closure_reason` to close, does the reopen bookkeeping (reopen_count + 1,
  reopened_last_at, closure_reason cleared) and appends the history row with actor and note, in one
  savepoint. A trigger also appends a row for a claim's creation (old_status null, changed_by =
  created_by) and for any status change made by plain SQL (changed_by = updated_by, a note saying
  so); it skips a change the product path already recorded. So every status change is recorded;
  transitions themselves are checked only in code (plain SQL can make an illegal move, recorded).
- **Tasks.** `tasks.status` stays free text in the database (as specified); the documented values
  and moves are the task machine below, checked by `update_status`.
- **Errors name the field.** `schema.sql.violations.translated_violations()` turns a refused write
  into `ConstraintViolationError(field, code, message)`; codes: too_long, invalid_enum,
  out_of_range, required, duplicate, invalid_reference, referenced (RESTRICT), append_only,
  read_only. Status errors: `InvalidTransitionError` (code invalid_transition, with the allowed
  moves) and `MissingFieldError` (closure_reason).
- **JSON Schemas** (draft 2020-12), `resource_schema(name, "read"|"create"|"update")`: read lists
  every column with nothing required (it is also the rules language's type); create and update
  leave out server-managed fields (ids, tenant_id, created/auto-updated timestamps, computed
  columns, reopen bookkeeping); create requires the required fields without default and accepts
  only the initial status; update requires nothing. Decimals are JSON numbers bounded by their
  precision; uuid, date and date-time carry `format`; additionalProperties is false.
- **Tenant databases.** `insureops schema apply URL` (postgresql://, postgresql+psycopg://,
  sqlite:///PATH) creates everything in one transaction, records the version in
  `insureops_data_model` and stamps the tenant alembic environment (version table
  `insureops_tenant_alembic_version`, revisions in `platform/tenancy/migrations/versions/`, each
  naming its `data_model_version`). Again: no-op. A newer or unknown version, or data-model tables
  without a version row: refused, exit 1. A later version adds a revision with explicit operations,
  which `apply` runs to upgrade a database in place. Open tenant databases with
  `platform.tenant_engine.create_tenant_engine`: it turns on SQLite foreign keys on every
  connection and makes SQLite transactions real (DDL included).
"""


def _rules(table: Table, item: Field) -> str:
    parts = []
    if item.primary_key:
        parts.append("key" + (", auto-incremented" if item.autoincrement else ", generated"))
    elif item.generated:
        parts.append("generated")
    if item.unique:
        parts.append("unique")
    for group in table.unique_together:
        if item.name in group and item.name != "tenant_id":
            parts.append(f"unique together with {', '.join(n for n in group if n != item.name)}")
    if item.references:
        parts.append(f"references {item.references.table}, {item.references.on_delete}")
    if item.minimum is not None:
        parts.append(f"range {item.minimum} to {item.maximum}")
    if item.auto_updated:
        parts.append("auto-updated")
    if item.computed:
        parts.append(f"computed: {item.computed}")
    if item.allowed:
        parts.append(f"values: {', '.join(item.allowed)}")
    if item.hints:
        parts.append(f"hints: {', '.join(item.hints)}")
    if item.note:
        parts.append(item.note)
    return "; ".join(dict.fromkeys(parts))  # a note may say what a rule above already says


def _default(item: Field) -> str:
    if item.default is None:
        return ""
    if item.default == NOW:
        return "now"
    return str(item.default).lower() if isinstance(item.default, bool) else str(item.default)


def render_table(table: Table) -> str:
    """The Markdown section of one table."""
    flags = [flag for flag, on in (("append-only", table.append_only),
                                   (f"status governed by the {table.name} machine",
                                    table.status_field is not None)) if on]
    lines = [f"### {table.name}", "",
             f"{table.description} JSON Schema resource `{table.resource}`."
             + (f" ({'; '.join(flags)})" if flags else ""), "",
             "| Field | Type | Null | Default | Rules |", "|---|---|---|---|---|"]
    for item in table.fields:
        lines.append(f"| {item.name} | {item.type_label} | {'no' if item.not_null else 'yes'} | "
                     f"{_default(item)} | {_rules(table, item)} |")
    return "\n".join(lines) + "\n"


def render_machines() -> str:
    """The Markdown section of the state machines."""
    lines = ["## State machines", "",
             "Declared in `schema/state_machines.py`; `validate_transition(machine, old, new)` "
             "checks a move (creation: only the initial state; the same state: no change).", ""]
    for table_name, machine in MACHINES.items():
        final = ", ".join(sorted(machine.final_states)) or "none"
        lines += [f"### {machine.resource} ({table_name}.{machine.field})", "",
                  f"Initial: `{machine.initial}`. Final: {final}.", "",
                  "| State | Next states |", "|---|---|"]
        lines += [f"| {state} | {', '.join(machine.allowed(state)) or '(final)'} |"
                  for state in machine.states]
        lines.append("")
    lines.append("A claim going `closed -> open` is a reopen; closing needs `closure_reason`.\n")
    return "\n".join(lines)


def render_reference() -> str:
    """The whole of docs/data-model.md."""
    enums = ["## Enumerations", "", "| Name | Values |", "|---|---|",
             *[f"| {name} | {', '.join(values)} |" for name, values in ENUMS.items()], ""]
    return "\n".join([
        f"# Data model {DATA_MODEL_VERSION}", "",
        "Generated from `schema/` by `insureops schema docs > docs/data-model.md`; "
        "tests/schema/test_reference.py keeps it in step with the code.", "",
        DECISIONS, *enums, "## Tables", "",
        *[render_table(table) for table in TABLES],
        render_machines(),
    ])
