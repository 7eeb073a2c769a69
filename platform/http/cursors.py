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


def _is_key(after: object) -> bool:
    """Every key a listing issues (ULIDs, uuids, ids, slugs, ruleset names) is printable ASCII:
    anything else, NUL and lone surrogates above all, was never issued. Those two reached the
    database and failed there (NUL on PostgreSQL, a surrogate on both: 500s, issue 28)."""
    return isinstance(after, str) and after.isascii() and after.isprintable()


def decode_cursor(cursor: str, **bound: str) -> str:
    """The key a cursor continues after; CursorInvalidError when it is mangled, of another
    version, holds a key no listing issues, or is bound to other values than `bound`'s."""
    try:
        data = json.loads(base64.urlsafe_b64decode((cursor + "=" * (-len(cursor) % 4)).encode()))
        if (not isinstance(data, dict) or data.get("v") != _VERSION
                or not _is_key(data.get("after"))
                or any(data.get(name) != value for name, value in bound.items())):
            raise ValueError("not a cursor of this listing")
        return data["after"]
    except (ValueError, TypeError, binascii.Error):
        raise CursorInvalidError("The cursor is invalid.") from None
