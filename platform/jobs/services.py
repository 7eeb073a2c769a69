"""What jobs are handed: the service's stores and settings, built once per process that runs
jobs (the serve process on the embedded default, each `insureops worker`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from insureops.platform.auth.secret_keys import SecretKeys
    from insureops.platform.compute.heavy_work import HeavyWork
    from insureops.platform.config import Settings
    from insureops.platform.data.database import Database
    from insureops.platform.jobs.engine import JobEngine
    from insureops.platform.tenancy.pools import TenantPools


@dataclass
class JobServices:
    """The platform database, settings, secret keys, tenant pools, the rules workers (None in
    `insureops worker`: a job evaluates in its own process there), the job engine (to enqueue
    more work) and the wall clock (Unix seconds). `extras` holds what an area caches per
    process (keyed by the area's own name)."""

    database: Database
    settings: Settings
    secret_keys: SecretKeys
    tenant_pools: TenantPools
    jobs: JobEngine
    heavy_work: HeavyWork | None
    clock: Callable[[], float]
    extras: dict[str, Any]
    closers: list[Callable[[], None]] = field(default_factory=list)

    def close(self) -> None:
        """Release what the areas opened for their jobs (engines, threads), newest first."""
        while self.closers:
            self.closers.pop()()
