"""Team use cases without HTTP, on a real migrated platform database: the paths the routes
reach only in rare states (an invitee who is already a member, concurrent owner changes)."""

from __future__ import annotations

import datetime

import pytest
from argon2 import PasswordHasher

from insureops.platform.data.database import Database
from insureops.platform.email import DeliveryResult, DeliveryStatus, TemplateRenderer
from insureops.platform.identity import Membership, Passwords, User, Workspace
from insureops.platform.team import service
from insureops.platform.team.errors import LastOwnerError, MemberNotFoundError
from insureops.platform.team.invitations import TEMPLATE_DIRECTORY, hash_token
from insureops.platform.team.models import Invitation

NOW = datetime.datetime(2027, 1, 15, 8, 0, tzinfo=datetime.UTC)
WORKSPACE = "01JWS000000000000000000001"


class Mailbox:
    """An EmailBackend keeping the messages it is given (the use cases' only outbound call)."""

    def __init__(self) -> None:
        self.sent = []

    async def send(self, message) -> DeliveryResult:
        self.sent.append(message)
        return DeliveryResult(DeliveryStatus.STORED, "mailbox", f"<{len(self.sent)}@test>")


@pytest.fixture
async def database(platform_database_urls):  # a copy of the migrated template
    database = Database.connect(platform_database_urls.async_)
    async with database.unit_of_work() as uow:
        uow.session.add(Workspace(tenant_id=WORKSPACE, name="Lee Agency", created_at=NOW))
        for number, (email, role) in enumerate((("ann@example.com", "owner"),
                                                 ("max@example.com", "member"))):
            user_id = f"01JUSER00000000000000000{number:02d}"
            uow.session.add(User(id=user_id, email=email, name=email[:3].title(),
                                 password_hash="x", email_verified_at=NOW, created_at=NOW))
            await uow.session.flush()
            uow.session.add(Membership(user_id=user_id, workspace_id=WORKSPACE, role=role,
                                       created_at=NOW))
    yield database
    await database.dispose()


@pytest.fixture
def deps() -> service.TeamDeps:
    return service.TeamDeps(Mailbox(), TemplateRenderer(TEMPLATE_DIRECTORY),
                            Passwords(PasswordHasher(time_cost=1, memory_cost=1024,
                                                     parallelism=1)),
                            lambda: NOW.timestamp(), "https://app.insureops.test")


async def test_member_keeps_their_role_when_accepting_an_invitation_for_a_lower_one(database,
                                                                                   deps):
    token = "t" * 43
    async with database.unit_of_work() as uow:
        await service.change_role(uow, WORKSPACE, "01JUSER0000000000000000001", "admin")
        uow.session.add(Invitation(
            id="01JINV00000000000000000001", workspace_id=WORKSPACE, email="max@example.com",
            role="member", status="pending", token_hash=hash_token(token), created_at=NOW,
            sent_at=NOW, send_count=1, expires_at=NOW + datetime.timedelta(days=7)))
    async with database.unit_of_work() as uow:
        accepted = await service.accept(uow, deps, "01JINV00000000000000000001",
                                        service.Acceptance(token))
    assert accepted.role == "admin" and accepted.new_user is False
    async with database.unit_of_work() as uow:
        members = await service.list_members(uow, WORKSPACE)
        invitation = await uow.session.get(Invitation, "01JINV00000000000000000001")
    assert [m.role for _, m in members] == ["owner", "admin"]
    assert invitation.status == "accepted"
    assert invitation.accepted_by == "01JUSER0000000000000000001"


async def test_invite_mails_a_link_whose_token_matches_the_stored_digest_when_sent(database,
                                                                                  deps):
    inviter = service.Inviter(WORKSPACE, "01JUSER0000000000000000000", "Ann")
    async with database.unit_of_work() as uow:
        sent = await service.invite(uow, deps, inviter, " Zoe@Example.com ", "admin")
    message = deps.mailer.sent[-1]
    token = message.secrets[0]
    assert message.to == ("zoe@example.com",) and message.tenant_id == WORKSPACE
    assert f"/invitations/{sent.invitation.id}/accept?token={token}" in message.text
    assert sent.invitation.token_hash == hash_token(token) and sent.delivered


async def test_last_owner_rule_counts_owners_when_two_exist(database, deps):
    async with database.unit_of_work() as uow:
        await service.change_role(uow, WORKSPACE, "01JUSER0000000000000000001", "owner")
    async with database.unit_of_work() as uow:
        await service.change_role(uow, WORKSPACE, "01JUSER0000000000000000000", "member")
    with pytest.raises(LastOwnerError):
        async with database.unit_of_work() as uow:
            await service.change_role(uow, WORKSPACE, "01JUSER0000000000000000001", "admin")


async def test_unknown_member_is_refused_when_changed_or_removed(database):
    for use_case in (lambda uow: service.change_role(uow, WORKSPACE, "nobody", "admin"),
                     lambda uow: service.remove_member(uow, WORKSPACE, "nobody")):
        with pytest.raises(MemberNotFoundError):
            async with database.unit_of_work() as uow:
                await use_case(uow)
