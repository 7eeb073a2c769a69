"""The rule studio's side of the rule catalog port (platform/records/rule_catalog.py): read-only
lookups of a workspace's rules for other areas (the carrier finder's workspace appetites)."""

from __future__ import annotations

from sqlalchemy import and_, select
from sqlalchemy.ext.asyncio import AsyncSession

from insureops.platform.records.rule_catalog import CatalogRule
from insureops.platform.rules_studio.models import Rule, RuleVersion


class StudioRuleCatalog:
    async def rules(self, session: AsyncSession, workspace_id: str,
                    rule_ids: set[str] | frozenset[str]) -> dict[str, CatalogRule]:
        if not rule_ids:
            return {}
        statement = (
            select(Rule.id, Rule.name, Rule.kind, Rule.status, Rule.current_version,
                   Rule.published_version, RuleVersion.content_hash)
            .outerjoin(RuleVersion, and_(RuleVersion.rule_id == Rule.id,
                                         RuleVersion.number == Rule.published_version))
            .where(Rule.workspace_id == workspace_id, Rule.id.in_(sorted(rule_ids))))
        return {row[0]: CatalogRule(*row) for row in (await session.execute(statement)).all()}

    async def source(self, session: AsyncSession, workspace_id: str, rule_id: str,
                     version: int) -> str | None:
        statement = (select(RuleVersion.source).join(Rule, Rule.id == RuleVersion.rule_id)
                     .where(Rule.workspace_id == workspace_id, RuleVersion.rule_id == rule_id,
                            RuleVersion.number == version))
        return (await session.execute(statement)).scalar_one_or_none()
