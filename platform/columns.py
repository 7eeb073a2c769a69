"""Column types shared by the platform's ORM models."""

from __future__ import annotations

import datetime

from sqlalchemy import DateTime, TypeDecorator


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
