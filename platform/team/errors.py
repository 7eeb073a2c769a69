"""Domain errors of the team area, each with a stable code (mapped to HTTP in routes.py)."""

from __future__ import annotations


class TeamError(Exception):
    """Root of the team area's errors."""

    code = "team_error"


class MemberNotFoundError(TeamError):
    """No member with this user id in the active workspace."""

    code = "not_found"


class LastOwnerError(TeamError):
    """The change would leave the workspace without an owner."""

    code = "last_owner"


class OwnerRemovalError(TeamError):
    """Owners are not removed; an owner first hands the role on (docs/team-and-settings.md)."""

    code = "owner_cannot_be_removed"


class AlreadyMemberError(TeamError):
    """The invited address already belongs to a member of the workspace."""

    code = "already_member"


class InvitationPendingError(TeamError):
    """A live invitation for this address exists: resend it instead."""

    code = "invitation_pending"


class InvitationNotFoundError(TeamError):
    """No invitation with this id in the active workspace."""

    code = "not_found"


class InvitationStateError(TeamError):
    """The invitation is not in a state that allows this (e.g. revoking an accepted one)."""

    code = "invalid_transition"


class InvitationChangedError(TeamError):
    """Another request accepted, revoked or resent the invitation between this request's read
    and its write: it lost the race (issue 28)."""

    code = "conflict"


class InvalidInvitationTokenError(TeamError):
    """Unknown invitation or wrong token (deliberately indistinguishable)."""

    code = "invalid_token"


class InvitationClosedError(TeamError):
    """The token is right but the invitation no longer admits anyone."""

    code = "invitation_closed"


class InvitationUsedError(InvitationClosedError):
    """The invitation was already accepted."""

    code = "invitation_used"


class InvitationRevokedError(InvitationClosedError):
    """An admin revoked the invitation."""

    code = "invitation_revoked"


class InvitationExpiredError(InvitationClosedError):
    """The invitation is older than 7 days (or than its last resend)."""

    code = "invitation_expired"


class NewUserDetailsError(TeamError):
    """A new user must give a name and an acceptable password; `field` names the problem."""

    code = "validation_error"

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message
