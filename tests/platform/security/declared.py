"""What the security tests derive from the route declarations: the served routes, whose object a
path names, and what A's strongest credential and a valid body are for a route."""

from __future__ import annotations

import re
from typing import Any

from cryptography.fernet import Fernet
from pydantic import BaseModel, ValidationError

from insureops.platform.app import create_app
from insureops.platform.auth.requirements import AuthKind
from insureops.platform.config import Settings
from insureops.platform.http.routing import Mount, Owner, Route
from insureops.platform.keys import MOUNTS

OWNED = (Owner.WORKSPACE, Owner.TENANT, Owner.SUBJECT)

# A's strongest credential of each kind (a name in World.credentials): every role, every scope.
STRONGEST = {
    AuthKind.SESSION: "owner session",
    AuthKind.API_KEY: "api key",
    AuthKind.JWT: "jwt",
    AuthKind.NONE: "none",
    AuthKind.TOKEN: "none",
}

# Valid bodies of the request models that `{}` does not satisfy, for requests that must reach
# the handler (the body is parsed before the handler looks the object up). By model name.
BODIES: dict[str, dict[str, Any]] = {
    "RoleChange": {"role": "member"},
    "ExecuteRequest": {"inputs": {"claim": {"amount": 1}}},
    "RunCreate": {"record_type": "claim"},
    "BindingCreate": {"rule_id": "01ARZ3NDEKTSV4RRFFQ69G5FAV", "record_type": "claim",
                      "on": ["created"]},
}


def crossable(route: Route) -> bool:
    """The route names an object of one workspace (or subject) and a header authenticates it:
    A's credential on B's object must answer 404."""
    return route.path_owner in OWNED and route.auth.kind in (
        AuthKind.SESSION,
        AuthKind.API_KEY,
        AuthKind.JWT,
    )


_OBJECT_PARAMETER = re.compile(r"([^/{}]*)/\{(\w+)(?::[^}]*)?\}")


def served_routes() -> list[tuple[Mount, Route]]:
    """Every route the service declares, with its mount (nothing connects)."""
    app = create_app(
        Settings(
            database_url="sqlite+aiosqlite:///unused.db",
            secret_key="k",
            fernet_keys=(Fernet.generate_key().decode(),),
        )
    )
    return [(mount, route) for mount in app[MOUNTS] for route in mount.table.routes]


ROUTES = served_routes()


def operation(mount: Mount, route: Route) -> str:
    return f"{route.method} {mount.full_path(route)}"


def object_keys(full_path: str) -> list[str]:
    """ "segment/{parameter}" for each path parameter: what kind of object it names, e.g.
    "rules/{rule_id}", "policies/{uuid}"."""
    return [f"{segment}/{{{name}}}" for segment, name in _OBJECT_PARAMETER.findall(full_path)]


def filled_path(mount: Mount, route: Route, objects: dict[str, str], variant: str = "") -> str:
    """The route's path naming the objects of `objects` by key ("0" where it has none)."""
    path = mount.full_path(route)
    for key, name in zip(object_keys(path), route.path_parameters(), strict=True):
        path = path.replace(f"{{{name}}}", objects.get(f"{key} {variant}".strip(), "0"), 1)
    return path


def valid_body(model: type[BaseModel] | None) -> dict[str, Any] | None:
    """A body `model` accepts: from BODIES, or `{}` when every field is optional."""
    if model is None:
        return None
    if model.__name__ in BODIES:
        return BODIES[model.__name__]
    try:
        model.model_validate({})
    except ValidationError:
        return None
    return {}
