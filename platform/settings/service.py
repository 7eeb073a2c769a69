"""Use cases of the settings area: API keys and the tenant database connection.

No aiohttp here: each use case takes a unit of work, the area's dependencies and its inputs.
Secrets leave only once: a new API key in the create answer; a tenant database URL never.
Each reaches the store through its port (`store`: the SQL repository by default, a fake in
memory in the fast tests; repository.py), and the connection test through `tester`.
"""

from __future__ import annotations

import datetime
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from cryptography.fernet import MultiFernet
from ulid import ULID

from insureops.platform.auth.requirements import Scope
from insureops.platform.config import Settings
from insureops.platform.data.database import UnitOfWork
from insureops.platform.records.api_keys import (
    DISPLAY_PREFIX_LENGTH,
    ApiKey,
    hash_api_key,
    new_api_key,
    normalise_scopes,
)
from insureops.platform.settings import repository
from insureops.platform.settings.errors import (
    ApiKeyNotFoundError,
    DatabaseNotConfiguredError,
    DatabaseUrlRefusedError,
    InvalidExpiryError,
)
from insureops.platform.settings.repository import SettingsRepository
from insureops.platform.settings.tester import ConnectionReport, try_connection
from insureops.platform.tenancy.databases import (
    TenantDatabase,
    decrypt_url,
    encrypt_url,
)
from insureops.platform.tenancy.urls import CheckedUrl, UrlRefusal, check_url

Store = SettingsRepository
# Connects to a checked URL within a timeout (seconds): tester.try_connection, outbound.
Tester = Callable[[CheckedUrl, float], Awaitable[ConnectionReport]]


@dataclass(frozen=True)
class SettingsDeps:
    """What the use cases need besides the unit of work; built per request from the app."""

    settings: Settings
    fernet: MultiFernet
    clock: Callable[[], float]

    def now(self) -> datetime.datetime:
        return datetime.datetime.fromtimestamp(self.clock(), tz=datetime.UTC)


@dataclass(frozen=True)
class NewKey:
    name: str
    scopes: tuple[Scope, ...]
    expires_at: datetime.datetime | None


@dataclass(frozen=True)
class CreatedKey:
    row: ApiKey
    key: str  # shown once


async def create_api_key(uow: UnitOfWork, deps: SettingsDeps, workspace_id: str, user_id: str,
                         command: NewKey, *, store: Store = repository) -> CreatedKey:
    """A new key for the workspace; the answer holds the key, the database only its digest."""
    now = deps.now()
    if command.expires_at is not None and command.expires_at <= now:
        raise InvalidExpiryError("expires_at must be in the future.")
    key = new_api_key()
    row = ApiKey(id=str(ULID.from_timestamp(now.timestamp())), workspace_id=workspace_id,
                 name=command.name.strip(), display_prefix=key[:DISPLAY_PREFIX_LENGTH],
                 key_hash=hash_api_key(key), scopes=normalise_scopes(command.scopes),
                 created_by=user_id, created_at=now, expires_at=command.expires_at)
    await store.add_key(uow.session, row)
    return CreatedKey(row, key)


async def list_api_keys(uow: UnitOfWork, workspace_id: str, *,
                        store: Store = repository) -> list[ApiKey]:
    return await store.live_keys(uow.session, workspace_id)


async def revoke_api_key(uow: UnitOfWork, deps: SettingsDeps, workspace_id: str,
                         key_id: str, *, store: Store = repository) -> None:
    """Revoke at once: the next request with the key is 401 invalid_api_key. A key revoked
    already is 404, also when another request revoked it at the same moment (issue 28: both
    answered 204, the later one moving the revocation time)."""
    if not await store.revoke_key(uow.session, workspace_id, key_id, deps.now()):
        raise ApiKeyNotFoundError("No such API key in this workspace.")


async def _checked(deps: SettingsDeps, raw_url: str, workspace_id: str) -> CheckedUrl:
    checked = await check_url(raw_url, deps.settings, tenant_id=workspace_id)
    if isinstance(checked, UrlRefusal):
        raise DatabaseUrlRefusedError(checked.code, checked.message)
    return checked


async def save_database(uow: UnitOfWork, deps: SettingsDeps, workspace_id: str, user_id: str,
                        raw_url: str, *, store: Store = repository) -> TenantDatabase:
    """Check and store the URL encrypted; a new URL forgets the previous test result."""
    checked = await _checked(deps, raw_url, workspace_id)
    row = TenantDatabase(
        workspace_id=workspace_id, url_encrypted=encrypt_url(deps.fernet, checked.saved),
        backend=checked.backend, host=checked.host, port=checked.port,
        database=checked.database, username=checked.username, saved_by=user_id,
        saved_at=deps.now(), last_test_at=None, last_test_ok=None, last_test_latency_ms=None,
        last_test_error=None, schema_version=None)
    return await store.put_database(uow.session, row)


async def get_database(uow: UnitOfWork, workspace_id: str, *,
                       store: Store = repository) -> TenantDatabase | None:
    return await store.database_of(uow.session, workspace_id)


async def run_database_test(uow: UnitOfWork, deps: SettingsDeps, workspace_id: str,
                            raw_url: str | None, *, store: Store = repository,
                            tester: Tester = try_connection) -> ConnectionReport:
    """Test `raw_url`, or the saved connection (whose row then keeps the result, unless
    another connection was saved during the test: issue 28 audit)."""
    tested = None
    if raw_url is None:
        row = await store.database_of(uow.session, workspace_id)
        if row is None:
            raise DatabaseNotConfiguredError("Save a database connection first, or send a url.")
        tested, raw_url = row.url_encrypted, decrypt_url(deps.fernet, row.url_encrypted)
    checked = await _checked(deps, raw_url, workspace_id)
    await uow.commit()  # no transaction stays open during the outbound connection
    report = await tester(checked, deps.settings.tenant_database_timeout_seconds)
    if tested is not None:
        values: dict[str, object] = {
            "last_test_at": deps.now(), "last_test_ok": report.ok,
            "last_test_latency_ms": report.latency_ms, "last_test_error": report.error}
        if report.ok:
            values["schema_version"] = report.schema_version
        await store.record_test(uow.session, workspace_id, tested, values)
    return report
