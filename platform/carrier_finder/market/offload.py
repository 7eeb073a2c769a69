"""Where the finder's matching runs: the service's matching threads, admitted per workspace."""

from __future__ import annotations

import functools

from insureops.platform.carrier_finder.market.service import Offload
from insureops.platform.http.routing import Call
from insureops.platform.keys import MATCHING_WORK


def matching(call: Call) -> Offload:
    """Runs a match for the caller's workspace (429 workspace_busy past its share)."""
    return functools.partial(call.request.config_dict[MATCHING_WORK].run,
                             call.principal.active_workspace_id)
