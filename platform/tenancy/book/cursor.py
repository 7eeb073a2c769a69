"""Keyset cursors of the tenant API's lists: platform/http/cursors.py over record uuids."""

from __future__ import annotations

import uuid

from insureops.platform.http import cursors
from insureops.platform.tenancy.book.errors import PayloadInvalidError


def encode_cursor(last_id: uuid.UUID) -> str:
    """The cursor that continues after the row `last_id`."""
    return cursors.encode_cursor(str(last_id))


def decode_cursor(cursor: str) -> uuid.UUID:
    """The row id a cursor continues after; PayloadInvalidError (field `cursor`) when mangled."""
    try:
        return uuid.UUID(cursors.decode_cursor(cursor))
    except (cursors.CursorInvalidError, ValueError):
        raise PayloadInvalidError("The cursor is invalid.", [
            {"field": "cursor", "message": "is not a cursor this service issued; pass "
             "next_cursor of the previous page unchanged"}]) from None
