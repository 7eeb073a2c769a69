"""Opaque keyset cursors: they round-trip, and anything else is a validation error."""

from __future__ import annotations

import base64
import uuid

import pytest

from insureops.platform.tenancy.book.cursor import decode_cursor, encode_cursor
from insureops.platform.tenancy.book.errors import PayloadInvalidError


def test_cursor_round_trips_when_passed_back_unchanged():
    row_id = uuid.uuid4()
    cursor = encode_cursor(row_id)
    assert decode_cursor(cursor) == row_id and str(row_id) not in cursor


@pytest.mark.parametrize("cursor", [
    "", "garbage", "!!!", base64.urlsafe_b64encode(b'{"v": 2, "after": "x"}').decode(),
    base64.urlsafe_b64encode(b'{"v": 1, "after": "not-a-uuid"}').decode(),
    base64.urlsafe_b64encode(b"[1, 2]").decode(),
])
def test_cursor_is_refused_on_the_cursor_field_when_mangled(cursor):
    with pytest.raises(PayloadInvalidError) as failure:
        decode_cursor(cursor)
    assert failure.value.details[0]["field"] == "cursor"
