"""Every typed `web.AppKey` and `web.RequestKey` of the service: where platform state hangs from."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from aiohttp import web

if TYPE_CHECKING:
    from insureops.platform.auth.api_key_cache import ApiKeyCache
    from insureops.platform.auth.jwt_tokens import JwtVerifier
    from insureops.platform.auth.requirements import Authenticators
    from insureops.platform.auth.secret_keys import SecretKeys
    from insureops.platform.compute.executors import BoundedExecutor
    from insureops.platform.compute.heavy_work import HeavyWork, ThreadWork
    from insureops.platform.config import Settings
    from insureops.platform.data.database import Database
    from insureops.platform.email import EmailBackend, TemplateRenderer
    from insureops.platform.http.errors import ErrorTable
    from insureops.platform.http.openapi import OpenApiOnDemand
    from insureops.platform.http.ratelimit import RateLimiter, RateLimitState
    from insureops.platform.http.routing import Mount, RouteTable
    from insureops.platform.identity import Passwords
    from insureops.platform.jobs.engine import JobEngine
    from insureops.platform.records.rule_catalog import RuleCatalog
    from insureops.platform.tenancy.databases import SavedConnection
    from insureops.platform.tenancy.pools import TenantPools

SETTINGS: web.AppKey[Settings] = web.AppKey("settings")
SECRET_KEYS: web.AppKey[SecretKeys] = web.AppKey("secret_keys")
DATABASE: web.AppKey[Database] = web.AppKey("database")
RATE_LIMITER: web.AppKey[RateLimiter] = web.AppKey("rate_limiter")
ERROR_TABLE: web.AppKey[ErrorTable] = web.AppKey("error_table")
AUTHENTICATORS: web.AppKey[Authenticators] = web.AppKey("authenticators")
MOUNTS: web.AppKey[tuple[Mount, ...]] = web.AppKey("mounts")
OPENAPI_DOCUMENT: web.AppKey[OpenApiOnDemand] = web.AppKey("openapi_document")
ROUTE_TABLE: web.AppKey[RouteTable] = web.AppKey("route_table")  # on each area's sub-app
CLOCK: web.AppKey[Callable[[], float]] = web.AppKey("clock")  # Unix time; tests move it
# on the root app: recently read API key rows (settings' revoke and save forget them)
API_KEY_CACHE: web.AppKey[ApiKeyCache] = web.AppKey("api_key_cache")
EMAIL_BACKEND: web.AppKey[EmailBackend] = web.AppKey("email_backend")
# the external identity provider's verifier, or the service's own (it is then the provider)
JWT_VERIFIER: web.AppKey[JwtVerifier] = web.AppKey("jwt_verifier")
TENANT_POOLS: web.AppKey[TenantPools] = web.AppKey("tenant_pools")  # on the root app
# on the carrier_finder sub-app: its MarketStore (typed there; platform modules name no area)
MARKET_STORE: web.AppKey[object] = web.AppKey("carrier_finder_market_store")
# on the carrier_finder sub-app: compiled published appetite rules of the workspaces
OWN_APPETITES: web.AppKey[object] = web.AppKey("carrier_finder_own_appetites")
# on the root app: the rule studio's rules as other areas may read them (the finder's workspace
# appetites); set by the composition root, which alone may name the studio
RULE_CATALOG: web.AppKey[RuleCatalog] = web.AppKey("rule_catalog")
# on an area's sub-app: start-up hooks run with the root app, after the database is migrated
AREA_STARTUP: web.AppKey[tuple] = web.AppKey("area_startup")
# On the accounts and team sub-apps, each with its own value (tests give cheaper hashing).
PASSWORDS: web.AppKey[Passwords] = web.AppKey("passwords")
TEMPLATES: web.AppKey[TemplateRenderer] = web.AppKey("templates")

# on the root app: the rules worker processes behind the per-workspace admission
HEAVY_WORK: web.AppKey[HeavyWork] = web.AppKey("heavy_work")
# on the root app: carrier matching's threads behind the same per-workspace admission
MATCHING_WORK: web.AppKey[ThreadWork] = web.AppKey("matching_work")
# on the root app: where large JSON bodies are decoded and validated
BODY_THREADS: web.AppKey[BoundedExecutor] = web.AppKey("body_threads")

# on the root app: the job engine (procrastinate's queue, or the embedded runner)
JOBS: web.AppKey[JobEngine] = web.AppKey("jobs")

# Seconds a studio simulation may run (on the rules_studio sub-app; tests shorten it).
SIMULATION_BUDGET: web.AppKey[float] = web.AppKey("rules_simulation_budget")

# Per request.
REQUEST_ID: web.RequestKey[str] = web.RequestKey("request_id")
RATE_LIMIT_STATE: web.RequestKey[RateLimitState] = web.RequestKey("rate_limit_state")
# Set by the session authenticator when the session slid forward: the cookie follows.
REFRESH_SESSION_COOKIE: web.RequestKey[str] = web.RequestKey("refresh_session_cookie")
# Set by the API key authenticator: the key's workspace's saved tenant database token, read with
# the key in one query (the tenant API's connection cache compares it).
SAVED_CONNECTION: web.RequestKey[SavedConnection] = web.RequestKey("saved_connection")

# The remote MCP endpoint's Streamable HTTP sessions, started on first use (platform/mcp/endpoint.py).
MCP_SESSIONS: web.AppKey[object] = web.AppKey("mcp_sessions")
