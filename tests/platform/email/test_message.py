"""The message value: MIME building and header-injection refusal."""

from __future__ import annotations

import pytest

from insureops.platform.email import EmailMessage


def test_to_mime_uses_default_sender_when_message_has_none():
    mime = EmailMessage(to=("a@x.test", "b@x.test"), subject="Hi", text="body\n").to_mime(
        "insureops <no-reply@x.test>", "<id@x.test>")

    assert mime["From"] == "insureops <no-reply@x.test>"
    assert mime["To"] == "a@x.test, b@x.test"
    assert mime["Message-ID"] == "<id@x.test>"
    assert not mime.is_multipart()
    assert mime.get_content() == "body\n"


def test_to_mime_adds_html_alternative_when_html_given():
    mime = EmailMessage(to=("a@x.test",), subject="Hi", text="t\n", html="<p>h</p>",
                        sender="me@x.test", reply_to="help@x.test").to_mime("d@x.test", "<i@x>")

    assert mime.get_content_type() == "multipart/alternative"
    assert mime["From"] == "me@x.test" and mime["Reply-To"] == "help@x.test"
    assert mime.get_body(preferencelist=("html",)).get_content().strip() == "<p>h</p>"


@pytest.mark.parametrize("field", ["to", "subject"])
def test_message_is_refused_when_a_header_contains_a_line_break(field):
    values = {"to": ("a@x.test",), "subject": "Hi", "text": "t"}
    values[field] = ("a@x.test\r\nBcc: evil@x.test",) if field == "to" else "Hi\nBcc: e@x.test"

    with pytest.raises(ValueError, match="line breaks"):
        EmailMessage(**values)


def test_message_is_refused_when_it_has_no_recipient():
    with pytest.raises(ValueError, match="recipient"):
        EmailMessage(to=(), subject="Hi", text="t")
