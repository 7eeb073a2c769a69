"""POST /email/send/, GET /email/templates/ and GET /email/logs/ with a real SMTP server."""

from __future__ import annotations

from dataclasses import replace

import pytest
from pydantic import SecretStr

from insureops.platform.connectors import email_service as email
from tests.platform.connectors.conftest import BASE, service, smtp_to

SEND, LOGS = f"{BASE}/email/send/", f"{BASE}/email/logs/"


async def send(tenancy, member, **body):
    return await tenancy.client.post(SEND, json=body, headers=member.headers)


async def logs(tenancy, member, **query):
    response = await tenancy.client.get(LOGS, params=query, headers=member.headers)
    assert response.status == 200, await response.text()
    return await response.json()


async def test_plain_message_arrives_and_is_logged_as_sent_when_smtp_is_configured(
        aiohttp_client, settings, smtp_server):
    tenancy = await service(aiohttp_client, smtp_to(settings, smtp_server))
    ann = await tenancy.owner("ann@example.com")
    response = await send(tenancy, ann, to=["zoe@example.com"], subject="Renewal",
                          body="Your policy renews on 1 May.")
    assert response.status == 200, await response.text()
    sent = await response.json()
    assert sent["status"] == "sent" and sent["error"] is None
    [received] = smtp_server.messages
    assert received.rcpt_tos == ("zoe@example.com",)
    assert received.message["Subject"] == "Renewal"
    assert "renews on 1 May" in received.text_body()
    assert received.message["Message-ID"] == sent["message_id"]
    page = await logs(tenancy, ann)
    assert page["total"] == 1
    [item] = page["items"]
    assert item["to"] == ["zoe@example.com"] and item["subject"] == "Renewal"
    assert item["status"] == "sent" and item["message_id"] == sent["message_id"]
    assert item["template"] is None and item["error"] is None and item["created_at"]


async def test_a_message_goes_over_starttls_with_auth_when_the_server_requires_them(
        aiohttp_client, settings, secure_smtp_server):
    tenancy = await service(aiohttp_client, smtp_to(
        settings, secure_smtp_server, smtp_password=SecretStr(secure_smtp_server.password)))
    ann = await tenancy.owner("ann@example.com")
    response = await send(tenancy, ann, to=["zoe@example.com"], subject="Renewal",
                          body="Your code is 482913.")
    assert (await response.json())["status"] == "sent"
    [received] = secure_smtp_server.messages
    assert received.over_tls and received.authenticated_as == secure_smtp_server.username
    assert "482913" in received.text_body()


def test_a_sendable_template_is_rendered_with_its_context_when_composed():
    # No built-in template is sendable (issue 28); the rendering path the route would take for
    # one that is, shown on the real templates marked sendable here.
    templates = replace(email.BuiltInTemplates.load(), sendable=frozenset({"verification_code"}))
    message = email.compose(templates, workspace_id="w", to=["Zoe@example.com"], subject=None,
                            body=None, template="verification_code",
                            context={"name": "Zoe", "code": "482913", "minutes": 15})
    assert message.to == ("zoe@example.com",) and message.template == "verification_code"
    assert "482913" in message.text and "Hello Zoe" in message.text and "482913" in message.html
    with pytest.raises(email.TemplateContextError):
        email.compose(templates, workspace_id="w", to=["zoe@example.com"], subject=None,
                      body=None, template="verification_code", context={"name": "Zoe"})


async def test_failed_delivery_is_logged_as_failed_when_the_smtp_server_refuses(
        aiohttp_client, settings, secure_smtp_server):
    tenancy = await service(aiohttp_client, smtp_to(
        settings, secure_smtp_server, smtp_password=SecretStr("not-the-password")))
    ann = await tenancy.owner("ann@example.com")
    response = await send(tenancy, ann, to=["zoe@example.com"], subject="Hi", body="Hello")
    assert response.status == 200
    sent = await response.json()
    assert sent["status"] == "failed" and sent["error"].startswith("smtp_auth_failed")
    assert secure_smtp_server.messages == []
    [item] = (await logs(tenancy, ann, status="failed"))["items"]
    assert item["status"] == "failed" and item["error"].startswith("smtp_auth_failed")
    assert (await logs(tenancy, ann, status="sent"))["total"] == 0


# Every refused subject and recipient is the fast tier's (test_service.py); here one of each
# through the route: answered 400, nothing sent, nothing logged.
@pytest.mark.parametrize("field, value", [
    ("subject", "Hi\r\nBcc: victim@example.com"),
    ("to", ["zoe@example.com\r\nBcc: victim@example.com"]),
])
async def test_send_is_refused_and_nothing_leaves_when_a_header_could_be_injected(
        aiohttp_client, settings, smtp_server, field, value):
    tenancy = await service(aiohttp_client, smtp_to(settings, smtp_server))
    ann = await tenancy.owner("ann@example.com")
    body = {"to": ["zoe@example.com"], "subject": "Hi", "body": "Hello", field: value}
    response = await send(tenancy, ann, **body)
    assert response.status == 400
    code = (await response.json())["error"]["code"]
    assert code == ("invalid_subject" if field == "subject" else "invalid_recipient")
    assert smtp_server.messages == []
    assert (await logs(tenancy, ann))["total"] == 0


async def test_send_answers_429_with_rate_limit_headers_when_the_hourly_quota_is_spent(
        aiohttp_client, settings):
    tenancy = await service(aiohttp_client, settings.model_copy(update={"email_send_per_hour": 2}))
    ann = await tenancy.owner("ann@example.com")
    zed = await tenancy.owner("zed@example.com", "Other Agency")
    for _ in range(2):
        ok = await send(tenancy, ann, to=["zoe@example.com"], subject="Hi", body="Hello")
        assert ok.status == 200 and (await ok.json())["status"] == "stored"  # the outbox
    assert ok.headers["X-RateLimit-Limit"] == "2" and ok.headers["X-RateLimit-Remaining"] == "0"
    refused = await send(tenancy, ann, to=["zoe@example.com"], subject="Hi", body="Hello")
    assert refused.status == 429
    assert (await refused.json())["error"]["code"] == "rate_limited"
    assert int(refused.headers["Retry-After"]) > 0 and "X-RateLimit-Reset" in refused.headers
    other = await send(tenancy, zed, to=["zoe@example.com"], subject="Hi", body="Hello")
    assert other.status == 200  # the quota is the workspace's
    tenancy.clock.advance(3600)
    assert (await send(tenancy, ann, to=["zoe@example.com"], subject="Hi",
                       body="Hello")).status == 200


async def test_logs_show_only_the_workspace_messages_when_two_workspaces_send(
        aiohttp_client, settings):
    tenancy = await service(aiohttp_client, settings)
    ann = await tenancy.owner("ann@example.com")
    zed = await tenancy.owner("zed@example.com", "Other Agency")
    for subject in ("one", "two", "three"):
        await send(tenancy, ann, to=["zoe@example.com"], subject=subject, body="x")
        tenancy.clock.advance(1)
    await send(tenancy, zed, to=["bob@example.com"], subject="zed's", body="x")
    first = await logs(tenancy, ann, page=1, page_size=2)
    assert first["total"] == 3 and [i["subject"] for i in first["items"]] == ["three", "two"]
    second = await logs(tenancy, ann, page=2, page_size=2)
    assert [i["subject"] for i in second["items"]] == ["one"]
    assert [i["subject"] for i in (await logs(tenancy, zed))["items"]] == ["zed's"]
    assert (await logs(tenancy, ann, status="stored"))["total"] == 3


async def test_member_may_read_but_not_send_when_not_admin(aiohttp_client, settings):
    tenancy = await service(aiohttp_client, settings)
    ann = await tenancy.owner("ann@example.com")
    bob = await tenancy.member(ann, "bob@example.com")
    refused = await send(tenancy, bob, to=["zoe@example.com"], subject="Hi", body="Hello")
    assert refused.status == 403
    assert (await logs(tenancy, bob))["total"] == 0
    anonymous = await tenancy.client.get(LOGS)
    assert anonymous.status == 401


async def test_templates_list_the_built_in_ones_with_variables_when_asked(
        aiohttp_client, settings):
    tenancy = await service(aiohttp_client, settings)
    ann = await tenancy.owner("ann@example.com")
    response = await tenancy.client.get(f"{BASE}/email/templates/", headers=ann.headers)
    listed = (await response.json())["templates"]
    templates = {t["name"]: t["variables"] for t in listed}
    assert templates["verification_code"] == ["code", "minutes", "name"]
    assert {"inviter", "link", "workspace"} <= set(templates["team_invitation"])
    assert "signup_attempt" in templates
    assert not any(t["sendable"] for t in listed)  # all the service's own mail (issue 28)


async def test_send_is_refused_when_the_template_is_unknown_or_given_with_a_body(
        aiohttp_client, settings):
    tenancy = await service(aiohttp_client, settings)
    ann = await tenancy.owner("ann@example.com")
    unknown = await send(tenancy, ann, to=["zoe@example.com"], template="nope")
    assert unknown.status == 404
    assert (await unknown.json())["error"]["code"] == "template_not_found"
    both = await send(tenancy, ann, to=["zoe@example.com"], subject="s", body="b",
                      template="verification_code")
    assert both.status == 400


OWN_TEMPLATES = sorted(email.BuiltInTemplates.load().renderers)


def test_the_built_in_templates_are_the_service_s_own_mail_when_listed():
    assert {"team_invitation", "verification_code", "signup_attempt"} <= set(OWN_TEMPLATES)
    assert email.BuiltInTemplates.load().sendable == frozenset()


# Every one of them is refused in the fast tier (test_service.py); here the route with one.
async def test_a_template_of_the_service_s_own_flows_is_refused_when_an_admin_sends_it(
        aiohttp_client, settings, smtp_server):
    template = "team_invitation"
    # issue 28, part 6: an admin sent `team_invitation` with a link of their own to any
    # address: a phishing mail from the service's own address. The service's own flows send
    # these templates; this route sends none of them, whatever the context.
    tenancy = await service(aiohttp_client, smtp_to(settings, smtp_server))
    ann = await tenancy.owner("ann@example.com")
    context = {"inviter": "Ann", "workspace": "Acme", "role": "admin", "days": 7,
               "link": "https://evil.example/accept", "name": "Zoe", "code": "123456",
               "minutes": 15, "email": "zoe@example.com"}
    response = await send(tenancy, ann, to=["zoe@example.com"], template=template,
                          context=context)
    assert response.status == 400, await response.text()
    error = (await response.json())["error"]
    assert error["code"] == "template_not_sendable"
    assert template in error["message"] and "service's own" in error["message"]
    assert smtp_server.messages == []
    assert (await logs(tenancy, ann))["total"] == 0
    assert response.headers.get("X-RateLimit-Remaining") is None  # refused before the quota
