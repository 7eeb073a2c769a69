"""A workspace's tenant database connection: the stored row (URL encrypted) and its decryption.

The settings area saves and tests the connection; the tenant API reads it with
`load_tenant_database_url`. The URL is encrypted with the service's MultiFernet (newest key
first, older keys still decrypt: see docs/team-and-settings.md for rotation). Host, port, database
name and the user are kept in clear beside it for display; the password never is.
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass

from cryptography.fernet import InvalidToken, MultiFernet
from sqlalchemy import Boolean, ForeignKey, Integer, String, Text, select
from sqlalchemy.orm import Mapped, mapped_column

from insureops.platform.data.columns import UtcDateTime
from insureops.platform.data.database import Base, UnitOfWork


@dataclass(frozen=True)
class SavedConnection:
    """A workspace's saved connection as read beside its API key: the encrypted token (None when
    nothing is saved). Every save writes a new token (Fernet's IV is random), so an equal token
    is the same URL."""

    workspace_id: str
    token: str | None


class TenantDatabaseSecretError(Exception):
    """The stored URL cannot be decrypted with any configured key (a key was dropped too early)."""


class TenantDatabase(Base):
    """The tenant database connection of one workspace (migration 0003)."""

    __tablename__ = "tenant_databases"

    workspace_id: Mapped[str] = mapped_column(
        ForeignKey("workspaces.tenant_id", ondelete="CASCADE"), primary_key=True)
    url_encrypted: Mapped[str] = mapped_column(Text)
    backend: Mapped[str] = mapped_column(String(16))  # postgresql | sqlite
    host: Mapped[str | None] = mapped_column(String(255))
    port: Mapped[int | None] = mapped_column(Integer)
    database: Mapped[str | None] = mapped_column(String(255))
    username: Mapped[str | None] = mapped_column(String(255))
    saved_by: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    saved_at: Mapped[datetime.datetime] = mapped_column(UtcDateTime)
    last_test_at: Mapped[datetime.datetime | None] = mapped_column(UtcDateTime)
    last_test_ok: Mapped[bool | None] = mapped_column(Boolean)
    last_test_latency_ms: Mapped[int | None] = mapped_column(Integer)
    last_test_error: Mapped[str | None] = mapped_column(String(64))
    schema_version: Mapped[str | None] = mapped_column(String(32))


def encrypt_url(fernet: MultiFernet, url: str) -> str:
    """The URL as a Fernet token (text), encrypted with the newest key."""
    return fernet.encrypt(url.encode()).decode()


def decrypt_url(fernet: MultiFernet, token: str) -> str:
    """The URL of a stored token; any configured key that encrypted it decrypts it."""
    try:
        return fernet.decrypt(token.encode()).decode()
    except InvalidToken:
        raise TenantDatabaseSecretError(
            "the tenant database URL cannot be decrypted with the configured Fernet keys") from None


_DRIVER_SUFFIX = re.compile(r"^(postgresql|sqlite)\+\w+://")


def uri_form(url: str) -> str:
    """The URL as a connection URI other tools take (`psql`, `sqlite3`): as the tenant saved it,
    without a SQLAlchemy driver suffix (`postgresql+psycopg://` -> `postgresql://`), which
    connections saved before it was kept as typed still carry."""
    return _DRIVER_SUFFIX.sub(r"\1://", url, count=1)


# The user-information part as SQLAlchemy's make_url reads it (the password may hold '/').
_USERINFO = re.compile(r"^(?P<scheme>[\w+]+://)(?P<user>[^:/]*):(?P<password>[^@]*)@")


def masked_url(url: str) -> str:
    """The URL in `uri_form` with `***` for its password, safe to show and log; the rest stays
    as saved (not re-rendered, so its escaping is the tenant's)."""
    return _USERINFO.sub(r"\g<scheme>\g<user>:***@", uri_form(url), count=1)


async def load_tenant_database(uow: UnitOfWork, workspace_id: str) -> TenantDatabase | None:
    return await uow.session.get(TenantDatabase, workspace_id)


async def load_tenant_database_url(uow: UnitOfWork, workspace_id: str,
                                   fernet: MultiFernet) -> str | None:
    """The decrypted tenant database URL of the workspace, or None when none is saved.

    `fernet` is `request.config_dict[SECRET_KEYS].fernet`. Never log the result: it holds the
    password (use `masked_url`).
    """
    row = await load_tenant_database(uow, workspace_id)
    return None if row is None else decrypt_url(fernet, row.url_encrypted)


def rotate_encryption(fernet: MultiFernet, row: TenantDatabase) -> bool:
    """Re-encrypt the row's URL with the newest key; True when the token changed."""
    rotated = fernet.rotate(row.url_encrypted.encode()).decode()
    changed = rotated != row.url_encrypted
    row.url_encrypted = rotated
    return changed


async def rotate_tenant_database_keys(uow: UnitOfWork, fernet: MultiFernet) -> tuple[int, int]:
    """Re-encrypt every saved URL with the newest key: (rows, rows changed).

    Rotation: put a new key first in INSUREOPS_FERNET_KEYS (old keys after it), restart, run
    this (`insureops rotate-keys`), then drop the old keys. Raises TenantDatabaseSecretError,
    changing nothing, when a row cannot be decrypted with any configured key.
    """
    rows = list((await uow.session.execute(select(TenantDatabase))).scalars())
    for row in rows:
        decrypt_url(fernet, row.url_encrypted)  # all readable, or nothing is rewritten
    return len(rows), sum(rotate_encryption(fernet, row) for row in rows)
