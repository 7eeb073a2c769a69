"""ORM models of the prospects area: prospects and terms acceptances, owned by (issuer, subject)."""

from __future__ import annotations

import datetime

from sqlalchemy import CheckConstraint, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from insureops.platform.columns import UtcDateTime
from insureops.platform.db import Base

STATUSES = ("new", "contacted", "qualified", "converted", "lost")


class Prospect(Base):
    """A business saved from the browser extension. `domain` is derived from `website` and
    `phone_digits` from `phone`; `email` is stored lower-cased (migration 0007_prospects)."""

    __tablename__ = "prospects"
    __table_args__ = (
        CheckConstraint("status IN ('new', 'contacted', 'qualified', 'converted', 'lost')",
                        name="status"),
        Index("ix_prospects_owner_created", "owner_issuer", "owner_subject", "created_at"),
        Index("ix_prospects_owner_domain", "owner_issuer", "owner_subject", "domain"),
    )

    id: Mapped[str] = mapped_column(String(26), primary_key=True)  # a ULID
    owner_issuer: Mapped[str] = mapped_column(String(255))
    owner_subject: Mapped[str] = mapped_column(String(255))
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


class TermsAcceptance(Base):
    """One owner's acceptance of one version of the prospect terms (the first one is kept)."""

    __tablename__ = "prospect_terms_acceptances"

    owner_issuer: Mapped[str] = mapped_column(String(255), primary_key=True)
    owner_subject: Mapped[str] = mapped_column(String(255), primary_key=True)
    version: Mapped[str] = mapped_column(String(64), primary_key=True)
    accepted_at: Mapped[datetime.datetime] = mapped_column(UtcDateTime)
