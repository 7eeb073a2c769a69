"""Migration 0017 on a database with market and own entries in it: every row is kept, the own
tables take the market's columns, and an own carrier is written as reached directly; SQLite (with
foreign keys on, as the service connects) and PostgreSQL."""

from __future__ import annotations

import datetime

from alembic import command
from sqlalchemy import create_engine, event, text

from insureops.platform.migrations import alembic_config

BEFORE = "0016_rules_work_events"
AFTER = "0017_own_market_columns"
WORKSPACE = "01HZZZZZZZZZZZZZZZZZZZZZZ1"
RULE = "01HZZZZZZZZZZZZZZZZZZZZZZ2"
USER = "01HZZZZZZZZZZZZZZZZZZZZZZ3"
NOW = datetime.datetime(2026, 11, 27, 12, tzinfo=datetime.UTC)

ROWS = (
    ("users", {"id": USER, "email": "lee@agency.test", "name": "Lee", "password_hash": "x",
               "created_at": NOW}),
    ("workspaces", {"tenant_id": WORKSPACE, "name": "Lee Agency", "created_at": NOW}),
    ("rules", {"id": RULE, "workspace_id": WORKSPACE, "name": "appetite.mesa", "title": "Mesa",
               "kind": "appetite", "status": "draft", "current_version": 1, "created_at": NOW,
               "updated_at": NOW}),
    ("appetites", {"id": 1, "path": "granite/gl.rules", "name": "appetite.granite.gl",
                   "source": "ruleset x", "content_hash": "h", "version": 1, "current": True,
                   "created_at": NOW}),
    ("carriers", {"id": 1, "slug": "granite-trades", "name": "Granite", "naic_code": "11111",
                  "rating": "A", "market": "admitted", "states": '["AZ"]', "active": True,
                  "updated_at": NOW, "access": "wholesaler", "via": "summit"}),
    ("products", {"id": 1, "carrier_id": 1, "appetite_id": 1, "slug": "granite-trades/gl",
                  "line": "CGL", "name": "GL", "description": "", "states": '["AZ"]',
                  "minimum_premium": 500, "max_limit": 1000000, "admitted": True,
                  "active": True, "updated_at": NOW}),
    ("workspace_carriers", {"id": 1, "workspace_id": WORKSPACE, "slug": "mesa-county-mutual",
                            "name": "Mesa County Mutual", "naic_code": None, "rating": "A-",
                            "market": "admitted", "states": '["AZ", "NM"]',
                            "submission_email": "new@mesa.test", "active": True,
                            "created_by": USER, "created_at": NOW, "updated_by": USER,
                            "updated_at": NOW}),
    ("workspace_products", {"id": 1, "workspace_id": WORKSPACE, "carrier_id": 1,
                            "appetite_rule_id": RULE, "slug": "mesa-county-mutual/gl",
                            "line": "CGL", "name": "Contractors GL", "description": "d",
                            "states": '["AZ"]', "minimum_premium": 0, "max_limit": 1000000,
                            "max_aggregate": 2000000, "admitted": True, "strength": "preferred",
                            "active": True, "created_by": USER, "created_at": NOW,
                            "updated_by": USER, "updated_at": NOW}),
)


def migrate(connection, revision: str) -> None:
    config = alembic_config()
    config.attributes["connection"] = connection
    command.upgrade(config, revision)


def test_own_entries_keep_every_row_and_take_the_market_columns_when_upgraded(database_urls):
    engine = create_engine(database_urls.sync)
    if database_urls.backend == "sqlite":
        event.listen(engine, "connect",
                     lambda connection, _: connection.execute("PRAGMA foreign_keys=ON"))
    try:
        with engine.begin() as connection:
            migrate(connection, BEFORE)
            for table, row in ROWS:
                names = ", ".join(row)
                connection.execute(text(f"INSERT INTO {table} ({names}) VALUES "
                                        f"({', '.join(':' + name for name in row)})"), row)
        with engine.begin() as connection:
            migrate(connection, AFTER)
        with engine.connect() as connection:
            def one(sql: str) -> tuple:
                return tuple(connection.execute(text(sql)).one())
            assert one("SELECT slug, naic_code, rating, submission_email, access, via, "
                       "carrier_type, territories, created_by FROM workspace_carriers") == (
                "mesa-county-mutual", None, "A-", "new@mesa.test", "direct", None, None, None,
                USER)
            assert one("SELECT slug, carrier_id, appetite_rule_id, strength, access, via, "
                       "max_aggregate FROM workspace_products") == (
                "mesa-county-mutual/gl", 1, RULE, "preferred", None, None, 2000000)
            assert one("SELECT slug, access, via FROM carriers") == (
                "granite-trades", "wholesaler", "summit")
            assert one("SELECT slug, carrier_id FROM products") == ("granite-trades/gl", 1)
            for table in ("carriers", "products", "workspace_carriers", "workspace_products"):
                assert one(f"SELECT count(*) FROM {table}") == (1,), table
    finally:
        engine.dispose()
