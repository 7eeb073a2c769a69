"""Templates: all parts render, HTML is escaped, missing variables and sandbox escapes fail."""

from __future__ import annotations

import pytest
from jinja2 import UndefinedError
from jinja2.exceptions import SecurityError

from insureops.platform.email import TemplateRenderer


def test_names_lists_templates_with_all_three_parts_when_directory_is_bundled():
    assert {"verification_code", "signup_attempt"} <= set(TemplateRenderer().names())


def test_verification_code_renders_code_in_every_part_when_context_is_complete():
    rendered = TemplateRenderer().render(
        "verification_code", {"name": "Ada", "code": "042917", "minutes": 15})

    assert rendered.subject == "Your insureops verification code: 042917"
    assert "042917" in rendered.text and "15 minutes" in rendered.text
    assert "042917" in rendered.html


def test_html_part_is_escaped_when_a_value_holds_markup():
    rendered = TemplateRenderer().render(
        "verification_code", {"name": "<script>x</script>", "code": "1", "minutes": 15})

    assert "&lt;script&gt;" in rendered.html
    assert "<script>x</script>" in rendered.text


def test_render_fails_when_a_variable_is_missing():
    with pytest.raises(UndefinedError):
        TemplateRenderer().render("verification_code", {"name": "Ada"})


def test_sandbox_refuses_internal_attributes_when_a_template_reaches_for_them(tmp_path):
    for part, body in [("subject", "s"), ("txt", "{{ name.__class__.__mro__ }}"), ("html", "h")]:
        (tmp_path / f"evil.{part}.j2").write_text(body)

    with pytest.raises(SecurityError):
        TemplateRenderer(tmp_path).render("evil", {"name": "x"})
