"""Authentication hook points: route requirements, principals, and the authenticator registry.

Each route declares an `AuthRequirement`. The route pipeline asks the app's `Authenticators` for
the authenticator of that kind, which returns a `Principal` or raises an ApiError. Sessions, API
keys and identity-provider JWTs are supplied by later areas (accounts, settings, prospects)
through `Authenticators.register`; until then those kinds answer 401.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from aiohttp import web

from insureops.platform.http.errors import ApiError


class AuthKind(StrEnum):
    NONE = "none"
    SESSION = "session"  # cookie `sessionid`
    API_KEY = "api_key"  # Authorization: Bearer iops_...
    JWT = "jwt"  # Authorization: Bearer <identity-provider JWT>
    TOKEN = "token"  # a one-time token in the body (invitations); checked by the handler


class Role(StrEnum):
    MEMBER = "member"
    ADMIN = "admin"
    OWNER = "owner"

    def satisfies(self, required: Role) -> bool:
        """owner > admin > member: an owner satisfies every admin check."""
        order = [Role.MEMBER, Role.ADMIN, Role.OWNER]
        return order.index(self) >= order.index(required)


class Scope(StrEnum):
    READ = "read"
    WRITE = "write"  # implies read


@dataclass(frozen=True)
class AuthRequirement:
    """What a route demands of its caller."""

    kind: AuthKind
    role: Role | None = None  # sessions only: the role needed in the active workspace
    scope: Scope | None = None  # API keys only

    def describe(self) -> str:
        extra = self.role or self.scope
        return f"{self.kind.value} ({extra.value})" if extra else self.kind.value


class Auth:
    """Shorthands for route declarations: `auth=Auth.SESSION`, `auth=Auth.session(Role.ADMIN)`."""

    NONE = AuthRequirement(AuthKind.NONE)
    SESSION = AuthRequirement(AuthKind.SESSION)
    JWT = AuthRequirement(AuthKind.JWT)
    TOKEN = AuthRequirement(AuthKind.TOKEN)

    @staticmethod
    def session(role: Role) -> AuthRequirement:
        return AuthRequirement(AuthKind.SESSION, role=role)

    @staticmethod
    def api_key(scope: Scope | None = None) -> AuthRequirement:
        return AuthRequirement(AuthKind.API_KEY, scope=scope)


@dataclass(frozen=True)
class UserIdentity:
    id: str
    email: str
    name: str
    email_verified: bool = True


@dataclass(frozen=True)
class Membership:
    workspace_id: str
    workspace_name: str
    role: Role


@dataclass(frozen=True)
class Principal:
    """Who is calling, as an authenticator established it."""

    kind: AuthKind
    user: UserIdentity | None = None
    memberships: tuple[Membership, ...] = ()
    active_workspace_id: str | None = None
    scopes: frozenset[Scope] = field(default_factory=frozenset)
    subject: str | None = None  # API key id, JWT `sub`, or the session's id digest
    issuer: str | None = None  # JWT `iss` (with `sub`, the owner of prospects)
    email: str | None = None  # JWT: the `email` claim, only when `email_verified` is true

    @property
    def active_membership(self) -> Membership | None:
        return next((m for m in self.memberships
                     if m.workspace_id == self.active_workspace_id), None)

    def has_scope(self, scope: Scope) -> bool:
        return scope in self.scopes or (scope is Scope.READ and Scope.WRITE in self.scopes)


ANONYMOUS = Principal(AuthKind.NONE)

Authenticator = Callable[[web.Request], Awaitable[Principal]]

# Answers for kinds whose authenticator has not been registered yet.
_MISSING = {
    AuthKind.SESSION: ApiError(401, "not_authenticated", "Log in first: no valid session."),
    AuthKind.API_KEY: ApiError(401, "invalid_api_key", "The API key is invalid or expired."),
    AuthKind.JWT: ApiError(401, "not_authenticated", "A valid identity-provider token is needed."),
}


class Authenticators:
    """The authenticator for each AuthKind of one app."""

    def __init__(self, authenticators: Mapping[AuthKind, Authenticator] | None = None) -> None:
        self._by_kind: dict[AuthKind, Authenticator] = dict(authenticators or {})

    def register(self, kind: AuthKind, authenticator: Authenticator) -> None:
        if kind in (AuthKind.NONE, AuthKind.TOKEN):
            raise ValueError(f"{kind.value} routes need no authenticator")
        self._by_kind[kind] = authenticator

    async def authenticate(self, request: web.Request, requirement: AuthRequirement) -> Principal:
        """The caller's Principal, or an ApiError (401 unknown caller, 403 not allowed)."""
        if requirement.kind in (AuthKind.NONE, AuthKind.TOKEN):
            return ANONYMOUS
        authenticator = self._by_kind.get(requirement.kind)
        if authenticator is None:
            raise _MISSING[requirement.kind]
        principal = await authenticator(request)
        _check_grants(principal, requirement)
        return principal


def _check_grants(principal: Principal, requirement: AuthRequirement) -> None:
    if requirement.role is not None:
        membership = principal.active_membership
        if membership is None or not membership.role.satisfies(requirement.role):
            raise ApiError(403, "permission_denied",
                           f"This needs the {requirement.role.value} role in the workspace.")
    if requirement.scope is not None and not principal.has_scope(requirement.scope):
        raise ApiError(403, "insufficient_scope",
                       f"This API key lacks the {requirement.scope.value} scope.")
