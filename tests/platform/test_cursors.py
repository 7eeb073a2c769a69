"""The one keyset cursor of every listing: round trip, binding, refusal."""

from __future__ import annotations

import pytest

from insureops.platform.http.cursors import CursorInvalidError, decode_cursor, encode_cursor


def test_cursor_gives_back_its_key_when_decoded_as_issued():
    assert decode_cursor(encode_cursor("01J0000000000000000000000A")) == \
        "01J0000000000000000000000A"
    assert decode_cursor(encode_cursor("k", o="name"), o="name") == "k"


@pytest.mark.parametrize("cursor", ["", "not base64!", "e30", "bnVsbA", "W10",
                                    encode_cursor("k", o="name")])
def test_cursor_is_refused_when_mangled_or_bound_to_another_listing(cursor):
    with pytest.raises(CursorInvalidError):
        decode_cursor(cursor, o="created_at")


@pytest.mark.parametrize("after", ["\x00", "01J" + "\x00" * 23, "\ud800", "²³", "Zürich", 5, None])
def test_cursor_is_refused_when_its_key_is_not_one_a_listing_issues(after):
    """Issue 28: keys of NUL (PostgreSQL) or a lone surrogate (both engines) reached the
    database and failed there (500s); every key a listing issues is printable ASCII."""
    with pytest.raises(CursorInvalidError):
        decode_cursor(encode_cursor(after))  # type: ignore[arg-type]
