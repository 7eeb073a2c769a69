"""Fixtures of the carrier finder tests: the service with the example market stored, and a member
logged in (the service's clock on the example appetites' test date)."""

from __future__ import annotations

import datetime
from dataclasses import dataclass

import pytest
from aiohttp import DummyCookieJar

from insureops.platform.app import create_app
from insureops.platform.carrier_finder.market.loading import store_market
from tests.carrier_matching.example_market import AS_OF, example_market
from tests.platform.accounts.conftest import FakeClock
from tests.platform.workspaces import Member, Tenancy, start_tenancy

BASE = "/api/v1/carrier_finder"
NOW = datetime.datetime.combine(AS_OF, datetime.time(12), datetime.UTC)


@dataclass
class Finder:
    tenancy: Tenancy
    member: Member

    @property
    def client(self):
        return self.tenancy.client

    async def get(self, path: str, **params):
        return await self.client.get(BASE + path, params=params, headers=self.member.headers)

    async def post(self, path: str, body: dict, **options):
        return await self.client.post(BASE + path, json=body, headers=self.member.headers,
                                      **options)


async def start_finder(aiohttp_client, settings, *, market: bool = True,
                       areas: tuple | None = None) -> Finder:
    clock = FakeClock(NOW.timestamp())
    if areas is None:
        tenancy = await start_tenancy(aiohttp_client, settings, clock)
    else:
        tenancy = Tenancy(await aiohttp_client(create_app(settings, clock=clock, areas=areas),
                                               cookie_jar=DummyCookieJar()), clock)
    if market:
        async with tenancy.database.unit_of_work() as uow:
            await store_market(uow.session, example_market(), now=NOW)
    return Finder(tenancy, await tenancy.owner("lee@agency.test"))


@pytest.fixture
async def finder(aiohttp_client, settings) -> Finder:
    return await start_finder(aiohttp_client, settings)
