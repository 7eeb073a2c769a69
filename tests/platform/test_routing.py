"""The route pipeline: typed path and query models, handlers' return types, declarations checked."""

from __future__ import annotations

import uuid

import pytest
from pydantic import BaseModel

from insureops.platform.app import Area
from insureops.platform.auth.requirements import Auth
from insureops.platform.http.ratelimit import RateKey, RateLimit
from insureops.platform.http.routing import Call, RouteTable
from tests.conftest import SQLITE_ONLY

pytestmark = SQLITE_ONLY  # the route pipeline; no route here reads the store

ITEM = "/api/probe/items"


async def test_path_and_query_reach_the_handler_as_models_when_valid(probe):
    item_id = uuid.uuid4()
    response = await probe.get(f"{ITEM}/{item_id}/?limit=7&kind=a&kind=b")
    assert response.status == 200
    assert await response.json() == {"item_id": str(item_id), "limit": 7, "kind": ["a", "b"]}


async def test_query_defaults_apply_when_parameters_are_absent(probe):
    item_id = uuid.uuid4()
    assert (await (await probe.get(f"{ITEM}/{item_id}/")).json())["limit"] == 50


async def test_query_is_400_with_the_parameter_named_when_out_of_range(probe):
    response = await probe.get(f"{ITEM}/{uuid.uuid4()}/?limit=500")
    assert response.status == 400
    error = (await response.json())["error"]
    assert error["code"] == "validation_error"
    assert [detail["field"] for detail in error["details"]] == ["limit"]


async def test_malformed_path_parameter_is_404_when_it_cannot_name_a_resource(probe):
    response = await probe.get(f"{ITEM}/not-a-uuid/")
    assert response.status == 404
    assert (await response.json())["error"]["code"] == "not_found"


class CountPath(BaseModel):
    number: int  # deliberately unbounded: the pipeline bounds it


class Count(BaseModel):
    number: int


async def test_integer_path_parameter_is_404_when_no_column_holds_it(make_probe, settings):
    """Issue 28: an integer past 63 bits reached the database (SQLite: OverflowError; a
    PostgreSQL BIGINT: DataError), a 500; parse_path refuses it on every route."""
    table = RouteTable("numbers")

    @table.get("/numbers/{number}/", path_model=CountPath, response=Count, auth=Auth.NONE,
               summary="A number")
    async def number(call: Call[None, None]) -> Count:
        return Count(number=call.path.number)

    client = await make_probe(settings, extra=(Area("/api/numbers", table.build_app),))
    for value, status in ((2**63 - 1, 200), (2**63, 404), (-(2**63) - 1, 404), ("9" * 5000, 404)):
        response = await client.get(f"/api/numbers/numbers/{value}/")
        assert response.status == status, value
        if status == 404:
            assert (await response.json())["error"]["code"] == "not_found"


async def test_created_status_is_used_when_the_route_declares_it(probe):
    body = {"name": "Ann", "email": "ann@example.com", "count": 0}
    response = await probe.post("/api/probe/echo/", json=body)
    assert response.status == 201
    assert await response.json() == {**body, "tags": []}


async def test_no_content_route_answers_204_when_the_handler_returns_none(make_probe, settings):
    table = RouteTable("nothing")

    @table.delete("/thing/", response=None, status=204, auth=Auth.NONE, summary="Delete")
    async def remove(call: Call[None, None]) -> None:
        return None

    app_client = await make_probe(settings, extra=(Area("/api/nothing", table.build_app),))
    response = await app_client.delete("/api/nothing/thing/")
    assert response.status == 204
    assert await response.read() == b""


async def test_wrong_return_type_is_a_500_when_a_handler_breaks_its_declaration(
        make_probe, settings):
    class Declared(BaseModel):
        ok: bool

    class Other(BaseModel):
        ok: bool

    table = RouteTable("liar")

    @table.get("/x/", response=Declared, auth=Auth.NONE, summary="X")
    async def liar(call: Call[None, None]) -> Declared:
        return Other(ok=True)  # type: ignore[return-value]

    client = await make_probe(settings, extra=(Area("/api/liar", table.build_app),))
    response = await client.get("/api/liar/x/")
    assert response.status == 500


def test_declaration_is_refused_when_an_email_limit_has_no_email_field():
    class NoEmail(BaseModel):
        name: str

    table = RouteTable("t")
    with pytest.raises(ValueError, match="e-mail keyed"):
        @table.post("/x/", body=NoEmail, response=None, status=204, auth=Auth.NONE, summary="X",
                    rate_limit=RateLimit("x", 1, 60, key=RateKey.EMAIL))
        async def handler(call: Call[NoEmail, None]) -> None:
            return None


def test_declaration_is_refused_when_a_workspace_limit_has_no_caller():
    table = RouteTable("t")
    with pytest.raises(ValueError, match="workspace keyed"):
        @table.post("/x/", response=None, status=204, auth=Auth.NONE, summary="X",
                    rate_limit=RateLimit("x", 1, 60, key=RateKey.WORKSPACE))
        async def handler(call: Call[None, None]) -> None:
            return None


def test_declaration_is_refused_when_a_json_route_has_no_response_model_and_is_not_204():
    table = RouteTable("t")
    with pytest.raises(ValueError, match="status 204"):
        @table.get("/x/", response=None, auth=Auth.NONE, summary="X")
        async def handler(call: Call[None, None]) -> None:
            return None
