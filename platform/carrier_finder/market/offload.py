"""Where the finder's matching runs: the service's matching threads, admitted per workspace,
ahead of the market's start-up warm-up (which pauses while a match runs)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, cast

from insureops.platform.carrier_finder.market.service import Offload
from insureops.platform.carrier_finder.market.store import MarketStore
from insureops.platform.http.routing import Call
from insureops.platform.keys import MARKET_STORE, MATCHING_WORK


def matching(call: Call) -> Offload:
    """Runs a match for the caller's workspace (429 workspace_busy past its share)."""
    run = functools.partial(call.request.config_dict[MATCHING_WORK].run,
                            call.principal.active_workspace_id)
    store = cast(MarketStore, call.request.config_dict[MARKET_STORE])

    async def first(work: Callable[[], Any]) -> Any:
        with store.matching():
            return await run(work)
    return first
