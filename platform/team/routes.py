"""HTTP routes of the team area: the workspace, members, roles and invitations.

Roles as the interface's table: a session (with a membership in the active workspace) for the
reads, owner for role changes, admin (owners satisfy it) for invitations and removals; accepting
is authorised by the invitation's token alone. Everything acts on the active workspace only.
"""

from __future__ import annotations

from aiohttp import web

from insureops.platform.auth.requirements import Auth, Principal, Role
from insureops.platform.email import TemplateRenderer
from insureops.platform.http.ratelimit import RateKey, RateLimit
from insureops.platform.http.routing import Call, RouteTable
from insureops.platform.identity import Passwords, User
from insureops.platform.keys import CLOCK, EMAIL_BACKEND, PASSWORDS, TEMPLATES
from insureops.platform.team import service
from insureops.platform.team.errors import (
    AlreadyMemberError,
    InvalidInvitationTokenError,
    InvitationChangedError,
    InvitationExpiredError,
    InvitationNotFoundError,
    InvitationPendingError,
    InvitationRevokedError,
    InvitationStateError,
    InvitationUsedError,
    LastOwnerError,
    MemberNotFoundError,
    NewUserDetailsError,
    OwnerRemovalError,
)
from insureops.platform.team.invitations import TEMPLATE_DIRECTORY
from insureops.platform.team.models import Invitation
from insureops.platform.team.payloads import (
    AcceptRequest,
    AcceptResponse,
    InvitationInfo,
    InvitationList,
    InvitationPath,
    InviteRequest,
    MemberInfo,
    MemberList,
    MemberPath,
    Person,
    PlanUsage,
    RoleChange,
    SentInvitation,
    WorkspaceInfo,
    WorkspaceRef,
)

# Invitations and resends share one counter per workspace (resending is e-mailing too); only
# those sent count: a refused one (409 duplicate, 404) gives its hit back.
INVITE_LIMIT = RateLimit("team_invite", service.INVITES_PER_HOUR, 3600, key=RateKey.WORKSPACE,
                         successes_only=True)
MEMBER, ADMIN, OWNER = (Auth.session(role) for role in (Role.MEMBER, Role.ADMIN, Role.OWNER))

routes = RouteTable("team", "Workspace, members, roles and invitations.")
routes.map_error(MemberNotFoundError, 404, "not_found")
routes.map_error(InvitationNotFoundError, 404, "not_found")
routes.map_error(LastOwnerError, 409, "last_owner")
routes.map_error(OwnerRemovalError, 409, "owner_cannot_be_removed")
routes.map_error(AlreadyMemberError, 409, "already_member")
routes.map_error(InvitationPendingError, 409, "invitation_pending")
routes.map_error(InvitationStateError, 409, "invalid_transition")
routes.map_error(InvitationChangedError, 409, "conflict")
routes.map_error(InvalidInvitationTokenError, 401, "invalid_token")
for closed in (InvitationUsedError, InvitationRevokedError, InvitationExpiredError):
    routes.map_error(closed, 410, closed.code)  # the link no longer works: Gone
routes.map_error(NewUserDetailsError, 400, "validation_error", message="The request body is "
                 "invalid.", details=lambda e: [{"field": e.field, "message": e.message}])


def _deps(call: Call) -> service.TeamDeps:
    config, settings = call.request.config_dict, call.settings
    public_url = settings.public_url or f"http://{settings.host}:{settings.port}"
    return service.TeamDeps(config[EMAIL_BACKEND], config[TEMPLATES], config[PASSWORDS],
                            config[CLOCK], public_url)


def _person(user: User) -> Person:
    return Person(id=user.id, email=user.email, name=user.name)


def _inviter(principal: Principal) -> service.Inviter:
    return service.Inviter(principal.active_workspace_id, principal.user.id, principal.user.name)


def _invitation(row: Invitation, call: Call, model: type[InvitationInfo] = InvitationInfo,
                **extra) -> InvitationInfo:
    return model(id=row.id, email=row.email, role=row.role, status=row.state(_deps(call).now()),
                 invited_by=row.invited_by, created_at=row.created_at, sent_at=row.sent_at,
                 send_count=row.send_count, expires_at=row.expires_at, **extra)


@routes.get("/workspace/", response=WorkspaceInfo, auth=MEMBER, summary="Workspace information",
            description="Name, tenant id, owner, member count and the plan's usage.")
async def workspace(call: Call[None, None]) -> WorkspaceInfo:
    async with call.unit_of_work() as uow:
        found = await service.workspace_summary(uow, _deps(call),
                                                call.principal.active_workspace_id)
    owners = [_person(user) for user in found.owners]
    usage = PlanUsage(plan=service.PLAN_NAME, members=found.member_count,
                      pending_invitations=found.pending_invitations, api_keys=found.api_keys,
                      tenant_database_configured=found.tenant_database_configured,
                      invitations_per_hour=service.INVITES_PER_HOUR)
    return WorkspaceInfo(tenant_id=found.workspace.tenant_id, name=found.workspace.name,
                         owner=next(iter(owners), None), owners=owners, member_count=found.member_count,
                         usage=usage, created_at=found.workspace.created_at)


def _member(user: User, membership) -> MemberInfo:
    return MemberInfo(id=user.id, email=user.email, name=user.name, role=Role(membership.role),
                      joined_at=membership.created_at)


@routes.get("/members/", response=MemberList, auth=MEMBER, summary="List team members")
async def members(call: Call[None, None]) -> MemberList:
    async with call.unit_of_work() as uow:
        rows = await service.list_members(uow, call.principal.active_workspace_id)
    return MemberList(members=[_member(user, membership) for user, membership in rows])


@routes.patch("/members/{user_id}/", path_model=MemberPath, body=RoleChange, response=MemberInfo,
              auth=OWNER, errors=(404, 409), summary="Update a member's role",
              description="Owner only. Making a member owner adds an owner; the last owner "
              "cannot be demoted (409 last_owner).")
async def change_role(call: Call[RoleChange, None]) -> MemberInfo:
    async with call.unit_of_work() as uow:
        user, membership = await service.change_role(
            uow, call.principal.active_workspace_id, call.path.user_id, call.body.role.value)
    return _member(user, membership)


@routes.delete("/members/{user_id}/", path_model=MemberPath, response=None, status=204,
               auth=ADMIN, errors=(404, 409), summary="Remove a member",
               description="Admin. Owners cannot be removed (409 owner_cannot_be_removed).")
async def remove_member(call: Call[None, None]) -> None:
    async with call.unit_of_work() as uow:
        await service.remove_member(uow, call.principal.active_workspace_id, call.path.user_id)


@routes.post("/invite/", body=InviteRequest, response=SentInvitation, status=201, auth=ADMIN,
             rate_limit=INVITE_LIMIT, errors=(400, 409, 429), summary="Send a team invitation",
             description="E-mails a link with a one-time token, valid 7 days. 10 invitations "
             "(and resends) per hour per workspace; refused ones (409, 404) do not count.")
async def invite(call: Call[InviteRequest, None]) -> SentInvitation:
    async with call.unit_of_work() as uow:
        sent = await service.invite(uow, _deps(call), _inviter(call.principal), call.body.email,
                                    call.body.role)
    return _invitation(sent.invitation, call, SentInvitation, email_delivered=sent.delivered)


@routes.get("/invitations/", response=InvitationList, auth=ADMIN,
            summary="List pending invitations")
async def invitations(call: Call[None, None]) -> InvitationList:
    async with call.unit_of_work() as uow:
        rows = await service.list_invitations(uow, _deps(call),
                                              call.principal.active_workspace_id)
    return InvitationList(invitations=[_invitation(row, call) for row in rows])


@routes.post("/invitations/{invitation_id}/accept/", path_model=InvitationPath,
             body=AcceptRequest, response=AcceptResponse, auth=Auth.TOKEN,
             errors=(400, 401, 409, 410), summary="Accept an invitation",
             description="Authorised by the e-mailed token (no session needed). A new user "
             "gives `name` and `password`. A wrong token is 401 invalid_token; a revoked, "
             "expired or used one 410 invitation_revoked / invitation_expired / invitation_used.")
async def accept(call: Call[AcceptRequest, None]) -> AcceptResponse:
    acceptance = service.Acceptance(call.body.token, call.body.name, call.body.password)
    async with call.unit_of_work() as uow:
        done = await service.accept(uow, _deps(call), call.path.invitation_id, acceptance)
    return AcceptResponse(workspace=WorkspaceRef(id=done.workspace.tenant_id,
                                                 name=done.workspace.name),
                          user=_person(done.user), role=Role(done.role), new_user=done.new_user)


@routes.post("/invitations/{invitation_id}/revoke/", path_model=InvitationPath,
             response=InvitationInfo, auth=ADMIN, errors=(404, 409),
             summary="Revoke an invitation")
async def revoke(call: Call[None, None]) -> InvitationInfo:
    async with call.unit_of_work() as uow:
        row = await service.revoke(uow, _deps(call), call.principal.active_workspace_id,
                                   call.path.invitation_id)
    return _invitation(row, call)


@routes.post("/invitations/{invitation_id}/resend/", path_model=InvitationPath,
             response=SentInvitation, auth=ADMIN, rate_limit=INVITE_LIMIT,
             errors=(404, 409, 429), summary="Resend an invitation",
             description="A new token and a new 7-day expiry; the previous link stops working.")
async def resend(call: Call[None, None]) -> SentInvitation:
    async with call.unit_of_work() as uow:
        sent = await service.resend(uow, _deps(call), _inviter(call.principal),
                                    call.path.invitation_id)
    return _invitation(sent.invitation, call, SentInvitation, email_delivered=sent.delivered)


async def _close_passwords(app: web.Application) -> None:
    app[PASSWORDS].close()


def create_app(passwords: Passwords | None = None) -> web.Application:
    """The area's sub-application, mounted at /api/team by insureops.platform.app.create_app.

    `passwords` (new users' password hashing) defaults to argon2id with argon2-cffi's
    parameters; tests pass cheaper ones.
    """
    app = routes.build_app()
    app[PASSWORDS] = passwords or Passwords()
    app.on_cleanup.append(_close_passwords)
    app[TEMPLATES] = TemplateRenderer(TEMPLATE_DIRECTORY)
    return app
