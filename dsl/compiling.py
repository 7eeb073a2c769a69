"""From checked IR to a compiled ruleset, without the parser: what a cached check compiles.

`CheckedRuleset` is what the checker hands the engine: the ruleset's IR and the JSON schema of
each declared input. A caller may keep it (the CLI keeps one per rules file as data, see
engine/ir/data.py and platform/cli/ruleset_cache.py) and compile it later with
`compile_checked`, which imports the engine but not lark.
"""

from __future__ import annotations

from typing import NamedTuple

from insureops.dsl.diagnostics import error
from insureops.dsl.errors import RulesetInvalidError
from insureops.engine import ir


class CheckedRuleset(NamedTuple):
    """A ruleset that passed the checker, and the schemas of its typed inputs."""

    ruleset: ir.Ruleset
    schemas: dict  # input name -> JSON schema (None for `Any`)


def compile_checked(checked: CheckedRuleset, *, source: str, filename: str):
    """The compiled ruleset of `checked`; a limit the checker leaves to the engine (a const
    that cannot be computed, an expression nested too deeply) is a RulesetInvalidError."""
    from insureops.engine.evaluation.compiler import compile_ir
    from insureops.engine.ir.errors import EngineError

    try:
        return compile_ir(checked.ruleset, input_schemas=checked.schemas)
    except EngineError as exc:  # the checker reports these first; never a bare engine error
        code = {"invalid_const": "E115", "limit_expression_depth": "E007"}.get(exc.code)
        if code is None:
            raise
        raise RulesetInvalidError([error(code, exc.span, exc.message)], source,
                                  filename) from None
