"""Use cases on a workspace's own carriers and products, and what their appetites are.

An own product's appetite is a rule of the rule studio (kind appetite, same workspace), read
through the rule catalog port (platform/records/rule_catalog.py): its published version is
compiled once per content hash (`CompiledCache`) and laid over the market (carrier_finder/view.py),
so publishing, rolling back or archiving changes what is matched on the next request. A product
whose rule has no usable published version is not matched; `AppetiteState` says why. The use
cases reach the own entries through their port (`store`: the SQL repository by default, a fake
in memory in the fast tests; repository.py).
"""

from __future__ import annotations

import asyncio
import datetime
from collections import OrderedDict
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession

from insureops.carrier_matching.market import (
    Access,
    Appetite,
    Carrier,
    CarrierProfile,
)
from insureops.carrier_matching.sources import appetite_input_problem
from insureops.dsl import CompiledRuleset, RulesetInvalidError, compile_ruleset
from insureops.platform.carrier_finder.market.store import MarketStore
from insureops.platform.carrier_finder.own import repository
from insureops.platform.carrier_finder.own.models import WorkspaceCarrier, WorkspaceProduct
from insureops.platform.carrier_finder.own.repository import OwnRepository
from insureops.platform.compute.executors import BoundedExecutor
from insureops.platform.records.rule_catalog import CatalogRule, RuleCatalog

APPETITE_KIND = "appetite"
UNRATED = "NR"
MAX_COMPILED = 512  # compiled published versions kept per process (least recently used out)
DIRECT = "direct"  # how a workspace reaches its own carriers: it is appointed with them
Store = OwnRepository


class OwnEntryNotFoundError(Exception):
    """No such carrier or product of the session's workspace (another workspace's alike)."""


class OwnEntryTakenError(Exception):
    """The id is taken (by a market carrier, or by the workspace's own entry)."""


class OwnCarrierUnknownError(Exception):
    """A product names a carrier that is not one of the workspace's own."""


class AppetiteRuleInvalidError(Exception):
    """The product's `appetite_rule_id` cannot be its appetite; the message says why."""


@dataclass(frozen=True)
class Actor:
    workspace_id: str
    user_id: str


@dataclass(frozen=True)
class AppetiteState:
    """What matching makes of an own product's rule: `status` published (matched with
    `version`) or why not (unpublished, archived, wrong_kind, wrong_inputs, invalid)."""

    rule_id: str
    name: str | None
    status: str
    version: int | None = None
    reason: str | None = None


@dataclass(frozen=True)
class Compiled:
    """A published version's source compiled: `ruleset`, or why it cannot be an appetite
    (`problem`: status and reason)."""

    source: str
    ruleset: CompiledRuleset | None
    problem: tuple[str, str] | None = None


class CompiledCache:
    """Compiled published versions by content hash (a bounded LRU), shared by the workspaces."""

    def __init__(self, size: int = MAX_COMPILED) -> None:
        self._size = size
        self._items: OrderedDict[str, Compiled] = OrderedDict()
        # Compiles here, one at a time, not on the loop's default threads. The sources are
        # studio versions, each checked, compiled and tested within the rules workers' check
        # budget when it was saved, so one compile here is bounded by that budget too.
        self.threads = BoundedExecutor("appetite-compile", 1)

    def get(self, content_hash: str) -> Compiled | None:
        found = self._items.get(content_hash)
        if found is not None:
            self._items.move_to_end(content_hash)
        return found

    def put(self, content_hash: str, compiled: Compiled) -> None:
        self._items[content_hash] = compiled
        self._items.move_to_end(content_hash)
        while len(self._items) > self._size:
            self._items.popitem(last=False)


def appetite_path(rule_id: str, version: int) -> str:
    """Where an own appetite sits in the market (never a market path: those have no `@`)."""
    return f"@{rule_id}/v{version}"


def _compile(source: str, rule_id: str) -> Compiled:
    try:
        compiled = compile_ruleset(source, filename=f"{rule_id}.rules")
    except RulesetInvalidError as exc:
        return Compiled(source, None, ("invalid",
                                       f"it does not compile ({str(exc).splitlines()[0]})"))
    problem = appetite_input_problem(compiled.ir)
    if problem:
        return Compiled(source, None, ("wrong_inputs", problem))
    return Compiled(source, compiled)


async def appetites(session: AsyncSession, catalog: RuleCatalog | None, cache: CompiledCache,
                     workspace_id: str, rule_ids: set[str]
                     ) -> tuple[dict[str, AppetiteState], dict[str, Appetite]]:
    rules = await catalog.rules(session, workspace_id, rule_ids) if catalog else {}
    states: dict[str, AppetiteState] = {}
    appetites: dict[str, Appetite] = {}
    for rule_id in rule_ids:
        rule = rules.get(rule_id)
        state = _state(rule_id, rule)
        if state.status == "published":
            compiled = cache.get(rule.published_hash)
            if compiled is None:
                source = await catalog.source(session, workspace_id, rule_id, state.version)
                compiled = await cache.threads.run(_compile, source or "", rule_id)
                cache.put(rule.published_hash, compiled)
            if compiled.problem is not None:
                status, reason = compiled.problem
                state = AppetiteState(rule_id, rule.name, status, state.version,
                                      f"Version {state.version} of rule {rule.name} is not "
                                      f"matched: {reason}.")
            else:
                path = appetite_path(rule_id, state.version)
                appetites[rule_id] = Appetite(compiled.ruleset.ir.name, path, compiled.source,
                                              compiled.ruleset)
        states[rule_id] = state
    return states, appetites


def _state(rule_id: str, rule: CatalogRule | None) -> AppetiteState:
    if rule is None:
        return AppetiteState(rule_id, None, "invalid", None,
                             "The appetite rule is not available.")
    if rule.kind != APPETITE_KIND:
        return AppetiteState(rule_id, rule.name, "wrong_kind", None,
                             f"Rule {rule.name} is of kind {rule.kind}, not appetite.")
    if rule.status == "archived":
        return AppetiteState(rule_id, rule.name, "archived", None,
                             f"Rule {rule.name} is archived; no appetite is matched.")
    if rule.live_version is None:
        return AppetiteState(rule_id, rule.name, "unpublished", None,
                             f"Rule {rule.name} has no published version; publish one to "
                             "match this product.")
    return AppetiteState(rule_id, rule.name, "published", rule.live_version)


def core_carrier(row: WorkspaceCarrier) -> Carrier:
    """An own carrier as the core reads it: reached as its `access` says (direct), its type,
    territories and guide dates unknown unless stored."""
    profile = CarrierProfile(row.carrier_type, Access(row.access or DIRECT, row.via), (),
                             row.submission_email, row.submission_portal, row.quote_url,
                             row.guide_effective, row.guide_reviewed)
    return Carrier(row.slug, row.name, row.naic_code or "", row.rating or UNRATED, row.market,
                   frozenset(row.states), row.website, row.active, profile)


# --- changes (admins and owners of the workspace) ---

async def _carrier(session: AsyncSession, workspace_id: str, slug: str,
                   store: Store) -> WorkspaceCarrier:
    return _found(await store.carrier(session, workspace_id, slug), "carrier")


async def _product(session: AsyncSession, workspace_id: str, slug: str,
                   store: Store) -> WorkspaceProduct:
    return _found(await store.product(session, workspace_id, slug), "product")


def _found(row, kind: str):
    if row is None:
        raise OwnEntryNotFoundError(f"No such {kind} of this workspace.")
    return row


async def check_appetite_rule(session: AsyncSession, catalog: RuleCatalog | None,
                              workspace_id: str, rule_id: str) -> CatalogRule:
    """The rule `rule_id` if it may be a product's appetite: a rule of this workspace, of kind
    appetite, not archived, whose current and published versions declare exactly
    `input business: Business`. AppetiteRuleInvalidError says why not."""
    rule = (await catalog.rules(session, workspace_id, {rule_id})).get(rule_id) if catalog \
        else None
    if rule is None:
        raise AppetiteRuleInvalidError(f"No rule {rule_id} in this workspace: create it with "
                                       "POST /api/rules/rules/ (kind appetite) first.")
    if rule.kind != APPETITE_KIND:
        raise AppetiteRuleInvalidError(f"Rule {rule.name} is of kind {rule.kind}; a product's "
                                       "appetite must be a rule of kind appetite.")
    if rule.status == "archived":
        raise AppetiteRuleInvalidError(f"Rule {rule.name} is archived.")
    for number in sorted({rule.current_version, rule.published_version} - {None}):
        source = await catalog.source(session, workspace_id, rule_id, number)
        compiled = await asyncio.to_thread(_compile, source or "", rule_id)
        if compiled.problem is not None:
            raise AppetiteRuleInvalidError(f"Rule {rule.name} cannot be an appetite: in version "
                                           f"{number}, {compiled.problem[1]}.")
    return rule


async def create_carrier(session: AsyncSession, market: MarketStore, actor: Actor, slug: str,
                         values: dict, now: datetime.datetime, *,
                         store: Store = repository) -> WorkspaceCarrier:
    if (await market.market(session, actor.workspace_id)).carrier(slug) is not None:
        raise OwnEntryTakenError(f"The market has a carrier {slug}; choose another id.")
    row = WorkspaceCarrier(workspace_id=actor.workspace_id, slug=slug, active=True,
                           access=DIRECT, created_by=actor.user_id, created_at=now,
                           updated_by=actor.user_id, updated_at=now,
                           market=values.pop("market", None) or "admitted", **values)
    if not await store.add(session, row):
        raise OwnEntryTakenError(f"This workspace has a carrier {slug}.")
    return row


async def update_carrier(session: AsyncSession, actor: Actor, slug: str, values: dict,
                         now: datetime.datetime, *, store: Store = repository) -> WorkspaceCarrier:
    row = await _carrier(session, actor.workspace_id, slug, store)
    await _change(session, row, values, actor, now, store)
    return row


async def _change(session: AsyncSession, row: WorkspaceCarrier | WorkspaceProduct,
                  values: dict, actor: Actor, now: datetime.datetime, store: Store) -> None:
    for key, value in values.items():
        setattr(row, key, value)
    row.updated_by, row.updated_at = actor.user_id, now
    await store.saved(session, row)


async def create_product(session: AsyncSession, catalog: RuleCatalog | None, actor: Actor,
                         carrier_slug: str, code: str, values: dict,
                         now: datetime.datetime, *, store: Store = repository) -> WorkspaceProduct:
    try:
        carrier = await _carrier(session, actor.workspace_id, carrier_slug, store)
    except OwnEntryNotFoundError:
        raise OwnCarrierUnknownError(
            f"{carrier_slug} is not one of this workspace's carriers: add it with POST "
            "/api/v1/carrier_finder/carriers/ first.") from None
    await check_appetite_rule(session, catalog, actor.workspace_id, values["appetite_rule_id"])
    _check_limits(values.get("max_limit"), values.get("max_aggregate"))
    _check_states(values.get("states"), carrier)
    values.setdefault("states", sorted(carrier.states))
    values["admitted"] = values.get("admitted", carrier.market == "admitted")
    row = WorkspaceProduct(workspace_id=actor.workspace_id, carrier_id=carrier.id,
                           slug=f"{carrier.slug}/{code}", active=True, created_by=actor.user_id,
                           created_at=now, updated_by=actor.user_id, updated_at=now,
                           description=values.pop("description", None) or "",
                           minimum_premium=values.pop("minimum_premium", None) or 0, **values)
    if not await store.add(session, row):
        raise OwnEntryTakenError(f"This workspace has a product {row.slug}.")
    return row


async def update_product(session: AsyncSession, catalog: RuleCatalog | None, actor: Actor,
                         slug: str, values: dict, now: datetime.datetime, *,
                         store: Store = repository) -> WorkspaceProduct:
    row = await _product(session, actor.workspace_id, slug, store)
    if values.get("appetite_rule_id") not in (None, row.appetite_rule_id):
        await check_appetite_rule(session, catalog, actor.workspace_id,
                                  values["appetite_rule_id"])
    _check_limits(values.get("max_limit", row.max_limit),
                  values.get("max_aggregate", row.max_aggregate))
    _check_states(values.get("states"), await store.carrier_of(session, row))
    await _change(session, row, values, actor, now, store)
    return row


def _check_limits(max_limit, max_aggregate) -> None:
    if max_limit is not None and max_aggregate is not None and max_aggregate < max_limit:
        raise OwnLimitsError("max_aggregate is below max_limit.")


class OwnLimitsError(Exception):
    """A product's fields disagree: `field` names the one to change."""

    def __init__(self, message: str, field: str = "max_aggregate") -> None:
        super().__init__(message)
        self.field = field


def _check_states(states: list[str] | None, carrier: WorkspaceCarrier) -> None:
    outside = sorted(set(states or ()) - set(carrier.states))
    if outside:
        raise OwnLimitsError(f"names states the carrier does not write in: {', '.join(outside)}",
                             "states")


async def product_state(session: AsyncSession, catalog: RuleCatalog | None,
                        cache: CompiledCache, row: WorkspaceProduct) -> AppetiteState:
    states, _ = await appetites(session, catalog, cache, row.workspace_id,
                                 {row.appetite_rule_id})
    return states[row.appetite_rule_id]


async def carrier_of(session: AsyncSession, row: WorkspaceProduct, *,
                     store: Store = repository) -> WorkspaceCarrier:
    return await store.carrier_of(session, row)
