"""Opaque keyset cursors: the key of a page's last row, encoded so clients pass it back unread.

Every listing of the service (tenant records, carriers, rules, prospects) pages with these; a
listing may bind its cursors to more than the key (the prospects' ordering), so a cursor of one
ordering is refused by another.
"""

from __future__ import annotations

import base64
import binascii
import json

_VERSION = 1


class CursorInvalidError(ValueError):
    """A cursor this service did not issue for this listing."""


def encode_cursor(after: str, **bound: str) -> str:
    """The cursor that continues after the row keyed `after`, bound to `bound`'s values."""
    raw = json.dumps({"v": _VERSION, "after": after, **bound}, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str, **bound: str) -> str:
    """The key a cursor continues after; CursorInvalidError when it is mangled, of another
    version, or bound to other values than `bound`'s."""
    try:
        data = json.loads(base64.urlsafe_b64decode((cursor + "=" * (-len(cursor) % 4)).encode()))
        if (not isinstance(data, dict) or data.get("v") != _VERSION
                or not isinstance(data.get("after"), str)
                or any(data.get(name) != value for name, value in bound.items())):
            raise ValueError("not a cursor of this listing")
        return data["after"]
    except (ValueError, TypeError, binascii.Error):
        raise CursorInvalidError("The cursor is invalid.") from None
