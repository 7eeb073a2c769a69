"""Tenant records (a client or a policy) as the studio names them, and which input of a ruleset
one is given to."""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from insureops.dsl import CompiledRuleset
from insureops.platform.rules_studio.errors import RecordNotApplicableError

RECORD_TYPES = {"client": "Client", "policy": "Policy", "claim": "Claim",
                "uw_submission": "UwSubmission"}


@dataclass(frozen=True)
class RecordRef:
    type: str  # client or policy
    uuid: uuid.UUID


# Reads clients and policies of the workspace's tenant database, in the order asked
# (RecordMissingError for a missing one, TenantDatabaseUnavailableError when it is down).
RecordReader = Callable[[list[RecordRef]], Awaitable[list[dict]]]


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
