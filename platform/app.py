"""The composition root: `create_app(settings)` wires settings, database, errors, auth and areas."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version

from aiohttp import web

from insureops.platform.accounts import routes as accounts
from insureops.platform.accounts.session_auth import authenticate_session, refresh_session_cookie
from insureops.platform.auth.api_key_cache import ApiKeyCache
from insureops.platform.auth.api_keys import authenticate_api_key
from insureops.platform.auth.jwt_tokens import authenticate_jwt, build_verifier
from insureops.platform.auth.requirements import Authenticator, Authenticators, AuthKind
from insureops.platform.auth.secret_keys import load_secret_keys
from insureops.platform.carrier_finder import routes as carrier_finder
from insureops.platform.carrier_finder.market import tenant_routes as market_tenant_api
from insureops.platform.compute.executors import BoundedExecutor
from insureops.platform.compute.heavy_work import (
    BODY_THREAD_COUNT,
    build_heavy_work,
    build_matching_work,
    heavy_work_context,
)
from insureops.platform.config import Settings
from insureops.platform.connectors import routes as connectors
from insureops.platform.data.database import Database, database_context
from insureops.platform.email.factory import build_email_backend
from insureops.platform.http import meta
from insureops.platform.http.bodies import request_target_middleware
from insureops.platform.http.errors import ErrorTable, error_middleware
from insureops.platform.http.log import add_request_id_header, request_id_middleware
from insureops.platform.http.openapi import OpenApiOnDemand
from insureops.platform.http.ratelimit import RateLimiter
from insureops.platform.http.routing import Mount, RouteTable, add_rate_limit_headers
from insureops.platform.invitation_web import routes as invitation_web
from insureops.platform.jobs.engine import build_job_engine
from insureops.platform.jobs.running import jobs_context
from insureops.platform.keys import (
    API_KEY_CACHE,
    AREA_STARTUP,
    AUTHENTICATORS,
    BODY_THREADS,
    CLOCK,
    DATABASE,
    EMAIL_BACKEND,
    ERROR_TABLE,
    HEAVY_WORK,
    JOBS,
    JWT_VERIFIER,
    MATCHING_WORK,
    MOUNTS,
    OPENAPI_DOCUMENT,
    RATE_LIMITER,
    ROUTE_TABLE,
    RULE_CATALOG,
    SECRET_KEYS,
    SETTINGS,
    TENANT_POOLS,
)
from insureops.platform.mcp import routes as mcp
from insureops.platform.prospects import routes as prospects
from insureops.platform.prospects import tenant_routes as prospects_tenant_api
from insureops.platform.rules_studio import routes as rules_studio
from insureops.platform.rules_studio import tenant_routes as rules_tenant_api
from insureops.platform.rules_studio.catalog import StudioRuleCatalog
from insureops.platform.rules_studio.work import tenant_routes as work_tenant_api
from insureops.platform.settings import routes as settings_area
from insureops.platform.studio_web import finder as finder_web
from insureops.platform.studio_web import routes as studio_web
from insureops.platform.team import routes as team
from insureops.platform.tenancy.pools import TenantPools, tenant_pools_context


@dataclass(frozen=True)
class Area:
    """An area's sub-application factory and the path prefix it is mounted at."""

    prefix: str
    create_app: Callable[[], web.Application]
    # Tenant API (API key) tables of the area, each served at its prefix by a sub-application
    # that shares the area's state (its stores and budgets: the same objects, not copies).
    tenant_api: tuple[tuple[str, RouteTable], ...] = ()


# The paths of spec/service-interface.md. Prospects live under the carrier finder's base path but
# are an area of their own, mounted at the longer prefix.
AREAS: tuple[Area, ...] = (
    Area("/api/auth", accounts.create_app),
    Area("/api/v1/carrier_finder/clients", prospects.create_app,
         tenant_api=(("/api/v2/mcp/prospects", prospects_tenant_api.routes),)),
    Area("/api/v1/carrier_finder", carrier_finder.create_app,
         tenant_api=(("/api/v2/mcp/market", market_tenant_api.routes),)),
    Area("/api/v2/mcp", mcp.create_app),
    Area("/mcp", mcp.create_endpoint_app),
    Area("/api/team", team.create_app),
    Area("/api/v2/settings", settings_area.create_app),
    Area("/api/rules", rules_studio.create_app,
         tenant_api=(("/api/v2/mcp/rulesets", rules_tenant_api.routes),
                     ("/api/v2/mcp/bindings", work_tenant_api.binding_routes),
                     ("/api/v2/mcp/runs", work_tenant_api.run_routes))),
    Area("/api/v1/connectors", connectors.create_app),
    Area("/studio", studio_web.create_app),
    Area("/invitations", invitation_web.create_app),
    Area("/finder", finder_web.create_app),
)


def _sharing_state(app: web.Application, area_app: web.Application) -> web.Application:
    """`app` with the area's state (its AppKeys but its own route table and no start-up hooks,
    which the area's app runs once)."""
    for key, value in area_app.items():
        if key not in (ROUTE_TABLE, AREA_STARTUP):
            app[key] = value
    return app


def _package_version() -> str:
    try:
        return version("insureops")
    except PackageNotFoundError:
        return "0.0.0"


def create_app(settings: Settings, *, areas: Sequence[Area] = AREAS,
               authenticators: Mapping[AuthKind, Authenticator] | None = None,
               clock: Callable[[], float] = time.time,
               monotonic: Callable[[], float] = time.monotonic) -> web.Application:
    """The service as an aiohttp application; nothing connects until it starts.

    `areas` and `authenticators` let tests and later issues compose the service differently;
    `clock` (Unix seconds) drives the rate-limit windows and every expiry (codes, sessions);
    `monotonic` (seconds that never go back, as the wall clock may) bounds how long API key
    rows are remembered (api_key_cache_seconds).
    """
    app = web.Application(
        middlewares=[request_id_middleware, error_middleware, request_target_middleware],
        client_max_size=max(settings.max_body_bytes, settings.simulation_max_body_bytes),
    )
    app[SETTINGS] = settings
    app[SECRET_KEYS] = load_secret_keys(settings)
    database = Database.connect(settings.database_url, settings.database_timeout_seconds)
    app[DATABASE] = database
    app[RATE_LIMITER] = RateLimiter(database.engine, clock=clock)
    app[AUTHENTICATORS] = Authenticators({AuthKind.SESSION: authenticate_session,
                                          AuthKind.API_KEY: authenticate_api_key,
                                          AuthKind.JWT: authenticate_jwt,
                                          **(authenticators or {})})
    app[CLOCK] = clock
    app[API_KEY_CACHE] = ApiKeyCache(settings.api_key_cache_seconds, clock=monotonic)
    app[RULE_CATALOG] = StudioRuleCatalog()  # the finder reads workspace appetite rules
    app[JWT_VERIFIER] = build_verifier(settings, clock, database)
    app[EMAIL_BACKEND] = build_email_backend(settings, database, clock)
    app[HEAVY_WORK] = build_heavy_work(settings)
    app[MATCHING_WORK] = build_matching_work(settings)
    app[BODY_THREADS] = BoundedExecutor("bodies", BODY_THREAD_COUNT)
    app[TENANT_POOLS] = TenantPools()  # one store per tenant database, for every area
    app[JOBS] = build_job_engine(settings, database)  # bindings, book runs, deliveries
    errors = ErrorTable()
    mounts = [Mount("", meta.routes)]
    startup_hooks: list = []
    meta.routes.add_to(app)
    for area in areas:
        sub_app = area.create_app()
        table = sub_app[ROUTE_TABLE]
        errors.merge(table.errors)
        mounts.append(Mount(area.prefix, table))
        app.add_subapp(area.prefix, sub_app)
        startup_hooks.extend(sub_app.get(AREA_STARTUP, ()))
        for prefix, tenant_table in area.tenant_api:
            errors.merge(tenant_table.errors)
            mounts.append(Mount(prefix, tenant_table))
            app.add_subapp(prefix, _sharing_state(tenant_table.build_app(), sub_app))
    app[ERROR_TABLE] = errors
    app[MOUNTS] = tuple(mounts)
    app[OPENAPI_DOCUMENT] = OpenApiOnDemand(app[MOUNTS], title="insureops API",
                                          version=_package_version())
    app.cleanup_ctx.append(database_context)
    app.cleanup_ctx.append(heavy_work_context)
    app.cleanup_ctx.append(tenant_pools_context)
    app.cleanup_ctx.append(jobs_context)  # last: stopped first, before the stores close
    app.on_startup.extend(startup_hooks)  # after cleanup_ctx's start: the database is migrated
    app.on_response_prepare.append(add_request_id_header)
    app.on_response_prepare.append(add_rate_limit_headers)
    app.on_response_prepare.append(refresh_session_cookie)
    return app
