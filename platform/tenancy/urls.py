"""Which tenant database URLs the service may connect to: scheme, place and address checks.

PostgreSQL anywhere public; SQLite only as a file of the workspace's own directory (named by its
tenant id, under the configured directory), so no URL reaches another workspace's file; hosts that
resolve to private, loopback, link-local or otherwise non-public addresses only when a configured
network allows them (the address policy is platform/outbound/addresses.py). Refusals are values
(`UrlRefusal`) with a stable code.
"""

from __future__ import annotations

import asyncio
import re
import socket
from dataclasses import dataclass, replace
from pathlib import Path

from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError

from insureops.platform.config import Settings
from insureops.platform.outbound.addresses import address_allowed

POSTGRES_DRIVERS = {"postgresql", "postgres", "postgresql+psycopg"}
SQLITE_DRIVERS = {"sqlite", "sqlite+pysqlite"}
# Query parameters a PostgreSQL URL may carry; host, hostaddr, service, passfile and the like
# would let a URL reach somewhere else than its visible host, or read files on the server.
ALLOWED_QUERY = {"sslmode", "application_name", "options", "connect_timeout"}
MAX_URL_LENGTH = 2048

@dataclass(frozen=True)
class UrlRefusal:
    """Why a URL is refused: a stable code and a message for the user."""

    code: str
    message: str


@dataclass(frozen=True)
class CheckedUrl:
    """A URL the service may use, with the parts shown beside the masked URL."""

    url: URL
    backend: str  # postgresql | sqlite
    host: str | None
    port: int | None
    database: str | None
    username: str | None
    addresses: tuple[str, ...] = ()  # what the host resolved to when checked (connect to these)
    saved: str = ""  # the form to store and show back: see `parse_url`

    @property
    def text(self) -> str:
        return self.url.render_as_string(hide_password=False)


def parse_url(raw: str, settings: Settings, *, tenant_id: str) -> CheckedUrl | UrlRefusal:
    """Check the form of `raw` for workspace `tenant_id` (no name resolution yet: see
    `check_addresses`); run on saving, on testing and before every engine is made."""
    if len(raw) > MAX_URL_LENGTH or any(char in raw for char in "\r\n\x00"):
        return UrlRefusal("invalid_database_url", "The database URL is malformed.")
    try:
        url = make_url(raw.strip())
    except (ArgumentError, ValueError):
        return UrlRefusal("invalid_database_url", "The database URL is malformed.")
    if url.drivername in POSTGRES_DRIVERS:
        # Stored and shown back as the tenant wrote it (a libpq URI psql takes), not in the
        # driver-qualified form the service connects with.
        checked = _check_postgres(url.set(drivername="postgresql+psycopg"))
        return replace(checked, saved=raw.strip()) if isinstance(checked, CheckedUrl) else checked
    if url.drivername in SQLITE_DRIVERS:
        # A relative path means nothing outside the service: stored as the absolute file.
        checked = _check_sqlite(url.set(drivername="sqlite"), settings.tenant_sqlite_root,
                                tenant_id)
        return replace(checked, saved=checked.text) if isinstance(checked, CheckedUrl) else checked
    return UrlRefusal("unsupported_database", "Use a postgresql:// URL"
                      + (" or sqlite:///PATH." if settings.tenant_sqlite_root else "."))


def _check_postgres(url: URL) -> CheckedUrl | UrlRefusal:
    if not url.host:
        return UrlRefusal("invalid_database_url", "The database URL needs a host name.")
    if not url.database:
        return UrlRefusal("invalid_database_url", "The database URL needs a database name.")
    extra = set(url.query) - ALLOWED_QUERY
    if extra:
        return UrlRefusal("invalid_database_url", "Unsupported URL parameters: "
                          f"{', '.join(sorted(extra))}.")
    return CheckedUrl(url, "postgresql", url.host, url.port or 5432, url.database, url.username)


_TENANT_ID = re.compile(r"[0-9A-Za-z]{1,64}")


def workspace_directory(root: Path, tenant_id: str) -> Path:
    """The directory of one workspace's SQLite tenant databases: `root/<tenant_id>`."""
    if not _TENANT_ID.fullmatch(tenant_id):
        raise ValueError("a tenant id is letters and digits only")
    return root.resolve() / tenant_id


def _check_sqlite(url: URL, root: Path | None, tenant_id: str) -> CheckedUrl | UrlRefusal:
    if root is None:
        return UrlRefusal("unsupported_database", "SQLite tenant databases are not enabled on "
                          "this service (the operator enables them with "
                          "INSUREOPS_TENANT_SQLITE_DIRECTORY); use a postgresql:// URL.")
    if not url.database or url.database == ":memory:" or url.query or url.host:
        return UrlRefusal("invalid_database_url", "Use sqlite:///PATH with a file path.")
    # Relative paths are taken inside the workspace's own directory; after `..` and symlinks are
    # resolved the file must still be there. The answer is the same whether or not a file exists
    # elsewhere, so it reveals nothing about other workspaces.
    own = workspace_directory(root, tenant_id)
    path = (own / url.database).resolve()
    if not path.is_relative_to(own) or path == own:
        return UrlRefusal("database_location_refused", "A SQLite tenant database must be a file "
                          "in this workspace's own directory under "
                          "INSUREOPS_TENANT_SQLITE_DIRECTORY (e.g. sqlite:///agency.sqlite3).")
    return CheckedUrl(url.set(database=str(path)), "sqlite", None, None, str(path), None)


def host_refusal_message(settings: Settings) -> str:
    """Why a host is refused, naming the settings that change it (never what it resolved to)."""
    message = ("The database host does not resolve or is not allowed: private, loopback and "
               "link-local addresses are refused unless the operator allows their network with "
               "INSUREOPS_TENANT_DATABASE_ALLOWED_NETWORKS.")
    if settings.embedded_tenants_on:
        message += (" Until a connection is saved, the workspace uses its own embedded SQLite "
                    "database (INSUREOPS_EMBEDDED_TENANT_DATABASES).")
    return message


async def check_addresses(checked: CheckedUrl, settings: Settings) -> CheckedUrl | UrlRefusal:
    """Resolve the host; refuse it when any address is not allowed (or it does not resolve).

    Every address must pass, so a name with one public and one private address is refused; the
    caller connects to the returned `addresses`, not to the name again (DNS rebinding).
    """
    if checked.backend != "postgresql" or checked.host is None:
        return checked
    refusal = UrlRefusal("database_host_refused", host_refusal_message(settings))
    try:
        infos = await asyncio.get_running_loop().getaddrinfo(
            checked.host, checked.port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError, OSError):
        return refusal
    addresses = tuple(dict.fromkeys(str(info[4][0]) for info in infos))
    if not addresses or not all(address_allowed(address, settings.tenant_database_allowed_networks)
                                for address in addresses):
        return refusal
    return replace(checked, addresses=addresses)


async def check_url(raw: str, settings: Settings, *, tenant_id: str) -> CheckedUrl | UrlRefusal:
    """`parse_url` then `check_addresses`: what saving and testing a connection both run."""
    parsed = parse_url(raw, settings, tenant_id=tenant_id)
    if isinstance(parsed, UrlRefusal):
        return parsed
    return await check_addresses(parsed, settings)
