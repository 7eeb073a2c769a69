"""Use cases of the prospects area: saving and listing prospects, terms, search and duplicates.

Each reaches the store through its port (`store`: the SQL repository by default, a fake in
memory in the fast tests; repository.py); paging is SQL's alone.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from rapidfuzz import fuzz, process
from ulid import ULID

from insureops.platform.data.database import UnitOfWork
from insureops.platform.http import cursors
from insureops.platform.prospects import repository
from insureops.platform.prospects.errors import (
    CursorInvalidError,
    ProspectNotFoundError,
    TermsNotAcceptedError,
    TermsVersionError,
)
from insureops.platform.prospects.models import TermsAcceptance
from insureops.platform.prospects.normalise import (
    normalise_domain,
    normalise_email,
    normalise_name,
    phone_digits,
)
from insureops.platform.prospects.payloads import (
    DuplicateQuery,
    ListQuery,
    ProspectCreate,
    ProspectUpdate,
)
from insureops.platform.prospects.repository import ProspectsRepository
from insureops.platform.records.prospects import Prospect

Owner = repository.Owner
Store = ProspectsRepository
SEARCH_CANDIDATES = 500  # most recently updated matches ranked per search
NAME_CANDIDATES = 5000  # most recently updated names compared per duplicate check
NAME_SIMILARITY_CUTOFF = 90.0  # rapidfuzz token_sort_ratio of the normalised names
MIN_PHONE_DIGITS = 7  # shorter numbers are too ambiguous to call a duplicate


@dataclass(frozen=True)
class Terms:
    accepted: bool
    version: str | None
    accepted_at: datetime.datetime | None
    current_version: str


def _derived(values: dict) -> dict:
    """`values` with the read-only forms recomputed from the fields present."""
    if "website" in values:
        values["domain"] = normalise_domain(values["website"])
    if "email" in values:
        values["email"] = normalise_email(values["email"])
    if "phone" in values:
        values["phone_digits"] = phone_digits(values["phone"])
    return values


async def _require_terms(uow: UnitOfWork, owner: Owner, current: str, store: Store) -> None:
    if await store.acceptance(uow.session, owner, current) is None:
        raise TermsNotAcceptedError(current)


async def create(uow: UnitOfWork, owner: Owner, body: ProspectCreate, now: datetime.datetime,
                 terms_version: str, owner_email: str | None = None, *,
                 store: Store = repository) -> Prospect:
    """Save a prospect; `owner_email` is the token's verified e-mail (None when it has none),
    recorded on all the owner's prospects (platform/records/prospects.py)."""
    await _require_terms(uow, owner, terms_version, store)
    prospect = Prospect(id=str(ULID.from_timestamp(now.timestamp())), owner_issuer=owner[0],
                        owner_subject=owner[1], owner_email=owner_email, created_at=now,
                        updated_at=now, **_derived(body.model_dump()))
    await store.add(uow.session, prospect, owner, owner_email)
    return prospect


async def update(uow: UnitOfWork, owner: Owner, prospect_id: str, body: ProspectUpdate,
                 now: datetime.datetime, terms_version: str,
                 owner_email: str | None = None, *, store: Store = repository) -> Prospect:
    prospect = await store.get(uow.session, owner, prospect_id)
    if prospect is None:
        raise ProspectNotFoundError(prospect_id)
    await _require_terms(uow, owner, terms_version, store)
    for name, value in _derived(body.model_dump(exclude_unset=True)).items():
        setattr(prospect, name, value)
    prospect.updated_at = now
    prospect.owner_email = owner_email
    await store.saved(uow.session, prospect, owner, owner_email)
    return prospect


def _encode_cursor(last_id: str, ordering: str) -> str:
    return cursors.encode_cursor(last_id, o=ordering)


def _decode_cursor(cursor: str, ordering: str) -> str:
    """The id a cursor of this ordering continues after (a cursor of another is refused)."""
    try:
        after = cursors.decode_cursor(cursor, o=ordering)
    except cursors.CursorInvalidError:
        raise CursorInvalidError(cursor) from None
    if len(after) != 26:
        raise CursorInvalidError(cursor)
    return after


async def page(uow: UnitOfWork, owner: Owner, query: ListQuery) -> tuple[list[Prospect], str | None]:
    """A page of the owner's prospects."""
    return await _page(uow, repository.owned_by(owner), query)


async def workspace_page(uow: UnitOfWork, workspace_id: str,
                         query: ListQuery) -> tuple[list[Prospect], str | None]:
    """A page of the workspace's prospects (its verified members' owner e-mails)."""
    return await _page(uow, repository.of_workspace(workspace_id), query)


async def _page(uow: UnitOfWork, scope, query: ListQuery) -> tuple[list[Prospect], str | None]:
    after = _decode_cursor(query.cursor, query.ordering) if query.cursor else None
    rows = await repository.page(uow.session, scope, status=query.status, state=query.state,
                                 ordering=query.ordering, after=after, limit=query.limit)
    more = len(rows) > query.limit
    rows = rows[:query.limit]
    return rows, _encode_cursor(rows[-1].id, query.ordering) if more else None


async def accept_terms(uow: UnitOfWork, owner: Owner, version: str, current: str,
                       now: datetime.datetime, *, store: Store = repository) -> Terms:
    """Record the acceptance of the current version (the first acceptance's time is kept)."""
    if version != current:
        raise TermsVersionError(current)
    if await store.acceptance(uow.session, owner, version) is None:
        await store.add_acceptance(uow.session, TermsAcceptance(
            owner_issuer=owner[0], owner_subject=owner[1], version=version, accepted_at=now))
    return await terms_status(uow, owner, current, store=store)


async def terms_status(uow: UnitOfWork, owner: Owner, current: str, *,
                       store: Store = repository) -> Terms:
    latest = await store.acceptance(uow.session, owner)
    accepted = await store.acceptance(uow.session, owner, current)
    shown = accepted or latest
    return Terms(accepted=accepted is not None, version=shown and shown.version,
                 accepted_at=shown and shown.accepted_at, current_version=current)


def _rank(prospect: Prospect, text: str, digits: str | None) -> tuple[int, list[str]]:
    """A prospect's search score and the fields that matched (docs/prospects.md, "Search")."""
    scores: dict[str, int] = {}
    name = prospect.company_name.lower()
    if name == text or normalise_name(name) == normalise_name(text):
        scores["name"] = 100
    elif name.startswith(text):
        scores["name"] = 80
    elif text in name:
        scores["name"] = 60
    if prospect.domain and (prospect.domain == text or normalise_domain(text) == prospect.domain):
        scores["domain"] = 90
    elif prospect.domain and text in prospect.domain:
        scores["domain"] = 50
    if prospect.email and prospect.email == text:
        scores["email"] = 90
    elif prospect.email and text in prospect.email:
        scores["email"] = 45
    if digits and prospect.phone_digits and prospect.phone_digits == digits:
        scores["phone"] = 85
    elif digits and prospect.phone_digits and digits in prospect.phone_digits:
        scores["phone"] = 40
    if prospect.notes and text in prospect.notes.lower():
        scores["notes"] = 20
    if not scores:
        return 0, []
    return max(scores.values()) + 5 * (len(scores) - 1), list(scores)


async def search(uow: UnitOfWork, owner: Owner, q: str, limit: int, *,
                 store: Store = repository) -> list[tuple[Prospect, int, list[str]]]:
    text = q.strip().lower()
    digits = phone_digits(text)
    digits = digits if digits and len(digits) >= 3 else None
    if not text:
        return []
    rows = await store.search_candidates(uow.session, owner, text, digits, SEARCH_CANDIDATES)
    ranked = [(row, *_rank(row, text, digits)) for row in rows]
    ranked = [hit for hit in ranked if hit[1] > 0]
    ranked.sort(key=lambda hit: (-hit[1], -hit[0].updated_at.timestamp(), hit[0].id))
    return ranked[:limit]


@dataclass(frozen=True)
class Match:
    prospect: Prospect
    reasons: list[str]
    name_similarity: float
    score: float


_WEIGHTS = {"same_email": 40.0, "same_domain": 35.0, "same_phone": 30.0}


async def duplicates(uow: UnitOfWork, owner: Owner, query: DuplicateQuery, *,
                     store: Store = repository) -> list[Match]:
    """The owner's prospects that may be the one described, strongest first, with reasons."""
    domain, email = normalise_domain(query.website), normalise_email(query.email)
    digits = phone_digits(query.phone)
    digits = digits if digits and len(digits) >= MIN_PHONE_DIGITS else None
    rows = {row.id: row for row in await store.exact_matches(
        uow.session, owner, domain=domain, email=email, digits=digits)}
    similar: dict[str, float] = {}
    name = normalise_name(query.name) if query.name and query.name.strip() else ""
    if name:
        names = await store.names(uow.session, owner, NAME_CANDIDATES)
        choices = {prospect_id: normalise_name(value) for prospect_id, value in names}
        for _, similarity, prospect_id in process.extract(
                name, choices, scorer=fuzz.token_sort_ratio, score_cutoff=NAME_SIMILARITY_CUTOFF,
                limit=50):
            similar[prospect_id] = float(similarity)
        missing = [prospect_id for prospect_id in similar if prospect_id not in rows]
        rows.update({row.id: row for row in await store.by_ids(uow.session, owner, missing)})
    matches = []
    for row in rows.values():
        reasons = [reason for reason, hit in (
            ("same_domain", domain and row.domain == domain),
            ("same_email", email and row.email == email),
            ("same_phone", digits and row.phone_digits == digits)) if hit]
        similarity = similar.get(row.id) or (
            float(fuzz.token_sort_ratio(name, normalise_name(row.company_name))) if name else 0.0)
        if row.id in similar:
            reasons.append("similar_name")
        score = sum(_WEIGHTS[reason] for reason in reasons if reason in _WEIGHTS)
        score += 0.3 * similarity if "similar_name" in reasons else 0.0
        matches.append(Match(row, reasons, round(similarity, 1), round(score, 1)))
    matches.sort(key=lambda match: (-match.score, match.prospect.id))
    return matches
