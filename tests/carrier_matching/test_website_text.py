"""Extracting a page's title, meta description and visible text."""

from __future__ import annotations

from pathlib import Path

from insureops.carrier_matching.website_text import PageText, extract_page_text

SITE = Path(__file__).resolve().parents[1] / "platform" / "carrier_finder" / "site"


def test_title_and_description_are_read_when_the_page_has_them():
    page = extract_page_text((SITE / "plumber.html").read_text())
    assert page.title == "Rivera Plumbing & Drain | Licensed Plumbers in Tucson, AZ"
    assert page.description.startswith("Family-owned plumbing contractor: leak repair")


def test_hidden_parts_are_left_out_when_the_page_has_scripts_menus_and_footers():
    page = extract_page_text((SITE / "plumber.html").read_text())
    assert "We fix leaky pipes" in page.text and "Twelve technicians" in page.text
    for hidden in ("dataLayer", "font-family", "Careers", "Privacy policy", "Get a quote"):
        assert hidden not in page.text


def test_open_graph_description_is_used_when_no_meta_description_exists():
    page = extract_page_text((SITE / "restaurant.html").read_text())
    assert page.description.startswith("Neighborhood Italian restaurant")
    assert "servesCuisine" not in page.text


def test_text_is_cut_when_the_page_is_longer_than_the_bound():
    page = extract_page_text("<p>" + "pipes " * 1000 + "</p>", max_chars=100)
    assert len(page.text) == 100


def test_nothing_is_invented_when_the_input_is_not_html():
    assert extract_page_text("") == PageText(None, None, "")
    assert extract_page_text("just <b>words</b>") == PageText(None, None, "just words")


def test_excerpt_ends_at_a_word_when_the_text_is_longer():
    page = PageText(None, None, "we fix leaky pipes and drains")
    assert page.excerpt(14) == "we fix leaky…"
    assert page.excerpt(100) == "we fix leaky pipes and drains"
