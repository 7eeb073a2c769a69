"""Route declarations: one typed decorator builds both the aiohttp route and its OpenAPI operation.

Every request runs the same pipeline: the Origin check (origins.py) -> authenticate -> parse path, query and body into their
models -> count the rate limit -> the handler -> serialise its response model. The table is
filled once at import and holds no runtime state (docs/architecture.md, "Declaring a route").
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Generic, TypeVar

from aiohttp import web
from pydantic import BaseModel

from insureops.platform.auth.requirements import Auth, AuthKind, AuthRequirement, Principal
from insureops.platform.config import Settings
from insureops.platform.data.database import UnitOfWork
from insureops.platform.http.bodies import BodyBounds, parse_body, parse_path, parse_query
from insureops.platform.http.errors import ApiError, ErrorTable
from insureops.platform.http.origins import check_origin
from insureops.platform.http.ratelimit import RateKey, RateLimit, RateLimitState, client_address
from insureops.platform.keys import (
    AUTHENTICATORS,
    DATABASE,
    RATE_LIMIT_STATE,
    RATE_LIMITER,
    ROUTE_TABLE,
    SETTINGS,
)

BodyT = TypeVar("BodyT")
QueryT = TypeVar("QueryT")
T = TypeVar("T")

_PATH_PARAMETER = re.compile(r"\{(\w+)(?::[^}]*)?\}")


class Owner(StrEnum):
    """Whose object a route's path parameters name: any other caller gets 404 for it."""

    WORKSPACE = "workspace"  # a row of the caller's active workspace (platform database)
    TENANT = "tenant"  # a record of the workspace's own tenant database
    SUBJECT = "subject"  # the identity-provider subject's own (prospects)
    SHARED = "shared"  # the same for every caller (market data, documentation files)


# What a path parameter names when the route declares no `owner`: implied by its requirement.
# A session route without a role implies nothing (it may serve shared data): it must declare.
_IMPLIED_OWNER = {AuthKind.API_KEY: Owner.TENANT, AuthKind.JWT: Owner.SUBJECT,
                  AuthKind.TOKEN: Owner.WORKSPACE, AuthKind.NONE: Owner.SHARED}


class BodyLimit(StrEnum):
    DEFAULT = "default"  # Settings.max_body_bytes, max_body_values
    SIMULATION = "simulation"  # Settings.simulation_max_body_bytes, simulation_max_body_values


@dataclass
class Call(Generic[BodyT, QueryT]):
    """What a handler receives: the validated inputs and the caller."""

    request: web.Request
    body: BodyT
    query: QueryT
    path: Any  # the route's path model, or the raw match_info mapping
    principal: Principal
    rate_limit: RateLimitState | None = None

    @property
    def settings(self) -> Settings:
        return self.request.config_dict[SETTINGS]

    def unit_of_work(self) -> UnitOfWork:
        return self.request.config_dict[DATABASE].unit_of_work()

    async def read(self, work: Callable[[UnitOfWork], Awaitable[T]]) -> T:
        """`work` on a read-only session (Database.read): for reads that write nothing."""
        return await self.request.config_dict[DATABASE].read(work)


Handler = Callable[[Call[Any, Any]], Awaitable[BaseModel | web.StreamResponse | None]]


@dataclass(frozen=True)
class Route:
    """One declared operation."""

    method: str
    path: str
    handler: Handler
    response: type[BaseModel] | None
    status: int
    auth: AuthRequirement
    summary: str
    description: str = ""
    body: type[BaseModel] | None = None
    query: type[BaseModel] | None = None
    path_model: type[BaseModel] | None = None
    rate_limit: RateLimit | None = None
    body_limit: BodyLimit = BodyLimit.DEFAULT
    errors: tuple[int, ...] = ()  # further documented error statuses (404, 409, ...)
    deprecated: bool = False
    documented: bool = True
    content_type: str = "application/json"  # of the success response
    owner: Owner | None = None  # whose object the path names; default: see path_owner

    @property
    def name(self) -> str:
        return self.handler.__name__

    @property
    def path_owner(self) -> Owner | None:
        """Whose object the path parameters name: the declared `owner`, else the one implied by
        the requirement (API key: tenant; JWT: subject; a session with a role or a token:
        workspace; none: shared). None without path parameters, or when a session route without
        a role declares nothing: the authorization matrix test fails on such a route."""
        if not self.path_parameters():
            return None
        if self.owner is not None:
            return self.owner
        if self.auth.kind is AuthKind.SESSION:
            return Owner.WORKSPACE if self.auth.role is not None else None
        return _IMPLIED_OWNER[self.auth.kind]

    def path_parameters(self) -> list[str]:
        return _PATH_PARAMETER.findall(self.path)

    def openapi_path(self) -> str:
        return _PATH_PARAMETER.sub(r"{\1}", self.path)


def _check_declaration(route: Route) -> None:
    if not route.path.startswith("/") and route.path != "":
        raise ValueError(f"{route.name}: path must start with '/' (or be '', the area's prefix)")
    if route.response is None and route.status != 204 and route.content_type == "application/json":
        raise ValueError(f"{route.name}: a JSON route without response model must be status 204")
    limit = route.rate_limit
    if limit and limit.key is RateKey.EMAIL and (
            route.body is None or "email" not in route.body.model_fields):
        raise ValueError(f"{route.name}: an e-mail keyed rate limit needs a body with `email`")
    if limit and limit.key is RateKey.WORKSPACE and route.auth.kind is AuthKind.NONE:
        raise ValueError(f"{route.name}: a workspace keyed rate limit needs an authenticated route")
    if limit and limit.key is RateKey.USER and route.auth.kind is not AuthKind.SESSION:
        raise ValueError(f"{route.name}: a user keyed rate limit needs a session route")
    if limit and limit.key is RateKey.API_KEY and route.auth.kind is not AuthKind.API_KEY:
        raise ValueError(f"{route.name}: a key keyed rate limit needs API-key authentication")


class RouteTable:
    """The declared routes of one area (or of the root app), with its domain-error mappings."""

    def __init__(self, tag: str, description: str = "") -> None:
        self.tag = tag
        self.description = description
        self.routes: list[Route] = []
        self.errors = ErrorTable()

    def route(self, method: str, path: str, *, response: type[BaseModel] | None,
              summary: str, auth: AuthRequirement = Auth.SESSION, status: int = 200,
              **options: Any) -> Callable[[Handler], Handler]:
        """Declare `method path`; see Route for the options."""
        def decorate(handler: Handler) -> Handler:
            route = Route(method.upper(), path, handler, response, status, auth, summary,
                          **options)
            _check_declaration(route)
            self.routes.append(route)
            return handler
        return decorate

    def get(self, path: str, **kwargs: Any) -> Callable[[Handler], Handler]:
        return self.route("GET", path, **kwargs)

    def post(self, path: str, **kwargs: Any) -> Callable[[Handler], Handler]:
        return self.route("POST", path, **kwargs)

    def put(self, path: str, **kwargs: Any) -> Callable[[Handler], Handler]:
        return self.route("PUT", path, **kwargs)

    def patch(self, path: str, **kwargs: Any) -> Callable[[Handler], Handler]:
        return self.route("PATCH", path, **kwargs)

    def delete(self, path: str, **kwargs: Any) -> Callable[[Handler], Handler]:
        return self.route("DELETE", path, **kwargs)

    def map_error(self, error: type[Exception], status: int, code: str, **kwargs: Any) -> None:
        """Answer the domain error `error` with `status` and `code` (see ErrorTable.register)."""
        self.errors.register(error, status, code, **kwargs)

    def include(self, other: RouteTable) -> None:
        """Serve `other`'s routes (after this table's) and its error mappings as this table's:
        a sub-area declares its routes on a table of its own, its area's table includes it."""
        self.routes.extend(other.routes)
        self.errors.merge(other.errors)

    def add_to(self, app: web.Application) -> None:
        """Add every route to `app` (HEAD is not added implicitly)."""
        app[ROUTE_TABLE] = self
        for route in self.routes:
            app.router.add_route(route.method, route.path, _pipeline(route, self.errors),
                                 name=None)

    def build_app(self) -> web.Application:
        """A sub-application serving this table (mounted by the root app at the area's prefix)."""
        app = web.Application()
        self.add_to(app)
        return app


@dataclass(frozen=True)
class Mount:
    """A route table and the path prefix it is served under."""

    prefix: str
    table: RouteTable

    def full_path(self, route: Route) -> str:
        return self.prefix.rstrip("/") + route.openapi_path()


def _pipeline(route: Route,
              errors: ErrorTable) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
    async def handle(request: web.Request) -> web.StreamResponse:
        config = request.config_dict
        settings = config[SETTINGS]
        check_origin(request, route.auth)
        principal = await config[AUTHENTICATORS].authenticate(request, route.auth)
        path = parse_path(request, route.path_model) if route.path_model else request.match_info
        query = parse_query(request, route.query) if route.query else None
        body = None
        if route.body is not None:
            body = await parse_body(request, route.body, _bounds(route, settings))
        state, subject = await _count(request, route, settings, principal, body)
        try:
            result = await route.handler(Call(request, body, query, path, principal, state))
        except Exception as exc:
            if state is not None and route.rate_limit.successes_only and _refusal(errors, exc):
                request[RATE_LIMIT_STATE] = await config[RATE_LIMITER].refund(
                    route.rate_limit, subject, state)
            raise
        return _respond(route, result)

    handle.__name__ = route.name
    handle.__doc__ = route.summary
    return handle


def _bounds(route: Route, settings: Settings) -> BodyBounds:
    if route.body_limit is BodyLimit.SIMULATION:
        return BodyBounds(settings.simulation_max_body_bytes, settings.simulation_max_body_values,
                          settings.body_timeout_seconds)
    return BodyBounds(settings.max_body_bytes, settings.max_body_values,
                      settings.body_timeout_seconds)


def _refusal(errors: ErrorTable, exc: Exception) -> bool:
    """The route refused the request (a 4xx), as opposed to failing on its own side."""
    error = exc if isinstance(exc, ApiError) else errors.lookup(exc)
    return error is not None and 400 <= error.status < 500


async def _count(request: web.Request, route: Route, settings: Settings, principal: Principal,
                 body: Any) -> tuple[RateLimitState | None, str]:
    limit = route.rate_limit
    if limit is None:
        return None, ""
    subject = None
    if limit.key is RateKey.EMAIL:
        subject = getattr(body, "email", None)
    elif limit.key is RateKey.WORKSPACE:
        subject = principal.active_workspace_id
    elif limit.key is RateKey.USER and principal.user is not None:
        subject = principal.user.id
    elif limit.key is RateKey.API_KEY:
        subject = principal.subject
    if not subject:  # no e-mail or workspace to count by: fall back to the client address
        subject = client_address(request, trusted_proxy=settings.trusted_proxy)
    limiter = request.config_dict[RATE_LIMITER]
    state = await limiter.hit(limit, str(subject))
    request[RATE_LIMIT_STATE] = state
    if state.exceeded:
        if limit.successes_only:  # a refused request does not count: later refunds must
            await limiter.refund(limit, str(subject), state)  # bring the count under the limit
        raise ApiError(429, "rate_limited", f"Rate limit exceeded ({limit.describe()}); retry "
                       f"in {state.retry_after} s.")
    return state, str(subject)


def _respond(route: Route, result: BaseModel | web.StreamResponse | None) -> web.StreamResponse:
    if isinstance(result, web.StreamResponse):
        return result
    if route.response is None:
        if result is not None:
            raise TypeError(f"{route.name} declared no response model but returned {result!r}")
        return web.Response(status=route.status)
    if not isinstance(result, route.response):
        raise TypeError(f"{route.name} must return {route.response.__name__}, "
                        f"not {type(result).__name__}")
    # pydantic writes the JSON itself: no intermediate dicts, no second encoder pass
    return web.Response(text=result.model_dump_json(by_alias=True), status=route.status,
                        content_type="application/json")


async def add_rate_limit_headers(request: web.Request, response: web.StreamResponse) -> None:
    """on_response_prepare: X-RateLimit-* on every response of a limited route, errors included."""
    state = request.get(RATE_LIMIT_STATE)
    if state is not None:
        response.headers.update(state.headers())
