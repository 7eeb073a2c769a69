"""Terms and conditions of the prospect routes: acceptance, status, and the 403 before it."""

from __future__ import annotations

from tests.platform.prospects.conftest import Extension


async def test_status_says_not_accepted_when_the_user_never_accepted(idp_client,
                                                                     identity_provider):
    user = Extension(idp_client, identity_provider, "carol")
    body = await (await user.get("/terms-status/")).json()
    assert body == {"accepted": False, "version": None, "accepted_at": None,
                    "current_version": "2026-11-01"}


async def test_acceptance_is_recorded_with_its_time_when_the_current_version_is_accepted(
        idp_client, identity_provider, clock):
    user = Extension(idp_client, identity_provider, "carol")
    first = await (await user.accept_terms()).json()
    clock.advance(100)
    again = await (await user.accept_terms()).json()
    status = await (await user.get("/terms-status/")).json()
    assert first["accepted"] and first["version"] == "2026-11-01"
    assert again["accepted_at"] == first["accepted_at"] == status["accepted_at"]


async def test_saving_is_refused_with_403_when_terms_are_not_accepted(idp_client,
                                                                      identity_provider):
    user = Extension(idp_client, identity_provider, "carol")
    response = await user.save(company_name="Acme")
    assert response.status == 403
    assert (await response.json())["error"]["code"] == "terms_not_accepted"
    assert (await user.get("/")).status == 200  # reading needs no acceptance


async def test_outdated_version_is_refused_when_accepted(idp_client, identity_provider):
    user = Extension(idp_client, identity_provider, "carol")
    response = await user.accept_terms("2020-01-01")
    assert response.status == 409
    assert (await response.json())["error"]["code"] == "terms_version_outdated"


async def test_changes_are_refused_when_the_terms_version_moves_on(make_client, jwt_settings,
                                                                   identity_provider, clock):
    old = await make_client(jwt_settings, clock=clock)
    user = Extension(old, identity_provider, "carol")
    await user.accept_terms()
    saved = await user.saved(company_name="Acme")
    newer = jwt_settings.model_copy(update={"prospects_terms_version": "2027-01-01"})
    user = Extension(await make_client(newer, clock=clock), identity_provider, "carol")
    status = await (await user.get("/terms-status/")).json()
    assert (status["accepted"], status["version"], status["current_version"]) == (
        False, "2026-11-01", "2027-01-01")
    for response in (await user.save(company_name="B"), await user.patch(saved["id"], notes="x")):
        assert response.status == 403
    assert (await user.accept_terms("2027-01-01")).status == 200
    assert (await user.patch(saved["id"], notes="x")).status == 200


async def test_terms_belong_to_the_user_when_another_user_accepted(alice, idp_client,
                                                                   identity_provider):
    other = Extension(idp_client, identity_provider, "dave")
    assert (await (await other.get("/terms-status/")).json())["accepted"] is False
    assert (await other.save(company_name="Acme")).status == 403
