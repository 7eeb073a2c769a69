"""Completion at a cursor in a ruleset being typed: fields of inputs by their types, consts,
outputs, built-in functions, keywords, type names, hit policies and decisions.

The text being typed rarely parses (`business.` is a syntax error), so the context comes from
the text before the cursor, and what names mean from the last analysis that checked (`known`,
usually of an earlier version of the same text). Pure: the language server and the studio's
API both call `complete`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from insureops.dsl.analysis import RESULT_DOCS, Analysis, function_doc, schema_doc
from insureops.dsl.grammar import keywords
from insureops.dsl.symbols import Typed, input_types, item_type, member_type
from insureops.engine.ir.builtins import FUNCTIONS
from insureops.schema.registry import TypeRegistry, default_registry

LOOK_BACK = 4_000  # characters before the cursor read for context (bounded work per request)
MAX_ITEMS = 500
_SEGMENT = r"[A-Za-z_]\w*(?:\[[^\[\]\n]*\])*"
_PATH_BEFORE = re.compile(rf"({_SEGMENT}(?:\.{_SEGMENT})*)\.(\w*)$")
_INDEXES = re.compile(r"\[[^\[\]\n]*\]")
_WORD_BEFORE = re.compile(r"(\w*)$")
_INPUT_TYPE = re.compile(r"^\s*input\s+\w+\s*:\s*\w*$")
_HIT = re.compile(r"^\s*table\s.*\bhit\s+\w*$")
_DEFAULT = re.compile(r"^\s*default\s+decision\s+\w*$")
_BLOCK = re.compile(r"^[ \t]*(rule|table|test|const|input|default|version|ruleset)\b",
                    re.MULTILINE)
_VARIABLE = r"(?:\(\s*|\bfor\s+){name}\s+in\s+([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)"


@dataclass(frozen=True, slots=True)
class CompletionItem:
    """One proposal; `kind` is one of: field, const, input, output, function, keyword, type,
    value, variable."""

    label: str
    kind: str
    detail: str = ""
    documentation: str = ""


def complete(source: str, offset: int, known: Analysis | None = None,
             registry: TypeRegistry | None = None) -> list[CompletionItem]:
    """What may be typed at `offset` in `source`."""
    registry = registry if registry is not None else default_registry()
    offset = max(0, min(offset, len(source)))
    before = source[max(0, offset - LOOK_BACK):offset]
    line = before[before.rfind("\n") + 1:]
    if _in_comment_or_string(line):
        return []
    if _INPUT_TYPE.match(line):
        return [CompletionItem(name, "type", "type", _type_doc(registry, name))
                for name in registry.names()]
    if _HIT.match(line):
        return [CompletionItem(word, "value", "hit policy") for word in ("first", "unique",
                                                                          "collect")]
    if _DEFAULT.match(line):
        return [CompletionItem(word, "value", "decision") for word in ("accept", "refer",
                                                                        "decline")]
    inputs = _inputs(known, registry)
    path = _PATH_BEFORE.search(line)
    if path is not None:
        return _members(_split_path(path.group(1)), before, known, inputs)[:MAX_ITEMS]
    return _names(before, known, inputs)[:MAX_ITEMS]


def _in_comment_or_string(line: str) -> bool:
    """Whether the end of `line` is inside a comment or a string's text (an interpolation
    `{...}` in a string is code again)."""
    in_string, depth, index = False, 0, 0
    while index < len(line):
        char = line[index]
        if in_string and char == "\\":
            index += 2
            continue
        if char == '"':
            if in_string and depth == 0:
                in_string = False
            elif not in_string:
                in_string = True
        elif in_string and char == "{":
            depth += 1
        elif in_string and char == "}" and depth:
            depth -= 1
        elif char == "#" and not in_string:
            return True
        index += 1
    return in_string and depth == 0


def _inputs(known: Analysis | None, registry: TypeRegistry) -> dict[str, Typed]:
    if known is not None and known.index is not None:
        return known.index.inputs
    if known is not None and known.ruleset is not None:
        return input_types(known.ruleset, registry)
    return {}


def _members(path: list[str], before: str, known: Analysis | None,
             inputs: Mapping[str, Typed]) -> list[CompletionItem]:
    head, head_indexes = _segment(path[0])
    if head == "outputs" and len(path) == 1 and not head_indexes:
        return [CompletionItem(name, "output", "output", "set by a rule or a table")
                for name in _defined(known, "output")]
    typed = _variable_type(head, before, inputs) or inputs.get(head)
    for _ in range(head_indexes):
        typed = item_type(typed)
    for segment in path[1:]:
        name, indexes = _segment(segment)
        typed = member_type(typed, name)
        for _ in range(indexes):
            typed = item_type(typed)
    if typed is None or typed.type.kind != "object" or not typed.type.fields:
        return []
    properties = (typed.schema or {}).get("properties") or {}
    return [CompletionItem(name, "field", str(field_type),
                           schema_doc(Typed(field_type, properties.get(name))))
            for name, field_type in typed.type.fields.items()]


def _split_path(text: str) -> list[str]:
    """`a.b[x.y].c` -> ["a", "b[x.y]", "c"]: dots inside an index do not split."""
    parts, depth, current = [], 0, ""
    for char in text:
        depth += (char == "[") - (char == "]")
        if char == "." and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    return [*parts, current]


def _segment(text: str) -> tuple[str, int]:
    """`requests[0]` -> ("requests", 1): a name and how many indexes follow it."""
    indexes = len(_INDEXES.findall(text))
    return _INDEXES.sub("", text), indexes


def _variable_type(name: str, before: str, inputs: Mapping[str, Typed]) -> Typed | None:
    """The item type of a comprehension's variable (`c in business.prior_claims`), from the
    nearest binding before the cursor."""
    found = None
    for match in re.finditer(_VARIABLE.format(name=re.escape(name)), before):
        found = match
    if found is None:
        return None
    parts = found.group(1).split(".")
    typed = inputs.get(parts[0])
    for part in parts[1:]:
        typed = member_type(typed, part)
    return item_type(typed)


def _names(before: str, known: Analysis | None,
           inputs: Mapping[str, Typed]) -> list[CompletionItem]:
    items: list[CompletionItem] = []
    blocks = list(_BLOCK.finditer(before))
    in_test = bool(blocks) and blocks[-1].group(1) == "test"
    const_types = known.index.const_types if known is not None and known.index else {}
    for name, const_type in sorted(const_types.items()):
        items.append(CompletionItem(name, "const", f"const: {const_type}"))
    if not in_test:
        for name, typed in sorted(inputs.items()):
            items.append(CompletionItem(name, "input", f"input: {typed.type}",
                                        schema_doc(typed)))
    items.append(CompletionItem("outputs", "variable", "outputs.NAME",
                                "the outputs set so far by rules and tables"))
    if in_test:
        items += [CompletionItem(name, "variable", "result", doc)
                  for name, doc in RESULT_DOCS.items()]
    for name, function in sorted(FUNCTIONS.items()):
        items.append(CompletionItem(name, "function", function.summary, function_doc(function)))
    taken = {item.label for item in items}
    items += [CompletionItem(word, "keyword") for word in sorted(keywords()) if word not in taken]
    return items


def _defined(known: Analysis | None, kind: str) -> list[str]:
    return known.index.names(kind) if known is not None and known.index is not None else []


def _type_doc(registry: TypeRegistry, name: str) -> str:
    schema = registry.get(name)
    return str(schema.get("description") or "") if isinstance(schema, Mapping) else ""
