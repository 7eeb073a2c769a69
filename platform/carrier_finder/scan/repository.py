"""What the scan sub-area reads: the prospects a workspace sees (records/prospects.py's table)."""

from __future__ import annotations

from sqlalchemy import and_, select
from sqlalchemy.ext.asyncio import AsyncSession

from insureops.platform.identity.models import Membership, User
from insureops.platform.records.prospects import Prospect


async def workspace_prospects(
    session: AsyncSession, workspace_id: str, limit: int
) -> list[Prospect]:
    """The workspace's prospects (an owner e-mail that a member verified), those with a NAICS
    code or notes to compare, most recently updated first, at most `limit`."""
    member_emails = (
        select(User.email)
        .join(Membership, Membership.user_id == User.id)
        .where(Membership.workspace_id == workspace_id, User.email_verified_at.is_not(None))
    )
    rows = await session.execute(
        select(Prospect)
        .where(
            and_(
                Prospect.owner_email.in_(member_emails),
                (Prospect.naics.is_not(None)) | (Prospect.notes.is_not(None)),
            )
        )
        .order_by(Prospect.updated_at.desc(), Prospect.id)
        .limit(limit)
    )
    return list(rows.scalars())
