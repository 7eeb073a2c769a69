"""Opaque keyset cursors: the id of the last row of a page, encoded so clients do not rely on it."""

from __future__ import annotations

import base64
import binascii
import json
import uuid

from insureops.platform.tenant_data.errors import PayloadInvalidError

_VERSION = 1


def encode_cursor(last_id: uuid.UUID) -> str:
    """The cursor that continues after the row `last_id`."""
    raw = json.dumps({"v": _VERSION, "after": str(last_id)}, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str) -> uuid.UUID:
    """The row id a cursor continues after; PayloadInvalidError (field `cursor`) when mangled."""
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        data = json.loads(base64.urlsafe_b64decode(padded.encode()))
        if data.get("v") != _VERSION:
            raise ValueError("unknown cursor version")
        return uuid.UUID(data["after"])
    except (ValueError, KeyError, TypeError, AttributeError, binascii.Error):
        raise PayloadInvalidError("The cursor is invalid.", [
            {"field": "cursor", "message": "is not a cursor this service issued; pass "
             "next_cursor of the previous page unchanged"}]) from None
