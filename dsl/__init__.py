"""The rules language's public surface: check and compile rulesets, and their result and error types.

    from insureops.dsl import compile_ruleset, check_source, EvaluationError

Names are loaded on first use (PEP 562), so `import insureops.dsl` stays cheap: the parser
(lark) and the engine load only when one of them is asked for.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

# public name -> the module that defines it
_EXPORTS = {
    "compile_ruleset": "insureops.dsl.api",
    "check_source": "insureops.dsl.api",
    "parse_ruleset": "insureops.dsl.api",
    "CheckReport": "insureops.dsl.api",
    "RulesetCache": "insureops.dsl.api",
    "default_cache": "insureops.dsl.api",
    "Diagnostic": "insureops.dsl.diagnostics",
    "DslError": "insureops.dsl.errors",
    "RulesetInvalidError": "insureops.dsl.errors",
    "CompiledRuleset": "insureops.engine.evaluation.compiler",
    "BatchItem": "insureops.engine.evaluation.compiler",
    "Result": "insureops.engine.ir.result",
    "TestOutcome": "insureops.engine.ir.result",
    "Limits": "insureops.engine.ir.limits",
    "EngineError": "insureops.engine.ir.errors",
    "EvaluationError": "insureops.engine.ir.errors",
    "LimitExceededError": "insureops.engine.ir.errors",
}
__all__ = [  # the keys of _EXPORTS (a test checks), spelled out for tools that read them
    "BatchItem", "CheckReport", "CompiledRuleset", "Diagnostic", "DslError", "EngineError",
    "EvaluationError", "LimitExceededError", "Limits", "Result", "RulesetCache",
    "RulesetInvalidError", "TestOutcome", "check_source", "compile_ruleset", "default_cache",
    "parse_ruleset",
]

if TYPE_CHECKING:
    from insureops.dsl.api import (
        CheckReport,
        RulesetCache,
        check_source,
        compile_ruleset,
        default_cache,
        parse_ruleset,
    )
    from insureops.dsl.diagnostics import Diagnostic
    from insureops.dsl.errors import DslError, RulesetInvalidError
    from insureops.engine.evaluation.compiler import BatchItem, CompiledRuleset
    from insureops.engine.ir.errors import EngineError, EvaluationError, LimitExceededError
    from insureops.engine.ir.limits import Limits
    from insureops.engine.ir.result import Result, TestOutcome


def __getattr__(name: str) -> object:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value  # later lookups find it directly
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
