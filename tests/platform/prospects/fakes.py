"""An in-memory fake of the prospects store's port (`prospects/repository.py`
`ProspectsRepository`) and of a unit of work, for the fast tier of the use cases.

The fake keeps what the port promises: prospects by owner (another owner's are never seen),
search candidates holding the text in a name, domain, e-mail or notes (case folded, taken
literally) or the digits in the phone's, newest change first; exact matches on domain, e-mail or
phone digits; the owner's e-mail recorded on all their prospects; one acceptance per owner and
version. Whether the SQL does the same on SQLite and PostgreSQL is the database tier's question
(test_prospects.py, test_search_and_duplicates.py, test_terms.py).
"""

from __future__ import annotations

from collections.abc import Sequence

from insureops.platform.prospects.models import TermsAcceptance
from insureops.platform.records.prospects import Prospect

Owner = tuple[str, str]


class FakeProspects:
    """`ProspectsRepository` in memory; the `session` each method receives is ignored."""

    def __init__(self) -> None:
        self.rows: dict[str, Prospect] = {}
        self.acceptances: list[TermsAcceptance] = []

    def _mine(self, owner: Owner) -> list[Prospect]:
        return [row for row in self.rows.values()
                if (row.owner_issuer, row.owner_subject) == owner]

    def _record_email(self, owner: Owner, email: str | None) -> None:
        for row in self._mine(owner):
            row.owner_email = email

    async def get(self, session, owner: Owner, prospect_id: str) -> Prospect | None:
        row = self.rows.get(prospect_id)
        return row if row is not None and row in self._mine(owner) else None

    async def add(self, session, prospect: Prospect, owner: Owner,
                  owner_email: str | None) -> None:
        assert prospect.id not in self.rows
        self.rows[prospect.id] = prospect
        self._record_email(owner, owner_email)

    async def saved(self, session, prospect: Prospect, owner: Owner,
                    owner_email: str | None) -> None:
        self._record_email(owner, owner_email)

    async def search_candidates(self, session, owner: Owner, text: str, digits: str | None,
                                limit: int) -> list[Prospect]:
        def holds(row: Prospect) -> bool:
            return (any(text.lower() in value.lower() for value in
                        (row.company_name, row.domain, row.email, row.notes) if value)
                    or bool(digits and row.phone_digits and digits in row.phone_digits))
        hits = [row for row in self._mine(owner) if holds(row)]
        hits.sort(key=lambda row: row.id)
        hits.sort(key=lambda row: row.updated_at, reverse=True)
        return hits[:limit]

    async def exact_matches(self, session, owner: Owner, *, domain: str | None,
                            email: str | None, digits: str | None) -> list[Prospect]:
        return [row for row in self._mine(owner)
                if (domain and row.domain == domain) or (email and row.email == email)
                or (digits and row.phone_digits == digits)]

    async def names(self, session, owner: Owner, limit: int) -> Sequence[tuple[str, str]]:
        rows = sorted(self._mine(owner), key=lambda row: row.updated_at, reverse=True)
        return [(row.id, row.company_name) for row in rows[:limit]]

    async def by_ids(self, session, owner: Owner, ids: Sequence[str]) -> list[Prospect]:
        return [row for row in self._mine(owner) if row.id in ids]

    async def acceptance(self, session, owner: Owner,
                         version: str | None = None) -> TermsAcceptance | None:
        found = [row for row in self.acceptances
                 if (row.owner_issuer, row.owner_subject) == owner
                 and (version is None or row.version == version)]
        return max(found, key=lambda row: row.accepted_at, default=None)

    async def add_acceptance(self, session, acceptance: TermsAcceptance) -> None:
        owner = (acceptance.owner_issuer, acceptance.owner_subject)
        if await self.acceptance(session, owner, acceptance.version) is None:
            self.acceptances.append(acceptance)

