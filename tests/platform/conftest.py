"""Fixtures of the platform tests: test settings on the backend under test, and app clients."""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable, Iterator

import pytest
from aiohttp.test_utils import TestClient
from cryptography.fernet import Fernet
from pydantic import BaseModel, Field
from sqlalchemy import text

from insureops.platform.app import AREAS, Area, create_app
from insureops.platform.auth.requirements import (
    Auth,
    AuthKind,
    Membership,
    Principal,
    Role,
    UserIdentity,
)
from insureops.platform.carrier_finder.market.appetite_cache import shared_cache
from insureops.platform.config import Settings
from insureops.platform.http.errors import ApiError
from insureops.platform.http.ratelimit import RateKey, RateLimit
from insureops.platform.http.routing import BodyLimit, Call, RouteTable
from tests.carrier_matching.example_market import CHECKED, example_market, read_texts
from tests.platform.email.smtp_server import SmtpTestServer, running_smtp_server


@pytest.fixture(scope="session", autouse=True)
def _checked_appetites_kept_in_memory(_user_cache_folder_of_the_run) -> None:
    """The service's appetite cache (the run's folder) first asks the process's in-memory one
    (tests/carrier_matching/example_market.py), and tells it what it checks: every service a
    test starts reads the stored market again, and checking or decoding its appetites once per
    service cost seconds per test. The cache itself is tested on caches of its own
    (carrier_finder/test_appetite_cache.py)."""
    cache = shared_cache()

    on_disk: set[tuple[str, str]] = set()

    def get(source, path):
        found = CHECKED.get(source, path)
        if found is None:
            found = read(source, path)
        elif (source, path) not in on_disk:  # for the processes tests start (CLI, serve)
            keep(source, found)
        if found is not None:
            on_disk.add((source, path))
            CHECKED.put(source, found)
        return found

    def put(source, appetite):
        keep(source, appetite)
        on_disk.add((source, appetite.ruleset.filename))
        CHECKED.put(source, appetite)

    def prime(sources, *, workers=None):  # the CLI's `market match`: none it knows
        return warm({path: source for path, source in sources.items()
                     if CHECKED.get(source, path) is None}, workers=workers)

    read, keep, warm = cache.get, cache.put, cache.prime
    cache.get, cache.put, cache.prime = get, put, prime


@pytest.fixture
def example_appetites_in_the_run_s_cache(_checked_appetites_kept_in_memory) -> None:
    """The example market's checked appetites in the run's appetite cache, where an `insureops
    serve` a test starts looks first: taken from this process's copy of the example market
    (which its other tests load anyway) instead of the service checking all 165 again (seconds
    on a cold cache). For tests whose point is not a cold cache."""
    example_market()
    cache = shared_cache()
    for path, source in read_texts().items():
        if path.endswith(".rules"):
            assert cache.get(source, path) is not None  # a hit in memory is kept on disk too


@pytest.fixture
def settings(platform_database_urls) -> Settings:
    """Settings of a service on a migrated platform database of its own (backend under test)."""
    return Settings(database_url=platform_database_urls.async_, secret_key="test-secret-key",
                    fernet_keys=(Fernet.generate_key().decode(),), load_example_market=False)


@pytest.fixture(scope="session")
def _shared_plain_smtp() -> Iterator[SmtpTestServer]:
    with running_smtp_server() as server:
        yield server


@pytest.fixture(scope="session")
def _shared_secure_smtp(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SmtpTestServer]:
    with running_smtp_server(secure_in=tmp_path_factory.mktemp("smtp")) as server:
        yield server


@pytest.fixture
def smtp_server(_shared_plain_smtp: SmtpTestServer) -> SmtpTestServer:
    """A real SMTP server without TLS or AUTH (the worker's, emptied for this test)."""
    _shared_plain_smtp.reset()
    return _shared_plain_smtp


@pytest.fixture
def secure_smtp_server(_shared_secure_smtp: SmtpTestServer) -> SmtpTestServer:
    """A real SMTP server requiring STARTTLS (self-signed certificate) and AUTH (the worker's,
    emptied for this test). Starting a server per test cost more than most tests."""
    _shared_secure_smtp.reset()
    return _shared_secure_smtp


@pytest.fixture
def make_client(aiohttp_client) -> Callable[..., Awaitable[TestClient]]:
    """`await make_client(settings, **create_app_options)`: a started app and its client."""
    async def make(settings: Settings, **options) -> TestClient:
        return await aiohttp_client(create_app(settings, **options))
    return make


@pytest.fixture
async def client(make_client, settings) -> TestClient:
    """The real service (all areas) on the backend under test."""
    return await make_client(settings)


# A probe area: one route per pipeline feature, mounted next to the real areas by the tests that
# exercise the error middleware, body parsing, auth guards and rate limits through HTTP.

class ProbeConflictError(Exception):
    """A domain error the probe area maps to 409 conflict."""


class EchoBody(BaseModel):
    name: str = Field(min_length=1)
    email: str
    count: int = Field(ge=0)
    tags: list[str] = []


class ItemPath(BaseModel):
    item_id: uuid.UUID


class ItemQuery(BaseModel):
    limit: int = Field(50, ge=1, le=200)
    kind: list[str] = []


class Item(BaseModel):
    item_id: uuid.UUID
    limit: int
    kind: list[str]


class Counted(BaseModel):
    ok: bool


class WhoAmI(BaseModel):
    user_id: str
    role: str | None


def build_probe_routes() -> RouteTable:
    routes = RouteTable("probe", "Test routes.")
    routes.map_error(ProbeConflictError, 409, "conflict")

    @routes.post("/echo/", body=EchoBody, response=EchoBody, status=201, auth=Auth.NONE,
                 summary="Echo the body")
    async def echo(call: Call[EchoBody, None]) -> EchoBody:
        return call.body

    @routes.get("/items/{item_id}/", path_model=ItemPath, query=ItemQuery, response=Item,
                auth=Auth.NONE, summary="One item")
    async def item(call: Call[None, ItemQuery]) -> Item:
        return Item(item_id=call.path.item_id, limit=call.query.limit, kind=call.query.kind)

    @routes.post("/conflict/", response=None, status=204, auth=Auth.NONE, summary="Conflict")
    async def conflict(call: Call[None, None]) -> None:
        raise ProbeConflictError("That name is taken.")

    @routes.get("/boom/", response=None, status=204, auth=Auth.NONE, summary="Bug")
    async def boom(call: Call[None, None]) -> None:
        raise RuntimeError("SELECT password FROM users -- internal detail")

    @routes.get("/bad-sql/", response=None, status=204, auth=Auth.NONE, summary="Bad SQL")
    async def bad_sql(call: Call[None, None]) -> None:
        async with call.unit_of_work() as uow:
            await uow.session.execute(text("SELECT secret_column FROM no_such_table"))

    @routes.get("/guarded/", response=WhoAmI, auth=Auth.session(Role.ADMIN), summary="Admin")
    async def guarded(call: Call[None, None]) -> WhoAmI:
        membership = call.principal.active_membership
        return WhoAmI(user_id=call.principal.user.id, role=membership and membership.role)

    @routes.post("/limited/", response=Counted, auth=Auth.NONE,
                 rate_limit=RateLimit("probe_limited", 3, 60), summary="Limited")
    async def limited(call: Call[None, None]) -> Counted:
        return Counted(ok=True)

    @routes.post("/limited-by-email/", body=EchoBody, response=Counted, auth=Auth.NONE,
                 rate_limit=RateLimit("probe_email", 1, 3600, key=RateKey.EMAIL),
                 summary="Limited per e-mail")
    async def limited_by_email(call: Call[EchoBody, None]) -> Counted:
        return Counted(ok=True)

    @routes.post("/limited-by-workspace/", response=Counted, auth=Auth.SESSION,
                 rate_limit=RateLimit("probe_workspace", 2, 60, key=RateKey.WORKSPACE),
                 summary="Limited per workspace")
    async def limited_by_workspace(call: Call[None, None]) -> Counted:
        return Counted(ok=True)

    @routes.post("/simulate/", body=EchoBody, response=Counted, auth=Auth.NONE,
                 body_limit=BodyLimit.SIMULATION, summary="Large bodies")
    async def simulate(call: Call[EchoBody, None]) -> Counted:
        return Counted(ok=True)

    return routes


PROBE_PREFIX = "/api/probe"


def probe_areas() -> tuple[Area, ...]:
    """The real areas plus the probe area at /api/probe."""
    return (*AREAS, Area(PROBE_PREFIX, lambda: build_probe_routes().build_app()))


async def header_session(request) -> Principal:
    """Test stand-in for the session lookup of the accounts issue: X-Test-Role names the role,
    X-Test-Workspace the active workspace (default w1)."""
    role = request.headers.get("X-Test-Role")
    if role is None:
        raise ApiError(401, "not_authenticated", "Log in first: no valid session.")
    workspace = request.headers.get("X-Test-Workspace", "w1")
    return Principal(AuthKind.SESSION, user=UserIdentity("u1", "ann@example.com", "Ann"),
                     memberships=(Membership(workspace, "Ann's agency", Role(role)),),
                     active_workspace_id=workspace)


@pytest.fixture
def make_probe(make_client) -> Callable[..., Awaitable[TestClient]]:
    """`await make_probe(settings, extra=(Area, ...), **options)`: the service with the probe
    area (and any `extra` areas) mounted and the header-based session authenticator."""
    async def make(settings: Settings, *, extra: tuple[Area, ...] = (), **options) -> TestClient:
        return await make_client(settings, areas=(*probe_areas(), *extra),
                                 authenticators={AuthKind.SESSION: header_session}, **options)
    return make


@pytest.fixture
async def probe(make_probe, settings) -> TestClient:
    """The service with the probe area, on the backend under test."""
    return await make_probe(settings)
