"""POST /rules/complete/ and /rules/hover/: the language server's completion and hover for the
studio page's editor (the same core functions, positions as the checker counts them)."""

from __future__ import annotations

import io
import json

import pytest

from insureops.dsl.analysis import MAX_SOURCE_CHARS, analyse
from insureops.dsl.completion import complete
from insureops.platform.rules_studio.payloads import MAX_SOURCE
from tests.platform.rules_studio.conftest import BASE, CLIENT_CHECK, TRIAGE, start_studio

pytestmark = pytest.mark.parametrize("backend", ["sqlite"], indirect=True)

TYPING = CLIENT_CHECK.replace("when client.city is null", "when client.")  # does not parse
TYPING_LINE = 6  # `when client.ci`
LIMIT_LINE = 7   # `when claim.amount > LIMIT` in TRIAGE


async def _post(studio, member, route: str, body: dict):
    return await studio.client.post(f"{BASE}/{route}/", json=body, headers=member.headers)


async def _ok(studio, member, route: str, body: dict) -> dict:
    response = await _post(studio, member, route, body)
    assert response.status == 200, await response.text()
    return await response.json()


async def test_complete_lists_the_fields_of_an_inputs_type_from_the_known_source(studio, owner):
    body = {"source": TYPING, "line": TYPING_LINE, "column": len("when client.") + 1,
            "known_source": CLIENT_CHECK}
    answer = await _ok(studio, owner, "complete", body)
    city = next(item for item in answer["items"] if item["label"] == "city")
    assert city == {"label": "city", "kind": "field", "detail": "string",
                    "documentation": city["documentation"], "insert_text": "city"}
    assert {item["kind"] for item in answer["items"]} == {"field"}
    # the word being typed is what an item replaces
    assert answer["range"] == {"line": 6, "column": 13, "end_line": 6, "end_column": 13}
    assert answer["notice"] is None


async def test_complete_answers_what_the_language_server_does(studio, owner):
    source = TRIAGE.replace("when claim.amount > LIMIT", "when claim.amount > LI")
    column = len("when claim.amount > LI") + 1
    answer = await _ok(studio, owner, "complete", {"source": source, "line": LIMIT_LINE,
                                                   "column": column, "known_source": TRIAGE})
    offset = analyse(source).lines.offset(LIMIT_LINE, column)
    expected = complete(source, offset, analyse(TRIAGE))
    assert [(i["label"], i["kind"], i["detail"]) for i in answer["items"]] == [
        (i.label, i.kind, i.detail) for i in expected]
    first = answer["items"][:2]
    assert [(i["label"], i["kind"], i["detail"]) for i in first] == [
        ("LIMIT", "const", "const: number"), ("claim", "input", "input: any")]


async def test_complete_without_a_known_source_proposes_no_names_of_the_ruleset(studio, owner):
    body = {"source": TYPING, "line": TYPING_LINE, "column": len("when client.") + 1}
    assert (await _ok(studio, owner, "complete", body))["items"] == []


async def test_hover_shows_a_consts_declaration_and_type_with_its_range(studio, owner):
    column = len("when claim.amount > L") + 1
    answer = await _ok(studio, owner, "hover", {"source": TRIAGE, "line": LIMIT_LINE,
                                                "column": column})
    assert answer == {"hover": {"markdown": "```rules\nconst LIMIT = 10000\n```\n\n"
                                            "type: `number`",
                                "line": 7, "column": 21, "end_line": 7, "end_column": 26},
                      "notice": None}


async def test_hover_shows_a_fields_type_and_is_null_where_no_name_is(studio, owner):
    field = await _ok(studio, owner, "hover", {"source": CLIENT_CHECK, "line": 6,
                                               "column": 14})
    assert field["hover"]["markdown"].startswith("```rules\nclient.city: string\n```")
    blank = await _ok(studio, owner, "hover", {"source": CLIENT_CHECK, "line": 4,
                                               "column": 1})
    assert blank == {"hover": None, "notice": None}


async def test_members_complete_and_hover_and_a_request_without_a_session_is_401(
        studio, owner):
    max_ = await studio.tenancy.member(owner, "max@example.com")
    body = {"source": TRIAGE, "line": LIMIT_LINE, "column": 21}
    assert (await _post(studio, max_, "complete", body)).status == 200
    assert (await _post(studio, max_, "hover", body)).status == 200
    for route in ("complete", "hover"):
        response = await studio.client.post(f"{BASE}/{route}/", json=body)
        assert response.status == 401
        assert (await response.json())["error"]["code"] == "not_authenticated"


@pytest.mark.parametrize("route", ["complete", "hover"])
async def test_a_position_past_the_source_is_400_naming_the_field(studio, owner, route):
    past_line = await _post(studio, owner, route, {"source": TRIAGE, "line": 999, "column": 1})
    past_column = await _post(studio, owner, route, {"source": TRIAGE, "line": 1,
                                                     "column": 999})
    zero = await _post(studio, owner, route, {"source": TRIAGE, "line": 0, "column": 1})
    unknown = await _post(studio, owner, route, {"source": TRIAGE, "line": 1, "column": 1,
                                                 "offset": 3})
    for response, field in ((past_line, "line"), (past_column, "column"), (zero, "line"),
                            (unknown, "offset")):
        assert response.status == 400
        error = (await response.json())["error"]
        assert error["code"] == "validation_error"
        assert field in {detail["field"] for detail in error["details"]}


async def test_a_source_over_the_studios_bound_is_400_and_a_body_over_a_mebibyte_413(
        studio, owner):
    too_long = await _post(studio, owner, "complete", {"source": "#" * (MAX_SOURCE + 1),
                                                       "line": 1, "column": 1})
    assert too_long.status == 400
    assert (await too_long.json())["error"]["code"] == "validation_error"
    body = json.dumps({"source": "# x\n" * 120_000, "known_source": "# y\n" * 120_000,
                       "line": 1, "column": 1}).encode()  # 5 bytes a line in JSON: 1.2 MB
    too_big = await studio.client.post(f"{BASE}/complete/", data=io.BytesIO(body), headers={
        **owner.headers, "Content-Type": "application/json"})
    assert too_big.status == 413
    assert (await too_big.json())["error"]["code"] == "payload_too_large"


async def test_a_text_over_the_editors_budget_is_not_analysed_and_says_so(studio, owner):
    source = TRIAGE + "#" * (MAX_SOURCE_CHARS - len(TRIAGE) + 1)
    body = {"source": source, "line": LIMIT_LINE, "column": 21}
    completed = await _ok(studio, owner, "complete", body)
    assert "insureops rules check" in completed["notice"]
    assert "LIMIT" not in {item["label"] for item in completed["items"]}
    hovered = await _ok(studio, owner, "hover", body)
    assert hovered["hover"] is None and hovered["notice"] == completed["notice"]


async def test_a_costly_completion_is_422_at_the_check_budget(aiohttp_client, settings):
    studio = await start_studio(aiohttp_client,
                                settings.model_copy(update={"rules_check_seconds": 0.3}))
    owner = await studio.tenancy.owner("mallory@example.com", "Attacker")
    consts = "\n".join(f"const LIMIT_NUMBER_{i} = {i}" for i in range(3000))
    rules = "\n".join(f'rule r{i} "r"\nwhen LIMIT_NUMBER_{i} > 0\nthen\n    refer "x"\nend\n'
                      for i in range(3000))
    source = f'ruleset attack.check "x"\ninput c: Any\ndefault decision accept\n{consts}\n\n{rules}'
    response = await _post(studio, owner, "complete", {"source": source, "line": 4,
                                                       "column": 1})
    assert response.status == 422
    error = (await response.json())["error"]
    assert error["code"] == "work_budget_exceeded"
    assert "INSUREOPS_RULES_CHECK_SECONDS" in error["message"]
