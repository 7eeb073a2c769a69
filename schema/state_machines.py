"""State machines of claims, policies, invoices and tasks, declared as data, and their checks.

The specification names the states only; the moves are the design's decision (DESIGN.md, "State
machines"). Tasks keep a free-text status in the database; the values here are the documented ones.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from types import MappingProxyType

from insureops.schema.errors import InvalidTransitionError, MissingFieldError


@dataclass(frozen=True)
class StateMachine:
    """States, the allowed next states of each, the initial state; final states have no moves."""

    resource: str
    field: str
    initial: str
    transitions: Mapping[str, frozenset[str]]

    @property
    def states(self) -> tuple[str, ...]:
        return tuple(self.transitions)

    @property
    def final_states(self) -> frozenset[str]:
        return frozenset(state for state, moves in self.transitions.items() if not moves)

    def allowed(self, state: str) -> tuple[str, ...]:
        """The states reachable from `state` in one move, in declaration order."""
        moves = self.transitions.get(state, frozenset())
        return tuple(s for s in self.transitions if s in moves)


def _machine(resource: str, field: str, initial: str, moves: dict[str, str]) -> StateMachine:
    return StateMachine(resource, field, initial, MappingProxyType(
        {state: frozenset(targets.split()) for state, targets in moves.items()}))


CLAIM = _machine("claim", "status", "open", {
    "open": "pending_info under_review approved denied litigated closed",
    "pending_info": "under_review closed",
    "under_review": "pending_info approved denied litigated",
    "approved": "closed litigated",
    "denied": "closed litigated",
    "litigated": "approved denied closed",
    "closed": "open",  # a reopen
})

POLICY = _machine("policy", "status", "quote", {
    "quote": "pending bound declined",
    "pending": "bound declined",
    "bound": "active cancelled unpaid",
    "active": "expired cancelled unpaid completed",
    "unpaid": "active cancelled",
    "cancelled": "active",  # reinstatement
    "expired": "",
    "declined": "",
    "completed": "",
})

INVOICE = _machine("invoice", "status", "draft", {
    "draft": "invoiced void",
    "invoiced": "part_paid paid void",
    "part_paid": "paid void",
    "paid": "refunded chargeback",
    "void": "",
    "refunded": "",
    "chargeback": "",
})

# Tasks: a decision of this project (the specification leaves the values open).
TASK = _machine("task", "status", "open", {
    "open": "in_progress done cancelled",
    "in_progress": "open done cancelled",
    "done": "open",
    "cancelled": "open",
})

MACHINES: MappingProxyType[str, StateMachine] = MappingProxyType(
    {"claims": CLAIM, "policies": POLICY, "invoices": INVOICE, "tasks": TASK})


def validate_transition(machine: StateMachine, old: str | None, new: str) -> None:
    """Raise InvalidTransitionError unless `old -> new` is a move of `machine`.

    `old` None means creation: only the initial state is allowed. `old == new` is no change and
    is accepted (it records nothing).
    """
    if old is None:
        if new != machine.initial:
            raise InvalidTransitionError(machine.resource, machine.field, None, new,
                                         (machine.initial,))
        return
    unknown = new not in machine.transitions
    if unknown or (old != new and new not in machine.transitions.get(old, frozenset())):
        raise InvalidTransitionError(machine.resource, machine.field, old, new,
                                     machine.allowed(old))


def is_reopen(old: str | None, new: str) -> bool:
    """A claim going from closed back to open."""
    return old == "closed" and new == "open"


def plan_claim_status_change(claim: Mapping[str, object], new_status: str, *, at: datetime,
                             closure_reason: str | None = None) -> dict[str, object]:
    """The column values a claim takes when its status moves to `new_status` at time `at`.

    Validates the move; closing needs a closure_reason (given now, non-blank); a reopen adds one
    to reopen_count, sets reopened_last_at and clears the old closure_reason.
    """
    old = claim.get("status")
    validate_transition(CLAIM, old, new_status)  # type: ignore[arg-type]
    values: dict[str, object] = {"status": new_status}
    if new_status == "closed" and old != "closed":
        if closure_reason is None or not closure_reason.strip():
            raise MissingFieldError("claim.closure_reason: closing a claim needs a closure_reason",
                                    field="closure_reason")
        values["closure_reason"] = closure_reason
    if is_reopen(old, new_status):  # type: ignore[arg-type]
        values["reopen_count"] = int(claim.get("reopen_count") or 0) + 1  # type: ignore[call-overload]
        values["reopened_last_at"] = at
        values["closure_reason"] = None
    return values
