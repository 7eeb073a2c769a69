"""The one list of MCP tools: each a tenant API (MCP v2) operation, with its input schema.

The local stdio server (platform/mcp_server) and the service's endpoint at /mcp/ (platform/mcp)
both serve this list. A tool names its v2 operation (method, full path) and scope, the route's
scope (a test holds them equal); its arguments model, whose JSON Schema is the input schema, is
built from the operation's own path, query and body models, so a tool validates as the HTTP API
does. `Tool.request` turns arguments into the operation's path, query string and body.

`book` marks operations on the tenant's own records (clients, policies, tasks, submissions,
scores): the local server runs those on DATABASE_URL and sends the service nothing of them
(custody, spec items 1-3); other tools are service operations, which it asks of the service
with the key.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, create_model

from insureops.platform.auth.requirements import Scope
from insureops.platform.carrier_finder.market.payloads import (
    ClassifyRequest,
    MatchRequest,
    SearchRequest,
)
from insureops.platform.prospects.payloads import ListQuery as ProspectListQuery
from insureops.platform.rules_studio.payloads import (
    ULID_PATTERN,
    ExecuteRequest,
    ExecutionListQuery,
    ExecutionPath,
    RuleListQuery,
    SimulateRequest,
    VersionQuery,
)
from insureops.platform.rules_studio.work.payloads import (
    BindingPath,
    RunCreate,
    RunListQuery,
    RunPath,
)
from insureops.platform.tenancy.book.payloads import (
    ClientCreate,
    ClientListQuery,
    ClientUpdate,
    PolicyCreate,
    PolicyListQuery,
    PolicyUpdate,
    TaskListQuery,
    UwScoreListQuery,
    UwSubmissionCreate,
    UwSubmissionListQuery,
)

V2 = "/api/v2/mcp"
_PATH_PARAMETER = re.compile(r"\{(\w+)\}")
_STRICT = ConfigDict(extra="forbid")


@dataclass(frozen=True)
class RouteRequest:
    """What a tool call sends to its operation."""

    method: str
    path: str  # with the path parameters filled in
    query: dict[str, str]
    body: Any  # decoded JSON, or None


@dataclass(frozen=True)
class Tool:
    """One tool: its name, what it does, the scope it needs, its arguments, its operation."""

    name: str
    description: str
    scope: Scope
    arguments: type[BaseModel]
    method: str
    path: str  # the operation's full path template: /api/v2/mcp/clients/{uuid}/
    body: str | None = None  # the argument that is the body; "*": every non-path argument
    book: bool = False  # an operation on the tenant's own records (see the module docstring)
    hide_password: bool = False  # the answer holds a connection URI: its password is hidden

    @property
    def path_parameters(self) -> list[str]:
        return _PATH_PARAMETER.findall(self.path)

    def request(self, arguments: dict[str, Any]) -> RouteRequest:
        """The operation's inputs from the (validated) JSON arguments."""
        path_values = {name: arguments[name] for name in self.path_parameters}
        rest = {k: v for k, v in arguments.items() if k not in path_values}
        path = self.path.format(**{k: str(v) for k, v in path_values.items()})
        if self.body == "*":
            return RouteRequest(self.method, path, {}, rest)
        if self.body is not None:
            return RouteRequest(self.method, path, {}, rest.get(self.body))
        return RouteRequest(self.method, path, {k: _query_text(v) for k, v in rest.items()
                                                if v is not None}, None)


def _query_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _arguments(name: str, base: type[BaseModel] | None = None, **fields: Any) -> type[BaseModel]:
    """A tool's argument model: `base`'s fields (and validators) plus `fields`."""
    if base is None:
        return create_model(name, __config__=_STRICT, **fields)
    return create_model(name, __base__=base, **fields)


_UUID = (uuid.UUID, Field(description="The record's `uuid` field."))
_ID = (uuid.UUID, Field(description="The record's `id` field."))
_RULE_ID = (str, Field(pattern=ULID_PATTERN, description="The ruleset's id (a ULID)."))
_NO_ARGUMENTS = _arguments("NoArguments")


def _record_tools(one: str, many: str, create: type[BaseModel], update: type[BaseModel],
                  query: type[BaseModel], extra: str = "") -> list[Tool]:
    base = f"{V2}/{many}"
    return [
        Tool(f"create_{one}", f"Create a {one}.{extra}", Scope.WRITE,
             _arguments(f"Create{one.title()}", **{one: (create, Field(
                 description=f"The new {one}'s fields."))}),
             "POST", f"{base}/", body=one, book=True),
        Tool(f"get_{one}", f"Get a {one} by its uuid.", Scope.READ,
             _arguments(f"Get{one.title()}", uuid=_UUID), "GET", f"{base}/{{uuid}}/", book=True),
        Tool(f"list_{many}", f"List {many} (filters, keyset pages, oldest first).", Scope.READ,
             query, "GET", f"{base}/list/", book=True),
        Tool(f"update_{one}", f"Update a {one}: only the fields given change.{extra}",
             Scope.WRITE, _arguments(f"Update{one.title()}", uuid=_UUID, **{one: (
                 update, Field(description="The fields to change."))}),
             "PATCH", f"{base}/{{uuid}}/update/", body=one, book=True),
    ]


def _read_tools(one: str, many: str, query: type[BaseModel], what: str) -> list[Tool]:
    base = f"{V2}/{many}"
    return [
        Tool(f"list_{many}", f"List {what} (filters, keyset pages, oldest first).", Scope.READ,
             query, "GET", f"{base}/list/", book=True),
        Tool(f"get_{one}", f"Get a {one} by its id.", Scope.READ,
             _arguments(f"Get{one.title().replace('_', '')}", id=_ID), "GET",
             f"{base}/{{id}}/", book=True),
    ]


RULESETS = f"{V2}/rulesets"
BINDINGS = f"{V2}/bindings"
RUNS = f"{V2}/runs"
MARKET = f"{V2}/market"

TOOLS: tuple[Tool, ...] = (
    *_record_tools("client", "clients", ClientCreate, ClientUpdate, ClientListQuery),
    *_record_tools("policy", "policies", PolicyCreate, PolicyUpdate, PolicyListQuery,
                   extra=" A `status` change must follow the policy state machine."),
    *_read_tools("task", "tasks", TaskListQuery, "the workspace's tasks (open, in progress, "
                 "done, cancelled; opened by people, applications or rules)"),
    *_read_tools("uw_score", "uw_scores", UwScoreListQuery, "underwriting scores of "
                 "submissions (score, decision, factors)"),
    Tool("create_uw_submission", "Create an underwriting submission (client, policy, line, "
         "answers); the workspace's bindings on uw_submission then score it.", Scope.WRITE,
         _arguments("CreateUwSubmission", uw_submission=(UwSubmissionCreate, Field(
             description="The new submission's fields."))),
         "POST", f"{V2}/uw_submissions/", body="uw_submission", book=True),
    *_read_tools("uw_submission", "uw_submissions", UwSubmissionListQuery, "underwriting "
                 "submissions (client, line, answers)"),
    Tool("validate_key", "Which workspace, tenant and scopes the API key has.", Scope.READ,
         _NO_ARGUMENTS, "POST", f"{V2}/validate-key/"),
    Tool("get_database_connection", "The tenant database the workspace uses (password "
         "hidden).", Scope.WRITE, _NO_ARGUMENTS, "GET", f"{V2}/database/connection/",
         hide_password=True),
    Tool("search_market", "Search the carrier market for a business: candidate carrier "
         "products for a NAICS code or prefix, a state, lines and words, each with why; "
         "nothing is scored.", Scope.WRITE, SearchRequest, "POST", f"{MARKET}/search/", body="*"),
    Tool("match_carriers", "Match carriers for a business: every candidate product's appetite "
         "evaluated by the rules engine, ranked accept, refer, decline, with score and "
         "reasons.", Scope.WRITE, MatchRequest, "POST", f"{MARKET}/match-carriers-detailed/",
         body="*"),
    Tool("classify_business", "Classify a business description into NAICS 2022 codes (at "
         "most 5, best first).", Scope.WRITE, ClassifyRequest, "POST", f"{MARKET}/classify/",
         body="*"),
    Tool("list_prospects", "List the workspace's prospects (businesses its members saved from "
         "the browser extension): filters status and state, newest first by default.",
         Scope.READ, ProspectListQuery, "GET", f"{V2}/prospects/"),
    Tool("list_rulesets", "List the workspace's rulesets (kind, status, published version).",
         Scope.READ, RuleListQuery, "GET", f"{RULESETS}/"),
    Tool("get_ruleset", "Read a ruleset: its current version (source, tests) or version N.",
         Scope.READ, _arguments("GetRuleset", VersionQuery, rule_id=_RULE_ID), "GET",
         f"{RULESETS}/{{rule_id}}/"),
    Tool("simulate_ruleset", "Simulate a ruleset (a saved one by rule_id, or a source) on "
         "cases, without side effects: results, summary, expectations, impact against a "
         "baseline.", Scope.WRITE, SimulateRequest, "POST", f"{RULESETS}/simulate/", body="*"),
    Tool("execute_ruleset", "Execute a ruleset's published version on inputs or on a client "
         "or policy of the workspace; the run is logged.", Scope.WRITE,
         _arguments("ExecuteRuleset", ExecuteRequest, rule_id=_RULE_ID), "POST",
         f"{RULESETS}/{{rule_id}}/execute/", body="*"),
    Tool("list_executions", "A ruleset's execution log, newest first.", Scope.READ,
         _arguments("ListExecutions", ExecutionListQuery, rule_id=_RULE_ID), "GET",
         f"{RULESETS}/{{rule_id}}/executions/"),
    Tool("get_execution", "One execution of a ruleset.", Scope.READ, ExecutionPath, "GET",
         f"{RULESETS}/{{rule_id}}/executions/{{execution_id}}/"),
    Tool("list_bindings", "List the workspace's bindings: rules run on record writes (rule, "
         "record type, events, condition, status, counters).", Scope.READ, _NO_ARGUMENTS, "GET",
         f"{BINDINGS}/"),
    Tool("get_binding", "Read a binding with its counters: records evaluated, effects written, "
         "errors and the last error.", Scope.READ, BindingPath, "GET",
         f"{BINDINGS}/{{binding_id}}/"),
    Tool("list_runs", "List the workspace's book runs (a rule over every record), newest "
         "first; rule_id narrows.", Scope.READ, RunListQuery, "GET", f"{RUNS}/"),
    Tool("get_run", "Read a book run: status, progress (total, done, rate, ETA), summary and, "
         "for a dry run, the impact against the published version.", Scope.READ, RunPath,
         "GET", f"{RUNS}/{{run_id}}/"),
    Tool("start_run", "Dry-run a ruleset over the workspace's whole book (writes nothing): "
         "queued, follow it with get_run. mode apply is refused: an admin applies in the "
         "studio.", Scope.WRITE, _arguments("StartRun", RunCreate, rule_id=_RULE_ID), "POST",
         f"{RULESETS}/{{rule_id}}/runs/", body="*"),
    Tool("cancel_run", "Cancel a dry run: a queued one stops at once, a running one at its "
         "next checkpoint.", Scope.WRITE, RunPath, "POST", f"{RUNS}/{{run_id}}/cancel/"),
)

BY_NAME: dict[str, Tool] = {tool.name: tool for tool in TOOLS}
