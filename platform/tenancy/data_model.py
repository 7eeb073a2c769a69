"""Preparing tenant databases (`insureops schema apply`): alembic runs on the core's data model.

`apply_data_model` brings a database to a data-model version, idempotently:

- empty database: create everything, record the version, stamp alembic at head (one transaction);
- at this version: nothing to do;
- at an older version that a revision chain knows: alembic upgrade to head (in place);
- newer or unknown version, or data-model tables without a version: DataModelVersionError.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory

from insureops.schema.errors import DataModelVersionError
from insureops.schema.model import DATA_MODEL_VERSION
from insureops.schema.sql.creation import create_data_model, existing_data_model_tables
from insureops.schema.sql.tables import VERSION_TABLE

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
ALEMBIC_VERSION_TABLE = "insureops_tenant_alembic_version"
# The service's own tables in a tenant database (revisions v2_2_0_outbox and v2_2_0_events),
# not the data model's.
SERVICE_TABLES = ("insureops_outbox_switches", "insureops_outbox", "insureops_rule_effects",
                  "insureops_event_outbox")


@dataclass(frozen=True)
class ApplyResult:
    """What `apply` did: created, upgraded or unchanged; the version before and after."""

    action: Literal["created", "upgraded", "unchanged"]
    previous: str | None
    version: str

    def describe(self) -> str:
        if self.action == "created":
            return f"created data model {self.version}"
        if self.action == "upgraded" and self.previous == self.version:
            return f"data model {self.version}: added the service's outbox tables"
        if self.action == "upgraded":
            return f"upgraded data model {self.previous} -> {self.version}"
        return f"already at {self.version}; nothing to do"


def alembic_config(connection: sa.Connection | None = None,
                   migrations: Path = MIGRATIONS) -> Config:
    """An alembic Config for the tenant environment, bound to `connection` when given."""
    config = Config()
    config.set_main_option("script_location", str(migrations))
    config.attributes["connection"] = connection
    return config


def _revisions_by_version(migrations: Path) -> list[tuple[str, str]]:
    """(data-model version, revision) of every revision file, newest first."""
    script = ScriptDirectory.from_config(alembic_config(None, migrations))
    found = []
    for revision in script.walk_revisions():
        version = getattr(revision.module, "data_model_version", "")
        if not version:
            raise DataModelVersionError(None, DATA_MODEL_VERSION,
                                        f"revision {revision.revision} names no data_model_version")
        found.append((version, revision.revision))
    return found


def known_versions(migrations: Path = MIGRATIONS) -> dict[str, str]:
    """Data-model version -> the newest alembic revision at that version, from the revision
    files. Several revisions may share a version: the later ones add only the service's own
    tables (the outbox of rules at work), never a change to the specification's."""
    versions: dict[str, str] = {}
    for version, revision in _revisions_by_version(migrations):
        versions.setdefault(version, revision)
    return versions


def first_revisions(migrations: Path = MIGRATIONS) -> dict[str, str]:
    """Data-model version -> the oldest revision at that version: the one whose tables
    `create_data_model` (and `insureops schema ddl`) produce."""
    return {version: revision for version, revision in _revisions_by_version(migrations)}


def recorded_version(connection: sa.Connection) -> str | None:
    """The version in the database's version table, or None when there is no such table."""
    if not sa.inspect(connection).has_table(VERSION_TABLE):
        return None
    rows = connection.execute(sa.text(f"SELECT version FROM {VERSION_TABLE}")).scalars().all()
    if len(rows) != 1:
        raise DataModelVersionError(None, DATA_MODEL_VERSION,
                                    f"{VERSION_TABLE} must hold one row, it holds {len(rows)}")
    return rows[0]


def _refuse(found: str | None, target: str, versions: dict[str, str], why: str) -> None:
    raise DataModelVersionError(
        found, target,
        f"the database holds data model {found}, which this insureops (data model {target}; "
        f"knows {', '.join(sorted(versions))}) cannot serve: it is {why}. "
        "Upgrade insureops, or point it at another database.")


def _create(connection: sa.Connection, version: str, versions: dict[str, str],
            migrations: Path) -> ApplyResult:
    present = existing_data_model_tables(connection)
    if present:
        raise DataModelVersionError(
            None, version, f"the database has data-model tables ({', '.join(present[:5])}...) but "
            f"no {VERSION_TABLE} record; refusing to guess its version")
    config = alembic_config(connection, migrations)
    if versions[version] == ScriptDirectory.from_config(config).get_current_head():
        # alembic's recipe for a new database: build from the metadata, stamp the revision
        # that built it, then the service's own tables of that version (the outbox).
        create_data_model(connection, version=version)
        command.stamp(config, first_revisions(migrations)[version])
    command.upgrade(config, versions[version])
    return ApplyResult("created", None, version)


def _current_revision(connection: sa.Connection) -> str | None:
    if not sa.inspect(connection).has_table(ALEMBIC_VERSION_TABLE):
        return None
    return connection.execute(
        sa.text(f"SELECT version_num FROM {ALEMBIC_VERSION_TABLE}")).scalar()


def apply_data_model(engine: sa.Engine, *, version: str = DATA_MODEL_VERSION,
                     migrations: Path = MIGRATIONS) -> ApplyResult:
    """Bring the tenant database behind `engine` to `version` (see the module docstring).

    `version` and `migrations` default to this code's data model and revision files; tests pass
    others to exercise an upgrade in place.
    """
    versions = known_versions(migrations)
    if version not in versions:
        raise DataModelVersionError(None, version, f"no revision produces data model {version}")
    oldest_first = list(reversed(versions))
    with engine.begin() as connection:
        found = recorded_version(connection)
        if found is None:
            return _create(connection, version, versions, migrations)
        if found not in versions:
            _refuse(found, version, versions, "unknown (newer?)")
        if oldest_first.index(found) > oldest_first.index(version):
            _refuse(found, version, versions, "newer")
        config = alembic_config(connection, migrations)
        current = _current_revision(connection)
        if current is None:
            # Made from `insureops schema ddl` output: the version row says where it stands.
            command.stamp(config, first_revisions(migrations)[found])
            current = first_revisions(migrations)[found]
        if found == version and current == versions[version]:
            return ApplyResult("unchanged", found, found)
        command.upgrade(config, versions[version])
        return ApplyResult("upgraded", found, recorded_version(connection) or version)
