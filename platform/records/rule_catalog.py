"""What other areas may know of a workspace's studio rules: the rule catalog port.

The rule studio owns the rules; the carrier finder matches a workspace's published appetite rules
beside the market. Areas never import each other, so the finder asks this protocol, which the
composition root (app.py) fills with the studio's implementation under `RULE_CATALOG`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from sqlalchemy.ext.asyncio import AsyncSession


@dataclass(frozen=True)
class CatalogRule:
    """A rule's state as other areas see it; `published_hash` is the content hash of the
    published version's source (None when nothing is published)."""

    id: str
    name: str
    kind: str
    status: str  # draft, published, archived
    current_version: int
    published_version: int | None
    published_hash: str | None

    @property
    def live_version(self) -> int | None:
        """The version that is in force: the published one, unless archived."""
        return None if self.status == "archived" else self.published_version


class RuleCatalog(Protocol):
    async def rules(self, session: AsyncSession, workspace_id: str,
                    rule_ids: set[str] | frozenset[str]) -> dict[str, CatalogRule]:
        """The workspace's rules among `rule_ids` by id (another workspace's are absent)."""
        ...

    async def source(self, session: AsyncSession, workspace_id: str, rule_id: str,
                     version: int) -> str | None:
        """The source of version `version` of the workspace's rule (None: no such version)."""
        ...
