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


@dataclass(frozen=True)
class ApplyResult:
    """What `apply` did: created, upgraded or unchanged; the version before and after."""

    action: Literal["created", "upgraded", "unchanged"]
    previous: str | None
    version: str

    def describe(self) -> str:
        if self.action == "created":
            return f"created data model {self.version}"
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


def known_versions(migrations: Path = MIGRATIONS) -> dict[str, str]:
    """Data-model version -> the alembic revision that produces it, from the revision files."""
    script = ScriptDirectory.from_config(alembic_config(None, migrations))
    versions = {}
    for revision in script.walk_revisions():
        version = getattr(revision.module, "data_model_version", "")
        if not version:
            raise DataModelVersionError(None, DATA_MODEL_VERSION,
                                        f"revision {revision.revision} names no data_model_version")
        versions[version] = revision.revision
    return versions


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
        # alembic's recipe for a new database: build from the metadata, then stamp the head.
        create_data_model(connection, version=version)
        command.stamp(config, versions[version])
    else:
        command.upgrade(config, versions[version])
    return ApplyResult("created", None, version)


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
        if found == version:
            return ApplyResult("unchanged", found, found)
        config = alembic_config(connection, migrations)
        if not sa.inspect(connection).has_table(ALEMBIC_VERSION_TABLE):
            # Made from `insureops schema ddl` output: the version row says where it stands.
            command.stamp(config, versions[found])
        command.upgrade(config, versions[version])
        return ApplyResult("upgraded", found, recorded_version(connection) or version)
