"""Set-up shared by the rules-at-work benchmarks: a PostgreSQL platform database and tenant
database made for the run (dropped after unless kept), a workspace whose saved tenant database
holds N generated policies, and the example renewal review published in it."""

from __future__ import annotations

import datetime
import random
import uuid
from dataclasses import dataclass
from pathlib import Path

import psycopg
from cryptography.fernet import Fernet

from insureops.platform.config import Settings

ROOT = Path(__file__).resolve().parents[1]
SOURCE = (ROOT / "examples" / "renewal_review.rules").read_text()
TENANT = "01JBENCH0000000000000000RW"
AS_OF = datetime.date(2026, 11, 27)
LINES = ["property", "auto", "liability", "workers_comp", "cyber", "marine", "other"]


@dataclass
class Bench:
    admin: str  # libpq URL of the server's maintenance database
    platform: str  # libpq URLs of the two databases made for the run
    tenant: str
    settings: Settings

    def drop(self) -> None:
        with psycopg.connect(self.admin, autocommit=True) as connection:
            for url in (self.platform, self.tenant):
                name = url.rsplit("/", 1)[1]
                connection.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def make(admin: str, label: str, **settings) -> Bench:
    base = admin.rsplit("/", 1)[0]
    names = [f"bench_{label}_{kind}" for kind in ("platform", "tenant")]
    with psycopg.connect(admin, autocommit=True) as connection:
        for name in names:
            connection.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
            connection.execute(f"CREATE DATABASE {name}")
    platform, tenant = (f"{base}/{name}" for name in names)
    return Bench(admin, platform, tenant, Settings(
        database_url=platform.replace("postgresql://", "postgresql+psycopg://", 1),
        secret_key="bench", fernet_keys=(Fernet.generate_key().decode(),),
        tenant_database_allowed_networks=("127.0.0.1/32", "::1/128"),
        load_example_market=False, rules_run_max_records=50_000_000, **settings))


def prepare_tenant(bench: Bench) -> None:
    from insureops.platform.tenancy.data_model import apply_data_model
    from insureops.platform.tenancy.engine import create_tenant_engine

    engine = create_tenant_engine(bench.tenant)
    try:
        apply_data_model(engine)
    finally:
        engine.dispose()


def fill_policies(bench: Bench, count: int, seed: int = 31) -> None:
    """`count` policies of the workspace: lines, statuses, premiums and terms as a book has."""
    rng = random.Random(seed)
    columns = ("id", "uuid", "tenant_id", "status", "premium", "line_of_business",
               "start_date", "end_date", "policy_number")
    with psycopg.connect(bench.tenant) as connection, connection.cursor() as cursor:
        with cursor.copy(f"COPY policies ({', '.join(columns)}) FROM STDIN") as copy:
            for number in range(count):
                end = AS_OF + datetime.timedelta(days=rng.randint(-120, 600))
                start = end - datetime.timedelta(days=rng.choice((365, 365, 365, 180, 90)))
                premium = None if rng.random() < 0.01 else round(rng.lognormvariate(9, 1.1), 2)
                status = rng.choices(("active", "bound", "cancelled", "expired", "quote"),
                                     (80, 5, 6, 6, 3))[0]
                copy.write_row((uuid.uuid4(), uuid.uuid4(), TENANT, status, premium,
                                rng.choice(LINES), start, end, f"P-{number:08d}"))
        connection.commit()
        connection.execute("ANALYZE policies")


async def prepare_platform(bench: Bench) -> str:
    """Migrate the platform database; the workspace, its saved tenant database and the
    published example rule; the rule's id."""
    from insureops.platform.auth.secret_keys import load_secret_keys
    from insureops.platform.data.database import Database
    from insureops.platform.identity.models import Workspace
    from insureops.platform.migrations import (
        env_models,  # noqa: F401
        upgrade,
    )
    from insureops.platform.rules_studio.checking import content_hash
    from insureops.platform.rules_studio.models import Rule, RuleVersion
    from insureops.platform.tenancy.databases import TenantDatabase, encrypt_url

    database = Database.connect(bench.settings.database_url)
    now = datetime.datetime.now(datetime.UTC)
    rule_id = "01JBENCHR0000000000000RENW"
    try:
        await upgrade(database.engine)
        fernet = load_secret_keys(bench.settings).fernet
        async with database.unit_of_work() as uow:
            uow.session.add(Workspace(tenant_id=TENANT, name="Bench Agency", created_at=now))
            await uow.session.flush()
            uow.session.add(TenantDatabase(workspace_id=TENANT, backend="postgresql",
                                           url_encrypted=encrypt_url(fernet, bench.tenant),
                                           saved_at=now))
            uow.session.add(Rule(id=rule_id, workspace_id=TENANT, name="renewal.review",
                                 title="Renewal review", kind="other", status="published",
                                 current_version=1, published_version=1, created_at=now,
                                 updated_at=now))
            await uow.session.flush()
            uow.session.add(RuleVersion(rule_id=rule_id, number=1, source=SOURCE,
                                        content_hash=content_hash(SOURCE), created_at=now,
                                        warnings=[], tests=[], tests_passed=True))
    finally:
        await database.dispose()
    return rule_id
