"""Run one ruleset on every evaluation path the engine has, for tests that must see the same
outcome everywhere: the closures (a ruleset's first untraced evaluations), the generated code
(after the warm-up tier), the direct path on the raw input (when it decides the input rather
than fall back), the explanation (traced closures), and the reference interpreter, plain and
explained."""

from __future__ import annotations

from datetime import date

from engine_ir_builders import build

from insureops.engine.evaluation.compiler import GENERATE_AFTER, compile_ir
from insureops.engine.evaluation.direct import FALLBACK
from insureops.engine.inputs.jsonio import dumps
from insureops.engine.ir.errors import EvaluationError

AS_OF = date(2025, 6, 15)
PATHS = ("closures", "generated", "explained", "interpreter", "interpreter_explained")


def compile_paths(ruleset_ir, schemas: dict | None = None) -> dict:
    """path name -> (compiled ruleset, explain flag). "generated" is compiled as a service
    compiles (`compile_ir` defaults) and warmed up past `GENERATE_AFTER` before use."""
    declared = {d.name: (schemas or {}).get(d.name) for d in ruleset_ir.inputs}
    generated = compile_ir(ruleset_ir, input_schemas=declared)
    return {"closures": (build(ruleset_ir, schemas, generate_after=10**9), False),
            "generated": (generated, False),
            "explained": (build(ruleset_ir, schemas, generate_after=10**9), True),
            "interpreter": (build(ruleset_ir, schemas, reference=True), False),
            "interpreter_explained": (build(ruleset_ir, schemas, reference=True), True)}


def outcome(compiled, inputs: dict, *, explain: bool = False, as_of: date = AS_OF,
            generated: bool = False) -> tuple:
    """What one evaluation gave, comparable across paths: the result's JSON text, or the
    error code. `generated`: through the generated code without the direct path."""
    evaluate = compiled._evaluate if generated else compiled.evaluate
    try:
        result = evaluate(inputs, as_of=as_of, explain=explain)
    except EvaluationError as error:
        return ("error", error.code)
    return _described(result)


def direct_outcome(compiled, inputs: dict, *, as_of: date = AS_OF) -> tuple | None:
    """The outcome of the direct path alone (`direct.py`), None when it falls back."""
    try:
        result = compiled._direct(inputs, as_of)
    except FALLBACK:
        return None
    return _described(result)


def every_outcome(paths: dict, inputs: dict) -> dict:
    """path name -> outcome, for `compile_paths`' paths once warmed up; "direct" only when
    the direct path exists and decides the input."""
    found = {}
    for path, (compiled, explain) in paths.items():
        found[path] = outcome(compiled, inputs, explain=explain,
                              generated=path == "generated")
        if path == "generated" and compiled._direct is not None:
            direct = direct_outcome(compiled, inputs)
            if direct is not None:
                found["direct"] = direct
    return found


def _described(result) -> tuple:
    return ("value", dumps(result.outputs), result.decision, dumps(result.score),
            tuple(result.fired), tuple(result.tags))


def every_path(ruleset_ir, inputs: dict, schemas: dict | None = None) -> dict:
    """path name -> outcome of evaluating `inputs`; the generated path after its warm-up."""
    paths = compile_paths(ruleset_ir, schemas)
    generated = paths["generated"][0]
    for _ in range(GENERATE_AFTER + 1):
        outcome(generated, inputs)
    assert callable(generated._generated)
    return every_outcome(paths, inputs)


def same_everywhere(ruleset_ir, inputs: dict, schemas: dict | None = None) -> tuple:
    """The one outcome every path gives (an AssertionError showing them all otherwise)."""
    found = every_path(ruleset_ir, inputs, schemas)
    assert len(set(found.values())) == 1, found
    return found["closures"]
