"""The prospects table (platform-level: the prospects area writes them, the carrier finder's
similar businesses reads a workspace's, carrier_finder/scan/repository.py).

Prospects belong to an identity-provider owner (issuer, subject), not to a workspace. The link:
each save records the owner's e-mail when the token vouches for it (`email_verified`), and a
workspace's prospects are those whose recorded owner e-mail is the verified e-mail of one of its
members (docs/prospects.md, "Prospects in a workspace").
"""

from __future__ import annotations

import datetime

from sqlalchemy import CheckConstraint, ColumnElement, Index, String, Text, select, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Mapped, mapped_column

from insureops.platform.data.columns import UtcDateTime
from insureops.platform.data.database import Base
from insureops.platform.identity.models import Membership, User

STATUSES = ("new", "contacted", "qualified", "converted", "lost")


class Prospect(Base):
    """A business saved from the browser extension. `domain` is derived from `website` and
    `phone_digits` from `phone`; `email` is stored lower-cased (migration 0007_prospects);
    `owner_email` is the owner's verified e-mail at their last save (0010_prospect_emails)."""

    __tablename__ = "prospects"
    __table_args__ = (
        CheckConstraint(
            "status IN ('new', 'contacted', 'qualified', 'converted', 'lost')", name="status"
        ),
        Index("ix_prospects_owner_created", "owner_issuer", "owner_subject", "created_at"),
        Index("ix_prospects_owner_domain", "owner_issuer", "owner_subject", "domain"),
        Index("ix_prospects_owner_email", "owner_email"),
    )

    id: Mapped[str] = mapped_column(String(26), primary_key=True)  # a ULID
    owner_issuer: Mapped[str] = mapped_column(String(255))
    owner_subject: Mapped[str] = mapped_column(String(255))
    owner_email: Mapped[str | None] = mapped_column(String(254))
    company_name: Mapped[str] = mapped_column(String(200))
    website: Mapped[str | None] = mapped_column(String(500))
    domain: Mapped[str | None] = mapped_column(String(255))
    contact_name: Mapped[str | None] = mapped_column(String(200))
    email: Mapped[str | None] = mapped_column(String(254))
    phone: Mapped[str | None] = mapped_column(String(50))
    phone_digits: Mapped[str | None] = mapped_column(String(50))
    address: Mapped[str | None] = mapped_column(String(500))
    state: Mapped[str | None] = mapped_column(String(50))
    naics: Mapped[str | None] = mapped_column(String(10))
    notes: Mapped[str | None] = mapped_column(Text)
    source_url: Mapped[str | None] = mapped_column(String(2000))
    status: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[datetime.datetime] = mapped_column(UtcDateTime)
    updated_at: Mapped[datetime.datetime] = mapped_column(UtcDateTime)


async def record_owner_email(
    session: AsyncSession, owner: tuple[str, str], email: str | None
) -> None:
    """Record on every prospect of `owner` the e-mail their token vouches for now (None when it
    vouches for none), so the workspace link follows the owner's latest save."""
    await session.execute(
        update(Prospect)
        .where(
            Prospect.owner_issuer == owner[0],
            Prospect.owner_subject == owner[1],
            Prospect.owner_email.is_distinct_from(email),
        )
        .values(owner_email=email)
        .execution_options(synchronize_session="fetch")
    )


def in_workspace(workspace_id: str) -> ColumnElement[bool]:
    """The condition of the workspace's prospects: an owner e-mail that is the verified e-mail
    of one of its current members (docs/prospects.md, "Prospects in a workspace")."""
    member_emails = (
        select(User.email)
        .join(Membership, Membership.user_id == User.id)
        .where(Membership.workspace_id == workspace_id, User.email_verified_at.is_not(None))
    )
    return Prospect.owner_email.in_(member_emails)
