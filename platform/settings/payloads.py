"""Request and response shapes of the settings area."""

from __future__ import annotations

import datetime

from pydantic import BaseModel, Field

from insureops.platform.auth.requirements import Scope
from insureops.platform.http.bodies import UNKNOWN_FIELDS_REFUSED
from insureops.platform.http.timestamps import IsoAwareDateTime


class CreateApiKeyRequest(BaseModel):
    """A new key: scopes `["read"]` or `["read", "write"]` (write implies read; default both)."""

    model_config = UNKNOWN_FIELDS_REFUSED

    name: str = Field(min_length=1, max_length=100, examples=["Claude desktop"])
    scopes: list[Scope] = Field(default_factory=lambda: [Scope.READ, Scope.WRITE], min_length=1,
                                max_length=2)
    expires_at: IsoAwareDateTime | None = Field(
        None, description="When the key stops working (ISO 8601 with offset); none: never.")


class ApiKeyInfo(BaseModel):
    """A key as listed: never the key itself."""

    id: str
    name: str
    prefix: str = Field(description="The key's first characters, to recognise it.")
    scopes: list[Scope]
    created_at: datetime.datetime
    last_used_at: datetime.datetime | None
    expires_at: datetime.datetime | None
    expired: bool


class CreatedApiKey(ApiKeyInfo):
    """The new key, shown this once: only its SHA-256 is stored."""

    key: str = Field(description="iops_ + 40 base62 characters. Copy it now.")


class ApiKeyList(BaseModel):
    keys: list[ApiKeyInfo] = Field(description="Live keys of the workspace (revoked ones go).")


class KeyPath(BaseModel):
    # The route's own pattern ({key_id:[0-9A-Z]+}) keeps /api-keys/list/ from matching it.
    key_id: str = Field(min_length=26, max_length=26, pattern=r"^[0-9A-Z]{26}$")


class SaveDatabaseRequest(BaseModel):
    model_config = UNKNOWN_FIELDS_REFUSED

    url: str = Field(min_length=1, max_length=2048,
                     examples=["postgresql://app:secret@db.example.com:5432/agency"])


class TestDatabaseRequest(BaseModel):
    model_config = UNKNOWN_FIELDS_REFUSED

    url: str | None = Field(None, min_length=1, max_length=2048, description=(
        "A URL to try before saving it; none: the saved connection (its result is kept)."))


class DatabaseTestResult(BaseModel):
    """The outcome of one connection test. `error` is a generic code: the service does not say
    why a connection failed (refused, timed out, wrong password, unknown database)."""

    ok: bool
    latency_ms: int | None
    schema_version: str | None = Field(description="Data-model version recorded in the "
                                       "database; null when it is not prepared.")
    error: str | None = Field(description="null, connection_failed or timeout.")


class LastTest(BaseModel):
    ok: bool
    latency_ms: int | None
    error: str | None
    tested_at: datetime.datetime


class DatabaseInfo(BaseModel):
    """The saved connection, password masked."""

    configured: bool = Field(description="A connection of the workspace's own is saved.")
    embedded: bool = Field(False, description="No connection is saved and the tenant API uses "
                           "the workspace's own embedded SQLite database (the service's "
                           "embedded default, INSUREOPS_EMBEDDED_TENANT_DATABASES).")
    url: str | None = Field(description="The URL with its password replaced by ***.")
    backend: str | None
    host: str | None
    port: int | None
    database: str | None
    username: str | None
    schema_version: str | None = Field(description="Found by the last successful test.")
    last_test: LastTest | None
    saved_at: datetime.datetime | None
