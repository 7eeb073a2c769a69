"""Date and date-time input types that take ISO 8601 text only, as the OpenAPI document says.

pydantic's lax mode also reads a number, or text that looks like one (`0`, `"0.5"`), as a Unix
time; the document declares `format: date-time` / `date`, so such input is a validation error.
"""

from __future__ import annotations

import datetime
import re
from typing import Annotated, Any

from pydantic import AwareDatetime, BeforeValidator

_ISO_DATE_START = re.compile(r"\d{4}-\d{2}-\d{2}")


def _iso_text_only(value: Any) -> Any:
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value  # already parsed (a model built in code)
    if not isinstance(value, str) or not _ISO_DATE_START.match(value):
        raise ValueError("use ISO 8601 text (YYYY-MM-DD, or YYYY-MM-DDTHH:MM:SS+00:00)")
    return value


IsoDateTime = Annotated[datetime.datetime, BeforeValidator(_iso_text_only)]
IsoAwareDateTime = Annotated[AwareDatetime, BeforeValidator(_iso_text_only)]
IsoDate = Annotated[datetime.date, BeforeValidator(_iso_text_only)]
