"""Completion and hover for the studio page's editor: the language server's analysis as JSON.

The same core functions as `insureops rules lsp` (`dsl.analysis.analyse`, its `hover`, and
`dsl.completion.complete`), so the page and an editor propose and explain the same names; this
module only turns positions (1-based lines and columns in characters, as the checker's
diagnostics count them) into offsets and the core's answers into plain data. While the text
being typed does not parse, names and types come from `known_source`, the last text of the
page that did (the language server keeps that version itself). Runs in a rules worker.
"""

from __future__ import annotations

import re
from functools import lru_cache

from insureops.dsl.analysis import Analysis, analyse
from insureops.dsl.completion import complete

_WORD_BEFORE = re.compile(r"\w*\Z")
# Analyses kept per worker process by text: the page sends the same `known_source` with every
# completion while the author types a line, so it is analysed once.
_CACHED_ANALYSES = 4


class PositionError(ValueError):
    """A line or column past the end of the source (its arguments are plain, so it crosses
    back from a rules worker)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(field, message)
        self.field = field
        self.message = message

    def __str__(self) -> str:
        return self.message


@lru_cache(maxsize=_CACHED_ANALYSES)
def _analysis(source: str) -> Analysis:
    return analyse(source)


def _offset(analysis: Analysis, line: int, column: int) -> int:
    lines = analysis.lines
    if line > len(lines.starts):
        raise PositionError("line", f"line {line} is past the source's last line "
                            f"({len(lines.starts)})")
    length = len(lines.line_text(line))
    if column > length + 1:
        raise PositionError("column", f"column {column} is past the end of line {line} "
                            f"({length} characters)")
    return lines.offset(line, column)


def _range(analysis: Analysis, start: int, end: int) -> dict:
    line, column = analysis.lines.position(start)
    end_line, end_column = analysis.lines.position(end)
    return {"line": line, "column": column, "end_line": end_line, "end_column": end_column}


def completion(source: str, line: int, column: int, known_source: str | None) -> dict:
    """What may be typed at (line, column): `items` (label, kind, detail, documentation,
    insert_text), the `range` of the word they replace, and a `notice` when the text was
    over the editor's budget (then no names of its own are known)."""
    analysis = _analysis(source)
    offset = _offset(analysis, line, column)
    known = analysis if analysis.ruleset is not None else None
    if known is None and known_source and known_source != source:
        earlier = _analysis(known_source)
        known = earlier if earlier.ruleset is not None else None
    items = complete(source, offset, known, analysis.registry)
    word = _WORD_BEFORE.search(source, max(0, offset - 200), offset)
    start = word.start() if word is not None else offset
    return {
        "items": [{"label": item.label, "kind": item.kind, "detail": item.detail,
                   "documentation": item.documentation.strip(), "insert_text": item.label}
                  for item in items],
        "range": _range(analysis, start, offset),
        "notice": analysis.notice,
    }


def hover(source: str, line: int, column: int) -> dict:
    """What the name at (line, column) is: `hover` (markdown and the name's range) or null
    (no name there, or the text does not parse), and the budget's `notice`."""
    analysis = _analysis(source)
    found = analysis.hover(_offset(analysis, line, column))
    answer = None
    if found is not None:
        answer = {"markdown": found.markdown, **_range(analysis, found.span.start,
                                                        found.span.end)}
    return {"hover": answer, "notice": analysis.notice}
