"""Diagnostics: values, stable codes, and the rendered form."""

from __future__ import annotations

from insureops.dsl.diagnostics import CODES, Diagnostic, error, render_diagnostics, warning
from insureops.engine.ir import Span

SOURCE = ("ruleset appetite\ninput business: Business\n"
          "rule r when business.anual_revenue between 100_000 and 5 then stop end\n")


def test_rendering_shows_location_line_caret_and_hint_when_a_span_is_known():
    diagnostic = error("E104", Span(3, 13, 3, 35, 0, 0), "unknown field `anual_revenue` on "
                       "Business", "did you mean `annual_revenue`?")
    assert render_diagnostics([diagnostic], SOURCE, "appetite.rules") == (
        "appetite.rules:3:13: error[E104]: unknown field `anual_revenue` on Business\n"
        " 3 | rule r when business.anual_revenue between 100_000 and 5 then stop end\n"
        "   |             ^^^^^^^^^^^^^^^^^^^^^^\n"
        "   = hint: did you mean `annual_revenue`?")


def test_rendering_carets_to_the_line_end_when_the_span_spans_lines():
    diagnostic = warning("W200", Span(2, 7, 3, 4, 0, 0), "m")
    assert render_diagnostics([diagnostic], SOURCE, "f").splitlines()[2] == (
        "   |       " + "^" * 18)


def test_rendering_omits_the_source_when_there_is_no_span():
    assert render_diagnostics([error("E007", None, "too deep", "split")], SOURCE, "f") == (
        "f: error[E007]: too deep\n    = hint: split")


def test_diagnostic_converts_to_json_when_asked():
    diagnostic = Diagnostic("E104", "error", Span(1, 2, 1, 5), "m", "h")
    assert diagnostic.to_dict() == {
        "code": "E104", "name": "unknown_field", "severity": "error", "message": "m",
        "hint": "h", "line": 1, "column": 2, "end_line": 1, "end_column": 5}


def test_codes_are_unique_when_named():
    assert len(set(CODES.values())) == len(CODES)
    assert all(code[0] in "EW" and len(code) == 4 for code in CODES)
