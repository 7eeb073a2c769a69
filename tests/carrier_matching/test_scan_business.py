"""The Business a scan describes: the state read from "City, ST" in the page's words."""

from __future__ import annotations

import pytest

from insureops.carrier_matching.scan_business import find_state, scan_business


@pytest.mark.parametrize(
    ("texts", "state"),
    [
        (("Rivera Plumbing | Licensed Plumbers in Tucson, AZ",), "AZ"),
        (("Visit us at 12 Main St, Austin, TX 78701-1234 today",), "TX"),
        (("Offices in Salt Lake City, UT and Boise, ID.", "Salt Lake City, UT"), "UT"),
        (("Portland, OR or nearby",), "OR"),
        (("We serve Springfield, XY",), None),  # not a state code
        (("no place here", None, ""), None),
    ],
)
def test_find_state_reads_the_most_named_state_when_a_place_is_written(texts, state):
    assert find_state(*texts) == state


def test_scan_business_keeps_only_what_the_scan_knows_when_built():
    business = scan_business(
        url="https://a.example/", title="A" * 300, words="plumbing", naics="238220", state=None
    )
    assert business == {
        "website": "https://a.example/",
        "description": "plumbing",
        "name": "A" * 255,
        "naics": "238220",
    }
