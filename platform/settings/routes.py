"""HTTP routes of the settings area: API keys, the tenant database connection and (from the
sub-area `webhooks/`) webhook endpoints.

Every route acts on the session's active workspace only. Reading needs a membership there
(`Auth.session(Role.MEMBER)`: a session without one is 403); creating and revoking keys and
saving or testing the database connection need the admin role (owners satisfy it).
"""

from __future__ import annotations

from aiohttp import web

from insureops.platform.auth.requirements import Auth, Role
from insureops.platform.http.ratelimit import RateKey, RateLimit
from insureops.platform.http.routing import Call, RouteTable
from insureops.platform.keys import API_KEY_CACHE, CLOCK, SECRET_KEYS
from insureops.platform.records.api_keys import ApiKey
from insureops.platform.records.usage import UsageQuery, UsageSummaryBody, usage_summary_body
from insureops.platform.settings import service
from insureops.platform.settings.errors import (
    ApiKeyNotFoundError,
    DatabaseNotConfiguredError,
    DatabaseUrlRefusedError,
    InvalidExpiryError,
)
from insureops.platform.settings.payloads import (
    ApiKeyInfo,
    ApiKeyList,
    CreateApiKeyRequest,
    CreatedApiKey,
    DatabaseInfo,
    DatabaseTestResult,
    KeyPath,
    LastTest,
    SaveDatabaseRequest,
    TestDatabaseRequest,
)
from insureops.platform.settings.webhooks import routes as webhooks
from insureops.platform.tenancy.databases import TenantDatabase, decrypt_url, masked_url

MEMBER = Auth.session(Role.MEMBER)
ADMIN = Auth.session(Role.ADMIN)

routes = RouteTable("settings", "API keys, the tenant database connection and webhooks.")
routes.map_error(ApiKeyNotFoundError, 404, "not_found")
routes.map_error(InvalidExpiryError, 400, "validation_error", message="The request body is "
                 "invalid.", details=lambda e: [{"field": "expires_at", "message": str(e)}])
routes.map_error(DatabaseUrlRefusedError, 400, "database_url_refused",
                 details=lambda e: [{"field": "url", "message": e.refusal_code}])
routes.map_error(DatabaseNotConfiguredError, 404, "database_not_configured")


def _deps(call: Call) -> service.SettingsDeps:
    config = call.request.config_dict
    return service.SettingsDeps(call.settings, config[SECRET_KEYS].fernet, config[CLOCK])


def _key_info(row: ApiKey, call: Call, model: type[ApiKeyInfo] = ApiKeyInfo, **extra):
    now = _deps(call).now()
    return model(id=row.id, name=row.name, prefix=row.display_prefix,
                 scopes=sorted(row.scope_set), created_at=row.created_at,
                 last_used_at=row.last_used_at, expires_at=row.expires_at,
                 expired=row.expires_at is not None and now >= row.expires_at, **extra)


@routes.post("/api-keys/", body=CreateApiKeyRequest, response=CreatedApiKey, status=201,
             auth=ADMIN, errors=(400,), summary="Create an API key",
             description="Answers the full key once (`iops_` + 40 base62 characters); only its "
             "SHA-256 is stored. Scopes: read, or read and write (the default).")
async def create_api_key(call: Call[CreateApiKeyRequest, None]) -> CreatedApiKey:
    command = service.NewKey(call.body.name, tuple(call.body.scopes), call.body.expires_at)
    async with call.unit_of_work() as uow:
        created = await service.create_api_key(uow, _deps(call), call.principal.active_workspace_id,
                                               call.principal.user.id, command)
    return _key_info(created.row, call, CreatedApiKey, key=created.key)


@routes.get("/api-keys/list/", response=ApiKeyList, auth=MEMBER, summary="List API keys",
            description="Name, first characters, scopes, created, last used and expiry; never "
            "the key. Revoked keys are not listed.")
async def list_api_keys(call: Call[None, None]) -> ApiKeyList:
    async with call.unit_of_work() as uow:
        rows = await service.list_api_keys(uow, call.principal.active_workspace_id)
    return ApiKeyList(keys=[_key_info(row, call) for row in rows])


@routes.delete("/api-keys/{key_id:[0-9A-Z]+}/", path_model=KeyPath, response=None, status=204,
               auth=ADMIN, errors=(404,), summary="Revoke an API key",
               description="Takes effect at once: the next request with the key is 401.")
async def revoke_api_key(call: Call[None, None]) -> None:
    async with call.unit_of_work() as uow:
        await service.revoke_api_key(uow, _deps(call), call.principal.active_workspace_id,
                                     call.path.key_id)
    call.request.config_dict[API_KEY_CACHE].forget_all()  # committed: refused here at once


def _database_info(row: TenantDatabase | None, call: Call) -> DatabaseInfo:
    if row is None:
        return DatabaseInfo(configured=False, embedded=call.settings.embedded_tenants_on,
                            url=None, backend=None, host=None, port=None, database=None,
                            username=None, schema_version=None, last_test=None, saved_at=None)
    url = masked_url(decrypt_url(_deps(call).fernet, row.url_encrypted))
    last_test = None if row.last_test_at is None else LastTest(
        ok=bool(row.last_test_ok), latency_ms=row.last_test_latency_ms,
        error=row.last_test_error, tested_at=row.last_test_at)
    return DatabaseInfo(configured=True, url=url, backend=row.backend, host=row.host,
                        port=row.port, database=row.database, username=row.username,
                        schema_version=row.schema_version, last_test=last_test,
                        saved_at=row.saved_at)


@routes.post("/database/", body=SaveDatabaseRequest, response=DatabaseInfo, auth=ADMIN,
             errors=(400,), summary="Save the database connection",
             description="PostgreSQL URLs (SQLite files under the configured directory when "
             "enabled). Stored encrypted; hosts on private, loopback or link-local addresses "
             "are refused unless the service allows their network.")
async def save_database(call: Call[SaveDatabaseRequest, None]) -> DatabaseInfo:
    async with call.unit_of_work() as uow:
        row = await service.save_database(uow, _deps(call), call.principal.active_workspace_id,
                                          call.principal.user.id, call.body.url)
    call.request.config_dict[API_KEY_CACHE].forget_all()  # the keys carry the saved token
    return _database_info(row, call)


@routes.get("/database/get/", response=DatabaseInfo, auth=MEMBER,
            summary="Get the database connection",
            description="The URL with its password masked, its parts, the data-model version "
            "found and the last test's result.")
async def get_database(call: Call[None, None]) -> DatabaseInfo:
    async with call.unit_of_work() as uow:
        row = await service.get_database(uow, call.principal.active_workspace_id)
    return _database_info(row, call)


# Each test opens an outbound connection: bounded, so the route cannot be driven as a scanner.
DATABASE_TEST_LIMIT = RateLimit("settings_database_test", 20, 600, key=RateKey.WORKSPACE)


@routes.post("/database/test/", body=TestDatabaseRequest, response=DatabaseTestResult,
             auth=ADMIN, rate_limit=DATABASE_TEST_LIMIT, errors=(400, 404, 429),
             summary="Test the database connection",
             description="Connects within the configured timeout and reads the data-model "
             "version. A failure is always `connection_failed`, whatever the cause.")
async def test_database(call: Call[TestDatabaseRequest, None]) -> DatabaseTestResult:
    async with call.unit_of_work() as uow:
        report = await service.run_database_test(uow, _deps(call),
                                                 call.principal.active_workspace_id, call.body.url)
    return DatabaseTestResult(ok=report.ok, latency_ms=report.latency_ms,
                              schema_version=report.schema_version, error=report.error)


@routes.get("/usage/", query=UsageQuery, response=UsageSummaryBody, auth=MEMBER,
            summary="Usage of the local MCP servers (tool calls, for billing)")
async def usage_summary(call: Call[None, UsageQuery]) -> UsageSummaryBody:
    async with call.unit_of_work() as uow:
        return await usage_summary_body(uow, call.principal.active_workspace_id, call.query)


routes.include(webhooks.routes)


def create_app() -> web.Application:
    """The area's sub-application, mounted at /api/v2/settings by insureops.platform.app."""
    return routes.build_app()
