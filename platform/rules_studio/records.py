"""Which input of a ruleset a tenant record (a client or a policy) is given to."""

from __future__ import annotations

from insureops.dsl import CompiledRuleset
from insureops.platform.rules_studio.errors import RecordNotApplicableError

RECORD_TYPES = {"client": "Client", "policy": "Policy"}


def record_input(compiled: CompiledRuleset, record_type: str) -> str:
    """The input a client or policy record is given to: the ruleset's only input, declared
    as that type or as Any."""
    inputs = compiled.ir.inputs
    if len(inputs) != 1 or inputs[0].type_name not in (RECORD_TYPES[record_type], "Any"):
        raise RecordNotApplicableError(
            f"A {record_type} record can be given to a ruleset with one input of type "
            f"{RECORD_TYPES[record_type]} (or Any); this one declares "
            f"{', '.join(f'{d.name}: {d.type_name}' for d in inputs) or 'none'}. Pass inputs.")
    return inputs[0].name
