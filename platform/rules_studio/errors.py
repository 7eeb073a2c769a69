"""Domain errors of the rule studio, each with a stable code (mapped to HTTP in routes.py)."""

from __future__ import annotations


class RulesStudioError(Exception):
    """Root of the rule studio's errors."""

    code = "rules_studio_error"


class RuleNotFoundError(RulesStudioError):
    """No rule with this id in the active workspace (another workspace's rules included)."""

    code = "not_found"


class VersionNotFoundError(RulesStudioError):
    """The rule has no version of this number."""

    code = "version_not_found"


class RuleNameTakenError(RulesStudioError):
    """Another rule of the workspace already holds this ruleset name."""

    code = "conflict"


class StaleVersionError(RulesStudioError):
    """If-Match named a version that is no longer the current one (someone saved meanwhile)."""

    code = "version_conflict"


class RuleArchivedError(RulesStudioError):
    """The rule is archived: it can be read, not changed or executed."""

    code = "rule_archived"


class InvalidCursorError(RulesStudioError):
    """A `cursor` the service did not issue."""

    code = "validation_error"


class TestsFailingError(RulesStudioError):
    """A version whose embedded tests failed cannot be published."""

    __test__ = False  # not a pytest test class
    code = "tests_failing"


class PublishRequestError(RulesStudioError):
    """A PATCH that both publishes a version and withdraws publication."""

    code = "validation_error"


class ApprovalRequiredError(RulesStudioError):
    """The workspace requires four eyes: publish through an approval request."""

    code = "approval_required"


class SelfApprovalError(RulesStudioError):
    """The version's author cannot approve it under four eyes."""

    code = "self_approval"


class ApprovalNotFoundError(RulesStudioError):
    """No approval request with this id for this rule."""

    code = "not_found"


class ApprovalStateError(RulesStudioError):
    """The approval request was decided already, or one for this version is pending."""

    code = "invalid_transition"


class RuleChangedError(RulesStudioError):
    """Another request changed the rule's state (published, withdrew, archived it or saved a
    version) between this request's read and its write: it lost the race (issue 28)."""

    code = "conflict"


class ApprovalDecidedError(RulesStudioError):
    """Another request decided the approval request between this request's read and its
    decision: it lost the race (issue 28)."""

    code = "conflict"


class SimulationTooLargeError(RulesStudioError):
    """More cases than one request may simulate: use the CLI for large sets."""

    code = "simulation_too_large"


class SimulationTooSlowError(RulesStudioError):
    """The simulation did not finish within the request's time budget: use the CLI."""

    code = "simulation_too_slow"


class RuleNotPublishedError(RulesStudioError):
    """The rule has no published version to execute."""

    code = "rule_not_published"


class ExecutionNotFoundError(RulesStudioError):
    """No execution with this id in the rule's log."""

    code = "not_found"


class EvaluationFailedError(RulesStudioError):
    """The published version could not be evaluated on these inputs (logged all the same)."""

    code = "evaluation_failed"

    def __init__(self, message: str, engine_code: str, execution_id: int) -> None:
        super().__init__(message)
        self.engine_code = engine_code
        self.execution_id = execution_id


class RecordNotApplicableError(RulesStudioError):
    """The ruleset has no single input a client or policy record can be given to."""

    code = "record_not_applicable"


class CaseSetNotFoundError(RulesStudioError):
    """No case set with this id for this rule (another workspace's included)."""

    code = "not_found"


class CaseSetNameTakenError(RulesStudioError):
    """Another case set of the rule has this name."""

    code = "conflict"


class CaseSetTooLargeError(RulesStudioError):
    """More cases, or more bytes of them, than one saved case set may hold."""

    code = "case_set_too_large"


class CaseSetLimitError(RulesStudioError):
    """The rule has as many case sets as it may have."""

    code = "case_set_limit"


class PreconditionRequiredError(RulesStudioError):
    """A change by API key must name the version it is based on (If-Match)."""

    code = "precondition_required"
class BindingNotFoundError(RulesStudioError):
    """No such binding in the workspace."""


class RunNotFoundError(RulesStudioError):
    """No such book run in the workspace."""


class RunFinishedError(RulesStudioError):
    """The run has finished; it cannot be cancelled."""


class RunTooLargeError(RulesStudioError):
    """The book holds more records than one run may cover."""


class RunsBusyError(RulesStudioError):
    """The workspace already has its share of runs queued or running."""


class FailureNotFoundError(RulesStudioError):
    """The binding or run recorded no failure of this record (or it is not the workspace's)."""
