"""The API key authenticator: `Authorization: Bearer iops_...` checked against the stored digests.

create_app registers `authenticate_api_key` for AuthKind.API_KEY, so every route declaring
`Auth.api_key(Scope.READ | Scope.WRITE)` gets a Principal carrying the workspace
(`active_workspace_id`), the key id (`subject`) and the key's scopes; the same query reads the
workspace's saved tenant database token for the tenant API (request[SAVED_CONNECTION]).
"""

from __future__ import annotations

import datetime

from aiohttp import web

from insureops.platform.auth.requirements import AuthKind, Principal, Scope
from insureops.platform.http.errors import ApiError
from insureops.platform.keys import API_KEY_CACHE, CLOCK, DATABASE, SAVED_CONNECTION
from insureops.platform.records.api_keys import (
    LAST_USED_STEP,
    hash_api_key,
    is_well_formed,
    lookup,
    mark_used,
)
from insureops.platform.tenancy.databases import SavedConnection


def _invalid() -> ApiError:
    return ApiError(401, "invalid_api_key", "The API key is invalid or expired.")


def bearer_token(request: web.Request) -> str | None:
    """The credential of `Authorization: Bearer <credential>`, or None."""
    scheme, _, credential = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "bearer":
        return None
    return credential.strip() or None


async def authenticate_api_key(request: web.Request) -> Principal:
    """The principal of the request's API key; 401 invalid_api_key when missing, unknown,
    revoked or expired. Scope checks follow in the route pipeline (403 insufficient_scope).
    The key's row comes from the instance's ApiKeyCache when read within its bound."""
    key = bearer_token(request)
    if key is None or not is_well_formed(key):
        raise _invalid()
    config = request.config_dict
    now = datetime.datetime.fromtimestamp(config[CLOCK](), tz=datetime.UTC)
    database, cache, key_hash = config[DATABASE], config[API_KEY_CACHE], hash_api_key(key)
    row = await cache.read_through(key_hash, lambda: lookup(database, key_hash))
    if row is None or row["revoked_at"] is not None or (
            row["expires_at"] is not None and now >= row["expires_at"]):
        raise _invalid()
    last_used = row["last_used_at"]
    if last_used is None or now - last_used >= LAST_USED_STEP:
        cache.update(key_hash, last_used_at=now)  # the key's concurrent requests write nothing
        await mark_used(database, row["id"], now)
    scopes = frozenset(Scope(part) for part in row["scopes"].split())
    request[SAVED_CONNECTION] = SavedConnection(row["workspace_id"], row["url_encrypted"])
    return Principal(AuthKind.API_KEY, active_workspace_id=row["workspace_id"], scopes=scopes,
                     subject=row["id"])
