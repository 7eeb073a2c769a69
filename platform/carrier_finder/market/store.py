"""The stored market as a carrier_matching Market, appetites compiled once per content hash."""

from __future__ import annotations

import asyncio
import gc
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from decimal import Decimal

from sqlalchemy.ext.asyncio import AsyncSession

from insureops.carrier_matching.checking import check_appetite
from insureops.carrier_matching.compiled import AppetiteCache, LazyRuleset
from insureops.carrier_matching.market import (
    Access,
    Appetite,
    Carrier,
    CarrierProfile,
    Intermediary,
    Market,
    Product,
    Territory,
)
from insureops.carrier_matching.matching import CandidateIndex
from insureops.dsl import compile_ruleset
from insureops.platform.carrier_finder.market import repository
from insureops.platform.carrier_finder.market.models import (
    MarketAppetite,
    MarketCarrier,
    MarketIntermediary,
    MarketProduct,
)
from insureops.platform.compute.executors import BoundedExecutor


class MarketStore:
    """Per process: compiled appetites by content hash, and the newest Market per workspace with
    the fingerprint (row counts and last changes) it was read at."""

    def __init__(self, index_builder: Callable[[tuple[Appetite, ...]], CandidateIndex] | None
                 = None, cache: AppetiteCache | None = None) -> None:
        # carrier_matching.pruning.build_candidate_index once it exists; None: no pruning
        self._index_builder = index_builder
        # checked appetites and compiled code kept by content between runs (appetite_cache.py)
        self._cache = cache
        self._indexes: dict[int, tuple[Market, CandidateIndex]] = {}
        self._compiled: dict[str, LazyRuleset] = {}
        self._snapshots: dict[str | None, tuple[tuple, Market]] = {}
        self._versions: dict[str, int] = {}  # content hash -> stored version
        self._lock = asyncio.Lock()
        self.warming: set[asyncio.Task] = set()  # the start-up warm-up (startup.warm_market)
        self.threads = BoundedExecutor("market", 1)  # reads' compiles and indexes, in turn
        # the warm-up's compiling of every appetite: its own thread, so a request's read and
        # index never queue behind it (a request compiles the few appetites it evaluates)
        self.warm_threads = BoundedExecutor("market-warm", 1)
        self._matches = 0  # matches running now: the warm-up waits for them (`matching`)
        self.stopping = False  # set on shutdown: the warm-up's compiling stops between appetites

    def index(self, market: Market) -> CandidateIndex | None:
        """The candidate index of `market` (built once per snapshot), or None without pruning."""
        if self._index_builder is None:
            return None
        found = self._indexes.get(id(market))
        if found is None or found[0] is not market:
            kept = getattr(self._cache, "index", None)  # read back by content when it can
            built = (kept(market.appetites, self._index_builder) if kept is not None
                     else self._index_builder(market.appetites))
            found = self._indexes[id(market)] = (market, built)
            if len(self._indexes) > 2 * max(1, len(self._snapshots)):  # drop replaced snapshots
                # the market indexed now may not be published yet: keep it too
                live = {id(m) for _, m in self._snapshots.values()} | {id(market)}
                self._indexes = {k: v for k, v in self._indexes.items() if k in live}
        return found[1]

    def version(self, content_hash: str) -> int:
        """The stored version of the appetite with this content (read with the market)."""
        return self._versions.get(content_hash, 1)

    def compiled(self, content_hash: str, source: str, path: str) -> LazyRuleset:
        """The appetite's ruleset, compiled when first evaluated: from the cache when it knows
        the source, else parsed and checked once here (and offered to the cache)."""
        found = self._compiled.get(content_hash)
        if found is None:
            checked = self._cache.get(source, path) if self._cache is not None else None
            if checked is None:
                checked, _ = check_appetite(path, source)
                if checked is None:  # stored checked; a newer checker refuses it: say why
                    compile_ruleset(source, filename=path)
                    raise ValueError(f"appetite {path} no longer checks")
                if self._cache is not None:
                    self._cache.put(source, checked)
            found = self._compiled[content_hash] = checked.ruleset
        return found

    @contextmanager
    def matching(self) -> Iterator[None]:
        """Around a match (on the event loop): while one runs, the warm-up pauses between
        appetites, so it does not take the interpreter from the match."""
        self._matches += 1
        try:
            yield
        finally:
            self._matches -= 1

    def compile_all(self, market: Market, pause: float = 0.005) -> int:
        """Compile every appetite of `market` not compiled yet (the service does this after
        start, so the first match after a restart is as fast as any other), pausing while a
        match runs; how many."""
        count = 0
        for appetite in market.appetites:
            ruleset = appetite.ruleset
            while self._matches and not self.stopping:
                time.sleep(pause)
            if self.stopping:
                break
            if isinstance(ruleset, LazyRuleset) and not ruleset.is_compiled:
                ruleset.compiled  # noqa: B018 - compiles it
                # the code lives as long as the market: out of the collector's passes, which
                # otherwise scan all of it again each time the heap grows by a quarter
                gc.freeze()
                count += 1
        return count

    async def market(self, session: AsyncSession, workspace_id: str | None = None) -> Market:
        """The market `workspace_id` sees (the shared one with its own entries). A workspace
        without entries of its own sees what the shared snapshot has (its fingerprint is the
        shared one's): that snapshot and its index, not a copy read and indexed again."""
        fingerprint = await repository.fingerprint(session, workspace_id)
        found = self._known(workspace_id, fingerprint)
        if found is not None:
            return found
        async with self._lock:
            found = self._known(workspace_id, fingerprint)  # read while this one waited
            if found is not None:
                return found
            market = await self._read(session, workspace_id)
            # the candidate index analyses every appetite (seconds for thousands): off the loop
            await self.threads.run(self.index, market)
            self._snapshots[workspace_id] = (fingerprint, market)
        return market

    def _known(self, workspace_id: str | None, fingerprint: tuple) -> Market | None:
        for key in (workspace_id, None) if workspace_id is not None else (None,):
            known = self._snapshots.get(key)
            if known is not None and known[0] == fingerprint:
                return known[1]
        return None

    async def _read(self, session: AsyncSession, workspace_id: str | None) -> Market:
        appetite_rows, carrier_rows, product_rows = await repository.visible_rows(
            session, workspace_id)
        # compiling is CPU work: off the event loop, once per content hash
        missing = [row for row in appetite_rows if row.content_hash not in self._compiled]
        if missing:
            await self.threads.run(self._compile_all, missing)
        self._versions.update((row.content_hash, row.version) for row in appetite_rows)
        appetites = {row.id: Appetite(row.name, row.path, row.source,
                                      self._compiled[row.content_hash]) for row in appetite_rows}
        carriers = {row.id: _carrier(row) for row in carrier_rows}
        products = []
        for row in product_rows:
            carrier, appetite = carriers.get(row.carrier_id), appetites.get(row.appetite_id)
            if carrier is None or appetite is None:
                continue
            products.append(_product(row, carrier.id, appetite.path))
        intermediaries = {row.slug: _intermediary(row)  # a workspace's own hides the shared one
                          for row in sorted(await repository.visible_intermediaries(
                              session, workspace_id), key=lambda r: r.workspace_id is not None)}
        return Market(tuple(carriers.values()), tuple(products), tuple(appetites.values()),
                      tuple(intermediaries.values()))

    def _compile_all(self, rows: list[MarketAppetite]) -> None:
        for row in rows:
            self.compiled(row.content_hash, row.source, row.path)


def _carrier(row: MarketCarrier) -> Carrier:
    profile = None
    if row.carrier_type and row.access and row.guide_effective and row.guide_reviewed:
        territories = tuple(Territory(t["name"], frozenset(t["states"]), t["underwriter"],
                                      t["email"], t.get("phone"))
                            for t in row.territories or ())
        profile = CarrierProfile(row.carrier_type, Access(row.access, row.via), territories,
                                 row.submission_email, row.submission_portal, row.quote_url,
                                 row.guide_effective, row.guide_reviewed)
    return Carrier(row.slug, row.name, row.naic_code, row.rating, row.market,
                   frozenset(row.states), row.website, row.active, profile)


def _product(row: MarketProduct, carrier_id: str, appetite: str) -> Product:
    return Product(row.slug, carrier_id, row.line, row.name, row.description,
                   frozenset(row.states), _amount(row.minimum_premium), _amount(row.max_limit),
                   _amount(row.max_aggregate), row.admitted, appetite, row.active,
                   row.strength, Access(row.access, row.via) if row.access else None,
                   row.quote_url)


def _intermediary(row: MarketIntermediary) -> Intermediary:
    return Intermediary(row.slug, row.name, row.kind, frozenset(row.states), row.contact,
                        row.email, row.phone, row.portal)


def _amount(value: Decimal | None) -> Decimal | None:
    if value is None:
        return None
    return Decimal(int(value)) if value == value.to_integral_value() else value
