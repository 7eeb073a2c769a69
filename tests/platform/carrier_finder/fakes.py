"""In-memory fakes of the carrier finder's ports for the fast tier of the own and scan use cases:
the own entries' store (`own/repository.py` `OwnRepository`), the scan's prospects
(`scan/repository.py` `ScanRepository`), the rule catalog (`records/rule_catalog.py`) and the
stored market a workspace sees (what `MarketStore.market` answers).

Each keeps what its port promises: a workspace's own entries and rules only (another
workspace's are never seen), one carrier or product per workspace and id (a second is refused),
products of carriers by id; prospects of the workspace, newest change first, at most `limit`.
Whether the SQL does the same on SQLite and PostgreSQL is the database tier's question
(test_own_market.py, test_similar_prospects.py, tests/platform/security).
"""

from __future__ import annotations

import hashlib

from insureops.carrier_matching.market import Market
from insureops.platform.carrier_finder.own.models import WorkspaceCarrier, WorkspaceProduct
from insureops.platform.records.prospects import Prospect
from insureops.platform.records.rule_catalog import CatalogRule

EMPTY = Market((), (), ())


class FakeOwn:
    """`OwnRepository` in memory; the `session` each method receives is ignored."""

    def __init__(self) -> None:
        self.carriers: list[WorkspaceCarrier] = []
        self.products: list[WorkspaceProduct] = []
        self.saves = 0

    def _rows(self, row: WorkspaceCarrier | WorkspaceProduct) -> list:
        return self.carriers if isinstance(row, WorkspaceCarrier) else self.products

    async def own_rows(self, session, workspace_id: str
                       ) -> tuple[list[WorkspaceCarrier], list[WorkspaceProduct]]:
        carriers = sorted((r for r in self.carriers if r.workspace_id == workspace_id),
                          key=lambda r: r.slug)
        if not carriers:
            return [], []
        return carriers, sorted((r for r in self.products if r.workspace_id == workspace_id),
                                key=lambda r: r.slug)

    async def carrier(self, session, workspace_id: str, slug: str) -> WorkspaceCarrier | None:
        return next((r for r in self.carriers
                     if (r.workspace_id, r.slug) == (workspace_id, slug)), None)

    async def product(self, session, workspace_id: str, slug: str) -> WorkspaceProduct | None:
        return next((r for r in self.products
                     if (r.workspace_id, r.slug) == (workspace_id, slug)), None)

    async def carrier_of(self, session, row: WorkspaceProduct) -> WorkspaceCarrier:
        return next(r for r in self.carriers if r.id == row.carrier_id)

    async def add(self, session, row: WorkspaceCarrier | WorkspaceProduct) -> bool:
        rows = self._rows(row)
        if any((r.workspace_id, r.slug) == (row.workspace_id, row.slug) for r in rows):
            return False
        row.id = len(rows) + 1
        rows.append(row)
        return True

    async def saved(self, session, row: WorkspaceCarrier | WorkspaceProduct) -> None:
        assert row in self._rows(row)
        self.saves += 1


class FakeCatalog:
    """`RuleCatalog` in memory: rules by workspace, their sources by version."""

    def __init__(self) -> None:
        self.rules_by: dict[tuple[str, str], CatalogRule] = {}
        self.sources: dict[tuple[str, str, int], str] = {}

    def put(self, workspace_id: str, rule_id: str, *sources: str, kind: str = "appetite",
            published: int | None = None, status: str | None = None) -> str:
        """A rule of `workspace_id` with versions `sources` (1, 2, ...), `published` one of
        them; its name is its first version's ruleset name."""
        for number, source in enumerate(sources, 1):
            self.sources[(workspace_id, rule_id, number)] = source
        published_hash = (hashlib.sha256(sources[published - 1].encode()).hexdigest()
                          if published else None)
        name = sources[0].split()[1]
        self.rules_by[(workspace_id, rule_id)] = CatalogRule(
            rule_id, name, kind, status or ("published" if published else "draft"),
            len(sources), published, published_hash)
        return rule_id

    async def rules(self, session, workspace_id: str, rule_ids) -> dict[str, CatalogRule]:
        return {rule_id: self.rules_by[(workspace_id, rule_id)] for rule_id in rule_ids
                if (workspace_id, rule_id) in self.rules_by}

    async def source(self, session, workspace_id: str, rule_id: str,
                     version: int) -> str | None:
        return self.sources.get((workspace_id, rule_id, version))


class FakeMarketStore:
    """What `MarketStore` answers the own use cases and the view: one stored market for every
    workspace, no candidate index."""

    def __init__(self, market: Market = EMPTY) -> None:
        self.stored = market

    async def market(self, session, workspace_id: str | None = None) -> Market:
        return self.stored

    def index(self, market: Market) -> None:
        return None


class FakeScanProspects:
    """`ScanRepository` in memory: prospects by workspace."""

    def __init__(self) -> None:
        self.rows: dict[str, list[Prospect]] = {}
        self.limits: list[int] = []

    async def workspace_prospects(self, session, workspace_id: str,
                                  limit: int) -> list[Prospect]:
        self.limits.append(limit)
        rows = sorted(self.rows.get(workspace_id, []), key=lambda row: row.id)
        rows.sort(key=lambda row: row.updated_at, reverse=True)
        return rows[:limit]

