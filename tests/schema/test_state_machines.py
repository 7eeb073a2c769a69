"""The state machines of DESIGN.md, as data, and the checks every update path uses."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from insureops.schema.enums import ENUMS
from insureops.schema.errors import InvalidTransitionError, MissingFieldError
from insureops.schema.state_machines import (
    CLAIM,
    INVOICE,
    MACHINES,
    POLICY,
    TASK,
    plan_claim_status_change,
    validate_transition,
)

DESIGN = {
    "claim": "open>pending_info,under_review,approved,denied,litigated,closed "
           "pending_info>under_review,closed under_review>pending_info,approved,denied,litigated "
           "approved>closed,litigated denied>closed,litigated litigated>approved,denied,closed "
           "closed>open",
    "policy": "quote>pending,bound,declined pending>bound,declined bound>active,cancelled,unpaid "
            "active>expired,cancelled,unpaid,completed unpaid>active,cancelled cancelled>active",
    "invoice": "draft>invoiced,void invoiced>part_paid,paid,void part_paid>paid,void "
             "paid>refunded,chargeback",
}


def _moves(machine) -> set[tuple[str, str]]:
    pairs = set()
    for part in DESIGN[machine.resource].split():
        source, targets = part.split(">")
        pairs |= {(source, target) for target in targets.split(",")}
    return pairs


ALL_PAIRS = [(m, a, b) for m in (CLAIM, POLICY, INVOICE) for a in m.states for b in m.states
             if a != b]


@pytest.mark.parametrize(("machine", "old", "new"), ALL_PAIRS,
                         ids=[f"{m.resource}:{a}->{b}" for m, a, b in ALL_PAIRS])
def test_transition_is_allowed_exactly_when_design_lists_it(machine, old, new):
    if (old, new) in _moves(machine):
        validate_transition(machine, old, new)
        return
    with pytest.raises(InvalidTransitionError) as caught:
        validate_transition(machine, old, new)
    assert (caught.value.code, caught.value.field) == ("invalid_transition", "status")
    assert caught.value.allowed == machine.allowed(old)
    assert f"{old!r} to {new!r}" in caught.value.message


@pytest.mark.parametrize(("machine", "enum_name"), [(CLAIM, "claim_status"),
                                                    (POLICY, "policy_status"),
                                                    (INVOICE, "billing_status")])
def test_machine_states_are_the_enumeration_when_declared(machine, enum_name):
    assert set(machine.states) == set(ENUMS[enum_name])


def test_final_states_are_those_without_moves_when_listed():
    assert POLICY.final_states == {"expired", "declined", "completed"}
    assert INVOICE.final_states == {"void", "refunded", "chargeback"}
    assert CLAIM.final_states == frozenset() and TASK.final_states == frozenset()


@pytest.mark.parametrize("machine", list(MACHINES.values()), ids=list(MACHINES))
def test_creation_is_allowed_only_in_the_initial_state(machine):
    validate_transition(machine, None, machine.initial)
    other = next(state for state in machine.states if state != machine.initial)
    with pytest.raises(InvalidTransitionError):
        validate_transition(machine, None, other)


def test_unknown_state_is_refused_when_given_as_target():
    with pytest.raises(InvalidTransitionError, match="'bogus'"):
        validate_transition(POLICY, "quote", "bogus")


def test_same_state_is_accepted_as_no_change():
    validate_transition(INVOICE, "paid", "paid")


AT = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


def test_closing_needs_a_closure_reason_when_planned():
    with pytest.raises(MissingFieldError) as caught:
        plan_claim_status_change({"status": "approved"}, "closed", at=AT, closure_reason="  ")
    assert caught.value.field == "closure_reason"
    assert plan_claim_status_change({"status": "approved"}, "closed", at=AT,
                                    closure_reason="paid in full") == {
        "status": "closed", "closure_reason": "paid in full"}


def test_reopen_counts_up_and_stamps_the_time_when_closed_goes_to_open():
    claim = {"status": "closed", "reopen_count": 2, "closure_reason": "paid"}
    assert plan_claim_status_change(claim, "open", at=AT) == {
        "status": "open", "reopen_count": 3, "reopened_last_at": AT, "closure_reason": None}


def test_plan_is_refused_when_the_move_is_illegal():
    with pytest.raises(InvalidTransitionError):
        plan_claim_status_change({"status": "closed"}, "approved", at=AT)
