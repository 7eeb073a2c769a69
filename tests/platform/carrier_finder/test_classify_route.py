"""POST /classify/: no authentication, offline classification, 30 a minute per client address."""

from __future__ import annotations

from tests.platform.carrier_finder.conftest import BASE


async def test_classify_answers_ranked_naics_codes_without_a_session_when_described(finder):
    response = await finder.client.post(BASE + "/classify/",
                                        json={"description": "We fix leaky pipes and drains"})
    assert response.status == 200
    body = await response.json()
    assert body["method"] == "offline"
    assert body["results"][0]["naics"] == "238220"
    assert 1 <= len(body["results"]) <= 5
    confidences = [r["confidence"] for r in body["results"]]
    assert confidences == sorted(confidences, reverse=True)


async def test_classify_answers_an_empty_list_when_the_text_names_no_trade(finder):
    body = await (await finder.client.post(BASE + "/classify/", json={"description": "?!"})).json()
    assert body["results"] == []


async def test_classify_answers_429_when_a_client_sends_more_than_30_a_minute(finder):
    statuses = [(await finder.client.post(BASE + "/classify/",
                                          json={"description": "nail salon"})).status
                for _ in range(31)]
    assert statuses[:30] == [200] * 30 and statuses[30] == 429


async def test_classify_answers_400_when_the_description_is_missing(finder):
    response = await finder.client.post(BASE + "/classify/", json={"name": "Joe's"})
    assert response.status == 400
