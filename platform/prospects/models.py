"""ORM models of the prospects area: prospects and terms acceptances, owned by (issuer, subject).

The Prospect model itself is platform-level (platform/records/prospects.py) because the carrier
finder reads a workspace's prospects; it is re-exported here for the area's code."""

from __future__ import annotations

import datetime

from sqlalchemy import String
from sqlalchemy.orm import Mapped, mapped_column

from insureops.platform.data.columns import UtcDateTime
from insureops.platform.data.database import Base


class TermsAcceptance(Base):
    """One owner's acceptance of one version of the prospect terms (the first one is kept)."""

    __tablename__ = "prospect_terms_acceptances"

    owner_issuer: Mapped[str] = mapped_column(String(255), primary_key=True)
    owner_subject: Mapped[str] = mapped_column(String(255), primary_key=True)
    version: Mapped[str] = mapped_column(String(64), primary_key=True)
    accepted_at: Mapped[datetime.datetime] = mapped_column(UtcDateTime)
