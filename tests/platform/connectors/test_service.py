"""The fast tier of the connectors use cases: an in-memory fake of their store and of the
provider's probe (fakes.py); no database, no HTTP, no SMTP. Here are the rules: what a message
may hold (recipients, subject, templates), which base URLs a key may name, what saving,
deleting and testing a key do, the e-mail log's pages. The store's SQL, the routes, real SMTP
and the real provider call are the database tier's (test_email.py, test_llm_keys.py)."""

from __future__ import annotations

import datetime

import pytest
from cryptography.fernet import Fernet, MultiFernet
from pydantic import ValidationError

from insureops.platform.config import Settings
from insureops.platform.connectors import email_service as email
from insureops.platform.connectors import llm_service
from insureops.platform.connectors.llm import ProbeOutcome
from insureops.platform.connectors.payloads import SaveKeyRequest
from insureops.platform.email import DeliveryStatus
from insureops.platform.email.log import EmailLogEntry
from insureops.platform.outbound.llm_providers import BaseUrlRefusedError, Provider
from insureops.platform.records.llm_keys import decrypt_key
from tests.platform.connectors.fakes import FakeConnectors, fake_units
from tests.platform.connectors.fakes import Provider as FakeProvider
from tests.platform.fakes import FakeUnitOfWork, MailBox

ANN, ZED, USER = "ws-ann", "ws-zed", "user-ann"
KEY, OTHER = "sk-right-key-0123456789-WXYZ", "sk-other-key-9876543210-ABCD"
NOW = datetime.datetime(2027, 1, 15, 8, 0, tzinfo=datetime.UTC)
PASSED, REFUSED = ProbeOutcome(True, 12, None), ProbeOutcome(False, 9, "HTTP 401: bad key")
TEMPLATES = email.BuiltInTemplates.load()
OWN_TEMPLATES = sorted(TEMPLATES.renderers)


def _settings(**changes) -> Settings:
    return Settings(database_url="sqlite+aiosqlite:///never-opened.sqlite3",
                    secret_key="test-secret-key", fernet_keys=(Fernet.generate_key().decode(),),
                    load_example_market=False, **changes)


class Keys:
    """A workspace's LLM keys on the fake store."""

    def __init__(self, **settings) -> None:
        self.settings = _settings(**settings)
        self.fernet = MultiFernet([Fernet(self.settings.fernet_keys[0].get_secret_value())])
        self.store = FakeConnectors()

    async def save(self, provider=Provider.OPENAI, api_key=KEY, base_url=None, model=None,
                   workspace=ANN):
        return await llm_service.save_key(
            FakeUnitOfWork(), self.fernet, self.settings, workspace_id=workspace, user_id=USER,
            provider=provider, api_key=api_key, base_url=base_url, model=model, now=NOW,
            store=self.store)

    async def test(self, probe: FakeProvider, provider=Provider.OPENAI):
        return await llm_service.run_test(fake_units, self.fernet, self.settings, ANN, provider,
                                          lambda: NOW, store=self.store, probe=probe)


@pytest.fixture
def keys() -> Keys:
    return Keys()


def _compose(**fields):
    message = {"to": ["zoe@example.com"], "subject": "Hi", "body": "Hello", "template": None,
               "context": {}, **fields}
    return email.compose(TEMPLATES, workspace_id=ANN, **message)


# E-mail


@pytest.mark.parametrize(("field", "value", "refusal"), [
    ("subject", "Hi\r\nBcc: victim@example.com", email.SubjectInvalidError),
    ("subject", "Hi\nX-Injected: yes", email.SubjectInvalidError),
    ("subject", "Hi\x7f", email.SubjectInvalidError),
    ("to", ["zoe@example.com\r\nBcc: victim@example.com"], email.RecipientInvalidError),
    ("to", ["Zoe <zoe@example.com>, victim@example.com"], email.RecipientInvalidError),
    ("to", ["zoe@example.com\n"], email.RecipientInvalidError),
    ("to", ["not-an-address"], email.RecipientInvalidError),
    ("to", ["zoe@example.com", "a" * 250 + "@example.com"], email.RecipientInvalidError),
])
def test_message_is_refused_when_a_header_could_be_injected(field, value, refusal):
    with pytest.raises(refusal):
        _compose(**{field: value})


def test_recipients_are_kept_once_in_lower_case_in_their_order():
    message = _compose(to=["Zoe@Example.com", "bob@example.com", "zoe@example.com"])
    assert message.to == ("zoe@example.com", "bob@example.com")
    assert (message.tenant_id, message.subject, message.text) == (ANN, "Hi", "Hello")


@pytest.mark.parametrize("template", OWN_TEMPLATES)
def test_a_template_of_the_service_s_own_flows_is_never_sendable(template):
    context = {"inviter": "Ann", "workspace": "Acme", "role": "admin", "days": 7,
               "link": "https://evil.example/accept", "name": "Zoe", "code": "123456",
               "minutes": 15, "email": "zoe@example.com"}
    with pytest.raises(email.TemplateNotSendableError, match="service's own"):
        _compose(subject=None, body=None, template=template, context=context)


def test_unknown_template_is_not_found():
    with pytest.raises(email.TemplateNotFoundError):
        _compose(subject=None, body=None, template="nope")


async def test_log_pages_count_from_one_newest_first_for_the_workspace_only():
    store = FakeConnectors()
    for index, tenant in enumerate((ANN, ANN, ANN, ZED)):
        store.log.append(EmailLogEntry(
            id=index + 1, created_at=NOW + datetime.timedelta(seconds=index), tenant_id=tenant,
            backend="outbox", status="stored", message_id=f"<{index}@test>", recipients="z@x.io",
            subject=f"s{index}", text_body="x"))
    first, total = await email.log_page(FakeUnitOfWork(), ANN, None, 1, 2, store=store)
    second, _ = await email.log_page(FakeUnitOfWork(), ANN, None, 2, 2, store=store)
    assert total == 3 and [r.subject for r in first + second] == ["s2", "s1", "s0"]


class Quota:
    """The hourly quota's stand-in: `left` sends, then it raises as the route's 429 does."""

    def __init__(self, left: int) -> None:
        self.left, self.counted = left, 0

    async def __call__(self) -> None:
        self.counted += 1
        if self.counted > self.left:
            raise RuntimeError("quota spent")


async def _send(box: MailBox, quota: Quota, **fields):
    message = {"to": ["zoe@example.com"], "subject": "Hi", "body": "Hello", "template": None,
               "context": {}, **fields}
    return await email.send(TEMPLATES, box, quota, workspace_id=ANN, **message)


async def test_a_message_is_counted_then_sent_as_composed():
    box, quota = MailBox(), Quota(1)
    result = await _send(box, quota, to=["Zoe@Example.com"])
    assert result.status is DeliveryStatus.SENT and quota.counted == 1
    assert [(m.to, m.tenant_id, m.subject) for m in box.sent] == [(("zoe@example.com",), ANN,
                                                                   "Hi")]
    with pytest.raises(RuntimeError):
        await _send(box, quota)
    assert len(box.sent) == 1  # past the quota nothing leaves


async def test_a_refused_message_counts_nothing_and_sends_nothing():
    box, quota = MailBox(), Quota(5)
    for fields in ({"subject": "Hi\r\nBcc: x@example.com"}, {"to": ["not-an-address"]},
                   {"template": "team_invitation", "subject": None, "body": None}):
        with pytest.raises((email.SubjectInvalidError, email.RecipientInvalidError,
                            email.TemplateNotSendableError)):
            await _send(box, quota, **fields)
    assert quota.counted == 0 and box.sent == []


# LLM keys


async def test_saved_key_is_encrypted_keeps_its_last_four_and_no_test_outcome(keys):
    row = await keys.save(model="gpt-4o-mini")
    assert KEY not in row.key_encrypted and decrypt_key(keys.fernet, row.key_encrypted) == KEY
    assert (row.key_last_four, row.model, row.base_url, row.saved_at) == ("WXYZ", "gpt-4o-mini",
                                                                          None, NOW)
    assert row.last_test_ok is None


async def test_saving_again_replaces_the_key_and_forgets_its_test(keys):
    await keys.save()
    await keys.test(FakeProvider(PASSED))
    row = await keys.save(api_key=OTHER)
    assert (row.key_last_four, row.last_test_ok, row.last_test_at) == ("ABCD", None, None)
    assert list(await llm_service.list_keys(FakeUnitOfWork(), ANN, store=keys.store)) == [
        "openai"]


@pytest.mark.parametrize("base_url", [
    "http://127.0.0.1:9/",                    # loopback, no network allowed
    "https://evil.example.com",               # not an allowed provider host
    "http://api.openai.com",                  # an allowed host, but not over https
    "https://user:pw@api.openai.com",         # credentials
    "https://169.254.169.254",                # cloud metadata
    "https://[::ffff:127.0.0.1]",             # loopback inside IPv6
    "https://2130706433",                     # loopback, legacy integer form
    "ftp://api.openai.com",
    "https://api.openai.com/v1?x=1",          # a query
    "https:// api.openai.com",                # white space
])
async def test_base_url_is_refused_and_nothing_saved_when_the_policy_forbids_it(keys,
                                                                               base_url):
    with pytest.raises(BaseUrlRefusedError):
        await keys.save(base_url=base_url)
    assert keys.store.rows == {}


@pytest.mark.parametrize("body", [{"api_key": "short"}, {"api_key": "sk key with spaces"},
                                  {"base_url": "x" * 2049}, {"model": "gpt 4"},
                                  {"provider": "mistral"}])
def test_key_request_is_refused_when_the_body_is_out_of_bounds(body):
    with pytest.raises(ValidationError):
        SaveKeyRequest.model_validate({"provider": "openai", "api_key": KEY, **body})


async def test_metadata_address_is_refused_when_its_network_is_allowed():
    keys = Keys(llm_allowed_networks=("169.254.0.0/16",))
    with pytest.raises(BaseUrlRefusedError):
        await keys.save(base_url="http://169.254.169.254")
    assert (await keys.save(base_url="http://169.254.10.1:8080/v1")).base_url == \
        "http://169.254.10.1:8080"


async def test_allowed_provider_host_is_saved_normalised_when_given_with_v1(keys):
    row = await keys.save(base_url="https://API.openai.com/v1/")
    assert row.base_url == "https://api.openai.com"


async def test_deleting_or_testing_a_key_never_saved_is_not_found(keys):
    await keys.save(workspace=ZED)
    for attempt in (llm_service.delete_key(FakeUnitOfWork(), ANN, Provider.OPENAI,
                                           store=keys.store),
                    keys.test(FakeProvider(PASSED))):
        with pytest.raises(llm_service.LlmKeyNotFoundError):
            await attempt
    await keys.save()
    await llm_service.delete_key(FakeUnitOfWork(), ANN, Provider.OPENAI, store=keys.store)
    assert list(keys.store.rows) == [(ZED, "openai")]


async def test_test_calls_the_provider_with_the_saved_key_and_records_the_outcome(keys):
    await keys.save(provider=Provider.ANTHROPIC)
    provider = FakeProvider(REFUSED)
    outcome = await keys.test(provider, Provider.ANTHROPIC)
    row = keys.store.rows[ANN, "anthropic"]
    assert outcome == REFUSED and provider.keys == [KEY]
    assert (row.last_test_ok, row.last_test_latency_ms, row.last_test_error,
            row.last_test_at) == (False, 9, "HTTP 401: bad key", NOW)


async def test_key_saved_during_the_test_keeps_none_of_its_outcome(keys):
    await keys.save()
    async def saved_meanwhile() -> None:
        await keys.save(api_key=OTHER)
    await keys.test(FakeProvider(PASSED, during=saved_meanwhile))
    row = keys.store.rows[ANN, "openai"]
    assert row.key_last_four == "ABCD" and row.last_test_ok is None
