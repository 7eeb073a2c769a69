"""Run one ruleset on every way the engine can evaluate it, for tests that must see the same
outcome everywhere: the compiled form, plain and explained, the compiled form frozen and thawed
(engine.evaluation.frozen, a cache's), and the reference interpreter, plain and explained."""

from __future__ import annotations

from datetime import date

from engine_ir_builders import build

from insureops.engine.evaluation import frozen
from insureops.engine.inputs.jsonio import dumps
from insureops.engine.ir.errors import EvaluationError

AS_OF = date(2025, 6, 15)
PATHS = ("compiled", "explained", "thawed", "thawed_explained", "interpreter",
         "interpreter_explained")


def compile_paths(ruleset_ir, schemas: dict | None = None) -> dict:
    """path name -> (compiled ruleset, explain flag)."""
    compiled = build(ruleset_ir, schemas)
    thawed = frozen.thaw(frozen.freeze(compiled), lambda: build(ruleset_ir, schemas))
    reference = build(ruleset_ir, schemas, reference=True)
    return {"compiled": (compiled, False), "explained": (compiled, True),
            "thawed": (thawed, False), "thawed_explained": (thawed, True),
            "interpreter": (reference, False), "interpreter_explained": (reference, True)}


def outcome(compiled, inputs: dict, *, explain: bool = False, as_of: date = AS_OF) -> tuple:
    """What one evaluation gave, comparable across paths: the result's JSON text, or the
    error code."""
    try:
        result = compiled.evaluate(inputs, as_of=as_of, explain=explain)
    except EvaluationError as error:
        return ("error", error.code)
    return _described(result)


def every_outcome(paths: dict, inputs: dict) -> dict:
    """path name -> outcome, for `compile_paths`' paths."""
    return {path: outcome(compiled, inputs, explain=explain)
            for path, (compiled, explain) in paths.items()}


def _described(result) -> tuple:
    return ("value", dumps(dict(result.outputs)), result.decision, dumps(result.score),
            tuple(result.fired), tuple(result.tags))


def every_path(ruleset_ir, inputs: dict, schemas: dict | None = None) -> dict:
    """path name -> outcome of evaluating `inputs`."""
    return every_outcome(compile_paths(ruleset_ir, schemas), inputs)


def same_everywhere(ruleset_ir, inputs: dict, schemas: dict | None = None) -> tuple:
    """The one outcome every path gives (an AssertionError showing them all otherwise)."""
    found = every_path(ruleset_ir, inputs, schemas)
    assert len(set(found.values())) == 1, found
    return found["compiled"]
