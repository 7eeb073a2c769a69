"""One policy for unknown fields across the whole API: every request model refuses them."""

from __future__ import annotations

import pytest
from cryptography.fernet import Fernet

from insureops.platform.app import create_app
from insureops.platform.config import Settings
from insureops.platform.http.bodies import validate
from insureops.platform.http.errors import ApiError
from insureops.platform.keys import MOUNTS

UNKNOWN = "zz_not_a_field"


def request_models() -> list[tuple[str, str, type]]:
    """(operation, part, model) for every body and query model of every served route."""
    app = create_app(Settings(database_url="sqlite+aiosqlite:///unused.db", secret_key="k",
                              fernet_keys=(Fernet.generate_key().decode(),)))
    return [(f"{route.method} {mount.full_path(route)}", part, model)
            for mount in app[MOUNTS] for route in mount.table.routes
            for part, model in (("body", route.body), ("query", route.query))
            if model is not None]


MODELS = request_models()


def test_every_route_has_request_models_to_walk():
    operations = {operation for operation, _, _ in MODELS}
    assert {"POST /api/team/invitations/{invitation_id}/accept/",
            "POST /api/v2/settings/api-keys/", "POST /api/v2/mcp/clients/"} <= operations


@pytest.mark.parametrize(("operation", "part", "model"), MODELS,
                         ids=[f"{operation} {part}" for operation, part, _ in MODELS])
def test_unknown_field_is_refused_naming_it_when_sent_to_any_route(operation, part, model):
    """Issue 17: unknown fields were silently ignored on invitation accept and API-key create
    while the MCP API refused them; every request model now refuses them."""
    with pytest.raises(ApiError) as refused:
        validate(model, {UNKNOWN: "x"}, f"{operation} {part}")

    assert refused.value.code == "validation_error"
    assert UNKNOWN in [detail["field"] for detail in refused.value.details]
