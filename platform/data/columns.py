"""Column types shared by the platform's ORM models, and what their columns can hold: the
bounds of integer columns and the text no database stores."""

from __future__ import annotations

import datetime
import re

from sqlalchemy import DateTime, TypeDecorator

INTEGER_MAX = 2**31 - 1  # an INTEGER column (PostgreSQL's is 32-bit)
BIGINT_MAX = 2**63 - 1  # a BIGINT column, and any SQLite integer
# NUL, and the lone halves of surrogate pairs (a JSON \uD800 escape, or a header byte that is
# not UTF-8, which aiohttp decodes to one): PostgreSQL text cannot hold NUL (psycopg raises
# DataError) and UTF-8 cannot encode a lone surrogate (UnicodeEncodeError), on either engine.
UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
_DECIMAL = re.compile(r"[0-9]{1,19}")  # ASCII: str.isdigit() also takes "²", which int() refuses


def column_integer(text: str, maximum: int = INTEGER_MAX) -> int | None:
    """`text` as an id or number a column bounded by `maximum` holds: ASCII decimal digits,
    1 to `maximum`; None for anything else (non-ASCII digits, a number past the column's
    range, which the database would refuse with an error, or past int()'s 4,300 digits)."""
    if not _DECIMAL.fullmatch(text):
        return None
    value = int(text)
    return value if 1 <= value <= maximum else None


def storable_text(text: str) -> str:
    """`text` with each character no database stores (UNSTORABLE) replaced by U+FFFD."""
    return UNSTORABLE.sub("\ufffd", text)


class UtcDateTime(TypeDecorator[datetime.datetime]):
    """A timezone-aware UTC datetime on both engines (SQLite hands back naive values)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value, dialect):
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("store timezone-aware datetimes only")
        return value.astimezone(datetime.UTC)

    def process_result_value(self, value, dialect):
        if value is None:
            return None
        return value.replace(tzinfo=datetime.UTC) if value.tzinfo is None else value
