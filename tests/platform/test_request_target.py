"""A control character in the request target (path or query, percent-encoded): 400 at INFO.

Issue 28, part 6: `GET /studio?x=%0d%0a` made the studio's redirect put a CR LF into its
`Location` header; aiohttp refused to write it, dropped the connection and logged an ERROR
traceback. One middleware now refuses such targets for every route before any handler runs.
"""

from __future__ import annotations

import logging
import re

import pytest
from aiohttp.test_utils import make_mocked_request
from aiohttp.web import Response

from insureops.platform.http.log import AccessLogger
from insureops.platform.http.openapi import CONTROL_FREE
from insureops.platform.keys import OPENAPI_DOCUMENT
from tests.conftest import SQLITE_ONLY

pytestmark = SQLITE_ONLY  # a middleware before any handler


@pytest.mark.parametrize("target", [
    "/studio?x=%0d%0a",  # the studio's trailing-slash redirect
    "/studio/?x=%0d%0aSet-Cookie:%20a=b",  # the page itself
    "/api/docs?x=%0a",  # Swagger UI's page
    "/studio%0d%0a",  # a path that matches no route
    "/api/v1/carrier_finder/carriers/?x=%0d",  # a JSON route with a query
    "/studio?x=%00", "/studio?x=%1b[2J", "/studio?x=%7f",
])
async def test_a_control_character_in_the_target_is_400_at_info_when_any_route_is_asked(
        client, caplog, target):
    caplog.set_level(logging.INFO)
    response = await client.get(target, allow_redirects=False)
    assert response.status == 400
    error = (await response.json())["error"]
    assert error["code"] == "bad_request" and "control character" in error["message"]
    assert response.headers["X-Request-ID"]
    assert not [record for record in caplog.records if record.levelno >= logging.WARNING]
    assert any(record.levelno == logging.INFO and "control character" in record.getMessage()
               for record in caplog.records)


async def test_every_operation_documents_400_when_the_target_may_be_refused(client):
    document = client.app[OPENAPI_DOCUMENT].get()
    operations = [operation for item in document["paths"].values()
                  for operation in item.values()]
    assert operations and all("400" in operation["responses"] for operation in operations)
    # and every free-form text parameter says what it may not hold (the fuzzer reads it)
    search = document["paths"]["/api/v1/carrier_finder/clients/search-prospects/"]["get"]
    [q] = [p for p in search["parameters"] if p["name"] == "q"]
    assert q["schema"]["pattern"] == CONTROL_FREE
    products = document["paths"]["/api/v1/carrier_finder/products/"]["get"]
    [q] = [p for p in products["parameters"] if p["name"] == "q"]
    assert q["schema"]["anyOf"][0]["pattern"] == CONTROL_FREE
    assert re.fullmatch(CONTROL_FREE, "tab\tand é") and not re.search(CONTROL_FREE, "a\r\nb")


async def test_the_studio_redirect_keeps_the_query_as_sent_when_it_is_encoded(client):
    # `%26` and `%23` decoded into the Location header would split the parameter or end the
    # query; a tab is no control character a header refuses
    response = await client.get("/studio?next=a%26b%3Dc%23d&t=%09", allow_redirects=False)
    assert response.status == 301
    assert response.headers["Location"] == "/studio/?next=a%26b%3Dc%23d&t=%09"


def test_the_access_log_writes_the_path_as_sent_when_it_holds_a_line_break(caplog):
    caplog.set_level(logging.INFO)
    request = make_mocked_request("GET", "/studio%0d%0aforged%20line?token=secret")
    AccessLogger(logging.getLogger("aiohttp.access"), "").log(request, Response(status=400), 0.001)
    [record] = caplog.records
    assert record.getMessage() == "GET /studio%0D%0Aforged%20line 400"
