"""The e-mail pattern means the same to the server's regex (pydantic's, in Rust) and to the
document's readers (ECMA regex): schemathesis drew an address holding NEL (U+0085), valid to
the document's `\\s` and refused by the server's (issue 30)."""

from __future__ import annotations

import re

import pytest
from pydantic import ValidationError

from insureops.platform.accounts.payloads import SignupRequest
from insureops.platform.http.bodies import EMAIL_PATTERN


@pytest.mark.parametrize("space", ["\x85", "\ufeff", " ", "\u00a0", "\u2028", "\t"])
def test_an_address_with_any_kind_of_space_is_refused_by_server_and_pattern_alike(space):
    address = f"ann{space}lee@example.com"
    assert re.fullmatch(EMAIL_PATTERN, address) is None
    with pytest.raises(ValidationError):
        SignupRequest(email=address, password="a long passphrase", name="Ann")


def test_a_plain_address_is_taken():
    assert SignupRequest(email="ann.lee@example.com", password="a long passphrase", name="Ann")
