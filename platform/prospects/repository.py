"""The prospects area's store: its port (`ProspectsRepository`, what the use cases may ask) and
its one implementation, this module's SQLAlchemy queries; every function receives the session it
works in. The fast tests give the use cases an in-memory fake of the port instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from sqlalchemy import ColumnElement, and_, func, or_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from insureops.platform.prospects.models import TermsAcceptance
from insureops.platform.records.prospects import Prospect, in_workspace, record_owner_email

Owner = tuple[str, str]  # (issuer, subject)


class ProspectsRepository(Protocol):
    """What the prospects use cases ask of their store, besides paging (this module answers
    it; the order of pages is SQL's question and stays with the database tier)."""

    async def get(self, session: AsyncSession, owner: Owner,
                  prospect_id: str) -> Prospect | None: ...

    async def add(self, session: AsyncSession, prospect: Prospect, owner: Owner,
                  owner_email: str | None) -> None: ...

    async def saved(self, session: AsyncSession, prospect: Prospect, owner: Owner,
                    owner_email: str | None) -> None: ...

    async def search_candidates(self, session: AsyncSession, owner: Owner, text: str,
                                digits: str | None, limit: int) -> list[Prospect]: ...

    async def exact_matches(self, session: AsyncSession, owner: Owner, *, domain: str | None,
                            email: str | None, digits: str | None) -> list[Prospect]: ...

    async def names(self, session: AsyncSession, owner: Owner,
                    limit: int) -> Sequence[tuple[str, str]]: ...

    async def by_ids(self, session: AsyncSession, owner: Owner,
                     ids: Sequence[str]) -> list[Prospect]: ...

    async def acceptance(self, session: AsyncSession, owner: Owner,
                         version: str | None = None) -> TermsAcceptance | None: ...

    async def add_acceptance(self, session: AsyncSession, acceptance: TermsAcceptance) -> None: ...


def _owned(owner: Owner) -> ColumnElement[bool]:
    return and_(Prospect.owner_issuer == owner[0], Prospect.owner_subject == owner[1])


def owned_by(owner: Owner) -> ColumnElement[bool]:
    """The owner's prospects (the extension's caller)."""
    return _owned(owner)


def of_workspace(workspace_id: str) -> ColumnElement[bool]:
    """The workspace's prospects (a tenant API key's caller; records/prospects.py)."""
    return in_workspace(workspace_id)


async def get(session: AsyncSession, owner: Owner, prospect_id: str) -> Prospect | None:
    statement = select(Prospect).where(Prospect.id == prospect_id, _owned(owner))
    return (await session.execute(statement)).scalar_one_or_none()


async def add(session: AsyncSession, prospect: Prospect, owner: Owner,
              owner_email: str | None) -> None:
    """Insert `prospect`; the owner's e-mail recorded on all their prospects."""
    session.add(prospect)
    await session.flush()
    await record_owner_email(session, owner, owner_email)


async def saved(session: AsyncSession, prospect: Prospect, owner: Owner,
                owner_email: str | None) -> None:
    """Write the changes made to `prospect`; the owner's e-mail recorded on all their prospects."""
    await session.flush()
    await record_owner_email(session, owner, owner_email)


async def page(session: AsyncSession, scope: ColumnElement[bool], *, status: str | None,
               state: str | None, ordering: str, after: str | None,
               limit: int) -> list[Prospect]:
    """Up to `limit` + 1 of the prospects in `scope` (owned_by, of_workspace) in `ordering`
    (then id), after row `after`.

    The position is the anchor row's own stored values (a subquery), as in the tenant API, so no
    value round-trips through text and the order is exact on both engines.
    """
    descending = ordering.startswith("-")
    column = getattr(Prospect, ordering.lstrip("-"))
    statement = select(Prospect).where(scope)
    if status is not None:
        statement = statement.where(Prospect.status == status)
    if state is not None:
        statement = statement.where(func.lower(Prospect.state) == state.strip().lower())
    if after is not None:
        anchor = (select(column).where(Prospect.id == after, scope).scalar_subquery())
        beyond = column < anchor if descending else column > anchor
        tie = Prospect.id < after if descending else Prospect.id > after
        statement = statement.where(or_(beyond, and_(column == anchor, tie)))
    keys = (column.desc(), Prospect.id.desc()) if descending else (column, Prospect.id)
    statement = statement.order_by(*keys).limit(limit + 1)
    return list((await session.execute(statement)).scalars())


def _contains(column, text: str):
    escaped = text.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return func.lower(column).like(f"%{escaped}%", escape="\\")


async def search_candidates(session: AsyncSession, owner: Owner, text: str, digits: str | None,
                            limit: int) -> list[Prospect]:
    """The owner's prospects whose name, domain, e-mail, notes (or phone digits) hold `text`."""
    conditions = [_contains(column, text) for column in
                  (Prospect.company_name, Prospect.domain, Prospect.email, Prospect.notes)]
    if digits:
        conditions.append(Prospect.phone_digits.like(f"%{digits}%"))
    statement = (select(Prospect).where(_owned(owner), or_(*conditions))
                 .order_by(Prospect.updated_at.desc(), Prospect.id).limit(limit))
    return list((await session.execute(statement)).scalars())


async def exact_matches(session: AsyncSession, owner: Owner, *, domain: str | None,
                        email: str | None, digits: str | None) -> list[Prospect]:
    conditions = []
    if domain:
        conditions.append(Prospect.domain == domain)
    if email:
        conditions.append(Prospect.email == email)
    if digits:
        conditions.append(Prospect.phone_digits == digits)
    if not conditions:
        return []
    statement = select(Prospect).where(_owned(owner), or_(*conditions))
    return list((await session.execute(statement)).scalars())


async def names(session: AsyncSession, owner: Owner, limit: int) -> Sequence[tuple[str, str]]:
    """(id, company_name) of the owner's `limit` most recently updated prospects."""
    statement = (select(Prospect.id, Prospect.company_name).where(_owned(owner))
                 .order_by(Prospect.updated_at.desc()).limit(limit))
    return [(row[0], row[1]) for row in (await session.execute(statement)).all()]


async def by_ids(session: AsyncSession, owner: Owner, ids: Sequence[str]) -> list[Prospect]:
    if not ids:
        return []
    statement = select(Prospect).where(_owned(owner), Prospect.id.in_(ids))
    return list((await session.execute(statement)).scalars())


async def acceptance(session: AsyncSession, owner: Owner,
                     version: str | None = None) -> TermsAcceptance | None:
    """The owner's acceptance of `version`, or (without a version) the latest acceptance."""
    statement = select(TermsAcceptance).where(TermsAcceptance.owner_issuer == owner[0],
                                              TermsAcceptance.owner_subject == owner[1])
    if version is not None:
        statement = statement.where(TermsAcceptance.version == version)
    statement = statement.order_by(TermsAcceptance.accepted_at.desc()).limit(1)
    return (await session.execute(statement)).scalar_one_or_none()


async def add_acceptance(session: AsyncSession, acceptance: TermsAcceptance) -> None:
    """Record an acceptance; one a concurrent request recorded first is kept."""
    try:
        async with session.begin_nested():
            session.add(acceptance)
    except IntegrityError:
        pass
