"""The one keyset cursor of every listing: round trip, binding, refusal."""

from __future__ import annotations

import pytest

from insureops.platform.cursors import CursorInvalidError, decode_cursor, encode_cursor


def test_cursor_gives_back_its_key_when_decoded_as_issued():
    assert decode_cursor(encode_cursor("01J0000000000000000000000A")) == \
        "01J0000000000000000000000A"
    assert decode_cursor(encode_cursor("k", o="name"), o="name") == "k"


@pytest.mark.parametrize("cursor", ["", "not base64!", "e30", "bnVsbA", "W10",
                                    encode_cursor("k", o="name")])
def test_cursor_is_refused_when_mangled_or_bound_to_another_listing(cursor):
    with pytest.raises(CursorInvalidError):
        decode_cursor(cursor, o="created_at")
