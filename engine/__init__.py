"""The rules engine: `ir/` (syntax-free IR, values, operators), `evaluation/`, `inputs/`.

The modules of the former flat package stay importable by their old names
(`from insureops.engine import jsonio`), resolved lazily so importing the package costs nothing.
"""

from __future__ import annotations

import importlib
from typing import Any

_MOVED = {
    **dict.fromkeys(
        [
            "values",
            "numbers",
            "printer",
            "errors",
            "limits",
            "result",
            "context",
            "operations",
            "builtins",
            "regex",
            "costs",
            "tree",
        ],
        "ir",
    ),
    **dict.fromkeys(
        [
            "compiler",
            "generator",
            "ruleset_code",
            "runtime",
            "explain",
            "interpreter",
            "selftest",
            "simulation",
        ],
        "evaluation",
    ),
    **dict.fromkeys(["slots", "conversion", "jsonio"], "inputs"),
}


def __getattr__(name: str) -> Any:
    group = _MOVED.get(name)
    if group is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module = importlib.import_module(f"{__name__}.{group}.{name}")
    globals()[name] = module
    return module
